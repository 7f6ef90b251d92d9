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
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

MARK = "\x00"
# a stop before more text: ., ! or ? (and closing quotes or brackets), whitespace, more; a
# block without one is a sentence, and is not segmented (syntok is not asked)
_STOP = re.compile(r"[.!?][\"'”’)\]]*\s+\S")
# what is taken out before segmenting: references and gap markers (a gap's reason holds
# no bracket, as markdown._GAP: nothing is rescanned)
_HIDDEN = re.compile(r"\x00\d+\x00|\[gap:[^\[\]\x00\n]*\]")


@lru_cache(maxsize=1)
def _segmenter() -> Any:
    from syntok import segmenter  # type: ignore[import-untyped]  # lazily: off the CLI start

    return segmenter


def spans(text: str) -> list[tuple[int, int]]:
    """The sentences of ``text`` as (start, end) offsets, blank ones left out. Each
    sentence keeps the references and the gap marker right after its stop."""
    clean, starts, origins = _hide(text)
    if not _STOP.search(clean):  # one sentence: most list items, cells and short paragraphs
        return [(0, len(text))] if text.strip() else []
    cuts = [_origin(starts, origins, at) for at in _starts(clean)]
    out: list[tuple[int, int]] = []
    begin = 0
    for cut in cuts[1:]:
        end = _stop_end(text, begin, cut)
        if end > begin:
            out.append((begin, end))
            begin = cut
    out.append((begin, len(text)))
    return [(a, b) for a, b in out if text[a:b].strip()]


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


def _starts(clean: str) -> Iterator[int]:
    """Where each sentence syntok finds in ``clean`` starts (its first token's offset)."""
    for paragraph in _segmenter().analyze(clean):
        for sentence in paragraph:
            if sentence:
                yield sentence[0].offset


def _stop_end(text: str, begin: int, cut: int) -> int:
    """The end of the sentence that runs from ``begin`` up to the next one's start ``cut``:
    its last non-space character, plus the references and gap marker after it."""
    end = cut  # references and gap markers were spaces to syntok: they end up inside
    while end > begin and text[end - 1].isspace():
        end -= 1
    return end
