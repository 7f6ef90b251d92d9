"""``wikigate doctor``: says what is installed and set up and what is not, each with its
fix, and exits 0 only when all is well; it changes nothing. Real workspaces, real hooks,
a real bare remote; a missing extra is simulated as Python sees one
(``sys.modules[name] = None``)."""

from __future__ import annotations

import json
import sys

from support.fixtures import initialised_repo  # noqa: F401  (the `repo` fixture)
from support.helpers import git, state, wikigate

from wikigate.gitrepo import ADOPTED_KEY


def _doctor(repo, *args, env=None):
    return wikigate(repo, "doctor", *args, env=env)


def _failed(proc) -> dict[str, str]:
    checks = json.loads(proc.stdout)
    return {c["name"]: c["fix"] for c in checks if not c["ok"]}


def _commit(repo, path: str, data: bytes | str, message: str) -> None:
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data.encode() if isinstance(data, str) else data)
    git(repo, "add", path)
    git(repo, "-c", "core.hooksPath=/dev/null", "commit", "-qm", message)
    # a setup commit: the hooks begin after it (a push would refuse a commit past them)
    git(repo, "config", ADOPTED_KEY, git(repo, "rev-parse", "HEAD").stdout.strip())


def test_a_fresh_workspace_needs_its_hooks_then_all_is_well(repo):
    before = state(repo)
    proc = _doctor(repo)
    assert proc.returncode == 1
    assert "FAIL  hook pre-push: " in proc.stdout and "is not installed" in proc.stdout
    assert "      fix: wikigate hooks install" in proc.stdout
    assert proc.stdout.rstrip().endswith("2 to fix")
    assert "ok    python: Python 3." in proc.stdout
    assert "ok    branch: main at " in proc.stdout
    assert "ok    judge: offline (no API key needed)" in proc.stdout
    assert state(repo) == before  # doctor changes nothing
    assert wikigate(repo, "hooks", "install").returncode == 0
    well = _doctor(repo)
    assert well.returncode == 0, well.stdout
    assert well.stdout.rstrip().endswith("all is well")


def test_a_clone_without_the_notes_refspec_and_a_remote_without_the_gate(repo, tmp_path):
    bare = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(bare), str(clone))
    proc = _doctor(clone, "--format", "json")
    assert proc.returncode == 1
    failed = _failed(proc)
    assert failed["notes from origin"] == "wikigate hooks install (adds the refspec)"
    assert failed["server gate (origin)"] == f"wikigate hooks install --server {bare}"
    assert wikigate(clone, "hooks", "install").returncode == 0
    assert wikigate(clone, "hooks", "install", "--server", str(bare)).returncode == 0
    well = _doctor(clone)
    assert well.returncode == 0, well.stdout
    assert "ok    notes from origin: fetch +refs/notes/wikigate*:refs/wikigate/origin/notes*" in (
        well.stdout
    )


def test_the_anthropic_judge_needs_its_key_and_its_extra(repo, monkeypatch):
    assert wikigate(repo, "hooks", "install").returncode == 0
    toml = (
        (repo / "wikigate.toml")
        .read_text()
        .replace('provider = "offline"', 'provider = "anthropic"')
    )
    _commit(repo, "wikigate.toml", toml, "the LLM judge")
    no_key = _doctor(repo, "--format", "json", env={"ANTHROPIC_API_KEY": ""})
    assert no_key.returncode == 1
    assert _failed(no_key) == {
        "judge": 'export ANTHROPIC_API_KEY=… (a secret in CI), or [judge] provider = "offline"'
    }
    assert _doctor(repo, env={"ANTHROPIC_API_KEY": "sk-ant-x"}).returncode == 0
    monkeypatch.setitem(sys.modules, "anthropic", None)
    no_sdk = _doctor(repo, "--format", "json", env={"ANTHROPIC_API_KEY": "sk-ant-x"})
    assert _failed(no_sdk) == {"extra anthropic": "pip install 'wikigate[anthropic]'"}


def test_a_pdf_source_needs_the_pdf_extra_and_an_unneeded_extra_is_optional(repo, monkeypatch):
    assert wikigate(repo, "hooks", "install").returncode == 0
    monkeypatch.setitem(sys.modules, "pypdf", None)
    monkeypatch.setitem(sys.modules, "github", None)
    optional = _doctor(repo)
    assert optional.returncode == 0, optional.stdout
    assert (
        "ok    extra pdf: pypdf not installed (optional: pip install 'wikigate[pdf]')"
        in optional.stdout
    )
    assert "ok    extra github: PyGithub not installed (optional" in optional.stdout
    _commit(repo, "raw/papers/a.PDF", b"%PDF-1.4\n", "a PDF source")
    needed = _doctor(repo)
    assert needed.returncode == 1
    assert "FAIL  extra pdf: pypdf is not installed, and raw/ on main holds a PDF" in needed.stdout
    assert "      fix: pip install 'wikigate[pdf]'" in needed.stdout


def test_outside_a_repository_and_without_main(tmp_path):
    proc = _doctor(tmp_path)
    assert proc.returncode == 1
    assert f"FAIL  repository: {tmp_path} is not in a git repository" in proc.stdout
    assert "fix: wikigate init" in proc.stdout
    git(tmp_path, "init", "-q", "-b", "master")
    git(tmp_path, "commit", "-q", "--allow-empty", "-m", "vault")
    on_master = _doctor(tmp_path, "--format", "json")
    assert on_master.returncode == 1
    assert "branch" in _failed(on_master)


def test_a_wiki_without_its_index_is_no_well_wiki(repo):
    """Trial 26b N6: after `[wiki] root` moved to "." with no index.md at the root, doctor
    said `ok wiki` while every page was an orphan."""
    assert wikigate(repo, "hooks", "install").returncode == 0
    toml = (repo / "wikigate.toml").read_text() + '\n[wiki]\nroot = "."\n'
    _commit(repo, "wikigate.toml", toml, "pages at the root")
    proc = _doctor(repo)
    assert proc.returncode == 1
    assert "FAIL  wiki: main has no index.md, where the orphan check starts" in proc.stdout
    assert "fix: add index.md linking the pages, through a run" in proc.stdout


def test_with_no_remote_doctor_counts_the_commits_a_push_refuses(repo):
    """Trial 28b N8: a commit that bypassed the hooks (`core.hooksPath`) was refused by a
    push to a bare path, while doctor said all was well: with no remote configured it
    counts the trunk's commits since the hooks began, as any push would."""
    assert wikigate(repo, "hooks", "install").returncode == 0
    assert _doctor(repo).returncode == 0
    (repo / "wiki" / "bypass.md").write_text("# Bypass\n")
    git(repo, "add", "wiki/bypass.md")
    git(repo, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "bypass")
    proc = _doctor(repo, "--format", "json")
    assert proc.returncode == 1
    failed = _failed(proc)
    assert list(failed) == ["push main to a remote (none is configured)"], failed
    checks = {c["name"]: c for c in json.loads(proc.stdout)}
    assert "1 commit(s) on main without a run note" in checks[list(failed)[0]]["detail"]
