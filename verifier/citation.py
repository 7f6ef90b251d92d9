"""The citation grammar: ``SOURCE[, p.PAGE] — "QUOTE" {@OFFSET sha256:HEX}``.

The quote is a JSON string; the anchor is a code-point offset into the
source text (for PDFs: into pypdf's text of page PAGE) and the SHA-256 of
the quote's UTF-8 bytes.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from bisect import bisect_right
from collections.abc import Callable
from functools import partial
from typing import NamedTuple

SEPARATORS = ("—", "--")
HEX_DIGITS = frozenset("0123456789abcdef")
ASCII_DIGITS = frozenset("0123456789")
MAX_PAGE_DIGITS = 6  # p.999999
MAX_OFFSET_DIGITS = 10  # beyond any source's length (sources are at most 50 MB)
_DECODER = json.JSONDecoder()


class Citation(NamedTuple):
    source: str
    page: int | None
    quote: str
    offset: int | None
    sha256: str | None

    @property
    def anchored(self) -> bool:
        return self.offset is not None


class CitationSyntaxError(ValueError):
    pass


def quote_hash(quote: str) -> str:
    return hashlib.sha256(quote.encode("utf-8")).hexdigest()


def parse_definition(tail: str) -> Citation:
    """Parse the text after ``[^ID]:``; raise CitationSyntaxError saying what is wrong."""
    text = tail.strip()
    quote_at = text.find('"')
    if quote_at < 0:
        raise CitationSyntaxError('no quote: expected SOURCE — "QUOTE"')
    head = text[:quote_at].rstrip()
    for sep in SEPARATORS:
        if head.endswith(sep):
            head = head[: -len(sep)].rstrip()
            break
    else:
        raise CitationSyntaxError(_no_separator(text, quote_at, head))
    source, page = _source_and_page(head)
    try:
        quote, end = _DECODER.raw_decode(text, quote_at)
    except json.JSONDecodeError as e:
        raise CitationSyntaxError(f"the quote is not a valid JSON string: {e.msg}") from e
    if not isinstance(quote, str) or not quote:
        raise CitationSyntaxError("the quote is empty")
    if not quote.isascii():  # O(1): only non-ASCII text can hold a lone surrogate
        _check_encodable(quote)
    rest = text[end:].strip()
    offset, digest = _anchor(rest) if rest else (None, None)
    return Citation(source=source, page=page, quote=quote, offset=offset, sha256=digest)


def _no_separator(text: str, quote_at: int, head: str) -> str:
    """What stands where ``SOURCE — "QUOTE"`` wants its dash right before the quote."""
    expected = "expected ' — ' or ' -- ' between the source and the quote"
    dash = min((at for sep in SEPARATORS if (at := text.find(f" {sep} ")) >= 0), default=-1)
    if 0 <= dash < quote_at:  # SOURCE — NOTE "QUOTE"
        between = text[dash:quote_at].strip().lstrip("—-").strip()
        return f"text between the dash and the quote: {_clip(between)!r} ({_only_page})"
    if dash > quote_at:  # SOURCE NOTE "…" NOTE — "QUOTE": the first quote mark is the note's
        between = text[:dash].strip()
        return f"more than a source before the dash: {_clip(between)!r} ({_only_page})"
    if head.endswith(("-", "–")):
        return f"{expected}, not {'a hyphen' if head.endswith('-') else 'an en dash'}"
    return expected


_only_page = (
    "a location note? only `, p.N` after the source is read: "
    'SOURCE, p.N — "QUOTE", the quote verbatim from the source'
)


def _source_and_page(head: str) -> tuple[str, int | None]:
    source, comma, page_text = head.rpartition(",")
    if not comma or not page_text.strip().startswith("p."):
        if not head:
            raise CitationSyntaxError("no source before the quote")
        return head, None
    number = _number(page_text.strip()[2:].strip(), MAX_PAGE_DIGITS)
    if number is None or number < 1:
        raise CitationSyntaxError(
            f"page {_clip(page_text.strip())!r}: expected p.N with N ≥ 1 "
            f"(ASCII digits, at most {MAX_PAGE_DIGITS})"
        )
    if not source.strip():
        raise CitationSyntaxError("no source before the page")
    return source.strip(), number


def _anchor(rest: str) -> tuple[int, str]:
    if not (rest.startswith("{@") and rest.endswith("}")):
        raise CitationSyntaxError(f"unexpected text after the quote: {rest[:40]!r}")
    body = rest[2:-1].split()
    offset = _number(body[0], MAX_OFFSET_DIGITS) if body else None
    if len(body) != 2 or offset is None or not body[1].startswith("sha256:"):
        raise CitationSyntaxError(
            "anchor must read {@OFFSET sha256:HEX} "
            f"(OFFSET: ASCII digits, at most {MAX_OFFSET_DIGITS})"
        )
    digest = body[1].removeprefix("sha256:")
    if len(digest) != 64 or not HEX_DIGITS.issuperset(digest):
        raise CitationSyntaxError("sha256 must be 64 lowercase hex digits")
    return offset, digest


def _number(text: str, max_digits: int) -> int | None:
    """``text`` as a number if it is 1 to ``max_digits`` ASCII digits.

    Not str.isdigit(): it accepts '²' (which int() refuses) and '４２' (which
    int() reads as 42), and int() refuses more than 4,300 digits."""
    if not 0 < len(text) <= max_digits or not ASCII_DIGITS.issuperset(text):
        return None
    return int(text)


def _check_encodable(quote: str) -> None:
    """A JSON \\uXXXX escape can decode to a lone surrogate, which has no UTF-8
    bytes and so no SHA-256."""
    try:
        quote.encode("utf-8")
    except UnicodeEncodeError as e:
        raise CitationSyntaxError(
            f"the quote holds a lone surrogate (\\u{ord(quote[e.start]):04x} at character "
            f"{e.start}); write the character itself, or a valid \\uXXXX\\uXXXX pair"
        ) from e


def _clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def format_tail(source: str, page: int | None, quote: str, offset: int | None) -> str:
    """The definition text after ``[^ID]: ``; with an anchor when ``offset`` is given."""
    where = f"{source}, p.{page}" if page else source
    text = f"{where} — {json.dumps(quote, ensure_ascii=False)}"
    if offset is not None:
        text += f" {{@{offset} sha256:{quote_hash(quote)}}}"
    return text


# ---------------------------------------------------------------- near misses
# The check is exact. When a quote does not occur, these say where it would match
# after a fold (Unicode normalization, line ends, case, whitespace), so the writer
# knows what differs. Each fold of a source is computed once, and only for a miss.


class NearMiss(NamedTuple):
    fold: str  # a key of FOLDS
    offset: int  # where the source's own text starts, in code points
    line: int


def _collapse(text: str) -> str:
    """Runs of whitespace as one space (kept at either end: chunks join up)."""
    inner = " ".join(text.split())
    if not inner:
        return " " if text else ""
    head = " " if text[0].isspace() else ""
    tail = " " if text[-1].isspace() else ""
    return head + inner + tail


FOLDS: dict[str, Callable[[str], str]] = {
    "Unicode normalization (NFC)": partial(unicodedata.normalize, "NFC"),
    "Unicode normalization (NFKC)": partial(unicodedata.normalize, "NFKC"),
    "folding CRLF line ends to LF": lambda s: s.replace("\r\n", "\n").replace("\r", "\n"),
    "ignoring case": str.casefold,
    "collapsing whitespace": _collapse,
}


class _Folded(NamedTuple):
    text: str
    starts: list[int]  # where each chunk starts in the source
    folded_starts: list[int]  # and in the folded text


class NearMisses:
    """Where quotes that do not occur in ``text`` would match after each fold."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._chunks: list[int] | None = None
        self._folded: dict[str, _Folded] = {}

    def find(self, quote: str) -> NearMiss | None:
        for name, fold in FOLDS.items():
            folded = self._fold(name)
            at = folded.text.find(fold(quote))
            if at >= 0:
                offset = self._source_offset(name, folded, at)
                return NearMiss(name, offset, self.text.count("\n", 0, offset) + 1)
        return None

    def _chunk_starts(self) -> list[int]:
        """Chunks split at a newline, before it or after it, wherever that does not
        split a run of whitespace: every fold of the text is then the folds of its
        chunks joined, so offsets map back chunk by chunk."""
        if self._chunks is None:
            text, starts = self.text, [0]
            at = text.find("\n")
            while at >= 0:
                if at > 0 and not text[at - 1].isspace():
                    starts.append(at)
                elif at + 1 < len(text) and not text[at + 1].isspace():
                    starts.append(at + 1)
                at = text.find("\n", at + 1)
            self._chunks = starts
        return self._chunks

    def _fold(self, name: str) -> _Folded:
        if name not in self._folded:
            fold, starts = FOLDS[name], self._chunk_starts()
            ends = [*starts[1:], len(self.text)]
            parts = [fold(self.text[a:b]) for a, b in zip(starts, ends, strict=True)]
            folded_starts, total = [], 0
            for part in parts:
                folded_starts.append(total)
                total += len(part)
            self._folded[name] = _Folded("".join(parts), starts, folded_starts)
        return self._folded[name]

    def _source_offset(self, name: str, folded: _Folded, at: int) -> int:
        """The source offset of folded offset ``at``: the longest prefix of its chunk
        that folds to no more than the chunk's text before ``at`` (bisected), so
        that it skips a combining accent or the rest of a run of spaces."""
        i = bisect_right(folded.folded_starts, at) - 1
        start = folded.starts[i]
        end = folded.starts[i + 1] if i + 1 < len(folded.starts) else len(self.text)
        chunk, want, fold = self.text[start:end], at - folded.folded_starts[i], FOLDS[name]
        lo, hi = 0, len(chunk)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if len(fold(chunk[:mid])) <= want:
                lo = mid
            else:
                hi = mid - 1
        return start + lo
