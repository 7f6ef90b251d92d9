"""A page's cited claims, as the ledger keeps them, and what a change does to each.

A cited claim is a footnote reference ``[^label]`` whose definition parses as a citation:
every sentence referencing it is one, with the id the judge gives it, ``<page>#^<label>``
for the first and ``<page>#^<label>@N`` for the Nth (a sentence reusing a footnote is a
claim a later run may not overwrite silently either). ``page_claims`` reads them from a parsed page; ``compare`` judges each claim of
a page on main against the page a run leaves (docs/ledger.md):

- pass: the claim is still there with its citation (moved, relabelled or put in a
  ``::: disputed`` block counts as kept), or an archive run deleted its page;
- warn: reworded around the same quote (the same numbers, negations and content words,
  in another order or with other function words), or the same sentence now quoting
  another passage;
- fail: removed or altered (a different statement, even with the same footnote).
"""

from __future__ import annotations

import datetime
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

# an update in a disputed block: "**Updated 2026-11-21 per raw/records.pdf:** The bridge …"
# (its sentence as read: "Updated 2026-11-21 per raw/records.pdf: The bridge …"): what the
# consistency check sets an old claim aside for, and what keeps a stale claim as history
UPDATE = re.compile(
    r"\s*\**\s*Updated\s+(\d{4}-\d{2}-\d{2})\s+per\s+[^:\n]{1,300}?:\s*\**\s*", re.I
)


def is_update(sentence: str) -> bool:
    """The sentence begins with an update's dated marker, its date a real day."""
    m = UPDATE.match(sentence)
    if m is None:
        return False
    try:
        datetime.date.fromisoformat(m.group(1))
    except ValueError:
        return False  # "2026-13-45": no date
    return True


class PageClaim(NamedTuple):
    page: str
    label: str
    line: int  # the line of the reference [^label]
    sentence: str  # whitespace collapsed; a table cell's: its row ("Animal: Dogs; Hours: 16")
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
                " ".join((ref.row or ref.claim).split()),  # a cited cell: its whole row
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


REWORDED_TRIED = 32  # claims citing the same quote a lost claim is compared with


def compare(
    before: Iterable[PageClaim], after: list[PageClaim], *, archived: bool
) -> list[Compared]:
    """Each claim of ``before`` (a page on main) judged against ``after`` (the same page
    as the run leaves it; empty when the run deletes it). A claim of ``after`` stands for
    one claim of ``before`` at most: of two identical sentences on main, a run that keeps
    one and rewrites the other has altered a claim."""
    befores = list(before)
    pools = _Pools(after)
    results: list[Compared | None] = [None] * len(befores)
    if not after and archived:
        return [Compared(b, "pass", "its page was archived", None) for b in befores]
    # first the claims kept word for word, each once: in their place (the same label and
    # use), then under their label, then under any
    for place in (lambda b: (b.label, b.use), lambda b: (b.label,), lambda b: ()):
        for n, b in enumerate(befores):
            if results[n] is None:
                a = pools.take((b.sentence, b.source, b.quote, *place(b)))
                results[n] = Compared(b, "pass", _kept(b, a), a) if a is not None else None
    for n, b in enumerate(befores):  # then the rest: re-anchored, reworded, or lost
        if results[n] is not None:
            continue
        same = pools.take((b.sentence, b.source))
        if same is not None:
            reason = "re-anchored: the same claim now quotes another passage"
            results[n] = Compared(b, "warn", reason, same)
            continue
        a = pools.take((b.source, b.quote), reworded_from=b.sentence)
        if a is not None:
            results[n] = Compared(b, "warn", f"reworded around the same quote: {a.sentence!r}", a)
        elif not after:
            results[n] = Compared(b, "fail", "its page was deleted", None)
        else:
            results[n] = Compared(b, "fail", "removed or altered", None)
    return [r for r in results if r is not None]


class _Pools:
    """The claims of a changed page by key (its sentence, source, quote, label, use), each
    given out once; a taken claim is skipped once per key (linear in all)."""

    def __init__(self, claims: list[PageClaim]) -> None:
        self.claims = claims
        self.taken: set[int] = set()
        self.ids: dict[tuple[object, ...], list[int]] = {}
        self.next: dict[tuple[object, ...], int] = {}
        self.said: dict[str, _Said] = {}  # each sentence's words, read once
        for i, a in enumerate(claims):
            exact = (a.sentence, a.source, a.quote)
            keys = [(*exact, a.label, a.use), (*exact, a.label), exact]
            for key in [*keys, (a.sentence, a.source), (a.source, a.quote)]:
                self.ids.setdefault(key, []).append(i)

    def take(self, key: tuple[object, ...], reworded_from: str | None = None) -> PageClaim | None:
        """The first claim of ``key`` not taken yet (one saying ``reworded_from`` in other
        words, when given), now taken."""
        ids = self.ids.get(key, [])
        at = self.next.get(key, 0)
        while at < len(ids) and ids[at] in self.taken:
            at += 1
        self.next[key] = at
        old = _said(reworded_from) if reworded_from is not None else None
        for i in ids[at : at + REWORDED_TRIED]:  # bounded: a lost claim's wordings tried
            if i in self.taken:
                continue
            if old is None or _reworded(old, self._said(self.claims[i].sentence)):
                self.taken.add(i)
                return self.claims[i]
        return None

    def _said(self, sentence: str) -> _Said:
        found = self.said.get(sentence)
        if found is None:
            found = self.said[sentence] = _said(sentence)
        return found


NEGATIONS = frozenset({"not", "no", "never", "none", "nor", "without", "cannot", "neither"})


def reworded(old: str, new: str) -> bool:
    """``new`` says what ``old`` said in other words: the same numbers and negations, and
    the same content words (another order, other articles and prepositions, another
    inflection). Anything else is an altered claim."""
    return _reworded(_said(old), _said(new))


class _Said(NamedTuple):
    words: set[str]
    numbers: frozenset[str]


def _said(text: str) -> _Said:
    words = _words(text)
    return _Said(words, frozenset(w for w in words if _numeric(w)))


# the words a rewording may add, drop or swap: articles, "each"/"per", prepositions of
# place and belonging, pronouns, the forms of be, have and do. Any other word is the
# claim's content: a season, a subject, a hedge ("rarely"), a founder swapped or added
# is an altered claim, however many words stay (review 36b: "runs in winter" → "in summer"
# kept 60% of the words)
FUNCTION_WORDS = frozenset(
    {
        *("a", "an", "the", "each", "per", "of", "in", "on", "at", "by", "for", "to"),
        *("from", "with", "as", "and", "that", "which", "who", "whom", "whose", "this"),
        *("these", "those", "it", "its", "they", "them", "their", "he", "she", "his"),
        *("her", "him", "we", "our", "us", "you", "your", "there", "is", "are", "was"),
        *("were", "be", "been", "being", "has", "have", "had", "do", "does", "did"),
    }
)


def _content(words: set[str]) -> set[str]:
    """The content words, lightly stemmed ("cats" and "cat", "opened" and "open" alike)."""
    out = set()
    for w in words - FUNCTION_WORDS:
        w = w.removesuffix("'s")
        for suffix in ("ing", "ed", "es", "s"):
            if len(w) > len(suffix) + 2 and w.endswith(suffix):
                w = w[: -len(suffix)]
                break
        out.add(w)
    return out


def _reworded(old: _Said, new: _Said) -> bool:
    a, b = old.words, new.words
    if old.numbers != new.numbers:
        return False
    if a & NEGATIONS != b & NEGATIONS or any(w.endswith("n't") for w in a ^ b):
        return False
    return bool(a | b) and _content(a) == _content(b)


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
