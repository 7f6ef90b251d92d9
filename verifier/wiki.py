"""A read-only view of a wiki at one commit, read from git objects (no checkout).

Pages are parsed once per blob id and cached under ``.git/wikigate/``; a
symlink in the tree is a blob with a link mode, never followed.
"""

from __future__ import annotations

import io
import json
import posixpath
import sqlite3
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pygit2

from wikigate.gitrepo import blob_at, tree_at

from .markdown import Definition, Link, ParsedPage, Ref, parse_page

MAX_PAGE_BYTES = 5 * 1024 * 1024
MAX_SOURCE_BYTES = 50 * 1024 * 1024
STRUCTURAL = frozenset({"wiki/index.md", "wiki/log.md"})
CACHE_VERSION = "3"


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


class PageCache:
    """Parsed pages by blob id, and verified anchors, in ``.git/wikigate/cache.db``."""

    def __init__(self, path: Path | None) -> None:
        self.conn: sqlite3.Connection | None = None
        self.memo: dict[str, ParsedPage] = {}  # this verification's parsed pages, by blob
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(str(path), timeout=5, isolation_level=None)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS pages (blob TEXT PRIMARY KEY, v TEXT, data TEXT, nav TEXT)"
            )
            self.conn.execute("CREATE TABLE IF NOT EXISTS anchors (key TEXT PRIMARY KEY)")
        except (OSError, sqlite3.DatabaseError):
            self.conn = None  # a cache is an optimisation: work without it

    def _select(self, column: str, blobs: list[str]) -> list[tuple[str, str]]:
        """(blob, column) rows for ``blobs`` of the current cache version."""
        if self.conn is None or not blobs:
            return []
        rows: list[tuple[str, str]] = []
        for i in range(0, len(blobs), 900):  # SQLite's bound-parameter limit
            chunk = blobs[i : i + 900]
            marks = ",".join("?" * len(chunk))
            rows += self.conn.execute(
                f"SELECT blob, {column} FROM pages WHERE v = ? AND blob IN ({marks})",
                [CACHE_VERSION, *chunk],
            ).fetchall()
        return rows

    def pages(self, blobs: list[str]) -> dict[str, ParsedPage]:
        try:
            return {b: _page_from_json(json.loads(d)) for b, d in self._select("data", blobs)}
        except (sqlite3.DatabaseError, ValueError, TypeError, KeyError):
            return {}

    def navs(self, blobs: list[str]) -> dict[str, ParsedPage]:
        """Just title, aliases, headings and links: what link and orphan checks need."""
        out: dict[str, ParsedPage] = {}
        try:
            for blob, nav in self._select("nav", blobs):
                path, title, aliases, headings, links = json.loads(nav)
                out[blob] = ParsedPage(
                    path=path,
                    title=title,
                    aliases=aliases,
                    headings=headings,
                    links=[Link(*x) for x in links],
                    partial=True,
                )
        except (sqlite3.DatabaseError, ValueError, TypeError):
            return {}
        return out

    def store_pages(self, pages: dict[str, ParsedPage]) -> None:
        if self.conn is None or not pages:
            return
        rows = [
            (
                b,
                CACHE_VERSION,
                json.dumps(_page_to_json(p)),
                json.dumps([p.path, p.title, p.aliases, p.headings, p.links]),
            )
            for b, p in pages.items()
        ]
        try:
            self.conn.execute("BEGIN")
            self.conn.executemany("INSERT OR REPLACE INTO pages VALUES (?, ?, ?, ?)", rows)
            self.conn.execute("COMMIT")
        except sqlite3.DatabaseError:
            pass

    def anchors(self) -> set[str]:
        if self.conn is None:
            return set()
        try:
            return {k for (k,) in self.conn.execute("SELECT key FROM anchors")}
        except sqlite3.DatabaseError:
            return set()

    def store_anchors(self, keys: set[str]) -> None:
        if self.conn is None or not keys:
            return
        try:
            self.conn.execute("BEGIN")
            self.conn.executemany("INSERT OR IGNORE INTO anchors VALUES (?)", [(k,) for k in keys])
            self.conn.execute("COMMIT")
        except sqlite3.DatabaseError:
            pass

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()


def _page_to_json(p: ParsedPage) -> dict[str, Any]:
    data = asdict(p)  # NamedTuples become JSON arrays
    data.pop("text")
    data.pop("partial")
    return data


def _page_from_json(d: dict[str, Any]) -> ParsedPage:
    return ParsedPage(
        path=d["path"],
        frontmatter=d["frontmatter"],
        frontmatter_error=d["frontmatter_error"],
        title=d["title"],
        aliases=d["aliases"],
        headings=d["headings"],
        refs=[Ref(*r) for r in d["refs"]],
        definitions=[Definition(*x) for x in d["definitions"]],
        undefined=[(u[0], u[1]) for u in d["undefined"]],
        links=[Link(*x) for x in d["links"]],
    )


class WikiTree:
    """Pages and raw sources at one tree."""

    def __init__(self, repo: pygit2.Repository, tree: pygit2.Tree, cache: PageCache) -> None:
        self.repo = repo
        self.tree = tree
        self.cache = cache
        self.entries: dict[str, Entry] = {}
        self._walk(tree, "")
        self.pages = sorted(p for p in self.entries if p.startswith("wiki/") and p.endswith(".md"))
        self.raw = sorted(p for p in self.entries if p.startswith("raw/"))
        self._parsed: dict[str, ParsedPage] = {}
        self._nav: dict[str, ParsedPage] = {}
        self._page_errors: dict[str, str] = {}
        self._sources: dict[tuple[str, int | None], str] = {}
        self._by_name: dict[str, list[str]] | None = None

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
        todo = [p for p in todo if p not in self._parsed]
        if not todo:
            return
        cached = self.cache.pages([self.entries[p].oid for p in todo if p in self.entries])
        fresh: dict[str, ParsedPage] = {}
        for path in todo:
            entry = self.entries.get(path)
            if entry is None:
                continue
            hit = cached.get(entry.oid)
            if hit is not None and hit.path == path:
                self._parsed[path] = hit
                memo[entry.oid] = hit
                continue
            text, error = self.page_text(path)
            if error is not None:
                self._page_errors[path] = error
                continue
            page = parse_page(path, text or "")
            self._parsed[path] = page
            fresh[entry.oid] = page
            memo[entry.oid] = page
        self.cache.store_pages(fresh)

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
        entry = self.entries[path]
        if entry.is_link:
            return None, "is a symlink; pages must be regular files"
        if entry.is_submodule:
            return None, "is a submodule, not a page"
        blob = blob_at(self.repo, entry.oid)
        if blob.size > MAX_PAGE_BYTES:
            return (
                None,
                f"is {blob.size / 1e6:.1f} MB; pages are limited to {MAX_PAGE_BYTES // 2**20} MB",
            )
        data = bytes(blob.data)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            return None, f"is not UTF-8 text (invalid byte at offset {e.start})"
        if "\x00" in text:
            return None, "is binary (holds NUL bytes), not a markdown page"
        return text, None

    # ------------------------------------------------------------ names

    def by_name(self) -> dict[str, list[str]]:
        """Lower-cased stem, path, title and aliases → pages (for [[links]])."""
        if self._by_name is None:
            self.load_nav(self.pages)
            names: dict[str, list[str]] = {}
            for path in self.pages:
                keys = {
                    posixpath.splitext(posixpath.basename(path))[0].lower(),
                    path.lower(),
                    path.removeprefix("wiki/").lower(),
                    path.removeprefix("wiki/").removesuffix(".md").lower(),
                }
                page = self.nav_page(path)
                if page is not None:
                    if page.title:
                        keys.add(page.title.lower())
                    keys.update(a.lower() for a in page.aliases)
                for key in keys:
                    names.setdefault(key, []).append(path)
            self._by_name = names
        return self._by_name

    def resolve(self, page: str, link: Link) -> str | None:
        """The page a link points at, or None."""
        if link.kind == "wiki":
            if not link.target:
                return page  # [[#Heading]] is this page
            hits = self.by_name().get(link.target.strip().lower())
            return sorted(hits)[0] if hits else None
        if not link.target:
            return page
        target = posixpath.normpath(posixpath.join(posixpath.dirname(page), unquote(link.target)))
        if target in self.entries:
            return target
        return None

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
        if key in self._sources:
            return self._sources[key]
        entry = self.entries[path]
        blob = blob_at(self.repo, entry.oid)
        if blob.size > MAX_SOURCE_BYTES:
            raise SourceError(
                f"is {blob.size / 2**20:.0f} MB; sources over "
                f"{MAX_SOURCE_BYTES // 2**20} MB are not read"
            )
        data = bytes(blob.data)
        if not data:
            raise SourceError("is empty")
        if data.startswith(b"%PDF-") or path.lower().endswith(".pdf"):
            text = _pdf_page(data, page)
        else:
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as e:
                raise SourceError(f"is not UTF-8 text (invalid byte at offset {e.start})") from e
            if "\x00" in text[:8192]:
                raise SourceError("is binary (holds NUL bytes); cite text, markdown or PDF sources")
        self._sources[key] = text
        return text


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
