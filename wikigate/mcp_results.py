"""The structured content each ``wikigate mcp`` tool returns, as TypedDicts: the tools'
return annotations (``Annotated[CallToolResult, ListResult]``), from which the SDK derives
each tool's ``outputSchema`` and against which it checks what the tool returns (the
client checks it again). No pydantic here: the session's library side (``Session``) types
its answers with them too, and is imported without the SDK (tests/test_startup_imports.py).

``typing_extensions.TypedDict``, not ``typing``'s: pydantic reads a nested TypedDict
(a finding inside ``FinalizeResult``) on Python 3.11 only from ``typing_extensions``.
"""

from __future__ import annotations

from typing_extensions import TypedDict

from wikigate.kinds import Severity, Status


class ListResult(TypedDict):
    """The files under raw/ and wiki/ that start with `under`, at most 2000, sorted."""

    where: str  # "main" or "run <id>": the tree read
    paths: list[str]
    total: int  # how many matched (more than `paths` holds when cut)


class ReadResult(TypedDict):
    """The span read: characters start … end of total (a PDF's: of its page)."""

    path: str
    page: int | None
    start: int
    end: int
    total: int
    text: str


class GrepHit(TypedDict):
    path: str
    page: int | None  # a PDF's page
    line: int
    text: str  # the line (at most 240 characters)


class GrepResult(TypedDict):
    """grep's hits (at most 30), and what its text says besides: "(first 30 hits)", a
    file it could not search and why."""

    hits: list[GrepHit]
    notes: list[str]


class FollowResult(TypedDict):
    """Where the link leads: a page or file (None: nowhere), whether it is a source
    reference (a [[name]] of a raw/ source), whether that is a PDF (read it with page), and
    the start of it shown."""

    leads_to: str | None
    source_reference: bool
    pdf: bool
    text: str


class HistoryCommit(TypedDict):
    commit: str  # its id's first 12 hex digits
    date: str  # YYYY-MM-DD HH:MM UTC
    subject: str
    run: str | None  # the run its Wikigate-Run trailer names (shown, not trusted)


class HistoryResult(TypedDict):
    """The commits that changed the file, newest first (at most 20), and what the text
    says besides ("no commit changed …", "(stopped after 2000 commits)")."""

    commits: list[HistoryCommit]
    notes: list[str]


class ClaimRow(TypedDict):
    """One row of the claim ledger (``wikigate claims --format json``)."""

    claim_id: str
    page: str
    label: str
    line: int
    claim: str
    source: str
    source_page: int | None
    source_quote: str
    source_quote_hash: str
    source_quote_offset: int | None
    anchor_status: str
    disputed: int
    introduced_commit: str
    changed_commit: str
    judge_vote: str | None
    judge_reason: str | None


class ClaimsResult(TypedDict):
    """The ledger's claims that match, at most 500."""

    claims: list[ClaimRow]
    total: int


class AnchorResult(TypedDict):
    """The footnote's text after ``[^n]: ``, with a correct anchor."""

    tail: str


class StartRunResult(TypedDict):
    run_id: str


class StagedResult(TypedDict):
    """What write, replace and delete staged: the path, and the run's new commit."""

    path: str
    commit: str


class UsageResult(TypedDict):
    """The attestation's commit; what it spends over the run's declared budget."""

    commit: str
    over_budget: list[str]


class FindingResult(TypedDict):
    """One finding: the report's Finding fields, and the id of the claim it is about."""

    code: str
    severity: Severity
    path: str | None
    line: int | None
    message: str
    hint: str | None
    claim: str | None
    claim_line: int | None
    claim_start_line: int | None
    suggested_tail: str | None
    signature: str
    claim_id: str | None  # <page>#^<label>, None when the finding names no claim


class FinalizeResult(TypedDict):
    """The verification's outcome: what happened to the run and what to do next."""

    run_id: str
    status: Status
    # commit, revise, reject, needs_human_review, or a person's word on it: commit_override,
    # commit_approved, reject_reviewed (the run's record); None: nothing was verified
    verdict: str | None
    reason: str | None
    run_open: bool  # whether the run still takes calls
    loop: int  # the loops verified (finalize calls that verified the run)
    loops_max: int
    loops_left: int
    tip: str | None
    findings: list[FindingResult]
    next_actions: list[str]
    blind_spots: list[str]
    questions: list[str]


class AbandonResult(TypedDict):
    run_id: str
    status: Status
    reason: str | None
