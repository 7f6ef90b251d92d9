"""The verification report (the seed's "verifier contract"): plain data classes
(wikigate/plain.py) with the JSON and the validation of the pydantic models they were.

Its JSON Schema is published in docs/report.schema.json; a report with an
unknown ``schema_version`` is refused.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Literal

from wikigate.errors import WikigateError
from wikigate.models import Finding, Strictness, Verdict
from wikigate.plain import Plain, plain, rule

if TYPE_CHECKING:
    from .claims import Compared
    from .judges.protocol import Judgment

SCHEMA_VERSION = 1


@plain()
class CheckResult(Plain):
    name: str
    status: Literal["passed", "failed", "error", "skipped"]
    duration_ms: float
    findings: int = 0
    reason: str | None = rule(
        default=None,
        description="why a check was skipped, if not by preset; for a check that ran, what "
        "it could not rule out (a blind spot)",
    )


@plain()
class SummaryMetrics(Plain):
    pages: int = 0
    pages_checked: int = 0
    claims: int = 0
    citations: int = 0
    anchors_verified: int = 0
    links: int = 0
    gaps: int = rule(default=0, description="`[gap: …]` markers on the pages checked")
    pdf_citations: int = rule(
        default=0,
        description="quotes found on a PDF's page: checked against the verifier's text of "
        "that page (pypdf), whose offsets another reader may lay out otherwise",
    )
    elapsed_ms: float = 0.0


@plain()
class ClaimCheck(Plain):
    """What a run does to one cited claim of a page it changes (docs/ledger.md)."""

    claim_id: str = rule(description="<page path>#^<footnote label>, on the base")
    result: Literal["pass", "warn", "fail"]
    reason: str
    line: int = rule(description="the line of the claim's reference on the base's page")
    claim: str
    now: str | None = rule(default=None, description="the claim id standing for it now")
    frozen: str | None = rule(default=None, description="the [ledger] frozen entry, if any")

    @classmethod
    def of(cls, c: Compared, frozen: str | None) -> ClaimCheck:
        return cls(
            claim_id=c.claim.id,
            result=c.result,
            reason=c.reason,
            line=c.claim.line,
            claim=c.claim.sentence,
            now=c.now.id if c.now is not None else None,
            frozen=frozen,
        )


@plain()
class RubricResult(Plain):
    kind: Literal["goal", "non_goal"]
    item: str
    effect: Literal["improves", "unchanged", "worsens", "ambiguous"]
    reason: str


@plain()
class PresentationResult(Plain):
    aspect: Literal["voice", "register"]
    wanted: str = rule(description="the [presentation] setting, as the rules say it")
    fits: bool
    page: str | None = rule(default=None, description="the changed page that departs most")
    reason: str


@plain()
class DirectionReport(Plain):
    """The change against its direction and the ``[rubric]``: assessed by the LLM judge,
    or why not (the offline judge cannot: ``checked`` false)."""

    checked: bool
    reason: str | None = rule(default=None, description="why it was not checked, or failed")
    direction: str | None = rule(default=None, description="the direction, as given")
    effect: Literal["improves", "unchanged", "worsens", "ambiguous"] | None = None
    effect_reason: str = ""
    rubric: list[RubricResult] = rule(factory=list)
    presentation: list[PresentationResult] = rule(
        factory=list, description="the changed text against the [presentation] voice and register"
    )
    clipped: list[str] = rule(
        factory=list,
        description="the pages whose change the judge saw only in part (their diff past its "
        "size limits): the assessment says nothing of the rest",
    )


@plain()
class ShardInfo(Plain):
    """Which slice of a whole-wiki verify a report covers (``verify --all --shard K/N``), and
    what its sibling shards must agree on for ``wikigate report merge`` to combine them."""

    index: int = rule(ge=1, description="K: this shard's number, 1-based")
    count: int = rule(ge=1, description="N: how many shards the pages were split into")
    tree: str = rule(description="the verified commit's tree")
    rules: str = rule(description="digest of the rules applied (the parsed wikigate.toml)")
    verifier: str = rule(description="what produced the findings: versions and the judge")
    digest: str | None = rule(
        default=None,
        description="sha256 of the report without this section (its findings, checks, "
        "summary, judge): `report merge` refuses a shard whose content does not match",
    )
    signature: str | None = rule(
        default=None,
        description="an SSH signature (namespace wikigate) of the shard's statement (tip, "
        "tree, rules, verifier, strictness, K/N, digest), made with git config "
        "wikigate.signingKey; `report merge --allowed-signers FILE` requires it",
    )


@plain()
class JudgeVote(Plain):
    """The LLM judge's structured vote on one claim (its raw answer is an artifact)."""

    claim_id: str = rule(description="<page path>#^<footnote label>")
    vote: Literal["supports", "partial", "contradicts", "unsupported", "inconclusive", "flaky"]
    reason: str
    evidence: str = ""
    cached: bool = rule(default=False, description="reused from the judgment cache")
    rejudged: list[str] | None = rule(
        default=None, description="PARANOID: the first and the fresh second vote"
    )


@plain()
class JudgeUsageReport(Plain):
    requests: int = 0
    input_tokens: int = rule(default=0, description="uncached input tokens")
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    output_tokens: int = 0
    usd: float = 0.0


@plain()
class PlannedRequestReport(Plain):
    source: str
    claim_ids: list[str]
    input_tokens: int = rule(description="estimated")
    usd: float = rule(description="estimated, without cache reads")
    cached_block: bool = rule(description="the source block is marked cache_control")


@plain()
class JudgeSummary(Plain):
    """What the LLM judge did: its model and prompt, votes and spend (never its raw text)."""

    name: str
    model: str | None = None
    prompt_version: str | None = None
    dry_run: bool = False
    votes: list[JudgeVote] = rule(factory=list)
    usage: JudgeUsageReport = rule(factory=JudgeUsageReport)
    planned: list[PlannedRequestReport] = rule(
        factory=list, description="a dry run: the requests it would send"
    )

    @classmethod
    def of(cls, name: str, judgment: Judgment) -> JudgeSummary:
        u = judgment.usage
        return cls(
            name=name,
            model=judgment.model,
            prompt_version=judgment.prompt_version,
            dry_run=judgment.dry_run,
            votes=[
                JudgeVote(
                    claim_id=v.claim_id,
                    vote=v.vote,
                    reason=v.reason,
                    evidence=v.evidence,
                    cached=v.cached,
                    rejudged=list(v.rejudged) if v.rejudged else None,
                )
                for v in judgment.votes.values()
            ],
            usage=JudgeUsageReport(
                requests=u.requests,
                input_tokens=u.input_tokens,
                cache_write_tokens=u.cache_write_tokens,
                cache_read_tokens=u.cache_read_tokens,
                output_tokens=u.output_tokens,
                usd=round(u.usd, 6),
            ),
            planned=[
                PlannedRequestReport(
                    source=p.source,
                    claim_ids=p.claim_ids,
                    input_tokens=p.input_tokens,
                    usd=round(p.usd, 6),
                    cached_block=p.cached_block,
                )
                for p in judgment.planned
            ],
        )


@plain()
class SetAside(Plain):
    """A finding that does not count: a person's word covers it. ``by``: ``override`` (a
    recorded override or approval of a run that landed it, matched by fingerprint:
    ``wikigate verify --all``) or ``suppression`` (an inline comment on its line)."""

    finding: Finding
    fingerprint: str
    by: Literal["override", "suppression"]
    run_id: str | None = rule(default=None, description="the run a person's word landed")
    actor: str | None = rule(default=None, description="who gave it, when recorded")
    reason: str


@plain()
class Filtered(Plain):
    """What ``wikigate verify --filter MODE`` left out of a report: counted by severity.
    The verdict is the whole change's, these included."""

    mode: str
    hidden: dict[str, int]


def _known_version(v: int) -> int:
    if v != SCHEMA_VERSION:
        raise ValueError(f"unknown report schema_version {v}; this wikigate reads {SCHEMA_VERSION}")
    return v


@plain()
class VerificationReport(Plain):
    schema_version: int = rule(default=SCHEMA_VERSION, after=_known_version)
    run_id: str | None = None
    base: str | None = rule(default=None, description="base commit (None in lint mode)")
    tip: str
    strictness: Strictness
    verdict: Verdict
    checks: list[CheckResult]
    findings: list[Finding]
    summary: SummaryMetrics
    exempt: list[str] = rule(
        factory=list,
        description="pages whose page checks were skipped, with the reason "
        "(an append-only change to wiki/log.md); every other check ran, links included",
    )
    judge: JudgeSummary | None = rule(
        default=None, description="the LLM judge's votes and spend, when it ran"
    )
    direction: DirectionReport | None = rule(
        default=None,
        description="the change against its declared direction and the [rubric] (when "
        "either exists): the LLM judge's assessment, or why it was not made",
    )
    claim_checks: list[ClaimCheck] = rule(
        factory=list,
        description="each cited claim of a page the run changes: pass, warn or fail, and why",
    )
    overridden: list[SetAside] = rule(
        factory=list,
        description="findings a recorded override covers (verify --all): listed, not counted",
    )
    suppressed: list[SetAside] = rule(
        factory=list,
        description="findings an inline suppression on their line sets aside, with its "
        "reason: listed, not counted",
    )
    filtered: Filtered | None = rule(
        default=None,
        description="verify --filter: the mode and the findings it left out, by severity "
        "(the verdict counts them)",
    )
    shard: ShardInfo | None = rule(
        default=None,
        description="set on a shard's report (verify --all --shard K/N): only the per-page "
        "checks ran, on its slice of the pages; `wikigate report merge` makes the whole",
    )
    next_actions: list[str] = rule(
        factory=list,
        description="one to three concrete steps that fix the worst findings first (e.g. the "
        "anchor to write, the lines to cite or gap-mark), derived from the findings, never "
        "taken from input (verifier/advice.py)",
    )
    blind_spots: list[str] = rule(
        factory=list,
        description="what this verification could not rule out: semantic support on the "
        "offline judge, claims the judge left inconclusive, checks, sources or pages a limit "
        "kept out; derived from the report, never taken from input",
    )

    def __derive__(self) -> None:
        # computed, never taken from input: a report read back cannot claim other advice
        from .advice import blind_spots, next_actions

        judge = self.judge
        self.next_actions = next_actions(self.findings)
        self.blind_spots = blind_spots(
            self.findings,
            citations=self.summary.citations,
            pdf_citations=self.summary.pdf_citations,
            judge=judge.name if judge is not None else None,
            dry_run=judge is not None and judge.dry_run,
            inconclusive=[v.claim_id for v in judge.votes if v.vote == "inconclusive"]
            if judge is not None
            else [],
            not_run=[(c.name, c.reason) for c in self.checks if c.status == "skipped" and c.reason],
            caveats=[
                (c.name, c.reason)
                for c in self.checks
                if c.status in ("passed", "failed") and c.reason
            ],
            exempt=self.exempt,
            unassessed=self.direction.reason
            if self.direction is not None and not self.direction.checked
            else None,
            assessed_in_part=self.direction.clipped if self.direction is not None else (),
        )

    def counts(self) -> dict[str, int]:
        out = {"critical": 0, "major": 0, "minor": 0}
        for f in self.findings:
            out[f.severity] += 1
        return out


class ReportError(WikigateError):
    pass


def load_report(text: str) -> VerificationReport:
    try:
        return VerificationReport.model_validate(json.loads(text))
    except ValueError as e:
        raise ReportError(f"not a wikigate verification report: {e}") from e


def json_schema() -> dict[str, object]:
    return VerificationReport.model_json_schema()


if __name__ == "__main__":  # python -m wikigate.verifier.report > docs/report.schema.json
    print(json.dumps(json_schema(), indent=2))
