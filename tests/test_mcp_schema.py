"""Every ``wikigate mcp`` tool declares the shape of its structured content
(``outputSchema``, wikigate/mcp_results.py), and what each returns holds to it: the SDK's
own client (``mcp.Client``, which checks a result against its tool's declared schema)
calls every tool in-process on a real workspace (``root`` of test_mcp_trace.py: main
holds raw/owls.txt, wiki/owls.md, wiki/index.md)."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from mcp import Client
from test_mcp import QUOTE, TOOLS, ok
from test_mcp_trace import TAIL, root, session  # noqa: F401 - root: the fixture

from wikigate.mcp_server import follow_data, grep_data, history_data
from wikigate.models import Finding

# the keys of each tool's structured content, as docs/mcp.md names them
KEYS = {
    "list": {"where", "paths", "total"},
    "read": {"path", "page", "start", "end", "total", "text"},
    "grep": {"hits", "notes"},
    "follow": {"leads_to", "source_reference", "pdf", "text"},
    "history": {"commits", "notes"},
    "claims": {"claims", "total"},
    "anchor": {"tail"},
    "start_run": {"run_id"},
    "write": {"path", "commit"},
    "replace": {"path", "commit"},
    "delete": {"path", "commit"},
    "usage": {"commit", "over_budget"},
    "finalize": {
        "run_id", "status", "verdict", "reason", "run_open", "loop", "loops_max",
        "loops_left", "tip", "findings", "next_actions", "blind_spots", "questions",
    },
    "abandon": {"run_id", "status", "reason"},
}  # fmt: skip


def _item(schema: dict[str, Any], key: str) -> dict[str, Any]:
    """The schema of one item of the list ``key`` (its $ref followed)."""
    item = schema["properties"][key]["items"]
    ref = item.get("$ref")
    return schema["$defs"][ref.rsplit("/", 1)[-1]] if ref else item


def test_every_tool_declares_its_output_schema_and_its_results_hold_to_it(root):  # noqa: F811
    """Each tool lists an outputSchema naming its keys (a finding's: every field of the
    report's Finding, and claim_id); each tool called through the SDK's client, which
    validates what it gets against that schema, succeeds: a revise with findings on a
    claim, the ledger's rows, an abandon."""

    async def body(c: Client) -> dict[str, Any]:
        schemas = {t.name: t.output_schema for t in (await c.list_tools()).tools}
        calls: list[tuple[str, dict[str, Any]]] = [
            ("list", {}),
            ("read", {"path": "wiki/owls.md"}),
            ("grep", {"text": "owls"}),
            ("follow", {"page": "wiki/index.md", "target": "[[Owls]]"}),
            ("history", {"path": "wiki/owls.md"}),
            ("claims", {}),
            ("anchor", {"source": "raw/owls.txt", "quote": QUOTE}),
            ("start_run", {"type": "synthesis"}),
            ("write", {"path": "wiki/extra.md", "content": "# Extra\n"}),
            ("delete", {"path": "wiki/extra.md"}),
            # no anchor: citation.anchor_missing on the claim (its claim_id found)
            ("replace", {"path": "wiki/owls.md", "old": TAIL, "new": f'raw/owls.txt — "{QUOTE}"'}),
            ("usage", {"input_tokens": 10, "output_tokens": 5, "usd": 0.01}),
            ("finalize", {}),
            ("abandon", {}),
        ]
        results = {}
        for name, args in calls:
            results[name] = ok(await c.call_tool(name, args))  # the client validated it
        return {"schemas": schemas, "results": results}

    out = session(root, body)
    schemas, results = out["schemas"], out["results"]
    assert set(schemas) == TOOLS == set(results)
    for name, schema in schemas.items():
        assert schema is not None, f"{name} declares no outputSchema"
        assert schema["type"] == "object"
        assert set(schema["properties"]) == KEYS[name], name
        assert set(schema.get("required", ())) == KEYS[name], name
        assert set(results[name]) == KEYS[name], name
    finding = _item(schemas["finalize"], "findings")
    fields = {f.name for f in dataclasses.fields(Finding)}
    assert set(finding["properties"]) == fields | {"claim_id"}
    assert finding["properties"]["severity"]["enum"] == ["critical", "major", "minor"]
    row = _item(schemas["claims"], "claims")
    assert set(results["claims"]["claims"][0]) == set(row["properties"])
    revise = results["finalize"]
    assert revise["verdict"] == "revise" and revise["run_open"], revise
    (missing,) = [f for f in revise["findings"] if f["code"] == "citation.anchor_missing"]
    assert missing["claim_id"] == "wiki/owls.md#^1"
    assert results["abandon"]["status"] == "abandoned"
    # grep, follow and history: their text's parts, not the text again
    hits = {(h["path"], h["page"], h["line"]): h["text"] for h in results["grep"]["hits"]}
    assert hits[("raw/owls.txt", None, 1)].startswith("Barn owls hunt at night.")
    assert ("wiki/owls.md", None, 6) in hits and results["grep"]["notes"] == []
    followed = results["follow"]
    assert followed["leads_to"] == "wiki/owls.md" and not followed["source_reference"]
    assert not followed["pdf"] and followed["text"].startswith("---\ntitle: Owls")
    (landed,) = results["history"]["commits"]
    assert landed["run"] and landed["subject"] and results["history"]["notes"] == []
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", landed["date"])


def test_grep_follow_and_history_texts_read_as_their_parts():
    """The texts the reading views give (verifier/staged.py), each line read as the tool's
    structured content says: a PDF's page, a path holding ':1: ', notes after the hits."""
    entries = {"raw/a.pdf": 1, "wiki/x:1: y.md": 1}
    said = "raw/a.pdf p.3:12: owls here\nwiki/x:1: y.md:4: a: b\n(first 30 hits)"
    assert grep_data(said, entries) == {
        "hits": [
            {"path": "raw/a.pdf", "page": 3, "line": 12, "text": "owls here"},
            {"path": "wiki/x:1: y.md", "page": None, "line": 4, "text": "a: b"},
        ],
        "notes": ["(first 30 hits)"],
    }
    assert grep_data("no match", entries) == {"hits": [], "notes": []}
    assert follow_data("'Crows' on wiki/index.md leads nowhere")["leads_to"] is None
    pdf = follow_data(
        "'birds.pdf' on wiki/index.md is a source reference to raw/birds.pdf, a PDF: read it with page"
    )
    assert (pdf["leads_to"], pdf["source_reference"], pdf["pdf"]) == ("raw/birds.pdf", True, True)
    said = "0123456789ab 2026-05-01 10:00 UTC wikigate: write wiki/o.md (run 2026-x)\nabcdefabcdef 2026-04-30 09:00 UTC init\n(stopped after 2000 commits)"
    assert history_data(said) == {
        "commits": [
            {
                "commit": "0123456789ab",
                "date": "2026-05-01 10:00 UTC",
                "subject": "wikigate: write wiki/o.md",
                "run": "2026-x",
            },
            {
                "commit": "abcdefabcdef",
                "date": "2026-04-30 09:00 UTC",
                "subject": "init",
                "run": None,
            },
        ],
        "notes": ["(stopped after 2000 commits)"],
    }
    assert history_data("no commit changed wiki/o.md")["notes"] == ["no commit changed wiki/o.md"]
