"""Leftovers of the MCP writer's trials (issues 28 and 30): a consistency finding's claim
lines, an append the log's last entry swallows, a near miss's next step, and the tools'
output schemas saying what each field holds. Through the SDK's own client on a real
workspace (``session`` of test_mcp_trace.py), `wikigate verify --format json` in-process,
and the advice as a report derives it."""

from __future__ import annotations

from typing import Any

from mcp import Client
from test_mcp_trace import root, session  # noqa: F401 - root: the fixture

from wikigate.codes import finding
from wikigate.models import Finding
from wikigate.verifier.advice import next_actions

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
