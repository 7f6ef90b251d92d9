"""Per-claim checks: citation syntax, source, quote anchor and hash.  They provide the
quotes they verified to the semantic judge (semantic.py)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import pygit2

from wikigate.codes import finding
from wikigate.config import LimitsSection
from wikigate.models import Finding

from ..citation import (
    ELLIPSIS_SPAN,
    MAX_PIECES,
    MIN_PIECE_CHARS,
    TYPOGRAPHIC,
    Citation,
    NearMiss,
    SourceIndex,
    find_pieces,
    format_citation,
    quote_hash,
    section_key,
    source_names,
    typographic_differences,
)
from ..claims import is_update
from ..links import FileNames, source_link
from ..markdown import ParsedPage, Ref
from ..sources import CASE_AND_SPACE, ELLIPSIS, MARKUP, UNSEARCHED, SourceError
from ..stale import claims_since
from ..wiki import Located, WikiTree
from .context import Context


def parsed_definitions(page: ParsedPage) -> dict[str, tuple[int, Citation | str]]:
    """label → (line, Citation or the syntax error's message), of each label's first
    definition: a later one with the same label is a finding (duplicates), never read."""
    out: dict[str, tuple[int, Citation | str]] = {}
    for d in page.definitions:
        if d.label not in out:
            out[d.label] = (d.line, d.citation or d.error or "unreadable")
    return out


def duplicates(page: ParsedPage) -> list[Finding]:
    """A label defined twice: renderers disagree on which definition readers see
    (GitHub and pandoc show the first, markdown-it-py's own renderer the last)."""
    first: dict[str, int] = {}
    out: list[Finding] = []
    for d in page.definitions:
        if d.label not in first:
            first[d.label] = d.line
            continue
        out.append(
            finding(
                "citation.syntax",
                page.path,
                d.line,
                f"[^{d.label}] is defined again; its first definition is on line "
                f"{first[d.label]}, and only that one is checked",
                hint="give each footnote its own label, or delete one of the definitions",
            )
        )
    return out


MAX_UNDEFINED_LABELS = 20  # per page; the rest are counted in one more finding


class _Label(NamedTuple):
    """A footnote label as a page uses it: the line it is first on, and how often."""

    label: str
    line: int
    times: int

    def often(self) -> str:
        """`` (N times; first on line L)`` for a label used more than once, else ``""``."""
        return f" ({self.times} times; first on line {self.line})" if self.times > 1 else ""


Said = tuple[str, str | None]  # a finding's message, and its hint (None: the code's)


def _per_label(
    page: ParsedPage,
    code: str,
    places: list[tuple[str, int]],
    one: Callable[[_Label], Said],
    more: Callable[[list[_Label]], Said],
) -> list[Finding]:
    """One finding of ``code`` per label of ``places`` (label, line), on the line it is
    first on, however often it occurs (a page of ``[^a][^a]…`` must not flood the gate):
    at most MAX_UNDEFINED_LABELS labels, the rest summed up in one more finding."""
    first: dict[str, int] = {}
    times: dict[str, int] = {}
    for label, line in places:
        first.setdefault(label, line)
        times[label] = times.get(label, 0) + 1
    labels = [_Label(label, line, times[label]) for label, line in first.items()]
    said = [(x.line, one(x)) for x in labels[:MAX_UNDEFINED_LABELS]]
    rest = labels[MAX_UNDEFINED_LABELS:]
    if rest:
        said.append((rest[0].line, more(rest)))
    return [finding(code, page.path, at, message, hint=hint) for at, (message, hint) in said]


def in_html(page: ParsedPage) -> list[Finding]:
    """Footnote references written in raw HTML: they are no cited claims."""

    def one(x: _Label) -> Said:
        return (
            f"[^{x.label}] is inside raw HTML{x.often()}: a reader sees no footnote there "
            f'(a raw HTML block shows the text "[^{x.label}]"; an element that hides its '
            "text shows nothing), so its sentence is no cited claim and is not verified",
            None,
        )

    def more(rest: list[_Label]) -> Said:
        return (
            f"{len(rest)} more labels are referenced inside raw HTML, from line {rest[0].line}",
            None,
        )

    return _per_label(page, "citation.in_html", page.in_html, one, more)


def undefined(page: ParsedPage) -> list[Finding]:
    """References without a definition."""

    def one(x: _Label) -> Said:
        return (
            f"reference [^{x.label}] has no definition{x.often()}",
            f'add a line "[^{x.label}]: raw/SOURCE — \\"QUOTE\\" {{@OFFSET sha256:HEX}}"',
        )

    def more(rest: list[_Label]) -> Said:
        return (
            f"{len(rest)} more labels have references without a definition "
            f"({sum(r.times for r in rest)} references; the first on line {rest[0].line})",
            "define every footnote a claim references",
        )

    return _per_label(page, "citation.syntax", page.undefined, one, more)


@dataclass
class _Pending:
    """A citation whose quote must be looked up in its source."""

    path: str
    line: int
    label: str
    citation: Citation
    source: str
    blob: str  # the source's blob id
    key: str  # the anchor cache's key
    ref: Ref | None  # the first claim citing it
    digest: str | None = None  # the quote's sha256 when the footnote records another one


class VerifiedQuote(NamedTuple):
    """A quote found verbatim in its source: where, and the finding on its anchor if any."""

    quote: str
    source: str
    pdf_page: int | None
    offset: int  # where the quote is in the source's (page's) text
    blob: str
    code: str | None = None  # citation.anchor_missing / anchor_mismatch, when found elsewhere


VerifiedQuotes = dict[tuple[str, str], VerifiedQuote]  # (page, footnote label) → its quote


def check_citations(ctx: Context) -> tuple[list[Finding], VerifiedQuotes]:
    findings: list[Finding] = []
    scope = ctx.pages_in_scope()
    ctx.tip.load(scope)
    ctx.metrics.pages = len(ctx.tip.pages)
    ctx.metrics.pages_checked = len(scope)
    pending: list[_Pending] = []
    unquoted: list[_Pending] = []  # source references without a quote
    for path in scope:
        if ctx.heartbeat is not None:
            ctx.heartbeat()  # past the verification's deadline: stops here (verifier.budget)
        error = ctx.tip.page_error(path)
        if error is not None:
            findings.append(finding("page.unreadable", path, None, f"{path} {error}"))
            continue
        page = ctx.tip.page(path)
        assert page is not None
        findings += _check_page(ctx, page, pending, unquoted)
    verified: VerifiedQuotes = {}
    findings += _check_quotes(ctx, pending, verified)
    findings += _too_short(ctx, pending, verified)
    for p in sorted(unquoted, key=_by_source):  # each source's index built once
        findings += [on_claim(f, p.ref) for f in _unquoted(ctx, p)]
    return findings, verified


def _too_short(ctx: Context, pending: list[_Pending], verified: VerifiedQuotes) -> list[Finding]:
    """citation.quote_too_short: a quote found in its source, shorter than ``[citations]
    min_quote_chars`` (whitespace collapsed): a letter or a word occurs in almost any
    source, so finding it there proves nothing about the claim."""
    least = ctx.config.citations.min_quote_chars
    out: list[Finding] = []
    for p in pending:
        if (p.path, p.label) not in verified:
            continue  # not found, or unreadable: that finding says more
        size = len(" ".join(p.citation.quote.split()))
        if size >= least:
            continue
        f = finding(
            "citation.quote_too_short",
            p.path,
            p.line,
            f"[^{p.label}]: the quote {_clip(p.citation.quote)!r} is {size} characters; "
            f"[citations] min_quote_chars is {least}: so short a quote occurs in almost any "
            "source and proves nothing about the claim",
            hint="quote the words of the source that support the claim (a phrase or a "
            "sentence), not just one of them",
        )
        out.append(on_claim(f, p.ref))
    return out


def on_claim(f: Finding, ref: Ref | None) -> Finding:
    """A footnote definition's finding, told the claim that cites it (the first one): its
    text and lines, where a review comment belongs.  ``line`` stays the definition's."""
    if ref is None:
        return f
    return f.model_copy(
        update={
            "claim": f.claim or ref.claim or None,
            "claim_line": ref.at_line,
            "claim_start_line": ref.start_line,
        }
    )


def _check_page(
    ctx: Context, page: ParsedPage, pending: list[_Pending], unquoted: list[_Pending]
) -> list[Finding]:
    out: list[Finding] = []
    path = page.path
    defs = parsed_definitions(page)
    used: dict[str, Ref] = {}
    for r in page.refs:
        used.setdefault(r.label, r)
    ctx.count(path, claims=len(page.refs))
    limit = ctx.config.limits.citations_per_page
    if max(len(page.refs), len(page.definitions)) > limit:
        return [_over_limit(page, limit)]
    if len(defs) < len(page.definitions):
        out += duplicates(page)
    out += undefined(page)
    out += in_html(page)
    out += _sources_lines(ctx, page)
    for label, (line, parsed) in defs.items():
        if isinstance(parsed, str):
            syntax = finding("citation.syntax", path, line, f"[^{label}]: {parsed}")
            out.append(on_claim(syntax, used.get(label)))
            continue
        ctx.count(path, citations=1)
        if label not in used:
            out.append(
                finding(
                    "citation.syntax",
                    path,
                    line,
                    f"[^{label}] is defined but never referenced",
                    severity="minor",
                    hint="reference it from the claim it supports, or remove it",
                )
            )
        found = _check_source(ctx, path, line, label, parsed, used.get(label))
        if isinstance(found, _Pending):
            out += [on_claim(f, used.get(label)) for f in _page_note(ctx, found)]
        if isinstance(found, _Pending) and not parsed.quoted:
            unquoted.append(found)
        elif isinstance(found, _Pending):
            pending.append(found)
        else:
            out += [on_claim(f, used.get(label)) for f in found]
    return out


MAX_SOURCE_LINKS = 200  # of a page's Sources lines that are looked up under raw/


def line_citations(page: ParsedPage) -> list[tuple[int, Citation]]:
    """The links of the page's Sources lines, as unquoted references (the first
    MAX_SOURCE_LINKS): (line, citation)."""
    out: list[tuple[int, Citation]] = []
    for line, named in page.source_lines:
        for kind, target in named:
            if len(out) >= MAX_SOURCE_LINKS:
                return out
            form = {"wiki": "wikilink", "field-wiki": "wikilink", "path": "path"}.get(kind, "link")
            if target and "://" not in target:
                out.append((line, Citation(target, None, "", None, None, form=form)))
    return out


def sourced_lines(tree: WikiTree, page: ParsedPage) -> dict[int, list[str]]:
    """The page's Sources lines that name files under raw/: line → those files."""
    out: dict[int, list[str]] = {}
    for line, c in line_citations(page):
        hits, acl = resolve_source(tree, page.path, c)
        if len(hits) == 1 and not acl and hits[0] not in out.get(line, []):
            out.setdefault(line, []).append(hits[0])
    return out


def cited_links(page: ParsedPage) -> list[int]:
    """The page's links (indexes into ``page.links``) whose resolution its statement
    findings depend on: every link of a page without footnote references (a link to a
    source makes it cited), else those in, or in the blocks of, its uncited statements."""
    if not page.refs:
        return list(range(len(page.links)))
    found: set[int] = set()
    for s in page.statements:
        found.update(range(*s.links))
        found.update(range(*s.block))
    return sorted(i for i in found if i < len(page.links))


def linked_sources(
    tree: WikiTree, page: ParsedPage, names: FileNames, indexes: list[int]
) -> dict[int, str]:
    """The links among ``indexes`` that name one source under raw/ (links.source_link):
    link index → the source. A link naming two sources cites neither (link.ambiguous)."""
    out: dict[int, str] = {}
    for i in indexes:
        found = source_link(tree, page.path, page.links[i], names)
        if found is not None and found.source is not None:
            out[i] = found.source
    return out


def _sources_lines(ctx: Context, page: ParsedPage) -> list[Finding]:
    """A page that cites by a Sources line alone: each such line is an unquoted reference."""
    if page.refs or not page.source_lines:
        return []
    out = []
    fields = {line for line, named in page.source_lines if named[0][0] in ("path", "field-wiki")}
    for line, sources in sourced_lines(ctx.tip, page).items():
        shown = ", ".join(sources[:3]) + (
            f" and {len(sources) - 3} more" if len(sources) > 3 else ""
        )
        what = "the front matter's sources field" if line in fields else "the Sources line"
        out.append(
            finding(
                "citation.unquoted",
                page.path,
                line,
                f"{what} cites {shown} without a quote: that proves the sources "
                f"exist, not what the page says ({page.bare} statements rest on it)",
                hint='cite each claim: "…claim.[^1]" and [^1]: SOURCE — "QUOTE"',
            )
        )
    return out


def _over_limit(page: ParsedPage, limit: int) -> Finding:
    refs, defs = len(page.refs), len(page.definitions)
    over = page.refs[limit].line if refs > limit else None
    return finding(
        "page.limit",
        page.path,
        over,
        f"{refs} footnote references and {defs} definitions; [limits] citations_per_page "
        f"is {limit}: none of this page's citations were checked",
    )


def _check_source(
    ctx: Context, path: str, line: int, label: str, c: Citation, ref: Ref | None
) -> list[Finding] | _Pending:
    """Findings about the citation's source, or the quote lookup still to do."""
    tree = ctx.tip
    hits, acl = resolve_source(tree, path, c)
    if acl:
        return [
            finding(
                "citation.source_outside_raw",
                path,
                line,
                f"[^{label}]: {acl}",
                hint="cite a file under raw/",
            )
        ]
    if not hits:
        return [
            finding(
                "citation.source_missing",
                path,
                line,
                f"[^{label}]: source {c.source} does not exist",
            )
        ]
    if len(hits) > 1:
        return [
            finding(
                "citation.source_ambiguous",
                path,
                line,
                f"[^{label}]: {c.source} names {len(hits)} files: {', '.join(hits)}",
            )
        ]
    source = hits[0]
    entry = tree.entries[source]
    if entry.is_link or entry.is_submodule:
        kind = "a symlink" if entry.is_link else "a submodule"
        return [
            finding(
                "citation.source_outside_raw",
                path,
                line,
                f"[^{label}]: {source} is {kind}; it may point outside raw/",
                hint="commit the source itself under raw/",
            )
        ]
    digest = quote_hash(c.quote)
    key = ctx.cache.anchor_key(tree.reading(source), c.page, c.offset, digest)
    # a wrong sha is reported only once the quote is known to be in the source: a quote
    # that is not there is quote_not_found whatever its sha (anchoring it cannot help)
    bad_sha = digest if c.sha256 is not None and digest != c.sha256 else None
    return _Pending(path, line, label, c, source, entry.oid, key, ref, bad_sha)


def _page_note(ctx: Context, p: _Pending) -> list[Finding]:
    """citation.page_not_pdf: a page note (``p.N``, ``pp.N-M``) on a text source, where it
    names no page: pages exist only in PDF sources."""
    c = p.citation
    if c.page is not None:
        note = f"p.{c.page}"
    elif c.pages is not None:
        note = f"pp.{c.pages[0]}-{c.pages[1]}"
    else:
        return []
    if not ctx.tip.is_text_source(p.source):
        return []
    return [
        finding(
            "citation.page_not_pdf",
            p.path,
            p.line,
            f"[^{p.label}]: {p.source} is not a PDF: `{note}` names no page of it (pages "
            "exist only in PDF sources)",
        )
    ]


def resolve_source(tree: WikiTree, page_path: str, c: Citation) -> tuple[list[str], str | None]:
    """The files under raw/ a citation's source names (citation.source_names, the first
    name that finds any), or an ACL problem."""
    names = source_names(c, page_path)
    first_acl = None
    for name in names:
        hits, acl = tree.find_source(name)
        if hits or (acl and c.form != "wikilink"):
            return hits, acl
        first_acl = first_acl or acl
    if c.form == "wikilink" and "\\" not in c.source and ".." not in c.source.split("/"):
        for name in names:  # as Obsidian resolves it: ignoring case
            if hits := tree.find_source_folded(name):
                return hits, None
    return [], first_acl


INDEXES_KEPT = 64  # sources whose line and section index a verification keeps


def _index(ctx: Context, source: str, page: int | None) -> SourceIndex:
    """The line and section index of a source (PDF page); SourceError: none."""
    kept = ctx.source_indexes
    key = (source, page)
    found = kept.get(key)
    if found is None:
        found = kept[key] = SourceIndex(ctx.tip.source_text(source, page))
        while len(kept) > INDEXES_KEPT:
            kept.popitem(last=False)
    kept.move_to_end(key)
    return found


def _notes(c: Citation) -> str:
    """The citation's line and section notes as written canonically."""
    return format_citation(c._replace(quote="", page=None, pages=None), "").lstrip(", ")


def _location(ctx: Context, p: _Pending, span: tuple[int, int] | None) -> Finding | None:
    """Whether the lines and the section a citation's notes name exist in its source and,
    for a quote found at ``span``, hold it."""
    c = p.citation
    if c.lines is None and c.section is None:
        return None
    try:
        index = _index(ctx, p.source, c.page)
    except SourceError as e:
        return finding(
            "citation.source_unreadable", p.path, p.line, f"[^{p.label}]: {p.source} {e}"
        )
    where: list[tuple[int, int]] = []
    if c.lines is not None:
        lines = index.span(*c.lines)
        if lines is None:
            return _location_finding(
                p, f"{_notes(c)}: {p.source} has {index.line_count} lines", "fix the line note"
            )
        where.append(lines)
    if c.section is not None:
        sections = index.sections.get(section_key(c.section))
        if not sections:
            known = ", ".join(repr(t) for t in index.titles[:8]) or "none"
            return _location_finding(
                p,
                f"{p.source} has no section {c.section!r} (its sections: {known})",
                "name the section as its heading reads",
            )
        if c.lines is None:
            where += sections
        elif not any(s <= where[0][0] and where[0][1] <= e for s, e in sections):
            return _location_finding(
                p, f"{_notes(c)}: the lines are not in that section", "fix the location note"
            )
    if span is None or any(s <= span[0] and span[1] <= e for s, e in where):
        return None
    line = index.line_of(span[0])
    return _location_finding(
        p,
        f"the quote is on line {line} of {p.source}, not in {_notes(c)}",
        "fix the location note, or quote (and anchor) the occurrence it names",
    )


def _location_finding(p: _Pending, message: str, hint: str) -> Finding:
    return finding("citation.location", p.path, p.line, f"[^{p.label}]: {message}", hint=hint)


def _unquoted(ctx: Context, p: _Pending) -> list[Finding]:
    """A reference without a quote: its source exists (and so do the lines and section it
    names), which is all it proves."""
    c = p.citation
    wrong = _location(ctx, p, None)
    if wrong is not None:
        return [wrong]
    shown = _notes(c)
    named = f"{p.source}, {shown}" if shown else p.source
    proves = "those lines exist" if c.lines else "the source exists"
    canonical = format_citation(c._replace(quote="QUOTE"), p.source)  # as one types it
    return [
        finding(
            "citation.unquoted",
            p.path,
            p.line,
            f"[^{p.label}]: cites {named} without a quote: that proves {proves}, "
            "not what the claim says",
            hint=f"quote the passage that supports the claim: [^{p.label}]: {canonical}",
        )
    ]


def _hash_mismatch(p: _Pending, offset: int) -> Finding:
    """The quote is in the source (at ``offset``) but the footnote's sha is not its."""
    c = p.citation
    assert p.digest is not None and c.sha256 is not None
    return finding(
        "citation.hash_mismatch",
        p.path,
        p.line,
        f"[^{p.label}]: sha256 of the quote is {p.digest[:12]}…, "
        f"the footnote records {c.sha256[:12]}…",
        hint=f"use {{@{offset} sha256:{p.digest}}} (or run `wikigate anchor --fix`)",
    ).model_copy(update={"suggested_tail": format_citation(c, _written(c, p.source), offset)})


def _check_quotes(ctx: Context, pending: list[_Pending], verified: VerifiedQuotes) -> list[Finding]:
    """Look the pending quotes up: in the cache of verified anchors, else in their
    sources, each source read once."""
    known, pages = _known_anchors(ctx, pending)
    out: list[Finding] = []
    groups: dict[tuple[str, int | None], list[_Pending]] = {}
    for p in pending:
        if p.key in known and p.digest is not None:
            out.append(on_claim(_hash_mismatch(p, p.citation.offset or 0), p.ref))
        elif p.key in known:
            verified[(p.path, p.label)] = _verified(p, p.citation.offset or 0)
        else:
            groups.setdefault((p.source, p.citation.page), []).append(p)
    for p in pending:
        if p.key in known:
            ctx.count(p.path, anchors=1)
    wanted = [
        (source, page, [(p.citation.offset, p.citation.quote) for p in group])
        for (source, page), group in groups.items()
    ]
    results = ctx.tip.locate(wanted, ctx.config.limits.quote_scans)
    ends: dict[tuple[str, str], int] = {}  # where an ellipsis quote's last piece ends
    unfound: list[tuple[_Pending, Finding]] = []  # quotes not found
    for group, (error, located) in zip(groups.values(), results, strict=True):
        if error is not None:
            ctx.unsettled.update(p.path for p in group)
            out += [
                on_claim(
                    finding(
                        "citation.source_unreadable",
                        p.path,
                        p.line,
                        f"[^{p.label}]: {p.source} {error}",
                    ),
                    p.ref,
                )
                for p in group
            ]
            continue
        for p, at in zip(group, located, strict=True):
            where: Located | _Pieces | None = at
            if at is not None and at.offset < 0 and at.offset != UNSEARCHED:
                where = _pieces(ctx, p, at)
            found = _quote_finding(ctx, p, where, verified)
            if found is not None and found.code == "citation.quote_not_found":
                unfound.append((p, found))  # the writer's, or stale: decided below
            elif found is not None:
                out.append(on_claim(found, p.ref))
            if isinstance(where, _Pieces):
                ends[(p.path, p.label)] = where.end
    out += [on_claim(f, p.ref) for p, f in _stale_or(ctx, unfound)]
    for p in sorted(pending, key=_by_source):  # the notes of the quotes found, cached or not
        vq = verified.get((p.path, p.label))
        if vq is None or (p.citation.lines is None and p.citation.section is None):
            continue
        end = ends.get((p.path, p.label), vq.offset + len(vq.quote))
        wrong = _location(ctx, p, (vq.offset, end))
        if wrong is not None:
            out.append(on_claim(wrong, p.ref))
    good = known | ctx.new_anchors
    ctx.new_anchors.update(key for key, keys in pages if all(k in good for k in keys))
    return out


def _written(c: Citation, source: str) -> str:
    """The source as a canonical footnote writes it: as written, but for a wikilink or a
    link, which it writes as the path they resolve to."""
    return source if c.form in ("wikilink", "link") else c.source


def _by_source(p: _Pending) -> tuple[str, int]:
    return p.source, p.citation.page or 0


def _known_anchors(
    ctx: Context, pending: list[_Pending]
) -> tuple[set[str], list[tuple[str, list[str]]]]:
    """The anchored quotes' keys that verified before: a page's at once (one row says all
    of its anchors verified), the rest one by one; and the pages with no such row yet
    (their row's key, their anchors' keys)."""
    by_page: dict[str, list[str]] = {}
    for p in pending:
        if p.citation.anchored:
            by_page.setdefault(p.path, []).append(p.key)
    page_keys = {path: ctx.cache.page_anchors_key(keys) for path, keys in by_page.items()}
    whole = ctx.cache.verified_anchors(list(page_keys.values()))
    known = {k for path, keys in by_page.items() if page_keys[path] in whole for k in keys}
    rest = [k for path, keys in by_page.items() if page_keys[path] not in whole for k in keys]
    known |= ctx.cache.verified_anchors(rest)
    pages = [
        (page_keys[path], keys) for path, keys in by_page.items() if page_keys[path] not in whole
    ]
    return known, pages


class _Pieces(NamedTuple):
    """Where an ellipsis quote's pieces are (a Located's fields first), or why not."""

    offset: int
    line: int
    near: NearMiss | None
    end: int
    missing: str | None = None  # why the pieces were not found


def _pieces(ctx: Context, p: _Pending, where: Located) -> Located | _Pieces:
    """An ellipsis-joined quote found nowhere whole: where its pieces are, in order,
    within ELLIPSIS_SPAN characters; None-like (the anchor holds) when they start there."""
    pieces = p.citation.pieces
    if not pieces:
        return where
    if len(pieces) > MAX_PIECES:
        why = (
            f"it has {len(pieces)} pieces joined by an ellipsis; at most {MAX_PIECES} are searched"
        )
        return _Pieces(where.offset, 0, where.near, 0, why)
    short = min(pieces, key=len)
    if len(short) < MIN_PIECE_CHARS:
        why = (
            f"its piece {short!r} is too short to search for (an ellipsis quote's pieces are "
            f"at least {MIN_PIECE_CHARS} characters)"
        )
        return _Pieces(where.offset, 0, where.near, 0, why)
    try:
        text = ctx.tip.source_text(p.source, p.citation.page)
    except SourceError:
        return where  # the source was read a moment ago: nothing new to say
    found = find_pieces(text, pieces)
    if found is None:
        why = (
            f"nor do its {len(pieces)} pieces joined by an ellipsis occur in order within "
            f"{ELLIPSIS_SPAN} characters"
        )
        return _Pieces(where.offset, 0, where.near, 0, why)
    start, end = found
    return _Pieces(start, text.count("\n", 0, start) + 1, None, end)


def _quote_finding(
    ctx: Context, p: _Pending, where: Located | _Pieces | None, verified: VerifiedQuotes
) -> Finding | None:
    c, label, source = p.citation, p.label, p.source
    if isinstance(where, _Pieces) and where.offset >= 0 and where.offset == c.offset:
        if p.digest is not None:  # the pieces start at the anchor: it holds (not cached)
            return _hash_mismatch(p, where.offset)
        ctx.count(p.path, anchors=1)
        verified[(p.path, label)] = _verified(p, where.offset)
        return None
    if where is None:  # the quote sits at its anchor
        ctx.count(p.path, anchors=1)
        ctx.new_anchors.add(p.key)
        if p.digest is not None:
            return _hash_mismatch(p, c.offset or 0)
        verified[(p.path, label)] = _verified(p, c.offset or 0)
        return None
    ctx.unsettled.add(p.path)  # where else it is, and whether it was searched, depends on
    found, line, near = where.offset, where.line, where.near  # the source's scans (shared)
    view = isinstance(where, Located) and where.view  # found only as a reader sees the source
    if found == UNSEARCHED:
        return _unsearched(ctx, p)
    if found < 0:
        return _not_found(p, near, where.missing if isinstance(where, _Pieces) else None)
    if p.digest is not None:
        return _hash_mismatch(p, found)
    if view and found == c.offset:  # at its anchor, as a reader sees the source
        ctx.count(p.path, anchors=1)
        verified[(p.path, label)] = _verified(p, found)
        return finding(
            "citation.text_view",
            p.path,
            p.line,
            f"[^{label}]: the quote matches {source} as a reader sees it (markup removed), "
            f"at offset {found}, line {line}; not its raw text",
        )
    code = "citation.anchor_missing" if c.offset is None else "citation.anchor_mismatch"
    verified[(p.path, label)] = _verified(p, found, code)
    tail = {"suggested_tail": format_citation(c, _written(c, source), found)}
    seen = " as a reader sees it (markup removed)" if view else ""
    if c.offset is None:
        return finding(
            "citation.anchor_missing",
            p.path,
            p.line,
            f"[^{label}]: the quote is in {source}{seen} (offset {found}, line {line}) "
            "but has no anchor",
            hint=f"append {{@{found} sha256:{quote_hash(c.quote)}}} (or run `wikigate anchor --fix`)",
        ).model_copy(update=tail)
    return finding(
        "citation.anchor_mismatch",
        p.path,
        p.line,
        f"[^{label}]: the text at offset {c.offset} of {source} is not the quote; "
        f"the quote is{seen} at offset {found}, line {line}",
        hint=f"use {{@{found} sha256:{quote_hash(c.quote)}}} (or run `wikigate anchor --fix`)",
    ).model_copy(update=tail)


def _verified(p: _Pending, offset: int, code: str | None = None) -> VerifiedQuote:
    c = p.citation
    return VerifiedQuote(c.quote, p.source, c.page, offset, p.blob, code)


FIX = "then run `wikigate anchor --fix` to anchor it"
VERBATIM = "quote the source verbatim; paraphrases and invented quotes are rejected"
NEAR_MISS_HINTS = {
    "Unicode normalization (NFC)": "the source and the quote encode accents differently",
    "Unicode normalization (NFKC)": "the source and the quote write compatibility characters "
    "(ligatures, no-break spaces, superscripts, full-width forms) differently",
    "folding CRLF line ends to LF": "the source ends its lines with \\r\\n; "
    "write \\r\\n in the quote",
    "ignoring case": "the letter case differs",
    "collapsing whitespace": "the spaces or line breaks differ (write \\n for a line break)",
    TYPOGRAPHIC: "the quotes, apostrophes or dashes differ (’ “ ” – — or ' \" -)",
    CASE_AND_SPACE: "the letter case and the spaces or line breaks differ",
    ELLIPSIS: "the quote's pieces are in the source in order, but not as an ellipsis quote "
    f"verifies (at most {MAX_PIECES} pieces of {MIN_PIECE_CHARS} characters or more, within "
    f"{ELLIPSIS_SPAN:,} characters): quote one unbroken span per footnote",
    MARKUP: "the source is plain text, so a reader sees its markup: quote it with its "
    "markup, verbatim",
}


def _not_found(p: _Pending, near: NearMiss | None, pieces: str | None = None) -> Finding:
    c = p.citation
    message = (
        f"[^{p.label}]: the quote does not occur in {p.source}"
        + (f" p.{c.page}" if c.page else "")
        + f": {_clip(c.quote)!r}"
        + (f"; {pieces}" if pieces else "")
    )
    hint = VERBATIM
    if near is not None:
        how = near.fold if near.fold == ELLIPSIS else f"after {near.fold}"
        message += f"; it matches {how} at offset {near.offset}, line {near.line}"
        if near.fold == ELLIPSIS:
            hint = f"{NEAR_MISS_HINTS[ELLIPSIS]}, {FIX}"
        else:
            hint = f"{_near_hint(near.fold)}: copy the quote from the source, verbatim; {FIX}"
    found = finding("citation.quote_not_found", p.path, p.line, message, hint=hint)
    if near is None or near.exact is None:
        return found
    # the fold maps a character to one: the source's span is the quote, verbatim
    tail = format_citation(c._replace(quote=near.exact), _written(c, p.source), near.offset)
    hint = (
        f"the source has {typographic_differences(near.exact, c.quote)}: the quote must be "
        f"verbatim; use [^{p.label}]: {tail}"
    )
    return found.model_copy(update={"hint": hint, "suggested_tail": tail})


STALE_FIX = (
    "update the claim to what the source now says, quoting it (`wikigate anchor {source} "
    '"QUOTE"` prints the footnote to add; a run may update or remove a claim stale on main), '
    "or keep it unchanged in a `::: disputed` block as history beside the update"
)


def _stale_or(
    ctx: Context, unfound: list[tuple[_Pending, Finding]]
) -> list[tuple[_Pending, Finding]]:
    """Quotes not found: the writer's error, unless the claim is stale (``staleness``): a
    source changed under it since the commit that gave the claim its text. In a run, only a
    claim unchanged from the base (its sentences and its footnote, byte for byte, citing the
    same source blob: a run cannot change raw/) is judged so, from the base's history; a
    new or changed claim is checked in full. In lint mode (no base: ``verify --all``) the
    tip's history judges it. A stale claim is citation.stale (a note), and nothing kept as
    history in a ``::: disputed`` block beside its dated update (``kept_as_history``: not
    held to the changed source). A claim that never verified stays the writer's error, said
    so, naming the commit that wrote it (fail-closed for a run touching it). Each page's
    history is walked once."""
    tree, commit = (ctx.tip, ctx.tip_commit) if ctx.base is None else (ctx.base, ctx.base_commit)
    judged: dict[str, list[tuple[_Pending, Finding]]] = {}
    out: list[tuple[_Pending, Finding]] = []
    for p, found in unfound:
        if ctx.base is None or unchanged_since_base(ctx, p.path, p.label, p.citation, p.blob):
            judged.setdefault(p.path, []).append((p, found))
        else:
            out.append((p, found))
    for path, theirs in judged.items():
        cited = [(p.label, p.citation) for p, _ in theirs]
        said = (
            staleness(ctx.repo, commit, tree, path, cited, ctx.config.limits)
            if commit is not None
            else {}
        )
        kept: set[tuple[str, int]] | None = None  # read only for a page with a stale claim
        for p, found in theirs:
            one = said.get(p.label, Staleness(None, False))
            if not one.stale and (
                ctx.base is None or one.since is None or one.since != ctx.tip_commit
            ):  # on main (verify --all: also a claim its tip wrote), not this change's
                message = f"{found.message}; {one.why_not(p.source)}"
                out.append((p, found.model_copy(update={"message": message})))
            elif not one.stale:
                out.append((p, found))  # written by the change at hand: the plain finding
            else:
                page = ctx.tip.page(p.path)
                if kept is None:
                    kept = kept_as_history(ctx.tip, page) if page is not None else set()
                stale = _stale(ctx, p, one, page, kept)
                if stale is not None:
                    out.append((p, stale))
    return out


def _stale(
    ctx: Context, p: _Pending, said: Staleness, page: ParsedPage | None, kept: set[tuple[str, int]]
) -> Finding | None:
    """A stale claim's note; None where each of its references is kept as history
    (``kept_as_history``: in a ``::: disputed`` block beside its dated update)."""
    refs = [r for r in page.refs if r.label == p.label] if page is not None else []
    if refs and all((p.label, n) in kept for n in range(1, len(refs) + 1)):
        return None
    assert said.since is not None
    whose = (
        "the claim is unchanged from the base: not this run's doing"
        if ctx.base is not None
        else f"the claim's text is as commit {said.since[:12]} wrote it"
    )
    message = (
        f"[^{p.label}]: the claim is stale: its source {p.source} changed since the claim "
        f"was written, and the quote {_clip(p.citation.quote)!r} is no longer in it "
        f"({whose})"
    )
    hint = STALE_FIX.format(source=p.source)
    if any(r.block for r in refs):  # wrapped in a block, but no update beside it
        message += (
            f"; its `::: disputed` block holds no dated update citing {p.source} after it, "
            "so it is not kept as history"
        )
        hint = DISPUTED_FIX.format(source=p.source)
    return finding("citation.stale", p.path, p.line, message, hint=hint)


DISPUTED_FIX = (
    "add the update after it in its `::: disputed` block: `**Updated YYYY-MM-DD per "
    "{source}:** …` and what {source} now says, quoting it (`wikigate anchor {source} "
    '"QUOTE"` prints the footnote to add); or update or remove the claim'
)


def kept_as_history(tree: WikiTree, page: ParsedPage) -> set[tuple[str, int]]:
    """The references of ``page`` (label, its Nth use on the page) at which a stale claim is
    kept as history (docs/ledger.md, "When a source changes"): in a ``::: disputed`` block
    that holds, after it, a dated update (``**Updated YYYY-MM-DD per raw/…:** …``,
    ``claims.is_update``) in another sentence citing the same source (the file it resolves
    to in ``tree``). A block with no update, or with updates citing other sources only,
    keeps nothing: its stale claim stays stale (trial 41: a block alone hid it, and the
    page read fresh). The one rule of the gate, ``verify --all``, the ledger's states and
    ``health`` (wikigate/health.py). Linear in the page's references; a source resolved
    once per label."""
    defs = parsed_definitions(page)
    resolved: dict[str, tuple[str, ...]] = {}

    def source(label: str) -> tuple[str, ...]:
        if label not in resolved:
            c = defs.get(label, (0, ""))[1]
            hits, acl = resolve_source(tree, page.path, c) if isinstance(c, Citation) else ([], "")
            resolved[label] = tuple(hits) if hits and not acl else ()
        return resolved[label]

    # each block's updates: (the index of its reference, its sentence, its source)
    updates: dict[int, list[tuple[int, tuple[int, str], tuple[str, ...]]]] = {}
    for n, r in enumerate(page.refs):
        if r.block and is_update(" ".join((r.row or r.claim).split())):
            cited = source(r.label)
            if cited:
                updates.setdefault(r.block, []).append((n, (r.start_line, r.claim), cited))
    out: set[tuple[str, int]] = set()
    uses: dict[str, int] = {}
    for n, r in enumerate(page.refs):
        uses[r.label] = uses.get(r.label, 0) + 1
        theirs = updates.get(r.block) if r.block else None
        if not theirs:
            continue
        mine = source(r.label)
        if any(
            at > n
            and said != (r.start_line, r.claim)
            and cited == mine
            and _about(said[1], r.row or r.claim)
            for at, said, cited in theirs
        ):
            out.add((r.label, uses[r.label]))
    return out


def _about(update: str, claim: str) -> bool:
    """The update speaks of the claim's subject: at least half of the claim's words (of
    four letters or more, by their first four) are in it (trial 41b: an update about the
    lighthouse kept a stale claim about the ferry as history)."""
    said = _stems(claim)
    return bool(said) and len(said & _stems(update)) * 2 >= len(said)


def _stems(text: str) -> set[str]:
    return {w[:4] for w in _WORDS4.findall(text.lower()) if w not in _COMMON}


_WORDS4 = re.compile(r"[^\W\d_]{4,}")
_COMMON = frozenset(
    re.findall(
        r"\w+",
        "that this with from have were been their which there they them than when what into "
        "also only once later after before about over under some such does updated",
    )
)


class Staleness(NamedTuple):
    """Of one claim whose quote fails: the commit that gave it its present text (None:
    too far back, or no history), and whether it is stale."""

    since: str | None
    stale: bool
    changed: bool = False  # the source's blob changed since

    def why_not(self, source: str) -> str:
        """Why a claim that is not stale is the writer's: as a message's tail."""
        if self.since is None:
            return (
                "the claim is not known to have verified (its history is too long or "
                "shallow to tell when it was written)"
            )
        then = (
            f"its quote was not in {source} then either"
            if self.changed
            else f"{source} has not changed since"
        )
        return f"the claim never verified: its text is as commit {self.since[:12]} wrote it, and {then}"


def staleness(
    repo: pygit2.Repository,
    commit_id: str,
    tree: WikiTree,
    path: str,
    cited: list[tuple[str, Citation]],
    limits: LimitsSection | None = None,
) -> dict[str, Staleness]:
    """For each (label, citation) of the page ``path`` at ``commit_id`` (whose tree is
    ``tree``), a claim whose quote fails there: whether it is stale. The one rule the gate,
    ``wikigate verify --all`` and the ledger's states (wikigate/health.py) decide it by,
    from git alone (commits and trees, never a writer's trailers or notes): stale when
    the source the claim cites at the commit that gave it its present text
    (verifier/stale.py: ``claims_since``) is another blob than now, and its quote was in
    that blob: a source changed under a claim that held. Otherwise the claim never
    verified (nothing changed since, or its quote was not in its source then either, or
    the history is too long to say): the writer's error. Each commit a claim's text began
    at is read once, its sources once."""
    out = {label: Staleness(None, False) for label, _ in cited}
    try:
        commit = repo[commit_id]
    except (KeyError, ValueError):
        return out
    if not isinstance(commit, pygit2.Commit):
        return out
    try:
        since = claims_since(repo, commit, path, [label for label, _ in cited])
    except (KeyError, pygit2.GitError):  # a shallow history: not known, not stale
        return out
    by_since: dict[pygit2.Oid, list[tuple[str, Citation]]] = {}
    for label, c in cited:
        then = since.get(label)
        if then is None:
            continue
        out[label] = Staleness(str(then.id), False)
        if then.id == commit.id:
            continue  # written here: nothing changed since
        hits, acl = resolve_source(tree, path, c)
        if acl or len(hits) != 1:
            continue
        by_since.setdefault(then.id, []).append((label, c))
    for oid, theirs in by_since.items():
        then_commit = repo[oid]
        assert isinstance(then_commit, pygit2.Commit)
        old = WikiTree(repo, then_commit.tree_id, tree.cache, tree.workers, limits, tree.layout)
        changed: list[tuple[str, Citation]] = []
        for label, c in theirs:
            now, _ = resolve_source(tree, path, c)
            was, acl = resolve_source(old, path, c)
            if acl or len(was) != 1 or old.entries[was[0]].oid == tree.entries[now[0]].oid:
                continue  # the same source blob: the quote failed when it was written too
            changed.append((label, c))
        found = quotes_found(old, path, [c for _, c in changed]) if changed else []
        for (label, _), held in zip(changed, found, strict=True):
            out[label] = Staleness(str(oid), held, changed=True)
    return out


def unchanged_since_base(ctx: Context, path: str, label: str, c: Citation, blob: str) -> bool:
    """Whether the footnote ``label`` of ``path`` and every sentence citing it are on the
    base's page as they are on the tip's, citing the same source blob ``blob``."""
    base = ctx.base
    if base is None or path not in base.entries or path not in ctx.tip.entries:
        return False
    hits, acl = resolve_source(base, path, c)
    if acl or len(hits) != 1 or base.entries[hits[0]].oid != blob:
        return False
    before, after = base.page(path), ctx.tip.page(path)
    if before is None or after is None:
        return False
    now = _cited(after).get(label)
    return now is not None and now[1] == c and _cited(before).get(label) == now


def quotes_failing(tree: WikiTree, page_path: str, cited: list[Citation]) -> list[bool]:
    """For each citation of ``page_path``: whether its quote is, for certain, nowhere in its
    source in ``tree``: not verbatim, not in its text view, not as an ellipsis quote's
    pieces (a source that cannot be read, or a search cut short, is no certain failure)."""
    return [held is False for held in _quotes_held(tree, page_path, cited)]


def quotes_found(tree: WikiTree, page_path: str, cited: list[Citation]) -> list[bool]:
    """For each citation of ``page_path``: whether its quote is, for certain, in its
    source in ``tree`` (at its anchor or elsewhere, verbatim, in its text view or as an
    ellipsis quote's pieces)."""
    return [held is True for held in _quotes_held(tree, page_path, cited)]


def _quotes_held(tree: WikiTree, page_path: str, cited: list[Citation]) -> list[bool | None]:
    """For each citation of ``page_path``: whether its quote is in its source in ``tree``
    (None: not known: no single readable source, or a search cut short). Each source is
    read once, whatever the number of citations; none for a citation whose anchor verified
    before (the verification cache's anchors: an edit of a claim around its footnote reads
    no source)."""
    out: list[bool | None] = [None] * len(cited)
    groups: dict[tuple[str, int | None], list[int]] = {}
    keys: dict[int, str] = {}
    for n, c in enumerate(cited):
        hits, acl = resolve_source(tree, page_path, c)
        if acl or len(hits) != 1:
            continue
        entry = tree.entries[hits[0]]
        if not (entry.is_link or entry.is_submodule):
            groups.setdefault((hits[0], c.page), []).append(n)
            if c.anchored:
                reading = tree.reading(hits[0])
                keys[n] = tree.cache.anchor_key(reading, c.page, c.offset, quote_hash(c.quote))
    verified = tree.cache.verified_anchors(list(keys.values())) if keys else set()
    if verified:
        for n, key in keys.items():
            if key in verified:
                out[n] = True
        groups = {
            where: kept
            for where, ns in groups.items()
            if (kept := [n for n in ns if keys.get(n) not in verified])
        }
    wanted = [
        (src, pg, [(cited[n].offset, cited[n].quote) for n in ns])
        for (src, pg), ns in groups.items()
    ]
    found = tree.locate(wanted) if wanted else []
    for ((src, pg), ns), (error, located) in zip(groups.items(), found, strict=True):
        if error is not None:
            continue
        for n, at in zip(ns, located, strict=True):
            if at is None or at.offset >= 0:
                out[n] = True
                continue
            if at.offset == UNSEARCHED:
                continue
            pieces = cited[n].pieces
            if not pieces:
                out[n] = False
                continue
            try:
                text = tree.source_text(src, pg)
            except SourceError:
                continue
            out[n] = find_pieces(text, pieces) is not None
    return out


_Cited = tuple[str, Citation | None, list[str]]
_CITED: dict[int, tuple[ParsedPage, dict[str, _Cited]]] = {}  # the last pages read


def _cited(page: ParsedPage) -> dict[str, _Cited]:
    """Each footnote label of ``page``: its first definition's text, parsed, and the
    sentences citing it, in order (one pass over the page, kept for its next label)."""
    kept = _CITED.get(id(page))
    if kept is not None and kept[0] is page:
        return kept[1]
    out: dict[str, _Cited] = {}
    for d in page.definitions:
        out.setdefault(d.label, (d.tail, d.citation, []))
    for r in page.refs:
        if r.label in out:
            out[r.label][2].append(" ".join((r.row or r.claim).split()))
    if len(_CITED) >= 4:
        _CITED.clear()
    _CITED[id(page)] = (page, out)
    return out


def _near_hint(fold: str) -> str:
    """What a fold (or markup removal, then a fold) says about the quote."""
    if fold.startswith(MARKUP + " and "):
        rest = fold.removeprefix(MARKUP + " and ")
        return f"the source's markup is not in the quote, and {NEAR_MISS_HINTS[rest]}"
    return NEAR_MISS_HINTS[fold]


def _unsearched(ctx: Context, p: _Pending) -> Finding:
    """A quote that misses its anchor, past the source's scans: what is known, and only
    that (it may be elsewhere in the source; nobody looked)."""
    c = p.citation
    scans = ctx.config.limits.quote_scans
    why = (
        f"where else it is was not searched: the quotes before it used the {scans} scans "
        f"of {p.source} a verification makes ([limits] quote_scans); fix those first"
    )
    if c.offset is None:
        return finding("citation.anchor_missing", p.path, p.line, f"[^{p.label}]: no anchor; {why}")
    return finding(
        "citation.anchor_mismatch",
        p.path,
        p.line,
        f"[^{p.label}]: the text at offset {c.offset} of {p.source} is not the quote; {why}",
    )


def _clip(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
