"""Installed git hooks, driven by real git: merge, commit, push to a local bare repo."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import pytest
from support.helpers import git, in_process, push
from support.markers_verifier import MarkersVerifier
from support.wiki_runs import page_run

from wikigate.workspace import Workspace

PY = sys.executable


def wikigate_cli(cwd, *args):
    return in_process(["-C", str(cwd), *args])


def verified_run(ws, name, text="# Page\n"):
    run = ws.start_run("cascade", "cli:test")
    run.stage_write(f"wiki/{name}.md", text)
    result = run.finalize(verifier=MarkersVerifier())
    assert result.status == "committed"
    return result.tip


@pytest.fixture
def origin(tmp_path):
    """A workspace, a bare server cloned from it, and the workspace pushing to it."""
    ws = Workspace.init(tmp_path / "client")
    bare = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(ws.root), str(bare))
    git(ws.root, "remote", "add", "origin", str(bare))
    git(ws.root, "fetch", "-q", "origin")
    yield ws, bare
    ws.close()


def test_install_is_idempotent_and_chains_an_existing_hook(origin, tmp_path):
    ws, _bare = origin
    hooks = ws.git_dir / "hooks"
    marker = tmp_path / "legacy-ran"
    (hooks / "pre-push").write_text(f"#!/bin/sh\ncat > /dev/null\ntouch {marker}\n")
    (hooks / "pre-push").chmod(0o755)
    for _ in range(2):
        proc = wikigate_cli(ws.root, "hooks", "install")
        assert proc.returncode == 0, proc.stderr
    assert (hooks / "pre-push.legacy").read_text().endswith(f"touch {marker}\n")
    assert "wikigate-hook-shim" in (hooks / "reference-transaction").read_text()
    verified_run(ws, "a")
    push = git(ws.root, "push", "-q", "origin", "main", check=False)
    assert push.returncode == 0, push.stderr
    assert marker.exists()  # the user's hook still ran
    # the notes went along with main
    assert git(ws.root, "ls-remote", "origin", "refs/notes/wikigate").stdout.strip()
    assert wikigate_cli(ws.root, "hooks", "install", "--uninstall").returncode == 0
    assert (hooks / "pre-push").read_text().endswith(f"touch {marker}\n")
    assert not (hooks / "reference-transaction").exists()


def test_local_hooks_refuse_unverified_main_updates(origin):
    ws, _bare = origin
    root = ws.root
    assert wikigate_cli(root, "hooks", "install").returncode == 0
    before = git(root, "rev-parse", "main").stdout
    git(root, "checkout", "-q", "-b", "topic")
    (root / "wiki" / "sneaky.md").write_text("# Sneaky\n")
    git(root, "add", "wiki/sneaky.md")
    git(root, "commit", "-qm", "unverified")
    git(root, "checkout", "-q", "main")
    merge = git(root, "merge", "--ff-only", "topic", check=False)
    assert merge.returncode != 0 and "refusing to move main" in merge.stderr
    assert "git reset --merge HEAD" in merge.stderr
    assert git(root, "rev-parse", "main").stdout == before
    git(root, "reset", "-q", "--merge", "HEAD")  # the recovery the message names
    assert git(root, "status", "--porcelain").stdout == ""
    upd = git(root, "update-ref", "refs/heads/main", "topic", check=False)
    assert upd.returncode != 0 and git(root, "rev-parse", "main").stdout == before
    (root / "wiki" / "direct.md").write_text("# Direct\n")
    git(root, "add", "wiki/direct.md")
    commit = git(root, "commit", "-qm", "straight onto main", check=False)
    assert commit.returncode != 0 and git(root, "rev-parse", "main").stdout == before


def test_verified_main_fast_forwards_in_a_clone(origin, tmp_path):
    ws, bare = origin
    teammate = tmp_path / "teammate"
    git(tmp_path, "clone", "-q", str(bare), str(teammate))
    assert wikigate_cli(teammate, "hooks", "install").returncode == 0
    tip = verified_run(ws, "a")
    assert git(ws.root, "push", "-q", "origin", "main", "refs/notes/wikigate").returncode == 0
    git(teammate, "fetch", "-q", "origin")  # the install added the notes refspec
    merge = git(teammate, "merge", "--ff-only", "origin/main", check=False)
    assert merge.returncode == 0, merge.stderr
    assert git(teammate, "rev-parse", "main").stdout.strip() == str(tip)


def test_pre_push_refuses_unverified_main(origin):
    ws, bare = origin
    root = ws.root
    assert wikigate_cli(root, "hooks", "install").returncode == 0
    git(root, "checkout", "-q", "-b", "topic")
    (root / "wiki" / "x.md").write_text("# X\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "x")
    push = git(root, "push", "origin", "topic:main", check=False)
    assert push.returncode != 0 and "refusing to push main" in push.stderr
    assert git(bare, "rev-parse", "main").stdout != git(root, "rev-parse", "topic").stdout


@pytest.fixture
def server(origin):
    ws, bare = origin
    assert wikigate_cli(ws.root, "hooks", "install", "--server", str(bare)).returncode == 0
    return ws, bare


@pytest.mark.slow
def test_server_refuses_unverified_and_accepts_verified(server):
    ws, bare = server
    root = ws.root
    git(root, "checkout", "-q", "-b", "topic")
    (root / "wiki" / "x.md").write_text("# X\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "x")
    git(root, "checkout", "-q", "main")
    push = git(root, "push", "origin", "topic:main", check=False)
    assert push.returncode != 0
    assert "remote: wikigate: refusing main" in push.stderr
    tip = page_run(ws, "a").tip  # the server verifies it itself; the notes just travel along
    push = git(root, "push", "origin", "main", "refs/notes/wikigate", check=False)
    assert push.returncode == 0, push.stderr
    assert git(bare, "rev-parse", "main").stdout.strip() == str(tip)
    assert git(bare, "notes", "--ref=wikigate", "list", str(tip)).stdout.strip()
    # run branches pass freely
    assert git(root, "push", "-q", "origin", "topic:wikigate/runs/x").returncode == 0


@pytest.mark.slow
def test_the_servers_claim_ledger_follows_main_on_every_push(server):
    """post-receive brings the server's ledger up to main: a query straight from SQLite
    (no `wikigate claims` to catch it up) sees the claims the push landed."""
    ws, bare = server
    page_run(ws, "a")
    push = git(ws.root, "push", "origin", "main", "refs/notes/wikigate", check=False)
    assert push.returncode == 0, push.stderr
    db = sqlite3.connect(bare / "wikigate" / "telemetry.db")
    rows = db.execute("SELECT claim_id, anchor_status FROM claims").fetchall()
    assert rows and {page for page, _ in rows} >= {"wiki/a.md#^1"}
    assert {status for _, status in rows} == {"anchored"}
    (state,) = db.execute("SELECT commit_id FROM ledger_state").fetchall()
    assert state[0] == git(bare, "rev-parse", "main").stdout.strip()
    db.close()


def test_server_refuses_non_fast_forward(server):
    ws, bare = server
    first = git(ws.root, "rev-parse", "main").stdout.strip()
    page_run(ws, "a")
    git(ws.root, "push", "-q", "origin", "main", "refs/notes/wikigate")
    push = git(ws.root, "push", "origin", f"+{first}:refs/heads/main", check=False)
    assert push.returncode != 0 and "not a fast-forward" in push.stderr


def test_server_verify_on_push_prints_findings(server):
    ws, bare = server
    (bare / "wikigate.toml").write_text("[verifier]\nverify_on_push = true\n")
    root = ws.root
    git(root, "checkout", "-q", "-b", "topic")
    (root / "wiki" / "x.md").write_text('# X\n\nClaim.[^1]\n\n[^1]: raw/none.txt — "q"\n')
    git(root, "add", ".")
    git(root, "commit", "-qm", "x")
    push = git(root, "push", "origin", "topic:main", check=False)
    assert push.returncode != 0
    assert (
        "remote:   wiki/x.md:5: citation.source_missing: [^1]: source raw/none.txt does not exist"
        in push.stderr
    )


@pytest.mark.crash
def test_racing_pushes_exactly_one_wins(server, tmp_path):
    ws, bare = server
    clients = []
    for name in ("alice", "bob"):
        path = tmp_path / name
        git(tmp_path, "clone", "-q", str(bare), str(path))
        git(path, "fetch", "-q", "origin", "refs/notes/wikigate:refs/notes/wikigate", check=False)
        cws = Workspace.open(path)
        page_run(cws, name)
        cws.close()
        clients.append(path)
    procs = [
        subprocess.Popen(
            ["git", "-C", str(p), "push", "origin", "main", "refs/notes/wikigate"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for p in clients
    ]
    results = [(p.wait(timeout=60), p.stderr.read()) for p in procs]
    codes = sorted(code for code, _ in results)
    assert codes[0] == 0 and codes[1] != 0, results
    loser = [err for code, err in results if code != 0][0]
    assert "rebase" in loser or "fetch first" in loser, loser


def test_reference_transaction_starts_python_only_for_main(origin, tmp_path):
    """git runs the hook three times for every ref update, a run's staged ops included:
    only the prepared update of main may cost a Python start."""
    ws, _bare = origin
    assert wikigate_cli(ws.root, "hooks", "install").returncode == 0
    log = tmp_path / "python-starts"
    wrapper = tmp_path / "python"
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> {log}\nexec {PY} "$@"\n')
    wrapper.chmod(0o755)
    hook = ws.git_dir / "hooks" / "reference-transaction"
    hook.write_text(hook.read_text().replace(PY, str(wrapper)))
    run = ws.start_run("cascade", "cli:test")
    run.stage_write("wiki/a.md", "# A\n")
    run.stage_write("wiki/b.md", "# B\n")
    assert not log.exists(), log.read_text()
    result = run.finalize(verifier=MarkersVerifier())  # lands through the hook, note and all
    assert result.status == "committed"
    assert log.read_text().splitlines() == [
        "-P -m wikigate.hooks.git_hooks reference-transaction prepared"
    ]


def test_a_fetch_never_deletes_this_clones_unpushed_run_records(origin, tmp_path):
    """Origin's notes move (another clone pushed a revise note) while this clone holds a
    committed, unpushed run: `git fetch` keeps the local note, and pre-push merges both."""
    ws, bare = origin
    legacy = "+refs/notes/wikigate:refs/notes/wikigate"  # what an earlier install added
    git(ws.root, "config", "--add", "remote.origin.fetch", legacy)
    assert wikigate_cli(ws.root, "hooks", "install").returncode == 0
    specs = git(ws.root, "config", "--get-all", "remote.origin.fetch").stdout.split()
    assert legacy not in specs and "+refs/notes/wikigate*:refs/wikigate/origin/notes*" in specs
    git(ws.root, "push", "-q", "origin", "main")
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(bare), str(other))
    ows = Workspace.open(other)
    revised = ows.start_run("cascade", "cli:test")
    revised.stage_write("wiki/r.md", "# R\n\nREVISE-ME\n")
    assert revised.finalize(verifier=MarkersVerifier()).verdict == "revise"
    ows.close()
    git(other, "push", "-q", "origin", "refs/notes/wikigate")

    mine = verified_run(ws, "mine")  # committed here, not pushed yet
    assert git(ws.root, "fetch", "-q", "origin").returncode == 0
    assert git(ws.root, "notes", "--ref", "wikigate", "show", mine).returncode == 0
    fetched = git(ws.root, "rev-parse", "refs/wikigate/origin/notes").stdout.strip()
    assert fetched == git(bare, "rev-parse", "refs/notes/wikigate").stdout.strip()
    push = git(ws.root, "push", "origin", "main", check=False)
    assert push.returncode == 0, push.stderr
    server_notes = git(bare, "notes", "--ref", "wikigate", "list").stdout
    assert mine in server_notes  # this clone's record reached origin ...
    assert git(other, "rev-parse", f"refs/heads/wikigate/runs/{revised.run_id}").stdout.strip() in (
        server_notes
    )  # ... and the other clone's stayed there
    rebuilt = wikigate_cli(ws.root, "telemetry", "rebuild")
    assert rebuilt.returncode == 0, rebuilt.stderr
    runs = sqlite3.connect(ws.git_dir / "wikigate" / "telemetry.db").execute(
        "SELECT status FROM runs"
    )
    assert sorted(r[0] for r in runs) == ["committed", "pending"]


def test_pulling_runs_another_clone_landed_passes_the_local_hook(origin, tmp_path):
    """The reference-transaction hook finds the runs others landed in origin's notes as
    fetched, though the local notes do not hold them."""
    ws, bare = origin
    git(ws.root, "push", "-q", "origin", "main")
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(bare), str(other))
    assert wikigate_cli(other, "hooks", "install").returncode == 0
    assert wikigate_cli(ws.root, "hooks", "install").returncode == 0
    verified_run(ws, "landed")
    assert git(ws.root, "push", "-q", "origin", "main").returncode == 0
    git(other, "fetch", "-q", "origin")
    merge = git(other, "merge", "-q", "--ff-only", "origin/main", check=False)
    assert merge.returncode == 0, merge.stderr
    assert (other / "wiki" / "landed.md").exists()


@pytest.mark.slow
def test_a_clone_with_the_local_hooks_follows_what_the_gated_server_accepted(server, tmp_path):
    """The server gate verifies a push itself, notes or none; a clone whose local hooks
    guard main fast-forwards to what it accepted (its record in refs/notes/wikigate-server,
    which only the server writes), and still refuses a main no gate passed."""
    ws, bare = server
    clone = tmp_path / "reader"
    git(tmp_path, "clone", "-q", str(bare), str(clone))
    assert wikigate_cli(clone, "hooks", "install").returncode == 0
    tip = page_run(ws, "a").tip
    pushed = push(ws.root, "origin", "main")  # main alone: no run note travels with it
    assert pushed.returncode == 0, pushed.stderr
    assert "refs/notes/wikigate\n" not in git(bare, "for-each-ref").stdout + "\n"
    accepted = git(bare, "notes", "--ref", "refs/notes/wikigate-server", "show", str(tip))
    assert '"accepted_by": "server"' in accepted.stdout

    pulled = git(clone, "pull", "-q", "--ff-only", check=False)  # fetches the record too
    assert pulled.returncode == 0, pulled.stderr
    assert git(clone, "rev-parse", "main").stdout.strip() == str(tip)

    # a commit no gate passed: the clone's hooks still refuse to move main to it
    git(clone, "checkout", "-q", "-b", "topic")
    (clone / "wiki" / "x.md").write_text("# X\n")
    git(clone, "add", ".")
    git(clone, "commit", "-qm", "x")
    git(clone, "checkout", "-q", "main")
    merged = git(clone, "merge", "-q", "--ff-only", "topic", check=False)
    assert merged.returncode != 0 and "no wikigate run note" in merged.stderr
    assert git(clone, "rev-parse", "main").stdout.strip() == str(tip)

    # and no client may write the server's record
    git(clone, "notes", "--ref", "refs/notes/wikigate-server", "add", "-m", "{}", "topic")
    forged = push(clone, "origin", "+refs/notes/wikigate-server")
    assert forged.returncode != 0 and "only the server writes it" in forged.stderr


def test_a_symbolic_ref_or_a_ref_below_a_guarded_one_is_refused(server, tmp_path):
    """A symbolic ref on the server (master → main) moves main past the gate when pushed
    through; a ref one level below a guarded one (refs/notes/wikigate-server/x) would
    stop the server writing its records. Both are refused; main does not move."""
    ws, bare = server
    before = git(bare, "rev-parse", "main").stdout.strip()
    git(bare, "symbolic-ref", "refs/heads/master", "refs/heads/main")
    git(ws.root, "checkout", "-q", "-b", "topic")
    (ws.root / "wiki" / "x.md").write_text("# X\n\nThe council declared war on Canada.\n")
    git(ws.root, "add", ".")
    git(ws.root, "commit", "-qm", "unverified")
    aliased = push(ws.root, "origin", "topic:refs/heads/master")
    assert aliased.returncode != 0 and "a symbolic ref on this server" in aliased.stderr
    assert git(bare, "rev-parse", "main").stdout.strip() == before
    for ref in ("refs/notes/wikigate-server/x", "refs/notes/wikigate/x", "refs/heads/main/x"):
        below = push(ws.root, "origin", f"topic:{ref}")
        assert below.returncode != 0, ref
        assert "a ref below main or wikigate's records" in below.stderr, below.stderr


def test_the_servers_accepted_note_waits_for_a_lock_another_push_holds(origin, monkeypatch):
    """Another push's post-receive may hold the server notes' lock longer than a second:
    the accepted note waits for it (as ref transactions do) instead of being lost."""
    from wikigate import refs
    from wikigate.hooks import server

    ws, bare = origin
    tip = verified_run(ws, "a")
    old = str(ws.repo.revparse_single(f"{tip}^").id)
    push(ws.root, "-q", "origin", f"{tip}:refs/heads/main")
    lock = bare / "refs" / "notes" / "wikigate-server.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text("held by another push\n")
    waits = []

    def wait(seconds):  # the other push finishes after a few of our waits (no real sleep)
        waits.append(seconds)
        if len(waits) == 8:
            lock.unlink()

    monkeypatch.setattr(refs.time, "sleep", wait)  # the time module: the hook's too
    monkeypatch.setenv("GIT_DIR", str(bare))
    server._note_accepted(old, str(tip))
    note = git(bare, "notes", "--ref", "wikigate-server", "show", str(tip), check=False)
    assert '"accepted_by": "server"' in note.stdout, note.stderr
    assert len(waits) == 8


def test_pre_commits_pre_push_chaining_wikigates_hook_is_installed_and_gates(origin):
    """Trial 26c F2: `pre-commit install --hook-type pre-push` after `wikigate hooks
    install` keeps wikigate's shim as pre-push.legacy, which pre-commit runs first.
    `doctor` called that "another tool's", `hooks install` failed "neither is wikigate's",
    and the shim, named pre-push.legacy, chained itself (`$HERE/pre-push.legacy`) forever."""
    ws, _bare = origin
    root, hooks = ws.root, ws.git_dir / "hooks"
    assert wikigate_cli(root, "hooks", "install").returncode == 0
    installed = subprocess.run(
        [PY, "-m", "pre_commit", "install", "--hook-type", "pre-push"],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert installed.returncode == 0, installed.stderr
    assert "wikigate-hook-shim" in (hooks / "pre-push.legacy").read_text()

    doctor = wikigate_cli(root, "doctor")
    assert "ok    hook pre-push" in doctor.stdout, doctor.stdout
    assert "pre-commit's pre-push hook runs it first" in doctor.stdout
    again = wikigate_cli(root, "hooks", "install")
    assert again.returncode == 0, again.stderr
    assert "File generated by pre-commit" in (hooks / "pre-push").read_text()
    assert not (hooks / "pre-push.legacy.legacy").exists()

    # the chained shim still gates the push, once (no config: pre-commit runs nothing more)
    (root / "wiki" / "sneaky.md").write_text("# Sneaky\n")
    git(root, "add", "wiki/sneaky.md")
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "unverified")
    refused = subprocess.run(
        ["git", "push", "origin", "main"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PRE_COMMIT_ALLOW_NO_CONFIG": "1"},
    )
    assert refused.returncode != 0
    assert refused.stderr.count("refusing to push main") == 1, refused.stderr
    counted = wikigate_cli(root, "doctor").stdout  # the chained hook counts what it refuses
    assert "FAIL  push main to origin: 1 commit(s) on main without a run note" in counted

    assert wikigate_cli(root, "hooks", "install", "--uninstall").returncode == 0
    assert not (hooks / "pre-push.legacy").exists()
    assert "File generated by pre-commit" in (hooks / "pre-push").read_text()
