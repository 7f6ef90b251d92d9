"""Leftovers of the MCP writer's trials (issues 28 and 30): a consistency finding's claim
lines, an append the log's last entry swallows, a near miss's next step, and the tools'
output schemas saying what each field holds. Through the SDK's own client on a real
workspace (``session`` of test_mcp_trace.py), `wikigate verify --format json` in-process,
and the advice as a report derives it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client
from support.helpers import in_process
from support.trees import commit_files, no_errors
from support.verifying import plan_for, verify_trees
from test_consistency import KEEPER, SOURCES, base, page  # noqa: F401 - base: the fixture
from test_mcp import ok, text
from test_mcp_trace import TAIL, root, session  # noqa: F401 - root: the fixture

from wikigate.codes import finding
from wikigate.config import parse_config
from wikigate.models import Finding
from wikigate.verifier.advice import next_actions
from wikigate.verifier.checks import consistency
from wikigate.verifier.checks.runs import log_continued
from wikigate.workspace import Workspace

CONSISTENCY = {
    "claim.contradiction",
    "claim.source_conflict",
    "claim.possible_contradiction",
    "claim.consistency_cut",
}

# ---------------------------------------------------------------- #3 a near miss's tail


def _near(line: int, tail: str | None) -> Finding:
    return finding(
        "citation.quote_not_found", "wiki/a.md", line, "the quote does not occur"
    ).model_copy(update={"suggested_tail": tail})


def test_a_quote_not_found_with_a_suggested_tail_says_to_use_it():
    """A near miss the check matched character for character carries the footnote as the
    source has it (`suggested_tail`): the next step says to use it, for its line, and the
    others on the page are still told to quote verbatim; none carries one: as before."""
    tail = 'raw/a.txt — "It’s late." {@0 sha256:' + "a" * 64 + "}"
    [step] = next_actions([_near(4, tail)])
    assert step == (
        "replace the text after '[^n]: ' of the footnote on line 4 of wiki/a.md with its "
        "finding's suggested_tail (the quote as the source has it, anchored)"
    )
    [both] = next_actions([_near(4, tail), _near(9, None)])
    assert both.startswith("replace the text after '[^n]: ' of the footnote on line 4 of")
    assert both.endswith(
        "; quote the source verbatim in the footnote on line 9 of wiki/a.md, or cite what it "
        "does say"
    )
    assert "It’s late" not in both  # the writer's and the source's words are not echoed
    assert next_actions([_near(9, None)]) == [
        "quote the source verbatim in the footnote on line 9 of wiki/a.md, or cite what it does say"
    ]


# ---------------------------------------------------------------- #4 described schemas


def _undescribed(schema: dict[str, Any], where: str) -> list[str]:
    """Every property of ``schema`` and of its ``$defs`` (a finding, a hit, a ledger row)
    without a description."""
    out = [
        f"{where}.{name}"
        for name, prop in schema.get("properties", {}).items()
        if not str(prop.get("description", "")).strip()
    ]
    for name, inner in schema.get("$defs", {}).items():
        out += _undescribed(inner, f"{where}/{name}")
    return out


def test_every_field_of_every_tools_output_schema_has_a_description(root):  # noqa: F811
    """An agent reads what a field holds from ``tools/list``: each property of each
    tool's outputSchema, nested ones included, has a description."""

    async def body(c: Client) -> dict[str, Any]:
        return {t.name: t.output_schema for t in (await c.list_tools()).tools}

    schemas = session(root, body)
    assert schemas and all(s is not None for s in schemas.values())
    missing = [m for name, s in schemas.items() for m in _undescribed(s, name)]
    assert missing == []
    finding_schema = schemas["finalize"]["$defs"]["FindingResult"]
    assert "<= claim_line" in finding_schema["properties"]["claim_start_line"]["description"]
    assert schemas["list"]["properties"]["total"]["description"].startswith("how many matched")


# ---------------------------------------------------------------- #1 consistency lines

# a claim whose sentence spans lines 6 and 7, denying what wiki/owls.md says (and its quote)
DENIAL = "Barn owls cannot hear\na mouse under snow."


def test_a_consistency_finding_names_the_line_its_claims_sentence_starts_on(root):  # noqa: F811
    """Trial 28b N6: a contradiction's `claim_start_line` was null while every other claim
    finding names it: through finalize's structured content and `wikigate verify --format
    json` of the same commit, it is the line the claim's sentence starts on (6), and
    `claim_line` the line of its reference (7)."""
    page = f"---\ntitle: Deaf\n---\n# Deaf\n\n{DENIAL}[^1]\n\n[^1]: {TAIL}\n"

    async def body(c: Client) -> dict[str, Any]:
        ok(await c.call_tool("start_run", {"type": "synthesis"}))
        ok(await c.call_tool("read", {"path": "raw/owls.txt"}))
        ok(await c.call_tool("write", {"path": "wiki/deaf.md", "content": page}))
        index = "- [[Owls]]\n"
        ok(
            await c.call_tool(
                "replace", {"path": "wiki/index.md", "old": index, "new": index + "- [[Deaf]]\n"}
            )
        )
        return ok(await c.call_tool("finalize", {}))

    done = session(root, body)
    found = [f for f in done["findings"] if f["code"] in CONSISTENCY]
    assert found, done["findings"]
    for f in found:
        assert (f["path"], f["claim_line"], f["claim_start_line"]) == ("wiki/deaf.md", 7, 6), f
    said = in_process(
        ["-C", str(root), "verify", done["tip"], "--base", "main", "--format", "json"],
        env={"WIKIGATE_VERIFIER": ""},
    )
    report = json.loads(said.stdout)
    again = [f for f in report["findings"] if f["code"] in CONSISTENCY]
    assert [(f["code"], f["claim_line"], f["claim_start_line"]) for f in again] == [
        (f["code"], 7, 6) for f in found
    ]


def test_a_cut_of_a_claims_candidates_names_the_claims_lines(repo, base, monkeypatch):  # noqa: F811
    """The crowd of test_consistency.py past the candidate bound: the located
    claim.consistency_cut names the claim's lines as the contradiction beside it does (it
    named neither), the claim's sentence spanning lines 6 and 7 (ties read up to 16 pages)."""
    monkeypatch.setattr(consistency, "TIE_PAGES", 16)
    monkeypatch.setitem(SOURCES, "raw/keeper.txt", KEEPER + "\n")
    crowd = {
        f"wiki/aa-k{n:02d}.md": page(f"K {n}", [(KEEPER, "raw/keeper.txt", KEEPER)])
        for n in range(40)
    }
    crowded = commit_files(repo, base.id, {"raw/keeper.txt": KEEPER + "\n", **crowd})
    claim = "The lighthouse was first lit in 1878."
    new = page("Lights", [(claim, "raw/town.txt", "The lighthouse was first lit on 3 May 1870.")])
    new = new.replace("was first lit in", "was first\nlit in", 1)
    tip = commit_files(repo, crowded.id, {"wiki/lights.md": new})
    config = parse_config("[consistency]\nmax_candidates = 4\n", "wikigate.toml")
    report = verify_trees(repo, tip, crowded, config=config, plan=plan_for(crowded, tip, "ingest"))
    no_errors(report)
    found = [f for f in report.findings if f.code in CONSISTENCY]
    assert sorted((f.code, f.claim_line, f.claim_start_line) for f in found) == [
        ("claim.consistency_cut", 7, 6),
        ("claim.contradiction", 7, 6),
    ]


# ---------------------------------------------------------------- #2 a swallowed append

ENTRY = "2026-11-27 owls: a page on what they hear"


def test_an_append_right_under_the_logs_last_entry_is_a_located_rewrite(root):  # noqa: F811
    """Trial 28c M2: a line appended right under the log's last entry (no blank line) is
    byte for byte an append, but markdown renders it as part of that entry: the run is
    rejected with run.log_rewrite on the appended line, saying to leave a blank line; the
    same line after a blank line lands."""
    ws = Workspace.open(root)
    try:
        log = ws.config.wiki.layout().log
        old = (root / log).read_text()
        last = len(old.splitlines())  # the entry "Append-only record of changes …"
        run = ws.start_run("synthesis", "cli:test")
        run.stage_write(log, f"{old}{ENTRY}\n")
        bad = run.finalize()
        good = ws.start_run("synthesis", "cli:test")
        good.stage_write(log, f"{old}\n{ENTRY}\n")
        landed = good.finalize()
    finally:
        ws.close()
    assert bad.status == "rejected"
    (f,) = [
        Finding.model_validate(f) for f in bad.report["findings"] if f["code"] == "run.log_rewrite"
    ]
    assert (f.path, f.line, f.severity) == (log, last + 1, "critical")
    assert f"appended after the entry starting on line {last}" in f.message
    assert "leave a blank line" in f.message and "blank line" in (f.hint or "")
    assert landed.status == "committed", landed.report
    assert (root / log).read_text() == f"{old}\n{ENTRY}\n"


def test_an_mcp_call_appending_into_the_logs_last_entry_is_refused(root):  # noqa: F811
    """The MCP tools refuse the same append at call time, as a rewrite is (replace and
    write), staging nothing; after a blank line it stages."""
    log = (root / "wiki" / "log.md").read_text()
    last = log.rstrip("\n").rsplit("\n", 1)[-1]

    async def body(c: Client) -> dict[str, Any]:
        ok(await c.call_tool("start_run", {"type": "synthesis"}))
        refused = [
            await c.call_tool(
                "replace", {"path": "wiki/log.md", "old": last, "new": f"{last}\n{ENTRY}"}
            ),
            await c.call_tool("write", {"path": "wiki/log.md", "content": f"{log}  {ENTRY}\n"}),
        ]
        staged = await c.call_tool(
            "replace", {"path": "wiki/log.md", "old": last, "new": f"{last}\n\n{ENTRY}"}
        )
        read = ok(await c.call_tool("read", {"path": "wiki/log.md"}))
        return {"refused": refused, "staged": staged, "read": read}

    out = session(root, body)
    for got in out["refused"]:
        assert got.is_error, got
        said = text(got)
        assert "renders as part of that entry" in said and "leave a blank line" in said, said
        assert "nothing was staged" in said, said
    assert not out["staged"].is_error, text(out["staged"])
    assert out["read"]["text"] == f"{log}\n{ENTRY}\n"


BASE_LOG = "# Log\n\n- 2026-11-26 owls: landed\n"


@pytest.mark.parametrize(
    ("appended", "line"),
    [
        ("- 2026-11-27 larks: landed\n", None),  # the list's next item
        ("\n2026-11-27 larks\n", None),  # a paragraph of its own
        ("  and the barn owl\n", 4),  # the item's continuation
        ("and the barn owl\n", 4),  # a lazy continuation line
        ("\n  a second paragraph of it\n", 5),  # a paragraph of the last item
        ("  - a sub-item\n", 4),  # a list inside the last item
    ],
)
def test_what_the_logs_last_entry_swallows_is_read_as_markdown_renders_it(appended, line):
    said = log_continued("wiki/log.md", BASE_LOG.encode(), (BASE_LOG + appended).encode())
    assert (said[0] if said else None) == line, said
    if said is not None:  # what to do: a blank line, or not indenting what follows one
        fix = "start the new entry at the left margin" if appended[0] == "\n" else "leave a blank"
        assert fix in said[1], said


@pytest.mark.parametrize(
    ("before", "appended", "line"),
    [
        ("# Log\n\nOwls landed.\n", "---\n", 4),  # a setext underline: the entry a heading
        ("# Log\n\nOwls landed.\n", "2. larks\n", 4),  # no list: a 2. cannot interrupt
        ("# Log\n\nOwls landed.\n", "1. larks\n", None),  # a list that interrupts
        ("# Log\n\n```\nowls\n", "larks\n```\n", 5),  # a fence left open
        ("# Log\n\nOwls landed.", " Larks too.\n", 3),  # the old last line, no newline
        ("# Log\n\nOwls landed.", "\n\nLarks.\n", None),
        ("# Log\r\n\r\nOwls landed.\r\n", "Larks.\r\n", 4),  # CRLF: markdown-it's lines
        ("", "Owls landed.\n", None),  # no entry to continue
        ("# Log\n\n[^1]: raw/a.txt\n", "\n    more of it\n", 5),  # a footnote's paragraph
    ],
)
def test_other_blocks_an_append_may_continue(before, appended, line):
    said = log_continued("wiki/log.md", before.encode(), (before + appended).encode())
    assert (said[0] if said else None) == line, said


def test_a_log_markdown_it_cannot_parse_in_linear_time_fails_closed():
    """A hostile log (markdown-it's quadratic nested quotes) is not parsed: the append is
    not known to stand alone, and said so, at once."""
    before = b"# Log\n\nOwls landed.\n"
    said = log_continued("wiki/log.md", before, before + b"\n" + b"> >\n" * 50_000)
    assert said is not None and "is not read as markdown" in said[1]


def test_the_log_checks_block_parse_reads_blocks_as_pages_are_parsed():
    """The log check parses blocks only (no inline parse): its blocks and their lines are
    those of the page parser's markdown-it (verifier/markdown.py), plugins included."""
    from wikigate.verifier.checks.runs import _blocks
    from wikigate.verifier.markdown import markdown

    text = (
        "---\ntitle: Log\n---\n# Log\n\nOwls[^1] landed\nlazily.\n\n::: disputed\nold\n:::\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n> quoted\nlazy\n\n- item\n  more\n\n    code\n\n"
        '```\nfence\n```\n\n<div>\nhtml\n</div>\n\n[^1]: raw/a.txt — "q"\n    more\n'
    )
    blocks = [(t.type, t.map) for t in _blocks().parse(text, {})]
    full = [(t.type, t.map) for t in markdown().parse(text, {})]
    assert blocks == full
    assert {"front_matter", "container_disputed_open", "table_open", "footnote_reference_open"} <= {
        t for t, _ in blocks
    }
