"""A test double implementing the Verifier protocol (never the product default).

It votes by markers in the pages the change touches: a page containing ``REJECT-ME``
draws a critical finding, ``REVISE-ME`` a major one, ``HUMAN-REVIEW`` one that asks a
person (claim.frozen_reworded: needs_human_review); anything else commits.
Every call is appended to ``$MARKERS_VERIFIER_LOG`` (if set) so tests can
count re-verifications across processes.  ``MARKERS_VERIFIER_SLEEP`` widens
the window in which crash tests can kill a finalizer.
"""

from __future__ import annotations

import os
import time

from wikigate.models import Finding
from wikigate.verifier.protocol import Request, Verification, report_of

MARKS = (
    ("REJECT-ME", "test.reject", "critical", "page asks to be rejected"),
    ("HUMAN-REVIEW", "claim.frozen_reworded", "major", "page asks for a person"),
    ("REVISE-ME", "test.revise", "major", "page asks for a revision"),
)


class MarkersVerifier:
    version = "markers 1"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def verify(self, request: Request) -> Verification:
        self.calls.append(request.run_id or str(request.tip.id))
        log = os.environ.get("MARKERS_VERIFIER_LOG")
        if log:
            with open(log, "a") as fh:
                fh.write(f"{request.run_id} {request.tip.id}\n")
        delay = float(os.environ.get("MARKERS_VERIFIER_SLEEP", "0"))
        if delay:
            time.sleep(delay)
        findings = []
        for path, text in changed_pages(request):
            for lineno, line in enumerate(text.splitlines(), 1):
                for mark, code, severity, message in MARKS:
                    if mark in line:
                        findings.append(
                            Finding(
                                code=code,
                                severity=severity,
                                path=path,
                                line=lineno,
                                message=message,
                            )
                        )
        return report_of(request, findings, check="markers")


def changed_pages(request: Request) -> list[tuple[str, str]]:
    """(path, text) of each file the change adds or modifies (the run's ops when it is a
    run; else the diff of base → tip; the whole tree when there is no base)."""
    repo, tip = request.repo, request.tip
    if request.plan is not None:
        paths = request.plan.paths()
    elif request.base is not None:
        diff = repo.diff(request.base.tree, tip.tree)
        paths = [d.delta.new_file.path for d in diff]
    else:
        paths = list(_walk(repo, tip.tree, ""))
    out = []
    for path in paths:
        try:
            blob = tip.tree[path]
        except KeyError:
            continue
        out.append((path, repo[blob.id].data.decode("utf-8", "replace")))
    return out


def _walk(repo, tree, prefix):  # type: ignore[no-untyped-def]
    for e in tree:
        if e.type_str == "tree":
            yield from _walk(repo, repo[e.id], f"{prefix}{e.name}/")
        else:
            yield f"{prefix}{e.name}"


def factory() -> MarkersVerifier:
    return MarkersVerifier()
