"""The pre-commit hooks, driven by the real `pre-commit` from a local copy of this project."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.helpers import git

from wikigate import oslock
from wikigate.verifier.citation import format_tail
from wikigate.workspace import Workspace

# real pre-commit runs: the hook environment is a pip install of this project, built once
# a run (tests/README.md: the slow tier)
pytestmark = pytest.mark.slow

PROJECT = Path(__file__).resolve().parents[1]
SOURCE = "Owls hunt at night. Larks sing at dawn.\n"


@pytest.fixture(scope="session")
def shared(tmp_path_factory, worker_id):
    """A folder every worker of this run shares (pytest-xdist): the hook repository and
    pre-commit's home are made once there, so that the hook environment (a pip install of
    this project, the slowest step of the suite) is built once a run."""
    base = tmp_path_factory.getbasetemp()
    return base if worker_id == "master" else base.parent


@pytest.fixture(scope="session")
def hook_repo(shared):
    """This project as a git repository pre-commit can install (current files, one commit),
    made by the first worker that asks for it."""
    dest = shared / "hookrepo" / "wikigate"
    with open(shared / "hookrepo.lock", "a") as handle:
        oslock.lock(handle.fileno())  # released when the handle closes
        if not (dest / ".git").exists():
            _snapshot(dest)
    return dest, git(dest, "rev-parse", "HEAD").stdout.strip()


def _snapshot(dest: Path) -> None:
    ignore = shutil.ignore_patterns(
        ".git",
        ".venv",
        ".ci",
        "*.egg-info",
        "__pycache__",
        "tests",
        "benchmarks",
        ".pytest_cache",
        ".hypothesis",
        "build",
    )
    making = dest.with_name(f"{dest.name}.{os.getpid()}")  # whole, or not there at all
    shutil.copytree(PROJECT, making, ignore=ignore)
    git(making, "init", "-q", "-b", "main")
    git(making, "add", "-A")
    git(making, "commit", "-qm", "snapshot")
    making.rename(dest)


@pytest.fixture(scope="session")
def pre_commit_home(shared):
    home = shared / "pre-commit-home"  # pre-commit locks its own store while it builds
    home.mkdir(exist_ok=True)
    return home


def hooked_wiki(tmp_path, config: str):
    """A workspace holding a source, with ``config`` as its pre-commit config, installed."""
    ws = Workspace.init(tmp_path / "wiki")
    run = ws.start_run("ingest", "cli:test")
    run.stage_write("raw/birds.txt", SOURCE)
    run.finalize(verify=False)
    ws.close()
    root = tmp_path / "wiki"
    (root / ".pre-commit-config.yaml").write_text(config)
    git(root, "add", ".pre-commit-config.yaml")
    git(root, "commit", "-qm", "pre-commit config")
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"], cwd=root, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    return root


@pytest.fixture
def wiki(tmp_path, hook_repo, pre_commit_home, monkeypatch):
    repo_path, rev = hook_repo
    monkeypatch.setenv("PRE_COMMIT_HOME", str(pre_commit_home))
    return hooked_wiki(
        tmp_path,
        f"repos:\n- repo: {repo_path}\n  rev: {rev}\n  hooks:\n"
        "  - id: wikigate-citations\n  - id: wikigate-links\n",
    )


def page(definition: str) -> str:
    return f"---\ntitle: Owls\n---\n# Owls\n\nOwls hunt at night.[^1]\n\n[^1]: {definition}\n"


def commit(root, files, message="edit"):
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
        git(root, "add", path)
    return subprocess.run(
        ["git", "commit", "-m", message],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ},
    )


def test_bad_quote_blocks_git_commit_with_a_located_message(wiki):
    bad = page('raw/birds.txt — "Owls hunt all day."')
    proc = commit(
        wiki,
        {"wiki/owls.md": bad, "wiki/index.md": "---\ntitle: Index\n---\n# Index\n\n- [[Owls]]\n"},
    )
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert "wiki/owls.md:8: citation.quote_not_found:" in out
    assert git(wiki, "log", "-1", "--format=%s").stdout.strip() == "pre-commit config"


def test_good_commit_passes_and_non_wiki_commit_is_untouched(wiki):
    good = page(format_tail("raw/birds.txt", None, "Owls hunt at night.", 0))
    proc = commit(
        wiki,
        {"wiki/owls.md": good, "wiki/index.md": "---\ntitle: Index\n---\n# Index\n\n- [[Owls]]\n"},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "citation.quote_not_found" not in proc.stdout
    proc = commit(wiki, {"notes/todo.txt": "not a wiki page\n"}, "notes")
    assert proc.returncode == 0
    out = (proc.stdout + proc.stderr).replace(".", "")
    assert out.count("(no files to check)Skipped") == 2


def test_links_hook_checks_the_index_not_the_working_tree(wiki):
    good = page(format_tail("raw/birds.txt", None, "Owls hunt at night.", 0))
    # the staged page links to nothing that exists; the working tree copy would be fine
    (wiki / "wiki").mkdir(exist_ok=True)
    (wiki / "wiki" / "owls.md").write_text(good.replace("# Owls", "# Owls\n\n[[Ravens]]"))
    git(wiki, "add", "wiki/owls.md")
    (wiki / "wiki" / "owls.md").write_text(good)
    proc = subprocess.run(["git", "commit", "-m", "x"], cwd=wiki, capture_output=True, text=True)
    assert proc.returncode != 0
    assert (
        "wiki/owls.md:6: link.broken: [[Ravens]] resolves to no page" in proc.stdout + proc.stderr
    )


def test_hook_paths_never_import_anthropic_or_github(tmp_path):
    code = (
        "import sys, runpy\n"
        "sys.argv = ['wikigate-citations', 'wiki/index.md']\n"
        "from wikigate.hooks import precommit, git_hooks, install, local, server\n"
        "import wikigate.cli\n"
        "try:\n    precommit.citations_main(['wiki/index.md'])\nexcept SystemExit:\n    pass\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('anthropic', 'github'))\n"
        "print('LOADED', bad)\n"
    )
    Workspace.init(tmp_path / "w").close()
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path / "w", capture_output=True, text=True
    )
    assert "LOADED []" in proc.stdout, proc.stdout + proc.stderr


def test_the_readmes_pre_commit_config_works_as_printed(tmp_path, pre_commit_home, monkeypatch):
    """The README's snippet (local hooks running the installed wikigate) blocks a bad quote."""
    from test_docs import readme_block

    monkeypatch.setenv("PRE_COMMIT_HOME", str(pre_commit_home))
    monkeypatch.setenv(
        "PATH", os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])
    )
    root = hooked_wiki(tmp_path, readme_block("## Gates at", "yaml"))
    index = "---\ntitle: Index\n---\n# Index\n\n- [[Owls]]\n"
    proc = commit(
        root, {"wiki/owls.md": page('raw/birds.txt — "Owls hunt all day."'), "wiki/index.md": index}
    )
    assert proc.returncode != 0
    assert "wiki/owls.md:8: citation.quote_not_found:" in proc.stdout + proc.stderr
    good = page(format_tail("raw/birds.txt", None, "Owls hunt at night.", 0))
    proc = commit(root, {"wiki/owls.md": good, "wiki/index.md": index})
    assert proc.returncode == 0, proc.stdout + proc.stderr


MEETINGS = "Minutes. The council met on three occasions in 1901. The mayor resigned.\n"
MET = "The council met on three occasions in 1901."


def test_the_commit_hook_refuses_what_the_push_refuses_for_a_page(wiki):
    """A quote verbatim in its source and a claim that changes its number: the push's
    offline judge refuses it (citation.semantic_conflict, major), and so does git commit."""
    proc = commit(wiki, {"raw/minutes.txt": MEETINGS}, "source")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    tail = format_tail("raw/minutes.txt", None, MET, MEETINGS.index(MET))
    index = "---\ntitle: Index\n---\n# Index\n\n- [[Council]]\n"

    def council(claim: str, heading: str = "Council") -> str:
        return f"---\ntitle: Council\n---\n# {heading}\n\n{claim}[^1]\n\n[^1]: {tail}\n"

    bad = commit(
        wiki,
        {
            # and a zero-width space: every per-page check runs, not only the citations'
            "wiki/council.md": council(
                "The council met on four occasions in 1901.", heading="Coun\u200bcil"
            ),
            "wiki/index.md": index,
        },
    )
    assert bad.returncode != 0
    out = bad.stdout + bad.stderr
    assert "wiki/council.md:8: citation.semantic_conflict: [^1] may not support the claim" in out
    assert "number: claim has [4], quote has [1901, 3]" in out
    assert "wiki/council.md:4: page.invisible_chars:" in out
    assert git(wiki, "log", "-1", "--format=%s").stdout.strip() == "source"
    # what the push would run says the same of the staged change
    ws = Workspace.open(wiki)
    from support.verifying import verify_trees

    from wikigate.gitrepo import commit_at

    head = commit_at(ws.repo, ws.repo.head.target)
    tree = ws.repo.index.write_tree()
    sig = ws.repo.default_signature
    staged = commit_at(ws.repo, ws.repo.create_commit(None, sig, sig, "x", tree, [head.id]))
    pushed = verify_trees(ws.repo, staged, head)
    ws.close()
    assert "citation.semantic_conflict" in {f.code for f in pushed.findings}
    good = commit(
        wiki,
        {
            "wiki/council.md": council("The council met on three occasions in 1901."),
            "wiki/index.md": index,
        },
    )
    assert good.returncode == 0, good.stdout + good.stderr


def test_the_citations_hook_judges_by_mains_rules_not_heads(wiki):
    """A commit past the hooks (--no-verify) turned quote_not_found off in wikigate.toml:
    the page after it is judged by main's rules, as `wikigate verify BRANCH` and the push
    judge it, not by HEAD's (hostile review: it read HEAD's)."""
    git(wiki, "checkout", "-q", "-b", "feature")
    (wiki / "wikigate.toml").write_text('[verifier.severity]\n"citation.quote_not_found" = "off"\n')
    git(wiki, "add", "wikigate.toml")
    git(wiki, "commit", "-q", "--no-verify", "-m", "loosen")
    index = "---\ntitle: Index\n---\n# Index\n\n- [[Owls]]\n"
    proc = commit(
        wiki, {"wiki/owls.md": page('raw/birds.txt — "Owls hunt all day."'), "wiki/index.md": index}
    )
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert "wiki/owls.md:8: citation.quote_not_found:" in proc.stdout + proc.stderr


def test_pre_commits_push_gate_lets_the_adoption_and_an_approved_file_through(
    tmp_path, hook_repo, pre_commit_home, monkeypatch
):
    """Trial 26c F1 with the real pre-commit: wikigate's hooks installed first, then
    pre-commit's (`wikigate-commit`, `wikigate-verify` at pre-push), as docs/adopt.md
    orders them. The setup commit (its `.pre-commit-config.yaml`) and a repository file a
    person approved (`verify approve`) were refused by `wikigate-verify`
    (run.repository_file), so every push needed --no-verify."""
    repo_path, rev = hook_repo
    monkeypatch.setenv("PRE_COMMIT_HOME", str(pre_commit_home))
    config = (
        f"repos:\n- repo: {repo_path}\n  rev: {rev}\n  hooks:\n"
        "  - id: wikigate-commit\n  - id: wikigate-verify\n"
    )
    root = tmp_path / "wiki"
    Workspace.init(root).close()  # a wiki with no run yet: the hooks begin at its tip
    bare = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    git(root, "remote", "add", "origin", str(bare))
    git(root, "push", "-q", "origin", "main")
    (root / ".pre-commit-config.yaml").write_text(config)
    git(root, "add", ".pre-commit-config.yaml")
    git(root, "commit", "-qm", "pre-commit config")  # the setup commit, before any hook

    def wg(*args):
        from support.helpers import in_process

        return in_process(["-C", str(root), *args])

    assert wg("hooks", "install").returncode == 0
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install", "-t", "pre-commit", "-t", "pre-push"],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr

    def pushed():
        return subprocess.run(
            ["git", "push", "origin", "main"], cwd=root, capture_output=True, text=True
        )

    first = pushed()  # the setup commit: before where the hooks begin
    assert first.returncode == 0, first.stdout + first.stderr
    assert "wikigate verify" in first.stdout + first.stderr  # pre-commit ran it
    assert "wikigate commit" not in first.stdout + first.stderr  # a commit's hook, not a push's

    run_id = wg("run", "start", "--type", "cascade", "--triggered-by", "cli:t").stdout.strip()
    (tmp_path / "gi").write_text(".trash/\n")
    assert wg("run", "write", run_id, ".gitignore", "--from", str(tmp_path / "gi")).returncode == 0
    assert wg("run", "finalize", run_id).returncode == 5
    assert wg("verify", "approve", run_id, "--reason", "ignore the trash").returncode == 0
    second = pushed()
    assert second.returncode == 0, second.stdout + second.stderr
    assert git(bare, "rev-parse", "main").stdout == git(root, "rev-parse", "main").stdout
