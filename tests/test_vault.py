"""Adopting an existing vault: a trunk that is not ``main`` (``master``), end to end with
real git: ``wikigate init``, a run, finalize, the local hooks, a push to a bare server
with the server gate installed; a failed init leaves nothing behind."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.helpers import git, in_process, push
from support.wiki_runs import page_run

from wikigate.workspace import Workspace


def cli(cwd: Path, *args: str):
    return in_process(["-C", str(cwd), *args])


def snapshot(root: Path) -> tuple[list[str], str, str]:
    """What a refused init must leave alone: the files, the refs and the git config."""
    files = sorted(
        str(p.relative_to(root)) for p in root.rglob("*") if ".git" not in p.relative_to(root).parts
    )
    refs = git(root, "for-each-ref", "--format=%(refname) %(objectname)").stdout
    config = git(root, "config", "--local", "--list").stdout
    return files, refs, config


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """An Obsidian-style vault kept in git on ``master``, wikigate not yet there."""
    root = tmp_path / "vault"
    root.mkdir()
    git(root, "init", "-q", "-b", "master")
    (root / ".obsidian").mkdir()
    (root / ".obsidian" / "app.json").write_text("{}\n")
    (root / "Reading list.md").write_text("# Reading list\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "my vault")
    return root


def test_a_master_vault_is_adopted_end_to_end(vault: Path, tmp_path: Path):
    init = cli(tmp_path, "init", str(vault))
    assert init.returncode == 0, init.stderr
    assert "trunk: master (git config wikigate.mainBranch = master)" in init.stdout
    assert "added and committed on master: raw/.gitkeep, wiki/index.md" in init.stdout
    assert git(vault, "config", "wikigate.mainBranch").stdout.strip() == "master"
    assert git(vault, "branch", "--list", "main").stdout == ""  # no second trunk made up

    # the server: a bare clone whose HEAD names master; the gate adopts the branch HEAD names
    bare = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(vault), str(bare))
    server = cli(vault, "hooks", "install", "--server", str(bare))
    assert server.returncode == 0, server.stderr
    assert "wikigate.mainBranch = master (HEAD's branch" in server.stdout
    assert git(bare, "config", "wikigate.mainBranch").stdout.strip() == "master"
    git(vault, "remote", "add", "origin", str(bare))
    git(vault, "fetch", "-q", "origin")
    local = cli(vault, "hooks", "install")
    assert local.returncode == 0, local.stderr
    assert "warning" not in local.stdout

    # a run starts from master and lands on it
    ws = Workspace.open(vault)
    try:
        before = git(vault, "rev-parse", "master").stdout.strip()
        result = page_run(ws, "owls")
        assert result.status == "committed", result
        tip = git(vault, "rev-parse", "master").stdout.strip()
        assert tip == str(result.tip) and tip != before
        assert git(vault, "rev-parse", "HEAD").stdout.strip() == tip  # the checkout followed
        assert (vault / "wiki" / "owls.md").exists()
    finally:
        ws.close()
    verify = cli(vault, "verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr

    # the local hooks gate master: a commit straight onto it is refused
    (vault / "wiki" / "sneaky.md").write_text("# Sneaky\n")
    git(vault, "add", "wiki/sneaky.md")
    commit = git(vault, "commit", "-qm", "straight onto master", check=False)
    assert commit.returncode != 0 and "refusing to move master" in commit.stderr
    assert git(vault, "rev-parse", "master").stdout.strip() == tip
    git(vault, "reset", "-q", "--hard", "HEAD")

    # the server verifies the push of master itself, and refuses an unverified one
    pushed = git(vault, "push", "origin", "master", check=False)  # pre-push sends the notes
    assert pushed.returncode == 0, pushed.stderr
    assert git(bare, "rev-parse", "master").stdout.strip() == tip
    assert git(bare, "notes", "--ref=wikigate", "list", tip).stdout.strip()
    git(vault, "checkout", "-q", "-b", "topic")
    (vault / "wiki" / "x.md").write_text("# X\n")
    git(vault, "add", ".")
    git(vault, "commit", "-qm", "x")
    refused = push(vault, "origin", "topic:master")
    assert refused.returncode != 0 and "remote: wikigate: refusing master" in refused.stderr
    assert git(bare, "rev-parse", "master").stdout.strip() == tip
    git(vault, "checkout", "-q", "master")

    doctor = cli(vault, "doctor")
    assert f"ok    branch: master at {tip[:12]}" in doctor.stdout
    assert "ok    rules: wikigate.toml on master" in doctor.stdout
    assert "ok    server gate (origin)" in doctor.stdout


def test_a_fresh_clone_of_a_master_vault_is_told_to_init_and_init_adopts_it(
    vault: Path, tmp_path: Path
):
    assert cli(tmp_path, "init", str(vault)).returncode == 0
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(vault), str(clone))  # git config is not cloned
    runs = cli(clone, "runs", "list")
    assert runs.returncode == 1 and "no branch 'main'" in runs.stderr
    assert "`wikigate init` on your trunk" in runs.stderr
    doctor = cli(clone, "doctor")
    assert "FAIL  branch: no branch main: runs land on main" in doctor.stdout
    assert "fix: wikigate init on the branch your wiki lives on" in doctor.stdout
    before = git(clone, "rev-parse", "master").stdout
    init = cli(clone, "init", str(clone))
    assert init.returncode == 0, init.stderr
    assert git(clone, "rev-parse", "master").stdout == before  # nothing was missing
    assert cli(clone, "runs", "list").returncode == 0


def test_a_failed_init_leaves_nothing_behind(vault: Path, tmp_path: Path):
    # the configured trunk is not the branch checked out: refused before writing anything
    git(vault, "config", "wikigate.mainBranch", "trunk")
    before = snapshot(vault)
    proc = cli(tmp_path, "init", str(vault))
    assert proc.returncode == 1
    assert "no branch 'trunk', and the branch checked out is master" in proc.stderr
    assert snapshot(vault) == before
    # init fails half-way (wiki is a file): what it had written is taken back
    git(vault, "config", "--unset", "wikigate.mainBranch")
    (vault / "wiki").write_text("not a folder\n")
    before = snapshot(vault)
    proc = cli(tmp_path, "init", str(vault))
    assert proc.returncode == 2 and "cannot create a workspace there" in proc.stderr
    assert snapshot(vault) == before
    assert not (vault / "raw").exists()
    assert git(vault, "config", "--get", "wikigate.mainBranch", check=False).stdout == ""
    # a new folder is not left behind by a bad trunk name
    fresh = tmp_path / "new" / "wiki"
    proc = cli(tmp_path, "init", str(fresh), "--main-branch", "wikigate/runs")
    assert proc.returncode == 1 and "not a branch wikigate can gate" in proc.stderr
    assert not (tmp_path / "new").exists()


def test_the_trunk_setting_is_checked_and_a_bad_one_fails_closed(vault: Path, tmp_path: Path):
    assert cli(tmp_path, "init", str(vault)).returncode == 0
    assert cli(vault, "hooks", "install").returncode == 0
    git(vault, "config", "wikigate.mainBranch", "master ")  # a stray space: no such branch
    runs = cli(vault, "runs", "list")
    assert runs.returncode == 1 and "is not a branch wikigate can gate" in runs.stderr
    (vault / "wiki" / "sneaky.md").write_text("# Sneaky\n")
    git(vault, "add", "wiki/sneaky.md")
    before = git(vault, "rev-parse", "master").stdout
    commit = git(vault, "commit", "-qm", "while the setting is broken", check=False)
    assert commit.returncode != 0 and "not a branch wikigate can gate" in commit.stderr
    assert git(vault, "rev-parse", "master").stdout == before
