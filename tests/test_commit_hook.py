"""``wikigate-commit``: the citations and the links checks in one pre-commit hook process,
staged deletions included; driven by the real `pre-commit` (tests/test_precommit.py's
fixtures)."""

from __future__ import annotations

import re
import subprocess

import pytest
from support.helpers import gated_server, git, push
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

# real pre-commit runs: the hook environment is a pip install of this project, built once
# a run (tests/README.md: the slow tier)
pytestmark = pytest.mark.slow

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
    # with the links to it gone, the deletion is still what the push refuses: the page
    # holds a cited claim (only an archive run may delete one)
    for path, text in {
        "wiki/larks.md": LARKS.replace("See [[Owls]].", "Larks sing."),
        "wiki/index.md": INDEX.replace("- [[Owls]]\n", ""),
    }.items():
        (wiki / path).write_text(text)
        git(wiki, "add", path)
    proc = subprocess.run(
        ["git", "commit", "-m", "drop owls"], cwd=wiki, capture_output=True, text=True
    )
    assert proc.returncode != 0, proc.stdout + proc.stderr
    out = proc.stdout + proc.stderr
    assert "link.broken" not in out
    assert (
        "wiki/owls.md: run.convergence: the run deletes wiki/owls.md, which holds 1 cited claims"
        in out
    )


def test_a_new_source_passes_and_a_file_outside_wiki_and_raw_is_refused(wiki):
    proc = commit(wiki, {"raw/minutes.txt": "The council met.\n"}, "source")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert git(wiki, "log", "-1", "--format=%s").stdout.strip() == "source"
    # the push asks a person (run.repository_file): so does the commit, though it stages
    # no page
    proc = commit(wiki, {"notes/todo.txt": "not a wiki page\n"}, "notes")
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert (
        "notes/todo.txt: run.repository_file: the run adds the repository file notes/todo.txt, "
        "outside the wiki (wiki/) and raw/; a person decides" in proc.stdout + proc.stderr
    )
    assert git(wiki, "log", "-1", "--format=%s").stdout.strip() == "source"


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


# ------------------------------------------- as strict as the push (issue 24's last item)


def found_lines(out: str) -> list[str]:
    """The ``path[:line]: code: message`` lines of a hook's or a refused push's output."""
    lines = [ln.removeprefix("remote:").strip() for ln in out.splitlines()]
    return [ln for ln in lines if re.match(r"^\S+: [a-z]+\.[a-z_]+: ", ln)]


@pytest.fixture
def served(wiki, tmp_path):
    """The hooked wiki with owls (one cited claim) and the index committed, pushed to a
    gated server (its origin, fetched: ``origin/main`` is what the push is judged against)."""
    proc = commit(wiki, {"wiki/owls.md": good_owls(), "wiki/index.md": OWLS_INDEX}, "owls")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    bare = gated_server(wiki, tmp_path)
    git(wiki, "remote", "add", "origin", str(bare))
    git(wiki, "fetch", "-q", "origin")
    return wiki


OWLS_INDEX = INDEX.replace("- [[Larks]]\n", "")
LOOSE = '[verifier.severity]\n"citation.quote_not_found" = "off"\n'


def commit_refused_as_pushed(root, stage, how=(), message="change") -> list[str]:
    """``stage(root)`` then `git commit [how]`: refused, as the push of the same commit
    (made past the hook) is, with the same finding lines. Returns those lines."""
    stage(root)
    proc = subprocess.run(
        ["git", "commit", "-m", message, *how], cwd=root, capture_output=True, text=True
    )
    assert proc.returncode != 0, proc.stdout + proc.stderr
    refused = found_lines(proc.stdout + proc.stderr)
    assert refused, proc.stdout + proc.stderr
    assert git(root, "log", "-1", "--format=%s").stdout.strip() != message
    git(root, "commit", "-q", "--no-verify", "-m", message, *how)  # past the hook: the push
    pushed = push(root, "origin", "main")
    assert pushed.returncode != 0, pushed.stdout + pushed.stderr
    assert set(refused) <= set(found_lines(pushed.stderr)), pushed.stderr
    return refused


def write(root, path, text):
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(text)


def test_a_rules_change_is_refused_and_pages_are_judged_by_the_pushed_rules(served):
    """The hook read HEAD's rules: a commit loosening wikigate.toml, then a page relying on
    it, both passed `git commit`; the push refuses both (hostile review)."""
    write(served, "wikigate.toml", LOOSE)
    git(served, "add", "wikigate.toml")
    proc = subprocess.run(
        ["git", "commit", "-m", "loosen"], cwd=served, capture_output=True, text=True
    )
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert found_lines(proc.stdout + proc.stderr) == [
        "wikigate.toml: run.rules_change: the run changes the rules (wikigate.toml): "
        'verifier.severity.citation.quote_not_found: (unset: "critical") → "off"; a person decides'
    ]
    git(served, "commit", "-q", "--no-verify", "-m", "loosen")  # HEAD: the loosened rules

    def bad_quote(root):
        write(root, "wiki/owls.md", page('raw/birds.txt — "Owls hunt all day."'))
        git(root, "add", "wiki/owls.md")

    refused = commit_refused_as_pushed(served, bad_quote)
    assert [ln.split(": ")[1] for ln in refused] == ["citation.quote_not_found"]
    assert refused[0].startswith("wiki/owls.md:8: ")


@pytest.mark.parametrize("trunk", ["main", "master"])
def test_the_rules_are_the_remotes_whatever_it_and_its_trunk_are_called(wiki, tmp_path, trunk):
    """A remote not named origin, pushed without -u (main); a clone that was never told its
    trunk is master (only the remote's HEAD says so): the hook judged by the local branch,
    an unpushed rules loosening on it, and passed what the push refuses (hostile review)."""
    proc = commit(wiki, {"wiki/owls.md": good_owls(), "wiki/index.md": OWLS_INDEX}, "owls")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    if trunk != "main":
        git(wiki, "branch", "-m", "main", trunk)
    bare = gated_server(wiki, tmp_path)
    git(wiki, "remote", "add", "server", str(bare))
    git(wiki, "fetch", "-q", "server")
    git(wiki, "remote", "set-head", "server", "--auto")
    write(wiki, "wikigate.toml", LOOSE)
    git(wiki, "add", "wikigate.toml")
    git(wiki, "commit", "-q", "--no-verify", "-m", "loosen")  # unpushed
    proc = commit(wiki, {"wiki/owls.md": page('raw/birds.txt — "Owls hunt all day."')})
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert "wiki/owls.md:8: citation.quote_not_found:" in proc.stdout + proc.stderr


def test_a_remotes_default_branch_beats_a_stale_branch_named_main(served):
    """A server whose trunk is `trunk` (its HEAD) tightened its rules there; its old
    `main` stopped before. A clone never told its trunk judged a commit on trunk by the
    fork point with the stale origin/main, the loose rules, and passed what the push to
    trunk refuses (hostile review)."""
    bare = git(served, "remote", "get-url", "origin").stdout.strip()
    strict = (served / "wikigate.toml").read_text()
    write(served, "wikigate.toml", LOOSE)
    git(served, "add", "wikigate.toml")
    git(served, "commit", "-q", "--no-verify", "-m", "loose: where main stopped")
    assert push(served, "origin", "HEAD:refs/heads/landing").returncode == 0
    stale = git(served, "rev-parse", "HEAD").stdout.strip()
    git(bare, "update-ref", "refs/heads/main", stale)  # as an admin, past the gate
    git(served, "checkout", "-q", "-b", "trunk")
    write(served, "wikigate.toml", strict)
    git(served, "add", "wikigate.toml")
    git(served, "commit", "-q", "--no-verify", "-m", "strict again, on the real trunk")
    assert push(served, "origin", "trunk").returncode == 0
    git(bare, "symbolic-ref", "HEAD", "refs/heads/trunk")
    git(served, "fetch", "-q", "origin")
    git(served, "remote", "set-head", "origin", "--auto")
    proc = commit(served, {"wiki/owls.md": page('raw/birds.txt — "Owls hunt all day."')})
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert "wiki/owls.md:8: citation.quote_not_found:" in proc.stdout + proc.stderr


def test_without_a_remote_the_rules_are_the_local_mains(wiki):
    """No upstream: a branch is judged by the rules of its merge-base with main, as
    `wikigate verify BRANCH` and a pull request are."""
    git(wiki, "checkout", "-q", "-b", "feature")
    write(wiki, "wikigate.toml", LOOSE)
    git(wiki, "add", "wikigate.toml")
    git(wiki, "commit", "-q", "--no-verify", "-m", "loosen")
    proc = commit(wiki, {"wiki/owls.md": page('raw/birds.txt — "Owls hunt all day."')})
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert "wiki/owls.md:8: citation.quote_not_found:" in proc.stdout + proc.stderr


@pytest.mark.parametrize(
    ("stage", "how", "expected"),
    [
        (
            lambda root: write(root, "raw/birds.txt", "Owls hunt by day.\n"),
            ["-a"],
            "raw/birds.txt: run.raw_write: the run modifies the raw source raw/birds.txt; "
            "raw sources are immutable",
        ),
        (
            lambda root: (root / "raw/birds.txt").unlink(),
            ["--", "raw/birds.txt"],
            "raw/birds.txt: run.raw_write: the run deletes or renames the raw source raw/birds.txt",
        ),
        (
            lambda root: (write(root, "raw/minutes:1901.txt", "Met.\n"), git(root, "add", "raw")),
            [],
            "raw/minutes:1901.txt: tree.unportable: raw/minutes:1901.txt: 'minutes:1901.txt' "
            "holds :, which Windows file names cannot",
        ),
        (
            lambda root: (
                git(root, "mv", "wiki/owls.md", "wiki/strigidae.md"),
                write(root, "wiki/index.md", OWLS_INDEX.replace("[[Owls]]", "[[strigidae]]")),
                git(root, "add", "wiki/index.md"),
            ),
            [],
            "wiki/owls.md: run.convergence: the run deletes wiki/owls.md, which holds 1 cited "
            "claims",
        ),
    ],
    ids=["raw edited (commit -a)", "raw deleted (commit PATH)", "unportable path", "rename"],
)
def test_what_the_push_refuses_of_the_tree_is_refused_at_commit(served, stage, how, expected):
    """A raw source edited or deleted, a path a Windows clone cannot check out, a cited
    page renamed (its claims' ids hold its path): the push refused them and `git commit`
    passed them; the hook now says so, in the push's words."""
    assert expected in commit_refused_as_pushed(served, stage, how)


def larks(claim: str) -> str:
    """The larks page citing ``claim``, verbatim, from the source."""
    tail = format_tail("raw/birds.txt", None, claim, SOURCE.index(claim))
    return f"---\ntitle: Larks\n---\n# Larks\n\n{claim}[^1]\n\n[^1]: {tail}\n"


def test_what_no_push_has_landed_yet_may_still_change(served):
    """The hook compares with HEAD, the push with the remote's main: a claim or a source an
    unpushed commit added is not on main yet (run.convergence and run.raw_write are about
    what main holds), and the hook lets this commit change it, as the push does; once
    pushed, it refuses."""
    first, second = "Larks sing at dawn.", "Owls hunt at night."
    proc = commit(
        served,
        {"wiki/larks.md": larks(first), "wiki/index.md": INDEX, "raw/minutes.txt": "Met.\n"},
        "larks",
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = commit(
        served, {"wiki/larks.md": larks(second), "raw/minutes.txt": "Met twice.\n"}, "again"
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    pushed = push(served, "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    git(served, "fetch", "-q", "origin")
    refused = commit_refused_as_pushed(
        served, lambda root: commit_stage(root, "wiki/larks.md", larks(first))
    )
    assert refused == [
        "wiki/larks.md:6: run.convergence: the cited claim 'Owls hunt at night.' "
        "(raw/birds.txt) was removed or altered"
    ]


def commit_stage(root, path, text):
    write(root, path, text)
    git(root, "add", path)


def test_the_commit_hook_verifies_once(tmp_path, monkeypatch):
    """wikigate-commit verified twice (the pages' checks under the rules' preset, the
    links at SKEPTICAL), opening the staged tree twice: one verification now."""
    from wikigate import verify as verify_module
    from wikigate.hooks import precommit
    from wikigate.workspace import Workspace

    ws = Workspace.init(tmp_path / "w")
    root = ws.root
    ws.close()
    write(root, "raw/birds.txt", SOURCE)
    write(root, "wiki/owls.md", good_owls())
    write(root, "wiki/index.md", OWLS_INDEX.replace("[[Owls]]", "[[Owls]] [[Ravens]]"))
    git(root, "add", "-A")
    calls = []
    real = verify_module.verify
    monkeypatch.setattr(verify_module, "verify", lambda r, **k: calls.append(r) or real(r, **k))
    monkeypatch.chdir(root)
    assert precommit.commit_main(["wiki/owls.md", "wiki/index.md"]) == 1
    assert len(calls) == 1
    assert calls[0].judge == "offline"
    # every check the push runs but two (docs/hooks.md's table says why)
    from wikigate.verifier.checks import CHECKS

    assert calls[0].only == {c.name for c in CHECKS} - {"coverage", "direction"}


def test_a_merge_of_the_remotes_main_is_judged_against_it(served, tmp_path):
    """A conflicted merge of origin/main is committed through the hook: what main brought
    (a rules change landed by override, its pages) is not this commit's to answer for;
    the hook compared the merge with HEAD and refused main's own rules change."""
    bare = git(served, "remote", "get-url", "origin").stdout.strip()
    other = tmp_path / "colleague"
    git(tmp_path, "clone", "-q", bare, str(other))
    write(other, "wikigate.toml", '[verifier.severity]\n"page.orphan" = "minor"\n')
    write(other, "wiki/index.md", OWLS_INDEX + "\nThe index of birds.\n")
    git(other, "add", "-A")
    git(other, *ID, "commit", "-qm", "rules, landed by override")
    # an admin lands it past the gate (as an override would): other refs push at once
    assert push(other, "origin", "HEAD:refs/heads/landing").returncode == 0
    git(bare, "update-ref", "refs/heads/main", git(other, "rev-parse", "HEAD").stdout.strip())
    proc = commit(served, {"wiki/index.md": OWLS_INDEX + "\nBirds of the town.\n"}, "mine")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    git(served, "fetch", "-q", "origin")
    assert git(served, *ID, "merge", "origin/main", check=False).returncode != 0  # a conflict
    write(served, "wiki/index.md", OWLS_INDEX + "\nThe index of birds of the town.\n")
    git(served, "add", "wiki/index.md")
    proc = subprocess.run(
        ["git", *ID, "commit", "--no-edit"], cwd=served, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert git(served, "rev-list", "--count", "--merges", "-1", "HEAD").stdout.strip() == "1"
    pushed = push(served, "origin", "main")
    assert pushed.returncode == 0, pushed.stderr


ID = ("-c", "user.name=tester", "-c", "user.email=tester@example.com")
