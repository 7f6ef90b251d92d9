"""Run records: the JSON notes in ``refs/notes/wikigate`` and their SQLite index.

Git is the source of truth for what happened to a run; the database is
derived from it, which is what makes ``telemetry rebuild`` and crash
recovery (``sweep``) possible.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import pygit2

from . import attest, gitrepo
from .errors import RunError
from .gitrepo import ARTIFACTS_REF, FAILED_PREFIX, MAIN, NOTES_REF, ORIGIN_NOTES, RUN_PREFIX
from .models import TERMINAL, Budget, LoggedFinding, RunMeta, RunRecord, Usage, VerificationRef
from .plan import T_RUN, meta_digest, read_plan
from .refs import RefTransaction, process_lock, with_ref_lock
from .runid import now_iso, parse_iso

if TYPE_CHECKING:
    from .store import Store
    from .workspace import Workspace
    from .worktree import Landing


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
        meta_digest=meta_digest(meta),
    )


def record_from_db(ws: Workspace, run_id: str) -> RunRecord:
    """The run's current state as the database holds it, in record form."""
    store = ws.store
    row = store.get(run_id)
    assert row is not None
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


def rebuild(
    ws: Workspace, store: Store, progress: Callable[[str, int, int], None] | None = None
) -> int:
    """Fill ``store`` from the notes and the open run branches.

    The notes are the local ``refs/notes/wikigate`` and origin's as last fetched
    (``ORIGIN_NOTES``, see notes_fetch.py): their union, the newer record of a run winning.
    """
    repo = ws.repo
    latest: dict[str, RunRecord] = {}
    notes = [*gitrepo.iter_notes(repo), *gitrepo.iter_notes(repo, ORIGIN_NOTES)]
    for done, (_annotated, data) in enumerate(notes, 1):
        if progress is not None and (done % 100 == 0 or done == len(notes)):
            progress("reading run records", done, len(notes))
        record = parse_record(data)
        if record is None:
            continue
        seen = latest.get(record.run_id)
        if seen is None or _newer(record, seen):
            latest[record.run_id] = record
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
                    "verifications": seen.verifications,
                    "verifier_preset": seen.verifier_preset,
                    "verifier_usage": seen.verifier_usage,
                    "reject_reason": seen.reject_reason,
                    "meta_digest": seen.meta_digest or record.meta_digest,
                }
            )
        latest[run_id] = record
    with store.immediate():
        # a live finalizer's claim is not in git: keep it on the runs git calls pending
        claims = {
            r["run_id"]: r
            for r in store.db.execute_returning_dicts(
                "SELECT run_id, status, loop_count, finalizer_pid, finalizer_host, lease_until"
                " FROM runs WHERE status = 'verifying'"
            )
        }
        store.db.execute("DELETE FROM findings")
        store.db.execute("DELETE FROM verifications")
        store.db.execute("DELETE FROM overrides")
        store.db.execute("DELETE FROM runs")
        for record in latest.values():
            store.apply_record(record)
            claim = claims.get(record.run_id)
            if claim is not None and record.status == "pending":
                store.update_run(record.run_id, **{k: v for k, v in claim.items() if k != "run_id"})
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
    landing: Landing | None = None,
    fence: pygit2.Oid | None = None,
    fence_ref: str | None = None,
    drop_failed: bool = False,
    verified: Sequence[VerificationRef] = (),
) -> list[str]:
    """Write ``record`` as a note on its tip and move refs in one transaction.

    ``verified``: this finalize's verifications, whose artifacts go onto
    ``refs/wikigate/artifacts`` and into the notes' history (attest.py).

    With ``move_main_from`` main is compare-and-swapped from that commit to the
    tip (MainMoved when it moved).  ``fence`` is the run branch's tip the
    caller verified: if the branch moved or was reclaimed by ``sweep``, nothing
    changes (RunError).  ``landing`` brings a checked-out main's files along,
    journaled so that a kill at any instant is recovered (see worktree.py).
    Returns the paths a landing left alone because they hold a person's changes.
    """
    repo = ws.repo
    tip = pygit2.Oid(hex=record.tip_commit)
    branch = RUN_PREFIX + record.run_id
    failed = FAILED_PREFIX + record.run_id

    def body(txn: RefTransaction) -> None:
        if move_main_from is not None:
            now = gitrepo.ref_target(repo, MAIN)
            if now != move_main_from:
                raise MainMoved(now)
            txn.set_target(MAIN, tip, message=f"wikigate: commit run {record.run_id}")
        where = fence_ref or branch
        if fence is not None:
            now = gitrepo.ref_target(repo, where)
            if now != fence:
                raise RunError(
                    f"run {record.run_id} changed or was reclaimed by `wikigate sweep` "
                    "while it was being finalized; nothing was committed"
                    if where == branch
                    else f"{where} moved from {str(fence)[:12]}, the commit decided on, to "
                    f"{str(now)[:12] if now else '(deleted)'}; nothing was committed"
                )
            removed = (delete_branch and where == branch) or (drop_failed and where == failed)
            if not removed:
                txn.expect(where, fence)
        notes = _notes_commit(repo, txn, record, verified)
        txn.set_target(NOTES_REF, notes, message=f"wikigate: {record.status} {record.run_id}")
        if keep_failed:
            txn.set_target(failed, tip, message=f"wikigate: {record.status} run kept")
        if delete_branch:
            txn.remove(branch, expected=fence if where == branch else None)
        if drop_failed:
            txn.remove(failed, expected=fence if where == failed else None)

    left: list[str] = []
    with process_lock(repo):
        if landing is not None:
            landing.begin()
        try:
            with_ref_lock(repo, [], body)
        except BaseException:
            if landing is not None:
                landing.abort()
            raise
        if landing is not None:
            left = landing.finish()
    with ws.store.immediate():
        ws.store.apply_record(record)
    return left


def _notes_commit(
    repo: pygit2.Repository,
    txn: RefTransaction,
    record: RunRecord,
    verified: Sequence[VerificationRef],
) -> pygit2.Oid:
    """The notes commit adding ``record``; with ``verified``, their artifacts commits too,
    queued onto ``refs/wikigate/artifacts`` and made the notes commit's second parent."""
    tip = pygit2.Oid(hex=record.tip_commit)
    if not verified:
        return gitrepo.notes_commit_with(repo, tip, note_payload(record))
    head = attest.chain(repo, record.run_id, verified, gitrepo.ref_target(repo, ARTIFACTS_REF))
    txn.set_target(ARTIFACTS_REF, head)
    return gitrepo.notes_commit_with(repo, tip, note_payload(record), also=head)


def publish_note(
    ws: Workspace, record: RunRecord, verified: Sequence[VerificationRef] = ()
) -> None:
    """A non-terminal record (revise) as a note on the run's tip, then the DB.

    The run branch must still be at that tip (a sweep may have reclaimed it)."""
    repo = ws.repo
    tip = pygit2.Oid(hex=record.tip_commit)
    branch = RUN_PREFIX + record.run_id

    def body(txn: RefTransaction) -> None:
        if gitrepo.ref_target(repo, branch) != tip:
            raise RunError(
                f"run {record.run_id} changed or was reclaimed by `wikigate sweep` "
                "while it was being finalized"
            )
        txn.expect(branch, tip)
        notes = _notes_commit(repo, txn, record, verified)
        txn.set_target(NOTES_REF, notes, message=f"wikigate: revise {record.run_id}")

    with_ref_lock(repo, [NOTES_REF], body)
    with ws.store.immediate():
        ws.store.apply_record(record)


class MainMoved(Exception):
    def __init__(self, now: pygit2.Oid | None) -> None:
        super().__init__("main moved")
        self.now = now


# ---------------------------------------------------------------- recovery


def reconcile(ws: Workspace, row: dict[str, Any], why: str, *, abandon: bool) -> bool:
    """Settle a run whose finalizer is gone (or which timed out), from git's facts:
    main's history, the run's notes, its branch and its failed ref.  The database
    is only told; ``telemetry rebuild`` reads the same facts and agrees.

    Committed if main holds the run; rejected/abandoned if a terminal note says
    so; revised if its tip carries a revise note; else pending again, or
    abandoned (with ``why``) when ``abandon``.  Returns True if anything changed.
    """
    repo = ws.repo
    run_id = row["run_id"]
    branch_tip = gitrepo.ref_target(repo, RUN_PREFIX + run_id)
    failed_tip = gitrepo.ref_target(repo, FAILED_PREFIX + run_id)
    landed = landed_tip(repo, run_id, row["started_at"])
    db_tip = pygit2.Oid(hex=row["tip_commit"]) if row.get("tip_commit") else None
    for tip in dict.fromkeys(t for t in (landed, branch_tip, failed_tip, db_tip) if t):
        data = gitrepo.read_note(repo, tip)
        record = parse_record(data) if data else None
        if record is None or record.run_id != run_id:
            continue
        if record.status == "committed" and landed is None:
            continue  # a note that main does not bear out proves nothing
        if record.status in TERMINAL:
            if branch_tip is not None:
                _drop_branch(ws, run_id, branch_tip, keep=record.status != "committed")
            with ws.store.immediate():
                ws.store.apply_record(record)
            return True
    record = record_from_db(ws, run_id)
    if landed is not None:  # main holds it, but no note says so (e.g. landed by hand)
        record = record.model_copy(
            update={
                "status": "committed",
                "verdict": record.verdict if record.verdict == "commit" else None,
                "unverified": record.verdict != "commit",
                "tip_commit": str(landed),
                "ended_at": now_iso(),
                "reject_reason": None,
            }
        )
        publish_terminal(ws, record, delete_branch=True, keep_failed=False)
        return True
    if not abandon:
        note = gitrepo.read_note(repo, branch_tip) if branch_tip is not None else None
        revised = parse_record(note) if note else None
        with ws.store.immediate():
            if revised is not None and revised.run_id == run_id:
                ws.store.apply_record(revised)  # died after its revise note was written
            else:
                ws.store.update_run(
                    run_id,
                    status="pending",
                    finalizer_pid=None,
                    finalizer_host=None,
                    lease_until=None,
                    loop_count=_loop_before_claim(row),
                )
        return True
    kept = branch_tip or failed_tip
    record = record.model_copy(
        update={
            "status": "abandoned",
            "reject_reason": f"abandoned: {why}",
            "ended_at": now_iso(),
            "tip_commit": str(kept) if kept else record.tip_commit,
        }
    )
    if kept is None:  # nothing left in git to annotate
        with ws.store.immediate():
            ws.store.apply_record(record)
        return True
    publish_terminal(ws, record, delete_branch=True, keep_failed=True)
    return True


def _loop_before_claim(row: dict[str, Any]) -> int:
    """A claim counts a new loop after a revise; a claim that died undoes it."""
    loop = int(row["loop_count"])
    if row["status"] == "verifying" and row["verdict"] == "revise":
        return max(1, loop - 1)
    return loop


def landed_tip(repo: pygit2.Repository, run_id: str, started_at: str) -> pygit2.Oid | None:
    """The run's last commit on main's first-parent history, if main holds the run.

    Walks back from main only as far as commits made since the run started
    (a day of clock skew allowed).
    """
    main = gitrepo.ref_target(repo, MAIN)
    if main is None:
        return None
    since = parse_iso(started_at).timestamp() - 86400
    walker = repo.walk(main, pygit2.enums.SortMode.NONE)
    walker.simplify_first_parent()
    for commit in walker:
        if commit.commit_time < since:
            return None
        if (gitrepo.parse_trailers(commit.message).get(T_RUN) or [""])[0] == run_id:
            return commit.id
    return None


def _drop_branch(ws: Workspace, run_id: str, tip: pygit2.Oid, *, keep: bool) -> None:
    failed = FAILED_PREFIX + run_id
    branch = RUN_PREFIX + run_id

    def body(txn: RefTransaction) -> None:
        if keep:
            txn.set_target(failed, tip, message="wikigate: keep run")
        txn.remove(branch)

    with_ref_lock(ws.repo, [branch, failed], body)
