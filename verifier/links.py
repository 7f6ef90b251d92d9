"""The wiki's link graph: which names a page answers to, which names its links
ask for, and what that makes reachable from the index (wiki/index.md; ``[wiki] root``).

A graph is a pure function of a git tree, so it is cached by the tree's id.
A run's graph is derived from its base's: only the pages the run changed are
read, and the pages whose links may resolve differently are the ones that ask
for a name or path the run touched.
"""

from __future__ import annotations

import bisect
import difflib
import marshal
import posixpath
import re
from collections import deque
from collections.abc import Iterable, Mapping
from functools import cached_property
from typing import NamedTuple, Protocol, Self
from urllib.parse import unquote

from wikigate.paths import WIKI, Layout, is_attachment

from .markdown import Link, ParsedPage


class WikiTree(Protocol):
    """What the link graph reads of a wiki at one tree (``wiki.WikiTree``, which imports
    this module: a protocol here keeps the two out of an import cycle)."""

    @property
    def entries(self) -> Mapping[str, object]: ...

    @property
    def layout(self) -> Layout: ...

    @property
    def pages(self) -> list[str]: ...

    def changed_since(self, base: Self) -> list[str]: ...

    def load_nav(self, paths: list[str]) -> None: ...

    def nav_page(self, path: str) -> ParsedPage | None: ...


class ResolvingTree(Protocol):
    """What ``source_link`` reads of a tree (``wiki.WikiTree``)."""

    @property
    def pages(self) -> list[str]: ...

    @property
    def raw(self) -> list[str]: ...

    @property
    def entries(self) -> Mapping[str, object]: ...

    @property
    def layout(self) -> Layout: ...

    def resolve(self, page: str, link: Link) -> str | None: ...


def source_link(
    tree: ResolvingTree, page: str, link: Link, names: FileNames | None = None
) -> SourceLink | None:
    """The source under raw/ a link of ``page`` points at (``FileNames.source_link``):
    None for a link to a page or to nothing; ``SourceLink.source`` None when two sources
    share the name it uses. It proves the source exists, and nothing about a claim: what
    counts as a citation is the citation dialects' to say. ``names``: the tree's
    ``FileNames``, to share between many links (made here when None)."""
    names = names or FileNames(tree.pages, tree.raw, tree.entries, tree.layout)
    return names.source_link(page, link, tree.resolve(page, link))


INDEX = WIKI.index  # the default layout's; a tree's own: ``tree.layout.index``
STRUCTURAL = WIKI.structural  # pages that need no citation or inbound link (``Layout``)


def is_page(path: str, layout: Layout = WIKI) -> bool:
    return layout.is_page(path)


def name_keys(path: str, page: ParsedPage | None, layout: Layout = WIKI) -> set[str]:
    """The names ``[[…]]`` may use for a page: stem, paths, title and aliases."""
    rel = layout.rel(path)
    keys = {
        posixpath.splitext(posixpath.basename(path))[0].lower(),
        path.lower(),
        rel.lower(),
        rel.removesuffix(".md").lower(),
    }
    if page is not None:
        if page.title:
            keys.add(page.title.lower())
        keys.update(a.lower() for a in page.aliases)
    return {"w:" + k for k in keys}


class FileNames:
    """The files of a tree by file name, for the links that resolve to no page: a source
    under raw/ that a ``[[name]]`` names (as Obsidian resolves it) is a source reference,
    not a broken link; so is an attachment beside the pages (``![[diagram.png]]``); a page
    elsewhere with the file name a path link asks for is what it probably meant.  Built
    once per tree, only when needed (``entries``: the tree's paths, for its attachments)."""

    def __init__(
        self,
        pages: list[str],
        raw: list[str],
        entries: Iterable[str] | None = None,
        layout: Layout = WIKI,
    ) -> None:
        self._paths = pages, raw
        self._entries = entries
        self._layout = layout

    @cached_property
    def _pages(self) -> dict[str, list[str]]:
        return _by_name(self._paths[0])

    @cached_property
    def _sources(self) -> dict[str, list[str]]:
        return _by_name(self._paths[1])

    @cached_property
    def _attachments(self) -> dict[str, list[str]]:
        out = _by_name(found := attachments(self._entries or (), self._layout))
        for path in found:  # and by its path in the wiki, as pages are: [[img/diagram.png]]
            out.setdefault(self._layout.rel(path).lower(), []).append(path)
        return out

    def source_named(self, target: str) -> str | None:
        hits = self.sources_named(target)
        return hits[0] if hits else None

    def sources_named(self, target: str) -> list[str]:
        """The sources a ``[[target]]`` names, as Obsidian resolves it (sorted)."""
        return self._sources.get(target.strip().lower(), [])

    def source_link(self, page: str, link: Link, resolved: str | None) -> SourceLink | None:
        """The source under raw/ a link of ``page`` points at (``resolved``: what the link
        graph resolved it to), or None: a link to a page, or to nothing.

        A ``[[name]]`` that resolves to no page names the sources of that name; a path
        link, the file it resolves to relative to the page, else (as Obsidian writes them)
        a path from the repository's root under raw/, or a bare file name. A link to a
        source proves that the source exists, nothing about a claim."""
        if resolved is not None:
            return SourceLink(resolved, (resolved,)) if resolved.startswith("raw/") else None
        if not link.target:
            return None
        if link.kind == "wiki":
            hits = self.sources_named(link.target)
        else:
            target = posixpath.normpath(unquote(link.target).strip()).lstrip("/")
            if target.startswith("raw/"):
                hits = [target] if target in self._raw else []
            elif "/" not in target and not self.pages_named(target):
                hits = self.sources_named(target)  # a page of that name too: not shortest
            else:
                hits = []
        if not hits:
            return None
        return SourceLink(hits[0] if len(hits) == 1 else None, tuple(hits))

    @cached_property
    def _raw(self) -> frozenset[str]:
        return frozenset(self._paths[1])

    def attachment_named(self, target: str) -> str | None:
        """The attachment ``[[target]]`` names (its file name with its extension, or its
        path), as Obsidian resolves an embed ``![[diagram.png]]``."""
        hits = self._attachments.get(target.strip().lower())
        return hits[0] if hits else None

    def pages_named(self, path: str) -> list[str]:
        return self._pages.get(posixpath.basename(path).lower(), [])

    # ------------------------------------------------------------ nearest names

    @cached_property
    def _by_key(self) -> dict[str, list[str]]:
        """Pages, then sources, under their file name's key (``_key``)."""
        out: dict[str, list[str]] = {}
        for path in [*self._paths[0], *self._paths[1]]:
            out.setdefault(_key(path), []).append(path)
        return out

    @cached_property
    def _by_prefix(self) -> dict[str, list[str]]:
        """The keys by their first PREFIX characters: the candidates of a near match."""
        out: dict[str, list[str]] = {}
        for key in self._by_key:
            out.setdefault(key[:PREFIX], []).append(key)
        return out

    def nearest(self, target: str) -> str | None:
        """The existing page or source whose file name is nearest to ``target``'s: the
        same name but for case, punctuation and spaces, else the closest of at most
        CANDIDATES names sharing its first letters (difflib, names cut to NAME_CHARS).
        Bounded: NEAREST_SEARCHES fuzzy searches per tree, then exact names only."""
        key = _key(target)
        if not key:
            return None
        hits = self._by_key.get(key)
        if hits:
            return hits[0]
        if key in self._near:
            return self._near[key]
        found = None
        if self._searches < NEAREST_SEARCHES:
            self._searches += 1
            candidates = self._by_prefix.get(key[:PREFIX], [])[:CANDIDATES]
            close = difflib.get_close_matches(key, candidates, n=1, cutoff=0.75)
            found = self._by_key[close[0]][0] if close else None
            self._near[key] = found
        return found

    @cached_property
    def _near(self) -> dict[str, str | None]:
        return {}

    _searches = 0


PREFIX = 3  # a near name shares its first characters (after _key)
CANDIDATES = 64  # names compared per search
NAME_CHARS = 64  # of a name compared
NEAREST_SEARCHES = 200  # fuzzy searches per tree


class SourceLink(NamedTuple):
    """A link to a source under raw/: ``source`` the one it names, None when its name is
    ambiguous (``names``: every file it may mean, sorted)."""

    source: str | None
    names: tuple[str, ...]


_NOT_WORD = re.compile(r"[\W_]+")


def _key(path: str) -> str:
    """A file name as a near match compares it: its stem (without .md), lower case,
    letters and digits only (``Sleep Habits`` and ``sleep-habits.md`` alike)."""
    stem = posixpath.basename(path.strip().lower()).removesuffix(".md")
    return _NOT_WORD.sub("", stem)[:NAME_CHARS]


def attachments(entries: Iterable[str], layout: Layout = WIKI) -> list[str]:
    """The attachments among a tree's paths (``wikigate.paths.is_attachment``), sorted."""
    return sorted(p for p in entries if is_attachment(p, layout))


def _by_name(paths: list[str]) -> dict[str, list[str]]:
    """Each path under its file name and its whole path, as Obsidian resolves a link: a
    note (``.md``) with or without its extension, any other file with it (``[[paper]]`` →
    paper.md; ``[[paper.pdf]]`` → paper.pdf; ``[[raw/papers/paper]]``)."""
    out: dict[str, list[str]] = {}
    for path in paths:  # sorted: so is each list
        low = path.lower()
        names = {low, posixpath.basename(low)}
        if low.endswith(".md"):
            names |= {n.removesuffix(".md") for n in names}
        for name in names:
            out.setdefault(name, []).append(path)
    return out


def link_key(page: str, link: Link) -> str | None:
    """What a link asks for: ``w:name`` or ``p:path``; None for the page itself."""
    if not link.target:
        return None  # [[#Heading]] and (#heading)
    if link.kind == "wiki":
        return "w:" + link.target.strip().lower()
    return "p:" + posixpath.normpath(posixpath.join(posixpath.dirname(page), unquote(link.target)))


def _changed_pages(base: WikiTree, tree: WikiTree) -> list[str]:
    """Pages added, removed or modified from ``base`` to ``tree``, their navs loaded."""
    old, new = base.entries, tree.entries
    pages = [p for p in tree.changed_since(base) if tree.layout.is_page(p)]
    base.load_nav([p for p in pages if p in old])
    tree.load_nav([p for p in pages if p in new])
    return pages


def _page_keys(path: str, page: ParsedPage | None) -> tuple[str, ...]:
    if page is None:
        return ()
    keys = (link_key(path, link) for link in page.links)
    return tuple(sorted({k for k in keys if k is not None}))


class LinkGraph:
    def __init__(
        self,
        tree: WikiTree,
        names: dict[str, list[str]],
        asks: dict[str, tuple[str, ...]],
    ) -> None:
        self.tree = tree
        self.names = names  # name key → the pages answering to it, sorted
        self.asks = asks  # page → the keys its links ask for
        self._orphans: set[str] | None = None

    # ---------------------------------------------------------- building

    @classmethod
    def build(cls, tree: WikiTree) -> LinkGraph:
        tree.load_nav(tree.pages)
        names: dict[str, list[str]] = {}
        asks: dict[str, tuple[str, ...]] = {}
        for path in tree.pages:  # sorted, so every names list is sorted too
            page = tree.nav_page(path)
            for key in name_keys(path, page, tree.layout):
                names.setdefault(key, []).append(path)
            asks[path] = _page_keys(path, page)
        return cls(tree, names, asks)

    @classmethod
    def derive(cls, base: LinkGraph, tree: WikiTree) -> LinkGraph:
        """The graph of ``tree`` from its base's, reading only the changed pages."""
        names = dict(base.names)
        asks = dict(base.asks)
        for path in _changed_pages(base.tree, tree):
            if path in base.tree.entries:
                for key in name_keys(path, base.tree.nav_page(path), tree.layout):
                    rest = [p for p in names.get(key, ()) if p != path]
                    if rest:
                        names[key] = rest
                    else:
                        names.pop(key, None)
                asks.pop(path, None)
            if path in tree.entries:
                page = tree.nav_page(path)
                for key in name_keys(path, page, tree.layout):
                    hits = list(names.get(key, ()))
                    bisect.insort(hits, path)
                    names[key] = hits
                asks[path] = _page_keys(path, page)
        return cls(tree, names, asks)

    # ---------------------------------------------------------- cache rows

    def dumps(self) -> bytes:
        return marshal.dumps((self.names, self.asks, tuple(sorted(self.orphans()))))

    @classmethod
    def loads(cls, tree: WikiTree, data: bytes) -> LinkGraph:
        names, asks, orphans = marshal.loads(data)
        if not isinstance(names, dict) or not isinstance(asks, dict):
            raise ValueError("not a link graph")
        graph = cls(tree, names, asks)
        graph._orphans = set(orphans)
        return graph

    # ---------------------------------------------------------- answers

    def answer(self, key: str) -> str | None:
        """The file a link key resolves to, or None."""
        if key.startswith("w:"):
            hits = self.names.get(key)
            return hits[0] if hits else None
        path = key[2:]
        return path if path in self.tree.entries else None

    def resolve(self, page: str, link: Link) -> str | None:
        key = link_key(page, link)
        return page if key is None else self.answer(key)

    def affected_since(self, base: LinkGraph) -> set[str]:
        """Pages whose links may now resolve differently, or point at a page that
        changed: those asking for a name or path of anything that changed."""
        old, new = base.tree.entries, self.tree.entries
        changed = self.tree.changed_since(base.tree)
        touched = {"p:" + p for p in changed}
        layout = self.tree.layout
        for path in (p for p in changed if is_attachment(p, layout)):  # ![[x.png]]: by name
            low = path.lower()
            touched |= {"w:" + low, "w:" + layout.rel(low), "w:" + posixpath.basename(low)}
        for path in _changed_pages(base.tree, self.tree):
            if path in old:
                touched |= name_keys(path, base.tree.nav_page(path), layout)
            if path in new:
                touched |= name_keys(path, self.tree.nav_page(path), layout)
        return {p for p, keys in self.asks.items() if not touched.isdisjoint(keys)}

    def orphans(self) -> set[str]:
        """Pages no chain of links from the index (wiki/index.md) reaches (index and log
        aside)."""
        if self._orphans is None:
            layout = self.tree.layout
            seen = {layout.index} if layout.index in self.asks else set()
            todo = deque(seen)
            while todo:
                for key in self.asks.get(todo.popleft(), ()):
                    target = self.answer(key)
                    if target is not None and target in self.asks and target not in seen:
                        seen.add(target)
                        todo.append(target)
            self._orphans = {p for p in self.asks if p not in seen and p not in layout.structural}
        return self._orphans
