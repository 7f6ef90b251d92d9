"""The engine's data: run metadata, plans, verdicts, findings, records.

Plain data classes (wikigate/plain.py): no pydantic on import. The run's metadata, plan and
records, built from what git, trailers and notes hold, are validated as they are made
(``validate=True``, as their pydantic models were); a ``Finding`` and a verdict, made by the
verifier on every verification's path, are not.
"""

from __future__ import annotations

import functools
import hashlib
import re
from typing import Literal, get_args

from .kinds import (
    MAX_LOOPS,
    NEEDS_HUMAN_REVIEW,
    OVERRIDE_SOURCES,
    RUN_TYPES,
    SEVERITY_RANK,
    STATUSES,
    STRICTNESSES,
    TERMINAL,
    VERDICTS,
    OverrideSource,
    RunType,
    Severity,
    Status,
    Strictness,
    Verdict,
)
from .plain import Plain, plain, rule

__all__ = [
    "MAX_LOOPS",
    "NEEDS_HUMAN_REVIEW",
    "OVERRIDE_SOURCES",
    "RUN_TYPES",
    "SEVERITY_RANK",
    "STATUSES",
    "STRICTNESSES",
    "TERMINAL",
    "VERDICTS",
    "OverrideSource",
    "RunType",
    "Severity",
    "Status",
    "Strictness",
    "Verdict",
]


MAX_TOKENS = 2**63 - 1  # what SQLite's INTEGER holds
MAX_DIRECTION = 8000  # characters of a run's direction
MAX_USD = 1e12


@plain(frozen=True, validate=True)
class Budget(Plain):
    """Declared (budget) or attested (usage) spend of a run's writer."""

    input_tokens: int | None = rule(default=None, ge=0, le=MAX_TOKENS)
    output_tokens: int | None = rule(default=None, ge=0, le=MAX_TOKENS)
    usd: float | None = rule(default=None, ge=0, le=MAX_USD, allow_inf_nan=False)

    def is_empty(self) -> bool:
        return self.input_tokens is None and self.output_tokens is None and self.usd is None


@plain()
class Usage(Plain):
    """Tokens and dollars a verifier (or writer) spent."""

    input_tokens: int = 0
    output_tokens: int = 0
    usd: float = 0.0


@plain(frozen=True, validate=True)
class RunMeta(Plain):
    """What a run is; carried in the run branch's commit trailers."""

    run_id: str
    run_type: RunType
    triggered_by: str
    base: str
    started_at: str
    budget: Budget = Budget()
    usage: Budget = Budget()
    # the paths the run may change (a folder ends in "/"); None: any (docs/ledger.md)
    scope: tuple[str, ...] | None = None
    # what the run says it will do (the writer's words; the LLM judge checks the change)
    direction: str | None = rule(default=None, max_length=MAX_DIRECTION)


@plain(frozen=True, validate=True)
class Op(Plain):
    """One staged operation of a run's plan."""

    kind: Literal["write", "replace", "delete", "usage", "start"]
    path: str | None = None
    blob: str | None = None
    commit: str


@plain(frozen=True, validate=True)
class EarlierTrace(Plain):
    """The pin of an earlier run's trace (its id, head and length), whose events in git
    the ``trace`` check reads back to learn what that run read."""

    run_id: str
    head: str
    count: int


@plain(frozen=True, validate=True)
class TracePin(Plain):
    """What wikigate recorded of a run's trace (wikigate/trace.py) in the telemetry
    database (docs/mcp.md, "Trust model": the writer reaches it when it runs under the
    account that runs wikigate): the chain's head after its last event and how many
    events it holds; and the pins of the traces of the runs started before it, newest
    first (at most ``EARLIER_RUNS``; ``earlier_more``: there were more)."""

    head: str
    count: int
    earlier: tuple[EarlierTrace, ...] = ()
    earlier_more: bool = False


@plain(validate=True)
class Plan(Plain):
    """The run's metadata and its ops, oldest first, as read back from git; ``trace``:
    the pin of its trace (a run written through ``wikigate mcp``), from the database,
    never from git; None: no trace recorded (a CLI run, or a clone without the record)."""

    meta: RunMeta
    ops: list[Op]
    tip: str
    trace: TracePin | None = None

    def paths(self) -> list[str]:
        return sorted({op.path for op in self.ops if op.path})


@plain(frozen=True)
class OtherClaim(Plain):
    """The other side of a contradiction: the claim a finding's claim disagrees with."""

    page: str = rule(description="the page holding the other claim")
    line: int = rule(description="the line of its footnote reference [^n]")
    claim_id: str = rule(description="its id, <page>#^<label>")
    claim: str = rule(description="its text")
    source: str = rule(description="the source it cites (under raw/)")


@plain(frozen=True)
class Finding(Plain):
    """One located problem the verifier (or the engine) found."""

    code: str
    severity: Severity
    path: str | None = None
    line: int | None = None
    message: str
    hint: str | None = None
    claim: str | None = rule(default=None, description="the text of the claim it concerns")
    claim_line: int | None = rule(
        default=None,
        description="the line of the claim it concerns: the line holding the footnote "
        "reference [^n] (``line`` names the footnote's definition, for citation findings)",
    )
    claim_start_line: int | None = rule(
        default=None,
        description="the line where that claim's sentence starts (<= claim_line; "
        "less when the sentence spans lines)",
    )
    source: str | None = rule(
        default=None,
        description="for a contradiction (claim.*), the source the finding's claim cites; "
        "null for a statement marked [gap: …], which cites none",
    )
    other: OtherClaim | None = rule(
        default=None,
        description="for a contradiction (claim.*), the other claim: its page, line, id, "
        "text and source",
    )
    suggested_tail: str | None = rule(
        default=None,
        description="for anchor findings, and a quote found with the source's own quotes "
        "and dashes: the footnote's text after '[^n]: ' with the correct anchor, as "
        "`wikigate anchor` prints it",
    )
    signature: str = rule(
        default="",
        description="what failed, as a stable id (models.signature: the code, page, claim "
        "and message, line numbers masked): equal across a run's loops when the same thing "
        "fails again, whatever text moved around it",
    )

    def __derive__(self) -> None:
        # computed, never taken from input (plain._untwin calls it on validated data too):
        # a report read back cannot claim another finding's signature
        object.__setattr__(self, "signature", signature(self))


_NUMBER = re.compile(r"\d+")  # lines, columns, offsets, L3, p. 12: where, not what


def signature(f: Finding) -> str:
    """A failure's stable id: ``fingerprint`` without the line's text, and with every
    number in its message masked (lines, columns, offsets, a location note's ``L3``, a
    page), so it names what failed (code, page, claim, message) and never where it sits:
    the same failure in the next loop, its anchor or line note merely changed, has the
    same signature; a run whose loop repeats the last one's signatures makes no progress."""
    said = _NUMBER.sub("#", f.message)
    return _digest(f.code, f.path or "", f.claim or "", said)


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def fingerprint(f: Finding, line_text: str = "") -> str:
    """What a finding is about, never where it sits: its code, path, claim and message, and
    ``line_text``, the text of its line (for a citation finding the footnote's definition:
    source, quote, anchor; ``records.finding_fingerprints`` reads it), not its line number.
    A recorded override covers a finding of the same fingerprint (``wikigate verify --all``)
    until any of them changes."""
    return _digest(f.code, f.path or "", f.claim or "", f.message, _line_key(line_text))


@functools.lru_cache(maxsize=1024)
def _line_key(text: str) -> str:
    """The digest of a line's words: computed once per line however many findings sit on
    it (a page on one line with thousands of findings hashed the line for each: review
    36b)."""
    return _digest(" ".join(text.split()))


@plain()
class VerifierVerdict(Plain):
    """What a Verifier returns: the vote, why, and what it found."""

    verdict: Verdict
    reasoning: str = ""
    per_claim_findings: list[Finding] = rule(factory=list)
    per_page_findings: list[Finding] = rule(factory=list)
    tokens_used: Usage = rule(factory=Usage)
    preset: str | None = None
    report: dict[str, object] | None = None
    verifier: str | None = None  # what voted, with its version (named in the attestation)
    # the judge's raw record (name → bytes: requests, responses, votes), beside the
    # report and never serialized with the verdict (docs/architecture.md)
    artifacts: dict[str, bytes] = rule(factory=dict, exclude=True, repr=False)

    @property
    def findings(self) -> list[Finding]:
        return [*self.per_claim_findings, *self.per_page_findings]


Result = Literal["PASS", "FAIL", "FLAKY", "INCONCLUSIVE"]
RESULTS: tuple[str, ...] = get_args(Result)


@plain(frozen=True, validate=True)
class VerificationRef(Plain):
    """One verification of a run as git keeps it (docs/attest.md): its tree of artifacts,
    its attestation blob and the attestation's SSH signature blob (None: unsigned)."""

    loop: int
    result: Result
    tree: str
    attestation: str
    signature: str | None = None
    at: str


@plain(validate=True)
class LoggedFinding(Plain):
    """A finding as the telemetry keeps it: with the loop that produced it."""

    loop: int
    code: str
    severity: str
    path: str | None = None
    line: int | None = None
    message: str
    fingerprint: str | None = None  # models.fingerprint: what an override covers
    signature: str | None = None  # models.signature: what failed (no progress compares them)


@plain(validate=True)
class RunRecord(Plain):
    """The durable JSON record written as a git note on the run's tip.

    SQLite is rebuilt from these records, so they carry everything the
    ``runs``, ``findings`` and ``overrides`` tables hold.
    """

    kind: Literal["wikigate.run"] = "wikigate.run"
    schema_version: int = 1
    run_id: str
    workspace: str
    run_type: str
    triggered_by: str
    status: Status
    started_at: str
    ended_at: str | None = None
    recorded_at: str
    base_commit: str
    tip_commit: str
    branch: str
    verifier_preset: str | None = None
    verdict: str | None = None
    reject_reason: str | None = None
    loop_count: int = 1
    unverified: bool = False
    budget: Budget = Budget()
    usage: Budget = Budget()
    verifier_usage: Usage = rule(factory=Usage)
    findings: list[LoggedFinding] = rule(factory=list)
    exempt: list[str] = rule(factory=list)  # pages spared some checks, and why
    verifications: list[VerificationRef] = rule(factory=list)  # oldest first
    override_actor: str | None = None
    override_reason: str | None = None
    override_source: OverrideSource | None = None
    override_at: str | None = None
    # the digest of what `run start` recorded (plan.meta_digest); None: from before it existed
    meta_digest: str | None = None
    # the last verification's feedback (verifier/advice.py): what to do next, what it could
    # not rule out, and for a run waiting for a person, what that person must answer
    next_actions: list[str] = rule(factory=list)
    blind_spots: list[str] = rule(factory=list)
    questions: list[str] = rule(factory=list)
