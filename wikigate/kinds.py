"""The engine's vocabularies as plain Literals and tuples, without pydantic: what the CLI
needs to build its options (``--type``, ``--status``, ``--strictness``) at start-up, so a
command that never touches a model never pays for importing pydantic.

``wikigate.models`` re-exports all of these; import them from there in engine code.
"""

from __future__ import annotations

from typing import Literal, get_args

RunType = Literal["ingest", "cascade", "synthesis", "lint", "archive"]
RUN_TYPES: tuple[str, ...] = get_args(RunType)
Status = Literal["pending", "verifying", "committed", "rejected", "abandoned"]
STATUSES: tuple[str, ...] = get_args(Status)
Strictness = Literal["CALM", "SKEPTICAL", "PARANOID", "BOLD"]
STRICTNESSES: tuple[str, ...] = get_args(Strictness)
TERMINAL: frozenset[str] = frozenset({"committed", "rejected", "abandoned"})
# needs_human_review: a judgment call no rule should make; the run waits for a person
Verdict = Literal["commit", "reject", "revise", "needs_human_review"]
VERDICTS: tuple[str, ...] = get_args(Verdict)
NEEDS_HUMAN_REVIEW = "needs_human_review"
# a verdict → the exit code of `wikigate verify`, the hooks and `wikigate github`
VERDICT_EXIT: dict[str, int] = {"commit": 0, "reject": 1, "revise": 3, NEEDS_HUMAN_REVIEW: 5}
# who overruled or decided for the gate (store.py's CHECK agrees); github-review: a writer's
# review of a run that waited for a person
OverrideSource = Literal["cli", "github-label", "github-comment", "github-review"]
OVERRIDE_SOURCES: tuple[str, ...] = get_args(OverrideSource)
Severity = Literal["critical", "major", "minor"]
SEVERITY_RANK = {"minor": 0, "major": 1, "critical": 2}

MAX_LOOPS = 3
# the report formats `wikigate verify --format` takes: verifier/reporters' REPORTERS, by
# name (a test keeps the two equal; importing the reporters would import pydantic)
REPORT_FORMATS: tuple[str, ...] = ("text", "json", "rdjson", "sarif", "html")
# `wikigate verify --filter`: which findings of a change are reported (wikigate.reportfilter)
FilterMode = Literal["added", "diff_context", "file", "nofilter"]
FILTER_MODES: tuple[str, ...] = get_args(FilterMode)
# a claim's anchor status in the ledger, and what `wikigate claims --status` filters on: one
# of those, or the LLM judge's last vote on the claim
ANCHOR_STATUSES: tuple[str, ...] = ("anchored", "unanchored", "mismatched")
CLAIM_FILTERS: tuple[str, ...] = (
    *ANCHOR_STATUSES,
    "supports",
    "partial",
    "contradicts",
    "unsupported",
    "inconclusive",
    "flaky",
)
