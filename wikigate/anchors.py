"""``wikigate anchor``: a quote's footnote with a correct anchor, and fixing the anchors of
a page (in a run, on the trunk through one, or in the working tree of a branch)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pygit2

from wikigate.verifier import textview
from wikigate.verifier.checks.citations import resolve_source
from wikigate.verifier.citation import (
    Citation,
    SourceIndex,
    find_pieces,
    format_citation,
    parse_definition,
    section_key,
)
from wikigate.verifier.parallel import Progress
from wikigate.verifier.sources import ELLIPSIS, locate_quotes
from wikigate.verifier.wiki import PageCache, SourceError, WikiTree

from .errors import UsageError, WikigateError
from .finalize import reject
from .gitrepo import branch_name, commit_at
from .text import occurrences

if TYPE_CHECKING:
    from .run import Run
    from .workspace import Workspace, WorkspaceRun


@dataclass(frozen=True)
class Checkout:
    """The checked-out commit of a working tree whose HEAD is not the trunk: a branch,
    or a detached HEAD (a pull request's checkout)."""

    commit: pygit2.Commit
    workdir: Path
    label: str  # "HEAD (branch deck, 0123456789ab)"


def checkout(ws: Workspace) -> Checkout | None:
    """HEAD's commit when a branch other than the trunk (or a detached HEAD) is checked
    out in a working tree; None on the trunk, in a bare repository, or before a commit."""
    repo = ws.repo
    if repo.is_bare or repo.workdir is None or repo.head_is_unborn:
        return None
    if not repo.head_is_detached and repo.references["HEAD"].target == ws.env.main:
        return None
    commit = repo.head.peel(pygit2.Commit)
    short = str(commit.id)[:12]
    what = "detached" if repo.head_is_detached else f"branch {repo.head.shorthand}"
    return Checkout(commit, Path(repo.workdir), f"HEAD ({what}, {short})")


def anchor_tail(
    ws: Workspace,
    source: str,
    quote: str,
    page: int | None = None,
    tree: WikiTree | None = None,
    *,
    run: Run | None = None,
    notes: Citation | None = None,
    at_head: bool = False,
    say: Callable[[str], None] | None = None,
    read_at: str | None = None,
) -> str:
    """The footnote text after ``[^ID]: `` with a correct anchor, if the quote is unique
    (within the lines and section ``notes`` name, whose notes it keeps, canonically).
    An ellipsis-joined quote is anchored where its pieces first occur in order.

    The source is read from ``tree``, else from ``run``'s staged files (``--run``), else
    the trunk, else (``at_head``: a source committed on a branch only) the checked-out
    commit: ``say`` hears which commit was read then.  Errors name ``run`` when given
    (``tree``, if also given, is that run's staged tree); ``read_at`` says where ``tree``
    is, for messages.
    """
    if not quote:
        raise UsageError("the quote is empty")
    hint = " (a source staged in a run: pass --run RUN)" if run is None and not read_at else ""
    where = read_at or (f"in run {run.run_id}" if run is not None else "")
    if tree is None:
        trunk = branch_name(ws.env.main)
        where = f"in run {run.run_id}" if run is not None else f"on {trunk}"
        at = (
            run.staged_tree()
            if run is not None
            else commit_at(ws.repo, ws.repo.references[ws.env.main].target).tree
        )
        tree = _wiki_tree(ws, at)
        missing = run is None and at_head and not _has_source(tree, source)
        head = checkout(ws) if missing else None
        if head is not None and head.commit.tree.id != at.id:
            tree = _wiki_tree(ws, head.commit.tree)
            where = f"on {trunk} or at {head.label}"
            if _has_source(tree, source) and say is not None:
                say(f"read {source} at {head.label}: it is not on {trunk}")
    hits, acl = tree.find_source(source)
    if acl:
        raise WikigateError(acl)
    if not hits:
        where = where or f"on {branch_name(ws.env.main)}"  # a view of the trunk (MCP's)
        raise WikigateError(f"{source}: no such file under raw/ {where}{hint}")
    if len(hits) != 1:
        raise WikigateError(f"{source}: names {len(hits)} files: {', '.join(hits)}")
    if page is not None and tree.is_text_source(hits[0]):
        raise UsageError(
            f"{hits[0]} is not a PDF: pages exist only in PDF sources; anchor the quote "
            "without a page (a line note, `L3`, locates a passage in a text source)"
        )
    try:
        text = tree.source_text(hits[0], page)
    except SourceError as e:
        raise WikigateError(f"{hits[0]} {e}") from e
    c = notes or Citation(source, page, quote, None, None)
    found = _within(text, occurrences(text, quote), c)
    if not found and c.pieces:
        span = find_pieces(text, c.pieces)
        found = [span[0]] if span is not None else []
    kind = textview.dialect(hits[0]) if page is None else None
    seen = ""
    if not found and (view := textview.text_view(text, kind)) is not None:
        found = _within(text, textview.occurrences(view, quote), c)  # raw offsets
        seen = " as a reader sees it (markup removed)"
    if len(found) != 1:
        if not found:
            located = locate_quotes(text, [(None, quote)], None, kind)[0]
            near = located.near if located is not None else None
            where = ""
            if near is not None:
                how = near.fold if near.fold == ELLIPSIS else f"after {near.fold}"
                where = (
                    f"; it matches {how} at offset {near.offset}, line {near.line}: "
                    "copy the quote from the source, verbatim"
                )
            else:
                where = typographic_hint(text, c, source)
            raise WikigateError(f"the quote does not occur in {hits[0]}{where}")
        where = ", ".join(f"offset {o} (line {text.count(chr(10), 0, o) + 1})" for o in found[:10])
        raise WikigateError(
            f"the quote occurs {len(found)} times in {hits[0]}{seen}: {where}; "
            "quote a longer, unique span"
        )
    return format_citation(c, source, found[0])


# the characters a writer types for one the source may hold as its typographic form (or
# the reverse): quotes and apostrophes, dashes (two or three hyphens typed for a dash)
_SINGLE = "'\u2018\u2019\u201a\u201b\u2032"  # ' ‘ ’ ‚ ‛ ′
_DOUBLE = '"\u201c\u201d\u201e\u201f\u2033'  # " “ ” „ ‟ ″
_DASHES = "-\u2010\u2011\u2012\u2013\u2014\u2015\u2212"  # - ‐ ‑ ‒ – — ― −
_TYPOGRAPHIC = str.maketrans(
    {**dict.fromkeys(_SINGLE, "'"), **dict.fromkeys(_DOUBLE, '"'), **dict.fromkeys(_DASHES, "-")}
)
_ANY_VARIANT = re.compile(f"[{re.escape(_SINGLE + _DOUBLE + _DASHES)}]")
_TYPED_DASH = re.compile(r"(?<!-)-{2,3}(?!-)")  # "--", "---": one dash, typed
TYPOGRAPHIC_SHOWN = 10  # places a typographic match lists, at most
TYPOGRAPHIC_FINDS = 100  # matches looked at, at most (each a linear str.find)


def typographic_hint(text: str, c: Citation, source: str) -> str:
    """Why a quote found nowhere is not in the source when it would be with the source's
    own quotes, apostrophes or dashes (’ “ ” – — for ' " - or --, or the reverse): which
    characters differ, the quote as the source has it and the footnote's text quoting it
    so (the verifier compares a quote verbatim: anchor does not take the typed form for
    the source's). "" when it is not there either. The source folded once (the same
    length: each character to one), the quote looked for with ``str.find``: linear."""
    quote = c.quote
    if _ANY_VARIANT.search(quote) is None:
        return ""
    # the quote's longest stretch between such characters must be in the source as typed
    if max(_ANY_VARIANT.split(quote), key=len) not in text:
        return ""
    # the fold costs ~0.1 µs a character of a non-ASCII source (1 s for 10 MB); an ASCII
    # source is its own fold
    folded = text if text.isascii() else text.translate(_TYPOGRAPHIC)
    # each typed piece of the quote, one per character of the source: a dash typed as two
    # or three hyphens stands for one character (tried first), else as typed
    spans = [m.span() for m in _TYPED_DASH.finditer(quote)]
    cuts, at = [], 0
    for a, b in spans:
        cuts += list(quote[at:a]) + [quote[a:b]]
        at = b
    cuts += list(quote[at:])
    found: list[tuple[int, list[str]]] = []
    seen = 0
    for typed in [cuts, list(quote)] if spans else [list(quote)]:
        needle = "".join(t[0] for t in typed).translate(_TYPOGRAPHIC)
        at = folded.find(needle)
        while at >= 0 and len(found) < TYPOGRAPHIC_SHOWN and seen < TYPOGRAPHIC_FINDS:
            seen += 1
            mine = text[at : at + len(needle)]
            if mine != quote and _within(text, [at], c._replace(quote=mine)):
                found.append((at, typed))
            at = folded.find(needle, at + 1)
        if found:
            break
    if not found:
        return ""
    if len(found) > 1:
        places = ", ".join(f"offset {o} (line {text.count(chr(10), 0, o) + 1})" for o, _ in found)
        return (
            f"; it occurs {len(found)} times with the source's own quotes, apostrophes and "
            f"dashes: {places}; quote a longer, unique span, copied from the source verbatim"
        )
    at, typed = found[0]
    mine = text[at : at + len(typed)]
    pairs = dict.fromkeys((s, t) for s, t in zip(mine, typed, strict=True) if s != t)
    differ = ", ".join(f"{s} where the quote has {t}" for s, t in pairs)
    line = text.count("\n", 0, at) + 1
    return (
        f"; it matches with the source's own characters at offset {at}, line {line}: "
        f"the source has {differ}. The quote as the source has it: "
        f"{json.dumps(mine, ensure_ascii=False)}; its footnote: "
        f"{format_citation(c._replace(quote=mine), source, at)}"
    )


def _wiki_tree(ws: Workspace, at: pygit2.Tree) -> WikiTree:
    return WikiTree(
        ws.repo, at, PageCache(None), limits=ws.config.limits, layout=ws.config.wiki.layout()
    )


def _has_source(tree: WikiTree, source: str) -> bool:
    hits, acl = tree.find_source(source)
    return bool(hits or acl)


def _within(text: str, found: list[int], c: Citation) -> list[int]:
    """The occurrences that lie in the lines and the section ``c``'s notes name."""
    if c.lines is None and c.section is None:
        return found
    index = SourceIndex(text)
    spans = index.sections.get(section_key(c.section), []) if c.section else [(0, len(text))]
    if c.lines is not None:
        lines = index.span(*c.lines)
        spans = [(max(s, lines[0]), min(e, lines[1])) for s, e in spans] if lines else []
    return [o for o in found if any(s <= o and o + len(c.quote) <= e for s, e in spans)]


@dataclass
class AnchorFix:
    path: str
    line: int
    label: str
    status: str  # "anchored" | why not


@dataclass
class AnchorPlan:
    """What ``anchor --fix`` would do at one tree: per-footnote results, new page texts."""

    tree: pygit2.Oid
    fixes: list[AnchorFix]
    pages: dict[str, str]

    @property
    def anchored(self) -> bool:
        return bool(self.pages)


def plan_anchor_fix(
    ws: Workspace,
    tree: pygit2.Tree,
    pages: list[str],
    progress: Progress | None = None,
    read_at: str = "in the tree read",
) -> AnchorPlan:
    """Anchors for the quote-only footnotes of ``pages`` (default: all) at ``tree``, and
    the right anchor for a footnote whose anchor is wrong (``citation.anchor_mismatch``,
    ``citation.hash_mismatch``: the quote occurs once), without staging anything: a caller with nothing to anchor opens no run.  ``read_at``
    says where ``tree`` is (``on master``), for messages."""
    wiki = _wiki_tree(ws, tree)
    results: list[AnchorFix] = []
    texts: dict[str, str] = {}
    targets = pages or wiki.pages
    for done, path in enumerate(targets, 1):
        if progress is not None:
            progress("anchoring pages", done, len(targets))
        if path not in wiki.entries:
            raise UsageError(f"{path}: no such page {read_at}")
        page = wiki.page(path)
        if page is None:
            continue
        text, _ = wiki.page_text(path)
        assert text is not None
        lines = text.split("\n")
        changed = False
        for d in page.definitions:
            c = d.citation
            if c is None or not c.quoted:
                continue
            # an anchored footnote is fixed only when its anchor is wrong (a wrong offset
            # or hash, citation.anchor_mismatch) and the quote occurs once: else left alone
            if "\n" in d.tail or d.tail not in lines[d.line - 1]:
                if not c.anchored:
                    results.append(
                        AnchorFix(path, d.line, d.label, "skipped: multi-line definition")
                    )
                continue
            hits, _ = resolve_source(wiki, path, c)
            try:
                source = hits[0] if len(hits) == 1 else c.source
                tail = anchor_tail(ws, source, c.quote, c.page, wiki, notes=c, read_at=read_at)
            except WikigateError as e:
                if not c.anchored:  # an anchor may be right where the quote is not unique
                    results.append(AnchorFix(path, d.line, d.label, f"skipped: {e}"))
                continue
            if c.anchored:
                fixed = parse_definition(tail)
                if (fixed.offset, fixed.sha256) == (c.offset, c.sha256):
                    continue  # right already
            lines[d.line - 1] = lines[d.line - 1].replace(d.tail, tail, 1)
            results.append(AnchorFix(path, d.line, d.label, "anchored"))
            changed = True
        if changed:
            texts[path] = "\n".join(lines)
    return AnchorPlan(tree.id, results, texts)


def anchor_fix(
    run: WorkspaceRun,
    pages: list[str],
    plan: AnchorPlan | None = None,
    progress: Progress | None = None,
) -> list[AnchorFix]:
    """Stage anchors for quote-only footnotes whose quote occurs exactly once.

    ``plan`` (from :func:`plan_anchor_fix`) is reused when it was made at the run's
    staged tree, else the fixes are worked out again there.  Stages nothing when
    there is nothing to anchor.
    """
    staged = run.staged_tree()
    if plan is None or plan.tree != staged.id:
        plan = plan_anchor_fix(run.ws, staged, pages, progress, f"in run {run.run_id}")
    for path, text in plan.pages.items():
        run.stage_write(path, text)
    return plan.fixes


def anchor_fix_on_main(
    ws: Workspace, pages: list[str], progress: Progress | None = None
) -> tuple[list[AnchorFix], WorkspaceRun | None]:
    """Work out the anchors at main and open a lint run holding them, only if there
    are any: with nothing to anchor, no run is opened and main does not move.

    Returns the fixes and the open run to finalize (None when nothing was staged).
    """
    main = ws.repo.references[ws.env.main].target
    trunk = branch_name(ws.env.main)
    plan = plan_anchor_fix(ws, commit_at(ws.repo, main).tree, pages, progress, f"on {trunk}")
    if not plan.anchored:
        return plan.fixes, None
    run = ws.start_run("lint", "cli:anchor")
    fixes = anchor_fix(run, pages, plan)
    if any(f.status == "anchored" for f in fixes):
        return fixes, run
    # main moved between the plan and the run, and the new main needs no anchors:
    # close the empty run (it never reaches main) rather than leave it pending.
    reject(run, run.plan(), None, int(run.refresh()["loop_count"]), "nothing to anchor")
    return fixes, None


def anchor_fix_in_worktree(
    ws: Workspace, head: Checkout, pages: list[str], progress: Progress | None = None
) -> list[AnchorFix]:
    """On a branch (a pull request's): work out the anchors at the checked-out commit and
    rewrite those pages in the working tree, for the author to review and commit.  A page
    with uncommitted changes is left alone (its fixes say so): nothing a person typed is
    overwritten.  No run is opened and no ref moves."""
    plan = plan_anchor_fix(ws, head.commit.tree, pages, progress, f"at {head.label}")
    for path, text in plan.pages.items():
        file = head.workdir / path
        blob = head.commit.tree[path]
        assert isinstance(blob, pygit2.Blob)
        try:
            unchanged = file.read_bytes() == blob.data
        except OSError:
            unchanged = False
        if not unchanged:
            why = f"skipped: {path} differs from {head.label} in the working tree; commit it first"
            for f in plan.fixes:
                if f.path == path and f.status == "anchored":
                    f.status = why
            continue
        file.write_bytes(text.encode("utf-8"))
    return plan.fixes
