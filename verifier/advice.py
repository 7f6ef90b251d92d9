"""What a writer does next, and what a verification could not rule out (issue 28): each
report carries one to three **next actions**, bounded concrete steps derived only from
its findings (never from what the writer wrote, verbatim: a path is escaped and cut), and
its **blind spots**, what it did not check (semantic support on the offline judge, claims
the judge left inconclusive, checks a limit stopped, sources or pages a limit kept out).

Pure: ``VerificationReport`` derives both from its own fields (report.py), so a report
read back cannot claim advice its findings do not give.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from wikigate.codes import CODES
from wikigate.models import SEVERITY_RANK, Finding
from wikigate.text import escaped as safe
from wikigate.text import plural

MAX_ACTIONS = 3
MAX_LINES = 5  # line numbers named in one action
# the anchor `wikigate anchor` would write: digits and hex only, nothing the writer typed
_ANCHOR = re.compile(r"\{@\d{1,15} sha256:[0-9a-f]{64}\}")
# the findings whose fix is the anchor alone: the quote is verbatim in the source
_ANCHORED = frozenset(
    ("citation.anchor_missing", "citation.anchor_mismatch", "citation.hash_mismatch")
)
_ELSEWHERE = re.compile(r"; a page of that name: ([^;)]{1,300})\)$")
_LIMITED = re.compile(r"\[limits\]|\blimit\b")


def _lines(lines: Sequence[int]) -> str:
    named = ", ".join(str(n) for n in lines[:MAX_LINES])
    more = f" and {len(lines) - MAX_LINES} more" if len(lines) > MAX_LINES else ""
    return f"line{'s' if len(lines) > 1 else ''} {named}{more}"


def where(path: str | None, lines: Sequence[int]) -> str:
    """``lines 3, 5 of wiki/a.md`` (a path escaped and cut), or the page, or the change."""
    page = safe(path) if path else "the change"
    return f"{_lines(lines)} of {page}" if lines else page


def _one(f: Finding) -> str | None:
    """The action of a finding that stands alone (its fix names something only it has)."""
    if f.code not in _ANCHORED:
        return None
    anchor = _ANCHOR.search(f.suggested_tail or "") or _ANCHOR.search(f.hint or "")
    if anchor is None:
        return None
    at = where(f.path, [f.line] if f.line else [])
    if f.code == "citation.anchor_missing":
        return f"add the anchor {anchor.group()} to the footnote on {at}"
    return f"replace the anchor of the footnote on {at} with {anchor.group()}"


def _grouped(code: str, path: str | None, found: list[Finding]) -> str:
    """The action of the findings of one code on one page (one step for all of them)."""
    lines = sorted({f.line for f in found if f.line})
    at = where(path, lines)
    page = safe(path) if path else "the change"
    if code == "page.unsupported_statement":
        what = "sentence" if len(lines) == 1 else "sentences"
        return f"cite or gap-mark the {what} on {at}"
    if code == "link.broken":
        fix = f"fix the link{'s' if len(found) > 1 else ''} on {at}"
        for f in found:
            nearest = _ELSEWHERE.search(f.message)
            if nearest is not None:
                return f"{fix}: a page of that name is {safe(nearest.group(1))}"
        own = next((f.hint for f in found if f.hint and f.hint != CODES[code].hint), None)
        if own is not None:  # the page exists; its blocks or headings do not match
            return f"{fix}: {safe(own, 200)}"
        return f"{fix}: link an existing page by file name, title or alias"
    if code == "page.orphan":  # its hint names the index of the wiki's root
        said = next((f.hint for f in found if f.hint), None) or ""
        index = said.removeprefix("link it from ").partition(" or a page")[0] or "the index"
        return f"link {page} from {safe(index)} or a page linked from there"
    if code == "page.uncited":
        return f"cite a raw source on {page} (or mark what has none with [gap: …])"
    if code == "citation.quote_not_found":
        fix = "quote the source verbatim in the footnote on {}, or cite what it does say"
        # a near miss the check matched character for character (typographic quotes and
        # dashes): the finding carries the footnote as the source has it (mcp28i)
        tailed = sorted({f.line for f in found if f.line and f.suggested_tail})
        if not tailed:
            return fix.format(at)
        step = (
            f"replace the text after '[^n]: ' of the footnote on {where(path, tailed)} with "
            f"its finding's suggested_tail (the quote as the source has it, anchored)"
        )
        rest = [n for n in lines if n not in tailed]
        return f"{step}; {fix.format(where(path, rest))}" if rest else step
    known = CODES.get(code)
    # the finding's own hint (a check's words, which may quote the page: escaped and cut),
    # else its code's
    hint = next((f.hint for f in found if f.hint), None) or (known.hint if known else None)
    hint = hint or f"fix what {code} names"
    return f"{code} on {at}: {safe(hint, 200)}" if path else f"{code}: {safe(hint, 200)}"


def next_actions(findings: Iterable[Finding]) -> list[str]:
    """One to three steps that fix the worst findings first (none: nothing to fix). The
    findings of one code on one page are one step; an anchor's fix names the anchor."""
    ranked = sorted(findings, key=lambda f: -SEVERITY_RANK.get(f.severity, 0))
    steps: list[str | tuple[str, str | None]] = []  # an action, or a group's key
    seen: set[str] = set()
    groups: dict[tuple[str, str | None], list[Finding]] = {}
    for f in ranked:  # linear: a step is never searched for, and no fourth one is made
        alone = _one(f)
        if alone is not None:
            if alone not in seen and len(steps) < MAX_ACTIONS:
                seen.add(alone)
                steps.append(alone)
            continue
        key = (f.code, f.path)
        if key in groups:
            groups[key].append(f)
        elif len(steps) < MAX_ACTIONS:
            groups[key] = [f]
            steps.append(key)
    return [
        s if isinstance(s, str) else _grouped(s[0], s[1], groups[s]) for s in steps[:MAX_ACTIONS]
    ]


def blind_spots(
    findings: Sequence[Finding],
    *,
    citations: int,
    judge: str | None,
    pdf_citations: int = 0,
    dry_run: bool = False,
    inconclusive: Iterable[str] = (),
    not_run: Sequence[tuple[str, str]] = (),
    caveats: Sequence[tuple[str, str]] = (),
    exempt: Sequence[str] = (),
    unassessed: str | None = None,
    assessed_in_part: Sequence[str] = (),
) -> list[str]:
    """What this verification could not rule out, one line each (none: it checked all it
    knows to check). ``citations``: how many it read; ``judge``: the semantic judge that
    ran (None: the offline one); ``inconclusive``: the claims it gave no verdict on;
    ``not_run``: the checks skipped, each with why; ``caveats``: what checks that ran
    could not rule out, each with the check; ``pdf_citations``: quotes found on a
    PDF's page; ``unassessed``: why the change's direction, ``[rubric]`` and
    ``[presentation]`` voice and register were not assessed; ``assessed_in_part``: the
    pages whose change the judge saw only in part for those."""
    out: list[str] = []
    codes: dict[str, list[Finding]] = {}
    for f in findings:
        codes.setdefault(f.code, []).append(f)
    if "tree.limit" in codes:
        out.append("the tree is past [limits]: it was refused before anything was read")
    if citations:
        if judge is None:
            out.append(
                "semantic support not checked: the offline judge (heuristic) ran, which checks "
                "each quote against its source, not whether it supports its claim; the "
                'anthropic judge ([judge] provider = "anthropic") does'
            )
        elif dry_run:
            out.append(f"semantic support not checked: the {safe(judge)} judge ran dry")
    if pdf_citations:
        out.append(
            f"{plural(pdf_citations, 'quote')} checked on a PDF's page as pypdf extracts its "
            "text: the offsets count that text, which another PDF reader may lay out "
            "otherwise; the printed page was not compared"
        )
    # the judge's inconclusive votes, or its findings (one per claim) when it names none
    unsure = max(len(set(inconclusive)), len(codes.get("citation.inconclusive", [])))
    if unsure:
        who = f"the {safe(judge)} judge" if judge else "the judge"
        out.append(f"{plural(unsure, 'claim')} inconclusive: {who} gave no verdict")
    if not_run:
        names = ", ".join(safe(name, 40) for name, _ in not_run[:MAX_LINES])
        why = safe(not_run[0][1], 200)
        out.append(f"{plural(len(not_run), 'check')} not run ({names}): {why}")
    elif "verifier.budget" in codes:
        out.append("the verification ran out of time: what was not yet checked is not checked")
    out += [f"{safe(name, 40)}: {safe(why, 400)}" for name, why in caveats[:MAX_LINES]]
    limited = [f for f in codes.get("citation.source_unreadable", []) if _LIMITED.search(f.message)]
    if limited:
        out.append(f"the sources of {plural(len(limited), 'citation')} not read: past [limits]")
    unread = {f.path for f in codes.get("page.unreadable", [])}
    if unread:
        them = "it" if len(unread) == 1 else "them"
        out.append(f"{plural(len(unread), 'page')} not read: nothing on {them} was checked")
    pages = {f.path for f in codes.get("page.limit", [])}
    if pages:
        out.append(f"citations of {plural(len(pages), 'page')} not checked: past [limits]")
    if exempt:
        first = safe(exempt[0], 160)
        more = f" (+{len(exempt) - 1} more)" if len(exempt) > 1 else ""
        out.append(f"{plural(len(exempt), 'page')} spared the page checks: {first}{more}")
    if unassessed is not None:
        out.append(
            f"the change's direction, [rubric] and [presentation] voice: {safe(unassessed, 240)}"
        )
    if assessed_in_part:
        first = safe(assessed_in_part[0], 160)
        more = f" (+{len(assessed_in_part) - 1} more)" if len(assessed_in_part) > 1 else ""
        out.append(
            f"the change's direction, [rubric] and [presentation] voice were assessed on a "
            f"part of the change of {plural(len(assessed_in_part), 'page')} (its diff is past "
            f"the judge's limits): {first}{more}"
        )
    return out
