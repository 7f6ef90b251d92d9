"""The CLI contract: exit codes, one-line errors, and that bad input changes nothing."""

from __future__ import annotations

import pytest
from support.fixtures import initialised_repo  # noqa: F401  (the `repo` fixture)
from support.helpers import git, in_process, start, state, wikigate

from wikigate.workspace import Workspace


def test_scripted_run_commits_and_lists(repo):
    run = start(repo)
    assert "\n" not in run and len(run.split("-")) == 4
    page = "---\ntitle: A\n---\n# A\n\nText.\n"
    assert (
        wikigate(repo, "run", "write", run, "wiki/a.md", "--from", "-", stdin=page).returncode == 0
    )
    fin = wikigate(repo, "run", "finalize", run)
    assert fin.returncode == 0 and fin.stdout.startswith(f"committed {run}")
    assert (repo / "wiki" / "a.md").read_text() == page
    listed = wikigate(repo, "runs", "list", "--format", "json")
    assert '"status": "committed"' in listed.stdout
    shown = wikigate(repo, "runs", "show", run)
    assert "write    wiki/a.md" in shown.stdout


def test_finalize_exit_codes_reject_1_revise_3(repo):
    bad = start(repo)
    wikigate(repo, "run", "write", bad, "wiki/a.md", "--from", "-", stdin="REJECT-ME\n")
    proc = wikigate(repo, "run", "finalize", bad)
    assert proc.returncode == 1 and "wiki/a.md:1: critical test.reject" in proc.stdout
    weak = start(repo)
    wikigate(repo, "run", "write", weak, "wiki/b.md", "--from", "-", stdin="REVISE-ME\n")
    proc = wikigate(repo, "run", "finalize", weak)
    assert proc.returncode == 3 and "loop 1 of 3" in proc.stdout
    ov = wikigate(repo, "verify", "override", bad, "--reason", "checked")
    assert ov.returncode == 0 and "override" in ov.stdout


def test_an_identity_git_refuses_is_a_usage_error_naming_it(repo):
    """Found by review (#9): `git config user.name '<img …>'` made `verify override` die
    with exit 4, "unexpected error: _pygit2.InvalidError"."""
    bad = start(repo)
    wikigate(repo, "run", "write", bad, "wiki/a.md", "--from", "-", stdin="REJECT-ME\n")
    assert wikigate(repo, "run", "finalize", bad).returncode == 1
    git(repo, "config", "user.name", "<img src=x onerror=alert(1)>")
    git(repo, "config", "user.email", "eve@example.invalid")
    before = state(repo)
    ov = wikigate(
        repo, "verify", "override", bad, "--reason", "checked", env={"GIT_COMMITTER_NAME": ""}
    )
    assert ov.returncode == 2, ov.stderr
    assert "'<img src=x onerror=alert(1)>' (git config user.name)" in ov.stderr
    assert "git config user.name" in ov.stderr and "unexpected" not in ov.stderr
    assert state(repo) == before


def test_replace_failure_exits_1_and_rejects(repo):
    run = start(repo)
    wikigate(repo, "run", "write", run, "wiki/a.md", "--from", "-", stdin="one two one\n")
    proc = wikigate(repo, "run", "replace", run, "wiki/a.md", "--old", "one", "--new", "1")
    assert proc.returncode == 1
    assert proc.stderr.strip().startswith("error: run") and "found 2 times" in proc.stderr
    assert "rejected" in wikigate(repo, "runs", "show", run).stdout


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["run", "finalize", "20990101-000000-000000-abcd"], None, "unknown run"),
        (["run", "delete", "{run}", "raw/x.txt"], None, "raw sources are immutable"),
        (["run", "write", "{run}", ".git/config", "--from", "-"], "x", "writes into .git"),
        (["run", "write", "{run}", "wiki/../x.md", "--from", "-"], "x", "'..'"),
        (["run", "write", "{run}", "wiki/x.md", "--from", "-"], "\udcff", "not UTF-8"),
        (["run", "write", "{run}", "raw/x.txt", "--from", "-"], "x", None),  # allowed: ingest
        (["run", "delete", "{run}", "wiki/nope.md"], None, "no such file"),
    ],
)
def test_bad_input_gives_one_line_error_and_changes_nothing(repo, args, stdin, message):
    run = start(repo)
    before = state(repo)
    argv = [a.replace("{run}", run) for a in args]
    data = stdin.encode("utf-8", "surrogateescape") if stdin else None
    proc = in_process(["-C", str(repo), *argv], data)
    if message is None:
        assert proc.returncode == 0
        return
    err = proc.stderr
    assert proc.returncode == 1 and err.startswith("error:") and err.count("\n") == 1
    assert message in err
    assert state(repo) == before


def test_finalizing_a_terminal_run_is_refused(repo):
    run = start(repo)
    wikigate(repo, "run", "write", run, "wiki/a.md", "--from", "-", stdin="# A\n")
    assert wikigate(repo, "run", "finalize", run, "--no-verify").returncode == 0
    before = state(repo)
    proc = wikigate(repo, "run", "finalize", run)
    assert proc.returncode == 1 and "already committed" in proc.stderr
    assert state(repo) == before


def test_usage_errors_exit_2(repo):
    assert (
        wikigate(repo, "run", "start", "--type", "poem", "--triggered-by", "cli:x").returncode == 2
    )
    proc = wikigate(repo, "run", "start", "--type", "ingest", "--triggered-by", "email:x")
    assert proc.returncode == 2 and "mcp:<tool>" in proc.stderr
    assert wikigate(repo, "runs", "list", "--status", "done").returncode == 2


def test_dirty_worktree_refuses_and_leaves_run_pending(repo):
    run = start(repo)
    wikigate(repo, "run", "write", run, "wiki/index.md", "--from", "-", stdin="# Index\n\nnew\n")
    (repo / "wiki" / "index.md").write_text("my local edit\n")
    main_before = git(repo, "rev-parse", "main").stdout
    proc = wikigate(repo, "run", "finalize", run)
    assert proc.returncode == 1 and "local changes" in proc.stderr
    assert git(repo, "rev-parse", "main").stdout == main_before
    assert (repo / "wiki" / "index.md").read_text() == "my local edit\n"
    assert "pending" in wikigate(repo, "runs", "show", run).stdout
    git(repo, "checkout", "--", "wiki/index.md")
    assert wikigate(repo, "run", "finalize", run).returncode == 0


def test_repository_without_main_and_detached_head(tmp_path):
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q", "-b", "trunk")
    git(root, "commit", "-q", "--allow-empty", "-m", "x")
    proc = wikigate(root, "runs", "list")
    assert proc.returncode == 2 and "no branch 'main'" in proc.stderr
    assert "`wikigate init` on your trunk" in proc.stderr
    git(root, "checkout", "-q", "--detach")
    proc = wikigate(tmp_path, "init", str(root))
    assert proc.returncode == 1 and "HEAD is detached" in proc.stderr


def test_branch_name_clash(repo):
    git(repo, "branch", "wikigate")
    proc = wikigate(repo, "run", "start", "--type", "ingest", "--triggered-by", "cli:x")
    assert proc.returncode == 1 and "branch named 'wikigate'" in proc.stderr


def test_corrupt_database_is_reported_then_rebuilt(repo):
    run = start(repo)
    wikigate(repo, "run", "write", run, "wiki/a.md", "--from", "-", stdin="# A\n")
    wikigate(repo, "run", "finalize", run, "--no-verify")
    db = repo / ".git" / "wikigate" / "telemetry.db"
    for side in (db.with_name("telemetry.db-wal"), db.with_name("telemetry.db-shm")):
        side.unlink(missing_ok=True)
    db.write_bytes(b"this is not sqlite" * 100)
    proc = wikigate(repo, "runs", "list")
    assert proc.returncode == 1 and "telemetry rebuild" in proc.stderr
    rebuilt = wikigate(repo, "telemetry", "rebuild")
    assert rebuilt.returncode == 0 and "with 1 run " in rebuilt.stdout
    assert run in wikigate(repo, "runs", "list").stdout
    assert list(db.parent.glob("telemetry.db.corrupt-*"))


def test_api_and_cli_share_state(repo):
    ws = Workspace.open(repo)
    run = ws.start_run("lint", "cli:lint")
    ws.close()
    assert run.run_id in wikigate(repo, "runs", "list", "--status", "pending").stdout


def test_the_cli_starts_without_the_engine_s_heavy_imports():
    """`wikigate --version` and every command's start-up load click and the CLI only:
    pydantic, pygit2, anthropic and PyGithub come when a command needs them (issue 13)."""
    import subprocess
    import sys

    probe = (
        "import sys; from wikigate.cli import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "heavy = {m.split('.')[0] for m in sys.modules} & "
        "{'pydantic', 'pygit2', 'anthropic', 'github', 'markdown_it', 'yaml', 'sqlite_utils'}\n"
        "print(sorted(heavy))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().endswith("[]"), out


def test_the_help_names_the_trunk_not_a_branch_called_main():
    """Trial 26c item 11: `wikigate --help` said "on main" and "against main" on a vault
    whose trunk is master; it names the trunk (main is only its default name)."""
    shown = in_process(["--help"]).stdout
    for said in ("on main", "against main", "gate main", "(Python, main,"):
        assert said not in shown, said
    assert "Every page on the trunk (main)" in shown
