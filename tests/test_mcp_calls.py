"""Tool calls of ``wikigate mcp`` an agent gets wrong or cannot act on alone (review 37a):
the SDK's own client (``mcp.Client``) drives the server in-process, on a real workspace
(``root`` of test_mcp_trace.py: main holds raw/owls.txt, wiki/owls.md, wiki/index.md)."""

from __future__ import annotations

from typing import Any

import pygit2
from mcp import Client
from support.helpers import in_process
from test_mcp import INDEX, QUOTE, SOURCE, main_tip, ok, owls, text
from test_mcp_trace import root, session, two_sessions  # noqa: F401 - root: the fixture

from wikigate.verifier.citation import format_tail

NOT_A_PDF = (
    "raw/owls.txt is not a PDF: pages exist only in PDF sources; anchor the quote without "
    "a page (a line note, `L3`, locates a passage in a text source)"
)


def test_argument_mistakes_are_tool_errors_and_the_run_stays_open(root):  # noqa: F811
    """`anchor` with a page of a text source, `replace` with an empty `old`, `read` from a
    negative start: each call fails with what to pass instead; nothing is staged, no
    citation with a bogus `p.2` is made and the run is not rejected."""

    async def body(c: Client) -> dict[str, Any]:
        ok(await c.call_tool("start_run", {"type": "synthesis"}))
        out = {
            "anchor": await c.call_tool(
                "anchor", {"source": "raw/owls.txt", "quote": QUOTE, "page": 2}
            ),
            "replace": await c.call_tool(
                "replace", {"path": "wiki/index.md", "old": "", "new": "x"}
            ),
            "read": await c.call_tool("read", {"path": "wiki/index.md", "start": -5}),
        }
        out["then"] = await c.call_tool(
            "replace", {"path": "wiki/index.md", "old": "title: Index", "new": "title: All"}
        )
        out["done"] = ok(await c.call_tool("finalize", {}))
        return out

    before = main_tip(root)
    out = session(root, body)
    assert out["anchor"].is_error and "p.2" not in text(out["anchor"])
    assert text(out["anchor"]) == NOT_A_PDF
    assert out["replace"].is_error and "`old` is empty" in text(out["replace"])
    assert "nothing was staged" in text(out["replace"])
    assert out["read"].is_error
    assert text(out["read"]) == "start -5: characters are counted from 0; pass 0 or more"
    assert not out["then"].is_error, text(out["then"])  # the run is still open
    assert out["done"]["status"] == "committed", out["done"]
    assert main_tip(root) != before


def test_a_findings_hint_names_the_anchor_tool_not_a_cli_command(root):  # noqa: F811
    """A wrong offset: the hint says to call `anchor` (an agent has no shell), next to the
    correct anchor, never "run `wikigate anchor --fix`"."""
    wrong = format_tail("raw/owls.txt", None, QUOTE, SOURCE.index(QUOTE) + 3)

    async def body(c: Client) -> dict[str, Any]:
        ok(await c.call_tool("start_run", {"type": "synthesis"}))
        await c.call_tool("read", {"path": "raw/owls.txt"})
        page = owls(wrong).replace("# Owls\n", "# Barn owls\n")
        ok(await c.call_tool("write", {"path": "wiki/owls.md", "content": page}))
        return ok(await c.call_tool("finalize", {}))

    done = session(root, body)
    assert done["verdict"] == "revise", done
    (mismatch,) = [f for f in done["findings"] if f["code"] == "citation.anchor_mismatch"]
    assert "wikigate anchor" not in mismatch["hint"], mismatch
    assert "call `anchor` with the source and the quote" in mismatch["hint"]
    for f in done["findings"]:
        assert "wikigate anchor" not in f["hint"] + f["message"], f


def test_a_conflict_with_main_says_to_redo_the_change_on_a_new_run(root):  # noqa: F811
    """Two sessions change the same line: one lands, the other is rejected (no lost
    update) and its next action says what to do: a new run, the pages read again."""

    async def body(a: Client, b: Client) -> tuple[dict[str, Any], dict[str, Any]]:
        for c, new in ((a, "title: Owl index"), (b, "title: Bird index")):
            ok(await c.call_tool("start_run", {"type": "synthesis"}))
            await c.call_tool("read", {"path": "wiki/index.md"})
            args = {"path": "wiki/index.md", "old": "title: Index", "new": new}
            ok(await c.call_tool("replace", args))
        first = ok(await b.call_tool("finalize", {}))
        return first, ok(await a.call_tool("finalize", {}))

    first, second = two_sessions(root, body)
    assert first["status"] == "committed", first
    assert second["status"] == "rejected" and second["reason"].startswith("conflict:"), second
    (action,) = second["next_actions"]
    assert "start a new run (`start_run`)" in action and "read the pages again" in action


def test_read_gives_the_files_characters_alone_and_the_span_apart(root):  # noqa: F811
    """Review 37a #8: an agent appends to a page what `read` gave it; no header line of the
    tool's ends up in the page. The span read is structured content."""

    async def body(c: Client) -> tuple[Any, Any, dict[str, Any]]:
        ok(await c.call_tool("start_run", {"type": "synthesis"}))
        whole = await c.call_tool("read", {"path": "wiki/index.md"})
        part = await c.call_tool("read", {"path": "wiki/index.md", "start": 4, "length": 5})
        args = {"path": "wiki/index.md", "content": text(whole) + "- [[Owls]] again\n"}
        ok(await c.call_tool("write", args))
        return whole, part, ok(await c.call_tool("finalize", {}))

    whole, part, done = session(root, body)
    assert text(whole) == INDEX
    assert ok(whole) == {
        "path": "wiki/index.md", "page": None, "start": 0, "end": len(INDEX),
        "total": len(INDEX), "text": INDEX,
    }  # fmt: skip
    assert text(part) == INDEX[4:9] and (ok(part)["start"], ok(part)["end"]) == (4, 9)
    assert done["status"] == "committed", done
    landed = pygit2.Repository(str(root)).revparse_single("main:wiki/index.md").data.decode()
    assert landed == INDEX + "- [[Owls]] again\n"


def test_the_cli_refuses_a_page_of_a_text_source_as_the_tool_does(root):  # noqa: F811
    """`wikigate anchor SOURCE QUOTE --page 2` on a text source: a usage error (exit 2)
    with the `anchor` tool's message, and no footnote printed; a PDF-less anchor works."""
    refused = in_process(["-C", str(root), "anchor", "raw/owls.txt", QUOTE, "--page", "2"])
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == f"error: {NOT_A_PDF}\n"
    fine = in_process(["-C", str(root), "anchor", "raw/owls.txt", QUOTE])
    assert (fine.returncode, fine.stdout) == (
        0,
        format_tail("raw/owls.txt", None, QUOTE, SOURCE.index(QUOTE)) + "\n",
    )
