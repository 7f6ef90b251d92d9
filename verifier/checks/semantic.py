"""The semantic check: does each verified quote support its claim?  It gathers the claims
to judge (every claim whose quote is verbatim in its source and carries no critical
finding: a fabricated quote never costs a token), with the window of source text around
the quote and the heuristic's conflicts as hints, asks the judge, and turns its votes into
findings.  The judge can only add findings, so it can only make the verdict worse.
"""

from __future__ import annotations

import re

from wikigate.codes import finding
from wikigate.models import Finding
from wikigate.text import shown

from ..heuristic import conflicts
from ..judge import HEURISTIC, ClaimInput, Vote
from ..sources import SourceError
from ..staged import StagedTree
from .citations import VerifiedQuote, VerifiedQuotes
from .context import Context

WINDOWED = ("number", "unit")  # the heuristic's rules that read the window
PARAGRAPH_MAX = 2000  # characters of a claim's paragraph sent along
REASON_MAX = 500  # characters of a judge's reason kept in a finding

VOTE_CODES = {
    "partial": "citation.partial",
    "unsupported": "citation.unsupported",
    "contradicts": "citation.contradicted",
    "inconclusive": "citation.inconclusive",
    "flaky": "citation.flaky",
}


def check_semantic(ctx: Context, verified_quotes: VerifiedQuotes) -> list[Finding]:
    claims = claims_to_judge(ctx, verified_quotes, windows=ctx.judge.name != HEURISTIC)
    if not claims:
        return []
    staged = StagedTree(ctx.repo, ctx.tip, ctx.tip_commit, ctx.heartbeat)
    judgment = ctx.judge.judge(claims, staged)
    ctx.judgment = judgment
    out: list[Finding] = []
    for c in claims:
        vote = judgment.votes.get(c.claim_id) or Vote(
            c.claim_id, "inconclusive", "the judge returned no vote for this claim"
        )
        found = _finding(ctx.judge.name, c, vote)
        if found is not None:
            out.append(found)
    return out


# the dated marker of the convergence convention (docs/format.md): "Updated 2026-11-21 per
# raw/x.txt:" says when and why, not what the source says; the claim is what follows it
_HEDGE = re.compile(r"^\s*Updated \d{4}-\d{2}-\d{2} per [^:\s]+:\s*")


def hedge_free(claim: str) -> str:
    """The claim without a leading dated hedge marker."""
    return _HEDGE.sub("", claim, count=1) or claim


def claims_to_judge(
    ctx: Context, verified: VerifiedQuotes, *, windows: bool = True
) -> list[ClaimInput]:
    """The claims to judge, each with the window of source text around its quote.

    Without ``windows`` (the offline judge) a source is read only for a claim whose
    numbers or units differ from its quote's: only those rules look at the window, and a
    warm verify need not read every cited source again.
    """
    window = ctx.config.judge.window_chars
    out: list[ClaimInput] = []
    for path in ctx.pages_in_scope():
        page = ctx.tip.page(path)
        if page is None or not page.refs:
            continue
        lines: list[str] | None = None
        uses: dict[str, int] = {}
        for ref in page.refs:
            vq = verified.get((path, ref.label))
            if vq is None or not ref.claim or _blocked(ctx, path, vq):
                continue
            if lines is None:
                text, _ = ctx.tip.page_text(path)
                lines = (text or "").split("\n")
            uses[ref.label] = uses.get(ref.label, 0) + 1
            n = uses[ref.label]
            claim_id = f"{path}#^{ref.label}" + (f"@{n}" if n > 1 else "")
            claim = hedge_free(ref.claim)
            found = conflicts(claim, vq.quote)
            start, around = vq.offset, vq.quote
            if windows or any(k.kind in WINDOWED for k in found):
                try:
                    source_text = ctx.tip.source_text(vq.source, vq.pdf_page)
                except SourceError:
                    continue  # the citations check reported it
                start = max(0, vq.offset - window)
                end = min(len(source_text), vq.offset + len(vq.quote) + window)
                around = source_text[start:end]
                found = conflicts(claim, vq.quote, around)
            hints = tuple(k.describe() for k in found)
            out.append(
                ClaimInput(
                    claim_id=claim_id,
                    page=path,
                    line=ref.line,
                    label=ref.label,
                    title=page.title,
                    claim=ref.claim,
                    paragraph=_paragraph(lines, ref.line),
                    source=vq.source,
                    source_blob=vq.blob,
                    pdf_page=vq.pdf_page,
                    quote=vq.quote,
                    offset=vq.offset,
                    window=around,
                    window_start=start,
                    hints=hints,
                    claim_line=ref.at_line,
                    claim_start_line=ref.start_line,
                )
            )
    return out


def _blocked(ctx: Context, path: str, vq: VerifiedQuote) -> bool:
    """The quote's anchor finding is critical (under this preset and config)."""
    if vq.code is None:
        return False
    return ctx.severity(finding(vq.code, path, None, "")) == "critical"


def _paragraph(lines: list[str], line: int) -> str:
    """The block holding line ``line`` (1-based): up to the next blank line."""
    out: list[str] = []
    size = 0
    for text in lines[max(0, line - 1) :]:
        if not text.strip():
            break
        out.append(text)
        size += len(text) + 1
        if size > PARAGRAPH_MAX:
            break
    return "\n".join(out)[:PARAGRAPH_MAX]


def _finding(judge: str, c: ClaimInput, vote: Vote) -> Finding | None:
    found = _vote_finding(judge, c, vote)
    if found is None:
        return None
    return found.model_copy(
        update={"claim_line": c.claim_line, "claim_start_line": c.claim_start_line}
    )


def _vote_finding(judge: str, c: ClaimInput, vote: Vote) -> Finding | None:
    if vote.vote == "supports":
        return None
    reason = shown(vote.reason)[:REASON_MAX]
    label = f"[^{c.label}]"
    if judge == HEURISTIC:
        return finding(
            "citation.semantic_conflict",
            c.page,
            c.line,
            f"{label} may not support the claim ({judge} judge): {reason}",
            claim=c.claim,
        )
    evidence = f' (evidence: "{shown(vote.evidence)[:200]}")' if vote.evidence else ""
    message = {
        "partial": f"{label} supports the claim only in part ({judge} judge): {reason}",
        "unsupported": f"{label} does not support the claim ({judge} judge): {reason}",
        "contradicts": f"{label}: the source contradicts the claim ({judge} judge): "
        f"{reason}{evidence}",
        "inconclusive": f"{label}: no verdict from the {judge} judge: {reason}",
        "flaky": f"{label}: two fresh {judge} judgements disagree "
        f"({' then '.join(vote.rejudged or ())}): {reason}",
    }[vote.vote]
    return finding(VOTE_CODES[vote.vote], c.page, c.line, message, claim=c.claim)
