"""Per-page checks: front matter, title, citations present, links, reachability."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple
from urllib.parse import unquote

from wikigate.codes import finding
from wikigate.models import Finding
from wikigate.text import Invisible, invisible_chars, shown

from ..links import FileNames, link_key
from ..markdown import INVISIBLE_KEPT, STATEMENTS_KEPT, Link, ParsedPage, slugify
from ..wiki import WikiTree
from .citations import cited_links, linked_sources, sourced_lines
from .context import Context

# a `[frontmatter.required]` type → the YAML types that satisfy it (markdown.yaml_type)
TYPES: dict[str, frozenset[str] | None] = {
    "str": frozenset({"str"}),
    "int": frozenset({"int"}),
    "float": frozenset({"float", "int"}),
    "bool": frozenset({"bool"}),
    "list": frozenset({"list"}),
    "date": frozenset({"date", "datetime", "str"}),
    "any": None,
}


def check_pages(ctx: Context) -> list[Finding]:
    out: list[Finding] = []
    required = ctx.config.frontmatter.required
    exempt = ctx.exempt()
    structural = ctx.tip.layout.structural  # the index and the log: [wiki] root's
    tip = ctx.tip
    names = FileNames(tip.pages, tip.raw, tip.entries, tip.layout)  # built when first asked
    for path in ctx.pages_in_scope():
        if path in exempt:
            continue
        page = ctx.tip.page(path)
        if page is None:
            continue  # unreadable: reported by the citations check
        if page.frontmatter_error:
            out.append(finding("page.frontmatter", path, 1, page.frontmatter_error))
        fields = page.fields or {}
        for name, kind in required.items():
            if path in structural:
                break
            accepted = TYPES[kind]
            if name not in fields:
                out.append(
                    finding(
                        "page.frontmatter",
                        path,
                        1,
                        f"front matter lacks the required field {name!r} ({kind})",
                        hint=f"add `{name}:` to the front matter",
                    )
                )
            elif accepted is not None and fields[name] not in accepted:
                out.append(
                    finding(
                        "page.frontmatter",
                        path,
                        1,
                        f"front matter field {name!r} should be {kind}, not {fields[name]}",
                    )
                )
        if not page.title:
            out.append(finding("page.no_title", path, 1, "the page has no title"))
        ctx.metrics.gaps += len(page.gaps)
        linked = prose_sources(tip, page, names)
        # a page with no statement (headings and links: a home page, a map of content)
        # asserts nothing to cite; a link's text that asserts is a statement
        uncited = not page.refs and not linked and page.bare > 0
        # a page that cites by a Sources line (no footnote): citation.unquoted says what that
        # proves, and its statements rest on it, counted there (links in its prose or not)
        sourced = not page.refs and bool(page.source_lines) and bool(sourced_lines(tip, page))
        by_line = uncited and sourced
        if path not in structural:
            out += _linked(page, linked)
        if path not in structural and not uncited and not sourced:
            out += unsupported(page, ctx.config.statements.granularity, linked)
        if path not in structural and uncited and not by_line:
            out.append(
                finding(
                    "page.uncited",
                    path,
                    None,
                    "the page cites no source; every claim needs a citation"
                    + (
                        f" ({page.bare} statements carry neither a citation nor a gap marker)"
                        if page.gaps
                        else ""
                    ),
                )
            )
        out += _gaps(ctx, page)
    return out


LINES_SHOWN = 20  # findings per page; the last one counts the lines past it


class Accounting(NamedTuple):
    statements: int  # the sentences that assert something, as the pages check counts them
    accounted: int  # of them, cited or gap-marked
    gaps: int  # the page's [gap: …] markers


def prose_sources(
    tree: WikiTree, page: ParsedPage, names: FileNames | None = None
) -> dict[int, str]:
    """The links in a page's prose that name a source under raw/ (link index → source):
    each cites it, unquoted (``[[issue-7342]]``: citation.unquoted). A Sources line's links
    are its own kind of citation (citation.unquoted per line), not the prose's."""
    names = names or FileNames(tree.pages, tree.raw, tree.entries, tree.layout)
    listed = {line for line, _ in page.source_lines}
    return {
        i: source
        for i, source in linked_sources(tree, page, names, cited_links(page)).items()
        if page.links[i].line not in listed
    }


def accounting(
    page: ParsedPage, *, structural: bool, uncited: bool, linked: dict[int, str] | None = None
) -> Accounting:
    """A page's statements as this check holds them to account (``wikigate health``'s
    coverage): each cited sentence, each sentence carrying a link to a source (``linked``:
    prose_sources; it cites the source, unquoted, and is no page.unsupported_statement)
    and each gap marker is accounted for, each other uncited statement is not. A structural
    page (the index, the log) is spared the rule, so its uncited sentences are no
    statements; a page flagged ``page.uncited`` (``uncited``) counts at least one statement
    not accounted for, even with none to show (a page of links says nothing a source
    backs)."""
    gaps = len(page.gaps)
    accounted = len({(r.start_line, r.claim) for r in page.refs}) + gaps
    if structural:
        return Accounting(accounted, accounted, gaps)
    by_link = sum(bool(_links(s.links, linked)) for s in page.statements) if linked else 0
    accounted += by_link
    bare = max(len(page.statements) - by_link, int(uncited))
    return Accounting(accounted + bare, accounted, gaps)


def _links(span: tuple[int, int], linked: dict[int, str]) -> list[str]:
    """The sources the links ``span`` of a page's links (from, to) name, in order, once."""
    return list(dict.fromkeys(linked[i] for i in range(*span) if i in linked))


def _linked(page: ParsedPage, linked: dict[int, str]) -> list[Finding]:
    """citation.unquoted: each statement carrying a link to a source, which cites it
    without a quote (the first LINES_SHOWN, then one that counts the rest)."""
    if not linked:
        return []
    lines, claims = [], []
    for s in page.statements:
        sources = _links(s.links, linked)
        if sources:
            claims.append(s.text)
            more = f" and {len(sources) - 3} more" if len(sources) > 3 else ""
            lines.append(
                (
                    s.line,
                    f"{_quoted(s.text)} links {', '.join(sources[:3])}{more} without a quote: "
                    "that proves the source exists, not what the sentence says",
                )
            )
    out = capped(
        "citation.unquoted",
        page.path,
        lines,
        lambda n, line: f"{n} more statements link a source without a quote, from line {line}",
    )
    hint = 'quote the passage that supports it: "…claim.[^1]" and [^1]: SOURCE — "QUOTE"'
    return [  # each the claim it is about (a review comment's), but the one counting the rest
        f.model_copy(update={"hint": hint, "claim": claims[i] if i < LINES_SHOWN else None})
        for i, f in enumerate(out)
    ]


def unsupported(
    page: ParsedPage, granularity: str, linked: dict[int, str] | None = None
) -> list[Finding]:
    """page.unsupported_statement: the statements of a page that cites (or marks gaps) that
    carry neither, at ``[statements] granularity``: every one (``sentence``), those in a
    block holding neither (``paragraph``), none (``page``: page.uncited alone). A statement
    carrying a link to a source (``linked``: link index → source) cites it, unquoted; under
    ``paragraph``, so does every statement of its block."""
    if granularity == "page":
        return []
    linked = linked or {}
    found = [
        s
        for s in page.statements
        if not _links(s.links, linked)
        and (granularity == "sentence" or not (s.covered or _links(s.block, linked)))
    ]
    counted = "at least " if len(page.statements) >= STATEMENTS_KEPT else ""
    return capped(
        "page.unsupported_statement",
        page.path,
        [
            (
                s.line,
                f"{_quoted(s.text)} carries neither a citation nor a [gap: …] marker "
                f"([statements] granularity = {granularity!r})",
            )
            for s in found
        ],
        lambda n, line: (
            f"{counted}{n} more statements carry neither a citation nor a "
            f"[gap: …] marker, from line {line}"
        ),
    )


def capped(
    code: str, path: str, lines: list[tuple[int, str]], more: Callable[[int, int], str]
) -> list[Finding]:
    """One finding per (line, message) for the first LINES_SHOWN, then one that counts the
    rest (``more(how many, first line)``): a page holding a million costs a page of output."""
    out = [finding(code, path, line, message) for line, message in lines[:LINES_SHOWN]]
    if len(lines) > LINES_SHOWN:
        rest = lines[LINES_SHOWN:]
        out.append(finding(code, path, rest[0][0], more(len(rest), rest[0][0])))
    return out


def _quoted(text: str) -> str:
    return f'"{text[:120]}…"' if len(text) > 120 else f'"{text}"'


def check_invisible(ctx: Context) -> list[Finding]:
    """Invisible characters (Unicode format controls: zero-width, bidi overrides, tags) in
    a changed page's text or path: a reviewer and the verifier would read different
    things (page.invisible_chars, one finding per line they are on)."""
    out: list[Finding] = []
    paths = ctx.pages_in_scope()
    ctx.tip.load(paths)  # parsed already by the citations check, or in one batch here
    for path in paths:
        out += invisible_in_path(path)
        page = ctx.tip.page(path)
        if page is None or not page.invisible:
            continue
        by_line: dict[int, list[Invisible]] = {}
        for found in page.invisible:
            by_line.setdefault(found.line, []).append(found)
        lines = []
        for line, chars in sorted(by_line.items()):
            said = "; ".join(c.describe() for c in chars[:3])
            more = f" and {len(chars) - 3} more on this line" if len(chars) > 3 else ""
            lines.append(
                (line, f"invisible character{'s' if len(chars) > 1 else ''}: {said}{more}")
            )
        counted = "at least " if len(page.invisible) >= INVISIBLE_KEPT else ""
        out += capped(
            "page.invisible_chars",
            path,
            lines,
            lambda n, first: f"invisible characters on {counted}{n} more lines, from line {first}",  # noqa: B023
        )
    return out


def invisible_in_path(path: str) -> list[Finding]:
    """A finding when ``path`` holds format characters (a reviewer sees another name)."""
    chars = invisible_chars(path)
    if not chars:
        return []
    said = ", ".join(f"U+{ord(c.char):04X} at position {c.column}" for c in chars[:3])
    return [
        finding(
            "page.invisible_chars",
            path,
            None,
            f"the path {shown(path)!r} holds invisible characters: {said}",
            hint="rename the file without them",
        )
    ]


def _gaps(ctx: Context, page: ParsedPage) -> list[Finding]:
    """``[gap: …]`` markers against ``[gap_policy]``: allowed at all, how many per page."""
    policy = ctx.config.gap_policy
    if not page.gaps:
        return []
    if not policy.allowed:
        return [
            finding(
                "page.gap",
                page.path,
                line,
                f"[gap: {reason[:60]}]: [gap_policy] allows no gap markers",
            )
            for line, reason in page.gaps
        ]
    cap = policy.max_per_page
    if cap is not None and len(page.gaps) > cap:
        line = page.gaps[cap][0]
        return [
            finding(
                "page.gap",
                page.path,
                line,
                f"{len(page.gaps)} gap markers; [gap_policy] allows {cap} per page "
                f"(the first one over is on line {line})",
            )
        ]
    return []


def broken_links(
    tree: WikiTree, path: str, names: FileNames | None = None, base: WikiTree | None = None
) -> list[tuple[int, str, str, str | None]]:
    """The page's links that resolve to nothing (or to a page without their heading), as
    (line, message, code, hint or None: the code's): ``link.broken``, or ``link.ambiguous`` for a link naming several
    sources.  A link naming a source is a source reference (``FileNames.source_link``),
    unless ``base`` resolved it to a page: then the change deleted that page or took the
    name from it (a title, an alias)."""
    page = tree.nav_page(path)
    if page is None:
        return []
    out: list[tuple[int, str, str, str | None]] = []
    for link in page.links:
        target = tree.resolve(path, link)
        shown = (
            f"[[{link.target}{'#' + link.anchor if link.anchor else ''}]]"
            if link.kind == "wiki"
            else f"({link.target}{'#' + link.anchor if link.anchor else ''})"
        )
        if target is None:
            names = names or FileNames(tree.pages, tree.raw, tree.entries, tree.layout)
            if link.kind == "wiki" and names.attachment_named(link.target) is not None:
                continue  # ![[diagram.png]]: an attachment beside the pages
            found = names.source_link(path, link, None)
            if found is not None:
                was = base.resolve(path, link) if base is not None else None
                if was is not None and was not in found.names and tree.layout.is_page(was):
                    how = "is gone" if was not in tree.entries else "no longer answers to it"
                    said = f"{shown} named {was}, which {how}; it names only the source "
                    out.append((link.line, said + ", ".join(found.names[:3]), BROKEN, None))
                elif found.source is None:
                    out.append((link.line, _ambiguous(shown, found.names), AMBIGUOUS, None))
                continue  # a source reference: [[issue-7342]] names raw/…/issue-7342.md
            said = f"{shown} resolves to no page{_instead(path, link, names)}"
            out.append((link.line, said, BROKEN, None))
            continue
        anchor = unquote(link.anchor) if link.anchor and link.kind == "md" else link.anchor
        if anchor and anchor.startswith("^") and target.endswith(".md"):
            tpage = tree.nav_page(target)  # [[Page#^id]]: a block id, as Obsidian has it
            block = anchor[1:].strip().lower()
            if tpage is not None and "^" + block not in tpage.headings:
                said = f"{shown}: {target} has no block ^{block}"
                out.append((link.line, said, BROKEN, _has_instead(target, tpage.headings, "^")))
        elif link.anchor and target.endswith(".md"):
            tpage = tree.nav_page(target)
            if tpage is not None and _slug(link.anchor) not in tpage.headings:
                said = f"{shown}: {target} has no heading #{_slug(link.anchor)}"
                out.append((link.line, said, BROKEN, _has_instead(target, tpage.headings, "#")))
    return out


def _has_instead(target: str, anchors: list[str], kind: str) -> str:
    """A link to a page that exists, to a block (``^``) or heading (``#``) it lacks: the
    hint names a few it has."""
    blocks = kind == "^"
    have = list(dict.fromkeys(a for a in anchors if a.startswith("^") == blocks))
    what = "block" if blocks else "heading"
    if not have:
        add = "add ^ID at the end of the paragraph you mean" if blocks else "add the heading"
        return f"{target} exists and has no {what}s: {add}, or link the page itself"
    shown = ", ".join(a if blocks else "#" + a for a in have[:MAX_LISTED])
    more = f" and {len(have) - MAX_LISTED} more" if len(have) > MAX_LISTED else ""
    return f"{target} exists; link one of its {what}s: {shown}{more}"


MAX_LISTED = 5  # anchors a hint names


BROKEN, AMBIGUOUS = "link.broken", "link.ambiguous"


def _ambiguous(shown: str, names: tuple[str, ...]) -> str:
    more = f" and {len(names) - 3} more" if len(names) > 3 else ""
    return (
        f"{shown} names {len(names)} sources: {', '.join(names[:3])}{more}; "
        "which one it means is a guess"
    )


def _instead(page: str, link: Link, names: FileNames) -> str:
    """Where a link to nothing went, and what it may have meant: for a path link, the
    path it resolves to and a page of that file name elsewhere; else the existing page
    or source of the nearest name."""
    key = link_key(page, link)
    if key is None:
        return ""
    resolved = key.removeprefix("p:") if link.kind == "md" else None
    said = f"{resolved} does not exist" if resolved is not None else ""
    elsewhere = [p for p in names.pages_named(resolved) if p != resolved][:3] if resolved else []
    if elsewhere:
        said += "; a page of that name: " + ", ".join(elsewhere)
    elif (near := names.nearest(resolved or link.target)) is not None and near != resolved:
        said += ("; " if said else "") + f"the nearest {_kind(near)}: {near}"
    return f" ({said})" if said else ""


def _same(message: str) -> str:
    """A finding's message without what other pages and sources suggest (the nearest
    name): what tells a link broken before a change from one it broke."""
    return message.split("; the nearest ", 1)[0]


def _kind(path: str) -> str:
    return "source" if path.startswith("raw/") else "page"


def _slug(anchor: str) -> str:
    return slugify(anchor)  # "Sleep Habits" and "sleep-habits" both name #sleep-habits


def check_links(ctx: Context) -> list[Finding]:
    out: list[Finding] = []
    tip, base = ctx.tip, ctx.base
    graph = tip.link_graph(base)
    base_graph = base.link_graph() if base is not None else None
    scope = set(ctx.pages_in_scope())  # the log's links too, even on an append
    # a run's pages, and those whose links its changes may have broken
    check = tip.pages if base_graph is None else sorted(scope | graph.affected_since(base_graph))
    # built on the first link to no page
    tip_names = FileNames(tip.pages, tip.raw, tip.entries, tip.layout)
    base_names = (
        FileNames(base.pages, base.raw, base.entries, base.layout) if base is not None else None
    )
    for path in check:
        problems = broken_links(tip, path, tip_names, base)
        if base is not None and path not in scope:
            before = (
                {_same(m) for _, m, _, _ in broken_links(base, path, base_names)}
                if path in base.entries
                else set()
            )
            problems = [p for p in problems if _same(p[1]) not in before]
        page = tip.nav_page(path)
        ctx.metrics.links += len(page.links) if page else 0
        for line, message, code, hint in problems:
            out.append(finding(code, path, line, message, hint=hint))
    orphans_now = graph.orphans()
    orphans_before = base_graph.orphans() if base_graph is not None else set()
    for path in sorted(orphans_now):
        if ctx.lint or path in scope or path not in orphans_before:
            out.append(
                finding(
                    "page.orphan",
                    path,
                    None,
                    f"no chain of links from {tip.layout.index} reaches this page",
                    hint=f"link it from {tip.layout.index} or a page linked from there",
                )
            )
    return out
