"""The verifier's cache under ``.git/wikigate/cache.db``, and its rows' codec.

SQLite tables of parsed pages (by blob id), the consistency check's features of a
page's claims (by blob id and the code's digest), link graphs and term indexes (by tree
id), whole-wiki reports (by what they depend on: reportcache.py), verified anchors and the LLM judge's votes (keyed by what they judged); every row but the votes
is tagged with the version it was given (what produced it: see ``wiki.cache_version``), and ``encode_page``/``decode_page``/``decode_nav``, how a
parsed page is stored. A cache is an optimisation: when it cannot be opened, or a
row cannot be decoded, the work is done again.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, cast

from wikigate.text import Invisible

from .citation import Citation
from .entries import WalkMemo
from .markdown import Definition, Link, ParsedPage, Ref, Statement

# a damaged cache row is a cache miss
CACHE_ERRORS = (sqlite3.DatabaseError, EOFError, ValueError, TypeError, IndexError)
GRAPHS_KEPT = 16  # link graphs of recent trees (main's, runs') kept in the cache
REPORTS_KEPT = 4  # whole-wiki reports (reportcache.py) of recent trees
INDEXES_KEPT = 4  # term indexes of recent trees (checks/consistency.py's): a few MB each
# a tree's term index as its changes from another tree's (a run's, main's after a commit):
# a few KB each, so many more are kept; read, a chain is kept as recently used
INDEX_DELTAS_KEPT = 64
PASSES_KEPT = 4  # whole-wiki consistency passes of recent trees (checks/consistency.py's)
CHUNK = 900  # keys per `IN (…)`: under SQLite's bound-parameter limit


class Cache:
    """Parsed pages by blob id, link graphs by tree id, and verified anchors, in
    the SQLite file ``path`` (None: no file, this verification's memo only).

    Every row carries a tag of ``version()``, what produced the rows: a row that
    another version wrote is a miss, and the first open under a new version
    deletes the old rows. ``version`` is called only when the file opens."""

    def __init__(self, path: Path | None, version: Callable[[], str]) -> None:
        self.conn: sqlite3.Connection | None = None
        self.memo: dict[str, ParsedPage] = {}  # this verification's parsed pages, by blob
        self.trees = WalkMemo()  # this verification's tree objects as walked (entries.walk)
        self.tag = ""
        self._windows: dict[str, tuple[int, str]] = {}  # to write on close
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(str(path), timeout=5, isolation_level=None)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")  # a cache: not synced a commit
            for table in (
                "pages (blob TEXT PRIMARY KEY, v TEXT, data BLOB, nav BLOB)",
                # key: tag:how the source is read (sources.reading_of):page:offset:hash
                "anchors (key TEXT PRIMARY KEY)",
                # the source text around a verified quote, by the same reading (the
                # offline judge's window: a claim edited reads no source)
                "windows (key TEXT PRIMARY KEY, v TEXT, data BLOB)",
                # a page's per-page findings in a whole-wiki verify (verdicts.py), by a
                # digest of what produced them
                "verdicts (key TEXT PRIMARY KEY, v TEXT, data TEXT)",
                "graphs (tree TEXT PRIMARY KEY, v TEXT, data BLOB, used REAL)",
                # a whole-wiki verify's report (reportcache.py), by a digest of what it
                # depends on (its tree, rules, preset, judge, code): in the tree column
                "reports (tree TEXT PRIMARY KEY, v TEXT, data BLOB, used REAL)",
                # a tree's index of its claims' words (the consistency check's), by tree
                "indexes (tree TEXT PRIMARY KEY, v TEXT, data BLOB, used REAL)",
                # a tree's index as its changes from the index of the tree ``base``, ``depth``
                # changes from a whole one (WikiTree.term_index)
                "index_deltas (tree TEXT PRIMARY KEY, v TEXT, base TEXT, depth INTEGER, "
                "data BLOB, used REAL)",
                # a whole-wiki consistency pass's pairs, by "scope:tree" (the next tree's
                # is derived from the most recent of its scope: checks/consistency.py)
                "passes (tree TEXT PRIMARY KEY, v TEXT, data BLOB, used REAL)",
                # a page's current claims and what the consistency check's ranking reads
                # of each (checks/consistency.py: _pool_claims), by page blob and the
                # digest of the code that reads them
                "features (key TEXT PRIMARY KEY, v TEXT, data BLOB)",
                "meta (name TEXT PRIMARY KEY, value TEXT)",
                # the LLM judge's votes, by (claim, quote, window, model, prompt version):
                # the key says what produced them, so no version change drops them
                "judgments (key TEXT PRIMARY KEY, data TEXT)",
                # the offline judge's hints on a page's claims, by a digest of what they
                # depend on (rules, claims, quotes, anchors)
                "hints (key TEXT PRIMARY KEY, data TEXT)",
            ):
                self.conn.execute(f"CREATE TABLE IF NOT EXISTS {table}")
            self.tag = hashlib.sha256(version().encode()).hexdigest()[:16]
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
        self.conn.execute("DELETE FROM indexes WHERE v IS NOT ?", (self.tag,))
        self.conn.execute("DELETE FROM index_deltas WHERE v IS NOT ?", (self.tag,))
        self.conn.execute("DELETE FROM passes WHERE v IS NOT ?", (self.tag,))
        self.conn.execute("DELETE FROM windows WHERE v IS NOT ?", (self.tag,))
        self.conn.execute("DELETE FROM verdicts WHERE v IS NOT ?", (self.tag,))
        self.conn.execute("DELETE FROM reports WHERE v IS NOT ?", (self.tag,))
        self.conn.execute("DELETE FROM features WHERE v IS NOT ?", (self.tag,))
        self.conn.execute(  # keys outside the range "tag:" … "tag;" (';' follows ':')
            "DELETE FROM anchors WHERE key < ? OR key >= ?", (self.tag + ":", self.tag + ";")
        )
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?)", (self.tag,))
        self.conn.execute("COMMIT")

    def anchor_key(self, reading: str, page: int | None, offset: int | None, digest: str) -> str:
        """The anchors table's key of a quote (its sha256 ``digest``) at ``offset`` of a
        source (PDF page), read as ``reading`` says (sources.reading_of: the blob, and
        what else decides its text). One row per citation: a page edited around its
        footnotes finds each of them here."""
        return f"{self.tag}:{reading}:{page}:{offset}:{digest}"

    def page_anchors_key(self, keys: list[str]) -> str:
        """The anchors table's key of a page's whole set of anchors (``anchor_key``s):
        present when every one of them verified."""
        digest = hashlib.blake2b("\n".join(sorted(keys)).encode(), digest_size=20).hexdigest()
        return f"{self.tag}:page:{digest}"

    def _rows_in(self, query: str, keys: list[str], *before: str) -> Iterator[Any]:
        """The rows of ``query`` for ``keys``, ``CHUNK`` at a time: ``{marks}`` in the
        query is the ``IN`` list, ``before`` the parameters ahead of it."""
        assert self.conn is not None
        for i in range(0, len(keys), CHUNK):
            chunk = keys[i : i + CHUNK]
            marks = ",".join("?" * len(chunk))
            yield from self.conn.execute(query.format(marks=marks), [*before, *chunk])

    def _write(self, sql: str, rows: Sequence[tuple[Any, ...]]) -> None:
        """``sql`` for every row, in one transaction (none for no rows); a cache that
        cannot be written to is only slower."""
        if self.conn is None or not rows:
            return
        try:
            self.conn.execute("BEGIN")
            self.conn.executemany(sql, rows)
            self.conn.execute("COMMIT")
        except sqlite3.DatabaseError:
            if self.conn.in_transaction:
                self.conn.rollback()

    def _select(self, column: str, blobs: list[str]) -> list[tuple[str, bytes]]:
        """(blob, column) rows for ``blobs`` of the current cache version."""
        if self.conn is None or not blobs:
            return []
        query = f"SELECT blob, {column} FROM pages WHERE v = ? AND blob IN ({{marks}})"
        return list(self._rows_in(query, blobs, self.tag))

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
        self._write(
            "INSERT OR REPLACE INTO pages VALUES (?, ?, ?, ?)",
            [(b, self.tag, data, nav) for b, data, nav in rows],
        )

    def graph(self, tree: str) -> bytes | None:
        """The stored link graph of a tree (LinkGraph.dumps), if any."""
        return self._tree_row("graphs", tree)

    def store_graph(self, tree: str, data: bytes) -> None:
        """Keep a tree's link graph, and the most recent GRAPHS_KEPT others."""
        self._store_tree_row("graphs", tree, data, GRAPHS_KEPT)

    def index(self, tree: str) -> bytes | None:
        """The stored term index of a tree (its ``dumps``), if any."""
        return self._tree_row("indexes", tree)

    def store_index(self, tree: str, data: bytes) -> None:
        """Keep a tree's term index, and the most recently used INDEXES_KEPT others."""
        self._store_tree_row("indexes", tree, data, INDEXES_KEPT)

    def index_delta(self, tree: str) -> tuple[str, int, bytes] | None:
        """A tree's term index stored as its changes from another tree's: that tree, how
        many changes from a whole index, the changes (``store_index_delta``); or None."""
        if self.conn is None:
            return None
        try:
            row = self.conn.execute(
                "SELECT base, depth, data FROM index_deltas WHERE tree = ? AND v = ?",
                (tree, self.tag),
            ).fetchone()
        except sqlite3.DatabaseError:
            return None
        if row is None or not isinstance(row[0], str) or not isinstance(row[1], int):
            return None
        return row[0], row[1], bytes(row[2])

    def store_index_delta(self, tree: str, base: str, depth: int, data: bytes) -> None:
        """Keep a tree's term index as its changes from ``base``'s, and the most recently
        used INDEX_DELTAS_KEPT others."""
        if self.conn is None:
            return
        try:
            self.conn.execute("BEGIN")
            self.conn.execute(
                "INSERT OR REPLACE INTO index_deltas VALUES (?, ?, ?, ?, ?, ?)",
                (tree, self.tag, base, depth, data, time.time()),
            )
            self.conn.execute(
                "DELETE FROM index_deltas WHERE tree NOT IN "
                "(SELECT tree FROM index_deltas ORDER BY used DESC LIMIT ?)",
                (INDEX_DELTAS_KEPT,),
            )
            self.conn.execute("COMMIT")
        except sqlite3.DatabaseError:
            if self.conn.in_transaction:
                self.conn.rollback()

    def used_indexes(self, whole: str, deltas: list[str]) -> None:
        """Mark a tree's whole term index and the deltas read on it as just used (kept
        before those of trees no longer read: main's index, read by every run's check,
        is not dropped for the runs' own)."""
        now = time.time()
        self._write("UPDATE indexes SET used = ? WHERE tree = ?", [(now, whole)])
        self._write("UPDATE index_deltas SET used = ? WHERE tree = ?", [(now, t) for t in deltas])

    def latest_pass(self, scope: str) -> bytes | None:
        """The most recently stored whole-wiki consistency pass of ``scope``, if any."""
        if self.conn is None:
            return None
        try:
            row = self.conn.execute(
                "SELECT data FROM passes WHERE tree >= ? AND tree < ? AND v = ? "
                "ORDER BY used DESC LIMIT 1",
                (scope + ":", scope + ";", self.tag),  # ';' follows ':'
            ).fetchone()
        except sqlite3.DatabaseError:
            return None
        return bytes(row[0]) if row else None

    def store_whole_pass(self, scope: str, tree: str, data: bytes) -> None:
        """Keep a tree's whole-wiki consistency pass, and the most recent PASSES_KEPT
        others."""
        self._store_tree_row("passes", f"{scope}:{tree}", data, PASSES_KEPT)

    def store_report(self, key: str, data: str) -> None:
        """Keep a whole-wiki report, and the most recent REPORTS_KEPT others (read back
        with ``sqlite3`` alone: reportcache.lookup)."""
        self._store_tree_row("reports", key, data.encode("utf-8", "surrogatepass"), REPORTS_KEPT)

    def _tree_row(self, table: str, tree: str) -> bytes | None:
        if self.conn is None:
            return None
        try:
            row = self.conn.execute(
                f"SELECT data FROM {table} WHERE tree = ? AND v = ?", (tree, self.tag)
            ).fetchone()
        except sqlite3.DatabaseError:
            return None
        return bytes(row[0]) if row else None

    def _store_tree_row(self, table: str, tree: str, data: bytes, kept: int) -> None:
        if self.conn is None:
            return
        try:
            self.conn.execute("BEGIN")
            self.conn.execute(
                f"INSERT OR REPLACE INTO {table} VALUES (?, ?, ?, ?)",
                (tree, self.tag, data, time.time()),
            )
            self.conn.execute(
                f"DELETE FROM {table} WHERE tree NOT IN "
                f"(SELECT tree FROM {table} ORDER BY used DESC LIMIT ?)",
                (kept,),
            )
            self.conn.execute("COMMIT")
        except sqlite3.DatabaseError:
            if self.conn.in_transaction:
                self.conn.rollback()

    def verified_anchors(self, keys: list[str]) -> set[str]:
        """Which of these anchors (source blob, page, offset, quote hash) verified before."""
        if self.conn is None or not keys:
            return set()
        try:
            return {
                k for (k,) in self._rows_in("SELECT key FROM anchors WHERE key IN ({marks})", keys)
            }
        except sqlite3.DatabaseError:
            return set()

    def store_anchors(self, keys: set[str]) -> None:
        # in key order: appends to the index instead of splitting it
        self._write("INSERT OR IGNORE INTO anchors VALUES (?)", [(k,) for k in sorted(keys)])

    def window(self, key: str) -> tuple[int, str] | None:
        """A stored window of a source's text (where it starts, the text) by ``key``
        (what read it: WikiTree.source_window), or None."""
        found = self._windows.get(key)
        if found is not None or self.conn is None:
            return found
        try:
            row = self.conn.execute(
                "SELECT data FROM windows WHERE key = ? AND v = ?", (key, self.tag)
            ).fetchone()
            if row is None:
                return None
            start, text = marshal.loads(row[0])
            if not (isinstance(start, int) and isinstance(text, str)):
                return None
            return start, text
        except (*CACHE_ERRORS, KeyError):
            return None

    def store_window(self, key: str, window: tuple[int, str]) -> None:
        """Keep a window, written with the others when the cache closes."""
        self._windows[key] = window

    def verdicts(self, keys: list[str]) -> dict[str, str]:
        """Stored per-page verdicts (verdicts.py's rows, undecoded) by key."""
        if self.conn is None or not keys:
            return {}
        try:
            query = "SELECT key, data FROM verdicts WHERE v = ? AND key IN ({marks})"
            return {k: d for k, d in self._rows_in(query, keys, self.tag) if isinstance(d, str)}
        except sqlite3.DatabaseError:
            return {}

    def store_verdicts(self, rows: Mapping[str, str]) -> None:
        self._write(
            "INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?)",
            [(k, self.tag, d) for k, d in sorted(rows.items())],
        )

    def features(self, keys: list[str]) -> dict[str, bytes]:
        """Stored rows of the consistency check's candidate features by key (undecoded:
        checks/consistency.py reads them, a damaged one is its miss)."""
        if self.conn is None or not keys:
            return {}
        try:
            query = "SELECT key, data FROM features WHERE v = ? AND key IN ({marks})"
            return {k: bytes(d) for k, d in self._rows_in(query, keys, self.tag)}
        except (sqlite3.DatabaseError, TypeError):
            return {}

    def feature_keys(self, keys: list[str]) -> set[str]:
        """Which of ``keys`` have a features row (their data not read)."""
        if self.conn is None or not keys:
            return set()
        try:
            query = "SELECT key FROM features WHERE v = ? AND key IN ({marks})"
            return {k for (k,) in self._rows_in(query, keys, self.tag)}
        except sqlite3.DatabaseError:
            return set()

    def store_features(self, rows: Mapping[str, bytes]) -> None:
        self._write(
            "INSERT OR REPLACE INTO features VALUES (?, ?, ?)",
            [(k, self.tag, d) for k, d in sorted(rows.items())],
        )

    def judgments(self, keys: list[str]) -> dict[str, tuple[str, str, str]]:
        """Cached votes: key → (vote, reason, evidence)."""
        if self.conn is None or not keys:
            return {}
        out: dict[str, tuple[str, str, str]] = {}
        try:
            for key, data in self._rows_in(
                "SELECT key, data FROM judgments WHERE key IN ({marks})", keys
            ):
                vote, reason, evidence = json.loads(data)
                out[key] = (str(vote), str(reason), str(evidence))
        except (*CACHE_ERRORS, KeyError):
            return {}
        return out

    def store_judgments(self, rows: Mapping[str, tuple[str, str, str]]) -> None:
        self._write(
            "INSERT OR REPLACE INTO judgments VALUES (?, ?)",
            [(k, json.dumps(list(v))) for k, v in sorted(rows.items())],
        )

    def hints(self, keys: list[str]) -> dict[str, dict[int, tuple[str, ...]]]:
        """The heuristic's cached hints, a row per page and per claim (checks/semantic.py):
        key → {claim's position on the page, 0 for a claim's row: its conflicts,
        described} (a claim no rule flagged is absent)."""
        if self.conn is None or not keys:
            return {}
        out: dict[str, dict[int, tuple[str, ...]]] = {}
        try:
            for key, data in self._rows_in(
                "SELECT key, data FROM hints WHERE key IN ({marks})", keys
            ):
                out[key] = _flagged(json.loads(data) if data else [])
        except (*CACHE_ERRORS, KeyError):
            return {}
        return out

    def store_hints(self, rows: Mapping[str, Mapping[int, tuple[str, ...]]]) -> None:
        self._write(
            "INSERT OR REPLACE INTO hints VALUES (?, ?)",
            [
                (k, json.dumps([[i, list(h)] for i, h in v.items()]) if v else "")
                for k, v in sorted(rows.items())
            ],
        )

    def close(self) -> None:
        if self.conn is not None:
            windows = sorted(self._windows.items())
            self._write(
                "INSERT OR REPLACE INTO windows VALUES (?, ?, ?)",
                [(k, self.tag, marshal.dumps(w)) for k, w in windows],
            )
            self._windows = {}
            self.conn.close()


def _flagged(rows: Any) -> dict[int, tuple[str, ...]]:
    """A hints row read back: [[position, [hint, …]], …], or ValueError."""
    out: dict[int, tuple[str, ...]] = {}
    for i, hints in rows:
        if not isinstance(i, int) or not all(isinstance(h, str) for h in hints):
            raise ValueError("not a hints row")
        out[i] = tuple(hints)
    return out


def _tuples(items: list[Any]) -> tuple[tuple[Any, ...], ...]:
    return tuple(map(tuple, items))


def encode_page(p: ParsedPage) -> tuple[bytes, bytes]:
    """A parsed page as the cache's (data, nav) rows.

    marshal, not JSON: loading it is ~4x faster, and the cache is a local file
    under .git/ that only this Python version (part of the rows' version) reads.
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
        _tuples(p.in_html),
        links,
        _tuples(p.gaps),
        _tuples(p.gapped),
        p.bare,
        _tuples(p.statements),
        _tuples(p.invisible),
        tuple(p.source_lines),
    )
    nav = (p.path, p.title, tuple(p.aliases), tuple(p.headings), links)
    return marshal.dumps(data), marshal.dumps(nav)


# tuple.__new__ builds a NamedTuple from a tuple in C, several times faster than Ref(*r)
_ref = cast(Callable[[Any], Ref], partial(tuple.__new__, Ref))
_link = cast(Callable[[Any], Link], partial(tuple.__new__, Link))
_invisible = cast(Callable[[Any], Invisible], partial(tuple.__new__, Invisible))
_statement = cast(Callable[[Any], Statement], partial(tuple.__new__, Statement))
_citation = cast(Callable[[Any], Citation], partial(tuple.__new__, Citation))


def decode_page(data: bytes) -> ParsedPage:
    (
        path,
        fields,
        fm_error,
        title,
        aliases,
        headings,
        refs,
        defs,
        undefined,
        in_html,
        links,
        gaps,
        gapped,
        bare,
        statements,
        invisible,
        source_lines,
    ) = marshal.loads(data)
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
        in_html=list(in_html),
        links=list(map(_link, links)),
        gaps=list(gaps),
        gapped=list(gapped),
        bare=bare,
        statements=list(map(_statement, statements)),
        invisible=list(map(_invisible, invisible)),
        source_lines=list(source_lines),
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
