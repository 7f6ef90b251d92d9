"""A new user's trial of ``wikigate mcp`` (issue 28, trial 28): the SDK's own client
(``mcp.Client``) drives the server in-process (``session`` of test_mcp_trace.py: main
holds raw/owls.txt, wiki/owls.md, wiki/index.md), on a real workspace, with the product's
verifier; and one fix through the verifier alone (a semantic finding's line)."""

from __future__ import annotations

import json
from typing import Any

import pygit2
from mcp import Client
from support.helpers import in_process
from support.trees import at, commit_files
from support.verifying import verify_trees
from test_mcp import QUOTE, SOURCE, main_tip, ok, owls, text
from test_mcp_trace import events, root, session  # noqa: F401 - root: the fixture

from wikigate.config import Config
from wikigate.trace import trace_ref
from wikigate.verifier.citation import format_tail
from wikigate.workspace import Workspace

TAIL = format_tail("raw/owls.txt", None, QUOTE, SOURCE.index(QUOTE))

# trial 28 (mcp28f)


def run_tip(where: Any, run_id: str) -> str:
    ws = Workspace.open(where)
    try:
        return str(ws.run(run_id).tip())
    finally:
        ws.close()


def test_a_replace_without_one_match_is_a_tool_error_that_stages_nothing(root):  # noqa: F811
    """F2: `old` found 0 times, 2 times, or a page the run does not hold: each call fails
    saying so and that nothing was staged; the run stays open and lands after."""

    async def body(c: Client) -> dict[str, Any]:
        run_id = ok(await c.call_tool("start_run", {"type": "synthesis"}))["run_id"]
        before = run_tip(root, run_id)
        out: dict[str, Any] = {"run_id": run_id}
        for name, args in (
            ("zero", {"path": "wiki/index.md", "old": "title: index", "new": "x"}),
            ("two", {"path": "wiki/index.md", "old": "Index", "new": "x"}),
            ("gone", {"path": "wiki/nope.md", "old": "Index", "new": "x"}),
        ):
            out[name] = await c.call_tool("replace", args)
        out["same_tip"] = run_tip(root, run_id) == before
        args = {"path": "wiki/index.md", "old": "title: Index", "new": "title: All"}
        out["then"] = await c.call_tool("replace", args)
        out["done"] = ok(await c.call_tool("finalize", {}))
        return out

    before = main_tip(root)
    out = session(root, body)
    for name, said in (
        ("zero", "found 0 times in wiki/index.md"),
        ("two", "found 2 times in wiki/index.md"),
        ("gone", "wiki/nope.md does not exist in the run"),
    ):
        assert out[name].is_error, (name, text(out[name]))
        assert said in text(out[name]) and "nothing was staged" in text(out[name])
        assert "rejected" not in text(out[name])
    assert out["same_tip"]
    assert not out["then"].is_error, text(out["then"])
    assert out["done"]["run_id"] == out["run_id"]
    assert out["done"]["status"] == "committed", out["done"]
    assert main_tip(root) != before


def test_a_call_on_a_tampered_trace_is_refused_before_it_stages(root):  # noqa: F811
    """F8: the trace's ref moved back one event: `write` is a tool error and the page is
    not staged (the run's tip is where it was)."""

    async def body(c: Client) -> dict[str, Any]:
        run_id = ok(await c.call_tool("start_run", {"type": "synthesis"}))["run_id"]
        await c.call_tool("read", {"path": "wiki/index.md"})
        repo = pygit2.Repository(str(root))
        ref = repo.references[trace_ref(run_id)]
        ref.set_target(repo[ref.target].parents[0].id)  # the read's event dropped
        before = run_tip(root, run_id)
        args = {"path": "wiki/t.md", "content": "# T\n\nx [gap: y].\n"}
        said = await c.call_tool("write", args)
        return {"said": said, "same_tip": run_tip(root, run_id) == before}

    out = session(root, body)
    assert out["said"].is_error
    assert "nothing was done" in text(out["said"]) and "write was done" not in text(out["said"])
    assert out["same_tip"], "the page was staged"


def test_a_write_outside_the_scope_is_refused_and_usage_over_budget_warns(root):  # noqa: F811
    """F9: with scope wiki/owls.md, a write, replace or delete of another page is a tool
    error naming the scope; nothing is staged and the run stays open. `usage` over the
    budget says so (text and `over_budget`); finalize still rejects it, and says the run
    is closed (F1)."""

    async def body(c: Client) -> dict[str, Any]:
        start = {"type": "synthesis", "scope": ["wiki/owls.md"], "budget_usd": 0.1}
        run_id = ok(await c.call_tool("start_run", start))["run_id"]
        before = run_tip(root, run_id)
        out: dict[str, Any] = {
            "write": await c.call_tool("write", {"path": "wiki/index.md", "content": "# I\n"}),
            "replace": await c.call_tool(
                "replace", {"path": "wiki/index.md", "old": "title: Index", "new": "title: A"}
            ),
            "delete": await c.call_tool("delete", {"path": "wiki/index.md"}),
        }
        out["same_tip"] = run_tip(root, run_id) == before
        await c.call_tool("read", {"path": "raw/owls.txt"})
        page = owls(TAIL).replace("# Owls\n", "# Barn owls\n")
        out["in_scope"] = await c.call_tool("write", {"path": "wiki/owls.md", "content": page})
        out["usage"] = await c.call_tool(
            "usage", {"input_tokens": 10, "output_tokens": 10, "usd": 0.5}
        )
        out["done"] = ok(await c.call_tool("finalize", {}))
        return out

    out = session(root, body)
    for name in ("write", "replace", "delete"):
        said = text(out[name])
        assert out[name].is_error, (name, said)
        assert "outside the scope this run declared (wiki/owls.md)" in said, said
        assert "nothing was staged and the run stays open" in said
    assert out["same_tip"]
    assert not out["in_scope"].is_error, text(out["in_scope"])
    usage = ok(out["usage"])
    assert usage["over_budget"] == ["usd: used 0.5, budget 0.1"]
    assert "warning: over the run's declared budget" in text(out["usage"])
    done = out["done"]
    assert done["status"] == "rejected" and "run.budget" in {f["code"] for f in done["findings"]}
    assert done["run_open"] is False and done["loops_left"] == 0


def test_a_rejected_run_says_it_is_closed_and_to_redo_the_change_on_a_new_run(root):  # noqa: F811
    """F1, F10: a paraphrased quote is critical: the run is rejected at loop 1. The result
    says the run is closed (`run_open`), and its first next action is to start a new run,
    not to edit this one; a revise says how many loops are left."""
    wrong = 'raw/owls.txt — "They hear mice under the snow."'  # not in the source

    async def body(c: Client) -> tuple[Any, dict[str, Any], Any]:
        ok(await c.call_tool("start_run", {"type": "synthesis"}))
        await c.call_tool("read", {"path": "raw/owls.txt"})
        missing = owls(TAIL).replace("# Owls\n", "# Barn owls\n") + "\nOwls are birds.\n"
        ok(await c.call_tool("write", {"path": "wiki/owls.md", "content": missing}))
        revise = ok(await c.call_tool("finalize", {}))
        ok(await c.call_tool("write", {"path": "wiki/owls.md", "content": owls(wrong)}))
        rejected = await c.call_tool("finalize", {})
        after = await c.call_tool("write", {"path": "wiki/owls.md", "content": owls(TAIL)})
        return revise, ok(rejected), (text(rejected), after)

    revise, rejected, (said, after) = session(root, body)
    assert revise["verdict"] == "revise", revise
    assert (revise["run_open"], revise["loops_max"], revise["loops_left"]) == (True, 3, 2)
    assert rejected["status"] == "rejected", rejected
    assert "citation.quote_not_found" in {f["code"] for f in rejected["findings"]}
    assert (rejected["run_open"], rejected["loops_left"]) == (False, 0)
    (action,) = rejected["next_actions"]
    assert action.startswith(
        "the run is closed: start a new run (`start_run`), read the sources again and redo "
        "the change, fixing: "
    ), action
    assert "quote" in action
    assert action in said  # the text says it too
    assert after.is_error and "no run is open" in text(after)


def test_reads_made_before_start_run_count_for_the_run(root):  # noqa: F811
    """F7: an agent reads and anchors the source, then starts the run: its start_run event
    names the reads, and a claim citing the source is not `trace.unread_source`."""

    async def body(c: Client) -> tuple[str, dict[str, Any]]:
        await c.call_tool("read", {"path": "raw/owls.txt"})
        ok(await c.call_tool("anchor", {"source": "raw/owls.txt", "quote": QUOTE}))
        run_id = ok(await c.call_tool("start_run", {"type": "synthesis"}))["run_id"]
        page = owls(TAIL).replace("# Owls\n", "# Barn owls\n")
        ok(await c.call_tool("write", {"path": "wiki/owls.md", "content": page}))
        return run_id, ok(await c.call_tool("finalize", {}))

    run_id, done = session(root, body)
    assert "trace.unread_source" not in {f["code"] for f in done["findings"]}, done
    assert done["status"] == "committed", done
    start = events(root, run_id)[0]
    assert start.tool == "start_run" and [r.path for r in start.reads] == ["raw/owls.txt"]


def test_a_person_s_command_in_next_actions_names_the_run(root):  # noqa: F811
    """F10: a rules change waits for a person; the next action's `wikigate verify approve`
    names this run, not a RUN placeholder."""

    async def body(c: Client) -> dict[str, Any]:
        ok(await c.call_tool("start_run", {"type": "synthesis"}))
        rules = (root / "wikigate.toml").read_text() + "\n# a note\n"
        ok(await c.call_tool("write", {"path": "wikigate.toml", "content": rules}))
        return ok(await c.call_tool("finalize", {}))

    done = session(root, body)
    assert done["verdict"] == "needs_human_review", done
    assert done["run_open"] is False
    named = [a for a in done["next_actions"] if "wikigate verify approve" in a]
    assert named, done["next_actions"]
    for a in named:
        assert f"wikigate verify approve {done['run_id']} " in a and " RUN " not in a


def test_a_semantic_finding_points_at_its_claims_line_in_a_wrapped_paragraph(tmp_path):
    """F3: in a hard-wrapped paragraph, the offline judge's finding on the second claim
    names the line that claim is on (its claim_line), not the paragraph's first line."""
    repo = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    source = "Minutes, Q3 2024.\nAfter a long debate the committee decided to adopt the plan.\n"
    quote = "the committee decided to adopt the plan"
    tail = format_tail("raw/m.txt", None, quote, source.find(quote))
    base = commit_files(repo, None, {"raw/m.txt": source})
    page = (
        "---\ntitle: P\n---\n# P\n\n"
        "In Q3 2024 the committee decided to adopt the plan.[^1]\n"
        "The committee rejected the plan.[^2]\n\n"
        f"[^1]: {tail}\n[^2]: {tail}\n"
    )
    tip = commit_files(repo, base.id, {"wiki/p.md": page})
    report = verify_trees(repo, tip, base, config=Config())
    (flag,) = at(report, "citation.semantic_conflict")
    assert flag.message.startswith("[^2]"), flag.message
    assert flag.claim_line == 7  # line 6 holds the first claim
    assert flag.line == 10  # located at its footnote, as the citation findings are


def test_an_http_client_that_goes_away_keeps_its_run_till_the_server_stops(root):  # noqa: F811
    """F6: over --http, a session whose SDK connection is gone (collected) is not released
    then, at a time no one can tell: its run stays pending, and the server's stop
    releases it."""
    import gc
    from types import SimpleNamespace

    from wikigate.mcp_server import HttpSessions

    class Connection:  # stands for the SDK's connection object, one per MCP session
        pass

    sessions = HttpSessions(str(root))
    connection = Connection()
    held = sessions(SimpleNamespace(session=SimpleNamespace(_connection=connection)))
    start = (held.start_run, "synthesis", "mcp:start_run", {}, None, None)
    run_id = held._pool.submit(*start).result()
    del connection, held
    gc.collect()
    ws = Workspace.open(root)
    try:
        assert ws.store.get(run_id)["status"] == "pending"
    finally:
        ws.close()
    assert sessions.release() == [run_id]
    ws = Workspace.open(root)
    try:
        row = ws.store.get(run_id)
        assert row["status"] == "abandoned" and "server stopped" in row["reject_reason"]
    finally:
        ws.close()


# trial 28 (mcp28h)


def test_anchor_with_straight_quotes_of_a_curly_source_says_how_the_source_has_it(root):  # noqa: F811
    """F11: a quote typed with ' and -- where the staged source has ’ and —: the tool error
    says which characters differ and gives the footnote quoting the source as it is; the
    run stays open and that footnote anchors."""
    curly = "The owl’s call — a shriek — carries far.\n"

    async def body(c: Client) -> dict[str, Any]:
        ok(await c.call_tool("start_run", {"type": "ingest"}))
        ok(await c.call_tool("write", {"path": "raw/calls.txt", "content": curly}))
        typed = {"source": "raw/calls.txt", "quote": "The owl's call -- a shriek"}
        said = await c.call_tool("anchor", typed)
        exact = {"source": "raw/calls.txt", "quote": "The owl’s call — a shriek"}
        return {"said": said, "tail": ok(await c.call_tool("anchor", exact))["tail"]}

    out = session(root, body)
    said = text(out["said"])
    assert out["said"].is_error
    assert said.startswith("the quote does not occur in raw/calls.txt; it matches with")
    assert "’ where the quote has '" in said and "— where the quote has --" in said
    assert 'The quote as the source has it: "The owl’s call — a shriek"' in said
    assert said.endswith(f"its footnote: {out['tail']}")


def loops_listed(where: Any) -> dict[str, str]:
    """Each run's LOOPS in `wikigate runs list`, by run id (its --format json says the same)."""
    lines = in_process(["-C", str(where), "runs", "list"]).stdout.splitlines()
    at = lines[0].split().index("LOOPS")
    listed = in_process(["-C", str(where), "runs", "list", "--format", "json"]).stdout
    assert {r["run_id"]: str(r["loops"]) for r in json.loads(listed)} == {
        line.split()[0]: line.split()[at] for line in lines[1:]
    }
    return {line.split()[0]: line.split()[at] for line in lines[1:]}


def loops_shown(where: Any, run_id: str) -> tuple[str, int]:
    """`runs show`'s loops line, and its --format json's `loops`."""
    said = in_process(["-C", str(where), "runs", "show", run_id]).stdout.splitlines()
    (line,) = [x for x in said if x.startswith("loops ")]
    shown = in_process(["-C", str(where), "runs", "show", run_id, "--format", "json"]).stdout
    return line.split()[1], json.loads(shown)["loops"]


def test_a_run_never_finalized_has_had_no_loop(root):  # noqa: F811
    """F11: `runs list` showed LOOPS 1 for a run never finalized. It shows 0 (and `runs
    show` says loops 0) until a finalize decides; then the count finalize's result gives
    (loop 1: a revise), also once the run is abandoned."""

    async def body(c: Client) -> dict[str, Any]:
        run_id = ok(await c.call_tool("start_run", {"type": "synthesis"}))["run_id"]
        out: dict[str, Any] = {"run_id": run_id}
        out["open"] = (loops_listed(root)[run_id], loops_shown(root, run_id))
        page = "---\ntitle: T\n---\n# T\n\nOwls hunt voles.[^1]\n\n[^1]: raw/owls.txt\n"
        ok(await c.call_tool("write", {"path": "wiki/t.md", "content": page}))
        out["loop"] = ok(await c.call_tool("finalize", {}))["loop"]
        out["revised"] = (loops_listed(root)[run_id], loops_shown(root, run_id))
        ok(await c.call_tool("abandon", {}))
        return out

    out = session(root, body)
    assert out["open"] == ("0", ("0", 0))
    assert out["loop"] == 1 and out["revised"] == ("1", ("1", 1))
    assert loops_listed(root)[out["run_id"]] == "1"  # abandoned after its one loop


# trial 28 (mcp28i)


def test_a_footnote_typed_with_straight_quotes_gets_the_source_s_footnote_as_its_fix(root):  # noqa: F811
    """A footnote typed straight into a page (no `anchor` call) with ' and - where the
    source has ’ and —: finalize's finding is still critical, names the characters that
    differ, and carries the footnote quoting the source as it is (`suggested_tail`); a
    new run with that footnote commits."""
    curly = "The owl’s call — a shriek — carries far.\n"
    typed = format_tail("raw/calls.txt", None, "The owl's call - a shriek", None)
    page = owls(TAIL) + "\nA barn owl's call is a shriek.[^2]\n\n[^2]: TAIL\n"  # a claim added

    async def body(c: Client) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in ("typed", "fixed"):
            ok(await c.call_tool("start_run", {"type": "ingest"}))
            ok(await c.call_tool("write", {"path": "raw/calls.txt", "content": curly}))
            await c.call_tool("read", {"path": "raw/calls.txt"})
            tail = typed if name == "typed" else out["typed"]["findings"][0]["suggested_tail"]
            args = {"path": "wiki/owls.md", "content": page.replace("TAIL", tail)}
            ok(await c.call_tool("write", args))
            out[name] = ok(await c.call_tool("finalize", {}))
        return out

    out = session(root, body)
    done = out["typed"]
    (found,) = [f for f in done["findings"] if f["code"] == "citation.quote_not_found"]
    assert found["severity"] == "critical" and done["status"] != "committed", done
    exact = "The owl’s call — a shriek"
    assert found["suggested_tail"] == format_tail("raw/calls.txt", None, exact, curly.index(exact))
    assert "the source has ’ where the quote has ', — where the quote has -" in found["hint"]
    assert found["claim_id"] == "wiki/owls.md#^2"
    assert out["fixed"]["status"] == "committed", out["fixed"]["findings"]


def test_an_unread_source_finding_names_where_its_claim_s_sentence_starts(root):  # noqa: F811
    """`trace.unread_source` on a claim whose sentence is wrapped over two lines names the
    line its sentence starts on (`claim_start_line`), as other claim findings do, and the
    line of its reference (`claim_line`)."""
    night = format_tail("raw/owls.txt", None, "Barn owls hunt at night.", 0)
    page = (
        owls(TAIL).replace("snow.[^1]\n", "snow.[^1] Barn owls\nhunt at night.[^2]\n")
        + f"[^2]: {night}\n"
    )

    async def body(c: Client) -> dict[str, Any]:
        ok(await c.call_tool("start_run", {"type": "synthesis"}))
        ok(await c.call_tool("write", {"path": "wiki/owls.md", "content": page}))
        return ok(await c.call_tool("finalize", {}))  # raw/owls.txt never read

    done = session(root, body)
    (unread,) = [f for f in done["findings"] if f["code"] == "trace.unread_source"]
    assert unread["claim"] == "Barn owls hunt at night.", unread
    assert (unread["line"], unread["claim_line"], unread["claim_start_line"]) == (7, 7, 6)


def test_reading_spans_of_a_source_inflates_its_blob_once(root, monkeypatch):  # noqa: F811
    """Trial 28b N2: each `read` of a span of a source inflated the whole blob again (to see
    whether it starts as a PDF does: ~0.3 s a call for a 10 MB source); a session reads a
    source's bytes once, whatever the spans it reads of it."""
    from wikigate import gitrepo
    from wikigate.mcp_server import Session

    s = Session(str(root))
    oid = str(s.ws.repo.revparse_single("main:raw/owls.txt").id)
    inflated: list[str] = []
    blob_at = gitrepo.blob_at
    monkeypatch.setattr(
        gitrepo, "blob_at", lambda repo, o: inflated.append(str(o)) or blob_at(repo, o)
    )
    spans = [s.staged().read_page("raw/owls.txt", None, start, 10) for start in (0, 5, 10, 15)]
    assert spans[1].startswith("raw/owls.txt characters 5-15 of ")
    assert inflated.count(oid) <= 1


def test_a_call_that_would_rewrite_the_log_is_refused_and_stages_nothing(root):  # noqa: F811
    """Trial 28b N7: in a scoped run, a `replace` that rewrote the log's existing text was
    staged, then the whole run was rejected at finalize (run.log_rewrite); a write, replace
    or delete that would leave the log other than an append is a tool error, staging
    nothing; an append lands."""
    log = (root / "wiki" / "log.md").read_text()
    last = log.rstrip("\n").rsplit("\n", 1)[-1]

    async def body(c: Client) -> dict[str, Any]:
        ok(await c.call_tool("start_run", {"type": "synthesis", "scope": ["wiki/owls.md"]}))
        refused = [
            await c.call_tool(
                "replace", {"path": "wiki/log.md", "old": "Append-only", "new": "Rewritten"}
            ),
            await c.call_tool("write", {"path": "wiki/log.md", "content": "# Log\n"}),
            await c.call_tool("delete", {"path": "wiki/log.md"}),
        ]
        listed = ok(await c.call_tool("list", {}))
        appended = await c.call_tool(
            "replace", {"path": "wiki/log.md", "old": last, "new": f"{last}\n\n- owls: nothing"}
        )
        return {"refused": refused, "appended": appended, "listed": listed}

    out = session(root, body)
    for got in out["refused"]:
        assert got.is_error, got
        said = text(got)
        assert "wiki/log.md is append-only" in said and "nothing was staged" in said, said
    assert not out["appended"].is_error, text(out["appended"])


def test_a_replace_a_write_would_be_refused_for_is_refused_and_stages_nothing(root):  # noqa: F811
    """Trial 28c M1: `replace` staged what `write` refuses (a NUL byte; a page past the
    5 MB limit), and finalize then rejected the whole run as page.unreadable; it is a tool
    error with the same message as write's, staging nothing."""

    async def body(c: Client) -> dict[str, Any]:
        ok(await c.call_tool("start_run", {"type": "synthesis"}))
        nul = await c.call_tool(
            "replace", {"path": "wiki/owls.md", "old": "title: Owls", "new": "title: Ow\x00ls"}
        )
        big = await c.call_tool(
            "replace", {"path": "wiki/owls.md", "old": "title: Owls", "new": "x" * (5 * 2**20 + 1)}
        )
        read = ok(await c.call_tool("read", {"path": "wiki/owls.md"}))
        return {"nul": nul, "big": big, "read": read}

    out = session(root, body)
    assert out["nul"].is_error and "content holds NUL bytes" in text(out["nul"])
    assert out["big"].is_error and "over 5 MB, the limit for wiki files" in text(out["big"])
    assert "\x00" not in out["read"]["text"] and out["read"]["total"] < 2**20
