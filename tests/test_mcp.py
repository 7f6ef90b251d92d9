"""``wikigate mcp``: the SDK's own MCP client (``stdio_client`` + ``ClientSession``) drives
the server as a subprocess over stdio, on a real workspace, with the product's verifier."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pygit2
import pytest
from mcp import ClientSession, StdioServerParameters  # the test extra installs the SDK
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from support.helpers import in_process, state
from test_sources import PAGES, pdf

from wikigate.cli import main
from wikigate.errors import UsageError
from wikigate.mcp_server import http_address
from wikigate.verifier.citation import format_tail
from wikigate.workspace import Workspace

SOURCE = "Barn owls hunt at night. They can hear a mouse under snow.\n"
QUOTE = "They can hear a mouse under snow."
INDEX = "---\ntitle: Index\n---\n# Index\n\nThe root of this wiki.\n\n- [[Owls]]\n"


TOOLS = {
    "list", "read", "grep", "follow", "history", "claims", "anchor",
    "start_run", "write", "replace", "delete", "usage", "finalize", "abandon",
}  # fmt: skip
DOCS = Path(__file__).resolve().parents[1] / "docs"


def owls(tail: str) -> str:
    return f"---\ntitle: Owls\n---\n# Owls\n\nBarn owls can hear a mouse under snow.[^1]\n\n[^1]: {tail}\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = Workspace.init(tmp_path / "w")
    ws.close()
    return tmp_path / "w"


def serve(
    root: Path,
    body: Callable[[ClientSession], Awaitable[Any]],
    verifier: str = "",
    without: str = "",
) -> Any:
    """Start ``wikigate -C root mcp``, run ``body`` in a session, disconnect; return what
    ``body`` returned (the server process has exited by then). ``verifier``: a plug-in
    (default: the product's own); ``without``: a module the server cannot import (as if
    its extra were not installed: ``sys.modules[name] = None``)."""
    start = ["-m", "wikigate"]
    if without:
        start = ["-c", f"import sys; sys.modules[{without!r}] = None; " + STARTS]
    server = StdioServerParameters(
        command=sys.executable,
        args=[*start, "-C", str(root), "mcp"],
        env={**os.environ, "WIKIGATE_VERIFIER": verifier},
    )

    async def main() -> Any:
        async with stdio_client(server) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            return await body(s)

    return asyncio.run(main())


STARTS = "from wikigate.cli import main; sys.exit(main(sys.argv[1:]))"


def ok(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    return result.structured_content or {}


def text(result: Any) -> str:
    return "".join(c.text for c in result.content if c.type == "text")


def runs(root: Path) -> dict[str, str]:
    ws = Workspace.open(root)
    try:
        return {r["run_id"]: r["status"] for r in ws.runs()}
    finally:
        ws.close()


def main_tip(root: Path) -> str:
    return str(pygit2.Repository(str(root)).references["refs/heads/main"].target)


def test_ingest_anchor_write_finalize_revise_fix_commit(root):
    before = main_tip(root)

    async def body(s: ClientSession) -> dict[str, Any]:
        run_id = ok(await s.call_tool("start_run", {"type": "ingest"}))["run_id"]
        ok(await s.call_tool("write", {"path": "raw/owls.txt", "content": SOURCE}))
        # reading tools see the staged tree while the run is open
        assert QUOTE in text(await s.call_tool("read", {"path": "raw/owls.txt"}))
        tail = ok(await s.call_tool("anchor", {"source": "raw/owls.txt", "quote": QUOTE}))["tail"]
        ok(await s.call_tool("write", {"path": "wiki/index.md", "content": INDEX}))
        quote_only = f'raw/owls.txt — "{QUOTE}"'  # no anchor: revise
        ok(await s.call_tool("write", {"path": "wiki/owls.md", "content": owls(quote_only)}))
        first = await s.call_tool("finalize", {})
        revise = ok(first)
        (missing,) = [f for f in revise["findings"] if f["code"] == "citation.anchor_missing"]
        # the fix, as structured content: the footnote's correct tail
        assert missing["suggested_tail"] == tail
        ok(await s.call_tool("replace", {"path": "wiki/owls.md", "old": quote_only, "new": tail}))
        spent = {"input_tokens": 1200, "output_tokens": 300, "usd": 0.01}
        ok(await s.call_tool("usage", spent))
        done = ok(await s.call_tool("finalize", {}))
        # the ledger catches up when it is read: the landed claim, introduced by the run
        claims = ok(await s.call_tool("claims", {"page": "wiki/owls.md"}))["claims"]
        return {
            "run_id": run_id, "revise": revise, "first": text(first), "done": done,
            "claims": claims,
        }  # fmt: skip

    out = serve(root, body)
    revise, done = out["revise"], out["done"]
    assert revise["status"] == "pending" and revise["verdict"] == "revise"
    assert revise["run_id"] == out["run_id"] and revise["loop"] == 1
    (missing,) = [f for f in revise["findings"] if f["code"] == "citation.anchor_missing"]
    assert missing["path"] == "wiki/owls.md" and missing["line"] == 8
    assert missing["severity"] == "major" and missing["claim_id"] == "wiki/owls.md#^1"
    assert missing["claim"] == "Barn owls can hear a mouse under snow." and missing["hint"]
    assert out["first"].startswith(f"revise {out['run_id']} (loop 1 of")  # the CLI's text
    assert done["status"] == "committed" and done["verdict"] == "commit", done
    assert main_tip(root) == done["tip"] != before
    assert (root / "wiki" / "owls.md").read_text() == owls(missing["suggested_tail"])
    assert runs(root) == {out["run_id"]: "committed"}
    (claim,) = out["claims"]
    assert claim["claim_id"] == "wiki/owls.md#^1" and claim["anchor_status"] == "anchored"
    repo = pygit2.Repository(str(root))  # introduced by one of the run's commits
    introduced = pygit2.Oid(hex=claim["introduced_commit"])
    assert (
        repo.descendant_of(pygit2.Oid(hex=done["tip"]), introduced)
        or str(introduced) == done["tip"]
    )
    assert repo.descendant_of(introduced, pygit2.Oid(hex=before))


@pytest.mark.slow
def test_a_writer_resubmitting_the_same_failure_stops_after_the_second_loop(root):
    """No progress (issue 28): the second finalize fails on exactly what the first did (the
    same signatures), so the run is rejected instead of spending a third loop."""
    before = main_tip(root)

    async def body(s: ClientSession) -> list[dict[str, Any]]:
        ok(await s.call_tool("start_run", {"type": "ingest"}))
        ok(await s.call_tool("write", {"path": "raw/owls.txt", "content": SOURCE}))
        ok(await s.call_tool("write", {"path": "wiki/index.md", "content": INDEX}))
        quote_only = f'raw/owls.txt — "{QUOTE}"'  # no anchor: revise
        ok(await s.call_tool("write", {"path": "wiki/owls.md", "content": owls(quote_only)}))
        first = ok(await s.call_tool("finalize", {}))
        second = ok(await s.call_tool("finalize", {}))  # resubmitted, nothing fixed
        return [first, second]

    first, second = serve(root, body)
    assert (first["status"], first["verdict"], first["loop"]) == ("pending", "revise", 1)
    signatures = {f["signature"] for f in first["findings"]}
    assert signatures and all(isinstance(s, str) and s for s in signatures)
    assert {f["signature"] for f in second["findings"]} == signatures
    n = len(signatures)
    assert (second["status"], second["loop"]) == ("rejected", 2), second
    assert second["reason"].startswith(
        f"no progress: the same {n} failure{'s' if n != 1 else ''} as loop 1"
    )
    assert main_tip(root) == before


def test_a_bad_tool_call_is_a_clear_tool_error_and_stages_nothing(root):
    async def body(s: ClientSession) -> list[Any]:
        no_run = await s.call_tool("write", {"path": "wiki/a.md", "content": "x\n"})
        wrong_type = await s.call_tool("start_run", {"type": "nonsense"})
        not_mcp = await s.call_tool("start_run", {"type": "lint", "triggered_by": "github:pr"})
        run_id = ok(await s.call_tool("start_run", {"type": "synthesis"}))["run_id"]
        before = state(root)
        outside = await s.call_tool("write", {"path": "../etc/passwd", "content": "x\n"})
        raw = await s.call_tool("write", {"path": "raw/new.txt", "content": "x\n"})
        twice = await s.call_tool("start_run", {"type": "synthesis"})
        no_content = await s.call_tool("write", {"path": "wiki/a.md"})  # the SDK refuses it
        assert no_content.is_error and "content" in text(no_content)
        after = state(root)
        return [no_run, outside, raw, twice, wrong_type, not_mcp, before, after, run_id]

    no_run, outside, raw, twice, wrong_type, not_mcp, before, after, run_id = serve(root, body)
    # the library's message, as the CLI prints it after "error: "
    assert no_run.is_error
    assert text(no_run) == "no run is open in this session; call start_run first"
    assert raw.is_error and text(raw) == "raw/new.txt: only ingest runs may add raw sources"
    assert outside.is_error and "../etc/passwd" in text(outside)
    assert twice.is_error and f"run {run_id} is open in this session" in text(twice)
    # the CLI's option is the tool's argument
    assert wrong_type.is_error and text(wrong_type).startswith("`type` 'nonsense': expected one of")
    assert not_mcp.is_error and "an MCP session starts mcp:<tool> runs" in text(not_mcp)
    assert after == before  # nothing staged, no ref moved, no run added
    assert runs(root) == {run_id: "abandoned"}  # released on disconnect


def test_read_only_tools_and_their_annotations(root):
    ws = Workspace.open(root)
    run = ws.start_run("ingest", "cli:test")
    run.stage_write("raw/owls.txt", SOURCE)
    run.stage_write("wiki/owls.md", owls(format_tail("raw/owls.txt", None, QUOTE, 25)))
    run.stage_write("wiki/index.md", INDEX)
    assert run.finalize().status == "committed"
    ws.close()

    async def body(s: ClientSession) -> dict[str, Any]:
        tools = {t.name: t.annotations for t in (await s.list_tools()).tools}
        return {
            "tools": tools,
            "list": ok(await s.call_tool("list", {"under": "wiki/"})),
            "grep": text(await s.call_tool("grep", {"text": "mouse", "under": "wiki/"})),
            "follow": text(
                await s.call_tool("follow", {"page": "wiki/index.md", "target": "Owls"})
            ),
            "history": text(await s.call_tool("history", {"path": "wiki/owls.md"})),
            "claims": ok(await s.call_tool("claims", {"page": "wiki/owls.md"})),
            "bad_status": await s.call_tool("claims", {"status": "bogus"}),
            "missing": await s.call_tool("read", {"path": "wiki/nope.md"}),
        }

    out = serve(root, body)
    tools = out["tools"]
    assert set(tools) == TOOLS
    for name in ("list", "read", "grep", "follow", "history", "claims", "anchor"):
        assert tools[name].read_only_hint is True and tools[name].destructive_hint is False
    for name in ("start_run", "write", "replace", "delete", "usage", "finalize", "abandon"):
        assert tools[name].read_only_hint is False, name
        assert tools[name].idempotent_hint is not None and tools[name].destructive_hint is not None
    assert tools["write"].idempotent_hint is True and tools["write"].destructive_hint is False
    for name in ("replace", "delete", "finalize", "abandon"):  # they end, or may end, a run
        assert tools[name].destructive_hint is True, name
    assert out["list"]["where"] == "main"
    assert out["list"]["paths"] == ["wiki/index.md", "wiki/log.md", "wiki/owls.md"]
    assert (
        out["grep"].splitlines()[0] == "wiki/owls.md:6: Barn owls can hear a mouse under snow.[^1]"
    )
    assert out["follow"].startswith("'Owls' on wiki/index.md leads to wiki/owls.md:")
    assert len(out["history"].splitlines()) == 1 and "no commit" not in out["history"]
    # trial 28 (F11): a date a reader reads, and the run that made the commit
    assert re.search(r"^\w{12} \d{4}-\d\d-\d\d \d\d:\d\d UTC .* \(run \S+\)$", out["history"])
    (claim,) = out["claims"]["claims"]
    assert claim["source"] == "raw/owls.txt" and claim["anchor_status"] == "anchored"
    assert out["bad_status"].is_error  # trial 28 (F11): not "no claims"
    assert "status 'bogus': one of anchored, unanchored" in text(out["bad_status"])
    assert out["missing"].is_error
    assert text(out["missing"]) == "wiki/nope.md: no such file under raw/ or wiki/ on main"


@pytest.mark.slow
def test_a_client_that_disconnects_mid_run_leaves_no_run_leased(root):
    before = main_tip(root)

    async def body(s: ClientSession) -> tuple[str, dict[str, Any], str]:
        first = ok(await s.call_tool("start_run", {"type": "synthesis"}))["run_id"]
        ok(await s.call_tool("delete", {"path": "wiki/index.md"}))
        dropped = ok(await s.call_tool("abandon", {"reason": "wrong page"}))
        # a run ended elsewhere (a person, a sweep) is refused, then the session moves on
        ended = ok(await s.call_tool("start_run", {"type": "synthesis"}))["run_id"]
        elsewhere = Workspace.open(root)
        try:
            elsewhere.abandon(ended, "a person gave it up")
        finally:
            elsewhere.close()
        refused = [
            text(await s.call_tool("write", {"path": "wiki/a.md", "content": "# A\n"})),
            text(await s.call_tool("abandon", {})),
        ]
        assert refused[0] == f"run {ended} is abandoned; start a new run", refused
        assert refused[1] == (
            f"run {ended} is already abandoned; only a pending run (or one whose finalizer is "
            "gone) can be abandoned"
        )
        run_id = ok(await s.call_tool("start_run", {"type": "synthesis"}))["run_id"]
        ok(await s.call_tool("write", {"path": "wiki/a.md", "content": "# A\n\nText.\n"}))
        return first, dropped, run_id  # and leave without finalizing

    first, dropped, run_id = serve(root, body)
    assert dropped["run_id"] == first and dropped["status"] == "abandoned"
    assert dropped["reason"].startswith("abandoned: by ") and dropped["reason"].endswith(
        ": wrong page"
    )
    assert (root / "wiki" / "index.md").exists()
    # the server released the run before it exited: abandoned now, not after the timeout
    ws = Workspace.open(root)
    try:
        row = ws.run(run_id).refresh()
        assert row["status"] == "abandoned" and row["lease_until"] is None
        assert "the MCP client disconnected" in row["reject_reason"]
        assert ws.run(run_id).ref() == ws.failed_ref(run_id)  # its work kept for a person
    finally:
        ws.close()
    assert main_tip(root) == before


def test_the_sdk_is_imported_by_wikigate_mcp_only_and_its_absence_is_a_clear_error(
    root, capsys, monkeypatch
):
    """Other commands never import the SDK; without it, `wikigate mcp` says what to install."""
    probe = (
        "import sys; from wikigate.cli import main\n"
        "main(['-C', sys.argv[1], 'runs', 'list'])\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types')))"
    )
    shown = subprocess.run(
        [sys.executable, "-c", probe, str(root)], capture_output=True, text=True, check=True
    )
    assert shown.stdout.strip().endswith("[]"), shown.stdout
    before = state(root)
    # as if the extra were not installed: the SDK and what it brings (anyio; the core
    # install has neither, and `wikigate mcp` crashed on anyio before naming the extra)
    monkeypatch.setitem(sys.modules, "mcp", None)
    monkeypatch.setitem(sys.modules, "anyio", None)
    assert main(["-C", str(root), "mcp"]) == 2  # a setup error
    err = capsys.readouterr().err
    assert err == (
        "error: wikigate mcp needs the mcp extra (mcp), which is not installed here: "
        "pip install 'wikigate[mcp]'\n"
    )
    assert state(root) == before


@pytest.mark.slow
def test_a_server_terminated_by_its_client_releases_its_run_and_exits(root):
    """The SDK's client sends SIGTERM to a server that has not exited 2 s after its input
    closed (a busy machine): the run is released all the same, and the server exits at
    once. The messages are the protocol's own JSON-RPC lines (the client keeps its
    process to itself)."""
    server = subprocess.Popen(
        [sys.executable, "-m", "wikigate", "-C", str(root), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        for message in (
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "test", "version": "0"},
                },
            },
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "start_run", "arguments": {"type": "lint"}},
            },
        ):
            assert server.stdin is not None and server.stdout is not None
            server.stdin.write(json.dumps(message) + "\n")
            server.stdin.flush()
            if "id" in message:
                answer = json.loads(server.stdout.readline())
        run_id = answer["result"]["structuredContent"]["run_id"]
        assert runs(root) == {run_id: "pending"}
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=60) == 128 + signal.SIGTERM  # stdin still open
    finally:
        if server.poll() is None:
            server.kill()
        server.communicate()
    assert runs(root) == {run_id: "abandoned"}


@pytest.mark.slow
def test_a_run_waiting_for_a_person_outlives_the_session(root):
    """needs_human_review ends the writer's part: the session may start another run, and
    the disconnect leaves that run to a person (only the one in revise is abandoned)."""

    async def body(s: ClientSession) -> tuple[dict[str, Any], dict[str, Any]]:
        ok(await s.call_tool("start_run", {"type": "synthesis"}))
        ok(await s.call_tool("write", {"path": "wiki/a.md", "content": "HUMAN-REVIEW\n"}))
        answer = await s.call_tool("finalize", {})
        asked = {**ok(answer), "text": text(answer)}
        ok(await s.call_tool("start_run", {"type": "synthesis"}))
        ok(await s.call_tool("write", {"path": "wiki/b.md", "content": "REVISE-ME\n"}))
        revise = ok(await s.call_tool("finalize", {}))
        return asked, revise

    asked, revise = serve(root, body, verifier="support.markers_verifier:factory")
    # a person's step is the person's command, kept whole
    assert f"`wikigate verify approve {asked['run_id']} --reason ...`" in asked["text"]
    assert asked["verdict"] == "needs_human_review" and revise["verdict"] == "revise"
    assert runs(root) == {asked["run_id"]: "pending", revise["run_id"]: "abandoned"}


def _with_a_pdf(root: Path) -> str:
    """Main holds raw/birds.pdf (PAGES, one a page), a page citing its p.2, and a page
    naming the PDF and a text source by [[name]] (source references, not links)."""
    ws = Workspace.open(root)
    try:
        run = ws.start_run("ingest", "cli:test")
        run.stage_write("raw/birds.pdf", pdf(PAGES))
        run.stage_write("raw/notes/owls.txt", SOURCE)
        at = PAGES[1].index("human faces")
        crows = (
            "---\ntitle: Crows\n---\n# Crows\n\nCrows remember human faces.[^1]\n\n"
            f"[^1]: {format_tail('raw/birds.pdf', 2, 'human faces', at)}\n"
        )
        run.stage_write("wiki/crows.md", crows)
        see = "See [[birds.pdf]] and [[owls.txt]]; [[Crows]] too."
        index = f"---\ntitle: Index\n---\n# Index\n\nThe root of this wiki. {see}\n"
        run.stage_write("wiki/index.md", index)
        done = run.finalize()
        assert done.status == "committed", done.findings
        return str(at)
    finally:
        ws.close()


@pytest.mark.slow
def test_read_grep_and_follow_read_pdf_sources_as_verification_does(root):
    """A PDF source reads a page at a time, its characters those an anchor counts; grep
    searches its pages; follow calls a [[name]] of a raw/ source a source reference, as
    the link checker does (it is no broken link)."""
    at = _with_a_pdf(root)

    async def body(s: ClientSession) -> dict[str, Any]:
        return {
            "page": await s.call_tool("read", {"path": "raw/birds.pdf", "page": 2}),
            "nopage": await s.call_tool("read", {"path": "raw/birds.pdf"}),
            "past": await s.call_tool("read", {"path": "raw/birds.pdf", "page": 4}),
            "text_page": await s.call_tool("read", {"path": "raw/notes/owls.txt", "page": 1}),
            "grep": text(await s.call_tool("grep", {"text": "mirrors", "under": "raw/"})),
            "anchor": ok(
                await s.call_tool(
                    "anchor", {"source": "raw/birds.pdf", "quote": "human faces", "page": 2}
                )
            ),
            "pdf_ref": text(
                await s.call_tool("follow", {"page": "wiki/index.md", "target": "birds.pdf"})
            ),
            "text_ref": text(
                await s.call_tool("follow", {"page": "wiki/index.md", "target": "[[owls.txt]]"})
            ),
            "page_link": text(
                await s.call_tool("follow", {"page": "wiki/index.md", "target": "Crows"})
            ),
        }

    out = serve(root, body)
    rest = text(out["page"])  # the page's characters alone; the span as structured content
    span = {"path": "raw/birds.pdf", "page": 2, "start": 0, "end": len(rest), "total": len(rest)}
    assert ok(out["page"]) == {**span, "text": rest}
    assert rest.strip() == PAGES[1]
    # the offset the anchor names is where the quote sits in what read returns
    assert f"{{@{at} " in out["anchor"]["tail"] and rest[int(at) :].startswith("human faces")
    assert out["nopage"].is_error and text(out["nopage"]) == (
        "raw/birds.pdf is a PDF of 3 pages; no page: pass page (1 to 3), as a citation "
        "names it (SOURCE, p.N)"
    )
    assert out["past"].is_error and "page 4: pass page (1 to 3)" in text(out["past"])
    assert out["text_page"].is_error
    assert text(out["text_page"]) == "raw/notes/owls.txt is not a PDF; read it without page"
    assert out["grep"] == f"raw/birds.pdf p.3:1: {PAGES[2]}"
    assert out["pdf_ref"] == (
        "'birds.pdf' on wiki/index.md is a source reference to raw/birds.pdf, a PDF: "
        "read it with page"
    )
    assert out["text_ref"] == (
        f"'[[owls.txt]]' on wiki/index.md is a source reference to raw/notes/owls.txt:\n{SOURCE}"
    )
    assert out["page_link"].startswith("'Crows' on wiki/index.md leads to wiki/crows.md:")


@pytest.mark.slow
def test_a_pdf_without_the_pdf_extra_is_a_tool_error_naming_it(root):
    _with_a_pdf(root)
    missing = (
        "needs the pdf extra (pypdf), which is not installed here: pip install 'wikigate[pdf]'"
    )

    async def body(s: ClientSession) -> dict[str, Any]:
        return {
            "read": await s.call_tool("read", {"path": "raw/birds.pdf", "page": 1}),
            "grep": await s.call_tool("grep", {"text": "owls", "under": "raw/"}),
            "anchor": await s.call_tool(
                "anchor", {"source": "raw/birds.pdf", "quote": "human faces", "page": 2}
            ),
        }

    out = serve(root, body, without="pypdf")
    assert out["read"].is_error
    assert text(out["read"]) == f"reading raw/birds.pdf (a PDF) {missing}"
    # grep still answers from the text sources, and names the PDF it could not search
    assert not out["grep"].is_error
    assert text(out["grep"]).splitlines() == [
        f"raw/notes/owls.txt:1: {SOURCE.strip()}",
        f"(raw/birds.pdf not searched: reading raw/birds.pdf (a PDF) {missing})",
    ]
    assert out["anchor"].is_error and "pip install 'wikigate[pdf]'" in text(out["anchor"])


def test_hints_name_the_tools_an_agent_calls_not_cli_commands(root):
    """A tool error's hint and a finding's hint say which tool to call (an agent has no
    shell): `anchor`, `usage`, `start_run`, a tool's argument; never `wikigate run …`."""

    async def body(s: ClientSession) -> dict[str, Any]:
        no_source = await s.call_tool("anchor", {"source": "raw/owls.txt", "quote": QUOTE})
        budget = {"type": "synthesis", "budget_usd": 1.0}
        ok(await s.call_tool("start_run", budget))
        ok(await s.call_tool("write", {"path": "wiki/a.md", "content": "# A\n\nText.\n"}))
        revise = await s.call_tool("finalize", {})
        twice = await s.call_tool("replace", {"path": "wiki/a.md", "old": "nowhere", "new": "y"})
        return {"no_source": no_source, "revise": revise, "replace": twice}

    out = serve(root, body)
    assert out["no_source"].is_error
    assert text(out["no_source"]) == (
        "raw/owls.txt: no such file under raw/ on main (no run is open: a run's staged "
        "source is read while the run is open; `start_run` and `write` it first)"
    )
    revise = ok(out["revise"])
    assert revise["verdict"] == "revise"
    (usage,) = [f for f in revise["findings"] if f["code"] == "run.usage_missing"]
    assert usage["hint"] == (
        "attest with the `usage` tool (input_tokens, output_tokens, usd), then finalize again"
    )
    for finding in revise["findings"]:
        assert "wikigate run" not in finding["hint"] + finding["message"], finding
    assert "wikigate run" not in text(out["revise"])
    assert out["replace"].is_error
    assert text(out["replace"]).startswith(
        "`old` text found 0 times in wiki/a.md; it must match exactly once: nothing was staged"
    )


def _fenced(text: str, lang: str, after: str) -> str:
    """The first ``lang`` code block after the line ``after``."""
    rest = text[text.index(after) :]
    start = rest.index(f"```{lang}\n") + len(lang) + 4
    return rest[start : rest.index("```", start)]


def test_print_config_starts_this_install_on_this_workspace_as_the_docs_show(root):
    """`wikigate mcp --print-config` prints JSON a client can load, naming a command that
    exists and starts this server on this workspace; docs/mcp.md shows the same shape."""
    shown = subprocess.run(
        [sys.executable, "-m", "wikigate", "-C", str(root), "mcp", "--print-config"],
        capture_output=True,
        text=True,
        check=True,
    )
    config = json.loads(shown.stdout)
    entry = config["mcpServers"]["wikigate"]
    command, args = entry["command"], entry["args"]
    assert os.path.isabs(command) and os.access(command, os.X_OK)
    assert args[-3:] == ["-C", str(root.resolve()), "mcp"]
    # the printed command starts: its help, as a client would start it (no shell, no PATH)
    started = subprocess.run(
        [command, *args, "--help"], capture_output=True, text=True, env={}, check=True
    )
    assert "Serve this workspace to an MCP client" in started.stdout
    docs = (DOCS / "mcp.md").read_text()
    example = json.loads(_fenced(docs, "json", "## Client configuration"))
    assert set(config) == set(example) and set(entry) == set(example["mcpServers"]["wikigate"])
    assert example["mcpServers"]["wikigate"] == {
        "command": "wikigate",
        "args": ["-C", "/path/to/wiki", "mcp"],
    }
    if not args[0].startswith("-m"):  # the script beside the interpreter: the docs' form
        assert os.path.basename(command) == "wikigate" and args == ["-C", str(root), "mcp"]
    assert "mcp --print-config" in docs


AGENT = Path(__file__).resolve().parents[1] / "wikigate" / "agent"


def test_the_skill_and_the_snippet_name_only_real_tools_and_teach_the_loop():
    """The skill (a SKILL.md) and the AGENTS.md/CLAUDE.md snippet that ship in
    wikigate/agent/ name tools the server has, and teach the whole loop, in its order."""
    skill = (AGENT / "SKILL.md").read_text()
    snippet = (AGENT / "AGENTS.md").read_text()
    front = skill.split("---\n")[1]
    assert "name: wikigate-writer" in front and "description: " in front
    words = {"committed", "rejected", "abandoned", "pending", "revise", "needs_human_review"}
    for text_ in (skill, snippet):
        named = set(re.findall(r"`([a-z_]+)`", text_))
        fields = {"suggested_tail", "next_actions", "questions", "blind_spots"}  # the result's
        fields |= {"run_open", "loops_left", "scope"}  # and start_run's scope
        assert named - words - fields - {"wikigate"} <= TOOLS, named - TOOLS
        loop = ["start_run", "read", "anchor", "write", "finalize", "revise", "abandon"]
        steps = text_.partition("## The loop")[2] or text_  # the skill's; the snippet
        at = [steps.index(f"`{step}`") for step in loop]
        assert at == sorted(at), loop
        assert "[gap:" in text_ and "same findings" in text_


def test_the_install_prints_the_skill_the_snippet_and_each_clients_configuration(root):
    """`wikigate mcp --print-skill` and `--print-snippet` print the files as shipped, so a
    user's copy is the one for the server they run; `--print-config --client codex` is
    Codex's TOML of the same command; asking for two at once is a usage error."""
    import tomllib

    skill = in_process(["-C", str(root), "mcp", "--print-skill"])
    assert skill.returncode == 0 and skill.stdout == (AGENT / "SKILL.md").read_text()
    snippet = in_process(["-C", str(root), "mcp", "--print-snippet"])
    assert snippet.returncode == 0 and snippet.stdout == (AGENT / "AGENTS.md").read_text()
    assert snippet.stdout.startswith("## Writing the wiki")
    as_json = json.loads(in_process(["-C", str(root), "mcp", "--print-config"]).stdout)
    codex = in_process(["-C", str(root), "mcp", "--print-config", "--client", "codex"])
    assert codex.returncode == 0
    assert tomllib.loads(codex.stdout) == {"mcp_servers": as_json["mcpServers"]}
    docs = (DOCS / "mcp.md").read_text()
    shown = tomllib.loads(_fenced(docs, "toml", "Codex ("))
    assert set(shown["mcp_servers"]["wikigate"]) == set(as_json["mcpServers"]["wikigate"])
    for printed in ("--print-skill", "--print-snippet"):
        assert f"wikigate mcp {printed}" in docs
    both = in_process(["-C", str(root), "mcp", "--print-skill", "--print-config"])
    assert both.returncode == 2 and "one of them at a time" in both.stderr
    alone = in_process(["-C", str(root), "mcp", "--client", "codex"])
    assert alone.returncode == 2 and "--print-config" in alone.stderr
    # trial 28b N8: with --http, the URL of the server that --http starts (it was ignored)
    http = json.loads(
        in_process(["-C", str(root), "mcp", "--print-config", "--http", "8765"]).stdout
    )
    assert http == {
        "mcpServers": {"wikigate": {"type": "http", "url": "http://127.0.0.1:8765/mcp"}}
    }
    every = [
        "-C",
        str(root),
        "mcp",
        "--print-config",
        "--http",
        "0.0.0.0:9000",
        "--client",
        "codex",
    ]
    codex_http = tomllib.loads(in_process(every).stdout)
    assert codex_http == {"mcp_servers": {"wikigate": {"url": "http://127.0.0.1:9000/mcp"}}}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _listening(server: subprocess.Popen[str], port: int) -> None:
    """Wait until the server accepts connections on 127.0.0.1:port (or has exited)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert server.poll() is None, server.communicate()
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)  # polling a condition, with a deadline
    raise AssertionError(f"wikigate mcp --http {port} did not listen")


@pytest.mark.slow
def test_streamable_http_serves_each_client_its_own_session(root):
    """`wikigate mcp --http PORT` (127.0.0.1) serves the SDK's streamable HTTP client; two
    clients at once each have their own open run; stopping the server releases the run a
    client left open."""
    assert http_address("8765") == ("127.0.0.1", 8765)
    assert http_address("0.0.0.0:80") == ("0.0.0.0", 80)
    with pytest.raises(UsageError, match="expected HOST:PORT or PORT"):
        http_address("localhost")
    before = main_tip(root)
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "wikigate", "-C", str(root), "mcp", "--http", str(port)],
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}/mcp"

    async def client(page: str, leave_open: bool) -> dict[str, Any]:
        async with (
            streamable_http_client(url) as (read, write),
            ClientSession(read, write) as s,
        ):
            await s.initialize()
            run_id = ok(await s.call_tool("start_run", {"type": "synthesis"}))["run_id"]
            ok(await s.call_tool("write", {"path": page, "content": "# P\n\nText.\n"}))
            seen = ok(await s.call_tool("list", {"under": "wiki/"}))
            if not leave_open:
                ok(await s.call_tool("abandon", {"reason": "done looking"}))
            return {"run_id": run_id, "seen": seen}

    async def both() -> list[dict[str, Any]]:
        return list(await asyncio.gather(client("wiki/a.md", False), client("wiki/b.md", True)))

    try:
        _listening(server, port)
        a, b = asyncio.run(both())
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            code = server.wait(timeout=60)
        finally:
            if server.poll() is None:
                server.kill()
            _, err = server.communicate()
    assert code == 0, err
    assert a["run_id"] != b["run_id"]
    # each session reads its own run's staged tree
    assert a["seen"]["where"] == f"run {a['run_id']}" and "wiki/a.md" in a["seen"]["paths"]
    assert "wiki/b.md" not in a["seen"]["paths"]
    assert b["seen"]["where"] == f"run {b['run_id']}" and "wiki/b.md" in b["seen"]["paths"]
    assert "wiki/a.md" not in b["seen"]["paths"]
    assert runs(root) == {a["run_id"]: "abandoned", b["run_id"]: "abandoned"}
    ws = Workspace.open(root)
    try:
        assert "done looking" in ws.run(a["run_id"]).refresh()["reject_reason"]
        assert "the MCP server stopped" in ws.run(b["run_id"]).refresh()["reject_reason"]
    finally:
        ws.close()
    assert main_tip(root) == before


def test_a_findings_claim_id_is_found_for_a_claim_shown_without_its_conflict_marker(root):
    """A consistency finding shows its claim without the ``[conflict: …]`` marker (the
    page's note, not the claim's words): the claim's id is still read for it, also when
    another claim shares its line."""
    from wikigate.mcp_server import findings_data
    from wikigate.models import Finding

    ws = Workspace.open(root)
    try:
        run = ws.start_run("ingest", "cli:test")
        run.stage_write("raw/owls.txt", SOURCE)
        line = (
            "Barn owls hunt at night.[^1] Barn owls can hear a mouse under snow "
            "[conflict: raw/owls.txt says otherwise].[^1]"
        )
        page = f'---\ntitle: Owls\n---\n# Owls\n\n{line}\n\n[^1]: raw/owls.txt — "{SOURCE[:24]}"\n'
        run.stage_write("wiki/owls.md", page)
        tip = str(run.stage_write("wiki/index.md", INDEX))
        shown = "Barn owls can hear a mouse under snow."
        f = Finding(
            code="claim.source_conflict",
            severity="major",
            message="m",
            path="wiki/owls.md",
            line=6,
            claim=shown,
            claim_line=6,
        )
        (data,) = findings_data(ws, [f], tip)
    finally:
        ws.close()
    assert data["claim_id"] == "wiki/owls.md#^1@2", data
