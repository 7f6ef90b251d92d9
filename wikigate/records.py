"""Run records: what happened to a run, as JSON notes in ``refs/notes/wikigate``.

Git is the source of truth for what happened to a run; the database is
derived from it, which is what makes ``telemetry rebuild`` (rebuild.py) and
crash recovery (reconcile.py) possible.  Writing records into git: publish.py.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .gitrepo import RUN_PREFIX
from .models import (
    Budget,
    Finding,
    LoggedFinding,
    RunMeta,
    RunRecord,
    Usage,
    VerificationRef,
    fingerprint,
)
from .plan import meta_digest
from .runid import now_iso

if TYPE_CHECKING:
    import pygit2

    from .store import RunRow, Store


MAX_READ = 5 * 2**20  # a page read for its findings' lines (a page's limit)


def finding_fingerprints(repo: pygit2.Repository, tip: str, findings: list[Finding]) -> list[str]:
    """Each finding's fingerprint (``models.fingerprint``) with the content it is about at
    ``tip``: the text of its line; for a citation finding on a footnote's definition, also
    the lines citing that footnote (a new claim citing it is a new finding); for a finding
    about a file with no line (``page.uncited``, ``page.orphan``), the file's whole text.
    Never where it sits. Each file is read, and its citing lines indexed, once."""
    from .gitrepo import commit_at

    tree = commit_at(repo, tip).tree
    lines: dict[str, list[str]] = {}
    citing: dict[str, dict[str, list[str]]] = {}
    out = []
    for f in findings:
        text = ""
        if f.path is not None:
            if f.path not in lines:
                lines[f.path] = _lines(repo, tree, f.path)
            got = lines[f.path]
            if f.line is None:
                text = "\n".join(got)
            elif 1 <= f.line <= len(got):
                text = got[f.line - 1]
                label = _DEFINITION.match(text) if f.code.startswith("citation.") else None
                if label is not None:
                    if f.path not in citing:
                        citing[f.path] = _citing(got)
                    text = "\n".join([text, *citing[f.path].get(label.group(1), [])])
        out.append(fingerprint(f, text))
    return out


_DEFINITION = re.compile(r"\s{0,3}\[\^([^\[\]\s]+)\]:")
# a label holds no "[": each match stops at the next, so a line of "[^[^[^…" costs linear time
_REFERENCE = re.compile(r"\[\^([^\[\]\s]+)\](?!:)")


def _citing(lines: list[str]) -> dict[str, list[str]]:
    """Each footnote label → the lines citing it (definitions aside), in page order."""
    out: dict[str, list[str]] = {}
    for line in lines:
        if _DEFINITION.match(line):
            continue
        for label in dict.fromkeys(m.group(1) for m in _REFERENCE.finditer(line)):
            out.setdefault(label, []).append(line)
    return out


def _lines(repo: pygit2.Repository, tree: pygit2.Tree, path: str) -> list[str]:
    import pygit2

    try:
        entry = tree[path]
        blob = repo[entry.id]
    except (KeyError, ValueError, pygit2.GitError):
        return []
    if not isinstance(blob, pygit2.Blob) or blob.size > MAX_READ:
        return []
    return blob.data.decode("utf-8", "replace").splitlines()


def pending_record(workspace: str, meta: RunMeta, tip: str) -> RunRecord:
    """A new run's record (``workspace``: the workspace's name)."""
    return RunRecord(
        run_id=meta.run_id,
        workspace=workspace,
        run_type=meta.run_type,
        triggered_by=meta.triggered_by,
        status="pending",
        started_at=meta.started_at,
        recorded_at=now_iso(),
        base_commit=meta.base,
        tip_commit=tip,
        branch=RUN_PREFIX.removeprefix("refs/heads/") + meta.run_id,
        budget=meta.budget,
        usage=meta.usage,
        meta_digest=meta_digest(meta),
    )


def record_from_db(store: Store, run_id: str) -> RunRecord:
    """The run's current state as the database holds it, in record form."""
    from .store import advice_of

    row = store.get(run_id)
    assert row is not None
    said = advice_of(row)  # the last verification's feedback
    findings = [LoggedFinding.model_validate(f) for f in store.findings(run_id)]
    overrides = store.overrides(run_id)
    last = overrides[-1] if overrides else None
    return RunRecord(
        run_id=run_id,
        workspace=row["workspace"],
        run_type=row["run_type"],
        triggered_by=row["triggered_by"],
        status=row["status"],
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        recorded_at=now_iso(),
        base_commit=row["base_commit"],
        tip_commit=row["tip_commit"] or row["base_commit"],
        branch=row["branch"],
        verifier_preset=row["verifier_preset"],
        verdict=row["verdict"],
        reject_reason=row["reject_reason"],
        loop_count=row["loop_count"],
        unverified=bool(row["unverified"]),
        budget=Budget(
            input_tokens=row["budget_input_tokens"],
            output_tokens=row["budget_output_tokens"],
            usd=row["budget_usd"],
        ),
        usage=_usage_budget(row),
        verifier_usage=Usage(
            input_tokens=row["verifier_input_tokens"] or 0,
            output_tokens=row["verifier_output_tokens"] or 0,
            usd=row["verifier_usd"] or 0.0,
        ),
        findings=findings,
        verifications=[VerificationRef.model_validate(v) for v in store.verifications(run_id)],
        override_actor=last["actor"] if last else None,
        override_reason=last["reason"] if last else None,
        override_source=last["source"] if last else None,
        override_at=last["at"] if last else None,
        meta_digest=row.get("meta_digest"),
        next_actions=said.get("next_actions", []),
        blind_spots=said.get("blind_spots", []),
        questions=said.get("questions", []),
    )


def _usage_budget(row: RunRow) -> Budget:
    used = (
        row["budget_input_tokens_used"],
        row["budget_output_tokens_used"],
        row["budget_usd_used"],
    )
    if not any(used):
        return Budget()
    return Budget(input_tokens=used[0], output_tokens=used[1], usd=used[2])


def note_payload(record: RunRecord) -> dict[str, object]:
    return record.model_dump(mode="json")


def parse_record(data: dict[str, object]) -> RunRecord | None:
    if data.get("kind") != "wikigate.run":
        return None
    try:
        return RunRecord.model_validate(data)
    except ValueError:
        return None
