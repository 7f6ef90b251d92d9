"""Holes a hostile writer found in the gate: malformed trees, files under wiki/ that are no
pages, multi-paragraph citation footnotes, finding floods, submodules under raw/, and a
rewritten log. Each is refused in every verification, the server gate included."""

from __future__ import annotations

import subprocess
import time

import pygit2
import pytest
from support.helpers import gated_server, git, in_process, push
from support.trees import LINK, _with_mode, at, commit_files, no_errors
from support.verifying import verify_trees
from support.wiki_runs import cited_page, fabricated_page, page_run

from wikigate.config import Config
from wikigate.verifier.citation import format_tail
from wikigate.verifier.entries import WalkMemo, walk
from wikigate.workspace import Workspace

NOTES = "Minutes of the meeting.\nThe committee rejected the plan by seven votes to two.\n"
QUOTE = "The committee rejected the plan by seven votes to two."
INDEX = "---\ntitle: Index\n---\n# Index\n\n- [[Notes]]\n"
LOG = "---\ntitle: Log\n---\n# Log\n\n- 2026-01-01 started\n"


def good_notes() -> str:
    tail = format_tail("raw/notes.txt", None, QUOTE, NOTES.index(QUOTE))
    return f"---\ntitle: Notes\n---\n# Notes\n\n{QUOTE}[^1]\n\n[^1]: {tail}\n"


@pytest.fixture
def base(repo):
    files = {
        "raw/notes.txt": NOTES,
        "wiki/index.md": INDEX,
        "wiki/log.md": LOG,
        "wiki/notes.md": good_notes(),
    }
    return commit_files(repo, None, files)


def verify(repo, base, tip, *, lint=False):
    return verify_trees(repo, tip, None if lint else base, config=Config())


# ---------------------------------------------------------------- 1. malformed trees


def raw_tree(entries: list[tuple[bytes, bytes, pygit2.Oid]]) -> bytes:
    """A tree object's bytes, in the order given: no sorting, no dedup, no name checks."""
    return b"".join(mode + b" " + name + b"\0" + oid.raw for mode, name, oid in entries)


def entries_of(tree: pygit2.Tree) -> list[tuple[bytes, bytes, pygit2.Oid]]:
    return [(f"{e.filemode:o}".encode(), e.name.encode(), e.id) for e in tree]


def with_wiki(repo, base, wiki: list[tuple[bytes, bytes, pygit2.Oid]]) -> pygit2.Commit:
    """``base`` with its wiki/ tree replaced by a hand-built one (`hash-object --literally`)."""
    wiki_id = repo.odb.write(pygit2.enums.ObjectType.TREE, raw_tree(wiki))
    root = [e for e in entries_of(base.tree) if e[1] != b"wiki"]
    root.append((b"40000", b"wiki", wiki_id))
    root.sort(key=lambda e: e[1] + (b"/" if e[0] == b"40000" else b""))
    root_id = repo.odb.write(pygit2.enums.ObjectType.TREE, raw_tree(root))
    sig = pygit2.Signature("t", "t@example.invalid")
    return repo[repo.create_commit(None, sig, sig, "hostile\n", root_id, [base.id])]


def fake_notes(repo) -> pygit2.Oid:
    tail = format_tail("raw/notes.txt", None, "the committee was bribed", None)
    return repo.create_blob(f"# Notes\n\nThe committee was bribed.[^1]\n\n[^1]: {tail}\n")


def test_a_duplicate_page_entry_is_refused_and_the_entry_git_reads_is_verified(repo, base):
    wiki = entries_of(repo[base.tree["wiki"].id])
    notes = next(i for i, e in enumerate(wiki) if e[1] == b"notes.md")
    good = wiki[notes]
    wiki[notes : notes + 1] = [(b"100644", b"notes.md", fake_notes(repo)), good]
    tip = with_wiki(repo, base, wiki)
    for report in (verify(repo, base, tip), verify(repo, base, tip, lint=True)):
        no_errors(report)
        malformed = at(report, "tree.malformed")
        assert [(f.severity, f.path) for f in malformed] == [("critical", "wiki/notes.md")]
        assert "twice" in malformed[0].message
        # the page checked is the one git serves (the first), not the last one listed
        assert at(report, "citation.quote_not_found")
        assert report.verdict == "reject"


def test_a_walk_that_reuses_its_bases_subtrees_reads_what_a_fresh_walk_reads(repo, base):
    """A run's tree is walked with its base's subtrees remembered (by tree id and place):
    a malformed subtree reused at a second place is reported at both, exactly as a walk
    with nothing remembered reports it."""
    wiki = entries_of(repo[base.tree["wiki"].id])
    notes = next(e for e in wiki if e[1] == b"notes.md")
    twice = repo.odb.write(
        pygit2.enums.ObjectType.TREE, raw_tree([notes, (b"100644", b"notes.md", fake_notes(repo))])
    )
    one = with_wiki(repo, base, [*wiki, (b"40000", b"x", twice)])
    two = with_wiki(repo, base, [*wiki, (b"40000", b"x", twice), (b"40000", b"y", twice)])
    memo = WalkMemo()
    walk(repo, one.tree_id, memo)
    remembered = walk(repo, two.tree_id, memo)
    fresh = walk(repo, two.tree_id)
    assert remembered.entries == fresh.entries
    assert sorted(remembered.problems) == sorted(fresh.problems)
    assert sorted(path for path, _ in fresh.problems) == ["wiki/x/notes.md", "wiki/y/notes.md"]
    assert fresh.entries["wiki/y/notes.md"].oid == str(notes[2])  # git reads the first
    report = verify(repo, one, two)  # the shared memo inside one verification, too
    assert sorted(f.path for f in at(report, "tree.malformed")) == [
        "wiki/x/notes.md",
        "wiki/y/notes.md",
    ]


@pytest.mark.parametrize(
    ("name", "why"),
    [
        (b"..", "'..'"),
        (b".", "'.'"),
        (b".git", ".git"),
        (b".GiT", ".git"),
        (b"", "empty name"),
        (b"a/b.md", "'/'"),
        (b"\xff.md", "not UTF-8"),
        (b"a\n::warning ::x.md", "control or line-separator character"),
        (b"tab\there.md", "control or line-separator character"),
        (b"del\x7f.md", "control or line-separator character"),
        ("nel\u0085.md".encode(), "control or line-separator character"),
        ("ls\u2028.md".encode(), "control or line-separator character"),
        ("ps\u2029.md".encode(), "control or line-separator character"),
        (b"\x1b[31mred.md", "control or line-separator character"),
    ],
)
def test_a_tree_entry_git_would_refuse_is_critical_and_located(repo, base, name, why):
    wiki = entries_of(repo[base.tree["wiki"].id])
    blob = repo.create_blob(b"# Whatever\n")
    wiki.insert(0, (b"100644", name, blob))
    tip = with_wiki(repo, base, wiki)
    for report in (verify(repo, base, tip), verify(repo, base, tip, lint=True)):
        no_errors(report)
        malformed = at(report, "tree.malformed")
        assert len(malformed) == 1 and malformed[0].severity == "critical", report.findings
        assert malformed[0].path.startswith("wiki/") and why in malformed[0].message
        assert report.verdict == "reject"
        shown = f"{malformed[0].path} {malformed[0].message}"  # one line, nothing invisible
        assert shown.isprintable() and "\x85" not in shown


def test_an_unsorted_tree_is_critical(repo, base):
    wiki = entries_of(repo[base.tree["wiki"].id])
    tip = with_wiki(repo, base, wiki[::-1])
    report = verify(repo, base, tip)
    no_errors(report)
    malformed = at(report, "tree.malformed")
    assert malformed and all("out of order" in f.message for f in malformed)
    assert report.verdict == "reject"


def test_a_well_formed_tree_has_no_tree_findings(repo, base):
    tip = commit_files(repo, base.id, {"wiki/notes.md": good_notes() + "\nMore text.\n"})
    report = verify(repo, base, tip)
    no_errors(report)
    assert not at(report, "tree.malformed") and report.verdict == "commit", report.findings


def main_of(path) -> str:
    return git(path, "rev-parse", "main").stdout.strip()


@pytest.fixture
def server(tmp_path):
    """A client workspace with one verified run and a bare server with the wikigate gate;
    the server's own fsck is off, so that the gate alone is tested."""
    ws = Workspace.init(tmp_path / "client")
    assert page_run(ws, "owls").status == "committed"
    bare = gated_server(ws.root, tmp_path)
    git(ws.root, "remote", "add", "origin", str(bare))
    git(bare, "config", "receive.fsckObjects", "false")
    yield ws, bare
    ws.close()


def hand_built(ws, wiki_entries) -> str:
    """A commit on main whose wiki/ tree is written with `git hash-object --literally`."""
    root = ws.root
    lines = []
    for mode, name, oid in wiki_entries:
        lines.append(mode + b" " + name + b"\0" + oid.raw)
    wiki = subprocess.run(
        ["git", "-C", str(root), "hash-object", "-t", "tree", "--literally", "-w", "--stdin"],
        input=b"".join(lines),
        capture_output=True,
        check=True,
    ).stdout.decode()
    listing = git(root, "ls-tree", "main").stdout.splitlines()
    rows = [ln for ln in listing if not ln.endswith("\twiki")] + [
        f"040000 tree {wiki.strip()}\twiki"
    ]
    tree = subprocess.run(
        ["git", "-C", str(root), "mktree"],
        input="\n".join(rows) + "\n",
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return git(root, "commit-tree", tree, "-p", "main", "-m", "hand-built").stdout.strip()


@pytest.mark.slow
def test_the_server_gate_refuses_a_duplicate_page_entry(server):
    ws, bare = server
    before = main_of(bare)
    repo = ws.repo
    wiki = entries_of(repo[repo.revparse_single("main").tree["wiki"].id])
    index = next(i for i, e in enumerate(wiki) if e[1] == b"index.md")
    text = repo[wiki[index][2]].data.decode() + "- [[p]]\n"
    wiki[index] = (b"100644", b"index.md", repo.create_blob(text))
    fake = repo.create_blob(fabricated_page("p"))
    good = repo.create_blob(cited_page("p"))
    sole = hand_built(ws, [*wiki, (b"100644", b"p.md", good)])
    twice = hand_built(ws, [*wiki, (b"100644", b"p.md", fake), (b"100644", b"p.md", good)])
    # git serves the first entry: the fabricated page
    assert "made-up" in git(ws.root, "show", f"{twice}:wiki/p.md").stdout
    proc = push(ws.root, "origin", f"{twice}:refs/heads/main")
    assert proc.returncode != 0
    assert "remote:   wiki/p.md: tree.malformed: the tree entry wiki/p.md appears twice" in (
        proc.stderr
    )
    assert main_of(bare) == before
    # the same change without the duplicate lands: the duplicate alone was refused
    proc = push(ws.root, "origin", f"{sole}:refs/heads/main")
    assert proc.returncode == 0, proc.stderr
    assert main_of(bare) == sole


def test_the_server_gate_refuses_a_path_with_a_newline_naming_it_escaped(server):
    """issue 21, item 9: `wiki/a<newline>::warning ::x.md` in a pushed tree (git's own
    fsck lets it through) is tree.malformed, its path shown escaped on one line: no
    `::warning` workflow command reaches a CI log through the gate's output."""
    ws, bare = server
    git(bare, "config", "receive.fsckObjects", "true")  # as `hooks install --server` sets it
    before = main_of(bare)
    repo = ws.repo
    wiki = entries_of(repo[repo.revparse_single("main").tree["wiki"].id])
    name = b"a\n::warning ::x.md"
    wiki = sorted([*wiki, (b"100644", name, repo.create_blob(cited_page("x")))], key=lambda e: e[1])
    tip = hand_built(ws, wiki)
    proc = push(ws.root, "origin", f"{tip}:refs/heads/main")
    assert proc.returncode != 0
    escaped = "wiki/a\\n::warning ::x.md"
    assert f"remote:   {escaped}: tree.malformed: the tree entry {escaped} has a control" in (
        proc.stderr
    )
    assert not any("::warning" in line and escaped not in line for line in proc.stderr.splitlines())
    assert main_of(bare) == before


# ---------------------------------------------------------------- 2. wiki/ holds *.md pages only

FAKE = (
    f"# Fake\n\nThe plan passed.[^1]\n\n[^1]: {format_tail('raw/made-up.txt', None, 'x', None)}\n"
)


@pytest.mark.parametrize(
    ("path", "content", "says"),
    [
        ("wiki/fake.markdown", FAKE, "neither a page (*.md) nor an attachment"),
        ("wiki/Fake.MD", FAKE, "neither a page (*.md) nor an attachment"),
        ("wiki/fake.html", "<p>The plan passed.</p>", "neither a page (*.md) nor an attachment"),
        ("wiki/.gitattributes", "*.md -diff\n", "neither a page (*.md) nor an attachment"),
        ("wiki/sub/notes.txt", "x\n", "neither a page (*.md) nor an attachment"),
        ("wiki/tmp", (LINK, "/tmp"), "a symlink"),
        ("wiki/owls.md", (LINK, "../raw/notes.txt"), "a symlink"),
    ],
)
def test_a_path_under_wiki_that_is_not_a_md_regular_file_is_refused(
    repo, base, path, content, says
):
    tip = commit_files(repo, base.id, {path: content})
    report = verify(repo, base, tip)
    no_errors(report)
    acl = at(report, "run.path_acl")
    assert [(f.path, f.severity) for f in acl] == [(path, "critical")], report.findings
    assert says in acl[0].message and "*.md regular files" in acl[0].message
    assert report.verdict == "reject"


@pytest.mark.parametrize("path", ["wiki/vendored", "wiki/vendored.md"])
def test_a_submodule_under_wiki_is_refused(repo, base, path):
    tree = _with_mode(repo, base.tree, path, base.id, pygit2.GIT_FILEMODE_COMMIT)
    sig = pygit2.Signature("t", "t@example.invalid")
    tip = repo[repo.create_commit(None, sig, sig, "sub\n", tree, [base.id])]
    report = verify(repo, base, tip)
    no_errors(report)
    acl = at(report, "run.path_acl")
    assert [f.path for f in acl] == [path] and "submodule" in acl[0].message
    assert report.verdict == "reject"


def test_deleting_a_stray_file_under_wiki_is_allowed(repo, base):
    with_stray = commit_files(repo, base.id, {"wiki/old.html": "<p>x</p>"})
    tip = commit_files(repo, with_stray.id, {"wiki/old.html": None})
    assert not at(verify(repo, with_stray, tip), "run.path_acl")


# ---------------------------------------------------------------- 3. one paragraph per footnote


def test_a_second_paragraph_in_a_citation_footnote_is_critical(repo, base):
    tail = format_tail("raw/notes.txt", None, QUOTE, NOTES.index(QUOTE))
    page = (
        "---\ntitle: Notes\n---\n# Notes\n\n"
        f"{QUOTE}[^1]\n\n"
        f"[^1]: {tail}\n\n"  # line 8
        '    The minutes add: "the committee was bribed."\n'
    )
    tip = commit_files(repo, base.id, {"wiki/notes.md": page})
    report = verify(repo, base, tip)
    no_errors(report)
    syntax = at(report, "citation.syntax")
    assert [(f.severity, f.line) for f in syntax] == [("critical", 8)], report.findings
    assert "a citation footnote is one paragraph; the text after it is not verified" in (
        syntax[0].message
    )
    assert report.verdict == "reject"


@pytest.mark.parametrize(
    "after",
    ["    - the committee was bribed\n", "    ```\n    the committee was bribed\n    ```\n"],
)
def test_any_further_block_in_a_citation_footnote_is_critical(repo, base, after):
    tail = format_tail("raw/notes.txt", None, QUOTE, NOTES.index(QUOTE))
    page = f"---\ntitle: Notes\n---\n# Notes\n\n{QUOTE}[^1]\n\n[^1]: {tail}\n\n{after}"
    report = verify(repo, base, commit_files(repo, base.id, {"wiki/notes.md": page}))
    syntax = at(report, "citation.syntax")
    assert [f.line for f in syntax] == [8] and "one paragraph" in syntax[0].message


def test_a_referenced_empty_footnote_is_critical(repo, base):
    page = f"---\ntitle: Notes\n---\n# Notes\n\n{QUOTE}[^1] The plan passed.[^2]\n\n[^2]:\n"
    page += f"[^1]: {format_tail('raw/notes.txt', None, QUOTE, NOTES.index(QUOTE))}\n"
    report = verify(repo, base, commit_files(repo, base.id, {"wiki/notes.md": page}))
    syntax = at(report, "citation.syntax")
    assert [(f.severity, f.line) for f in syntax] == [("critical", 8)], report.findings
    assert report.verdict == "reject"


def test_a_one_paragraph_footnote_followed_by_body_text_is_fine(repo, base):
    page = good_notes() + "\nAn unindented paragraph after the footnote.\n"
    report = verify(repo, base, commit_files(repo, base.id, {"wiki/notes.md": page}))
    assert not at(report, "citation.syntax"), report.findings


# ---------------------------------------------------------------- 4. floods


def test_an_undefined_reference_is_one_finding_per_label_however_often(repo, base):
    body = ("The plan passed.[^a] " * 20 + "\n") * 2000  # 40,000 references, one label
    page = "---\ntitle: Notes\n---\n# Notes\n\n" + body + f"\n{good_notes().split('# Notes')[1]}"
    report = verify(repo, base, commit_files(repo, base.id, {"wiki/notes.md": page}))
    no_errors(report)
    syntax = at(report, "citation.syntax")
    assert [(f.line, f.message) for f in syntax] == [
        (6, "reference [^a] has no definition (40000 times; first on line 6)")
    ]


def test_many_undefined_labels_are_summed_up(repo, base):
    body = " ".join(f"Claim {i}.[^n{i}]" for i in range(500))
    page = "---\ntitle: Notes\n---\n# Notes\n\n" + body + "\n"
    report = verify(repo, base, commit_files(repo, base.id, {"wiki/notes.md": page}))
    syntax = at(report, "citation.syntax")
    assert len(syntax) == 21
    assert "480 more labels" in syntax[-1].message


def test_many_labels_in_raw_html_are_one_finding_each_and_the_rest_summed_up(repo, base):
    """Raw HTML's references are counted as undefined ones are (citations._per_label):
    one finding per label on its first line, 20 labels, the rest in one finding."""
    cells = "\n".join(f"<p>Claim {i}.[^h{i}]</p>" for i in range(25))
    page = f"---\ntitle: Notes\n---\n# Notes\n\n<div>\n{cells}\n<p>Again.[^h0]</p>\n</div>\n"
    report = verify(repo, base, commit_files(repo, base.id, {"wiki/notes.md": page}))
    found = at(report, "citation.in_html")
    assert [f.line for f in found] == list(range(7, 28))
    assert "[^h0] is inside raw HTML (2 times; first on line 7)" in found[0].message
    assert "[^h1] is inside raw HTML: a reader sees no footnote" in found[1].message
    assert found[-1].message == "5 more labels are referenced inside raw HTML, from line 27"


@pytest.mark.slow
def test_the_server_prints_at_most_50_blocking_findings(server):
    ws, bare = server
    before = main_of(bare)
    root = ws.root
    for k in range(4):  # 4 pages, each with 30 labels and 10,000 references without definition
        body = " ".join(f"Claim {i}.[^p{k}x{i}]" for i in range(30))
        (root / "wiki" / f"flood{k}.md").write_text(f"# Flood {k}\n\n{body}\n" + "[^a] " * 10_000)
    git(root, "add", "wiki")
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "flood")
    proc = push(root, "origin", "main")
    assert proc.returncode != 0
    remote = [ln for ln in proc.stderr.splitlines() if ln.startswith("remote:   wiki/")]
    assert len(remote) == 50
    assert "… and " in proc.stderr and "more; run `wikigate verify` locally for all" in proc.stderr
    assert len(proc.stderr) < 20_000
    assert main_of(bare) == before


# ---------------------------------------------------------------- 5. a submodule under raw/


def test_a_submodule_under_raw_is_reported_once_and_crashes_nothing(repo, base):
    gitlink = base.id  # a submodule's commit (here one that exists, as it may)
    tree = _with_mode(repo, base.tree, "raw/vendored", gitlink, pygit2.GIT_FILEMODE_COMMIT)
    page = good_notes() + "\nThe plan was vendored.[^2]\n\n"
    page += '[^2]: raw/vendored — "the committee rejected" {@0 sha256:' + "0" * 64 + "}\n"
    tree = _with_mode(repo, repo[tree], "wiki/notes.md", repo.create_blob(page), 0o100644)
    sig = pygit2.Signature("t", "t@example.invalid")
    tip = repo[repo.create_commit(None, sig, sig, "sub\n", tree, [base.id])]
    report = verify(repo, base, tip)
    no_errors(report)
    raw = at(report, "run.raw_write")
    assert [f.path for f in raw] == ["raw/vendored"] and "submodule" in raw[0].message
    assert [f.path for f in at(report, "citation.source_outside_raw")] == ["wiki/notes.md"]
    assert report.verdict == "reject"


# ---------------------------------------------------------------- 6. the log is append-only


@pytest.mark.parametrize(
    ("new_log", "says"),
    [
        ("---\ntitle: Log\n---\n# Log\n\n- 2026-01-01 nothing happened\n", "rewrites"),
        ("# Log\n", "rewrites"),
        (None, "deletes"),
    ],
)
def test_a_rewritten_or_deleted_log_is_critical(repo, base, new_log, says):
    tip = commit_files(repo, base.id, {"wiki/log.md": new_log})
    report = verify(repo, base, tip)
    no_errors(report)
    rewrite = at(report, "run.log_rewrite")
    assert [(f.severity, f.path) for f in rewrite] == [("critical", "wiki/log.md")]
    assert says in rewrite[0].message
    assert report.verdict == "reject"


def test_an_appended_log_is_exempt_from_page_checks_but_not_links(repo, base):
    tip = commit_files(repo, base.id, {"wiki/log.md": LOG + "- 2026-02-02 see [[Nowhere]]\n"})
    report = verify(repo, base, tip)
    no_errors(report)
    assert not at(report, "run.log_rewrite")
    assert report.exempt == ["wiki/log.md: append-only change to the log"]
    assert [(f.path, f.message) for f in at(report, "link.broken")] == [
        ("wiki/log.md", "[[Nowhere]] resolves to no page")
    ]
    fine = commit_files(repo, base.id, {"wiki/log.md": LOG + "- 2026-02-02 see [[Notes]]\n"})
    assert verify(repo, base, fine).verdict == "commit"


def test_a_log_first_written_by_a_run_is_no_rewrite(repo):
    first = commit_files(repo, None, {"raw/notes.txt": NOTES, "wiki/index.md": INDEX})
    tip = commit_files(repo, first.id, {"wiki/log.md": LOG, "wiki/notes.md": good_notes()})
    assert not at(verify(repo, first, tip), "run.log_rewrite")


# ---------------------------------------------------------------- 7. tree bombs (issue 23, item 3)


def bomb(repo, levels: int = 6, fanout: int = 10) -> pygit2.Oid:
    """``levels`` tree objects, each naming the one below ``fanout`` times: a few hundred
    bytes that spell fanout**levels files."""
    tree = None
    blob = repo.create_blob(b"x\n")
    for _ in range(levels):
        builder = repo.TreeBuilder()
        for k in range(fanout):
            if tree is None:
                builder.insert(f"f{k}.txt", blob, pygit2.GIT_FILEMODE_BLOB)
            else:
                builder.insert(f"d{k}", tree, pygit2.GIT_FILEMODE_TREE)
        tree = builder.write()
    assert tree is not None
    return tree


def nested(repo, depth: int) -> pygit2.Oid:
    """One file ``depth`` folders deep."""
    builder = repo.TreeBuilder()
    builder.insert("deep.txt", repo.create_blob(b"x\n"), pygit2.GIT_FILEMODE_BLOB)
    tree = builder.write()
    for _ in range(depth):
        builder = repo.TreeBuilder()
        builder.insert("d", tree, pygit2.GIT_FILEMODE_TREE)
        tree = builder.write()
    return tree


def with_raw_tree(repo, base, name: str, tree: pygit2.Oid) -> pygit2.Commit:
    """``base`` with the tree ``tree`` at raw/NAME."""
    raw = repo.TreeBuilder(repo[base.tree["raw"].id])
    raw.insert(name, tree, pygit2.GIT_FILEMODE_TREE)
    root = repo.TreeBuilder(base.tree)
    root.insert("raw", raw.write(), pygit2.GIT_FILEMODE_TREE)
    sig = pygit2.Signature("t", "t@example.invalid")
    return repo[repo.create_commit(None, sig, sig, "bomb\n", root.write(), [base.id])]


@pytest.mark.timing
def test_a_tree_bomb_is_refused_unexpanded_naming_the_folder_and_the_limit(repo, base):
    """Six tree objects naming each other ten times spell a million files under raw/bomb/:
    the walk used to expand every path (80 s, 1.3 GB); now it counts them by tree id first
    and refuses the tree, naming the folder, the count and the limit."""
    tip = with_raw_tree(repo, base, "bomb", bomb(repo))
    for lint in (False, True):
        started = time.process_time()  # CPU time: the load of a busy machine is not counted
        report = verify(repo, base, tip, lint=lint)
        assert time.process_time() - started < 2
        no_errors(report)
        limit = at(report, "tree.limit")
        assert [(f.severity, f.path) for f in limit] == [("critical", "raw/bomb")], report.findings
        message = limit[0].message
        assert "raw/bomb/ spells 1,111,110 paths" in message  # 10^6 files, 111,110 folders
        assert "past the limit of 200,000" in message
        assert "raise `[limits] tree_paths` in the base's wikigate.toml" in message
        assert report.verdict == "reject"


def test_the_tree_limits_are_the_bases_rules(repo, base):
    """A tree within the defaults passes; the base's `[limits] tree_paths` and `tree_depth`
    are what a tree is held to."""
    tip = with_raw_tree(repo, base, "small", bomb(repo, levels=2))  # 110 paths
    assert not at(verify(repo, base, tip), "tree.limit")
    tight = Config.model_validate({"limits": {"tree_paths": 100}})
    report = verify_trees(repo, tip, base, config=tight)
    assert [f.path for f in at(report, "tree.limit")] == ["raw/small"]
    assert "110 paths" in at(report, "tree.limit")[0].message
    shallow = Config.model_validate({"limits": {"tree_depth": 3}})
    report = verify_trees(repo, tip, base, config=shallow)  # raw/small/dK/fK.txt: depth 3
    assert not at(report, "tree.limit")


@pytest.mark.timing
def test_a_tree_nested_past_the_depth_limit_is_refused_at_the_first_folder_too_deep(repo, base):
    tip = with_raw_tree(repo, base, "deep", nested(repo, 1000))
    started = time.process_time()
    report = verify(repo, base, tip)
    assert time.process_time() - started < 2
    no_errors(report)
    limit = at(report, "tree.limit")
    folder = "raw/deep/" + "/".join(["d"] * 63)  # 65 folders deep: raw, deep and 63 more
    assert [(f.severity, f.path) for f in limit] == [("critical", folder)], report.findings
    assert "nests 65 folders deep and the tree 1002, past the limit of 64" in limit[0].message
    assert "`[limits] tree_depth`" in limit[0].message


@pytest.mark.timing
def test_the_server_gate_refuses_a_pushed_tree_bomb_naming_the_limit(server):
    """The push that once put a million files under raw/ on a server's main: git's own fsck
    accepts the trees (they are well formed), the gate refuses them, naming the limit."""
    ws, bare = server
    git(bare, "config", "receive.fsckObjects", "true")  # as `hooks install --server` sets it
    before = main_of(bare)
    repo = ws.repo
    main = repo.revparse_single("main")
    tip = with_raw_tree(repo, main, "bomb", bomb(repo))
    started = time.perf_counter()
    proc = push(ws.root, "origin", f"{tip.id}:refs/heads/main")
    elapsed = time.perf_counter() - started
    assert proc.returncode != 0
    assert "remote:   raw/bomb: tree.limit: the folder raw/bomb/ spells 1,111,110 paths" in (
        proc.stderr
    )
    assert "[limits] tree_paths" in proc.stderr
    assert main_of(bare) == before
    assert elapsed < 20  # a push spawns git and the hook's Python: not the 80 s walk


def test_a_long_folder_name_over_many_files_is_refused_by_its_paths_bytes(repo, base):
    """A 1,000-byte folder name over 50 files spells 50 KB of paths from 2 KB of trees: the
    paths' bytes are counted too (256 a path of tree_paths)."""
    builder = repo.TreeBuilder()
    blob = repo.create_blob(b"x\n")
    for k in range(50):
        builder.insert(f"f{k}", blob, pygit2.GIT_FILEMODE_BLOB)
    long = repo.TreeBuilder()
    long.insert("n" * 1000, builder.write(), pygit2.GIT_FILEMODE_TREE)
    tip = with_raw_tree(repo, base, "long", long.write())
    report = verify_trees(
        repo, tip, base, config=Config.model_validate({"limits": {"tree_paths": 100}})
    )
    limit = at(report, "tree.limit")
    assert [f.path for f in limit] == ["raw/long"], report.findings  # its names count in it
    assert "bytes in all, past the limit of 256 bytes a path" in limit[0].message


def test_the_server_fails_closed_when_its_verification_budget_is_spent(tmp_path):
    """A push whose verification runs past `[limits] verify_seconds` (the server's main's
    rules) is refused, the message naming the limit and where to raise it."""
    ws = Workspace.init(tmp_path / "client")
    toml = ws.root / "wikigate.toml"
    toml.write_text(toml.read_text() + "\n[limits]\nverify_seconds = 1e-9\n")
    git(ws.root, "commit", "-qam", "a tiny budget", "--no-verify")
    bare = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(ws.root), str(bare))
    git(ws.root, "remote", "add", "origin", str(bare))
    installed = in_process(["-C", str(ws.root), "hooks", "install", "--server", str(bare)])
    assert installed.returncode == 0, installed.stderr
    before = main_of(bare)
    (ws.root / "wiki" / "owls.md").write_text(cited_page("owls"))
    git(ws.root, "add", "wiki/owls.md")
    git(ws.root, "commit", "-qm", "a page, straight to main", "--no-verify")
    proc = push(ws.root, "origin", "main")
    assert proc.returncode != 0
    assert "verifier.budget" in proc.stderr and "verify_seconds" in proc.stderr
    assert main_of(bare) == before


# ---------------------------------------------------------------- unportable paths

LONG = "wiki/" + "b" * 300 + ".md"  # a 303-byte name: Linux and macOS refuse it


def test_paths_a_clone_cannot_check_out_are_refused(repo, base):
    """A name over 255 bytes, a Windows device name or character, two paths equal but for
    case: git stores them, and every clone on some system fails to check out main
    (the hostile review landed a 303-byte page name through finalize and the server)."""
    index = INDEX + "- [[con]] [[a:b]] [[Notes]] [[" + "b" * 300 + "]]\n"
    tip = commit_files(
        repo,
        base.id,
        {
            "wiki/index.md": index,
            LONG: good_notes().replace("title: Notes", "title: Long"),
            "wiki/con.md": good_notes().replace("title: Notes", "title: Con"),
            "wiki/a:b.md": good_notes().replace("title: Notes", "title: AB"),
            "wiki/Notes.md": good_notes(),
        },
    )
    report = verify(repo, base, tip)
    found = sorted((f.path, f.message) for f in at(report, "tree.unportable"))
    assert [f.severity for f in at(report, "tree.unportable")] == ["critical"] * 4
    assert found == [
        ("wiki/Notes.md", "wiki/Notes.md and wiki/notes.md differ only in case: on macOS and "
         "Windows one overwrites the other in a checkout"),
        ("wiki/a:b.md", "wiki/a:b.md: 'a:b.md' holds :, which Windows file names cannot"),
        (LONG, f"{LONG}: a name of 303 bytes, past the 255 a file name may have on Linux and macOS"),
        ("wiki/con.md", "wiki/con.md: 'con.md' is a name Windows reserves for a device"),
    ]  # fmt: skip
    assert report.verdict == "reject"
    assert not at(verify(repo, base, commit_files(repo, base.id, {"wiki/index.md": INDEX})),
                  "tree.unportable")  # fmt: skip


def test_names_equal_on_macos_or_reserved_on_windows_are_refused(repo, base):
    """The same name in NFC and NFD (macOS takes them as one file), and device names the
    first list missed (COM0, COM¹, CONIN$): both landed through both gates (hostile review)."""
    nfc, nfd = "wiki/caf\u00e9.md", "wiki/cafe\u0301.md"
    tip = commit_files(
        repo,
        base.id,
        {
            nfc: good_notes(),
            nfd: good_notes(),
            "wiki/COM\u00b9.md": good_notes(),
            "wiki/com0.md": good_notes(),
            "wiki/CONIN$.md": good_notes(),
        },
    )
    found = sorted((f.path, f.message) for f in at(verify(repo, base, tip), "tree.unportable"))
    assert found == [
        ("wiki/COM\u00b9.md", "wiki/COM\u00b9.md: 'COM\u00b9.md' is a name Windows reserves for a device"),
        ("wiki/CONIN$.md", "wiki/CONIN$.md: 'CONIN$.md' is a name Windows reserves for a device"),
        (nfd, "'wiki/cafe\\u0301.md' and 'wiki/caf\\xe9.md' differ only in how their letters are "
              "encoded (NFC, NFD): on macOS and Windows one overwrites the other in a checkout"),
        ("wiki/caf\u00e9.md", "'wiki/caf\\xe9.md' and 'wiki/cafe\\u0301.md' differ only in how "
         "their letters are encoded (NFC, NFD): on macOS and Windows one overwrites the other in "
         "a checkout"),
        ("wiki/com0.md", "wiki/com0.md: 'com0.md' is a name Windows reserves for a device"),
    ]  # fmt: skip


def test_a_run_writing_a_page_name_too_long_to_check_out_is_rejected(tmp_path):
    ws = Workspace.init(tmp_path / "w")
    before = ws.repo.references["refs/heads/main"].target
    run = page_run(ws, "b" * 300)
    assert run.status == "rejected"
    assert "tree.unportable" in (run.reason or "")
    assert ws.repo.references["refs/heads/main"].target == before
    ws.close()


def test_the_server_gate_refuses_a_page_name_too_long_to_check_out(server):
    ws, bare = server
    before = main_of(bare)
    main = ws.repo.revparse_single("main")
    tip = commit_files(ws.repo, main.id, {LONG: cited_page("long")})
    proc = push(ws.root, "origin", f"{tip.id}:refs/heads/main")
    assert proc.returncode != 0
    assert f"remote:   {LONG}: tree.unportable: {LONG}: a name of 303 bytes" in proc.stderr
    assert main_of(bare) == before
