"""``wikigate-commit``: the citations and the links checks in one pre-commit hook process,
staged deletions included; driven by the real `pre-commit` (tests/test_precommit.py's
fixtures)."""

from __future__ import annotations

import subprocess

import pytest
from support.helpers import git
from test_precommit import (  # noqa: F401 - the fixtures hook_repo, pre_commit_home, shared
    SOURCE,
    commit,
    hook_repo,
    hooked_wiki,
    page,
    pre_commit_home,
    shared,
)

from wikigate.verifier.citation import format_tail

INDEX = "---\ntitle: Index\n---\n# Index\n\n- [[Owls]]\n- [[Larks]]\n"
LARKS = (
    "---\ntitle: Larks\n---\n# Larks\n\nSee [[Owls]].\n\nLarks sing at dawn.[^1]\n\n[^1]: "
    + format_tail("raw/birds.txt", None, "Larks sing at dawn.", SOURCE.index("Larks"))
    + "\n"
)


@pytest.fixture
def wiki(tmp_path, hook_repo, pre_commit_home, monkeypatch):  # noqa: F811
    repo_path, rev = hook_repo
    monkeypatch.setenv("PRE_COMMIT_HOME", str(pre_commit_home))
    return hooked_wiki(
        tmp_path,
        f"repos:\n- repo: {repo_path}\n  rev: {rev}\n  hooks:\n  - id: wikigate-commit\n",
    )


def good_owls() -> str:
    return page(format_tail("raw/birds.txt", None, "Owls hunt at night.", 0))


def test_one_hook_refuses_a_bad_quote_and_a_broken_link_in_one_run(wiki):
    bad = page('raw/birds.txt — "Owls hunt all day."').replace("# Owls", "# Owls\n\n[[Ravens]]")
    proc = commit(wiki, {"wiki/owls.md": bad, "wiki/index.md": INDEX.replace("- [[Larks]]\n", "")})
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert "wiki/owls.md:10: citation.quote_not_found:" in out
    assert "wiki/owls.md:6: link.broken: [[Ravens]] resolves to no page" in out
    assert out.count("wikigate commit") == 1  # one hook, one process
    assert git(wiki, "log", "-1", "--format=%s").stdout.strip() == "pre-commit config"


def test_deleting_a_linked_page_is_refused_at_commit(wiki):
    """pre-commit passes no file for a deletion: the hook reads the index itself."""
    proc = commit(
        wiki, {"wiki/owls.md": good_owls(), "wiki/larks.md": LARKS, "wiki/index.md": INDEX}
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    git(wiki, "rm", "-q", "wiki/owls.md")
    proc = subprocess.run(
        ["git", "commit", "-m", "drop owls"], cwd=wiki, capture_output=True, text=True
    )
    assert proc.returncode != 0, proc.stdout + proc.stderr
    out = proc.stdout + proc.stderr
    assert "wiki/larks.md:6: link.broken: [[Owls]] resolves to no page" in out
    assert "wiki/index.md:6: link.broken: [[Owls]] resolves to no page" in out
    assert git(wiki, "log", "-1", "--format=%s").stdout.strip() == "edit"
    # deleting it with the links to it passes
    for path, text in {
        "wiki/larks.md": LARKS.replace("See [[Owls]].", "Larks sing."),
        "wiki/index.md": INDEX.replace("- [[Owls]]\n", ""),
    }.items():
        (wiki / path).write_text(text)
        git(wiki, "add", path)
    proc = subprocess.run(
        ["git", "commit", "-m", "drop owls"], cwd=wiki, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_commit_without_wiki_pages_passes(wiki):
    proc = commit(wiki, {"notes/todo.txt": "not a wiki page\n"}, "notes")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert git(wiki, "log", "-1", "--format=%s").stdout.strip() == "notes"


def test_staged_changes_reads_deletions_and_renames_from_the_index(tmp_path):
    from wikigate.gitrepo import open_repo
    from wikigate.hooks.precommit import _staged, staged_changes

    root = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", str(root))
    (root / "wiki").mkdir()
    for name in ("a", "b", "c"):
        (root / "wiki" / f"{name}.md").write_text(f"# {name}\n")
    (root / "notes.txt").write_text("n\n")
    repo = open_repo(root)
    git(root, "add", "-A")
    assert staged_changes(*_staged(repo)) == (["wiki/a.md", "wiki/b.md", "wiki/c.md"], [])
    git(root, "commit", "-qm", "pages")
    git(root, "rm", "-q", "wiki/a.md", "notes.txt")
    git(root, "mv", "wiki/b.md", "wiki/d.md")
    (root / "wiki" / "c.md").write_text("# c, edited\n")
    git(root, "add", "wiki/c.md")
    assert staged_changes(*_staged(repo)) == (
        ["wiki/c.md", "wiki/d.md"],
        ["wiki/a.md", "wiki/b.md"],
    )


@pytest.mark.parametrize("how", [["-a"], ["--", "wiki/owls.md"]], ids=["commit -a", "commit PATH"])
def test_a_commit_of_a_temporary_index_is_checked_too(wiki, how):
    """``git commit -a`` and ``git commit PATH`` commit a temporary index that git names
    in $GIT_INDEX_FILE; the hook read .git/index and passed them (hostile review)."""
    proc = commit(
        wiki, {"wiki/owls.md": good_owls(), "wiki/index.md": INDEX.replace("- [[Larks]]\n", "")}
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (wiki / "wiki/owls.md").write_text(page('raw/birds.txt — "Owls hunt all day."'))  # not added
    proc = subprocess.run(
        ["git", "commit", "-m", "unstaged edit", *how], cwd=wiki, capture_output=True, text=True
    )
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert "wiki/owls.md:8: citation.quote_not_found:" in proc.stdout + proc.stderr
    assert git(wiki, "log", "-1", "--format=%s").stdout.strip() == "edit"
