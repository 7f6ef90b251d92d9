"""Crash safety (SIGKILL during finalize) and concurrent finalizers on one repo."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time

import pygit2
import pytest
from support.helpers import git, wikigate

from wikigate.gitrepo import MAIN
from wikigate.workspace import Workspace

KILL_ITERATIONS = 60


def finalize_cmd(repo, run_id):
    return [sys.executable, "-m", "wikigate", "-C", str(repo), "run", "finalize", run_id]


def plugin_env(**extra):
    return {**os.environ, "WIKIGATE_VERIFIER": "support.markers_verifier:factory", **extra}


def test_sigkill_during_finalize_leaves_main_whole(tmp_path):
    repo = tmp_path / "w"
    ws = Workspace.init(repo)
    rng = random.Random(20261121)
    env = plugin_env(MARKERS_VERIFIER_SLEEP="0.02")
    # How long does a finalize take here?  Kill anywhere within ~1.3x of it.
    run = ws.start_run("ingest", "cli:ingest")
    run.stage_write("wiki/warmup.md", "# W\n")
    t0 = time.monotonic()
    subprocess.run(finalize_cmd(repo, run.run_id), env=env, check=True, capture_output=True)
    span = (time.monotonic() - t0) * 1.3
    outcomes = {"old": 0, "new": 0}
    for i in range(KILL_ITERATIONS):
        run = ws.start_run("ingest", "cli:ingest")
        run.stage_write(f"wiki/p{i}.md", f"# P{i}\n")
        before, staged = ws.repo.references[MAIN].target, run.tip()
        proc = subprocess.Popen(
            finalize_cmd(repo, run.run_id),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(0, span))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
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
    # the repository is healthy and a new run still goes through
    assert git(repo, "fsck", "--no-progress").returncode == 0
    run = ws.start_run("ingest", "cli:ingest")
    run.stage_write("wiki/after.md", "# After\n")
    assert subprocess.run(finalize_cmd(repo, run.run_id), env=env).returncode == 0
    ws.close()


@pytest.mark.parametrize("writers", [8])
def test_concurrent_finalizers_lose_nothing(tmp_path, writers):
    repo = tmp_path / "w"
    ws = Workspace.init(repo)
    runs = []
    for i in range(writers):
        run = ws.start_run("ingest", "cli:ingest")
        run.stage_write(f"wiki/page{i}.md", f"# Page {i}\n")
        runs.append(run.run_id)
    # one pair conflicts on purpose: the loser must be rejected with a reason
    clash = ws.start_run("cascade", "cli:cascade")
    clash.stage_write("wiki/page0.md", "# Page 0, other text\n")
    runs.append(clash.run_id)
    procs = [
        subprocess.Popen(
            finalize_cmd(repo, r),
            env=plugin_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for r in runs
    ]
    results = {
        r: p.communicate(timeout=120) + (p.returncode,) for r, p in zip(runs, procs, strict=False)
    }
    rows = {r["run_id"]: r for r in ws.store.runs()}
    head = ws.repo[ws.repo.references[MAIN].target]
    history = list(ws.repo.walk(head.id))
    assert all(len(c.parents) <= 1 for c in history), "history must stay linear"
    committed = [r for r in runs if rows[r]["status"] == "committed"]
    for r in runs:
        out, err, code = results[r]
        status = rows[r]["status"]
        assert status in ("committed", "rejected"), (r, status, err)
        if status == "rejected":
            assert code == 1 and rows[r]["reject_reason"].split(":")[0] in ("conflict", "stale")
        else:
            assert code == 0, err
    assert len(committed) >= writers - 1
    for i in range(writers):
        assert f"page{i}.md" in head.tree["wiki"]
    assert git(repo, "status", "--porcelain").stdout == ""
    ws.close()
