"""A read-only view of a wiki at one commit, read from git objects (no checkout).

Pages are parsed once per blob id and cached under ``.git/wikigate/``; a
symlink in the tree is a blob with a link mode, never followed.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import io
import marshal
import posixpath
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path
from typing import Any, NamedTuple, cast

import pygit2

from wikigate.gitrepo import blob_at, tree_at

from .citation import Citation, NearMiss, NearMisses
from .links import LinkGraph
from .markdown import Definition, Link, ParsedPage, Ref, parse_page
from .parallel import Workers

MAX_PAGE_BYTES = 5 * 1024 * 1024
MAX_SOURCE_BYTES = 50 * 1024 * 1024
# the rows' layout and meaning: bump when encode_page, LinkGraph.dumps or what parsing
# yields change without a wikigate release (an editable checkout keeps its version)
CACHE_FORMAT = 9
# what produces cached rows: wikigate, the parsers of pages and front matter, the PDF reader
PRODUCERS = ("wikigate", "markdown-it-py", "mdit-py-plugins", "PyYAML", "pypdf")
# a damaged cache row is a cache miss
CACHE_ERRORS = (sqlite3.DatabaseError, EOFError, ValueError, TypeError, IndexError)
GRAPHS_KEPT = 16  # link graphs of recent trees (main's, runs') kept in the cache
PARALLEL_PAGES = 400  # parse at least this many pages before starting workers
PARALLEL_SCAN = 2000  # scan at least this many pages for words before starting workers
PARALLEL_SOURCE_BYTES = 128 * 2**20  # read at least this much source before starting workers


@dataclass(frozen=True)
class Entry:
    path: str
    oid: str
    mode: int

    @property
    def is_link(self) -> bool:
        return self.mode == pygit2.GIT_FILEMODE_LINK

    @property
    def is_submodule(self) -> bool:
        return self.mode == pygit2.GIT_FILEMODE_COMMIT


class SourceError(Exception):
    """A raw source cannot be read as text; the message says why."""


@lru_cache(maxsize=1)
def cache_version() -> str:
    """What produced a cached row: the row layout, the versions of wikigate and of
    the libraries that parse pages and read sources (from package metadata: pypdf
    is not imported to learn its version), and the Python whose marshal wrote it."""
    made_by = [f"{name}={_installed(name)}" for name in PRODUCERS]
    python = f"py{sys.version_info[0]}.{sys.version_info[1]}-{sys.implementation.name}"
    return "/".join([f"format{CACHE_FORMAT}", *made_by, python, f"marshal{marshal.version}"])


def _installed(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "none"


class PageCache:
    """Parsed pages by blob id, and verified anchors, in ``.git/wikigate/cache.db``.

    Every row carries a tag of cache_version(): a row that another wikigate or
    library version wrote is a miss, and the first open under a new version
    deletes the old rows."""

    def __init__(self, path: Path | None) -> None:
        self.conn: sqlite3.Connection | None = None
        self.memo: dict[str, ParsedPage] = {}  # this verification's parsed pages, by blob
        self.tag = ""
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(str(path), timeout=5, isolation_level=None)
            self.conn.execute("PRAGMA journal_mode=WAL")
            for table in (
                "pages (blob TEXT PRIMARY KEY, v TEXT, data BLOB, nav BLOB)",
                "anchors (key TEXT PRIMARY KEY)",  # key: tag:source blob:page:offset:hash
                "graphs (tree TEXT PRIMARY KEY, v TEXT, data BLOB, used REAL)",
                "meta (name TEXT PRIMARY KEY, value TEXT)",
            ):
                self.conn.execute(f"CREATE TABLE IF NOT EXISTS {table}")
            self.tag = hashlib.sha256(cache_version().encode()).hexdigest()[:16]
            self._drop_other_versions()
        except (OSError, sqlite3.DatabaseError):
            self.conn = None  # a cache is an optimisation: work without it

    def _drop_other_versions(self) -> None:
        """Once per version change: delete the rows that no longer answer."""
        assert self.conn is not None
        row = self.conn.execute("SELECT value FROM meta WHERE name = 'version'").fetchone()
        if row is not None and row[0] == self.tag:
            return
        self.conn.execute("BEGIN")
        self.conn.execute("DELETE FROM pages WHERE v IS NOT ?", (self.tag,))
        self.conn.execute("DELETE FROM graphs WHERE v IS NOT ?", (self.tag,))
        self.conn.execute(  # keys outside the range "tag:" … "tag;" (';' follows ':')
            "DELETE FROM anchors WHERE key < ? OR key >= ?", (self.tag + ":", self.tag + ";")
        )
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?)", (self.tag,))
        self.conn.execute("COMMIT")

    def anchor_key(
        self, source_blob: str, page: int | None, offset: int | None, digest: str
    ) -> str:
        """The anchors table's key of a quote at ``offset`` of a source (PDF page)."""
        return f"{self.tag}:{source_blob}:{page}:{offset}:{digest}"

    def _select(self, column: str, blobs: list[str]) -> list[tuple[str, bytes]]:
        """(blob, column) rows for ``blobs`` of the current cache version."""
        if self.conn is None or not blobs:
            return []
        rows: list[tuple[str, bytes]] = []
        for i in range(0, len(blobs), 900):  # SQLite's bound-parameter limit
            chunk = blobs[i : i + 900]
            marks = ",".join("?" * len(chunk))
            rows += self.conn.execute(
                f"SELECT blob, {column} FROM pages WHERE v = ? AND blob IN ({marks})",
                [self.tag, *chunk],
            ).fetchall()
        return rows

    def pages(self, blobs: list[str]) -> dict[str, ParsedPage]:
        try:
            return {b: decode_page(d) for b, d in self._select("data", blobs)}
        except CACHE_ERRORS:
            return {}

    def navs(self, blobs: list[str]) -> dict[str, ParsedPage]:
        """Just title, aliases, headings and links: what link and orphan checks need."""
        try:
            return {b: decode_nav(n) for b, n in self._select("nav", blobs)}
        except CACHE_ERRORS:
            return {}

    def store_pages(self, rows: list[tuple[str, bytes, bytes]]) -> None:
        """Store (blob, data, nav) rows made by encode_page."""
        if self.conn is None or not rows:
            return
        try:
            self.conn.execute("BEGIN")
            self.conn.executemany(
                "INSERT OR REPLACE INTO pages VALUES (?, ?, ?, ?)",
                [(b, self.tag, data, nav) for b, data, nav in rows],
            )
            self.conn.execute("COMMIT")
        except sqlite3.DatabaseError:
            pass

    def graph(self, tree: str) -> bytes | None:
        """The stored link graph of a tree (LinkGraph.dumps), if any."""
        if self.conn is None:
            return None
        try:
            row = self.conn.execute(
                "SELECT data FROM graphs WHERE tree = ? AND v = ?", (tree, self.tag)
            ).fetchone()
        except sqlite3.DatabaseError:
            return None
        return bytes(row[0]) if row else None

    def store_graph(self, tree: str, data: bytes) -> None:
        """Keep a tree's link graph, and the most recent GRAPHS_KEPT others."""
        if self.conn is None:
            return
        try:
            self.conn.execute("BEGIN")
            self.conn.execute(
                "INSERT OR REPLACE INTO graphs VALUES (?, ?, ?, ?)",
                (tree, self.tag, data, time.time()),
            )
            self.conn.execute(
                "DELETE FROM graphs WHERE tree NOT IN "
                "(SELECT tree FROM graphs ORDER BY used DESC LIMIT ?)",
                (GRAPHS_KEPT,),
            )
            self.conn.execute("COMMIT")
        except sqlite3.DatabaseError:
            pass

    def verified_anchors(self, keys: list[str]) -> set[str]:
        """Which of these anchors (source blob, page, offset, quote hash) verified before."""
        if self.conn is None or not keys:
            return set()
        found: set[str] = set()
        try:
            for i in range(0, len(keys), 900):
                chunk = keys[i : i + 900]
                marks = ",".join("?" * len(chunk))
                query = f"SELECT key FROM anchors WHERE key IN ({marks})"
                found.update(k for (k,) in self.conn.execute(query, chunk))
        except sqlite3.DatabaseError:
            return set()
        return found

    def store_anchors(self, keys: set[str]) -> None:
        if self.conn is None or not keys:
            return
        try:
            self.conn.execute("BEGIN")
            self.conn.executemany(  # in key order: appends to the index instead of splitting it
                "INSERT OR IGNORE INTO anchors VALUES (?)", [(k,) for k in sorted(keys)]
            )
            self.conn.execute("COMMIT")
        except sqlite3.DatabaseError:
            pass

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()


def _tuples(items: list[Any]) -> tuple[tuple[Any, ...], ...]:
    return tuple(map(tuple, items))


def encode_page(p: ParsedPage) -> tuple[bytes, bytes]:
    """A parsed page as the cache's (data, nav) rows.

    marshal, not JSON: loading it is ~4x faster, and the cache is a local file
    under .git/ that only this Python version (part of cache_version()) reads.
    """
    defs = tuple(
        (d.label, d.line, d.tail, tuple(d.citation) if d.citation else None, d.error)
        for d in p.definitions
    )
    links = _tuples(p.links)
    data = (
        p.path,
        p.fields,
        p.frontmatter_error,
        p.title,
        tuple(p.aliases),
        tuple(p.headings),
        _tuples(p.refs),
        defs,
        _tuples(p.undefined),
        links,
    )
    nav = (p.path, p.title, tuple(p.aliases), tuple(p.headings), links)
    return marshal.dumps(data), marshal.dumps(nav)


# tuple.__new__ builds a NamedTuple from a tuple in C, several times faster than Ref(*r)
_ref = cast(Callable[[Any], Ref], partial(tuple.__new__, Ref))
_link = cast(Callable[[Any], Link], partial(tuple.__new__, Link))
_citation = cast(Callable[[Any], Citation], partial(tuple.__new__, Citation))


def decode_page(data: bytes) -> ParsedPage:
    path, fields, fm_error, title, aliases, headings, refs, defs, undefined, links = marshal.loads(
        data
    )
    return ParsedPage(
        path=path,
        fields=fields,
        frontmatter_error=fm_error,
        title=title,
        aliases=list(aliases),
        headings=list(headings),
        refs=list(map(_ref, refs)),
        definitions=[
            Definition(label, line, tail, _citation(c) if c else None, error)
            for label, line, tail, c, error in defs
        ],
        undefined=list(undefined),
        links=list(map(_link, links)),
    )


def decode_nav(nav: bytes) -> ParsedPage:
    """Just what link and orphan checks need: title, aliases, headings, links."""
    path, title, aliases, headings, links = marshal.loads(nav)
    return ParsedPage(
        path=path,
        title=title,
        aliases=list(aliases),
        headings=list(headings),
        links=list(map(_link, links)),
        partial=True,
    )


def read_page(repo: pygit2.Repository, entry: Entry) -> tuple[str | None, str | None]:
    """A page's text, or why it cannot be a page."""
    if entry.is_link:
        return None, "is a symlink; pages must be regular files"
    if entry.is_submodule:
        return None, "is a submodule, not a page"
    blob = blob_at(repo, entry.oid)
    if blob.size > MAX_PAGE_BYTES:
        return (
            None,
            f"is {blob.size / 1e6:.1f} MB; pages are limited to {MAX_PAGE_BYTES // 2**20} MB",
        )
    try:
        text = str(memoryview(blob), "utf-8")
    except UnicodeDecodeError as e:
        return None, f"is not UTF-8 text (invalid byte at offset {e.start})"
    if "\x00" in text:
        return None, "is binary (holds NUL bytes), not a markdown page"
    return text, None


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


def read_source(repo: pygit2.Repository, entry: Entry, page: int | None) -> str:
    """A raw source's text (of PDF page ``page``); SourceError says why it has none."""
    blob = blob_at(repo, entry.oid)
    if blob.size > MAX_SOURCE_BYTES:
        raise SourceError(
            f"is {blob.size / 2**20:.0f} MB; sources over "
            f"{MAX_SOURCE_BYTES // 2**20} MB are not read"
        )
    if not blob.size:
        raise SourceError("is empty")
    data = memoryview(blob)
    if bytes(data[:5]) == b"%PDF-" or entry.path.lower().endswith(".pdf"):
        return _pdf_page(bytes(data), page)
    try:
        text = str(data, "utf-8")
    except UnicodeDecodeError as e:
        raise SourceError(f"is not UTF-8 text (invalid byte at offset {e.start})") from e
    if "\x00" in text[:8192]:
        raise SourceError("is binary (holds NUL bytes); cite text, markdown or PDF sources")
    return text


class Located(NamedTuple):
    """Where a quote is that does not sit at its anchor."""

    offset: int  # -1: nowhere in the source
    line: int
    near: NearMiss | None = None  # when nowhere: where it would match after a fold


def locate_quotes(text: str, quotes: list[tuple[int | None, str]]) -> list[Located | None]:
    """For each (offset, quote): None when the quote sits at offset, else where it is
    (for a quote that is nowhere: where it nearly is, the source folded once)."""
    out: list[Located | None] = []
    near: NearMisses | None = None
    for offset, quote in quotes:
        if offset is not None and text[offset : offset + len(quote)] == quote:
            out.append(None)
            continue
        found = text.find(quote)
        if found >= 0:
            out.append(Located(found, text.count("\n", 0, found) + 1))
            continue
        near = near or NearMisses(text)
        out.append(Located(-1, 0, near.find(quote)))
    return out


class WikiTree:
    """Pages and raw sources at one tree."""

    def __init__(
        self,
        repo: pygit2.Repository,
        tree: pygit2.Tree,
        cache: PageCache,
        workers: Workers | None = None,
    ) -> None:
        self.repo = repo
        self.tree = tree
        self.cache = cache
        self.workers = workers or Workers(repo, count=0)  # none: everything in-process
        self.entries: dict[str, Entry] = {}
        self._walk(tree, "")
        self.pages = sorted(p for p in self.entries if p.startswith("wiki/") and p.endswith(".md"))
        self.raw = sorted(p for p in self.entries if p.startswith("raw/"))
        self._parsed: dict[str, ParsedPage] = {}
        self._nav: dict[str, ParsedPage] = {}
        self._page_errors: dict[str, str] = {}
        self._sources: dict[tuple[str, int | None], str] = {}
        self._graph: LinkGraph | None = None

    def _walk(self, tree: pygit2.Tree, prefix: str) -> None:
        for entry in tree:
            path = prefix + (entry.name or "")
            if entry.type_str == "tree":
                self._walk(tree_at(self.repo, entry.id), path + "/")
            else:
                self.entries[path] = Entry(path, str(entry.id), entry.filemode)

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
            tree_id = str(self.tree.id)
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
        hits = [p for p in self.raw if posixpath.basename(p) == name]
        return hits, None

    def source_text(self, path: str, page: int | None) -> str:
        key = (path, page)
        if key not in self._sources:
            self._sources[key] = read_source(self.repo, self.entries[path], page)
        return self._sources[key]

    def locate(self, wanted: list[QuoteTask]) -> list[tuple[str | None, list[Located | None]]]:
        """For each (source, PDF page, [(offset, quote)]): why the source cannot be
        read, or for each quote None (it sits at offset) or where it is.

        Sources are read once each, and not kept: on the workers when they are big.
        """
        tasks = [(self.entries[path], page, quotes) for path, page, quotes in wanted]
        sizes = [self._size(entry) for entry, _, _ in tasks]
        order = sorted(range(len(tasks)), key=lambda i: -sizes[i])  # biggest first
        parallel = len(tasks) > 1 and sum(sizes) >= PARALLEL_SOURCE_BYTES
        done = self.workers.map(_locate_task, [tasks[i] for i in order], parallel=parallel)
        located = dict(zip(order, done, strict=True))
        return [located[i] for i in range(len(tasks))]

    def _size(self, entry: Entry) -> int:
        try:
            return int(self.repo.odb.read_header(entry.oid)[1])
        except (KeyError, ValueError, pygit2.GitError):
            return 0


QuoteTask = tuple[str, int | None, list[tuple[int | None, str]]]


def _mentions_task(
    repo: pygit2.Repository, task: tuple[list[Entry], tuple[str, ...]]
) -> list[tuple[str, list[str]]]:
    entries, terms = task
    encoded = [(t, t.encode()) for t in terms]
    out = []
    for entry in entries:
        if entry.is_link or entry.is_submodule:
            continue
        blob = blob_at(repo, entry.oid)
        if blob.size > MAX_PAGE_BYTES:
            continue
        lowered = bytes(memoryview(blob)).lower()
        out.append((entry.path, [t for t, raw in encoded if raw in lowered]))
    return out


def _locate_task(
    repo: pygit2.Repository, task: tuple[Entry, int | None, list[tuple[int | None, str]]]
) -> tuple[str | None, list[Located | None]]:
    entry, page, quotes = task
    try:
        text = read_source(repo, entry, page)
    except SourceError as e:
        return str(e), []
    return None, locate_quotes(text, quotes)


def _pdf_page(data: bytes, page: int | None) -> str:
    if page is None:
        raise SourceError("is a PDF; the citation must name a page (SOURCE, p.N)")
    try:
        from pypdf import PdfReader
        from pypdf.errors import PyPdfError

        reader = PdfReader(io.BytesIO(data))
        if page > len(reader.pages):
            raise SourceError(f"has {len(reader.pages)} pages; p.{page} does not exist")
        return reader.pages[page - 1].extract_text() or ""
    except SourceError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError) as e:
        raise SourceError(f"is not a readable PDF ({type(e).__name__}: {e})") from e
