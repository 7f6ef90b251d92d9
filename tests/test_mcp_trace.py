"""The trace of a run written through ``wikigate mcp`` (docs/mcp.md, "The trace"): the
SDK's own client (``mcp.Client``) drives the real server in-process (``build_server``
on a ``Session``, as ``wikigate mcp`` serves it), on a real workspace, with the product's
verifier; the trace is read back from git and the pin from the telemetry database."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pygit2
import pytest
from mcp import Client
from test_mcp import INDEX, QUOTE, SOURCE, main_tip, ok, owls, text

from wikigate.mcp_server import Session, build_server
from wikigate.trace import GENESIS, TraceEvent, TraceOp, event_message, link, trace_ref
from wikigate.verifier.citation import format_tail
from wikigate.workspace import Workspace

NIGHT = "Barn owls hunt at night."  # the source's first sentence: offset 0
TAIL = format_tail("raw/owls.txt", None, QUOTE, SOURCE.index(QUOTE))


def hunting() -> str:
    """The owls page with a second claim, quoting the source's first sentence."""
    night = format_tail("raw/owls.txt", None, NIGHT, 0)
    return (
        owls(TAIL).replace("snow.[^1]\n", "snow.[^1] Barn owls hunt at night.[^2]\n")
        + f"[^2]: {night}\n"
    )


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A workspace whose main holds raw/owls.txt, cited by wiki/owls.md: landed by a run
    through the Python API (no trace)."""
    ws = Workspace.init(tmp_path / "w")
    run = ws.start_run("ingest", "cli:test")
    run.stage_write("raw/owls.txt", SOURCE)
    run.stage_write("wiki/owls.md", owls(TAIL))
    run.stage_write("wiki/index.md", INDEX)
    assert run.finalize().status == "committed"
    ws.close()
    return tmp_path / "w"


def session(root: Path, body: Callable[[Client], Awaitable[Any]]) -> Any:
    """Run ``body`` with the SDK's client on the server ``wikigate mcp`` builds, in this
    process; the session is released after (as on a disconnect)."""
    held = Session(str(root))

    async def main() -> Any:
        async with Client(build_server(lambda ctx: held)) as client:
            return await body(client)

    try:
        return asyncio.run(main())
    finally:
        held.release()


def events(root: Path, run_id: str) -> list[TraceEvent]:
    repo = pygit2.Repository(str(root))
    out = []
    commit = repo[repo.references[trace_ref(run_id)].target]
    while True:
        out.append(TraceEvent.model_validate_json(commit.message.partition("\n\n")[2]))
        if not commit.parents:
            return out[::-1]
        commit = commit.parents[0]


def codes(result: dict[str, Any]) -> set[str]:
    return {f["code"] for f in result["findings"]}


def test_a_faithful_session_lands_and_its_trace_is_the_calls_it_made(root):
    async def body(c: Client) -> tuple[str, dict[str, Any]]:
        run_id = ok(await c.call_tool("start_run", {"type": "synthesis"}))["run_id"]
        await c.call_tool("read", {"path": "raw/owls.txt"})
        ok(await c.call_tool("anchor", {"source": "raw/owls.txt", "quote": NIGHT}))
        ok(await c.call_tool("write", {"path": "wiki/owls.md", "content": hunting()}))
        return run_id, ok(await c.call_tool("finalize", {}))

    before = main_tip(root)
    run_id, done = session(root, body)
    assert done["status"] == "committed", done
    assert not {c for c in codes(done) if c.startswith(("trace.", "run.trace"))}
    assert main_tip(root) != before
    trace = events(root, run_id)
    assert [e.tool for e in trace] == ["start_run", "read", "anchor", "write", "finalize"]
    assert [e.seq for e in trace] == [1, 2, 3, 4, 5]
    source = pygit2.Repository(str(root)).revparse_single("main:raw/owls.txt").id
    assert {(r.path, r.blob) for r in trace[1].reads} == {("raw/owls.txt", str(source))}
    page = pygit2.Repository(str(root)).revparse_single("main:wiki/owls.md").id
    assert trace[3].op is not None and trace[3].op.blob == str(page)
    assert trace[4].ops == 1  # finalize, called on the one write
    ws = Workspace.open(root)
    try:
        row = ws.store.get(run_id)
    finally:
        ws.close()
    head = GENESIS
    for e in trace:
        head = link(head, e)
    assert row is not None and (row["trace_head"], row["trace_count"]) == (head, 5)


def test_a_claim_citing_a_source_the_session_never_read_is_flagged(root):
    async def body(c: Client) -> tuple[dict[str, Any], dict[str, Any]]:
        ok(await c.call_tool("start_run", {"type": "synthesis"}))
        # the anchor written from memory, the source never read in the session
        ok(await c.call_tool("write", {"path": "wiki/owls.md", "content": hunting()}))
        # a grep hit is one line of the source, not a read of it (docs/mcp.md)
        await c.call_tool("grep", {"text": "hunt at night", "under": "raw/"})
        first = ok(await c.call_tool("finalize", {}))
        await c.call_tool("read", {"path": "raw/owls.txt"})  # now read
        return first, ok(await c.call_tool("finalize", {}))

    before = main_tip(root)
    first, second = session(root, body)
    assert (first["status"], first["verdict"]) == ("pending", "revise"), first
    (unread,) = [f for f in first["findings"] if f["code"] == "trace.unread_source"]
    assert unread["path"] == "wiki/owls.md" and unread["severity"] == "major"
    assert unread["claim"] == NIGHT and unread["claim_id"] == "wiki/owls.md#^2"
    assert "raw/owls.txt" in unread["message"] and "never read" in unread["message"]
    # the kept claim (on main already) is not flagged; once read, the run lands
    assert second["status"] == "committed", second
    assert main_tip(root) == second["tip"] != before
    assert "trace.unread_source" not in codes(second)


def forge_reads(root: Path, run_id: str, source: str) -> None:
    """Rewrite ``run_id``'s trace in git (the chain's links recomputed) so that each of
    its reads reads as a read of raw/owls.txt at blob ``source``."""
    repo = pygit2.Repository(str(root))
    sig = pygit2.Signature("writer", "w@example.com")
    empty = repo.TreeBuilder().write()
    parent: list[pygit2.Oid] = []
    head = GENESIS
    for e in events(root, run_id):
        if e.tool == "read":
            said = json.loads(e.model_dump_json())
            said["reads"] = [{"path": "raw/owls.txt", "blob": source}]
            e = TraceEvent.model_validate(said)
        e = e.model_copy(update={"prev": head})
        head = link(head, e)
        parent = [repo.create_commit(None, sig, sig, event_message(e), empty, parent)]
    repo.references.create(trace_ref(run_id), parent[0], force=True)


def test_a_trace_edited_after_the_fact_is_detected(root):
    """The writer controls git: it rewrites the trace's ref so that its read of the index
    reads as a read of the source, the chain's links recomputed. The head wikigate pinned in
    the telemetry database does not match: the run is rejected, not landed."""
    source = str(pygit2.Repository(str(root)).revparse_single("main:raw/owls.txt").id)

    async def body(c: Client) -> dict[str, Any]:
        run_id = ok(await c.call_tool("start_run", {"type": "synthesis"}))["run_id"]
        await c.call_tool("read", {"path": "wiki/index.md"})
        ok(await c.call_tool("write", {"path": "wiki/owls.md", "content": hunting()}))
        forge_reads(root, run_id, source)
        return ok(await c.call_tool("finalize", {}))

    before = main_tip(root)
    done = session(root, body)
    assert (done["status"], done["verdict"]) == ("rejected", "reject"), done
    (tampered,) = [f for f in done["findings"] if f["code"] == "run.trace_tampered"]
    assert tampered["severity"] == "critical"
    assert "not what wikigate recorded" in tampered["message"]
    assert main_tip(root) == before


def test_a_change_staged_outside_the_session_is_not_the_traced_writes(root):
    """A write through the CLI's library on the session's run (outside the session): the
    run's ops are not the session's writes, and finalize saw an op it did not stage."""

    async def body(c: Client) -> dict[str, Any]:
        run_id = ok(await c.call_tool("start_run", {"type": "synthesis"}))["run_id"]
        await c.call_tool("read", {"path": "raw/owls.txt"})
        ok(await c.call_tool("write", {"path": "wiki/owls.md", "content": hunting()}))
        ws = Workspace.open(root)
        try:
            ws.run(run_id).stage_write("wiki/owls.md", hunting() + "\nMore.\n")
        finally:
            ws.close()
        return ok(await c.call_tool("finalize", {}))

    done = session(root, body)
    assert done["status"] == "rejected", done
    mismatch = [f for f in done["findings"] if f["code"] == "trace.write_mismatch"]
    assert mismatch and mismatch[0]["path"] == "wiki/owls.md"
    assert "staged outside the session" in mismatch[0]["message"]
    (order,) = [f for f in done["findings"] if f["code"] == "trace.order"]
    assert "finalize (event 4) was called on a run of 2 ops" in order["message"]


def test_a_cli_run_is_marked_as_having_no_trace(root):
    ws = Workspace.open(root)
    try:
        run = ws.start_run("synthesis", "cli:test")
        run.stage_write("wiki/owls.md", hunting())
        done = run.finalize()
        assert done.status == "committed"  # allowed by default
        assert not ws.repo.references.get(trace_ref(run.run_id))
        assert done.report is not None
        (check,) = [c for c in done.report["checks"] if c["name"] == "trace"]
        assert check["status"] == "skipped" and "has no trace" in check["reason"]
        assert any("the run has no trace" in s for s in done.blind_spots)
        assert not [f for f in done.findings if f.code.startswith("trace.")]
        # the rule may say otherwise: a run with no trace is then a finding
        rules = ws.start_run("synthesis", "cli:test")
        toml = (root / "wikigate.toml").read_text()
        rules.stage_write("wikigate.toml", toml + '\n[trace]\nabsent = "major"\n')
    finally:
        ws.close()
    landed = Workspace.open(root)
    try:
        # a rules change waits for a person: approve it, then the rule holds
        from wikigate.cli import main as cli

        assert landed.run(rules.run_id).finalize().verdict == "needs_human_review"
        assert cli(["-C", str(root), "verify", "approve", rules.run_id, "--reason", "t"]) == 0
        after = landed.start_run("synthesis", "cli:test")
        after.stage_write("wiki/owls.md", hunting().replace("# Owls\n", "# Barn owls\n"))
        again = after.finalize()
    finally:
        landed.close()
    (absent,) = [f for f in again.findings if f.code == "trace.absent"]
    assert absent.severity == "major" and again.verdict == "revise", again.findings


def traced_run(root: Path) -> tuple[Workspace, Any]:
    """A run whose trace wikigate recorded (through the engine's ``Run.trace``, as the
    server records it): start_run, a read of the source, the page's write."""
    ws = Workspace.open(root)
    run = ws.start_run("synthesis", "mcp:test")
    run.trace("start_run", {"type": "synthesis"}, run.run_id)
    source = str(ws.repo.revparse_single("main:raw/owls.txt").id)
    run.trace("read", {"path": "raw/owls.txt"}, SOURCE, reads=[("raw/owls.txt", source)])
    commit = run.stage_write("wiki/owls.md", hunting())
    blob = str(ws.repo[commit].tree["wiki/owls.md"].id)
    run.trace("write", {}, str(commit), op=TraceOp(kind="write", path="wiki/owls.md", blob=blob))
    return ws, run


def test_the_engine_recorded_trace_lands(root):
    ws, run = traced_run(root)
    try:
        done = run.finalize()
    finally:
        ws.close()
    assert done.status == "committed", done.findings


@pytest.mark.parametrize("edit", ["deleted", "cut short", "grown past the pin"])
def test_a_trace_ref_deleted_cut_or_grown_is_tampered(root, edit):
    ws, run = traced_run(root)
    ref = trace_ref(run.run_id)
    try:
        tip = ws.repo.references[ref].target
        if edit == "deleted":
            ws.repo.references.delete(ref)
        elif edit == "cut short":
            ws.repo.references.create(ref, ws.repo[tip].parents[0].id, force=True)
        else:  # a long forged chain on top: read no further than the pin allows
            sig = pygit2.Signature("writer", "w@example.com")
            empty = ws.repo.TreeBuilder().write()
            for n in range(4, 400):
                e = TraceEvent(seq=n, tool="read", args="0", result="0")
                tip = ws.repo.create_commit(None, sig, sig, event_message(e), empty, [tip])
            ws.repo.references.create(ref, tip, force=True)
        done = run.finalize()
    finally:
        ws.close()
    assert done.status == "rejected"
    (tampered,) = [f for f in done.findings if f.code == "run.trace_tampered"]
    said = {
        "deleted": "is gone; wikigate recorded 3 events on it",
        "cut short": "the trace holds 2 events; wikigate recorded 3",
        "grown past the pin": "holds more than the 3 events recorded",
    }[edit]
    assert said in tampered.message


def test_a_source_an_earlier_runs_trace_read_counts_as_read(root):
    """One session reads the source and gives its run up; the next cites it unread: the
    earlier run's trace (as the database recorded it) shows it was read."""

    async def reader(c: Client) -> None:
        ok(await c.call_tool("start_run", {"type": "synthesis"}))
        await c.call_tool("read", {"path": "raw/owls.txt"})
        ok(await c.call_tool("abandon", {"reason": "read only"}))

    async def writer(c: Client) -> dict[str, Any]:
        ok(await c.call_tool("start_run", {"type": "synthesis"}))
        ok(await c.call_tool("write", {"path": "wiki/owls.md", "content": hunting()}))
        return ok(await c.call_tool("finalize", {}))

    session(root, reader)
    done = session(root, writer)
    assert done["status"] == "committed", done
    assert "trace.unread_source" not in codes(done)


@pytest.mark.parametrize("forgery", ["a database row", "a rewritten earlier trace"])
def test_an_earlier_read_is_taken_from_the_earlier_trace_in_git_not_a_row(root, forgery):
    """The reviewer's forgery: an earlier session read only the index; the writer, whose
    account can write the telemetry database, adds a row saying that session read the
    source (the table verification once trusted), or rewrites that session's trace in git.
    The earlier run's read is read back from its trace, held to its pin: the source the
    writing session never read is still unread, and the report says what the trace can
    prove only under another account."""
    source = str(pygit2.Repository(str(root)).revparse_single("main:raw/owls.txt").id)

    async def reader(c: Client) -> str:
        run_id = ok(await c.call_tool("start_run", {"type": "synthesis"}))["run_id"]
        await c.call_tool("read", {"path": "wiki/index.md"})
        ok(await c.call_tool("abandon", {"reason": "read only"}))
        return str(run_id)

    async def writer(c: Client) -> dict[str, Any]:
        ok(await c.call_tool("start_run", {"type": "synthesis"}))
        ok(await c.call_tool("write", {"path": "wiki/owls.md", "content": hunting()}))
        return ok(await c.call_tool("finalize", {}))

    earlier = session(root, reader)
    if forgery == "a database row":
        db = sqlite3.connect(root / ".git" / "wikigate" / "telemetry.db")
        with db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS trace_reads (run_id TEXT, path TEXT, "
                "PRIMARY KEY (run_id, path))"
            )
            db.execute("INSERT INTO trace_reads VALUES (?, 'raw/owls.txt')", [earlier])
        db.close()
    else:
        forge_reads(root, earlier, source)
    before = main_tip(root)
    done = session(root, writer)
    assert (done["status"], done["verdict"]) == ("pending", "revise"), done
    (unread,) = [f for f in done["findings"] if f["code"] == "trace.unread_source"]
    assert unread["claim"] == NIGHT and "never read" in unread["message"]
    assert main_tip(root) == before
    (spot,) = [b for b in done["blind_spots"] if b.startswith("trace: ")]
    assert "evidence against the writer only if the writer runs under another account" in spot


@pytest.mark.parametrize("kind", ["blob", "tree"])
def test_a_trace_ref_pointed_at_a_non_commit_is_tampered_not_a_git_error(root, kind):
    """The writer points the session's trace ref at a blob (or a tree). Every later call
    says the trace is not the one recorded, in words, never git's ("the requested type does
    not match the type in the ODB"), and finalize rejects the run with run.trace_tampered
    rather than failing and leaving it pending."""
    repo = pygit2.Repository(str(root))

    async def body(c: Client) -> tuple[str, Any, dict[str, Any], Any]:
        run_id = ok(await c.call_tool("start_run", {"type": "synthesis"}))["run_id"]
        await c.call_tool("read", {"path": "raw/owls.txt"})
        ok(await c.call_tool("write", {"path": "wiki/owls.md", "content": hunting()}))
        target = repo.create_blob(b"hi\n") if kind == "blob" else repo.TreeBuilder().write()
        repo.references.create(trace_ref(run_id), target, force=True)
        read = await c.call_tool("read", {"path": "wiki/index.md"})
        done = ok(await c.call_tool("finalize", {}))
        after = await c.call_tool("read", {"path": "wiki/index.md"})  # the run is over
        return run_id, read, done, after

    before = main_tip(root)
    run_id, read, done, after = session(root, body)
    assert read.is_error
    said = text(read)
    assert f"leads to a {kind.capitalize()}, not a commit" in said
    assert "run.trace_tampered" in said and "requested type" not in said
    assert (done["status"], done["verdict"]) == ("rejected", "reject"), done
    (tampered,) = [f for f in done["findings"] if f["code"] == "run.trace_tampered"]
    assert f"leads to a {kind.capitalize()}, not a commit" in tampered["message"]
    assert main_tip(root) == before
    assert not after.is_error, text(after)  # main, read with no run open


def test_a_commit_added_to_the_run_outside_the_session_is_a_verdict(root, capsys):
    """A commit made with git on the session's run branch (no op of the run): finalize
    rejects the run with a finding that names the commit, not a tool error that leaves it
    pending."""
    repo = pygit2.Repository(str(root))

    async def body(c: Client) -> tuple[str, dict[str, Any]]:
        run_id = ok(await c.call_tool("start_run", {"type": "synthesis"}))["run_id"]
        await c.call_tool("read", {"path": "raw/owls.txt"})
        ok(await c.call_tool("write", {"path": "wiki/owls.md", "content": hunting()}))
        branch = f"refs/heads/wikigate/runs/{run_id}"
        tip = repo.references[branch].target
        sig = pygit2.Signature("writer", "w@example.com")
        blob = repo.create_blob(hunting() + "\nOwls are world class. [gap: x]\n")
        builder = pygit2.IndexEntry("wiki/owls.md", blob, pygit2.GIT_FILEMODE_BLOB)
        index = pygit2.Index()
        index.read_tree(repo[tip].tree)
        index.add(builder)
        sneaky = repo.create_commit(None, sig, sig, "sneaky", index.write_tree(repo), [tip])
        repo.references.create(branch, sneaky, force=True)
        return str(sneaky), ok(await c.call_tool("finalize", {}))

    before = main_tip(root)
    sneaky, done = session(root, body)
    assert (done["status"], done["verdict"]) == ("rejected", "reject"), done
    (forged,) = [f for f in done["findings"] if f["code"] == "run.forged"]
    assert f"commit {sneaky[:7]} is not part of run" in forged["message"]
    assert main_tip(root) == before
    # review 37a #4: the person who must look at a forged run sees its record
    from wikigate.cli import main as cli

    capsys.readouterr()
    assert cli(["-C", str(root), "runs", "show", done["run_id"]]) == 0
    shown = capsys.readouterr().out
    assert "rejected" in shown and "run.forged" in shown, shown
    assert f"ops: unreadable (commit {sneaky[:7]} is not part of run" in shown
    assert cli(["-C", str(root), "runs", "show", done["run_id"], "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["status"] == "rejected" and record["ops"] == []
    assert "is not part of run" in record["ops_unreadable"]


def test_earlier_traces_past_the_bound_are_not_read_and_the_report_says_so(root, monkeypatch):
    """At most EARLIER_RUNS earlier traces are read back, newest first: a source only an
    older run read counts as unread, and the blind spot says how that came about."""
    import wikigate.run
    from wikigate.verifier.checks import trace as trace_check

    monkeypatch.setattr(wikigate.run, "EARLIER_RUNS", 1)
    monkeypatch.setattr(trace_check, "EARLIER_RUNS", 1)

    def reading(path: str) -> Callable[[Client], Awaitable[None]]:
        async def body(c: Client) -> None:
            ok(await c.call_tool("start_run", {"type": "synthesis"}))
            await c.call_tool("read", {"path": path})
            ok(await c.call_tool("abandon", {"reason": "read only"}))

        return body

    async def writer(c: Client) -> dict[str, Any]:
        ok(await c.call_tool("start_run", {"type": "synthesis"}))
        ok(await c.call_tool("write", {"path": "wiki/owls.md", "content": hunting()}))
        return ok(await c.call_tool("finalize", {}))

    session(root, reading("raw/owls.txt"))  # the older run: past the bound
    session(root, reading("wiki/index.md"))
    done = session(root, writer)
    assert done["verdict"] == "revise" and "trace.unread_source" in codes(done), done
    (spot,) = [b for b in done["blind_spots"] if b.startswith("trace: ")]
    assert "the traces of more earlier runs were not read (past the newest 1 runs" in spot


def two_sessions(root: Path, body: Callable[[Client, Client], Awaitable[Any]]) -> Any:
    """Run ``body`` with two SDK clients, each on its own session of the server, at once."""
    held = Session(str(root)), Session(str(root))

    async def main() -> Any:
        async with (
            Client(build_server(lambda ctx: held[0])) as a,
            Client(build_server(lambda ctx: held[1])) as b,
        ):
            return await body(a, b)

    try:
        return asyncio.run(main())
    finally:
        for s in held:
            s.release()


def test_two_sessions_editing_other_lines_of_the_index_both_land(root):
    """Review 37a #1: the second session to finalize is rebased onto the first's change (a
    three-way merge of the index, as the CLI does); the merged index is wikigate's own
    doing, not a change staged outside the session, so the run lands. The rebase is an
    event of its trace."""

    async def body(a: Client, b: Client) -> tuple[str, dict[str, Any], dict[str, Any]]:
        run_a = ok(await a.call_tool("start_run", {"type": "synthesis"}))["run_id"]
        ok(await b.call_tool("start_run", {"type": "synthesis"}))
        for c, old, new in ((a, "title: Index", "title: The index"), (b, "# Index", "# Owl index")):
            await c.call_tool("read", {"path": "wiki/index.md"})
            ok(await c.call_tool("replace", {"path": "wiki/index.md", "old": old, "new": new}))
        first = ok(await b.call_tool("finalize", {}))
        return run_a, first, ok(await a.call_tool("finalize", {}))

    run_a, first, second = two_sessions(root, body)
    assert first["status"] == "committed", first
    assert second["status"] == "committed", second["findings"]
    assert not [f for f in second["findings"] if f["code"].startswith("trace.")]
    index = pygit2.Repository(str(root)).revparse_single("main:wiki/index.md").data.decode()
    assert "title: The index" in index and "# Owl index" in index
    trace = events(root, run_a)
    assert [e.tool for e in trace][-2:] == ["finalize", "rebase"]
    assert {(r.path, r.blob) for r in trace[-1].reads} == {
        (
            "wiki/index.md",
            str(pygit2.Repository(str(root)).revparse_single("main:wiki/index.md").id),
        )
    }


def test_a_change_made_outside_the_session_is_caught_after_main_moved(root):
    """Main moved (another session landed an index change) and a commit of the run is
    amended with git: the run is not laundered by its replay onto main; the amended blob
    is neither the session's nor wikigate's merge."""
    repo = pygit2.Repository(str(root))

    async def body(a: Client, b: Client) -> dict[str, Any]:
        run_a = ok(await a.call_tool("start_run", {"type": "synthesis"}))["run_id"]
        ok(await b.call_tool("start_run", {"type": "synthesis"}))
        await a.call_tool("read", {"path": "raw/owls.txt"})
        ok(await a.call_tool("write", {"path": "wiki/owls.md", "content": hunting()}))
        ok(
            await a.call_tool(
                "replace",
                {"path": "wiki/index.md", "old": "title: Index", "new": "title: The index"},
            )
        )
        ok(
            await b.call_tool(
                "replace", {"path": "wiki/index.md", "old": "# Index", "new": "# Owl index"}
            )
        )
        assert ok(await b.call_tool("finalize", {}))["status"] == "committed"
        # a's run is sent back (an uncited sentence) ...
        page = hunting() + "\nOwls are quiet.\n"
        ok(await a.call_tool("write", {"path": "wiki/owls.md", "content": page}))
        back = ok(await a.call_tool("finalize", {}))
        assert back["status"] == "pending", back
        # ... then its last commit is amended with git, keeping the op's message
        branch = f"refs/heads/wikigate/runs/{run_a}"
        tip = repo[repo.references[branch].target]
        blob = repo.create_blob(repo[tip.tree["wiki/index.md"].id].data + b"\nSneaky.\n")
        index = pygit2.Index()
        index.read_tree(tip.tree)
        index.add(pygit2.IndexEntry("wiki/index.md", blob, pygit2.GIT_FILEMODE_BLOB))
        amended = repo.create_commit(
            None, tip.author, tip.committer, tip.message, index.write_tree(repo), tip.parent_ids
        )
        repo.references.create(branch, amended, force=True)
        ok(await a.call_tool("write", {"path": "wiki/owls.md", "content": hunting()}))
        return ok(await a.call_tool("finalize", {}))

    done = two_sessions(root, body)
    assert done["status"] != "committed", done
    mismatch = [f for f in done["findings"] if f["code"] == "trace.write_mismatch"]
    assert mismatch and mismatch[0]["path"] == "wiki/index.md", done["findings"]


def test_a_rebase_vouches_only_for_what_the_session_staged(root):
    """The finalizer's ``rebase`` event names a merged page only when, before the replay,
    the page held the blob the session staged: a page changed outside the session (here
    with git, the op's message kept) is not vouched for by merging it with main."""
    ws, run = traced_run(root)
    try:
        repo = ws.repo
        tip = repo[run.tip()]
        staged = tip.tree["wiki/owls.md"].id
        merged = repo.create_blob(repo[staged].data + b"\nMerged.\n")

        def commit_with(blob: pygit2.Oid) -> pygit2.Oid:
            index = pygit2.Index()
            index.read_tree(tip.tree)
            index.add(pygit2.IndexEntry("wiki/owls.md", blob, pygit2.GIT_FILEMODE_BLOB))
            tree = index.write_tree(repo)
            return repo.create_commit(None, tip.author, tip.committer, tip.message, tree, [])

        main = repo.references["refs/heads/main"].target
        honest = commit_with(merged)
        run.trace_rebase(tip.id, honest, main, {"wiki/owls.md"})
        (vouched,) = events(root, run.run_id)[-1:]
        assert vouched.tool == "rebase"
        assert [(r.path, r.blob) for r in vouched.reads] == [("wiki/owls.md", str(merged))]
        sneaky = commit_with(repo.create_blob(b"# Owls\n\nSneaky.\n"))
        run.trace_rebase(sneaky, honest, main, {"wiki/owls.md"})
        assert events(root, run.run_id)[-1].reads == ()
    finally:
        ws.close()


# ---------------------------------------------------------------- the pin and a rebuild


def unread_run(root: Path) -> tuple[Workspace, Any]:
    """A traced run whose page cites raw/owls.txt, which its trace never read."""
    ws = Workspace.open(root)
    run = ws.start_run("synthesis", "mcp:test")
    run.trace("start_run", {"type": "synthesis"}, run.run_id)
    commit = run.stage_write("wiki/owls.md", hunting())
    blob = str(ws.repo[commit].tree["wiki/owls.md"].id)
    run.trace("write", {}, str(commit), op=TraceOp(kind="write", path="wiki/owls.md", blob=blob))
    return ws, run


def test_a_rebuild_while_a_traced_run_is_open_keeps_its_pin(root):
    """Trial 28b N1: `wikigate telemetry rebuild` during an MCP run dropped its trace pin,
    the run then read as written outside the server (no trace checks) and a claim citing a
    source never read landed; the pin is wikigate's record, kept through a rebuild."""
    ws, run = unread_run(root)
    try:
        before = ws.store.get(run.run_id)
        ws.rebuild_telemetry()
        after = ws.store.get(run.run_id)
        assert (after["trace_head"], after["trace_count"]) == (
            before["trace_head"],
            before["trace_count"],
        )
        done = run.finalize()
    finally:
        ws.close()
    assert done.status != "committed"
    assert "trace.unread_source" in {f.code for f in done.findings}


def test_a_trace_in_git_whose_pin_is_gone_is_tampered(root):
    """A run with a trace in git and no pin in the database (the database replaced while
    the run was open) holds to nothing: run.trace_tampered, not a run with no trace."""
    ws, run = unread_run(root)
    try:
        ws.store.update_run(run.run_id, trace_head=None, trace_count=None)
        done = run.finalize()
    finally:
        ws.close()
    assert done.status == "rejected"
    (tampered,) = [f for f in done.findings if f.code == "run.trace_tampered"]
    assert trace_ref(run.run_id) in tampered.message and "start a new run" in tampered.message


def test_an_empty_run_whose_trace_was_tampered_is_rejected_not_abandoned(root):
    """Trial 28b N4: a trace rolled back before anything was staged, then finalize: the
    run ended "abandoned: the run changes nothing", with nothing of the tampering on
    record; it is verified, and rejected as run.trace_tampered."""
    ws = Workspace.open(root)
    try:
        run = ws.start_run("synthesis", "mcp:test")
        run.trace("start_run", {"type": "synthesis"}, run.run_id)
        run.trace("list", {}, "wiki/owls.md")
        ws.repo.references.delete(trace_ref(run.run_id))
        done = run.finalize()
    finally:
        ws.close()
    assert done.status == "rejected", done
    assert "run.trace_tampered" in {f.code for f in done.findings}
