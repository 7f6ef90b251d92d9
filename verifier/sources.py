"""Reading raw sources from git blobs, and finding quotes in them.

A source is UTF-8 text or a PDF (its pages' text, extracted by pypdf). One blob is
read once however many of its pages are asked for: a PDF is parsed by the first
page asked and each further page comes from the same reader. ``SourceError`` says
why a source has no text; ``locate_quotes`` says where quotes are (or nearly are).
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, NamedTuple

import pygit2

from wikigate.gitrepo import blob_at
from wikigate.paths import MAX_SOURCE_BYTES

from .citation import NearMiss, NearMisses
from .entries import Entry

if TYPE_CHECKING:
    from pypdf import PdfReader


Quotes = list[tuple[int | None, str]]  # (anchor offset, quote)


class SourceError(Exception):
    """A raw source cannot be read as text; the message says why."""


NOWHERE = -1  # Located.offset of a quote that occurs nowhere in the source
UNSEARCHED = -2  # ... of one not searched for: the source's scans were spent (``scans``)


class Located(NamedTuple):
    """Where a quote is that does not sit at its anchor."""

    offset: int  # NOWHERE, or UNSEARCHED
    line: int
    near: NearMiss | None = None  # when nowhere: where it would match after a fold


class Source:
    """One source blob, read once: its text, or (a PDF) each page's text from one
    parse. SourceError when the blob is too big or empty; ``text()`` raises it
    for a page that has no text, and a PDF that cannot be parsed has none."""

    def __init__(self, repo: pygit2.Repository, entry: Entry) -> None:
        blob = blob_at(repo, entry.oid)
        if blob.size > MAX_SOURCE_BYTES:
            raise SourceError(
                f"is {blob.size / 2**20:.0f} MB; sources over "
                f"{MAX_SOURCE_BYTES // 2**20} MB are not read"
            )
        if not blob.size:
            raise SourceError("is empty")
        self._data = memoryview(blob)
        self.is_pdf = bytes(self._data[:5]) == b"%PDF-" or _pdf_name(entry.path)
        self._text: str | None = None  # decoded by the first text() call
        self._reader: PdfReader | str | None = None  # parsed by the first page, or why not

    def text(self, page: int | None) -> str:
        """The text of the source (PDF: of its page ``page``, counted from 1)."""
        if self.is_pdf:
            return self._pdf_page(page)
        if self._text is None:
            self._text = _decode(self._data)
        return self._text

    def _pdf_page(self, page: int | None) -> str:
        if page is None:
            raise SourceError("is a PDF; the citation must name a page (SOURCE, p.N)")
        from pypdf import PdfReader  # here: pypdf loads only when a PDF is read
        from pypdf.errors import PyPdfError

        unreadable = (PyPdfError, ValueError, KeyError, TypeError)
        if self._reader is None:
            try:
                self._reader = PdfReader(io.BytesIO(bytes(self._data)))
            except unreadable as e:
                self._reader = f"is not a readable PDF ({type(e).__name__}: {e})"
        if isinstance(self._reader, str):  # the parse failed: no page has text
            raise SourceError(self._reader)
        try:
            if page > len(self._reader.pages):
                raise SourceError(f"has {len(self._reader.pages)} pages; p.{page} does not exist")
            return self._reader.pages[page - 1].extract_text() or ""
        except unreadable as e:
            raise SourceError(f"is not a readable PDF ({type(e).__name__}: {e})") from e


def _decode(data: memoryview) -> str:
    try:
        text = str(data, "utf-8")
    except UnicodeDecodeError as e:
        raise SourceError(f"is not UTF-8 text (invalid byte at offset {e.start})") from e
    if "\x00" in text[:8192]:
        raise SourceError("is binary (holds NUL bytes); cite text, markdown or PDF sources")
    return text


def _pdf_name(path: str) -> bool:
    return path.lower().endswith(".pdf")


def source_key(entry: Entry) -> tuple[str, bool]:
    """Entries that read as the same source: one blob, named a PDF or not."""
    return entry.oid, _pdf_name(entry.path)


NEAR_MISSES = 4  # quotes of one source that get a near-miss search (one scan per fold)


class Scans:
    """What placing missed quotes may still cost in one source: ``left`` exact scans
    (None: any) and ``near`` near-miss searches."""

    def __init__(self, left: int | None) -> None:
        self.left = left
        self.near = NEAR_MISSES if left is not None else None

    def take(self) -> bool:
        if self.left is None:
            return True
        self.left -= 1
        return self.left >= 0

    def take_near(self) -> bool:
        if self.near is None:
            return True
        self.near -= 1
        return self.near >= 0


def locate_quotes(
    text: str, quotes: Quotes, scans: Scans | int | None = None
) -> list[Located | None]:
    """For each (offset, quote): None when the quote sits at offset, else where it is
    (for a quote that is nowhere: where it nearly is, the source folded once).

    Placing a quote that misses its anchor costs a scan of the source: ``scans`` bounds
    them (None: no bound), and only the first NEAR_MISSES quotes found nowhere are
    searched for near misses (a scan per fold), so a hostile page costs (scans × the
    source's size), not (quotes × the source's size). Past the bound, a missed quote is
    ``UNSEARCHED``. The same quote is searched for once.
    """
    budget = scans if isinstance(scans, Scans) else Scans(scans)
    out: list[Located | None] = []
    near: NearMisses | None = None
    placed: dict[str, Located] = {}
    for offset, quote in quotes:
        if offset is not None and text[offset : offset + len(quote)] == quote:
            out.append(None)
            continue
        where = placed.get(quote)
        if where is None:
            if len(quote) > len(text):
                where = Located(NOWHERE, 0)
            elif not budget.take():
                where = Located(UNSEARCHED, 0)
            elif (found := text.find(quote)) >= 0:
                where = Located(found, text.count("\n", 0, found) + 1)
            elif budget.take_near():
                near = near or NearMisses(text)
                where = Located(NOWHERE, 0, near.find(quote))
            else:
                where = Located(NOWHERE, 0)
            placed[quote] = where
        out.append(where)
    return out


def locate_in_source(
    repo: pygit2.Repository,
    entry: Entry,
    pages: list[tuple[int | None, Quotes]],
    scans: int | None = None,
) -> list[tuple[str | None, list[Located | None]]]:
    """For each (PDF page, quotes) of one source: why that page has no text, or
    locate_quotes' answer (``scans``: of the source's text, for all its pages
    together). The blob is read, and a PDF parsed, once."""
    try:
        source = Source(repo, entry)
    except SourceError as e:
        return [(str(e), []) for _ in pages]
    budget = Scans(scans)  # a PDF's pages share the source's
    out: list[tuple[str | None, list[Located | None]]] = []
    for page, quotes in pages:
        try:
            text = source.text(page)
        except SourceError as e:
            out.append((str(e), []))
        else:
            out.append((None, locate_quotes(text, quotes, budget)))
    return out
