"""A finalize killed at each step of landing, claims that outlive their finalizer,
and locks held by live git processes.

After every kill: main is at the old or the new tip, ``sweep`` leaves the index
and working tree at main's state with no lock left behind, nothing stays
pending or verifying that should not, telemetry equals a rebuild from git, and
the next finalize of a fresh run commits.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pygit2
import pytest
from support.helpers import git, wikigate

from wikigate.errors import RunError
from wikigate.finalize import _rebase, land
from wikigate.gitrepo import MAIN
from wikigate.lease import Lease
from wikigate.rebuild import rebuild
from wikigate.store import VOLATILE, Store
from wikigate.workspace import Workspace

PLUGIN = {"WIKIGATE_VERIFIER": "support.markers_verifier:factory"}
# every step of a landing that makes something durable: objects, the journal,
# files, the index (its lock is a hard link) — each is a rename or a link
STEPS = "rename,renameat,renameat2,link,linkat"


def finalize_argv(repo: Path, run_id: str) -> list[str]:
    return [sys.executable, "-m", "wikigate", "-C", str(repo), "run", "finalize", run_id]


def staged_run(ws: Workspace, name: str) -> tuple[str, pygit2.Oid]:
    run = ws.start_run("ingest", "cli:ingest")
    run.stage_write(f"wiki/{name}.md", f"# {name}\n\nText of {name}.\n")
    return run.run_id, run.tip()


def telemetry(db: Path) -> dict[str, dict[str, object]]:
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    rows = {
        r["run_id"]: {k: v for k, v in dict(r).items() if k not in VOLATILE}
        for r in conn.execute("SELECT * FROM runs")
    }
    conn.close()
    return rows


def assert_settled(repo: Path, before: pygit2.Oid, staged: pygit2.Oid, tmp_path: Path) -> str:
    """The invariants after a kill; returns 'old' or 'new'."""
    main = pygit2.Repository(str(repo)).references[MAIN].target
    assert main in (before, staged), "main is neither the old nor the new tip"
    swept = wikigate(repo, "sweep")
    assert swept.returncode == 0, swept.stderr
    assert git(repo, "status", "--porcelain").stdout == "", "index or files not at main's state"
    flocks = {"refs.lock", "landing.lock"}  # wikigate's flock files: never stale
    leftovers = [p.name for p in (repo / ".git").rglob("*.lock") if p.name not in flocks]
    assert not leftovers, leftovers
    live = telemetry(repo / ".git" / "wikigate" / "telemetry.db")
    assert not [r for r in live.values() if r["status"] == "verifying"]
    on_main = {str(c.id) for c in pygit2.Repository(str(repo)).walk(main)}
    for r in live.values():
        assert (r["status"] == "committed") == (r["tip_commit"] in on_main), r
    assert telemetry(rebuilt(repo, tmp_path)) == live
    return "new" if main == staged else "old"


def rebuilt(repo: Path, tmp_path: Path) -> Path:
    """A telemetry database rebuilt from git alone, beside the live one."""
    path = tmp_path / f"rebuilt-{time.monotonic_ns()}.db"
    ws = Workspace.open(repo)
    store = Store(path)
    rebuild(ws.repo, ws.name, store)
    store.close()
    ws.close()
    return path


def strace_works() -> bool:
    if shutil.which("strace") is None:
        return False
    probe = subprocess.run(
        ["strace", "-o", os.devnull, "-e", "trace=none", sys.executable, "-c", "pass"],
        capture_output=True,
    )
    return probe.returncode == 0


@pytest.mark.skipif(not strace_works(), reason="needs strace with ptrace permitted")
@pytest.mark.crash
def test_kill_at_every_durable_step_of_a_finalize(tmp_path):
    repo = tmp_path / "w"
    ws = Workspace.init(repo)
    outcomes = []
    for step in range(1, 200):
        run_id, staged = staged_run(ws, f"p{step}")
        before = ws.repo.references[MAIN].target
        proc = subprocess.run(
            ["strace", "-o", os.devnull, "-e", f"trace={STEPS}"]
            + ["-e", f"inject={STEPS}:signal=SIGKILL:when={step}"]
            + finalize_argv(repo, run_id),
            env={**os.environ, **PLUGIN},
            capture_output=True,
            text=True,
        )
        outcomes.append(assert_settled(repo, before, staged, tmp_path))
        if proc.returncode == 0:  # the finalize ran past its last step: every step was hit
            assert outcomes[-1] == "new"
            break
        assert proc.returncode in (-signal.SIGKILL, 128 + signal.SIGKILL), proc.stderr
        # a killed run is pending again (finalize it) or committed; never lost
        row = ws.store.get(run_id)
        assert row["status"] in ("pending", "committed"), row
        if row["status"] == "pending":
            again = wikigate(repo, "run", "finalize", run_id, env=PLUGIN)
            assert again.returncode == 0, again.stderr
            assert_settled(repo, before, staged, tmp_path)
    else:
        pytest.fail("the finalize never completed")
    assert "old" in outcomes and "new" in outcomes, outcomes
    assert len(outcomes) > 5  # objects, journal, refs, files and the index were each a step
    ws.close()


HOOK = """\
#!/bin/sh
# a test hook: SIGKILL the finalizer (our parent git's parent) at one state of
# the transaction that moves main
INPUT=$(cat)
case "$INPUT" in *" refs/heads/main"*) ;; *) exit 0 ;; esac
if [ "$1" = "{state}" ]; then
    kill -9 "$(awk '{{print $4}}' /proc/$PPID/stat)"
fi
exit 0
"""


@pytest.mark.parametrize("state", ["prepared", "committed"])
@pytest.mark.crash
def test_kill_inside_the_ref_transaction(tmp_path, state):
    repo = tmp_path / "w"
    ws = Workspace.init(repo)
    hook = repo / ".git" / "hooks" / "reference-transaction"
    hook.write_text(HOOK.format(state=state))
    hook.chmod(0o755)
    run_id, staged = staged_run(ws, "a")
    before = ws.repo.references[MAIN].target
    proc = subprocess.run(
        finalize_argv(repo, run_id), env={**os.environ, **PLUGIN}, capture_output=True
    )
    assert proc.returncode == -signal.SIGKILL
    # all refs or none moved (git commits what it was handed, or aborts when its
    # reader is gone), and no lock of git's is left behind
    outcome = assert_settled(repo, before, staged, tmp_path)
    if state == "committed":
        assert outcome == "new"
    hook.unlink()
    if outcome == "old":
        assert ws.store.get(run_id)["status"] == "pending"
        assert wikigate(repo, "run", "finalize", run_id, env=PLUGIN).returncode == 0
    assert ws.store.get(run_id)["status"] == "committed"
    assert (repo / "wiki" / "a.md").read_text() == "# a\n\nText of a.\n"
    run_id, staged = staged_run(ws, "b")
    assert wikigate(repo, "run", "finalize", run_id, env=PLUGIN).returncode == 0
    ws.close()


def test_sweep_restores_only_what_the_dead_run_wrote(tmp_path):
    """A landing journal left by a dead finalizer: files holding the run's content
    follow main; a person's own edit on another changed path is left alone."""
    from wikigate import worktree

    repo = tmp_path / "w"
    ws = Workspace.init(repo)
    run = ws.start_run("cascade", "cli:test")
    run.stage_write("wiki/a.md", "# A\n")
    run.stage_write("wiki/b.md", "# B\n")
    old = ws.repo.references[MAIN].target
    new = run.tip()
    landing = worktree.Landing.prepare(ws.repo, run.run_id, old, new)
    assert landing is not None
    landing.begin()  # the journal is written, then the process "dies" before refs move
    (repo / "wiki" / "a.md").write_text("# A\n")  # as if a file had been written
    (repo / "wiki" / "b.md").write_text("a person's own notes\n")
    assert worktree.recover(ws.repo) == ["wiki/b.md"]
    assert not (repo / "wiki" / "a.md").exists()  # back to main's (old) state
    assert (repo / "wiki" / "b.md").read_text() == "a person's own notes\n"
    assert ws.repo.references[MAIN].target == old
    ws.close()


@pytest.mark.crash
def test_a_live_gits_ref_lock_is_waited_for_never_deleted(tmp_path):
    repo = tmp_path / "w"
    ws = Workspace.init(repo)
    run_id, staged = staged_run(ws, "a")
    lock = repo / ".git" / "refs" / "heads" / "main.lock"
    lock.write_text("held by a live git\n")
    stale = time.time() - 60
    os.utime(lock, (stale, stale))  # old, as a long `git gc` or a slow fetch would hold it
    proc = subprocess.Popen(
        finalize_argv(repo, run_id), env={**os.environ, **PLUGIN}, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 60
    while ws.store.get(run_id)["status"] != "verifying" and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)  # the finalizer is now retrying against the lock
    assert lock.read_text() == "held by a live git\n", "a live git's lock was deleted"
    assert ws.repo.references[MAIN].target != staged
    lock.unlink()  # the live git finishes
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert ws.repo.references[MAIN].target == staged
    ws.close()


class Interrupted(BaseException):
    """Not an Exception: escapes the verifier's fail-closed net, as Ctrl-C does."""


def test_a_finalize_that_raises_releases_its_lease(ws):
    class Exploding:
        def verify(self, *args):
            raise Interrupted()

    run = ws.start_run("cascade", "cli:test")
    run.stage_write("wiki/a.md", "# A REVISE-ME\n")
    assert run.finalize().verdict == "revise"
    assert ws.store.get(run.run_id)["loop_count"] == 1
    with pytest.raises(Interrupted):
        run.finalize(verifier=Exploding())
    row = ws.store.get(run.run_id)
    assert row["status"] == "pending" and row["finalizer_pid"] is None
    assert row["loop_count"] == 1  # the interrupted attempt did not use up a loop
    run.stage_write("wiki/a.md", "# A\n")
    assert run.finalize().status == "committed"


def hung_finalizer(ws):
    """A run claimed by a finalizer that is alive but stuck past its lease."""
    run = ws.start_run("cascade", "cli:test")
    run.stage_write("wiki/a.md", "# A\n")
    lease = Lease.take(run)
    plan = run.plan()
    with ws.store.immediate():
        ws.store.update_run(run.run_id, lease_until="2000-01-01T00:00:00+00:00")
    return run, lease, plan


def test_an_expired_lease_is_reclaimed_and_the_run_taken_over(ws):
    run, lease, plan = hung_finalizer(ws)
    assert ws.sweep() == [run.run_id]
    assert ws.store.get(run.run_id)["status"] == "pending"
    assert run.finalize().status == "committed"  # a second finalizer takes it over
    main = ws.repo.references[MAIN].target
    # the hung one wakes up: main moved, and its run branch is gone
    assert land(run, plan, None, lease.loop) is None
    with pytest.raises(RunError, match="reclaimed"):
        _rebase(run, plan, None, lease.loop)
    assert ws.repo.references[MAIN].target == main


def test_an_abandoned_run_cannot_be_landed_by_its_old_finalizer(ws, monkeypatch):
    run, lease, plan = hung_finalizer(ws)
    monkeypatch.setenv("WIKIGATE_RUN_TIMEOUT_MINUTES", "0")
    assert ws.sweep() == [run.run_id]
    assert ws.store.get(run.run_id)["status"] == "abandoned"
    main = ws.repo.references[MAIN].target
    with pytest.raises(RunError, match="reclaimed"):
        land(run, plan, None, lease.loop)
    assert ws.repo.references[MAIN].target == main
    assert ws.store.get(run.run_id)["status"] == "abandoned"


@pytest.mark.timing
def test_lease_is_renewed_while_verifying(ws, monkeypatch):
    # a lease long enough that a busy machine's stall between renewal and sweep cannot
    # expire it, short enough that four steps of the verification renew it twice
    monkeypatch.setenv("WIKIGATE_LEASE_SECONDS", "3")
    seen = []

    class Slow:
        def verify(self, request):
            for _ in range(4):
                time.sleep(0.55)
                request.heartbeat()
                seen.append(ws.store.get(request.run_id)["lease_until"])
                assert ws.sweep() == []  # a live, renewing finalizer keeps its run
            from support.markers_verifier import MarkersVerifier

            return MarkersVerifier().verify(request)

    run = ws.start_run("cascade", "cli:test")
    run.stage_write("wiki/a.md", "# A\n")
    assert run.finalize(verifier=Slow()).status == "committed"
    assert len(set(seen)) >= 2, seen


def test_telemetry_rebuild_keeps_a_database_others_have_open(ws):
    run = ws.start_run("cascade", "cli:test")
    run.stage_write("wiki/a.md", "# A\n")
    assert run.finalize().status == "committed"
    db = ws.telemetry_path()
    other = sqlite3.connect(db)  # another process's connection
    inode = db.stat().st_ino
    proc = wikigate(ws.root, "telemetry", "rebuild")
    assert proc.returncode == 0, proc.stderr
    assert db.stat().st_ino == inode
    assert other.execute("SELECT status FROM runs").fetchall() == [("committed",)]
    other.close()


def test_dirty_path_refuses_before_main_moves(ws):
    run = ws.start_run("cascade", "cli:test")
    run.stage_write("wiki/index.md", "# Index\n\nChanged by the run.\n")
    before = ws.repo.references[MAIN].target
    (ws.root / "wiki" / "index.md").write_text("a person's unsaved work\n")
    with pytest.raises(Exception, match="local changes to wiki/index.md"):
        run.finalize()
    assert ws.repo.references[MAIN].target == before
    assert (ws.root / "wiki" / "index.md").read_text() == "a person's unsaved work\n"
    assert ws.store.get(run.run_id)["status"] == "pending"


def test_untouched_paths_keep_a_persons_changes(ws):
    (ws.root / "wiki" / "log.md").write_text("edited by hand\n")
    (ws.root / "notes.txt").write_text("untracked\n")
    run = ws.start_run("cascade", "cli:test")
    run.stage_write("wiki/a.md", "# A\n")
    assert run.finalize().status == "committed"
    assert (ws.root / "wiki" / "log.md").read_text() == "edited by hand\n"
    assert (ws.root / "notes.txt").read_text() == "untracked\n"
    status = git(ws.root, "status", "--porcelain").stdout.splitlines()
    assert sorted(status) == [" M wiki/log.md", "?? notes.txt"]
