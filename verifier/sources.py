"""Reading raw sources from git blobs, and finding quotes in them.

A source is UTF-8 text or a PDF (its pages' text, extracted by pypdf in a boxed
worker process: pdfbox.py). One blob is read once however many of its pages are
asked for: the pages wanted (``Source.want``) come from one parse in one box.
``SourceError`` says why a source has no text; ``locate_quotes`` says where quotes
are (or nearly are).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import NamedTuple, Protocol

import pygit2

from wikigate.config import LimitsSection
from wikigate.gitrepo import blob_at
from wikigate.paths import MAX_SOURCE_BYTES

from . import pdfbox, textview
from .citation import NearMiss, NearMisses
from .entries import Entry
from .pdfbox import PdfLimits
from .textview import TextView

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
    """Where a quote is that does not sit at its anchor in the raw text.

    ``view``: found only in the source's text view (markup removed: textview.py), at
    ``offset``, the start of the raw span it maps to; that may be its anchor."""

    offset: int  # NOWHERE, or UNSEARCHED
    line: int
    near: NearMiss | None = None  # when nowhere: where it would match after a fold
    view: bool = False


def pdf_limits(limits: LimitsSection | None = None) -> PdfLimits:
    """The box a PDF is read in: the rules' ``[limits]`` (their defaults when None)."""
    limits = limits or LimitsSection()
    return PdfLimits(limits.pdf_pages, limits.pdf_bytes, limits.pdf_seconds)


class SourceShelf(Protocol):
    """Source texts a reader that outlives one tree decoded (an MCP session's: its reads
    and anchors, then the verification its finalize runs), by how a source is read
    (``wiki.WikiTree.shelf_key``: its blob, name and markup, the PDF box, the page), never by
    path: a staged source may change under one path. Its owner bounds what it keeps."""

    def get(self, key: tuple[object, ...]) -> str | None: ...

    def put(self, key: tuple[object, ...], text: str) -> None: ...


class Source:
    """One source blob, read once: its text, or (a PDF) the wanted pages' text from
    one parse in the box (``limits``: pdf_limits()). SourceError when the blob is too
    big or empty; ``text()`` raises it for a page that has no text, and a PDF that
    cannot be parsed, or breaks the box, has none."""

    def __init__(
        self,
        repo: pygit2.Repository,
        entry: Entry,
        limits: PdfLimits | None = None,
        text: str | None = None,
    ) -> None:
        """``text``: a text source's text, as a reader decoded it before (a shelf's:
        SourceShelf): its blob is not read again."""
        self._repo, self._oid = repo, entry.oid
        self._data: memoryview | None = None  # a PDF's: until its box has run
        self._text: str | None = text  # a text source's: decoded by the first text() call
        self._limits = limits or pdf_limits()
        self._count: int | None = None  # a PDF's pages, once read
        self._pages: dict[int, str | SourceError] = {}  # a PDF page's text, or why none
        self._broken: SourceError | None = None  # why the PDF has no text at all
        self.dialect = None if _pdf_name(entry.path) else textview.dialect(entry.path)
        if text is not None:  # read, checked and decoded before: a text source
            self.is_pdf = False
            return
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
        self._data = memoryview(blob)
        self.is_pdf = bytes(self._data[:5]) == b"%PDF-" or _pdf_name(entry.path)

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


def source_key(entry: Entry) -> tuple[str, bool, str | None]:
    """Entries that read as the same source: one blob, named a PDF or not, in one markup
    (its text view: the same blob named x.txt has none, named x.html one)."""
    pdf = _pdf_name(entry.path)
    return entry.oid, pdf, None if pdf else textview.dialect(entry.path)


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


class Views:
    """A source text's views, each made on first use: as its markup reads (``dialect``:
    textview.dialect; None for plain text and PDF pages) and, for a plain text, as it
    would read were it markdown or HTML (only to say so when a quote matches there)."""

    def __init__(self, text: str, dialect: str | None) -> None:
        self.text, self.dialect = text, dialect
        self._made: dict[str, TextView | None] = {}
        self._spaced: dict[int, tuple[TextView | None, str] | None] = {}
        self._near: NearMisses | None = None

    def near_in_view(self, view: TextView) -> NearMisses:
        """The view's near misses (citation.NearMisses), made once."""
        if self._near is None:
            self._near = NearMisses(view.text)
        return self._near

    def case_and_space(self, text: str, quote: str) -> int | None:
        """Where the quote matches ``text`` (the raw text or its view) ignoring case and
        whitespace together: an offset into ``text`` (``_spaced``: made once per text)."""
        key = id(text)
        if key not in self._spaced:
            self._spaced[key] = _spaced(text)
        spaced = self._spaced[key]
        if spaced is None:
            return None
        view, folded = spaced
        at = folded.find(_SPACES.sub(" ", quote).casefold())
        if at < 0:
            return None
        return view.raw_offset(at) if view is not None else at

    def _made_as(self, kind: str) -> TextView | None:
        if kind not in self._made:
            self._made[kind] = textview.text_view(self.text, kind)
        return self._made[kind]

    @property
    def view(self) -> TextView | None:
        """What a reader sees of a markup source; None for plain text."""
        return self._made_as(self.dialect) if self.dialect is not None else None

    @property
    def as_markup(self) -> TextView | None:
        """A plain text read as markdown (tags, entities, links, emphasis removed)."""
        return self._made_as("markdown") if self.dialect is None else None


def locate_quotes(
    text: str, quotes: Quotes, scans: Scans | int | None = None, dialect: str | None = None
) -> list[Located | None]:
    """For each (offset, quote): None when the quote sits at offset, else where it is
    (for a quote that is nowhere: where it nearly is, the source folded once).

    A source in markup (``dialect``: markdown, mediawiki, html) is read as a reader sees
    it too: a quote that is not in its raw text is looked for in its text view
    (textview.py), and placed at the raw offset its view match maps to (``view``).

    Placing a quote that misses its anchor costs a scan of the source: ``scans`` bounds
    them (None: no bound), and only the first NEAR_MISSES quotes found nowhere are
    searched for near misses (a scan per fold), so a hostile page costs (scans × the
    source's size), not (quotes × the source's size). Past the bound, a missed quote is
    ``UNSEARCHED``. The same quote is searched for once.
    """
    budget = scans if isinstance(scans, Scans) else Scans(scans)
    out: list[Located | None] = []
    views = Views(text, dialect)
    near: NearMisses | None = None
    placed: dict[str, Located] = {}
    for offset, quote in quotes:
        if offset is not None and text[offset : offset + len(quote)] == quote:
            out.append(None)
            continue
        if offset is not None and (view := views.view) is not None and view.at(offset, quote):
            out.append(Located(offset, text.count("\n", 0, offset) + 1, None, True))
            continue
        where = placed.get(quote)
        if where is None:
            if len(quote) > len(text):
                where = Located(NOWHERE, 0)
            elif not budget.take():
                where = Located(UNSEARCHED, 0)
            elif (found := text.find(quote)) >= 0:
                where = Located(found, text.count("\n", 0, found) + 1)
            elif (seen := _in_view(views, quote)) is not None:
                where = seen
            elif budget.take_near():
                near = near or NearMisses(text)
                where = Located(NOWHERE, 0, near.find(quote) or _nearly(views, quote))
            else:
                where = Located(NOWHERE, 0)
            placed[quote] = where
        out.append(where)
    return out


def _in_view(views: Views, quote: str) -> Located | None:
    """Where the quote is in a markup source's text view, as a raw offset."""
    view = views.view
    found = textview.find(view, views.text, quote) if view is not None else None
    return None if found is None else Located(found.offset, found.line, None, True)


# what a quote found nowhere matches beyond the single folds (citation.FOLDS)
ELLIPSIS = "as pieces joined by an ellipsis (each in the source, in order)"
CASE_AND_SPACE = "ignoring case and collapsing whitespace"
MARKUP = "removing markup"
ELLIPSES = re.compile(r"\s*(?:…|\.\.\.)\s*")
MAX_PIECES = 16


def _nearly(views: Views, quote: str) -> NearMiss | None:
    """Where a quote found nowhere, nor near after one fold, would match: as ellipsis
    pieces, ignoring case and whitespace together, after removing markup (the text view
    of a markup source, folded; a plain text read as markup). A few scans of the text."""
    text = views.text
    pieces = [p for p in ELLIPSES.split(quote) if p]
    if 1 < len(pieces) <= MAX_PIECES and (found := _pieces(text, pieces)) is not None:
        return NearMiss(ELLIPSIS, found, text.count("\n", 0, found) + 1)
    if (found := views.case_and_space(text, quote)) is not None:
        return NearMiss(CASE_AND_SPACE, found, text.count("\n", 0, found) + 1)
    view, fold = views.view, ""
    if view is None:
        plain = views.as_markup
        match = textview.find(plain, text, quote) if plain is not None else None
        return None if match is None else NearMiss(MARKUP, match.offset, match.line)
    miss = views.near_in_view(view).find(quote)
    if miss is not None:
        at, fold = miss.offset, f" and {miss.fold}"
    elif (found := views.case_and_space(view.text, quote)) is not None:
        at, fold = found, f" and {CASE_AND_SPACE}"
    else:
        return None
    offset = view.raw_offset(at)
    return NearMiss(MARKUP + fold, offset, text.count("\n", 0, offset) + 1)


def _pieces(text: str, pieces: list[str]) -> int | None:
    """Where the first piece is when every piece is in ``text``, each after the last."""
    at, first = 0, None
    for piece in pieces:
        found = text.find(piece, at)
        if found < 0:
            return None
        first = found if first is None else first
        at = found + len(piece)
    return first


_SPACES = re.compile(r"\s+")


def _spaced(text: str) -> tuple[TextView | None, str] | None:
    """``text`` with runs of whitespace read as one space (a view mapping back to it; None
    when nothing changed), case folded: what a quote is matched against ignoring case and
    whitespace together. None when case folding changes its length (ß, ligatures: its
    offsets would not map back) or it holds more than MAX_EDITS runs to fold."""
    edits = [(m.start(), m.end(), " ") for m in _SPACES.finditer(text) if m.group() != " "]
    if len(edits) > textview.MAX_EDITS:
        return None
    view = TextView(text, edits) if edits else None
    spaced = view.text if view is not None else text
    folded = spaced.casefold()
    return None if len(folded) != len(spaced) else (view, folded)


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
            dialect = None if source.is_pdf else source.dialect
            out.append((None, locate_quotes(text, quotes, budget, dialect)))
    return out
