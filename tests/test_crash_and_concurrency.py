"""Crash safety (SIGKILL during finalize) and concurrent finalizers on one repo."""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pygit2
import pytest
from support.forked import Forked, forked
from support.helpers import git, wikigate
from test_crash_points import rebuilt, telemetry

from wikigate.gitrepo import MAIN
from wikigate.workspace import Workspace

pytestmark = pytest.mark.crash

KILL_ITERATIONS = 60


def finalize_cmd(repo, run_id):
    """``wikigate -C REPO run finalize RUN`` (a process of its own: support/forked.py)."""
    return ["-C", str(repo), "run", "finalize", run_id]


def plugin_env(**extra):
    return {**os.environ, "WIKIGATE_VERIFIER": "support.markers_verifier:factory", **extra}


def test_sigkill_during_finalize_leaves_main_whole(tmp_path):
    repo = tmp_path / "w"
    ws = Workspace.init(repo)
    rng = random.Random(20261121)
    env = plugin_env(MARKERS_VERIFIER_SLEEP="0.02")
    # How long does a finalize take here?  Kill anywhere within ~1.3x of it.  (The second
    # one is timed: the first may start the fork server.)
    for name in ("warmup", "timed"):
        run = ws.start_run("ingest", "cli:ingest")
        run.stage_write(f"wiki/{name}.md", "# W\n")
        t0 = time.monotonic()
        done = forked(finalize_cmd(repo, run.run_id), env)
        assert done.returncode == 0, done.stderr
        span = (time.monotonic() - t0) * 1.3
    outcomes = {"old": 0, "new": 0}
    for i in range(KILL_ITERATIONS):
        run = ws.start_run("ingest", "cli:ingest")
        run.stage_write(f"wiki/p{i}.md", f"# P{i}\n")
        before, staged = ws.repo.references[MAIN].target, run.tip()
        proc = Forked(finalize_cmd(repo, run.run_id), env)
        time.sleep(rng.uniform(0, span))
        proc.kill()  # SIGKILL
        proc.result()
        after = pygit2.Repository(str(repo)).references[MAIN].target
        assert after in (before, staged), f"iteration {i}: main is neither old nor new tip"
        outcomes["new" if after == staged else "old"] += 1
        db = sqlite3.connect(ws.telemetry_path())
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        db.close()
    swept = wikigate(repo, "sweep", env={"WIKIGATE_RUN_TIMEOUT_MINUTES": "0"})
    assert swept.returncode == 0, swept.stderr
    listed = wikigate(repo, "runs", "list", "--format", "json")
    import json

    rows = json.loads(listed.stdout)
    assert not [r for r in rows if r["status"] in ("pending", "verifying")]
    # every run whose tip reached main is recorded as committed, and only those
    main_commits = {str(c.id) for c in ws.repo.walk(ws.repo.references[MAIN].target)}
    for r in rows:
        assert (r["status"] == "committed") == (r["tip_commit"] in main_commits), r
    # both outcomes happened, so the kills really landed on both sides of the swap
    assert outcomes["old"] and outcomes["new"], outcomes
    # the index and files are main's, and telemetry is what git says
    assert git(repo, "status", "--porcelain").stdout == ""
    assert telemetry(ws.telemetry_path()) == telemetry(rebuilt(repo, tmp_path))
    # the repository is healthy and a new run still goes through
    assert git(repo, "fsck", "--no-progress").returncode == 0
    run = ws.start_run("ingest", "cli:ingest")
    run.stage_write("wiki/after.md", "# After\n")
    last = forked(finalize_cmd(repo, run.run_id), env)
    assert last.returncode == 0, last.stderr
    ws.close()


# A `git` for the finalizer: its ref transaction that moves main is handed to a real git
# that finishes it after the finalizer is gone (as git does once `commit` is in its pipe),
# and only when the test says so: the next command may start in between.
LATE_GIT = """\
#!/bin/sh
case "$1" in update-ref) ;; *) exec "{git}" "$@" ;; esac
INPUT=$(cat)
case "$INPUT" in *"update refs/heads/main "*) ;; *) printf '%s\\n' "$INPUT" | exec "{git}" "$@" ;; esac
kill -9 "$PPID"
cat "{go}" >/dev/null
printf '%s\\n' "$INPUT" | "{git}" "$@" >/dev/null 2>&1
echo $? > "{done}.tmp" && mv "{done}.tmp" "{done}"
"""


def waiting_for_lock(pid: int, path) -> bool:
    """Is process ``pid`` waiting for a ``flock`` on ``path`` (Linux: /proc/locks lists a
    waiter after ``->``)?"""
    inode = str(path.stat().st_ino)
    for line in Path("/proc/locks").read_text(encoding="ascii").splitlines():
        f = line.split()
        if f[1:3] == ["->", "FLOCK"] and f[5] == str(pid) and f[6].rsplit(":", 1)[1] == inode:
            return True
    return False


def until(what, deadline=120.0):
    end = time.monotonic() + deadline
    while not what():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.01)


@pytest.mark.skipif(not os.path.exists("/proc/locks"), reason="needs Linux's /proc/locks")
@pytest.mark.parametrize("checked_out", [True, False], ids=["main-checked-out", "other-branch"])
def test_next_command_waits_for_a_dead_finalizers_git(tmp_path, checked_out):
    """The finalizer dies while its git still finishes the transaction that moves main (on
    a busy machine git can take longer than the next command's start). The next command
    must not settle the run from main's old value: once git is done, the index and the
    files are main's (when main is checked out) and the run is committed."""
    repo = tmp_path / "w"
    ws = Workspace.init(repo)
    if not checked_out:
        git(repo, "switch", "-q", "-c", "elsewhere")
    run = ws.start_run("ingest", "cli:ingest")
    run.stage_write("wiki/a.md", "# A\n")
    before, staged = ws.repo.references[MAIN].target, run.tip()
    bin_dir, go, done = tmp_path / "bin", tmp_path / "go", tmp_path / "git-done"
    bin_dir.mkdir()
    os.mkfifo(go)
    fake = bin_dir / "git"
    fake.write_text(LATE_GIT.format(git=shutil.which("git"), go=go, done=done))
    fake.chmod(0o755)
    env = plugin_env(PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    killed = Forked(finalize_cmd(repo, run.run_id), env).result(timeout=120)
    assert killed.returncode == -9, killed.stderr
    assert pygit2.Repository(str(repo)).references[MAIN].target == before
    # the next command, while the dead finalizer's git has not yet moved main
    sweep = Forked(["-C", str(repo), "sweep"], plugin_env())
    lock = repo / ".git" / "wikigate" / "refs.lock"
    until(lambda: not sweep.alive() or waiting_for_lock(sweep.pid, lock))
    with open(go, "w"):
        pass  # git goes on
    until(done.exists)
    assert done.read_text().strip() == "0"  # git committed what it was handed
    swept = sweep.result(timeout=120)
    assert swept.returncode == 0, swept.stderr
    assert pygit2.Repository(str(repo)).references[MAIN].target == staged
    assert git(repo, "status", "--porcelain").stdout == ""  # was "D  wiki/a.md"
    assert (repo / "wiki" / "a.md").exists() == checked_out
    assert ws.store.get(run.run_id)["status"] == "committed"  # was "pending"
    run = ws.start_run("ingest", "cli:ingest")
    run.stage_write("wiki/b.md", "# B\n")
    assert forked(finalize_cmd(repo, run.run_id), plugin_env()).returncode == 0
    assert git(repo, "status", "--porcelain").stdout == ""
    ws.close()


def finalize_all(ws, runs):
    """Finalize ``runs`` in as many processes at once; return {run: (stderr, exit code)}."""
    procs = [Forked(finalize_cmd(ws.root, r), plugin_env()) for r in runs]
    done = {r: p.result(timeout=300) for r, p in zip(runs, procs, strict=True)}
    return {r: (d.stderr, d.returncode) for r, d in done.items()}


def distinct_runs(ws, count, prefix="page"):
    runs = []
    for i in range(count):
        run = ws.start_run("ingest", "cli:ingest")
        run.stage_write(f"wiki/{prefix}{i}.md", f"# Page {i}\n")
        runs.append(run.run_id)
    return runs


def assert_linear_and_clean(ws):
    head = ws.repo[ws.repo.references[MAIN].target]
    assert all(len(c.parents) <= 1 for c in ws.repo.walk(head.id)), "history must stay linear"
    assert git(ws.root, "status", "--porcelain").stdout == ""
    return head


def test_concurrent_finalizers_lose_nothing(tmp_path):
    ws = Workspace.init(tmp_path / "w")
    runs = distinct_runs(ws, 8)
    # one run conflicts on purpose: of it and page0's run, the later one is rejected
    clash = ws.start_run("cascade", "cli:cascade")
    clash.stage_write("wiki/page0.md", "# Page 0, other text\n")
    results = finalize_all(ws, [*runs, clash.run_id])
    rows = {r["run_id"]: r for r in ws.store.runs()}
    rejected = [r for r in rows.values() if r["status"] == "rejected"]
    assert len(rejected) == 1, [(r["run_id"], r["reject_reason"]) for r in rejected]
    assert rejected[0]["run_id"] in (runs[0], clash.run_id)
    assert rejected[0]["reject_reason"].startswith("conflict: main changed wiki/page0.md")
    for run_id, (err, code) in results.items():
        assert code == (1 if run_id == rejected[0]["run_id"] else 0), err
    head = assert_linear_and_clean(ws)
    for i in range(8):
        assert f"page{i}.md" in head.tree["wiki"]
    ws.close()


def twenty_at_once(tmp_path, round_no=0):
    ws = Workspace.init(tmp_path / f"w{round_no}")
    runs = distinct_runs(ws, 20)
    results = finalize_all(ws, runs)
    for run_id, (err, code) in results.items():
        assert code == 0, (run_id, err)
    assert {r["status"] for r in ws.store.runs()} == {"committed"}
    head = assert_linear_and_clean(ws)
    assert len([p for p in head.tree["wiki"] if p.name.startswith("page")]) == 20
    ws.close()


def test_twenty_finalizers_on_distinct_pages_all_commit(tmp_path):
    twenty_at_once(tmp_path)


@pytest.mark.stress
def test_twenty_finalizers_ten_times_in_a_row(tmp_path):
    for round_no in range(10):
        twenty_at_once(tmp_path, round_no)


@pytest.mark.stress
def test_eight_finalizers_twenty_times_beside_a_cpu_hog(tmp_path):
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        for round_no in range(20):
            root = tmp_path / f"r{round_no}"
            root.mkdir()
            test_concurrent_finalizers_lose_nothing(root)
    finally:
        hog.kill()
        hog.wait()
