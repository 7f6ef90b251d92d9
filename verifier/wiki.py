"""A wiki at one tree, read from git objects (no checkout): ``WikiTree``.

It owns a tree's pages, parsed once per blob id through the cache (cache.py, its
rows tagged with ``cache_version()``: what produced them), the link graph's
and the term indexes' places (cached by tree id, derived from the base's), finding
and reading sources (sources.py), and the tasks it hands the workers (parallel.py):
``parse_entries``, ``_mentions_task`` and ``_locate_task``, module-level so that
workers can import them. A symlink in the tree is an entry
with a link mode (entries.py), never followed.
"""

from __future__ import annotations

import contextlib
import marshal
import posixpath
import sys
from collections import OrderedDict
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import ClassVar, Protocol, Self, TypeVar

import pygit2

from wikigate.config import LimitsSection
from wikigate.gitrepo import blob_at
from wikigate.paths import MAX_SOURCE_BYTES, WIKI, Layout

from .cache import CACHE_ERRORS, GRAPHS_KEPT, Cache, decode_page, encode_page
from .entries import Entry, read_page, walk
from .entries import mentions as scan_mentions
from .links import LinkGraph
from .markdown import Link, ParsedPage, parse_page
from .parallel import Workers
from .pdfbox import PdfLimits
from .sources import (
    Located,
    Quotes,
    Source,
    SourceError,
    SourceShelf,
    is_pdf_name,
    locate_in,
    locate_in_source,
    pdf_limits,
    reading_of,
    source_key,
)
from .version import installed

__all__ = ["PageCache", "SourceShelf", "WikiTree", "cache_version", "parse_entries"]
# names other modules and tests import from here (tests patch parse_page, PARALLEL_*)
__all__ += ["GRAPHS_KEPT", "Located", "SourceError", "decode_page", "encode_page", "parse_page"]

SOURCE_CHARS_KEPT = 64 * 2**20  # source text kept in memory for windows and judges
INDEX_DEPTH = 32  # a term index stored as at most this many deltas from a whole one

# the rows' layout and meaning: bump when encode_page, LinkGraph.dumps or what parsing
# yields change without a wikigate release (an editable checkout keeps its version)
# 18: statements of HTML blocks, alt text and headings (issue 24's review); anchors keyed by
# the source's reading, source windows (issue 25)
# 19: labels, sentences about the page, clauses after a reference, HTML headings, headlines,
# callouts (issue 24's third review)
# 20: a gap marker without a reason marks nothing
# 21: Obsidian block ids (^id) among a page's anchors
# 22: hidden inline HTML, front matter summaries, link text, callout titles, presupposing
# questions, instructions (issue 24's fourth review)
# 23: the month May, front matter labels, irregular pasts, questions with numbers in words,
# comments as hidden text (issue 24's fifth review)
# 26: split link texts and code spans, pointers and asides, opening clauses, link titles,
# lead fields and summary lists (issue 24's sixth review)
# 27: term indexes of trees (the consistency check's), an indexes table
# 28: a cited table cell's row (Ref.row), the statement its claim makes; footnote
# references in raw HTML (ParsedPage.in_html)
# 29: a front matter sources: field is a Sources line; a word after an article is no verb
# (real wikis measured, issues 24 and 27)
# 30: the links in each statement and in its block (a link to a source cites it)
# 31: an embed ![[…]] is quoted as typed in a claim, its words no statement (issue 26)
# 32: each gap-marked sentence's text (ParsedPage.gapped: the consistency check's)
# 33: a reference inside an element that hides it is in_html, a title attribute that
# asserts is hidden text (issue 28)
# 34: a wikilink into the same page ([[#^id]], [[#Heading]]) reads as its anchor
# 35: a possessive or an appositive read as its subject's (issue 30)
# 36: a page note on a text source is citation.page_not_pdf (issue 28)
# 37: short words, irregular verbs, ranges and counts read by the consistency rules; a
# semantic finding on its claim's line (issue 30 review 38a, issue 28 trial 28)
# 38: numbered names, parts and repeats of a subject, units of one system, sizes and agents,
# denials since a year read by the consistency rules (issue 30 reviews 38a, 38b)
# 39: a whole-wiki consistency pass keeps each compared claim's candidates (review 38b F1),
# the term index's figure kinds (!y, !q, !-) and every page's features rows at its build
# 40: converted figures' rounding at most an eighth, numbers in appositives, ranks and sizes
# outside the predicate read by the consistency rules (issue 30 review 39a #4, #6, #9)

# 41: until/before a year against since it, seasons, a dated past, a figure with its parts,
# spellings of a repeat read by the consistency rules (issue 30 review 39a #3, #5, #8)
# 42: a quote not found in a claim unchanged from the base, stale there, is citation.stale
# (issue 30 trial 40 #1)
# 43: contradiction findings carry source and other (the other claim), number words read by
# the consistency rules (issue 30 trial 40, conflict30)
# 44: a reference's ::: disputed block (Ref.block): a stale claim is history only beside its
# block's dated update (issue 30 trial 41)
CACHE_FORMAT = 44
# what produces cached rows: wikigate, the parsers of pages and front matter, the sentence
# segmenter, the PDF reader, the number reader of the offline judge's hints
PRODUCERS = (
    "wikigate",
    "markdown-it-py",
    "mdit-py-plugins",
    "syntok",
    "PyYAML",
    "pypdf",
    "text2num",
)
PARALLEL_PAGES = 400  # parse at least this many pages before starting workers
STORE_BATCH = 1000  # parsed pages written to the cache per transaction
PARALLEL_SCAN = 2000  # scan at least this many pages for words before starting workers
PARALLEL_SOURCE_BYTES = 128 * 2**20  # read at least this much source before starting workers


@lru_cache(maxsize=1)
def cache_version() -> str:
    """What produced a cached row: the row layout, the versions of wikigate and of
    the libraries that parse pages and read sources (from package metadata: pypdf
    is not imported to learn its version), and the Python whose marshal wrote it."""
    made_by = [f"{name}={installed(name)}" for name in PRODUCERS]
    python = f"py{sys.version_info[0]}.{sys.version_info[1]}-{sys.implementation.name}"
    return "/".join([f"format{CACHE_FORMAT}", *made_by, python, f"marshal{marshal.version}"])


class PageCache(Cache):
    """The verifier's cache, its rows tagged with cache_version(): what produced them."""

    def __init__(self, path: Path | None) -> None:
        super().__init__(path, cache_version)


ParsedRow = tuple[Entry, bytes | None, bytes | None, str | None]


def parse_entries(repo: pygit2.Repository, entries: list[Entry]) -> list[ParsedRow]:
    """Parse pages: (entry, data, nav, error) with encode_page's rows, or why not."""
    out: list[ParsedRow] = []
    for entry in entries:
        text, error = read_page(repo, entry)
        if error is not None:
            out.append((entry, None, None, error))
            continue
        try:
            data, nav = encode_page(parse_page(entry.path, text or ""))
        except Exception as e:  # noqa: BLE001 - this page alone fails, located, not the check
            out.append((entry, None, None, f"cannot be parsed ({type(e).__name__}: {e})"))
        else:
            out.append((entry, data, nav, None))
    return out


class WikiTree:
    """Pages and raw sources at one tree."""

    def __init__(
        self,
        repo: pygit2.Repository,
        tree: pygit2.Tree | pygit2.Oid,
        cache: PageCache,
        workers: Workers | None = None,
        limits: LimitsSection | None = None,
        layout: Layout | None = None,
        shelf: SourceShelf | None = None,
    ) -> None:
        """``limits``: the rules' ``[limits]`` (their defaults when None); a tree past
        them raises entries.TreeLimitError, before a path of it is expanded. ``layout``:
        where the pages are (the rules' ``[wiki]``; default: under wiki/). ``shelf``: the
        source texts a longer-lived reader decoded, read before git and kept there."""
        self.repo = repo
        self.shelf = shelf
        self.layout = layout or WIKI
        self.tree_id = tree.id if isinstance(tree, pygit2.Tree) else tree
        self.cache = cache
        self.workers = workers or Workers(repo, count=0)  # none: everything in-process
        # what a malformed tree holds (duplicate names, `..`, `.git`, unsorted): (path, why)
        limits = limits or LimitsSection()
        self.pdf_limits = pdf_limits(limits)
        self.entries, self.problems = walk(
            repo,
            self.tree_id,
            cache.trees,
            max_paths=limits.tree_paths,
            max_depth=limits.tree_depth,
        )
        self.pages = sorted(filter(self.layout.is_page, self.entries))
        self.raw = sorted(p for p in self.entries if p.startswith("raw/"))
        self._raw_names: dict[str, list[str]] | None = None  # file name → its paths
        self._parsed: dict[str, ParsedPage] = {}
        self._nav: dict[str, ParsedPage] = {}
        self._page_errors: dict[str, str] = {}
        # source texts read for windows and judges, the most recent first out of a budget
        # of SOURCE_CHARS_KEPT characters (a 10k wiki's sources are a gigabyte)
        self._sources: OrderedDict[tuple[str, int | None], str] = OrderedDict()
        self._source_chars = 0
        # one reading per source blob (source_key): a PDF's pages extracted once, in one box
        self._readers: dict[tuple[str, bool, str | None], Source | SourceError] = {}
        self._as_text: dict[str, bool] = {}  # is_text_source's answers, by blob
        self._graph: LinkGraph | None = None
        self._indexes: dict[str, object] = {}  # term_index's, by kind
        self._index_depth: dict[str, int] = {}  # their deltas from a whole index, by kind
        self._changed: dict[str, list[str]] = {}  # by the base tree's id
        self.keep_windows = True  # source_window() stores what it reads in the cache

    def changed_since(self, base: WikiTree) -> list[str]:
        """Paths added, removed, or whose blob or mode differs from ``base``, sorted."""
        key = str(base.tree_id)
        if key not in self._changed:
            old, new = base.entries, self.entries
            self._changed[key] = sorted(
                p
                for p in old.keys() | new.keys()
                if (a := old.get(p)) is None
                or (b := new.get(p)) is None
                or a.oid != b.oid
                or a.mode != b.mode
            )
        return self._changed[key]

    # ------------------------------------------------------------ pages

    def load(self, paths: list[str]) -> None:
        """Parse ``paths`` (cached by blob id) so page()/page_error() answer at once."""
        todo = [p for p in paths if p not in self._parsed and p not in self._page_errors]
        memo = self.cache.memo
        for path in todo:
            entry = self.entries.get(path)
            hit = memo.get(entry.oid) if entry is not None else None
            if hit is not None and hit.path == path:
                self._parsed[path] = hit
        todo = [p for p in todo if p not in self._parsed and p in self.entries]
        if not todo:
            return
        cached = self.cache.pages([self.entries[p].oid for p in todo])
        fresh: list[Entry] = []
        for path in todo:
            entry = self.entries[path]
            hit = cached.get(entry.oid)
            if hit is not None and hit.path == path:
                self._parsed[path] = memo[entry.oid] = hit
            else:
                fresh.append(entry)
        rows: list[tuple[str, bytes, bytes]] = []
        for entry, data, nav, error in self._parse(fresh):  # decoded as workers finish
            if data is None or nav is None:
                self._page_errors[entry.path] = error or "cannot be read"
            else:
                self._parsed[entry.path] = memo[entry.oid] = decode_page(data)
                rows.append((entry.oid, data, nav))
                if len(rows) >= STORE_BATCH:  # written as they come: not all held at once
                    self.cache.store_pages(rows)
                    rows = []
        self.cache.store_pages(rows)

    def _parse(self, entries: list[Entry]) -> Iterator[ParsedRow]:
        size = max(1, min(250, len(entries) // (max(self.workers.count, 1) * 4)))
        tasks = [entries[i : i + size] for i in range(0, len(entries), size)]
        parallel = len(entries) >= PARALLEL_PAGES
        for rows in self.workers.map(parse_entries, tasks, parallel=parallel):
            yield from rows

    def page(self, path: str) -> ParsedPage | None:
        self.load([path])
        return self._parsed.get(path)

    def parsed(self, paths: list[str]) -> dict[str, ParsedPage]:
        """The pages of ``paths`` parsed already (page()), by path: none is parsed here."""
        return {p: page for p in paths if (page := self._parsed.get(p)) is not None}

    def load_nav(self, paths: list[str]) -> None:
        """Make nav_page() answer for ``paths``, decoding only what links need."""
        memo = self.cache.memo
        todo = []
        for path in paths:
            if path in self._parsed or path in self._nav or path in self._page_errors:
                continue
            entry = self.entries.get(path)
            if entry is None:
                continue
            hit = memo.get(entry.oid)
            if hit is not None and hit.path == path:
                self._nav[path] = hit
            else:
                todo.append(path)
        navs = self.cache.navs([self.entries[p].oid for p in todo])
        rest = []
        for path in todo:
            hit = navs.get(self.entries[path].oid)
            if hit is not None and hit.path == path:
                self._nav[path] = hit
            else:
                rest.append(path)
        self.load(rest)

    def nav_page(self, path: str) -> ParsedPage | None:
        """A page's title, aliases, headings and links (refs may be absent)."""
        if path in self._parsed:
            return self._parsed[path]
        if path not in self._nav:
            self.load_nav([path])
        return self._nav.get(path) or self._parsed.get(path)

    def page_error(self, path: str) -> str | None:
        self.load([path])
        return self._page_errors.get(path)

    def page_text(self, path: str) -> tuple[str | None, str | None]:
        return read_page(self.repo, self.entries[path])

    def text_or_empty(self, path: str) -> str:
        """A page's text; "" when the tree has no such page or it cannot be read (which
        the citations check reports)."""
        if path not in self.entries:
            return ""
        text, _error = self.page_text(path)
        return text or ""

    def mentions(self, paths: list[str], terms: list[str]) -> dict[str, list[str]]:
        """Which of ``terms`` (lower case) each page mentions, case-insensitively for
        ASCII: raw bytes are searched, so no page is decoded (unreadable pages are
        the citations check's business). On the workers for a large wiki."""
        wanted = tuple(sorted(terms))
        entries = [self.entries[p] for p in paths]
        size = max(1, -(-len(entries) // max(self.workers.count, 1)))  # a share per worker
        tasks = [(entries[i : i + size], wanted) for i in range(0, len(entries), size)]
        parallel = len(entries) >= PARALLEL_SCAN
        done = self.workers.map(_mentions_task, tasks, parallel=parallel)
        return {path: hits for part in done for path, hits in part}

    # ------------------------------------------------------------ links

    def link_graph(self, base: WikiTree | None = None) -> LinkGraph:
        """This tree's link graph: cached by tree id, else derived from ``base``'s
        (reading only the pages that differ), else built from every page."""
        if self._graph is None:
            tree_id = str(self.tree_id)
            if self.layout != WIKI:  # the graph of these pages: keyed by where they are
                tree_id += f"@{self.layout.root}:{'|'.join(self.layout.exclude)}"
            data = self.cache.graph(tree_id)
            graph = None
            if data is not None:
                try:
                    graph = LinkGraph.loads(self, data)
                except CACHE_ERRORS:
                    graph = None
            if graph is None:
                if base is not None:
                    graph = LinkGraph.derive(base.link_graph(), self)
                else:
                    graph = LinkGraph.build(self)
                self.cache.store_graph(tree_id, graph.dumps())
            self._graph = graph
        return self._graph

    def term_index(self, kind: type[IndexT], base: WikiTree | None = None) -> IndexT:
        """This tree's index of ``kind`` (checks/consistency.py's TermIndex): cached by
        tree id (and the kind's ``name``: what it indexes, how), else derived from
        ``base``'s (reading only the pages that differ), else built from every page.
        A derived index is stored as its changes from ``base``'s (a run's check on the
        10k benchmark wiki wrote its whole 4.6 MB index, ~50 ms), up to INDEX_DEPTH
        changes from a whole one."""
        found = self._indexes.get(kind.name)
        if isinstance(found, kind):
            return found
        tree_id = self._index_id(kind)
        stored = self._stored_index(kind, tree_id)
        if stored is not None:
            index, depth = stored
        else:
            derived, depth, base_id = None, 0, ""
            if base is not None:
                derived = kind.derive(base.term_index(kind), base, self)
                depth, base_id = base._index_depth[kind.name] + 1, base._index_id(kind)
            if derived is not None and depth <= INDEX_DEPTH and base_id != tree_id:
                index = derived
                self.cache.store_index_delta(tree_id, base_id, depth, derived.delta())
            else:
                index, depth = derived if derived is not None else kind.build(self), 0
                self.cache.store_index(tree_id, index.dumps())
        self._indexes[kind.name] = index
        self._index_depth[kind.name] = depth
        return index

    def _index_id(self, kind: type[TreeIndex]) -> str:
        return f"{self.tree_id}:{kind.name}@{self.layout.root}:{'|'.join(self.layout.exclude)}"

    def _stored_index(self, kind: type[IndexT], tree_id: str) -> tuple[IndexT, int] | None:
        """The index stored for ``tree_id``, whole or as a chain of at most INDEX_DEPTH
        deltas down to a whole one, and its depth; None: not stored, or a link of the
        chain missing or damaged."""
        chain: list[tuple[str, bytes]] = []  # the deltas, the tree's first
        at = tree_id
        while True:
            data = self.cache.index(at)
            if data is not None:
                break
            link = self.cache.index_delta(at)
            if link is None or len(chain) >= INDEX_DEPTH:
                return None
            chain.append((at, link[2]))
            at = link[0]
        try:
            index = kind.loads(data)
            for _, delta in reversed(chain):
                index.apply(delta)
        except CACHE_ERRORS:
            return None
        if chain:
            self.cache.used_indexes(at, [t for t, _ in chain])
        return index, len(chain)

    def resolve(self, page: str, link: Link) -> str | None:
        """The file a link points at, or None."""
        return self.link_graph().resolve(page, link)

    # ------------------------------------------------------------ sources

    def find_source(self, name: str) -> tuple[list[str], str | None]:
        """Paths a citation's SOURCE may mean, or an ACL problem."""
        if name.startswith("/") or ".." in name.split("/") or "\\" in name:
            return [], f"{name} escapes raw/"
        if "/" in name:
            if not name.startswith("raw/"):
                return [], f"{name} is not under raw/"
            return ([name] if name in self.entries else []), None
        return list(self._names().get(name, ())), None

    def _names(self) -> dict[str, list[str]]:
        """raw/'s paths by file name, and by file name and path folded to lower case
        (keys starting with ``\0``): one pass over raw/, then a lookup a name."""
        if self._raw_names is None:
            names: dict[str, list[str]] = {}
            for p in self.raw:
                names.setdefault(posixpath.basename(p), []).append(p)
                for key in {posixpath.basename(p).lower(), p.lower()}:
                    names.setdefault("\0" + key, []).append(p)
            self._raw_names = names
        return self._raw_names

    def find_source_folded(self, name: str) -> list[str]:
        """Paths under raw/ whose file name or path is ``name`` ignoring case (a wikilink,
        as Obsidian resolves it)."""
        return list(self._names().get("\0" + name.lower(), ()))

    def source_text(self, path: str, page: int | None) -> str:
        """The text of a source (a PDF's page).  Kept while within SOURCE_CHARS_KEPT
        characters of texts read since (callers read in source order: checks/semantic.py);
        a text source's reader is not kept (its blob and its text would stay with it), a
        PDF's is (its pages' text: one parse a verification)."""
        key = (path, page)
        text = self._sources.get(key)
        if text is not None:
            self._sources.move_to_end(key)
            return text
        entry = self.entries[path]
        shelved = self._shelved(path, page)
        if shelved is not None:
            self._keep(path, page, shelved)
            return shelved
        reader = self._reader(entry)
        if isinstance(reader, SourceError):
            raise reader
        text = reader.text(page)
        if not reader.is_pdf:
            self._readers.pop(source_key(entry), None)
        self._keep(path, page, text)
        if self.shelf is not None:
            self.shelf.put(self.shelf_key(path, page), text)
        return text

    def reading(self, path: str) -> str:
        """How the source at ``path`` is read, for cache keys (sources.reading_of)."""
        return reading_of(self.entries[path], self.pdf_limits)

    def shelf_key(self, path: str, page: int | None) -> tuple[object, ...]:
        """The key of the source at ``path`` (its PDF page) on a SourceShelf: what its text
        depends on (its blob, name and markup, the box a PDF is read in, the page)."""
        return (*source_key(self.entries[path]), self.reading(path), page)

    def _shelved(self, path: str, page: int | None) -> str | None:
        return self.shelf.get(self.shelf_key(path, page)) if self.shelf is not None else None

    def is_text_source(self, path: str) -> bool:
        """Whether the source at ``path`` is read as text: not named a PDF, its blob not
        starting like one (sources.Source), and not too big to read (then it has no text
        at all: SourceError says so)."""
        entry = self.entries[path]
        if is_pdf_name(path):
            return False
        key = str(entry.oid)
        found = self._as_text.get(key)
        if found is None:
            if self._shelved(path, None) is not None:  # decoded as text before
                found = True
            elif not 0 < self._size(entry) <= MAX_SOURCE_BYTES:
                found = False
            else:
                found = bytes(blob_at(self.repo, entry.oid).data[:5]) != b"%PDF-"
            self._as_text[key] = found
        return found

    def source_window(
        self, path: str, page: int | None, at: int, length: int, chars: int, head: int
    ) -> tuple[int, str, str]:
        """The text of a source (PDF page) from ``chars`` before ``at`` to ``chars`` after
        ``at + length``: (where it starts, the text, the source's first ``head``
        characters). From the cache when it was read before: a verified quote's window
        does not change while its blob and reading do not; kept there when
        ``keep_windows`` (a change's pages: a whole-wiki verify has the verdict cache, and
        its windows would be most of the cache). SourceError: none."""
        reading = f"{self.reading(path)}:{page}"
        key, head_key = f"{reading}:{at}:{length}:{chars}", f"{reading}:head{head}"
        if (path, page) not in self._sources:  # not read yet: from the cache if it has it
            found, start_of = self.cache.window(key), self.cache.window(head_key)
            if found is not None and start_of is not None:
                return found[0], found[1], start_of[1]
        text = self.source_text(path, page)
        start = max(0, at - chars)
        window = (start, text[start : min(len(text), at + length + chars)], text[:head])
        if self.keep_windows:
            self.cache.store_window(key, (start, window[1]))
            self.cache.store_window(head_key, (0, window[2]))
        return window

    def _reader(self, entry: Entry) -> Source | SourceError:
        key = source_key(entry)
        reader = self._readers.get(key)
        if reader is None:
            try:
                reader = Source(self.repo, entry, self.pdf_limits)
            except SourceError as e:
                reader = e
            self._readers[key] = reader
        return reader

    def locate(
        self, wanted: list[QuoteTask], scans: int | None = None
    ) -> list[tuple[str | None, list[Located | None]]]:
        """For each (source, PDF page, [(offset, quote)]): why the source cannot be
        read, or for each quote None (it sits at offset) or where it is (``scans``: of
        each source, placing quotes that miss their anchors; sources.locate_quotes).

        Each source blob is read once (a PDF parsed once, whichever of its pages
        are wanted), and not kept: on the workers when they are big. A PDF is read
        here, its box a process of its own, and its pages' text kept for source_text().
        """
        by_source: dict[
            tuple[str, bool, str | None], list[int]
        ] = {}  # source_key: indexes in wanted
        for i, (path, _, _) in enumerate(wanted):
            by_source.setdefault(source_key(self.entries[path]), []).append(i)
        located: dict[int, tuple[str | None, list[Located | None]]] = {}
        pdfs = [ix for key, ix in by_source.items() if key[1]]
        for ix, results in zip(pdfs, self._locate_pdfs(wanted, pdfs, scans), strict=True):
            located.update(zip(ix, results, strict=True))
        groups = [ix for key, ix in by_source.items() if not key[1]]
        for ix in [ix for ix in groups if self._shelved(wanted[ix[0]][0], None) is not None]:
            groups.remove(ix)  # decoded already: read here, from the shelf
            pages = [(wanted[i][1], wanted[i][2]) for i in ix]
            found = self._locate_here(self.entries[wanted[ix[0]][0]], pages, scans)
            located.update(zip(ix, found, strict=True))
        tasks = [
            (
                self.entries[wanted[ix[0]][0]],
                [(wanted[i][1], wanted[i][2]) for i in ix],
                self.pdf_limits,
                scans,
            )
            for ix in groups
        ]
        sizes = [self._size(entry) for entry, _, _, _ in tasks]
        if len(tasks) > 1 and sum(sizes) >= PARALLEL_SOURCE_BYTES and self.workers.enabled:
            order = sorted(range(len(tasks)), key=lambda i: -sizes[i])  # biggest first
            done = self.workers.map(_locate_task, [tasks[i] for i in order])
            for t, results in zip(order, done, strict=True):
                located.update(zip(groups[t], results, strict=True))
        else:  # in this process: each text read once, for the anchors and the judge's windows
            for ix, (entry, pages, _, _) in zip(groups, tasks, strict=True):
                located.update(zip(ix, self._locate_here(entry, pages, scans), strict=True))
        return [located[i] for i in range(len(wanted))]

    def _locate_here(
        self, entry: Entry, pages: list[tuple[int | None, Quotes]], scans: int | None
    ) -> list[tuple[str | None, list[Located | None]]]:
        """locate_in_source in this process, the text kept for source_text() (the
        judge's windows read the same sources next) within SOURCE_CHARS_KEPT."""
        shelved = self._shelved(entry.path, None)
        if shelved is not None:  # a text source a longer-lived reader decoded
            reader: Source | SourceError = Source(self.repo, entry, self.pdf_limits, shelved)
        else:
            reader = self._reader(entry)
        results = locate_in(reader, pages, scans)
        if isinstance(reader, Source) and not reader.is_pdf:
            self._readers.pop(source_key(entry), None)
            with contextlib.suppress(SourceError):  # locate_in said why: not text
                text = reader.text(None)
                self._keep(entry.path, None, text)
                if self.shelf is not None and shelved is None:
                    self.shelf.put(self.shelf_key(entry.path, None), text)
        return results

    def _keep(self, path: str, page: int | None, text: str) -> None:
        """Keep a source's text for source_text(); past SOURCE_CHARS_KEPT characters, the
        most recently read text but this one is dropped. Sources are read in passes, each
        in source order (the anchors', then the judge's windows'): dropping the least
        recently read would drop each text just before the next pass asks for it, and read
        every source twice once they exceed the bound; this keeps the pass's first ones."""
        key = (path, page)
        if key in self._sources:
            self._sources.move_to_end(key)
            return
        self._sources[key] = text
        self._source_chars += len(text)
        while self._source_chars > SOURCE_CHARS_KEPT and len(self._sources) > 1:
            newest = reversed(self._sources)
            next(newest)  # this one, in use
            dropped = self._sources.pop(next(newest))
            self._source_chars -= len(dropped)

    def _locate_pdfs(
        self, wanted: list[QuoteTask], groups: list[list[int]], scans: int | None = None
    ) -> list[list[tuple[str | None, list[Located | None]]]]:
        """locate_in for each group of ``wanted`` citing one PDF (named *.pdf), the PDFs'
        boxes run side by side (threads waiting on processes), one per worker."""
        readers = [self._reader(self.entries[wanted[ix[0]][0]]) for ix in groups]
        pages = [[(wanted[i][1], wanted[i][2]) for i in ix] for ix in groups]
        boxes = [
            (r, [p for p, _ in pp])
            for r, pp in zip(readers, pages, strict=True)
            if isinstance(r, Source)
        ]
        if len(boxes) > 1 and self.workers.count > 1:
            from concurrent.futures import ThreadPoolExecutor  # PDFs only: logging and all

            with ThreadPoolExecutor(min(len(boxes), self.workers.count)) as pool:
                list(pool.map(lambda box: box[0].want(box[1]), boxes))
        return [locate_in(r, pp, scans) for r, pp in zip(readers, pages, strict=True)]

    def _size(self, entry: Entry) -> int:
        try:
            return int(self.repo.odb.read_header(entry.oid)[1])
        except (KeyError, ValueError, pygit2.GitError):
            return 0


QuoteTask = tuple[str, int | None, Quotes]  # (source path, PDF page, quotes)


class TreeIndex(Protocol):
    """What ``WikiTree.term_index`` keeps of a tree (checks/consistency.py's TermIndex):
    a pure function of the tree's pages, stored as bytes."""

    name: ClassVar[str]  # what it indexes and how (a digest): part of its cache key

    @classmethod
    def build(cls, tree: WikiTree) -> Self: ...

    @classmethod
    def derive(cls, base: Self, base_tree: WikiTree, tree: WikiTree) -> Self | None:
        """From ``base``'s index and the pages that differ; None: build it instead."""
        ...

    @classmethod
    def loads(cls, data: bytes) -> Self: ...

    def dumps(self) -> bytes: ...

    def delta(self) -> bytes:
        """A derived index's changes from its base's (``apply`` makes it of that)."""
        ...

    def apply(self, delta: bytes) -> None:
        """Make this index the one ``delta`` was taken from (its base's: ``delta``)."""
        ...


IndexT = TypeVar("IndexT", bound=TreeIndex)


def _mentions_task(
    repo: pygit2.Repository, task: tuple[list[Entry], tuple[str, ...]]
) -> list[tuple[str, list[str]]]:
    return scan_mentions(repo, *task)


def _locate_task(
    repo: pygit2.Repository,
    task: tuple[Entry, list[tuple[int | None, Quotes]], PdfLimits, int | None],
) -> list[tuple[str | None, list[Located | None]]]:
    return locate_in_source(repo, *task)
