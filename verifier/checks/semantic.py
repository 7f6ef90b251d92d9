"""The semantic check: does each verified quote support its claim?  It gathers the claims
to judge (every claim whose quote is verbatim in its source and carries no critical
finding: a fabricated quote never costs a token), with the window of source text around
the quote and the heuristic's conflicts as hints, asks the judge, and turns its votes into
findings.  The judge can only add findings, so it can only make the verdict worse.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Mapping
from typing import NamedTuple

from wikigate.codes import finding
from wikigate.models import Finding
from wikigate.text import shown

from ..citation import Citation
from ..claims import CONFLICT_MARKER
from ..judges.offline import (
    NUMBER_HINT,
    SOURCE_HEAD,
    Conflict,
    conflicts,
    figures_stated,
    rules_digest,
    source_label,
)
from ..judges.protocol import HEURISTIC, ClaimInput, Vote
from ..markdown import Ref
from ..sources import SourceError
from ..staged import StagedTree
from .citations import VerifiedQuote, VerifiedQuotes, parsed_definitions
from .consistency import capped
from .context import Context

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
    offline = ctx.judge.name == HEURISTIC
    claims = claims_to_judge(ctx, verified_quotes, windows=not offline, hinted_only=offline)
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
            out.append(_at_note(ctx, found, c))
    # the offline judge's hints: at most PER_PAGE a page, then one counting the rest (review
    # 37b: a page of 5,000 claims gave 5,000 of them, a 2.9 MB report)
    return capped(out, frozenset({"citation.semantic_conflict"}))


# the dated marker of the convergence convention (docs/format.md): "Updated 2026-11-21 per
# raw/x.txt:" says when and why, not what the source says; the claim is what follows it
_HEDGE = re.compile(r"^\s*Updated \d{4}-\d{2}-\d{2} per [^:\s]+:\s*")


def hedge_free(claim: str) -> str:
    """The claim without a leading dated hedge marker."""
    return _HEDGE.sub("", claim, count=1) or claim


class _Candidate(NamedTuple):
    path: str
    ref: Ref
    claim_id: str
    claim: str  # hedge-free
    vq: VerifiedQuote
    row: str = ""  # the table row of a claim in a table cell (its hedges are the claim's)


def claims_to_judge(
    ctx: Context, verified: VerifiedQuotes, *, windows: bool = True, hinted_only: bool = False
) -> list[ClaimInput]:
    """The claims to judge, each with the window of source text around its quote.

    The heuristic's rules always read the source around each quote (the words before a
    quote may deny or hedge it, the words after it, and the next sentence, may take it
    back). Without ``windows`` (the offline judge) its hints come from the cache when
    these words were read before: a warm verify reads no source and runs no rule for an
    unchanged claim.  ``hinted_only``
    leaves out the claims no rule flags (the offline judge votes on hints alone).
    """
    candidates = _candidates(ctx, verified)
    hints: Mapping[str, _Hints | None]
    if windows:  # in source order: each source read once (wiki.SOURCE_CHARS_KEPT)
        hints = {c.claim_id: _hints(ctx, c) for c in by_source(candidates)}
    else:
        hints = _cached_hints(ctx, candidates)
    hints = _stated(ctx, candidates, hints)
    out: list[ClaimInput] = []
    lines: dict[str, list[str]] = {}
    for c in candidates:
        found = hints.get(c.claim_id)
        if found is None or (hinted_only and not found.hints):
            continue  # its source is unreadable (the citations check reported it)
        if c.path not in lines:
            text, _ = ctx.tip.page_text(c.path)
            lines[c.path] = (text or "").split("\n")
        page = ctx.tip.page(c.path)
        vq, ref = c.vq, c.ref
        out.append(
            ClaimInput(
                claim_id=c.claim_id,
                page=c.path,
                line=ref.line,
                label=ref.label,
                title=page.title if page is not None else None,
                claim=ref.row or ref.claim,  # a table cell: its whole row, the statement
                paragraph=_paragraph(lines[c.path], ref.line),
                source=vq.source,
                source_blob=vq.blob,
                pdf_page=vq.pdf_page,
                quote=vq.quote,
                offset=vq.offset,
                window=found.window,
                window_start=found.window_start,
                hints=found.hints,
                claim_line=ref.at_line,
                claim_start_line=ref.start_line,
            )
        )
    return out


def _stated(
    ctx: Context, candidates: list[_Candidate], hints: Mapping[str, _Hints | None]
) -> Mapping[str, _Hints | None]:
    """``hints`` without the number hints of a claim that states its sources' conflict:
    one sentence citing several sources, each of its figures given by one of its quotes
    (``figures_stated``: "in 1894 or in 1899.[^1][^2]"; trial 40 #2). Its footnotes'
    quotes as written, a quote that no longer verifies too (trial 41b: once one source
    changed, the other footnote's quote was judged alone, a major semantic conflict)."""
    groups: dict[tuple[str, int, str], list[_Candidate]] = {}
    for c in candidates:
        groups.setdefault((c.path, c.ref.at_line, c.claim), []).append(c)
    out = dict(hints)
    cited_by: dict[str, dict[tuple[int, str], list[Citation]]] = {}  # per page, read once
    for (path, at_line, claim), group in groups.items():
        numbered = [c for c in group if (h := hints.get(c.claim_id)) and _numbered(h.hints)]
        if not numbered:
            continue
        if path not in cited_by:
            cited_by[path] = _sentence_citations(ctx, path)
        cited = cited_by[path].get((at_line, group[0].ref.claim), [])
        if len({c.source for c in cited}) < 2:
            continue
        if not figures_stated(claim, [c.quote for c in cited]):
            continue
        for c in numbered:
            h = hints[c.claim_id]
            if h is None:
                continue
            kept = tuple(x for x in h.hints if not x.startswith(NUMBER_HINT))
            out[c.claim_id] = h._replace(hints=kept)
    return out


def _sentence_citations(ctx: Context, path: str) -> dict[tuple[int, str], list[Citation]]:
    """Each sentence of ``path`` (its line, its text) → its citations, as its footnotes write
    them (a quote that no longer verifies included): one pass over the page's references."""
    page = ctx.tip.page(path)
    if page is None:
        return {}
    defs = parsed_definitions(page)
    out: dict[tuple[int, str], list[Citation]] = {}
    seen: set[tuple[int, str, str]] = set()
    for r in page.refs:
        c = defs.get(r.label, (0, ""))[1]
        if isinstance(c, Citation) and (r.at_line, r.claim, r.label) not in seen:
            seen.add((r.at_line, r.claim, r.label))
            out.setdefault((r.at_line, r.claim), []).append(c)
    return out


def _numbered(hints: tuple[str, ...]) -> bool:
    return any(x.startswith(NUMBER_HINT) for x in hints)


def _candidates(ctx: Context, verified: VerifiedQuotes) -> list[_Candidate]:
    """Every cited claim in scope whose quote is verbatim and not critically misplaced."""
    out: list[_Candidate] = []
    for path in ctx.pages_in_scope():
        page = ctx.tip.page(path)
        if page is None or not page.refs:
            continue
        uses: dict[str, int] = {}
        lines: list[str] | None = None  # the page's lines, split once when a claim needs them
        for ref in page.refs:
            vq = verified.get((path, ref.label))
            if vq is None or not ref.claim or _blocked(ctx, path, vq):
                continue
            uses[ref.label] = uses.get(ref.label, 0) + 1
            n = uses[ref.label]
            claim_id = f"{path}#^{ref.label}" + (f"@{n}" if n > 1 else "")
            if lines is None:
                lines = (ctx.tip.page_text(path)[0] or "").split("\n")
            row = _row(lines, ref.at_line)
            claim = hedge_free(CONFLICT_MARKER.sub("", ref.claim))  # the marker is no claim
            out.append(_Candidate(path, ref, claim_id, claim, vq, row))
    return out


def _row(lines: list[str], line: int) -> str:
    """The page's line ``line`` (1-based) when it is a table row ("| … | … |"), else ''."""
    row = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    return row[:2000] if row.startswith("|") else ""


class _Hints(NamedTuple):
    hints: tuple[str, ...]
    window: str
    window_start: int


def _hints(ctx: Context, c: _Candidate) -> _Hints | None:
    """The heuristic's conflicts between a claim and its quote, read with the window of
    source text around the quote (every rule may change with it: the words before a
    quote may deny or hedge it, the words after it and the next sentence take it back).
    None: the source cannot be read."""
    read = _window(ctx, c)
    if read is None:
        return None
    return _hinted(read, conflicts(*_rules_input(c, read)))


class _Window(NamedTuple):
    start: int
    text: str
    label: str  # the source's ``source_label``


def _window(ctx: Context, c: _Candidate) -> _Window | None:
    """The window of source text around a candidate's quote (from the cache when it was
    read before); None: the source cannot be read."""
    vq = c.vq
    chars = ctx.config.judge.window_chars
    try:
        start, around, head = ctx.tip.source_window(
            vq.source, vq.pdf_page, vq.offset, len(vq.quote), chars, SOURCE_HEAD
        )
    except SourceError:
        return None
    return _Window(start, around, source_label(vq.source, head))


RulesInput = tuple[str, str, str, str, int, str]  # conflicts' claim, quote, window, source, at, row


def _rules_input(c: _Candidate, w: _Window) -> RulesInput:
    return (c.claim, c.vq.quote, w.text, w.label, c.vq.offset - w.start, c.row)


def _hinted(w: _Window, found: list[Conflict]) -> _Hints:
    return _Hints(tuple(k.describe() for k in found), w.text, w.start)


PARALLEL_CLAIMS = 20_000  # fewer claims to run the rules on stay in-process
CLAIMS_PER_TASK = 2_000


def _conflicts_task(repo: object, inputs: list[RulesInput]) -> list[list[Conflict]]:
    """The rules on each claim and the window around its quote: a worker's share."""
    return [conflicts(*x) for x in inputs]


def _windowed(ctx: Context, todo: list[_Candidate]) -> Iterator[tuple[_Candidate, _Hints | None]]:
    """Each candidate, in source order (each source read once: wiki.SOURCE_CHARS_KEPT),
    with its hints (None: its source cannot be read). The windows are read here; the
    rules run on the workers when there are many claims (a cold verify of a large wiki),
    a batch of windows at a time (bounded memory)."""
    ordered = by_source(todo)
    workers = ctx.tip.workers
    if len(ordered) < PARALLEL_CLAIMS or not workers.enabled:
        yield from ((c, _hints(ctx, c)) for c in ordered)
        return
    step = CLAIMS_PER_TASK * max(2, workers.count)
    for i in range(0, len(ordered), step):
        read = [(c, _window(ctx, c)) for c in ordered[i : i + step]]
        inputs = [_rules_input(c, w) for c, w in read if w is not None]
        tasks = [inputs[j : j + CLAIMS_PER_TASK] for j in range(0, len(inputs), CLAIMS_PER_TASK)]
        found = (k for chunk in workers.map(_conflicts_task, tasks) for k in chunk)
        for c, w in read:
            yield c, None if w is None else _hinted(w, next(found))


def _cached_hints(ctx: Context, candidates: list[_Candidate]) -> dict[str, _Hints]:
    """The offline pass's hints for each candidate, from the cache where it has them.

    Rows of two kinds, in the cache's hints table, each holding hints by position (a
    claim no rule flagged is absent). One per page: its key a digest of everything the
    page's hints depend on (the rules' code, the window's size, and each candidate's
    claim, quote, source blob and place in it): an unchanged page is one lookup. One per
    claim (its key the same for the claim alone, and its source's path; its hints at
    position 0), looked up for the pages that miss: a page given a new claim computes
    that claim's hints only, and its other claims' sources are not read again. The
    window itself is not kept (the offline judge does not read it)."""
    salt = f"{rules_digest()}\0{ctx.config.judge.window_chars}\0"
    pages: dict[str, list[_Candidate]] = {}
    for c in candidates:
        pages.setdefault(c.path, []).append(c)
    keys = {path: _digest(salt + "\1".join(map(_material, group))) for path, group in pages.items()}
    known = ctx.cache.hints(list(keys.values()))
    out: dict[str, _Hints] = {}
    misses: list[tuple[str, list[_Candidate]]] = []
    for path, group in pages.items():
        row = known.get(keys[path])
        if row is None:
            misses.append((path, group))
            continue
        for i, c in enumerate(group):
            out[c.claim_id] = _Hints(row.get(i, ()), c.vq.quote, c.vq.offset)
    claim_keys = {
        c.claim_id: _digest(f"claim\0{salt}{_material(c)}\0{c.vq.source}")
        for _, group in misses
        for c in group
    }
    claims_known = ctx.cache.hints(sorted(set(claim_keys.values())))
    todo = []
    for _, group in misses:
        for c in group:
            row = claims_known.get(claim_keys[c.claim_id])
            if row is None:
                todo.append(c)
            else:
                out[c.claim_id] = _Hints(row.get(0, ()), c.vq.quote, c.vq.offset)
    fresh: dict[str, dict[int, tuple[str, ...]]] = {}
    for c, found in _windowed(ctx, todo):
        if found is not None:  # else its source could not be read: not a row to keep
            out[c.claim_id] = found
            fresh[claim_keys[c.claim_id]] = {0: found.hints} if found.hints else {}
    for path, group in misses:
        if all(c.claim_id in out for c in group):
            fresh[keys[path]] = {i: h for i, c in enumerate(group) if (h := out[c.claim_id].hints)}
    ctx.cache.store_hints(fresh)
    return out


def _material(c: _Candidate) -> str:
    """What a candidate's offline hints depend on, besides the rules and the window's size."""
    return f"{c.claim}\0{c.vq.quote}\0{c.vq.blob}\0{c.vq.pdf_page}\0{c.vq.offset}\0{c.row}"


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def by_source(candidates: list[_Candidate]) -> list[_Candidate]:
    """The candidates sorted by the source (and PDF page) their quote is in."""
    return sorted(candidates, key=lambda c: (c.vq.source, c.vq.pdf_page or 0, c.vq.offset))


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


def _at_note(ctx: Context, found: Finding, c: ClaimInput) -> Finding:
    """A ``citation.semantic_conflict`` located as the other citation findings are
    (``citation.quote_not_found``): on its footnote's definition line, the claim (its text,
    ``claim_line``, ``claim_start_line``) kept in the finding."""
    if found.code != "citation.semantic_conflict":
        return found
    page = ctx.tip.page(c.page)
    note = parsed_definitions(page).get(c.label) if page is not None else None
    return found if note is None else found.model_copy(update={"line": note[0]})


def _vote_finding(judge: str, c: ClaimInput, vote: Vote) -> Finding | None:
    if vote.vote == "supports":
        return None
    reason = shown(vote.reason)[:REASON_MAX]
    label = f"[^{c.label}]"
    # the claim's line (the one holding its reference), not the paragraph's first: a
    # hard-wrapped paragraph holds several claims (the heuristic's finding is then moved to
    # its footnote's definition, `_at_note`, the claim's line kept as its claim_line)
    line = c.claim_line if c.claim_line is not None else c.line
    if judge == HEURISTIC:
        return finding(
            "citation.semantic_conflict",
            c.page,
            line,
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
    return finding(VOTE_CODES[vote.vote], c.page, line, message, claim=c.claim)
