"""Publishing a run's record: the note on its tip, the refs it moves (main, its branch,
its failed ref, the artifacts chain) in one transaction, then the database."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pygit2

from . import attest, gitrepo
from .errors import RunError
from .gitrepo import ARTIFACTS_REF, FAILED_PREFIX, NOTES_REF, RUN_PREFIX
from .models import RunRecord, VerificationRef
from .records import note_payload
from .refs import RefTransaction, process_lock, with_ref_lock

if TYPE_CHECKING:
    from .env import Env
    from .worktree import Landing


def publish_terminal(
    env: Env,
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
    repo = env.repo
    tip = pygit2.Oid(hex=record.tip_commit)
    branch = RUN_PREFIX + record.run_id
    failed = FAILED_PREFIX + record.run_id

    def body(txn: RefTransaction) -> None:
        if move_main_from is not None:
            now = gitrepo.ref_target(repo, env.main)
            if now != move_main_from:
                raise MainMoved(now)
            txn.set_target(env.main, tip, message=f"wikigate: commit run {record.run_id}")
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
    with env.store.immediate():
        env.store.apply_record(record)
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


def publish_note(env: Env, record: RunRecord, verified: Sequence[VerificationRef] = ()) -> None:
    """A non-terminal record (revise) as a note on the run's tip, then the DB.

    The run branch must still be at that tip (a sweep may have reclaimed it)."""
    repo = env.repo
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
    with env.store.immediate():
        env.store.apply_record(record)


class MainMoved(Exception):
    def __init__(self, now: pygit2.Oid | None) -> None:
        super().__init__("main moved")
        self.now = now


def drop_branch(env: Env, run_id: str, tip: pygit2.Oid, *, keep: bool) -> None:
    failed = FAILED_PREFIX + run_id
    branch = RUN_PREFIX + run_id

    def body(txn: RefTransaction) -> None:
        if keep:
            txn.set_target(failed, tip, message="wikigate: keep run")
        txn.remove(branch)

    with_ref_lock(env.repo, [branch, failed], body)
