"""``wikigate adopt``: which citation dialects a wiki writes (counts per form, with
examples), and the rewrites that take it to the canonical form mechanically: location notes
written canonically, and unquoted references upgraded to anchored quotes where one passage
of the source clearly supports the claim (offline, by word overlap) and the offline judge
sees no conflict between them. The rest is left as it is and listed. Nothing is written but through a run, which the gate verifies."""

from __future__ import annotations

import difflib
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pygit2

from wikigate.verifier.checks.citations import resolve_source
from wikigate.verifier.checks.semantic import hedge_free
from wikigate.verifier.citation import (
    Citation,
    SourceIndex,
    format_citation,
    quote_hash,
    section_key,
)
from wikigate.verifier.claims import CONFLICT_MARKER
from wikigate.verifier.judges.offline import SOURCE_HEAD, conflicts, source_label
from wikigate.verifier.markdown import ParsedPage
from wikigate.verifier.parallel import Progress, Workers
from wikigate.verifier.wiki import PageCache, SourceError, WikiTree

from .anchors import anchor_tail
from .errors import WikigateError
from .gitrepo import commit_at
from .verify import cache_path

if TYPE_CHECKING:
    from .workspace import Workspace, WorkspaceRun

EXAMPLES = 3  # per form
LISTED = 200  # rewrites and references left that a plan lists (the rest are counted)
PASSAGE_CHARS = 200_000  # of a source searched for a supporting passage
SOURCES_KEPT = 32  # sources whose passages a plan keeps split
MIN_RECALL = 0.6  # of the claim's words the passage must hold
MIN_MARGIN = 0.2  # over the next best passage: "clearly" the one
MIN_WORDS = 3  # content words a claim needs before a passage can be said to support it

FORMS = {
    "canonical": 'canonical: SOURCE — "QUOTE"',
    "notes": 'a quote with location notes (L3, §"Section", p. 12)',
    "ellipsis": "an ellipsis-joined quote",
    "linked quote": "a quote citing its source by wikilink or link",
    "path": "a path, no quote",
    "wikilink": "a wikilink to a source, no quote",
    "link": "a markdown link to a source, no quote",
    "lines": "a line range or section, no quote",
    "sources line": "a Sources: line or section of links, or a sources: field",
    "syntax": "unreadable (citation.syntax)",
}


@dataclass
class Form:
    count: int = 0
    examples: list[str] = field(default_factory=list)


@dataclass
class Rewrite:
    path: str
    line: int
    label: str
    why: str  # "anchored" | "written canonically" | "quoted: a passage supports the claim"
    tail: str  # the definition's new text


@dataclass
class AdoptPlan:
    """What ``adopt`` found at one tree, and would write."""

    tree: pygit2.Oid
    definitions: int = 0
    pages_read: int = 0
    forms: dict[str, Form] = field(default_factory=dict)
    rewrites: list[Rewrite] = field(default_factory=list)
    rewrites_total: int = 0
    left: list[str] = field(default_factory=list)  # unquoted references left, and why
    left_total: int = 0
    # references a passage shares the claim's words with, which the offline judge (or a
    # word swapped) says it may contradict: left as they are, for a person, and why
    person: list[str] = field(default_factory=list)
    person_total: int = 0
    pages: dict[str, str] = field(default_factory=dict)  # path → new text


def form_of(c: Citation | None) -> str:
    if c is None:
        return "syntax"
    if not c.quoted:
        if c.lines or c.section:
            return "lines"
        return c.form if c.form in ("path", "wikilink", "link") else "path"
    if c.pieces:
        return "ellipsis"
    if c.form in ("wikilink", "link"):
        return "linked quote"
    if c.lines or c.section or c.pages:
        return "notes"
    return "canonical"


def plan_adopt(ws: Workspace, tree: pygit2.Tree, progress: Progress | None = None) -> AdoptPlan:
    """The plan at ``tree``: its pages parsed through the verifier's cache (what a verify
    parsed is not parsed again) and, for many pages, on the verifier's workers."""
    cache = PageCache(cache_path(ws.repo))
    workers = Workers(ws.repo)
    try:
        wiki = WikiTree(
            ws.repo,
            tree,
            cache,
            workers,
            limits=ws.config.limits,
            layout=ws.config.wiki.layout(),
        )
        return _plan(ws, wiki, progress)
    finally:
        workers.close()
        cache.close()


PAGES_AT_ONCE = 2000  # pages parsed in one batch (on the workers), then read


def _plan(ws: Workspace, wiki: WikiTree, progress: Progress | None) -> AdoptPlan:
    plan = AdoptPlan(wiki.tree_id, forms={k: Form() for k in FORMS})
    passages = _Passages(wiki)
    for done, path in enumerate(wiki.pages, 1):
        if progress is not None:
            progress("reading pages", done, len(wiki.pages))
        if (done - 1) % PAGES_AT_ONCE == 0:
            wiki.load(wiki.pages[done - 1 : done - 1 + PAGES_AT_ONCE])
        page = wiki.page(path)
        if page is None:
            continue
        plan.pages_read += 1
        text, _ = wiki.page_text(path)
        assert text is not None
        lines = text.split("\n")
        changed = False
        claims: dict[str, str] = {}
        for r in page.refs:
            claims.setdefault(r.label, r.claim)
        for line, named in page.source_lines:
            shown = ", ".join(target for _, target in named[:3])
            _count(plan, "sources line", f"{path}:{line}: {_clip(shown)}")
        for d in page.definitions:
            plan.definitions += 1
            c = d.citation
            form = form_of(c)
            _count(plan, form, f"{path}:{d.line}: [^{d.label}]: {_clip(d.tail)}")
            if c is None:
                continue
            tail, why = _rewrite(ws, wiki, page, c, claims.get(d.label, ""), passages)
            if tail is None and why.startswith(PERSON):
                _for_person(plan, f"{path}:{d.line}: [^{d.label}]: {why.removeprefix(PERSON)}")
                continue
            if tail is None or tail == d.tail:
                if not c.quoted:
                    _left(plan, f"{path}:{d.line}: [^{d.label}]: {why}")
                continue
            if "\n" in d.tail or d.tail not in lines[d.line - 1]:
                _left(plan, f"{path}:{d.line}: [^{d.label}]: a definition of several lines")
                continue
            lines[d.line - 1] = lines[d.line - 1].replace(d.tail, tail, 1)
            plan.rewrites_total += 1
            if len(plan.rewrites) < LISTED:
                plan.rewrites.append(Rewrite(path, d.line, d.label, why, tail))
            changed = True
        if changed:
            plan.pages[path] = "\n".join(lines)
    return plan


def _count(plan: AdoptPlan, form: str, example: str) -> None:
    found = plan.forms[form]
    found.count += 1
    if len(found.examples) < EXAMPLES:
        found.examples.append(example)


def _left(plan: AdoptPlan, why: str) -> None:
    plan.left_total += 1
    if len(plan.left) < LISTED:
        plan.left.append(why)


def _for_person(plan: AdoptPlan, why: str) -> None:
    plan.person_total += 1
    if len(plan.person) < LISTED:
        plan.person.append(why)


PERSON = "person: "  # a reason _rewrite gives for a reference a person must quote


def _rewrite(
    ws: Workspace, wiki: WikiTree, page: ParsedPage, c: Citation, claim: str, passages: _Passages
) -> tuple[str | None, str]:
    """The definition's canonical text and why, or None and why not."""
    hits, acl = resolve_source(wiki, page.path, c)
    if acl or len(hits) != 1:
        return None, acl or f"source {c.source} resolves to {len(hits)} files under raw/"
    source = hits[0]
    if c.quoted:
        if c.anchored and c.sha256 != quote_hash(c.quote):
            return None, "the anchor's hash is not the quote's"
        if not c.anchored:
            try:
                return anchor_tail(ws, source, c.quote, c.page, wiki, notes=c), "anchored"
            except WikigateError:
                pass  # not found, or not once: the gate's finding says which
        return format_citation(c, source, c.offset), "written canonically"
    found = passages.supporting(source, c, claim)
    if isinstance(found, str):
        return None, found
    quote, offset = found
    doubt = _doubt(ws, wiki, source, claim, quote, offset)
    if doubt is not None:
        return (
            None,
            f"{PERSON}{_clip(quote, 60)!r} in {source} shares the claim's words, but {doubt}",
        )
    quoted = c._replace(quote=quote, form="quote")
    return format_citation(quoted, source, offset), "quoted: a passage supports the claim"


_WORD = re.compile(r"[^\W_]{3,}")
_PASSAGE = re.compile(r"[^\n.!?]{20,400}[.!?]?")
_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "that",
        "this",
        "with",
        "from",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
        "its",
        "not",
        "but",
        "which",
        "their",
        "they",
        "them",
        "than",
        "then",
        "into",
        "when",
        "where",
        "who",
        "what",
        "been",
        "also",
        "can",
        "may",
        "will",
        "would",
    ]
)


def _words(text: str) -> set[str]:
    return {w for w in (m.group(0).casefold() for m in _WORD.finditer(text)) if w not in _STOP}


class _Passages:
    """Sources split into passages (a sentence or a line, 20 to 400 characters), each with
    its words; the last SOURCES_KEPT sources kept."""

    def __init__(self, wiki: WikiTree) -> None:
        self.wiki = wiki
        self.kept: OrderedDict[str, tuple[str, list[tuple[int, int, set[str]]]]] = OrderedDict()
        self.indexes: OrderedDict[str, SourceIndex] = OrderedDict()

    def _index(self, source: str, text: str) -> SourceIndex:
        found = self.indexes.get(source)
        if found is None:
            found = self.indexes[source] = SourceIndex(text)
            while len(self.indexes) > SOURCES_KEPT:
                self.indexes.popitem(last=False)
        self.indexes.move_to_end(source)
        return found

    def _split(self, source: str) -> tuple[str, list[tuple[int, int, set[str]]]]:
        found = self.kept.get(source)
        if found is None:
            text = self.wiki.source_text(source, None)[:PASSAGE_CHARS]
            spans = [(m.start(), m.end(), _words(m.group(0))) for m in _PASSAGE.finditer(text)]
            found = self.kept[source] = (text, spans)
            while len(self.kept) > SOURCES_KEPT:
                self.kept.popitem(last=False)
        self.kept.move_to_end(source)
        return found

    def supporting(self, source: str, c: Citation, claim: str) -> tuple[str, int] | str:
        """The one passage of the source (within the lines and section ``c`` names) that
        holds most of the claim's words, clearly more than any other: (quote, offset); or
        why there is none."""
        words = _words(claim)
        if len(words) < MIN_WORDS:
            return "the claim is too short to match a passage by its words"
        try:
            text, spans = self._split(source)
        except SourceError as e:
            return f"{source} {e}"
        lo, hi = 0, len(text)
        if c.lines or c.section:
            index = self._index(source, text)
            if c.lines:
                span = index.span(*c.lines)
                if span is None:
                    return (
                        f"the lines are past the end of {source} "
                        f"(or past the first {PASSAGE_CHARS} characters adopt reads)"
                    )
                lo, hi = span
            if c.section:
                sections = index.sections.get(section_key(c.section), [])
                if len(sections) != 1:
                    return f"{source} has no one section {c.section!r}"
                lo, hi = max(lo, sections[0][0]), min(hi, sections[0][1])
        scored = sorted(
            ((len(words & w) / len(words), s, e) for s, e, w in spans if lo <= s and e <= hi),
            reverse=True,
        )
        if not scored or scored[0][0] < MIN_RECALL:
            return "no passage of the source holds most of the claim's words: left unquoted"
        if len(scored) > 1 and scored[0][0] - scored[1][0] < MIN_MARGIN:
            return "several passages hold the claim's words alike: left unquoted"
        _, start, end = scored[0]
        quote = text[start:end].strip()
        return quote, start + text[start:end].index(quote)


def _doubt(
    ws: Workspace, wiki: WikiTree, source: str, claim: str, quote: str, offset: int
) -> str | None:
    """Why a passage chosen by its words may not support the claim, or None: what the
    verifier's offline judge would say of it (the same rules, on the same window of
    source text: checks/semantic.py), or a word of the claim swapped for another in the
    passage ("mild" where it says "severe"), which no rule of the judge's lists."""
    claim = hedge_free(CONFLICT_MARKER.sub("", claim))
    try:
        text = wiki.source_text(source, None)
    except SourceError as e:
        return f"{source} {e}"
    chars = ws.config.judge.window_chars
    start = max(0, offset - chars)
    window = text[start : offset + len(quote) + chars]
    label = source_label(source, text[:SOURCE_HEAD])
    found = conflicts(claim, quote, window, label, at=offset - start)
    if found:
        said = "; ".join(k.describe() for k in found[:3])
        return f"the offline judge sees a conflict ({said})"
    swapped = _swapped(claim, quote)
    if swapped is not None:
        return f"the claim says {swapped[0]!r} where the passage says {swapped[1]!r}"
    return None


_TOKEN = re.compile(r"[^\W_]+")


def _swapped(claim: str, quote: str) -> tuple[str, str] | None:
    """A content word of the claim that the passage replaces by another one, in place
    (the words around it the same): the first such pair, or None."""
    a = [w.casefold() for w in _TOKEN.findall(claim)]
    b = [w.casefold() for w in _TOKEN.findall(quote)]
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for op, i1, i2, j1, _ in matcher.get_opcodes():
        if op != "replace" or i2 - i1 != 1:  # one word of the claim, where the passage
            continue  # has others: the first of them stands in its place
        x, y = a[i1], b[j1]
        if not (x.isalpha() and y.isalpha()) or x in _STOP or y in _STOP or min(len(x), len(y)) < 3:
            continue
        if x[:4] == y[:4]:  # an inflection ("approve", "approved"), not another word
            continue
        return x, y
    return None


def _clip(text: str, width: int = 70) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def adopt_on_main(
    ws: Workspace, write: bool, progress: Progress | None = None
) -> tuple[AdoptPlan, WorkspaceRun | None]:
    """The plan at main; with ``write`` and something to rewrite, a lint run holding the
    rewrites (to finalize: the gate verifies them like any write)."""
    main = ws.repo.references[ws.env.main].target
    plan = plan_adopt(ws, commit_at(ws.repo, main).tree, progress)
    if not write or not plan.pages:
        return plan, None
    run = ws.start_run("lint", "cli:adopt")
    for path, text in plan.pages.items():
        run.stage_write(path, text)
    return plan, run
