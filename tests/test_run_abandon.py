"""``wikigate run abandon RUN --reason``: one stuck run out of the way, recorded as sweep
records an abandoned run (telemetry, its note, its tip kept at refs/wikigate/failed/<id>),
with the actor and the reason; committed and rejected runs, and a run a live finalizer
holds, are refused and left as they were."""

from __future__ import annotations

import json
import os
import socket
from datetime import timedelta

from support.fixtures import initialised_repo  # noqa: F401  (the `repo` fixture)
from support.helpers import git, start, state, wikigate

from wikigate.runid import now_iso, parse_iso
from wikigate.workspace import Workspace

PAGE = "---\ntitle: A\n---\n# A\n\nText.\n"


def _staged(repo) -> str:
    run = start(repo)
    proc = wikigate(repo, "run", "write", run, "wiki/a.md", "--from", "-", stdin=PAGE)
    assert proc.returncode == 0, proc.stderr
    return run


def _verifying(repo, run: str, *, pid: int, lease_seconds: float) -> None:
    """The run as a finalizer left it: claimed by ``pid`` on this host until a time."""
    ws = Workspace.open(repo)
    try:
        until = (parse_iso(now_iso()) + timedelta(seconds=lease_seconds)).isoformat()
        with ws.store.immediate():
            ws.store.update_run(
                run,
                status="verifying",
                finalizer_pid=pid,
                finalizer_host=socket.gethostname(),
                lease_until=until,
            )
    finally:
        ws.close()


def _note(repo, ref: str) -> dict:
    return json.loads(git(repo, "notes", "--ref=wikigate", "show", ref).stdout)


def test_a_pending_run_is_abandoned_with_actor_and_reason_and_its_commits_kept(repo):
    run, other = _staged(repo), _staged(repo)
    tip = git(repo, "rev-parse", f"wikigate/runs/{run}").stdout.strip()
    main = git(repo, "rev-parse", "main").stdout.strip()
    proc = wikigate(repo, "run", "abandon", run, "--reason", "writer crashed, starting over")
    assert proc.returncode == 0, proc.stderr
    assert (
        proc.stdout.strip()
        == f"abandoned {run}: its commits are kept at refs/wikigate/failed/{run}"
    )
    assert git(repo, "rev-parse", f"refs/wikigate/failed/{run}").stdout.strip() == tip
    assert git(repo, "rev-parse", "--verify", "-q", f"wikigate/runs/{run}", check=False).returncode
    assert git(repo, "rev-parse", "main").stdout.strip() == main  # nothing landed
    shown = json.loads(wikigate(repo, "runs", "show", run, "--format", "json").stdout)
    assert shown["status"] == "abandoned"
    reason = shown["reject_reason"]
    assert reason.startswith("abandoned: by Test Committer <committer@example.invalid>")
    assert reason.endswith("writer crashed, starting over")
    note = _note(repo, tip)  # in git too: telemetry rebuild and other clones agree
    assert note["status"] == "abandoned" and note["reject_reason"] == reason
    # only that run: the other is still pending and can land
    assert (
        json.loads(wikigate(repo, "runs", "show", other, "--format", "json").stdout)["status"]
        == "pending"
    )
    assert wikigate(repo, "run", "finalize", other).returncode == 0
    # an abandoned run is over: finalizing or abandoning it again is refused
    again = wikigate(repo, "run", "finalize", run)
    assert again.returncode == 1 and "already abandoned" in again.stderr
    twice = wikigate(repo, "run", "abandon", run, "--reason", "again")
    assert twice.returncode == 1 and "already abandoned" in twice.stderr


def test_committed_and_rejected_runs_are_refused_and_left_as_they_were(repo):
    done = _staged(repo)
    assert wikigate(repo, "run", "finalize", done).returncode == 0
    bad = start(repo)
    wikigate(repo, "run", "write", bad, "wiki/b.md", "--from", "-", stdin="REJECT-ME\n")
    assert wikigate(repo, "run", "finalize", bad).returncode == 1
    before = state(repo)
    for run, status in ((done, "committed"), (bad, "rejected")):
        proc = wikigate(repo, "run", "abandon", run, "--reason", "tidy up")
        assert proc.returncode == 1, proc.stdout
        assert f"run {run} is already {status}; only a pending run" in proc.stderr
    assert state(repo) == before


def test_a_run_a_live_finalizer_holds_is_refused(repo):
    run = _staged(repo)
    _verifying(repo, run, pid=os.getpid(), lease_seconds=600)  # this process: alive
    before = state(repo)
    proc = wikigate(repo, "run", "abandon", run, "--reason", "stuck?")
    assert proc.returncode == 1
    assert f"run {run} is being finalized by process {os.getpid()}" in proc.stderr
    assert "once that process is gone or its lease has expired" in proc.stderr
    assert state(repo) == before


def test_a_run_whose_finalizer_died_or_whose_lease_expired_is_abandoned(repo):
    dead, expired = _staged(repo), _staged(repo)
    _verifying(repo, dead, pid=2**22 + 7, lease_seconds=600)  # no such process
    _verifying(repo, expired, pid=os.getpid(), lease_seconds=-60)  # alive, lease past
    for run in (dead, expired):
        proc = wikigate(repo, "run", "abandon", run, "--reason", "finalizer gone")
        assert proc.returncode == 0, proc.stderr
        shown = json.loads(wikigate(repo, "runs", "show", run, "--format", "json").stdout)
        assert shown["status"] == "abandoned"
        assert (
            git(repo, "rev-parse", "--verify", "-q", f"refs/wikigate/failed/{run}").returncode == 0
        )


def test_abandon_needs_a_reason_and_a_known_run(repo):
    run = _staged(repo)
    before = state(repo)
    blank = wikigate(repo, "run", "abandon", run, "--reason", "  ")
    assert blank.returncode == 2 and "--reason must say why" in blank.stderr
    missing = wikigate(repo, "run", "abandon", run)
    assert missing.returncode == 2 and "--reason" in missing.stderr
    unknown = wikigate(repo, "run", "abandon", "20260101-000000-000000-dead", "--reason", "x")
    assert unknown.returncode in (1, 2) and "20260101-000000-000000-dead" in unknown.stderr
    assert state(repo) == before


def test_a_run_that_changes_nothing_ends_abandoned_and_lands_nothing(repo):
    """Trial 26 #13: a run whose writes were all refused finalized as committed and landed
    its empty start commit on main."""
    run = start(repo)
    refused = wikigate(repo, "run", "write", run, "wiki/x.png", "--from", "-", stdin="x")
    assert refused.returncode != 0  # no PNG's bytes
    main = git(repo, "rev-parse", "main").stdout.strip()
    proc = wikigate(repo, "run", "finalize", run)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "the run changes nothing" in proc.stdout + proc.stderr
    assert git(repo, "rev-parse", "main").stdout.strip() == main  # no empty commit landed
    shown = json.loads(wikigate(repo, "runs", "show", run, "--format", "json").stdout)
    assert shown["status"] == "abandoned"
    assert "the run changes nothing" in shown["reject_reason"]
    # a page written then deleted again changes nothing either
    run = _staged(repo)
    assert wikigate(repo, "run", "delete", run, "wiki/a.md").returncode == 0
    assert wikigate(repo, "run", "finalize", run, "--no-verify").returncode == 1
    assert git(repo, "rev-parse", "main").stdout.strip() == main


def _held_elsewhere(repo, run: str) -> str:
    """The run as an MCP server on another machine left it, killed mid-finalize: claimed
    by its process there until a time now past (returned)."""
    _verifying(repo, run, pid=4242, lease_seconds=-60)
    ws = Workspace.open(repo)
    try:
        with ws.store.immediate():
            ws.store.update_run(run, finalizer_host="gone-host.example")
        return str(ws.store.get(run)["lease_until"])
    finally:
        ws.close()


def _swept(repo, **env: str) -> dict[str, str]:
    """`wikigate sweep`'s lines, by run."""
    done = wikigate(repo, "sweep", env=env)
    assert done.returncode == 0, done.stderr
    return dict(line.split(": ", 1) for line in done.stdout.splitlines())


def test_sweep_says_what_it_did_to_each_run_and_nothing_when_nothing_was_left(repo):
    """`wikigate sweep` said only `swept RUN` of a run whose finalizer (an MCP server) was
    killed: one line per run now says what it did and why; a sweep with nothing to settle
    prints nothing."""
    held, dead, idle = _staged(repo), _staged(repo), _staged(repo)
    until = _held_elsewhere(repo, held)
    _verifying(repo, dead, pid=2**22 + 7, lease_seconds=600)  # no such process here
    again = "; finalize it again, or abandon it (`wikigate run abandon {} --reason TEXT`)"
    assert _swept(repo) == {  # younger than the run timeout: pending again
        held: f"pending again: its lease ran out at {until} (the process holding it is gone)"
        + again.format(held),
        dead: f"pending again: finalizer process {2**22 + 7} died" + again.format(dead),
    }
    assert wikigate(repo, "sweep").stdout == ""  # nothing left behind: nothing said
    until = _held_elsewhere(repo, held)
    old = {"WIKIGATE_RUN_TIMEOUT_MINUTES": "0"}
    assert _swept(repo, **old) == {
        held: f"abandoned: its lease ran out at {until} (the process holding it is gone)",
        dead: "abandoned: older than the run timeout (0 min)",
        idle: "abandoned: older than the run timeout (0 min)",
    }
    shown = json.loads(wikigate(repo, "runs", "show", held, "--format", "json").stdout)
    assert shown["status"] == "abandoned" and until in shown["reject_reason"]
    assert wikigate(repo, "sweep", env=old).stdout == ""
