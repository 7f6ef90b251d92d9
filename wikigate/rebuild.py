"""``telemetry rebuild``: the SQLite index filled again from git's facts (the run
records in the notes, local and origin's, and the open run branches)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pygit2

from . import gitrepo
from .gitrepo import ORIGIN_NOTES, RUN_PREFIX
from .models import TERMINAL, RunRecord
from .plan import read_plan
from .records import parse_record, pending_record

if TYPE_CHECKING:
    from .store import Store


def rebuild(
    repo: pygit2.Repository,
    workspace: str,
    store: Store,
    progress: Callable[[str, int, int], None] | None = None,
) -> int:
    """Fill ``store`` from ``repo``'s notes and open run branches (``workspace``: the
    name a pending run's record carries).

    The notes are the local ``refs/notes/wikigate`` and origin's as last fetched
    (``ORIGIN_NOTES``, see notes_fetch.py): their union, the newer record of a run winning.
    """
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
        record = pending_record(workspace, plan.meta, str(ref.target))
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
                    "next_actions": seen.next_actions,
                    "blind_spots": seen.blind_spots,
                    "questions": seen.questions,
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
        # a run's trace pin is not in git (that is the point of it: the writer can rewrite
        # git): kept from the rows it had (trial 28b N1: a rebuild dropped an open run's,
        # and its trace checks were off; a landed run's is a later run's evidence of reads)
        pins = {
            r["run_id"]: r
            for r in store.db.execute_returning_dicts(
                "SELECT run_id, trace_head, trace_count FROM runs WHERE trace_head IS NOT NULL"
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
            pin = pins.get(record.run_id)
            if pin is not None:
                store.update_run(record.run_id, **{k: v for k, v in pin.items() if k != "run_id"})
    return len(latest)


def _newer(a: RunRecord, b: RunRecord) -> bool:
    return (a.status in TERMINAL, a.recorded_at) > (b.status in TERMINAL, b.recorded_at)
