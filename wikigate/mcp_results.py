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

    where: str
    """the tree read: main, or run <id>"""
    paths: list[str]
    """the matching paths, sorted, at most 2000"""
    total: int
    """how many matched (more than `paths` holds when cut)"""


class ReadResult(TypedDict):
    """The span read: characters start … end of total (a PDF's: of its page)."""

    path: str
    """the file read"""
    page: int | None
    """a PDF's page read (from 1); null for a text file"""
    start: int
    """the first character read (from 0)"""
    end: int
    """the character after the last one read"""
    total: int
    """the characters of the file (a PDF's: of its page)"""
    text: str
    """the characters read, alone, as the file holds them"""


class GrepHit(TypedDict):
    path: str
    """the file holding the line"""
    page: int | None
    """a PDF's page holding the line; null for a text file"""
    line: int
    """the line's number (from 1; a PDF's: on its page)"""
    text: str
    """the line (at most 240 characters)"""


class GrepResult(TypedDict):
    """grep's hits (at most 30), and what its text says besides: "(first 30 hits)", a
    file it could not search and why."""

    hits: list[GrepHit]
    """the lines holding the text, at most 30"""
    notes: list[str]
    """the text's other lines: "(first 30 hits)", a file not searched and why"""


class FollowResult(TypedDict):
    """Where the link leads: a page or file (None: nowhere), whether it is a source
    reference (a [[name]] of a raw/ source), whether that is a PDF (read it with page), and
    the start of it shown."""

    leads_to: str | None
    """the page or file the link leads to; null: nowhere"""
    source_reference: bool
    """whether the link is a [[name]] of a source under raw/"""
    pdf: bool
    """whether it leads to a PDF (read it with `page`)"""
    text: str
    """the start of what it leads to"""


class HistoryCommit(TypedDict):
    commit: str
    """the commit id's first 12 hex digits"""
    date: str
    """its commit date, YYYY-MM-DD HH:MM UTC"""
    subject: str
    """its message's first line"""
    run: str | None
    """the run its Wikigate-Run trailer names (shown, not trusted); null: none"""


class HistoryResult(TypedDict):
    """The commits that changed the file, newest first (at most 20), and what the text
    says besides ("no commit changed …", "(stopped after 2000 commits)")."""

    commits: list[HistoryCommit]
    """the commits that changed the file, newest first, at most 20"""
    notes: list[str]
    """the text's other lines: no commit changed …, (stopped after 2000 commits)"""


class ClaimRow(TypedDict):
    """One row of the claim ledger (``wikigate claims --format json``)."""

    claim_id: str
    """the claim's id: <page>#^<label>"""
    page: str
    """the page holding the claim"""
    label: str
    """its footnote's label"""
    line: int
    """the line of its footnote reference [^label]"""
    claim: str
    """the claim's sentence"""
    source: str
    """the source it cites"""
    source_page: int | None
    """the PDF page it cites (p.N); null: none"""
    source_quote: str
    """the quote its footnote gives"""
    source_quote_hash: str
    """the SHA-256 of the quote's UTF-8 bytes"""
    source_quote_offset: int | None
    """the quote's recorded offset in the source; null: unanchored"""
    anchor_status: str
    """anchored, unanchored or mismatched"""
    disputed: int
    """1 inside a ::: disputed block, else 0"""
    introduced_commit: str
    """main's commit that added the claim"""
    changed_commit: str
    """main's last commit that changed the claim"""
    judge_vote: str | None
    """the LLM judge's last vote on the claim as it stands; null: none"""
    judge_reason: str | None
    """that vote's reason; null: none"""


class ClaimsResult(TypedDict):
    """The ledger's claims that match, at most 500."""

    claims: list[ClaimRow]
    """the matching claims, at most 500"""
    total: int
    """how many matched (more than `claims` holds when cut)"""


class AnchorResult(TypedDict):
    """The footnote's text after ``[^n]: ``, with a correct anchor."""

    tail: str
    """the footnote's text after `[^n]: `, anchored: `source — "quote" {@offset sha256:…}`"""


class StartRunResult(TypedDict):
    """The run opened."""

    run_id: str
    """the id of the run opened: the one later calls stage into"""


class StagedResult(TypedDict):
    """What write, replace and delete staged: the path, and the run's new commit."""

    path: str
    """the path staged"""
    commit: str
    """the run's new tip"""


class UsageResult(TypedDict):
    """The attestation's commit; what it spends over the run's declared budget."""

    commit: str
    """the attestation's commit (the run's new tip)"""
    over_budget: list[str]
    """each overspend of the run's declared budget ("usd: used 0.5, budget 0.1"): finalize
    rejects the run (run.budget); empty: within it"""


class OtherClaimResult(TypedDict):
    """The other side of a contradiction: the claim a finding's claim disagrees with."""

    page: str
    """the page holding the other claim"""
    line: int
    """the line of its footnote reference [^n]"""
    claim_id: str
    """its id, <page>#^<label>"""
    claim: str
    """its text"""
    source: str
    """the source it cites (under raw/)"""


class FindingResult(TypedDict):
    """One finding: the report's Finding fields, and the id of the claim it is about."""

    code: str
    """what was found, as a code (docs/checks.md)"""
    severity: Severity
    """critical, major or minor"""
    path: str | None
    """the file it is about; null: the change as a whole"""
    line: int | None
    """the line it is about; null: the file as a whole"""
    message: str
    """what is wrong"""
    hint: str | None
    """how to fix it"""
    claim: str | None
    """the text of the claim it concerns"""
    claim_line: int | None
    """the line of that claim's footnote reference [^n] (`line` names the footnote's
    definition, for citation findings)"""
    claim_start_line: int | None
    """the line where that claim's sentence starts (<= claim_line)"""
    source: str | None
    """for a contradiction (claim.*), the source the finding's claim cites; null for a
    statement marked [gap: …]"""
    other: OtherClaimResult | None
    """for a contradiction (claim.*), the other claim: its page, line, id, text, source"""
    suggested_tail: str | None
    """the footnote's text after `[^n]: ` that fixes it: replace it with this"""
    signature: str
    """what failed, as a stable id: equal across loops when the same thing fails again"""
    claim_id: str | None
    """the id of the claim it is about, <page>#^<label>; null when it names no claim"""


class FinalizeResult(TypedDict):
    """The verification's outcome: what happened to the run and what to do next."""

    run_id: str
    """the run finalized"""
    status: Status
    """committed, rejected, abandoned, or pending (revise or needs_human_review)"""
    verdict: str | None
    """commit, revise, reject, needs_human_review, or a person's word on it:
    commit_override, commit_approved, reject_reviewed; null: nothing was verified"""
    reason: str | None
    """why"""
    run_open: bool
    """whether the run still takes calls (true on revise only)"""
    loop: int
    """the loops verified (finalize calls that verified the run)"""
    loops_max: int
    """the loops a run may take"""
    loops_left: int
    """the loops left: the last one's revise rejects the run"""
    tip: str | None
    """the commit verified (main's, once committed); null: none"""
    findings: list[FindingResult]
    """what the verification found"""
    next_actions: list[str]
    """one to three steps that fix the worst findings first"""
    blind_spots: list[str]
    """what the verification could not rule out"""
    questions: list[str]
    """for a run waiting for a person: what that person must answer"""


class AbandonResult(TypedDict):
    """The run abandoned."""

    run_id: str
    """the run abandoned"""
    status: Status
    """the run's status: abandoned"""
    reason: str | None
    """the reason recorded with the actor"""


# each field's description is the string under it (pydantic's use_attribute_docstrings): the
# outputSchema says what a field holds (mcp30 #4). A plain dict, so this module imports no
# pydantic; each TypedDict its own (a nested one does not take its parent's).
_DESCRIBED = {"use_attribute_docstrings": True}
RESULTS: tuple[type, ...] = (
    ListResult,
    ReadResult,
    GrepHit,
    GrepResult,
    FollowResult,
    HistoryCommit,
    HistoryResult,
    ClaimRow,
    ClaimsResult,
    AnchorResult,
    StartRunResult,
    StagedResult,
    UsageResult,
    OtherClaimResult,
    FindingResult,
    FinalizeResult,
    AbandonResult,
)
for _kind in RESULTS:
    _kind.__pydantic_config__ = _DESCRIBED  # type: ignore[attr-defined]
