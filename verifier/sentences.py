"""Cut a block's plain text into sentences with syntok, a segmenter built for this.

A claim is the sentence holding a reference: what the ledger stores, the judge reads and
the convergence check compares. A regular expression over ``.``, ``!`` and ``?`` cut
"built c. 1894 at St. Andrews Point." into ``Andrews Point.``; syntok knows
abbreviations, initials, decimals, enumerations ("No. 5") and quotes ending in ``?`` or
``!`` (docs/checks.md says how it was chosen over pysbd: more accurate on the wiki pages
and linear in the text, where pysbd's cost grows with the square of a run of ``a. a. …``).

The text comes from markdown.py: reference marks (``\\x00N\\x00``) and gap markers
(``[gap: …]``) are taken out before segmenting and put back with the sentence whose stop
they follow, as a reader takes "…Point.[^2]" and "…Point. [gap: …]". syntok is imported
on first use only: the CLI starts without it.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache
from typing import Any

MARK = "\x00"
SEGMENTED_CHARS = 100_000  # of a page's text segmented by syntok; past it, spans(exact=False)
# what is taken out before segmenting: references and gap markers (a gap's reason holds
# no bracket, as markdown._GAP: nothing is rescanned)
_HIDDEN = re.compile(r"\x00\d+\x00|\[gap:[^\[\]\x00\n]*\]")
# a stop before more text: ., ! or ? (and closing quotes or brackets), whitespace, more
_STOP = re.compile(r"[.!?][\"'”’)\]]*\s+(?=\S)")
# a stop syntok would split at too: a word of two letters or more (not part of "U.S." or
# "isn't"), one to three of . ! ?, whitespace, a capitalised word. ``_clear`` checks the
# rest (not an abbreviation, a lower-case letter in the word) and ``_cuts`` that no
# bracket or quote is open (syntok does not split inside them)
_CLEAR = re.compile(r"(?<![\w.'’\-])([^\W\d_]{2,})[.!?]{1,3}\s+(?=[^\W\d_]{2})")
# a stop and the references right after it, or references and a stop right after them
# ("…in full[^1]. the council…"), whitespace, more text: a reader's sentence ends there
# whatever case the next word is in (syntok does not cut before lower case)
_REF_STOP = re.compile(
    r"(?:[.!?][\"'”’)\]]*(?:\x00\d+\x00)+|(?:\x00\d+\x00)+[\"'”’)\]]*[.!?])"
    r"(?:\s*\[gap:[^\[\]\x00\n]*\])?\s+(?=\S)(?!\[gap:)"
)
_BRACKETS = re.compile(r"[(\[{\"“”«»]")


@lru_cache(maxsize=1)
def _syntok() -> tuple[Any, frozenset[str]]:
    """syntok's segmenter and the words it reads as abbreviations before a stop."""
    from syntok import segmenter  # type: ignore[import-untyped]  # lazily: off the CLI start
    from syntok._segmentation_states import State  # type: ignore[import-untyped]

    return segmenter, frozenset(State.abbreviations | State.months)


def spans(text: str, *, exact: bool = True) -> list[tuple[int, int]]:
    """The sentences of ``text`` as (start, end) offsets, blank ones left out. Each
    sentence keeps the references and the gap marker right after its stop. Not
    ``exact``: cut at every stop before a word not in lower case, without syntok (for
    text past a page's SEGMENTED_CHARS: syntok's cost per character is linear but up to
    20 µs on a hostile run of ``(a. (a. …``)."""
    clean, starts, origins = _hide(text)
    out: list[tuple[int, int]] = []
    begin = 0
    cuts = [_origin(starts, origins, at) for at in (_cuts(clean) if exact else _stops(clean))]
    if MARK in text:  # "…plan.[^1] the council declared war.": the reference ends it
        cuts = sorted(set(cuts).union(m.end() for m in _REF_STOP.finditer(text)))
    for cut in cuts:
        end = _stop_end(text, begin, cut)
        if end > begin:
            out.append((begin, end))
            begin = cut
    out.append((begin, len(text)))
    return [(a, b) for a, b in out if text[a:b].strip()]


def _cuts(clean: str) -> list[int]:
    """Where the sentences of ``clean`` after the first start: syntok's decision. A block
    without a stop before a word that is not lower case is one sentence (most list items,
    cells and short paragraphs), and syntok is not asked; in a block without brackets or
    quotes, the clear stops (``_CLEAR``) cut it first, and syntok reads each piece that
    holds another stop (benchmarks/statements.py --compare: the same cuts as syntok's)."""
    if not _candidate(clean, 0, len(clean)):
        return []
    if _BRACKETS.search(clean):
        return _syntok_cuts(clean, 0, len(clean))
    out: list[int] = []
    begin = 0
    for m in _CLEAR.finditer(clean):
        if not _clear(m, clean):
            continue
        if _candidate(clean, begin, m.end(1)):
            out += _syntok_cuts(clean, begin, m.end())
        out.append(m.end())
        begin = m.end()
    if _candidate(clean, begin, len(clean)):
        out += _syntok_cuts(clean, begin, len(clean))
    return out


def _stops(clean: str) -> list[int]:
    return [m.end() for m in _STOP.finditer(clean) if not clean[m.end()].islower()]


def _clear(m: re.Match[str], clean: str) -> bool:
    word, after = m.group(1), m.end()
    return (
        any(c.islower() for c in word)
        and word not in _syntok()[1]
        and clean[after].isupper()
        and clean[after + 1].islower()
    )


def _candidate(clean: str, begin: int, end: int) -> bool:
    """Whether a stop syntok may cut at starts in ``clean[begin:end]``: one before more
    text that does not start in lower case (syntok never cuts there)."""
    for m in _STOP.finditer(clean, begin):  # a piece ends at a stop: the scan stays in it
        if m.start() >= end:
            return False
        if not clean[m.end()].islower():
            return True
    return False


def _syntok_cuts(clean: str, begin: int, end: int) -> list[int]:
    """Where syntok starts the sentences of ``clean[begin:end]`` after the first, at a
    stop."""
    found = [
        begin + sentence[0].offset
        for paragraph in _syntok()[0].analyze(clean[begin:end])
        for sentence in paragraph
        if sentence
    ]
    return [at for at in found[1:] if _after_stop(clean, at)]


_CLOSERS = frozenset("\"'”’)]")


def _after_stop(clean: str, at: int) -> bool:
    """Whether ``at`` follows a stop and whitespace: syntok also cuts at a semicolon
    before a capital ("…; API may change") and inside code ("cache.Snapshot()"), which
    end no claim. (Each cut scans back over its own whitespace only: linear.)"""
    j = at
    while j > 0 and clean[j - 1].isspace():
        j -= 1
    if j == at:
        return False
    while j > 0 and clean[j - 1] in _CLOSERS:
        j -= 1
    return j > 0 and clean[j - 1] in ".!?"


def _hide(text: str) -> tuple[str, list[int], list[int]]:
    """``text`` without references and gap markers (each replaced by a space), and the
    map back: pieces of the clean text starting at ``starts[i]`` come from ``origins[i]``."""
    pieces: list[str] = []
    starts: list[int] = [0]
    origins: list[int] = [0]
    size = last = 0
    for m in _HIDDEN.finditer(text):
        pieces.append(text[last : m.start()])
        size += m.start() - last
        pieces.append(" ")
        size += 1
        last = m.end()
        starts.append(size)
        origins.append(last)
    pieces.append(text[last:])
    return "".join(pieces), starts, origins


def _origin(starts: list[int], origins: list[int], at: int) -> int:
    i = bisect_right(starts, at) - 1
    return origins[i] + (at - starts[i])


def _stop_end(text: str, begin: int, cut: int) -> int:
    """The end of the sentence that runs from ``begin`` up to the next one's start ``cut``:
    its last non-space character, plus the references and gap marker after it."""
    end = cut  # references and gap markers were spaces to syntok: they end up inside
    while end > begin and text[end - 1].isspace():
        end -= 1
    return end
