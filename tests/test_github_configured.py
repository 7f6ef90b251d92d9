"""GitHub as it is really configured (issue 26), against the emulator: an anchor fix as a
one-click suggestion (and the same fix in rdjson and SARIF), a fork's read-only token
(every finding in the job summary and as annotations), and the required-check mode
(``merge_group`` included), where GitHub, not the bot, merges."""

from __future__ import annotations

import json
import re

from support.github_world import World, quote_only_page
from support.wiki_runs import QUOTE, SOURCE, SOURCE_TEXT
from test_reporters import schema_errors

from wikigate.bot.review import Footnote, comment_body, suggestion
from wikigate.models import Finding
from wikigate.verifier.citation import format_tail
from wikigate.verifier.report import load_report
from wikigate.verifier.reporters import render
from wikigate.verifier.reporters.fixes import fixed_line

ANCHORED = format_tail(SOURCE, None, QUOTE, SOURCE_TEXT.find(QUOTE))
_SUGGESTION = re.compile(r"```suggestion\n(.*)\n```", re.DOTALL)


def _line_of(page: str, start: str) -> int:
    return next(i for i, line in enumerate(page.split("\n"), 1) if line.startswith(start))


def _report(world: World):
    """The JSON report the bot wrote (the action's ``report`` output)."""
    return load_report((world.tmp / "wikigate-report.json").read_text(encoding="utf-8"))


# ---------------------------------------------------------------- 1. suggestions


def test_an_anchor_fix_is_a_suggestion_on_the_footnotes_line_that_lands_when_applied(
    world: World,
):
    page = quote_only_page("barn")
    world.push_pr(1, page)
    first = world.run(1, "opened")
    assert first.code == 3, first.out  # revise: the quote is there, unanchored
    [comment] = world.comments()
    footnote = _line_of(page, "[^1]:")
    # on the footnote's definition line alone: GitHub's suggestion replaces exactly it
    assert (comment["path"], comment["line"]) == ("wiki/barn.md", footnote)
    assert comment.get("start_line") is None
    [fix] = _SUGGESTION.findall(comment["body"])
    assert fix == f"[^1]: {ANCHORED}"

    # rdjson and SARIF, made from the bot's report, carry the same fix
    report = _report(world)
    rd = json.loads(render(report, "rdjson"))
    assert schema_errors("rdjson.json", rd, strict=True) == []
    [d] = [d for d in rd["diagnostics"] if d.get("suggestions")]
    assert d["suggestions"] == [
        {"range": {"start": {"line": footnote}, "end": {"line": footnote}}, "text": fix + "\n"}
    ]
    sarif = json.loads(render(report, "sarif"))
    assert schema_errors("sarif-2.1.0.json", sarif) == []
    [result] = [r for r in sarif["runs"][0]["results"] if r.get("fixes")]
    [change] = result["fixes"][0]["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "wiki/barn.md"
    assert change["replacements"] == [
        {
            "deletedRegion": {"startLine": footnote, "endLine": footnote},
            "insertedContent": {"text": fix},
        }
    ]

    # "Commit suggestion": the line replaced by the suggestion, pushed; the gate lands it
    lines = page.split("\n")
    lines[footnote - 1] = fix
    head = world.push_pr(1, "\n".join(lines))
    landed = world.run(1, "synchronize")
    assert landed.code == 0, landed.out
    assert world.main_sha() == head


def test_a_hostile_footnote_line_gets_no_suggestion_block_only_inert_text(world: World):
    """A source (added by a writer) holding a code fence and a mention, quoted without an
    anchor: the fix is shown as text, never as a suggestion block GitHub would apply."""
    hostile = "Run ```rm -rf /``` then ask @octocat to merge."
    source = "raw/hostile.txt"
    tail = format_tail(source, None, hostile, None)
    page = f"# Barn\n\n{hostile}[^1]\n\n[^1]: {tail}\n"
    index = (world.seed / "wiki" / "index.md").read_text() + "- [[Barn]]\n"
    world.push_files(
        2,
        {source: f"Notes.\n{hostile}\n", "wiki/barn.md": page, "wiki/index.md": index},
    )
    result = world.run(2, "opened")
    assert result.code == 3, result.out
    [comment] = [c for c in world.comments() if "citation.anchor_missing" in c["body"]]
    body = comment["body"]
    assert "```suggestion" not in body
    assert "correct anchor" in body  # the fix is still shown, as text in a longer fence
    outside = re.sub(r"(`{4,})text\n.*?\n\1", "", body, flags=re.DOTALL)
    assert "@octocat" not in outside  # a mention only inside a code block: no ping
    report = _report(world)
    rd = json.loads(render(report, "rdjson"))
    assert not any(d.get("suggestions") for d in rd["diagnostics"])
    sarif = json.loads(render(report, "sarif"))
    assert not any(r.get("fixes") for r in sarif["runs"][0]["results"])


def test_a_suggestion_is_made_only_from_the_tail_and_the_line_it_replaces():
    f = Finding(
        code="citation.anchor_missing",
        severity="major",
        path="wiki/barn.md",
        line=5,
        message="[^1]: the quote has no anchor",
        suggested_tail=ANCHORED,
    )
    plain_line = f"[^1]: {format_tail(SOURCE, None, QUOTE, None)}"
    assert fixed_line(f, plain_line) == f"[^1]: {ANCHORED}"
    assert fixed_line(f, "  " + plain_line) == f"  [^1]: {ANCHORED}"  # indentation kept
    assert fixed_line(f) == f"[^1]: {ANCHORED}"  # rdjson / SARIF: no line read
    for hostile in (
        plain_line + " ```",  # a fence would close the suggestion block
        plain_line + " @octocat",  # a mention
        plain_line + " <!-- wikigate:fp=0123456789abcdef -->",
        plain_line + " ::warning::x",
        plain_line + "\u2028[^2]: x",  # a line separator: not one line to GitHub
        "[^2]: " + format_tail(SOURCE, None, QUOTE, None),  # another footnote's line
    ):
        assert fixed_line(f, hostile) is None, hostile
        note = Footnote("1", 5, hostile, "0" * 64)
        assert suggestion(f, note) is None
        assert "```suggestion" not in comment_body(f, "0" * 16, note, suggestion(f, note))
    bad_tail = f.model_copy(update={"suggested_tail": 'x — "```@octocat" {@1 sha256:00}'})
    assert fixed_line(bad_tail, plain_line) is None and fixed_line(bad_tail) is None
    assert suggestion(f, Footnote("1", 4, plain_line, "0" * 64)) is None  # not f's line
    assert suggestion(f, Footnote("1", 5, plain_line, "0" * 64, crlf=True)) is None


# ---------------------------------------------------------------- 2. a fork's token


def _read_only(world: World) -> None:
    """The token of a ``pull_request`` event from a fork: every write refused (the API's
    403, and git's refusal of the notes push)."""
    for method in ("POST", "PATCH", "PUT", "DELETE"):
        world.gh.refuse(method, r".", 403, "Resource not accessible by integration")
    hook = world.bare / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'Permission to octo/wiki.git denied' >&2\nexit 1\n")
    hook.chmod(0o755)


def test_a_fork_pull_request_gets_every_finding_in_the_job_summary_and_annotations(
    world: World,
):
    made_up = [f"Barn owls number {k} thousand in the fens @octocat." for k in range(1, 13)]
    body = ["# Barn", ""] + [f"{q}[^{k}]\n" for k, q in enumerate(made_up, 1)]
    body += [f"[^{k}]: {format_tail(SOURCE, None, q, None)}" for k, q in enumerate(made_up, 1)]
    page = "\n".join(body) + "\n"
    world.push_fork_pr(3, page)
    _read_only(world)
    result = world.run(3, "opened", event_name="pull_request", sender="stranger")
    assert result.code == 1, result.out  # rejected: the exit follows the verdict
    assert world.comments() == [] and world.gh.reviews == []  # nothing could be posted
    summary = (world.tmp / "summary.md").read_text(encoding="utf-8")
    assert "### wikigate: reject" in summary
    assert "#### Findings (12)" in summary
    for k in range(1, 13):
        line = _line_of(page, f"[^{k}]:")
        where = f"` wiki/barn.md:{line} `: ` citation.quote_not_found ` (critical)"
        assert where in summary, (k, summary)
        assert (
            f"::error file=wiki/barn.md,line={line},title=wikigate citation.quote_not_found::"
            in result.out
        )
    assert "@octocat" not in summary  # writer text in the summary mentions nobody
    assert "::" not in summary  # no workflow command can start from the summary
