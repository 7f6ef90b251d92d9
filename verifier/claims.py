"""A page's cited claims, as the ledger keeps them, and what a change does to each.

A cited claim is a footnote reference ``[^label]`` whose definition parses as a citation:
every sentence referencing it is one, with the id the judge gives it, ``<page>#^<label>``
for the first and ``<page>#^<label>@N`` for the Nth (a sentence reusing a footnote is a
claim a later run may not overwrite silently either). ``page_claims`` reads them from a parsed page; ``compare`` judges each claim of
a page on main against the page a run leaves (docs/ledger.md):

- pass: the claim is still there with its citation (moved, relabelled or put in a
  ``::: disputed`` block counts as kept), or an archive run deleted its page;
- warn: reworded around the same quote (the same numbers and negations, most words in
  common), or the same sentence now quoting another passage;
- fail: removed or altered (a different statement, even with the same footnote).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Literal, NamedTuple

from .citation import Citation
from .judges.offline import NUMBER_WORDS
from .markdown import Definition, ParsedPage

Result = Literal["pass", "warn", "fail"]

# a sentence's "[conflict: raw/a.txt says 1899]": the page states that its sources
# disagree (checks/consistency.py); its words are the page's note, not the claim's
# (it names a source under raw/ first: "[conflict: not]" is no note, and stays the claim's)
CONFLICT_MARKER = re.compile(r"\[conflict:\s*(raw/[^\[\]\x00]*)\]", re.I)


class PageClaim(NamedTuple):
    page: str
    label: str
    line: int  # the line of the reference [^label]
    sentence: str  # whitespace collapsed
    source: str  # as the footnote names it
    pdf_page: int | None
    quote: str
    offset: int | None
    sha256: str | None
    disputed: bool
    use: int = 1  # the Nth sentence referencing this label

    @property
    def id(self) -> str:
        return f"{self.page}#^{self.label}" + (f"@{self.use}" if self.use > 1 else "")


class Compared(NamedTuple):
    claim: PageClaim  # the claim on main
    result: Result
    reason: str
    now: PageClaim | None  # what stands for it in the change, if anything


def page_claims(
    page: ParsedPage | None, source_of: Callable[[Citation], str] | None = None
) -> list[PageClaim]:
    """The page's cited claims, one per reference of a label, in the order of the
    references; ``source_of``: the path a citation's source resolves to (else its source
    as written), so that a source written another way (``[[foo.txt]]``, ``raw/foo.txt``)
    is the same."""
    if page is None:
        return []
    defs: dict[str, Definition] = {}
    for d in page.definitions:
        defs.setdefault(d.label, d)
    out: list[PageClaim] = []
    uses: dict[str, int] = {}
    for ref in page.refs:
        found = defs.get(ref.label)
        if found is None or found.citation is None:
            continue
        if not found.citation.quoted:  # a source reference: no quote to hold the claim to
            continue
        uses[ref.label] = uses.get(ref.label, 0) + 1
        c = found.citation
        out.append(
            PageClaim(
                page.path,
                ref.label,
                ref.at_line,
                " ".join(ref.claim.split()),
                source_of(c) if source_of is not None else c.source,
                c.page,
                c.quote,
                c.offset,
                c.sha256,
                ref.disputed,
                uses[ref.label],
            )
        )
    return out


def compare(
    before: Iterable[PageClaim], after: list[PageClaim], *, archived: bool
) -> list[Compared]:
    """Each claim of ``before`` (a page on main) judged against ``after`` (the same page
    as the run leaves it; empty when the run deletes it)."""
    by_sentence: dict[tuple[str, str], list[PageClaim]] = {}
    by_quote: dict[tuple[str, str], list[PageClaim]] = {}
    for a in after:
        by_sentence.setdefault((a.sentence, a.source), []).append(a)
        by_quote.setdefault((a.source, a.quote), []).append(a)
    out: list[Compared] = []
    for b in before:
        if not after and archived:
            out.append(Compared(b, "pass", "its page was archived", None))
            continue
        same = by_sentence.get((b.sentence, b.source), [])
        kept = [a for a in same if a.quote == b.quote]
        if kept:
            a = next((k for k in kept if k.label == b.label), kept[0])
            out.append(Compared(b, "pass", _kept(b, a), a))
        elif same:
            out.append(
                Compared(
                    b, "warn", "re-anchored: the same claim now quotes another passage", same[0]
                )
            )
        elif any(reworded(b.sentence, a.sentence) for a in by_quote.get((b.source, b.quote), [])):
            a = next(a for a in by_quote[(b.source, b.quote)] if reworded(b.sentence, a.sentence))
            out.append(Compared(b, "warn", f"reworded around the same quote: {a.sentence!r}", a))
        elif not after:
            out.append(Compared(b, "fail", "its page was deleted", None))
        else:
            out.append(Compared(b, "fail", "removed or altered", None))
    return out


NEGATIONS = frozenset({"not", "no", "never", "none", "nor", "without", "cannot", "neither"})
SIMILAR = 0.6  # the share of words two wordings must have in common


def reworded(old: str, new: str) -> bool:
    """``new`` says what ``old`` said in other words: the same numbers and negations, and
    most words in common (Jaccard >= SIMILAR). Anything else is an altered claim."""
    a, b = _words(old), _words(new)
    if {w for w in a if _numeric(w)} != {w for w in b if _numeric(w)}:
        return False
    if a & NEGATIONS != b & NEGATIONS or any(w.endswith("n't") for w in a ^ b):
        return False
    return bool(a | b) and len(a & b) / len(a | b) >= SIMILAR


def _words(text: str) -> set[str]:
    return {w.strip(".,;:!?()[]\"'").lower() for w in text.split()} - {""}


def _numeric(word: str) -> bool:
    return word in NUMBER_WORDS or any(ch.isdigit() for ch in word)


def _kept(b: PageClaim, a: PageClaim) -> str:
    if a.disputed and not b.disputed:
        return "kept, in a disputed block"
    if a.label != b.label:
        return f"kept, as [^{a.label}]"
    if (a.offset, a.sha256, a.pdf_page) != (b.offset, b.sha256, b.pdf_page):
        return "kept; its anchor was updated"
    return "unchanged"
