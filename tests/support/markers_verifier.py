"""A test double implementing the Verifier protocol (never the product default).

It votes by markers in the staged wiki pages: a page containing ``REJECT-ME``
draws a critical finding, ``REVISE-ME`` a major one, ``HUMAN-REVIEW`` one that asks a
person (claim.frozen_reworded: needs_human_review); anything else commits.
Every call is appended to ``$MARKERS_VERIFIER_LOG`` (if set) so tests can
count re-verifications across processes.  ``MARKERS_VERIFIER_SLEEP`` widens
the window in which crash tests can kill a finalizer.
"""

from __future__ import annotations

import os
import time

from wikigate.codes import verdict_for
from wikigate.models import Finding, VerifierVerdict


class MarkersVerifier:
    def __init__(self, ws: object = None) -> None:
        self.calls: list[str] = []

    def verify(self, run_id, workspace, plan, staged_tree) -> VerifierVerdict:  # type: ignore[no-untyped-def]
        self.calls.append(run_id)
        log = os.environ.get("MARKERS_VERIFIER_LOG")
        if log:
            with open(log, "a") as fh:
                fh.write(f"{run_id} {plan.tip}\n")
        delay = float(os.environ.get("MARKERS_VERIFIER_SLEEP", "0"))
        if delay:
            time.sleep(delay)
        findings = []
        for path in plan.paths():
            try:
                blob = staged_tree[path]
            except KeyError:
                continue
            text = workspace.repo[blob.id].data.decode("utf-8", "replace")
            for lineno, line in enumerate(text.splitlines(), 1):
                if "REJECT-ME" in line:
                    findings.append(
                        Finding(
                            code="test.reject",
                            severity="critical",
                            path=path,
                            line=lineno,
                            message="page asks to be rejected",
                        )
                    )
                if "HUMAN-REVIEW" in line:
                    findings.append(
                        Finding(
                            code="claim.frozen_reworded",
                            severity="major",
                            path=path,
                            line=lineno,
                            message="page asks for a person",
                        )
                    )
                if "REVISE-ME" in line:
                    findings.append(
                        Finding(
                            code="test.revise",
                            severity="major",
                            path=path,
                            line=lineno,
                            message="page asks for a revision",
                        )
                    )
        return VerifierVerdict(
            verdict=verdict_for(findings),
            reasoning="markers",
            per_page_findings=findings,
            preset="test-markers",
        )


def factory(ws: object) -> MarkersVerifier:
    return MarkersVerifier(ws)
