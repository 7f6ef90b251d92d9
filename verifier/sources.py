"""Reading raw sources from git blobs, and finding quotes in them.

A source is UTF-8 text or a PDF (its pages' text, extracted by pypdf in a boxed
worker process: pdfbox.py). One blob is read once however many of its pages are
asked for: the pages wanted (``Source.want``) come from one parse in one box.
``SourceError`` says why a source has no text; ``locate_quotes`` says where quotes
are (or nearly are).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import NamedTuple

import pygit2

from wikigate.config import LimitsSection
from wikigate.gitrepo import blob_at
from wikigate.paths import MAX_SOURCE_BYTES

from . import pdfbox
from .citation import NearMiss, NearMisses
from .entries import Entry
from .pdfbox import PdfLimits

Quotes = list[tuple[int | None, str]]  # (anchor offset, quote)


class SourceError(Exception):
    """A raw source cannot be read as text; the message says why."""


_readers_watching: list[Callable[[str, str], None]] = []


@contextmanager
def watching_reads(listener: Callable[[str, str], None]) -> Iterator[None]:
    """Call ``listener(path, blob id)`` for every source blob read in this process while
    the block runs (what the caches spare: a warm verify reads none). Sources read on
    worker processes (a verification with over PARALLEL_SOURCE_BYTES to read) are not
    seen."""
    _readers_watching.append(listener)
    try:
        yield
    finally:
        _readers_watching.remove(listener)


NOWHERE = -1  # Located.offset of a quote that occurs nowhere in the source
UNSEARCHED = -2  # ... of one not searched for: the source's scans were spent (``scans``)


class Located(NamedTuple):
    """Where a quote is that does not sit at its anchor."""

    offset: int  # NOWHERE, or UNSEARCHED
    line: int
    near: NearMiss | None = None  # when nowhere: where it would match after a fold


def pdf_limits(limits: LimitsSection | None = None) -> PdfLimits:
    """The box a PDF is read in: the rules' ``[limits]`` (their defaults when None)."""
    limits = limits or LimitsSection()
    return PdfLimits(limits.pdf_pages, limits.pdf_bytes, limits.pdf_seconds)


class Source:
    """One source blob, read once: its text, or (a PDF) the wanted pages' text from
    one parse in the box (``limits``: pdf_limits()). SourceError when the blob is too
    big or empty; ``text()`` raises it for a page that has no text, and a PDF that
    cannot be parsed, or breaks the box, has none."""

    def __init__(
        self, repo: pygit2.Repository, entry: Entry, limits: PdfLimits | None = None
    ) -> None:
        for listener in _readers_watching:
            listener(entry.path, str(entry.oid))
        blob = blob_at(repo, entry.oid)
        if blob.size > MAX_SOURCE_BYTES:
            raise SourceError(
                f"is {blob.size / 2**20:.0f} MB; sources over "
                f"{MAX_SOURCE_BYTES // 2**20} MB are not read"
            )
        if not blob.size:
            raise SourceError("is empty")
        self._data: memoryview | None = memoryview(blob)  # a PDF's: until its box has run
        self._repo, self._oid = repo, entry.oid
        self.is_pdf = bytes(self._data[:5]) == b"%PDF-" or _pdf_name(entry.path)
        self._text: str | None = None  # decoded by the first text() call
        self._limits = limits or pdf_limits()
        self._count: int | None = None  # a PDF's pages, once read
        self._pages: dict[int, str | SourceError] = {}  # a PDF page's text, or why none
        self._broken: SourceError | None = None  # why the PDF has no text at all

    def want(self, pages: Iterable[int | None]) -> None:
        """Read these pages of a PDF, in one box, unless they are read already."""
        if not self.is_pdf or self._broken is not None:
            return
        todo = {p for p in pages if p is not None and p not in self._pages}
        if self._count is not None:
            todo = {p for p in todo if p <= self._count}
        if not todo and self._count is not None:
            return
        data = self._data if self._data is not None else memoryview(blob_at(self._repo, self._oid))
        self._data = None  # the pages' text is kept, not the PDF: read again if need be
        try:
            read = pdfbox.extract(bytes(data), sorted(todo), self._limits)
        except (pdfbox.PdfLimit, pdfbox.PdfUnreadable) as e:
            self._broken = SourceError(str(e))
            return
        self._count = read.pages
        self._pages.update(read.texts)
        self._pages.update((p, SourceError(why)) for p, why in read.errors.items())

    def text(self, page: int | None) -> str:
        """The text of the source (PDF: of its page ``page``, counted from 1)."""
        if self.is_pdf:
            return self._pdf_page(page)
        if self._text is None:
            assert self._data is not None  # a text source keeps its blob
            self._text = _decode(self._data)
        return self._text

    def _pdf_page(self, page: int | None) -> str:
        if page is None:
            raise SourceError("is a PDF; the citation must name a page (SOURCE, p.N)")
        self.want([page])
        if self._broken is not None:  # the parse failed or broke the box: no page has text
            raise self._broken
        if self._count is not None and page > self._count:
            raise SourceError(f"has {self._count} pages; p.{page} does not exist")
        text = self._pages.get(page, "")
        if isinstance(text, SourceError):
            raise text
        return text


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


def is_pdf_name(path: str) -> bool:
    """Whether a source named so is read as a PDF, whatever it holds."""
    return _pdf_name(path)


def source_key(entry: Entry) -> tuple[str, bool]:
    """Entries that read as the same source: one blob, named a PDF or not."""
    return entry.oid, _pdf_name(entry.path)


def reading_of(entry: Entry, limits: PdfLimits) -> str:
    """How a source entry is read, as part of a cache key: its blob, whether its name
    makes it a PDF (the same blob named ``x.txt`` is text, named ``x.pdf`` a PDF that may
    not parse), and the box a PDF is read in (a PDF read under looser limits may break
    tighter ones; a blob that starts like a PDF is one whatever its name)."""
    named = "pdf" if _pdf_name(entry.path) else "by-content"
    return f"{entry.oid}:{named}:{limits.pages},{limits.bytes},{limits.seconds!r}"


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
    limits: PdfLimits | None = None,
    scans: int | None = None,
) -> list[tuple[str | None, list[Located | None]]]:
    """For each (PDF page, quotes) of one source: why that page has no text, or
    locate_quotes' answer (``scans``: of the source's text, for all its pages together).
    The blob is read, and a PDF parsed (in its box), once."""
    try:
        source = Source(repo, entry, limits)
    except SourceError as e:
        return [(str(e), []) for _ in pages]
    return locate_in(source, pages, scans)


def locate_in(
    source: Source | SourceError, pages: list[tuple[int | None, Quotes]], scans: int | None = None
) -> list[tuple[str | None, list[Located | None]]]:
    """locate_in_source's answer from a Source already made (or why it cannot be)."""
    if isinstance(source, SourceError):
        return [(str(source), []) for _ in pages]
    source.want(page for page, _ in pages)
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
