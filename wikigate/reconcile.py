"""Settling runs from git's facts: ``sweep`` finds the runs left behind (a finalizer
that died, a lease that expired, a run past the timeout, an override that died) and
``reconcile`` settles each from main's history, its notes and its refs; ``abandon`` is a
person's word that one run is left behind (``wikigate run abandon``)."""

from __future__ import annotations

import os
import socket
from datetime import timedelta
from typing import TYPE_CHECKING, NamedTuple

import pygit2

from . import gitrepo, worktree
from .config import env_timeout_override, lease_seconds
from .errors import RunError, UsageError
from .gitrepo import FAILED_PREFIX, RUN_PREFIX
from .models import TERMINAL
from .plan import T_RUN
from .publish import drop_branch, publish_terminal
from .records import parse_record, record_from_db
from .refs import process_lock
from .runid import now_iso, parse_iso

if TYPE_CHECKING:
    from .env import Env
    from .store import RunRow


class Swept(NamedTuple):
    """A run ``sweep`` changed, and what it did: "abandoned: older than …", "pending
    again: …", "committed: main holds it"."""

    run_id: str
    said: str


def sweep(env: Env) -> list[str]:
    """Settle runs left behind, from git's facts; return the runs it changed
    (``sweep_runs``: and what it did to each)."""
    return [s.run_id for s in sweep_runs(env)]


def sweep_runs(env: Env) -> list[Swept]:
    """Settle runs left behind, from git's facts; return the runs it changed, each with
    what it did and why.

    - a half-done landing of a dead finalizer is finished (worktree.recover);
    - a ``verifying`` run whose finalizer died (same host) or whose lease
      expired is settled: committed if main holds it, rejected or
      abandoned if its note says so, else back to pending;
    - a run older than the run timeout is abandoned;
    - a rejected run whose override died is settled as committed if main holds it
      (the override moved main before it died), else left rejected.
    Only open runs are looked at, and not a pull request's (``github:`` runs, from
    the notes the GitHub bot pushed): those are settled by the bot.
    """
    worktree.recover(env.repo)
    timeout = env_timeout_override(env.config) * 60
    now = parse_iso(now_iso())
    host = socket.gethostname()
    swept = []
    for row in env.store.open_runs():
        if row["triggered_by"].startswith("github:"):
            continue  # a pull request's run: the bot on GitHub settles it, not this clone
        old = (now - parse_iso(row["started_at"])).total_seconds() >= timeout
        why = f"older than the run timeout ({timeout / 60:g} min)"
        if row["status"] == "verifying":
            lease = row["lease_until"]
            if row["finalizer_host"] == host and not pid_alive(row["finalizer_pid"]):
                why = f"finalizer process {row['finalizer_pid']} died"
            elif lease and parse_iso(lease) < now:
                why = f"its lease ran out at {lease} (the process holding it is gone)"
            elif lease or not old:
                continue  # a live finalizer owns it
        elif not old:
            continue
        if reconcile(env, row, why, abandon=old):
            swept.append(Swept(row["run_id"], _said(env, row["run_id"], why)))
    for row in env.store.overriding():  # an override that died (after main moved?)
        if row["finalizer_host"] == host and pid_alive(row["finalizer_pid"]):
            continue
        why = "the process overriding its rejection is gone"
        if landed_tip(env.repo, row["run_id"], row["started_at"]) is not None:
            reconcile(env, row, "main holds it", abandon=False)
            said = f"committed: {why}, and main holds it"
        else:
            with env.store.immediate():
                env.store.update_run(row["run_id"], finalizer_pid=None, finalizer_host=None)
            said = f"still rejected: {why}, and main does not hold it (override it again)"
        swept.append(Swept(row["run_id"], said))
    return swept


def _said(env: Env, run_id: str, why: str) -> str:
    """What settling a run left behind (for ``why``) made of it, from its row."""
    row = env.store.get(run_id)
    status = row["status"] if row is not None else "unknown"
    if row is not None and status == "committed":
        return "committed: main holds it"
    if row is not None and status in TERMINAL:  # abandoned, rejected: the record's reason
        reason = row["reject_reason"] or why
        return reason if reason.startswith(f"{status}:") else f"{status}: {reason}"
    return (
        f"{status} again: {why}; finalize it again, or abandon it "
        f"(`wikigate run abandon {run_id} --reason TEXT`)"
    )


def abandon(env: Env, run_id: str, reason: str) -> RunRow:
    """Abandon one run, recorded as ``sweep`` abandons one (its note, telemetry, its tip
    kept at ``refs/wikigate/failed/<id>``), with the actor and ``reason``: a pending run,
    or a verifying one whose finalizer is gone (died on this host, or its lease expired).
    Settled from git's facts first: a run main already holds becomes committed. Returns
    the run's row as settled."""
    if not reason.strip():
        raise UsageError("--reason must say why the run is abandoned (it is recorded)")
    store = env.store
    with store.immediate():  # claimed as a finalizer claims it: nobody finalizes it meanwhile
        row = store.get(run_id)
        if row is None:
            raise RunError(f"unknown run {run_id!r} (see `wikigate runs list`)")
        _abandonable(row)
        store.update_run(
            run_id,
            status="verifying",
            finalizer_pid=os.getpid(),
            finalizer_host=socket.gethostname(),
            lease_until=(
                parse_iso(now_iso()) + timedelta(seconds=lease_seconds(env.config))
            ).isoformat(),
        )
    row = store.get(run_id)
    assert row is not None
    why = f"by {gitrepo.actor(env.repo)}: {reason.strip()}"
    try:
        reconcile(env, row, why, abandon=True)
    finally:
        with store.immediate():  # died half-way: back to pending, as a finalizer's release
            store.db.execute(
                "UPDATE runs SET status = 'pending', finalizer_pid = NULL, finalizer_host = NULL,"
                " lease_until = NULL WHERE run_id = ? AND status = 'verifying'"
                " AND finalizer_pid = ? AND finalizer_host = ?",
                [run_id, os.getpid(), socket.gethostname()],
            )
    settled = store.get(run_id)
    assert settled is not None
    return settled


def _abandonable(row: RunRow) -> None:
    run_id, status = row["run_id"], row["status"]
    if status in TERMINAL:
        raise RunError(
            f"run {run_id} is already {status}; only a pending run (or one whose finalizer is "
            "gone) can be abandoned"
        )
    if row["triggered_by"].startswith("github:"):
        raise RunError(
            f"run {run_id} is a pull request's run: the bot on GitHub settles it (close the "
            "pull request)"
        )
    if status == "verifying":
        lease = row["lease_until"]
        dead = row["finalizer_host"] == socket.gethostname() and not pid_alive(row["finalizer_pid"])
        expired = lease is not None and parse_iso(lease) < parse_iso(now_iso())
        if not (dead or expired):
            raise RunError(
                f"run {run_id} is being finalized by process {row['finalizer_pid']} on "
                f"{row['finalizer_host']} (lease until {lease}); wait for it to finish, or "
                "abandon the run once that process is gone or its lease has expired"
            )


def pid_alive(pid: int | None) -> bool:
    if not pid:
        return False
    if os.name == "nt":  # os.kill(pid, 0) there terminates the process: ask, never signal
        return _windows_pid_alive(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (killed child not yet reaped) is dead for our purposes.
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


def _windows_pid_alive(pid: int) -> bool:
    import ctypes

    kernel32 = getattr(ctypes, "WinDLL")("kernel32", use_last_error=True)  # noqa: B009
    handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
    if not handle:
        return bool(getattr(ctypes, "get_last_error")() == 5)  # noqa: B009 - access denied: it exists
    try:
        code = ctypes.c_ulong()
        if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
            return True
        return code.value == 259  # STILL_ACTIVE
    finally:
        kernel32.CloseHandle(handle)


def reconcile(env: Env, row: RunRow, why: str, *, abandon: bool) -> bool:
    """Settle a run whose finalizer is gone (or which timed out), from git's facts:
    main's history, the run's notes, its branch and its failed ref.  The database
    is only told; ``telemetry rebuild`` reads the same facts and agrees.

    Committed if main holds the run; rejected/abandoned if a terminal note says
    so; revised if its tip carries a revise note; else pending again, or
    abandoned (with ``why``) when ``abandon``.  Returns True if anything changed.
    The facts are read once no git a dead finalizer started is still moving refs (that
    git holds the process lock: refs.py).
    """
    repo = env.repo
    run_id = row["run_id"]
    with process_lock(repo):
        pass  # a dead finalizer's git may be finishing its transaction: it holds the lock
    branch_tip = gitrepo.ref_target(repo, RUN_PREFIX + run_id)
    failed_tip = gitrepo.ref_target(repo, FAILED_PREFIX + run_id)
    landed = landed_tip(repo, run_id, row["started_at"])
    db_tip = pygit2.Oid(hex=row["tip_commit"]) if row["tip_commit"] else None
    for tip in dict.fromkeys(t for t in (landed, branch_tip, failed_tip, db_tip) if t):
        data = gitrepo.read_note(repo, tip)
        record = parse_record(data) if data else None
        if record is None or record.run_id != run_id:
            continue
        if record.status == "committed" and landed is None:
            continue  # a note that main does not bear out proves nothing
        if record.status in TERMINAL:
            if branch_tip is not None:
                drop_branch(env, run_id, branch_tip, keep=record.status != "committed")
            with env.store.immediate():
                env.store.apply_record(record)
            return True
    record = record_from_db(env.store, run_id)
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
        publish_terminal(env, record, delete_branch=True, keep_failed=False)
        return True
    if not abandon:
        note = gitrepo.read_note(repo, branch_tip) if branch_tip is not None else None
        revised = parse_record(note) if note else None
        with env.store.immediate():
            if revised is not None and revised.run_id == run_id:
                env.store.apply_record(revised)  # died after its revise note was written
            else:
                env.store.update_run(
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
        with env.store.immediate():
            env.store.apply_record(record)
        return True
    publish_terminal(env, record, delete_branch=True, keep_failed=True)
    return True


def _loop_before_claim(row: RunRow) -> int:
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
    main = gitrepo.ref_target(repo, gitrepo.main_ref(repo))
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
