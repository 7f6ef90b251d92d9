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
    rest = text[end:].strip()
    offset, digest = _anchor(rest) if rest else (None, None)
    return Citation(source=source, page=page, quote=quote, offset=offset, sha256=digest)


def _source_and_page(head: str) -> tuple[str, int | None]:
    source, comma, page_text = head.rpartition(",")
    if not comma or not page_text.strip().startswith("p."):
        if not head:
            raise CitationSyntaxError("no source before the quote")
        return head, None
    number = page_text.strip()[2:].strip()
    if not number.isdigit() or int(number) < 1:
        raise CitationSyntaxError(f"page {page_text.strip()!r}: expected p.N with N ≥ 1")
    if not source.strip():
        raise CitationSyntaxError("no source before the page")
    return source.strip(), int(number)


def _anchor(rest: str) -> tuple[int, str]:
    if not (rest.startswith("{@") and rest.endswith("}")):
        raise CitationSyntaxError(f"unexpected text after the quote: {rest[:40]!r}")
    body = rest[2:-1].split()
    if len(body) != 2 or not body[0].isdigit() or not body[1].startswith("sha256:"):
        raise CitationSyntaxError("anchor must read {@OFFSET sha256:HEX}")
    digest = body[1].removeprefix("sha256:")
    if len(digest) != 64 or not HEX_DIGITS.issuperset(digest):
        raise CitationSyntaxError("sha256 must be 64 lowercase hex digits")
    return int(body[0]), digest


def format_tail(source: str, page: int | None, quote: str, offset: int | None) -> str:
    """The definition text after ``[^ID]: ``; with an anchor when ``offset`` is given."""
    where = f"{source}, p.{page}" if page else source
    text = f"{where} — {json.dumps(quote, ensure_ascii=False)}"
    if offset is not None:
        text += f" {{@{offset} sha256:{quote_hash(quote)}}}"
    return text
