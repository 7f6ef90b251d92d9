"""The per-page verdict cache of a whole-wiki verify (``wikigate verify --all``).

The per-page checks' findings about a page (citations, anchors, invisible characters, the
offline judge, the page rules: ``checks.PER_PAGE``) depend on that page and the sources it
cites alone. A row keeps them, keyed by a digest of what produced them: the cache's
version, the verifier's code (``version.code_version``), the rules (``shard.rules_digest``),
the preset, the judge, the page's path and blob. The sources a page cites are checked at
lookup: the row names, for each source name the page cites, what it resolved to (the paths,
the one file's blob, mode and reading), and for each link of its prose that may cite (a
``[[issue-7342]]`` naming raw/…/issue-7342.md, which depends on the other pages and sources
of the tree), the source it named; a row whose sources resolve otherwise now is a miss.
A hit skips the page's per-claim work; the findings that depend on other pages (links,
orphans, the tree, the run) are not in it, and are computed every time.

A row is written only for a page whose every quote was at its anchor (or known to be): a
quote found elsewhere, nowhere or not searched depends on how many scans its source had
left, which pages citing it share. A row that cannot be read (garbage, another shape, a
digest that does not match its text) is a miss: the page is checked again.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
from collections.abc import Iterable
from typing import Any

from wikigate.models import Finding
from wikigate.plain import quick_validate

from .checks.citations import cited_links, line_citations, parsed_definitions, resolve_source
from .checks.context import Context
from .citation import Citation, source_names
from .judges.offline import rules_digest as offline_rules
from .judges.protocol import HEURISTIC
from .links import FileNames, source_link
from .markdown import Link
from .shard import rules_digest
from .version import code_version

FORMAT = "verdict2"  # 2: links of the prose to sources (checks/pages.py)

Deps = list[list[Any]]  # [source name, hits, acl, blob, mode, reading] per name cited;
# [link, the source it names or None] per link of the prose that may cite


class PageVerdicts:
    """The verdict cache's rows for one verification's pages in scope: ``lookup`` says
    which pages it answers for, ``cached(check)`` their findings, ``store`` keeps the
    pages checked afresh."""

    def __init__(self, ctx: Context, level: str) -> None:
        self.ctx = ctx
        material = "\0".join(
            [
                FORMAT,
                ctx.cache.tag,
                code_version(),
                rules_digest(ctx.config),
                level,
                ctx.judge.name,
                offline_rules(),
            ]
        )
        self.salt = hashlib.blake2b(material.encode(), digest_size=16).hexdigest()
        self.hits: dict[str, dict[str, Any]] = {}  # path → its row, decoded
        self.misses: list[str] = []
        self._resolved: dict[str, list[Any]] = {}
        self._names: FileNames | None = None

    @staticmethod
    def applies(ctx: Context, only: frozenset[str] | None) -> bool:
        """A whole-wiki verify with every check of its preset and the offline judge, and
        a cache to keep rows in (the LLM judge's votes have their own cache and budget)."""
        return (
            ctx.lint and only is None and ctx.judge.name == HEURISTIC and ctx.cache.conn is not None
        )

    def key(self, path: str) -> str:
        blob = self.ctx.tip.entries[path].oid
        text = f"{self.salt}\0{path}\0{blob}".encode("utf-8", "surrogatepass")
        return hashlib.blake2b(text, digest_size=20).hexdigest()

    def lookup(self, paths: list[str]) -> list[str]:
        """Read the rows of ``paths``; the paths they do not answer for (to check)."""
        keys = {path: self.key(path) for path in paths}
        rows = self.ctx.cache.verdicts(list(keys.values()))
        for path in paths:
            row = _decoded(rows.get(keys[path]))
            if row is not None and self._still(row["deps"]):
                self.hits[path] = row
            else:
                self.misses.append(path)
        return self.misses

    def cached(self, check: str) -> list[Finding]:
        """The findings check ``check`` made on the pages the cache answered for."""
        out: list[Finding] = []
        for path in sorted(self.hits):
            out += self.hits[path]["findings"].get(check, [])
        return out

    def count(self) -> None:
        """Add the cached pages to the summary's counts."""
        metrics = self.ctx.metrics
        metrics.pages_checked += len(self.hits)
        for row in self.hits.values():
            claims, citations, anchors, gaps = row["counts"]
            metrics.claims += claims
            metrics.citations += citations
            metrics.anchors_verified += anchors
            metrics.gaps += gaps

    def store(self, found: dict[str, list[Finding]], ran: Iterable[str]) -> None:
        """Keep a row for each page checked afresh whose findings are its own alone:
        ``found`` the per-page checks' findings (by check), ``ran`` the checks that ran."""
        ctx = self.ctx
        counts = ctx.page_counts or {}
        by_page: dict[str, dict[str, list[dict[str, Any]]]] = {}
        for check, findings in found.items():
            for f in findings:
                if f.path is None:
                    return  # not a page's: the checks did not all run through
                by_page.setdefault(f.path, {}).setdefault(check, []).append(
                    f.model_dump(mode="json", exclude_defaults=True)
                )
        gaps_counted = "pages" in set(ran)
        rows: dict[str, str] = {}
        for path in self.misses:
            if path in ctx.unsettled:
                continue
            page = ctx.tip.parsed([path]).get(path)
            if page is None and ctx.tip.page_error(path) is None:
                continue  # neither parsed nor refused: not checked here
            claims, citations, anchors = counts.get(path, [0, 0, 0])
            gaps = len(page.gaps) if page is not None and gaps_counted else 0
            row = {
                "deps": self._deps(page) if page is not None else [],
                "findings": by_page.get(path, {}),
                "counts": [claims, citations, anchors, gaps],
            }
            text = json.dumps(row, sort_keys=True, ensure_ascii=False)
            rows[self.key(path)] = f"{_digest(text)}:{text}"
        ctx.cache.store_verdicts(rows)

    def _deps(self, page: Any) -> Deps:
        cited = [c for _, c in parsed_definitions(page).values() if isinstance(c, Citation)]
        keys = {_dep_key(c, page.path) for c in cited}
        keys |= {_dep_key(c, page.path) for _, c in line_citations(page)}
        keys |= {_link_key(page.path, page.links[i]) for i in cited_links(page)}
        return [self._resolve(key) for key in sorted(keys)]

    def _resolve(self, key: str) -> list[Any]:
        """What the citations and pages checks learn of a source name in this tree
        (``key``: the way it is looked up, and the name: ``_dep_key``), or of a link of the
        page's prose (``_link_key``): the one source under raw/ it names, if any."""
        found = self._resolved.get(key)
        if found is None and key.startswith(LINK):
            kind, folder, target = key[len(LINK) :].split("\0", 2)
            if self._names is None:
                tree = self.ctx.tip
                self._names = FileNames(tree.pages, tree.raw, tree.entries, tree.layout)
            page = posixpath.join(folder, "_")  # a link resolves against its page's folder
            named = source_link(self.ctx.tip, page, Link(kind, target, None, 0), self._names)
            found = self._resolved[key] = [key, named.source if named is not None else None]
        if found is None:
            tree = self.ctx.tip
            form, _, name = key.rpartition("\0")
            c = Citation(name, None, "", None, None, form=form or "path")
            hits, acl = resolve_source(tree, "", c)
            blob, mode, reading = None, None, None
            if len(hits) == 1 and not acl:
                entry = tree.entries[hits[0]]
                blob, mode, reading = entry.oid, entry.mode, tree.reading(hits[0])
            found = self._resolved[key] = [key, hits, acl, blob, mode, reading]
        return found

    def _still(self, deps: Any) -> bool:
        """The page's sources resolve as they did when its row was written."""
        return all(
            isinstance(d, list) and d and isinstance(d[0], str) and self._resolve(d[0]) == d
            for d in deps
        )


LINK = "link\0"


def _link_key(page_path: str, link: Link) -> str:
    """How a link of a page's prose is resolved, as one string: a wikilink by its name
    alone, a path link against the page's folder."""
    folder = posixpath.dirname(page_path) if link.kind == "md" else ""
    return f"{LINK}{link.kind}\0{folder}\0{link.target}"


def _dep_key(c: Citation, page_path: str) -> str:
    """How a citation's source is looked up, as one string: a wikilink by its name (then
    ignoring case), anything else by the path or file name it names (a link's resolved
    against the page)."""
    if c.form == "wikilink":
        return f"wikilink\0{c.source}"
    return f"path\0{source_names(c, page_path)[0]}"


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _decoded(data: str | None) -> dict[str, Any] | None:
    """A row read back, its findings as Finding; None for a row that is not one."""
    if data is None:
        return None
    digest, _, text = data.partition(":")
    if _digest(text) != digest:
        return None
    try:
        row = json.loads(text)
        deps, findings, counts = row["deps"], row["findings"], row["counts"]
        if not (
            isinstance(deps, list)
            and isinstance(findings, dict)
            and isinstance(counts, list)
            and len(counts) == 4
            and all(isinstance(n, int) for n in counts)
        ):
            return None
        decoded = {
            str(check): [quick_validate(Finding, f) or Finding.model_validate(f) for f in found]
            for check, found in findings.items()
        }
    except (ValueError, TypeError, KeyError, AttributeError):  # pydantic's errors are ValueErrors
        return None
    return {"deps": deps, "findings": decoded, "counts": counts}
