"""The citation grammar: ``SOURCE[, p.PAGE] — "QUOTE" {@OFFSET sha256:HEX}``.

The quote is a JSON string; the anchor is a code-point offset into the
source text (for PDFs: into pypdf's text of page PAGE) and the SHA-256 of
the quote's UTF-8 bytes.
"""

from __future__ import annotations

import hashlib
import json
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
        raise CitationSyntaxError("expected ' — ' or ' -- ' between the source and the quote")
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
