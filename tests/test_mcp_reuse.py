"""What a ``wikigate mcp`` session keeps between calls (docs/mcp.md, "Speed"): the view of
the staged tree, built once per tree the run's tip (else main) names, and the sources'
decoded text, once per blob within SOURCE_BYTES_KEPT. The SDK's own client drives the
real server in-process (test_mcp_trace.py's ``session``) on a real workspace; the
answers and the trace's recorded reads must be what a fresh view gives."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pygit2
import pytest
from mcp import Client
from support.trees import commit_files
from test_mcp import QUOTE, main_tip, ok
from test_mcp_trace import NIGHT, TAIL, events, hunting, root, session

from wikigate.mcp_server import SourceTexts
from wikigate.verifier import sources, wiki
from wikigate.verifier.citation import format_tail
from wikigate.verify import Request, verify
from wikigate.workspace import Workspace

__all__ = ["root"]  # the fixture: a main holding raw/owls.txt, cited by wiki/owls.md


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often a tree is walked and a source decoded, in this process (the real
    functions, counted)."""
    seen: Counter[str] = Counter()
    walk, text = wiki.walk, sources.Source.text

    def walked(*args: Any, **kwargs: Any) -> Any:
        seen["walk"] += 1
        return walk(*args, **kwargs)

    def decoded(self: sources.Source, page: int | None) -> str:
        seen["decode"] += 1
        return text(self, page)

    monkeypatch.setattr(wiki, "walk", walked)
    monkeypatch.setattr(sources.Source, "text", decoded)
    return seen


def blob(root: Path, spec: str) -> str:
    return str(pygit2.Repository(str(root)).revparse_single(spec).id)


def test_a_session_decodes_a_source_once_and_walks_each_tree_once(root, counted):
    night = format_tail("raw/owls.txt", None, NIGHT, 0)

    async def body(c: Client) -> tuple[str, list[Any], Counter[str]]:
        run_id = ok(await c.call_tool("start_run", {"type": "synthesis"}))["run_id"]
        counted.clear()
        said = [await c.call_tool("read", {"path": "raw/owls.txt"})]
        said.append(ok(await c.call_tool("anchor", {"source": "raw/owls.txt", "quote": QUOTE})))
        said.append(ok(await c.call_tool("anchor", {"source": "raw/owls.txt", "quote": NIGHT})))
        ok(await c.call_tool("write", {"path": "wiki/owls.md", "content": hunting()}))
        said.append(await c.call_tool("read", {"path": "wiki/owls.md"}))
        said.append(ok(await c.call_tool("anchor", {"source": "raw/owls.txt", "quote": NIGHT})))
        return run_id, said, counted.copy()

    run_id, said, seen = session(root, body)
    # the answers a fresh view gives
    assert "Barn owls hunt at night." in said[0].content[0].text
    assert [said[1]["tail"], said[2]["tail"], said[4]["tail"]] == [TAIL, night, night]
    assert "[^2]:" in said[3].content[0].text
    # two trees (before the write, after it), each walked once; one source, decoded once
    assert seen == Counter(walk=2, decode=1), seen
    # the trace names the blobs each call read: the page as written, the source on main
    trace = events(root, run_id)
    assert [e.tool for e in trace] == [
        "start_run", "read", "anchor", "anchor", "write", "read", "anchor",
    ]  # fmt: skip
    source = blob(root, "main:raw/owls.txt")
    page = str(pygit2.hash(hunting().encode()))
    assert [[(r.path, r.blob) for r in e.reads] for e in trace[1:]] == [
        [("raw/owls.txt", source)],
        [("raw/owls.txt", source)],
        [("raw/owls.txt", source)],
        [],
        [("wiki/owls.md", page)],
        [("raw/owls.txt", source)],
    ]


def test_a_change_staged_outside_the_session_is_read_at_once(root):
    """The kept view follows the run's tip: a page staged in the run by another client
    (the CLI, the Python API) is what the next read returns and its trace names; once
    the run lands, main is read as it is now."""
    edited = hunting()

    async def body(c: Client) -> tuple[str, list[str]]:
        run_id = ok(await c.call_tool("start_run", {"type": "synthesis"}))["run_id"]
        said = [(await c.call_tool("read", {"path": "wiki/owls.md"})).content[0].text]
        ws = Workspace.open(root)
        try:
            ws.run(run_id).stage_write("wiki/owls.md", edited)
        finally:
            ws.close()
        said.append((await c.call_tool("read", {"path": "wiki/owls.md"})).content[0].text)
        await c.call_tool("abandon", {})
        ws = Workspace.open(root)
        try:
            run = ws.start_run("synthesis", "cli:test")
            run.stage_write("wiki/owls.md", edited.replace("# Owls", "# Barn owls"))
            assert run.finalize().status == "committed"
        finally:
            ws.close()
        said.append((await c.call_tool("read", {"path": "wiki/owls.md"})).content[0].text)
        return run_id, said

    before = main_tip(root)
    run_id, said = session(root, body)
    assert "[^2]:" not in said[0]
    assert said[1].endswith(edited) and "[^2]:" in said[1]
    assert main_tip(root) != before and said[2].endswith(edited.replace("# Owls", "# Barn owls"))
    staged = str(pygit2.hash(edited.encode()))
    assert [(r.path, r.blob) for r in events(root, run_id)[2].reads] == [("wiki/owls.md", staged)]


def test_source_texts_keep_the_most_recent_within_their_budget():
    big, small = "a" * 1000, "b" * 10
    kept = SourceTexts(budget=2 * sys.getsizeof(big + "0") + 20)  # two bigs, not a small too
    for n in range(3):
        kept.put(("blob", n), big + str(n))
    assert kept.get(("blob", 0)) is None  # the least recently read went first
    assert kept.get(("blob", 1)) == big + "1" and kept.get(("blob", 2)) == big + "2"
    kept.put(("blob", 3), small)
    assert kept.get(("blob", 1)) is None  # 2 was read last: 1 goes
    assert kept.get(("blob", 2)) is not None and kept.get(("blob", 3)) == small
    kept.put(("huge",), "c" * 5000)  # larger than the budget: not kept, nothing dropped
    assert kept.get(("huge",)) is None and kept.get(("blob", 2)) is not None
    assert kept.size <= kept.budget


def test_finalize_verifies_with_the_sources_the_session_decoded(root):
    """The verification ``finalize`` runs reads the source texts the session's ``read``
    and ``anchor`` decoded (the session's SourceTexts, ``Request.sources``): no source
    blob is read again, and its findings are what a verification reading git finds."""
    wrong = format_tail("raw/owls.txt", None, NIGHT, 3)  # a stale offset: a mismatch

    async def body(c: Client) -> tuple[dict[str, Any], list[str]]:
        ok(await c.call_tool("start_run", {"type": "synthesis"}))
        ok(await c.call_tool("anchor", {"source": "raw/owls.txt", "quote": NIGHT}))
        page = hunting().replace(format_tail("raw/owls.txt", None, NIGHT, 0), wrong)
        ok(await c.call_tool("write", {"path": "wiki/owls.md", "content": page}))
        reads: list[str] = []
        with sources.watching_reads(lambda path, _: reads.append(path)):
            done = ok(await c.call_tool("finalize", {}))
        return done, reads

    done, reads = session(root, body)
    assert done["verdict"] == "revise", done
    assert reads == []  # the quote's source was located in the text the session decoded
    (mismatch,) = [f for f in done["findings"] if f["code"] == "citation.anchor_mismatch"]
    assert mismatch["suggested_tail"] == format_tail("raw/owls.txt", None, NIGHT, 0)
    # what a verification that reads the source from git finds, to the letter
    repo = pygit2.Repository(str(root))
    fresh = verify(Request(repo, repo[done["tip"]], repo.revparse_single("main"), cache_path=None))
    said = [(f["code"], f["path"], f["line"], f["message"], f["suggested_tail"])
            for f in done["findings"] if f["code"].startswith("citation.")]  # fmt: skip
    assert said == [
        (f.code, f.path, f.line, f.message, f.suggested_tail)
        for f in fresh.report.findings
        if f.code.startswith("citation.")
    ]


def test_a_shelf_keys_a_text_by_its_blob_never_its_path(repo):
    """Two trees holding different texts under one path, read through one shelf: each
    reads its own (a staged source may change under its path); a text on the shelf is
    not read from git again."""
    old = commit_files(repo, None, {"raw/s.txt": "The first text."})
    new = commit_files(repo, old.id, {"raw/s.txt": "The second text."})
    shelf = SourceTexts()
    first = wiki.WikiTree(repo, old.tree, wiki.PageCache(None), shelf=shelf)
    assert first.source_text("raw/s.txt", None) == "The first text."
    second = wiki.WikiTree(repo, new.tree, wiki.PageCache(None), shelf=shelf)
    assert second.source_text("raw/s.txt", None) == "The second text."
    reads: list[str] = []
    with sources.watching_reads(lambda path, _: reads.append(path)):
        again = wiki.WikiTree(repo, old.tree, wiki.PageCache(None), shelf=shelf)
        assert again.source_text("raw/s.txt", None) == "The first text."
        assert again.locate([("raw/s.txt", None, [(4, "first")])]) == [(None, [None])]
        assert again.locate([("raw/s.txt", None, [(0, "second")])])[0][1][0].offset < 0
    assert reads == []
