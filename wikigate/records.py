"""Run records: the JSON notes in ``refs/notes/wikigate`` and their SQLite index.

Git is the source of truth for what happened to a run; the database is
derived from it, which is what makes ``telemetry rebuild`` and crash
recovery (``sweep``) possible.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pygit2

from . import gitrepo
from .gitrepo import FAILED_PREFIX, MAIN, NOTES_REF, RUN_PREFIX
from .models import TERMINAL, Budget, LoggedFinding, RunMeta, RunRecord, Usage
from .runid import now_iso

if TYPE_CHECKING:
    from .store import Store
    from .workspace import Workspace


def pending_record(ws: Workspace, meta: RunMeta, tip: str) -> RunRecord:
    return RunRecord(
        run_id=meta.run_id,
        workspace=ws.name,
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
    )


def record_from_db(ws: Workspace, run_id: str) -> RunRecord:
    """The run's current state as the database holds it, in record form."""
    store = ws.store
    row = store.get(run_id)
    assert row is not None
    findings = [
        LoggedFinding(
            loop=f["loop"],
            code=f["code"],
            severity=f["severity"],
            path=f["path"],
            line=f["line"],
            message=f["message"],
        )
        for f in store.findings(run_id)
    ]
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
        override_actor=last["actor"] if last else None,
        override_reason=last["reason"] if last else None,
        override_source=last["source"] if last else None,
        override_at=last["at"] if last else None,
    )


def _usage_budget(row: dict[str, Any]) -> Budget:
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


# ---------------------------------------------------------------- rebuild


def rebuild(ws: Workspace, store: Store) -> int:
    """Fill ``store`` from the notes and the open run branches."""
    repo = ws.repo
    latest: dict[str, RunRecord] = {}
    for _annotated, data in gitrepo.iter_notes(repo):
        record = parse_record(data)
        if record is None:
            continue
        seen = latest.get(record.run_id)
        if seen is None or _newer(record, seen):
            latest[record.run_id] = record
    from .run import read_plan  # local: run imports this module

    for ref in repo.references.iterator():
        name = ref.name
        if not name.startswith(RUN_PREFIX):
            continue
        run_id = name.removeprefix(RUN_PREFIX)
        seen = latest.get(run_id)
        if seen is not None and seen.status in TERMINAL:
            continue
        try:
            plan = read_plan(repo, pygit2.Oid(hex=str(ref.target)), run_id)
        except Exception:  # noqa: BLE001 - a foreign branch under our prefix is not ours
            continue
        record = pending_record(ws, plan.meta, str(ref.target))
        if seen is not None:  # revised earlier: keep loop, verdict and findings
            record = record.model_copy(
                update={
                    "loop_count": seen.loop_count,
                    "verdict": seen.verdict,
                    "findings": seen.findings,
                    "verifier_preset": seen.verifier_preset,
                    "verifier_usage": seen.verifier_usage,
                    "reject_reason": seen.reject_reason,
                }
            )
        latest[run_id] = record
    with store.immediate():
        store.db.execute("DELETE FROM findings")
        store.db.execute("DELETE FROM overrides")
        store.db.execute("DELETE FROM runs")
        for record in latest.values():
            store.apply_record(record)
    return len(latest)


def _newer(a: RunRecord, b: RunRecord) -> bool:
    return (a.status in TERMINAL, a.recorded_at) > (b.status in TERMINAL, b.recorded_at)


# ---------------------------------------------------------------- publish


def publish_terminal(
    ws: Workspace,
    record: RunRecord,
    *,
    delete_branch: bool,
    keep_failed: bool,
    move_main_from: pygit2.Oid | None = None,
    before_commit: Any = None,
) -> None:
    """Write ``record`` as a note on its tip and move refs, all under one lock.

    With ``move_main_from`` main is compare-and-swapped from that commit to
    the tip; ``before_commit`` (e.g. the working-tree checkout) runs under
    the lock just before the refs move.  Raises GitError when main moved.
    """
    repo = ws.repo
    tip = pygit2.Oid(hex=record.tip_commit)
    branch = RUN_PREFIX + record.run_id
    failed = FAILED_PREFIX + record.run_id
    refs = [NOTES_REF, branch]
    if keep_failed:
        refs.append(failed)
    if move_main_from is not None:
        refs.insert(0, MAIN)

    def body(txn: pygit2.ReferenceTransaction) -> None:
        if move_main_from is not None:
            now = gitrepo.ref_target(repo, MAIN)
            if now != move_main_from:
                raise MainMoved(now)
            if before_commit is not None:
                before_commit()
            txn.set_target(MAIN, tip, message=f"wikigate: commit run {record.run_id}")
        notes = gitrepo.notes_commit_with(repo, tip, note_payload(record))
        txn.set_target(NOTES_REF, notes, message=f"wikigate: {record.status} {record.run_id}")
        if keep_failed:
            txn.set_target(failed, tip, message=f"wikigate: {record.status} run kept")
        if delete_branch and gitrepo.ref_target(repo, branch) is not None:
            txn.remove(branch)

    gitrepo.with_ref_lock(repo, refs, body)
    with ws.store.immediate():
        ws.store.apply_record(record)


def publish_note(ws: Workspace, record: RunRecord) -> None:
    """A non-terminal record (revise) as a note on the current tip, then the DB."""
    repo = ws.repo
    tip = pygit2.Oid(hex=record.tip_commit)

    def body(txn: pygit2.ReferenceTransaction) -> None:
        txn.set_target(
            NOTES_REF,
            gitrepo.notes_commit_with(repo, tip, note_payload(record)),
            message=f"wikigate: revise {record.run_id}",
        )

    gitrepo.with_ref_lock(repo, [NOTES_REF], body)
    with ws.store.immediate():
        ws.store.apply_record(record)


class MainMoved(Exception):
    def __init__(self, now: pygit2.Oid | None) -> None:
        super().__init__("main moved")
        self.now = now


# ---------------------------------------------------------------- recovery


def reconcile(ws: Workspace, row: dict[str, Any], why: str) -> bool:
    """Settle a run whose finalizer is gone (or which timed out). Returns True if changed."""
    repo = ws.repo
    run_id = row["run_id"]
    branch_tip = gitrepo.ref_target(repo, RUN_PREFIX + run_id)
    failed_tip = gitrepo.ref_target(repo, FAILED_PREFIX + run_id)
    for tip in (branch_tip, failed_tip):
        data = gitrepo.read_note(repo, tip) if tip is not None else None
        record = parse_record(data) if data else None
        if record is not None and record.status in TERMINAL:
            # The finalizer finished in git but died before the database.
            if branch_tip is not None and record.status != "committed":
                _drop_branch(ws, run_id, branch_tip)
            with ws.store.immediate():
                ws.store.apply_record(record)
            return True
    record = record_from_db(ws, run_id)
    main = gitrepo.ref_target(repo, MAIN)
    if (
        branch_tip is not None
        and main is not None
        and (branch_tip == main or repo.descendant_of(main, branch_tip))
    ):
        record = record.model_copy(
            update={
                "status": "committed",
                "verdict": record.verdict or "commit",
                "tip_commit": str(branch_tip),
                "ended_at": now_iso(),
                "reject_reason": None,
            }
        )
        publish_terminal(ws, record, delete_branch=True, keep_failed=False)
        return True
    tip = branch_tip or failed_tip
    record = record.model_copy(
        update={
            "status": "abandoned",
            "reject_reason": f"abandoned: {why}",
            "ended_at": now_iso(),
            "tip_commit": str(tip) if tip else record.tip_commit,
        }
    )
    if tip is None:  # nothing left in git to annotate
        with ws.store.immediate():
            ws.store.apply_record(record)
        return True
    publish_terminal(ws, record, delete_branch=True, keep_failed=True)
    return True


def _drop_branch(ws: Workspace, run_id: str, tip: pygit2.Oid) -> None:
    failed = FAILED_PREFIX + run_id
    branch = RUN_PREFIX + run_id

    def body(txn: pygit2.ReferenceTransaction) -> None:
        txn.set_target(failed, tip, message="wikigate: keep run")
        txn.remove(branch)

    gitrepo.with_ref_lock(ws.repo, [branch, failed], body)
