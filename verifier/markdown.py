"""Parse a wiki page with markdown-it-py into what the checks need.

Front matter, footnote references and definitions, claims (the sentence, list
item or table cell holding a reference), links, wikilinks and headings.  No
regular expressions run over raw markdown: code spans and fences never yield
citations or links because markdown-it has already set them apart.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

import yaml
from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.footnote.index import footnote_ref
from mdit_py_plugins.front_matter import front_matter_plugin

from wikigate.text import Invisible, invisible_chars

from . import sentences
from .citation import Citation, CitationSyntaxError, parse_definition

MARK = "\x00"  # stands in for a footnote reference inside claim text


class Ref(NamedTuple):
    label: str
    line: int  # the first line of the block (paragraph, list item, cell) holding the claim
    claim: str  # the claim's text, references removed
    disputed: bool  # inside a ``::: disputed`` block
    at_line: int  # the line holding this reference ``[^label]``
    start_line: int  # the line where the claim's sentence starts (<= at_line)
    # in a table: the cell in its row, as "Header: cell; …" (at most ROW_CHARS): the
    # statement a cited cell makes ("| Old cats | 16[^1] |" says nothing without its row);
    # the row's other cited cells are claims of their own and left out
    row: str = ""
    # the ``::: disputed`` block holding it: its number on the page (the outermost block,
    # counted from 1 in the order they open), 0 outside one: which claims share a block
    # (a stale claim is history only beside its block's dated update: checks/citations.py)
    block: int = 0


class Statement(NamedTuple):
    """A sentence that asserts something and carries no citation and no gap marker."""

    line: int  # the line the sentence starts on
    text: str  # whitespace collapsed, at most STATEMENT_CHARS characters
    covered: bool  # its block (paragraph, list item, cell) holds a citation or gap marker
    # the page's links (indexes into ParsedPage.links, from, to) in the sentence and in its
    # block: a link that resolves to a source under raw/ cites it, unquoted (checks/pages.py)
    links: tuple[int, int] = (0, 0)
    block: tuple[int, int] = (0, 0)


class Definition(NamedTuple):
    label: str
    line: int
    tail: str  # raw text after ``[^label]:``
    citation: Citation | None  # the tail parsed, or
    error: str | None  # why it does not parse


class Link(NamedTuple):
    kind: str  # "wiki" | "md"
    target: str
    anchor: str | None
    line: int


@dataclass
class ParsedPage:
    path: str
    fields: dict[str, str] | None = None  # front matter field → YAML type ("str", "date", …)
    frontmatter_error: str | None = None
    title: str | None = None
    aliases: list[str] = field(default_factory=list)
    headings: list[str] = field(default_factory=list)  # anchor slugs; "^id": a block id
    refs: list[Ref] = field(default_factory=list)
    definitions: list[Definition] = field(default_factory=list)
    undefined: list[tuple[str, int]] = field(default_factory=list)
    # (label, line) of each "[^label]" written in a raw HTML block's text (the first
    # HTML_REFS_KEPT): no renderer makes it a footnote, so it cites nothing
    in_html: list[tuple[str, int]] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    gaps: list[tuple[int, str]] = field(default_factory=list)  # (line, reason) of [gap: …]
    # each sentence holding a gap marker and no citation: (the marker's line, the sentence
    # without its markers, whether in a ::: disputed block), which the consistency check
    # compares with the cited claims (each, as a claim is: bounded by the page's size)
    gapped: list[tuple[int, str, bool]] = field(default_factory=list)
    bare: int = 0  # statements in a block with neither a citation nor a gap marker
    statements: list[Statement] = field(default_factory=list)  # the first STATEMENTS_KEPT
    text: str = ""
    partial: bool = False  # loaded from the cache's nav column: no refs or definitions
    invisible: list[Invisible] = field(default_factory=list)  # the first INVISIBLE_KEPT Cf
    # the links of each "Sources:" line and of each list or paragraph under a "Sources"
    # heading: (line, ((kind, target), …)); those naming files under raw/ cite them, unquoted
    source_lines: list[tuple[int, tuple[tuple[str, str], ...]]] = field(default_factory=list)


INVISIBLE_KEPT = 1000  # invisible characters a parsed page keeps (the findings show fewer)
HTML_REFS_KEPT = 1000  # footnote references in raw HTML a parsed page keeps
STATEMENTS_KEPT = 1000  # uncited statements a parsed page keeps (the findings show fewer)
STATEMENT_CHARS = 200  # of a statement's text kept
GAPPED_CHARS = 2000  # of a gap-marked sentence's text kept (the consistency check's CLAIM_CHARS)
WINDOW = 256  # a scan this short runs as is; a longer one is looked up in an index


def _find(state: StateInline, needle: str, start: int) -> int:
    """``state.src.find(needle, start)``, scanning at most one block of the source:
    inline rules that rescan to the end of the paragraph from every position make a
    page of ``[[[[…`` quadratic. Per source and needle, one pass records the first
    occurrence from each block on (a list of len/BLOCK numbers, not of every hit)."""
    index: dict[tuple[int, str], tuple[str, list[int]]] = state.env.setdefault(_INDEX, {})
    src = state.src
    hit = index.get((id(src), needle))
    if hit is None or hit[0] is not src:  # kept alive in the index: its id is not reused
        hit = index[(id(src), needle)] = (src, _firsts(src, needle))
    block = start // BLOCK + 1
    found = src.find(needle, start, block * BLOCK + len(needle) - 1)
    if found >= 0 or block >= len(hit[1]):
        return found
    return hit[1][block]


_INDEX = "wikigate.find"
BLOCK = 1024


def _firsts(src: str, needle: str) -> list[int]:
    """For each block of the source, where ``needle`` first occurs from it on, or -1."""
    blocks = -(-len(src) // BLOCK)
    out = [-1] * blocks
    after = -1
    for k in range(blocks - 1, -1, -1):
        found = src.find(needle, k * BLOCK, (k + 1) * BLOCK + len(needle) - 1)
        after = out[k] = found if found >= 0 else after
    return out


def _unclosed_rule(state: StateInline, silent: bool) -> bool:
    """``[``, ``![`` or ``^[`` with no ``]`` after it in the paragraph opens nothing.

    Read it as text at once: markdown-it would try a link, an image, an inline
    footnote and (our rule) a wikilink there, each scanning to the paragraph's
    end, from every one of a page of ``[[[[…``. A label scan (silent mode) that
    reaches it cannot close either, so it ends there."""
    src, pos, end = state.src, state.pos, state.posMax
    if src[pos] not in "[!^" or src.find("]", pos, min(end, pos + WINDOW)) >= 0:
        return False
    closer = _find(state, "]", pos)
    if 0 <= closer < end:
        return False
    if silent:
        state.pos = end
    else:
        state.append_pending(src[pos])
        state.pos = pos + 1
    return True


def _link_words(target: str) -> str:
    """What a reader reads of a wikilink without a label: its page's name, or for a link
    into the same page (``[[#^built]]``, ``[[#Heading]]``) its heading or block, so the
    words never vanish from the sentence quoted."""
    name, _, anchor = target.partition("#")
    return name or anchor


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    if not src.startswith("[[", pos):
        return False
    end = src.find("]]", pos + 2, pos + WINDOW)
    if end >= 0:
        newline = src.find("\n", pos + 2, end)
    else:
        end = _find(state, "]]", pos + 2)
        newline = _find(state, "\n", pos + 2)
    if end < 0 or (0 <= newline < end) or src.find("[", pos + 2, end) >= 0:
        return False
    inner = src[pos + 2 : end]
    if not inner.strip():
        return False
    if not silent:
        token = state.push("wikilink", "", 0)
        token.content = inner
    state.pos = end + 2
    return True


def _footnote_ref_rule(state: StateInline, silent: bool) -> bool:
    """mdit-py-plugins' footnote reference rule, asked only when it can match.

    It scans from ``[^`` to the first space, newline or ``]``: to the end of the
    paragraph, from every ``[^`` of a page of ``[^[^[^…``. A long label that is
    not a defined one is rejected here from the index instead."""
    src, start = state.src, state.pos
    if not src.startswith("[^", start):
        return False
    refs = state.env.get("footnotes", {}).get("refs")
    if not refs:
        return False
    if src.find("]", start + 2, start + WINDOW) < 0:
        stops = [_find(state, ch, start + 2) for ch in (" ", "\n", "]")]
        stop = min((s for s in stops if s >= 0), default=-1)
        if stop < 0 or stop >= state.posMax or src[stop] != "]":
            return False
        if ":" + src[start + 2 : stop] not in refs:
            return False
    return footnote_ref(state, silent)


def _inline_outside_definitions(state: StateCore) -> None:
    """markdown-it's core "inline" rule, minus footnote definitions' bodies.

    A definition is read from its raw text (citation.parse_definition); parsing
    its inline markup too would cost a quarter of the whole parse for nothing.
    """
    depth = 0
    for tok in state.tokens:
        if tok.type == "footnote_reference_open":
            depth += 1
        elif tok.type == "footnote_reference_close":
            depth -= 1
        elif tok.type == "inline" and not depth:
            if tok.children is None:
                tok.children = []
            state.md.inline.parse(tok.content, state.md, state.env, tok.children)


@lru_cache(maxsize=1)
def markdown() -> MarkdownIt:
    md = (
        MarkdownIt("commonmark")
        .use(front_matter_plugin)
        .use(footnote_plugin)
        .use(container_plugin, "disputed")
        .enable("table")
    )
    md.inline.ruler.after("text", "unclosed", _unclosed_rule)
    md.inline.ruler.before("link", "wikilink", _wikilink_rule)
    md.inline.ruler.at("footnote_ref", _footnote_ref_rule)
    # Keep footnote definitions where they stand (with their line maps), including
    # unreferenced ones, instead of moving referenced ones to a tail block.
    md.core.ruler.disable("footnote_tail")
    md.core.ruler.at("inline", _inline_outside_definitions)
    return md


def slugify(text: str) -> str:
    """GitHub-style heading anchors: lowercase, punctuation dropped, spaces to '-'."""
    text = unicodedata.normalize("NFKC", text).strip().lower()
    out = []
    for ch in text:
        if ch.isalnum() or ch in "-_":
            out.append(ch)
        elif ch.isspace():
            out.append("-")
    return "".join(out)


_BLOCK_ID = re.compile(r"[A-Za-z0-9-]+")


def block_id(content: str) -> str | None:
    """An Obsidian block id: ``^id`` ending a block's last line, after a space (or alone on
    the line), lower-cased; None when there is none.  Only the last line is looked at."""
    last = content[content.rfind("\n") + 1 :].rstrip(" \t")
    before, caret, name = last.rpartition("^")
    if not caret or not _BLOCK_ID.fullmatch(name) or (before and before[-1] not in " \t"):
        return None
    return name.lower()


def parse_page(path: str, text: str) -> ParsedPage:
    """The page parsed. The block of one-line footnote definitions that usually ends a page
    is read line by line instead of by markdown-it (a third of the parse otherwise), when
    that gives exactly what markdown-it gives (see ``_definition_tail``)."""
    src = _normalize(text)
    _bounded(src)
    head, start, tail = _definition_tail(src)
    if tail:
        env: dict[str, Any] = {"footnotes": {"refs": {":" + d.label: -1 for d in tail}}}
        tokens = markdown().parse(_ended(head), env)
        if not _reaches(tokens, start):
            return _page(path, text, tokens, tail)
    tokens = markdown().parse(_ended(src), {})
    return _page(path, text, tokens, [])


def _ended(src: str) -> str:
    """``src`` with its last line ended: mdit-py-plugins' container rule reads past the end
    of a last line that has no newline inside a block quote (``>::: disputed`` then ``>``:
    IndexError). The newline moves no token's lines and changes nothing a page keeps."""
    return src if not src or src.endswith("\n") else src + "\n"


# A block-quote line ending in an empty nested quote (``> >``, ``> - >``) followed by a lazy
# line costs markdown-it-py quadratic time in the quote's length (2,000 such pairs: ~10 s):
# a page may hold a few of them, not thousands (found by tests/test_fuzz_cost.py).
_EMPTY_NESTED_QUOTE = re.compile(r"^[ \t]{0,3}>[^\n]*>[ \t]*$", re.M)
MAX_EMPTY_NESTED_QUOTES = 200


class ParseLimit(ValueError):
    """The page holds a construct the parser cannot read in linear time, too often."""


def _bounded(src: str) -> None:
    if ">" not in src:
        return
    seen = sum(1 for _ in _EMPTY_NESTED_QUOTE.finditer(src))
    if seen > MAX_EMPTY_NESTED_QUOTES:
        raise ParseLimit(
            f"it holds {seen} block-quote lines ending in an empty nested quote (`> >`); "
            f"at most {MAX_EMPTY_NESTED_QUOTES} are parsed, since markdown-it's parse of them "
            "costs quadratic time: write the quote without them"
        )


def _normalize(text: str) -> str:
    """markdown-it's own first step (its line numbers count these newlines)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.replace("\0", "\ufffd") if "\0" in text else text


# a footnote definition markdown-it reads as one plain paragraph: at the start of the line,
# a label without spaces, at most 3 spaces, then a first character no block rule starts at
_SIMPLE_DEFINITION = re.compile(r"\[\^([^\] ]+)\]: {0,3}([^ \t`~>*\-_+#<\[:|=].*)")
_LIST_START = re.compile(r"\d{1,9}[.)](?:[ \t]|$)")


def _simple(line: str) -> re.Match[str] | None:
    m = _SIMPLE_DEFINITION.fullmatch(line)
    return None if m is None or _LIST_START.match(m.group(2)) else m


def _blank(line: str) -> bool:
    return not line.strip(" \t")


def _definition_tail(src: str) -> tuple[str, int, list[Definition]]:
    """The page with its trailing run of simple definitions blanked out (line numbers
    kept), the run's first line (0-based), and its definitions. The run starts at a blank line, so no block before it
    continues into it, unless that block runs to the end of the page across blank lines
    (an unclosed fence, container, HTML block or front matter): ``_reaches`` checks that
    on the parse of the rest, and the page is then parsed whole."""
    if "[^" not in src:
        return src, 0, []
    lines = src.split("\n")
    start = len(lines)
    while start > 0 and (_blank(lines[start - 1]) or _simple(lines[start - 1])):
        start -= 1
    while start < len(lines) and not _blank(lines[start]):
        start += 1
    tail = []
    for n in range(start, len(lines)):
        m = _simple(lines[n])
        if m is not None:
            tail.append(_definition(m.group(1), n + 1, m.group(2).strip()))
    if not tail:
        return src, 0, []
    return "\n".join(lines[:start]) + "\n" * (len(lines) - start), start, tail


# blocks that end at a blank line followed by an unindented ``[^``, whatever their line map
# says (a list's or a quote's takes in the blank lines after it)
_ENDED_BY_BLANK = frozenset(
    {
        "paragraph_open",
        "heading_open",
        "hr",
        "bullet_list_open",
        "ordered_list_open",
        "blockquote_open",
        "table_open",
        "code_block",
        "front_matter",
        "footnote_reference_open",
    }
)


def _reaches(tokens: list[Token], line: int) -> bool:
    """Whether a top-level block of the parse may run on past ``line`` (0-based): an
    unclosed fence, container or HTML block, or a block of a kind not known to end."""
    return any(
        t.level == 0 and t.map is not None and t.map[1] > line and t.type not in _ENDED_BY_BLANK
        for t in tokens
    )


def _page(path: str, text: str, tokens: list[Token], tail: list[Definition]) -> ParsedPage:
    src = _normalize(text)
    invisible = invisible_chars(src, INVISIBLE_KEPT)
    page = ParsedPage(path=path, text=text, invisible=invisible)
    disputed = 0
    opened = 0  # the ::: disputed blocks opened so far, nested ones not counted
    in_block = 0  # the number of the outermost open one, 0 outside one
    quoted = 0  # inside a block quote: the words of someone else, not statements
    quotes: list[bool] = []  # the open block quotes, each whether it is a quote (no callout)
    aside = 0  # the level of a "See also"-style heading whose section we are in, else 0
    listed = 0  # inside a list or a table (an aside's lists are exempt, its paragraphs not)
    pending_heading = False
    in_definition = False
    sources = 0  # the level of a "Sources"-style heading whose section we are in, else 0
    segmented = [sentences.SEGMENTED_CHARS]  # what syntok may still read of this page
    header: list[tuple[str, bool]] = []  # the header cells of the table we are in
    cells: list[tuple[str, bool]] = []  # the row we are in: each cell's text, whether cited
    cell = -1  # the cell we are in
    in_head = False
    rows_left = [ROWS_CHARS]  # what the page's cited cells' statements may still take
    for i, tok in enumerate(tokens):
        if tok.type == "footnote_reference_open":
            page.definitions.append(_footnote(tokens, i))
            in_definition = True
        elif tok.type == "footnote_reference_close":
            in_definition = False
        elif in_definition:
            continue  # a definition is read whole by _footnote, from its raw text
        elif tok.type == "front_matter":
            _front_matter(page, tok, segmented)
        elif tok.type == "container_disputed_open":
            if disputed == 0:
                opened += 1
                in_block = opened
            disputed += 1
        elif tok.type == "container_disputed_close":
            disputed -= 1
            in_block = in_block if disputed > 0 else 0
        elif tok.type in ("bullet_list_open", "ordered_list_open", "table_open"):
            listed += 1
        elif tok.type in ("bullet_list_close", "ordered_list_close", "table_close"):
            listed -= 1
        elif tok.type in ("thead_open", "thead_close"):
            in_head = tok.type == "thead_open"
            header = [] if in_head else header
        elif tok.type == "tr_open":
            cells, cell = _row_cells(tokens, i), -1
            header = cells if in_head else header
        elif tok.type == "tr_close":
            cells = []
        elif tok.type in ("td_open", "th_open"):
            cell += 1
        elif tok.type == "blockquote_open":  # an Obsidian callout ("> [!note]") is prose
            quotes.append(not _callout(tokens, i))
            quoted += quotes[-1]
        elif tok.type == "blockquote_close":
            quoted -= quotes.pop() if quotes else 0
        elif tok.type == "heading_open":
            pending_heading = tok.tag == "h1"
            level = int(tok.tag[1:]) if tok.tag[1:].isdigit() else 1
            if aside and level <= aside:
                aside = 0
            if not aside and i + 1 < len(tokens) and _aside(tokens[i + 1].content):
                aside = level
            if sources and level <= sources:
                sources = 0
            if not sources and i + 1 < len(tokens) and _sources_heading(tokens[i + 1].content):
                sources = level
        elif tok.type == "html_block":
            line = (tok.map[0] + 1) if tok.map else 0
            _comments(page, tok.content, line)  # in a quote or an aside too: nobody sees it
            _tooltips(page, tok.content[:HTML_CHARS], line)
            if quoted or (aside and listed):
                continue
            read = _html_blocks(tok.content)
            _html_refs(page, [(line + at, text) for at, text, _ in read])
            for heading in (False, True):
                blocks = [(line + at, text) for at, text, h in read if h == heading]
                _statements(page, blocks, False, segmented, heading)
        elif tok.type == "inline":
            line = (tok.map[0] + 1) if tok.map else 0
            if tokens[i - 1].type == "heading_open":
                plain = _plain(tok)
                page.headings.append(slugify(plain))
                if pending_heading and page.title is None:  # front matter's title wins
                    page.title = plain.strip()
                pending_heading = False
            heading = tokens[i - 1].type == "heading_open"
            if not heading:
                block = block_id(tok.content)
                if block is not None:
                    page.headings.append("^" + block)
            pointed = bool(aside) and not heading and (listed > 0 or _link_lines(tok.content))
            asserts = not (quoted or (aside and heading))
            linked_before = len(page.links)
            cited_before = len(page.refs)
            _inline(
                page,
                tok,
                line,
                in_block,
                heading=heading,
                asserts=asserts,
                left=segmented,
                labels_ok=listed > 0,
                pointed=pointed,
            )
            if len(page.refs) > cited_before and cells and tokens[i - 1].type in CELLS:
                names = [] if in_head else [name for name, _ in header]
                row = _row_statement(names, cells, cell, rows_left)
                for k in range(cited_before, len(page.refs)):
                    page.refs[k] = page.refs[k]._replace(row=row)
            if (
                not heading
                and len(page.links) > linked_before
                and (sources or _SOURCES_LABEL.match(tok.content))
            ):
                named = tuple((k.kind, k.target) for k in page.links[linked_before:])
                page.source_lines.append((line, named))
    _markdown_comments(page, src, tokens)
    page.definitions += tail
    return page


def _html_refs(page: ParsedPage, blocks: list[tuple[int, str]]) -> None:
    """The footnote references ``[^label]`` written in a raw HTML block's text (code and
    scripts left out): a reader sees them as text, and their sentences are no claims."""
    for line, text in blocks:
        seen, at_line = 0, line
        for m in _UNDEFINED_REF.finditer(text):
            if len(page.in_html) >= HTML_REFS_KEPT:
                return
            at_line += text.count("\n", seen, m.start())
            seen = m.start()
            page.in_html.append((m.group(1), at_line))


ROW_CHARS = 1000  # of a table row kept as a cited cell's statement (Ref.row)
CELL_CHARS = 200  # of each cell in it
ROWS_CHARS = 5_000_000  # of all a page's cited cells' statements (past it: the cell alone)
CELLS = ("td_open", "th_open")


def _row_cells(tokens: list[Token], i: int) -> list[tuple[str, bool]]:
    """The text of each cell of the table row opened at ``tokens[i]`` (footnote
    references left out, whitespace collapsed, each at most CELL_CHARS), and whether it
    cites."""
    cells: list[tuple[str, bool]] = []
    for j in range(i + 1, len(tokens)):  # by index: a row's tokens only, never a copy
        tok = tokens[j]
        if tok.type == "tr_close":
            break
        if tok.type != "inline":
            continue
        said: list[str] = []
        cited = False
        for child in tok.children or []:
            cited = cited or (child.type == "footnote_ref" and "label" in child.meta)
            if child.type in ("text", "code_inline"):
                said.append(child.content)
            elif child.type == "wikilink" and said and said[-1].endswith("!"):
                said[-1] = said[-1][:-1]  # an embed, as typed (its |… a size, no label)
                said.append(f"![[{child.content}]]")
            elif child.type == "wikilink":
                target, _, label = child.content.partition("|")
                said.append(label or _link_words(target))
            elif child.type in ("softbreak", "hardbreak"):
                said.append(" ")
        cells.append((" ".join("".join(said)[: 2 * CELL_CHARS].split())[:CELL_CHARS], cited))
    return cells


def _row_statement(
    header: list[str], cells: list[tuple[str, bool]], at: int, left: list[int]
) -> str:
    """Cell ``at`` of a table row as one statement with the row's uncited cells, each
    under its header: "Animal: Dogs; Hours: 16" (a cell under no header, or in the header
    row, stands alone); the row's other cited cells are claims of their own. Empty (the
    claim is the cell's text) once the page's statements have taken ``left``."""
    said = [
        f"{header[k]}: {text}" if k < len(header) and header[k] else text
        for k, (text, cited) in enumerate(cells)
        if text and (k == at or not cited)
    ]
    row = "; ".join(said)[:ROW_CHARS]
    if len(row) > left[0]:
        return ""
    left[0] -= len(row)
    return row


# text hidden from a reader and read by a model: an HTML comment (``<!-- … -->``) or a
# markdown comment (``[//]: # (…)``, a link reference definition no renderer shows) that
# asserts something is flagged as hidden text, as a ``display:none`` span is; wikigate's
# own suppression comments (``<!-- wikigate: ignore … -->``, verifier/suppress.py) are not
_OWN_COMMENT = re.compile(r"\s*wikigate\s*:", re.I)
COMMENT_CHARS = 2000  # of a comment read for a statement; a longer one is flagged whole
# and the title of any link reference definition, a tooltip at most ("[src]: https://x
# "The mayor stole …""); a footnote's definition ("[^1]: …") is no link reference
_MD_COMMENT = re.compile(
    r"^ {0,3}\[(?!\^)[^\]\n]{1,100}\]:[ \t]*(?:#|<>|<[^<>\n]{0,2000}>|[^\s<][^\s]{0,2000})[ \t]+"
    r"(?:\((.*)\)|\"(.*)\"|'(.*)')[ \t]*$",
    re.M,
)


def _comments(page: ParsedPage, html: str, line: int) -> None:
    """The HTML comments of a raw HTML block or an inline HTML tag starting on ``line``,
    each flagged as hidden text when it asserts (``_hidden_comment``)."""
    at = html.find("<!--")
    seen = 0
    while at >= 0:
        line += html.count("\n", seen, at)
        seen = at
        end = html.find("-->", at + 4)
        _hidden_comment(page, line, html[at + 4 : end if end >= 0 else len(html)])
        if end < 0:
            return
        at = html.find("<!--", end + 3)


# an HTML tag's title attribute: a tooltip, hidden from a reader and read by a model,
# flagged when it asserts, as a markdown link's title is; a footnote reference in it (or
# in any attribute) is no citation: markdown is not parsed inside a tag
_TITLE_ATTR = re.compile(r"""[\s"']title\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))""", re.I)
_OPENING_TAG = re.compile(r"<[a-zA-Z][^<>]*>")


def _tooltips(page: ParsedPage, html: str, line: int) -> None:
    """The ``title=`` attributes of the opening tags in ``html`` (starting on ``line``),
    each flagged as hidden text when it asserts (``_hidden_comment``)."""
    if "title" not in html.lower():
        return
    from html import unescape

    seen = 0
    for tag in _OPENING_TAG.finditer(html):
        m = _TITLE_ATTR.search(tag.group(0))
        if m is None:
            continue
        line += html.count("\n", seen, tag.start())
        seen = tag.start()
        _hidden_comment(page, line, unescape(m.group(1) or m.group(2) or m.group(3) or ""))


def _markdown_comments(page: ParsedPage, src: str, tokens: list[Token]) -> None:
    """The ``[label]: # (text)`` lines of the page outside code, fences and HTML blocks."""
    if "]:" not in src:
        return
    skipped = [
        (t.map[0], t.map[1])
        for t in tokens
        if t.map and t.type in ("fence", "code_block", "html_block", "front_matter")
    ]
    line, seen, k = 0, 0, 0
    for m in _MD_COMMENT.finditer(src):
        line += src.count("\n", seen, m.start())
        seen = m.start()
        while k < len(skipped) and skipped[k][1] <= line:
            k += 1
        if k < len(skipped) and skipped[k][0] <= line:
            continue  # inside code: shown as it is written
        _hidden_comment(page, line + 1, m.group(1) or m.group(2) or m.group(3) or "")


def _hidden_comment(page: ParsedPage, line: int, comment: str) -> None:
    if _OWN_COMMENT.match(comment):
        return
    said = " ".join(comment[: 2 * COMMENT_CHARS].split())
    if not said or (len(comment) <= COMMENT_CHARS and not _statement(said, labels_ok=True)):
        return
    if len(page.statements) < STATEMENTS_KEPT:
        page.statements.append(Statement(line, f"hidden text: {said}"[:STATEMENT_CHARS], False))
    page.bare += 1


def parse_whole(path: str, text: str) -> ParsedPage:
    """The page parsed by markdown-it alone (what parse_page must equal;
    tests/test_properties.py compares them)."""
    return _page(path, text, markdown().parse(_ended(_normalize(text)), {}), [])


ONE_PARAGRAPH = "a citation footnote is one paragraph; the text after it is not verified"


def _footnote(tokens: list[Token], i: int) -> Definition:
    """The footnote definition opened at ``tokens[i]``: exactly one paragraph, its
    raw text parsed as a citation. Renderers show every block of a definition (an
    indented second paragraph, a list, a code block) inside the footnote, where a
    reader takes it for cited: anything but one paragraph is a syntax error."""
    opened = tokens[i]
    label = str(opened.meta.get("label", ""))
    line = (opened.map[0] + 1) if opened.map else 0
    blocks: list[int] = []  # indexes of the definition's top-level blocks
    j = i + 1
    while j < len(tokens) and tokens[j].type != "footnote_reference_close":
        if tokens[j].level == opened.level + 1 and tokens[j].nesting >= 0:
            blocks.append(j)
        j += 1
    if not blocks:
        return Definition(label, line, "", None, "the definition is empty")
    first = blocks[0]
    if tokens[first].type != "paragraph_open" or tokens[first + 1].type != "inline":
        return Definition(label, line, "", None, ONE_PARAGRAPH)
    tail = tokens[first + 1].content
    if len(blocks) > 1:
        return Definition(label, line, tail, None, ONE_PARAGRAPH)
    return _definition(label, line, tail)


def _definition(label: str, line: int, tail: str) -> Definition:
    try:
        return Definition(label, line, tail, parse_definition(tail), None)
    except CitationSyntaxError as e:
        return Definition(label, line, tail, None, str(e))
    except ValueError as e:  # fail closed on this definition alone, never the whole page
        return Definition(label, line, tail, None, f"unreadable ({type(e).__name__}: {e})")


# libyaml's loader when PyYAML was built with it (the wheels are): ~6x faster
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def yaml_type(value: object) -> str:
    """The YAML type of a front matter value, as `[frontmatter.required]` names them."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, dt.datetime):
        return "datetime"
    if isinstance(value, dt.date):
        return "date"
    if isinstance(value, (list, tuple, set)):
        return "list"
    if isinstance(value, dict):
        return "mapping"
    return type(value).__name__  # str, int, float, bytes


def _front_matter(page: ParsedPage, tok: Token, left: list[int]) -> None:
    try:
        data = yaml.load(tok.content, Loader=_YAML_LOADER) if tok.content.strip() else {}
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" (front matter line {mark.line + 1})" if mark else ""
        page.frontmatter_error = (
            f"front matter is not valid YAML{where}: {getattr(e, 'problem', e)}"
        )
        return
    except (ValueError, RecursionError) as e:  # e.g. an integer of 5,000 digits
        page.frontmatter_error = f"front matter cannot be read: {type(e).__name__}: {e}"
        return
    if not isinstance(data, dict):
        page.frontmatter_error = f"front matter must be a mapping, not {type(data).__name__}"
        return
    page.fields = {str(k): yaml_type(v) for k, v in data.items()}
    aliases = data.get("aliases") or []
    if isinstance(aliases, str):
        aliases = [aliases]
    if isinstance(aliases, list):
        page.aliases = [str(a) for a in aliases if _scalar(a)]
    title = data.get("title")
    if _scalar(title) and title != "":
        page.title = str(title)
    elif title is not None and title != "":
        page.frontmatter_error = f"front matter 'title' must be one value, not a {yaml_type(title)}"
    named = _front_sources(data)
    if named:  # `sources: [raw/x.md]`: the page's Sources line, written as a field
        at = re.search(r"^sources?\s*:", tok.content, re.M | re.I)
        line = (
            (tok.map[0] if tok.map else 0) + 2 + tok.content.count("\n", 0, at.start() if at else 0)
        )
        page.source_lines.append((line, named))
    said = [(str(k), v) for k, v in data.items() if str(k).lower() in SAYING_FIELDS]
    for key, value in said:  # a summary is prose a reader (and a model) takes as the page's
        values = [value] if isinstance(value, str) else value if isinstance(value, list) else []
        at = re.search(r"^" + re.escape(key) + r"\s*:", tok.content, re.M)
        start = at.start() if at else 0
        for item in values[:FIELD_ITEMS]:  # a list's items each (`summary:` then `- …`)
            if not isinstance(item, str) or not item.strip():
                continue
            found = tok.content.find(item.strip().split("\n")[0][:100], start)
            start = found if found >= 0 else start
            line = (tok.map[0] if tok.map else 0) + 2 + tok.content.count("\n", 0, start)
            _statements(page, [(line, item)], False, left, field=True)


FIELD_ITEMS = 1000  # items of a front matter list read for statements
_FIELD_WIKILINK = re.compile(r"\[\[([^\[\]|#]+)(?:[#|][^\[\]]*)?\]\]")


def _front_sources(data: dict[Any, Any]) -> tuple[tuple[str, str], ...]:
    """The sources a front matter `sources:` (or `source:`) field names, as a Sources
    line's links (kinds ``path`` and ``field-wiki``: a field's, not a line's): a path
    (``raw/x.md``) or a wikilink (``"[[x]]"``) each; words, URLs and
    ``kb:``-style names are not files and are left out (the first FIELD_ITEMS)."""
    value = next((v for k, v in data.items() if str(k).lower() in ("sources", "source")), None)
    values = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    named: list[tuple[str, str]] = []
    for item in values[:FIELD_ITEMS]:
        if not isinstance(item, str):
            continue
        text = item.strip()
        link = _FIELD_WIKILINK.fullmatch(text)
        if link:
            named.append(("field-wiki", link.group(1).strip()))
        elif text and not any(c.isspace() for c in text) and ":" not in text:
            named.append(("path", text))  # from the repository's root, as a footnote's path
    return tuple(named)


# front matter fields whose value is prose about the page's subject: held to the rule
SAYING_FIELDS = frozenset(
    {"summary", "description", "abstract", "excerpt", "tldr", "synopsis", "subtitle", "lead"}
    | {"lede", "standfirst", "tagline", "intro", "introduction", "blurb", "teaser", "overview"}
)


def _scalar(value: object) -> bool:
    """A YAML scalar: never str() a list or mapping, which YAML aliases can make a
    billion items long from a few hundred bytes."""
    return isinstance(value, (str, int, float, dt.date))


def _plain(tok: Token) -> str:
    return "".join(c.content for c in tok.children or [] if c.type in ("text", "code_inline"))


_UNDEFINED_REF = re.compile(r"\[\^([A-Za-z0-9_-]+)\]")  # over parsed text nodes, never raw markdown


def _inline(
    page: ParsedPage,
    tok: Token,
    line: int,
    in_block: int,
    *,
    heading: bool,
    asserts: bool,
    left: list[int],
    labels_ok: bool = False,
    pointed: bool = False,
) -> None:
    parts: list[str] = []
    prose: list[str] = []  # parts, with code and link text blanked: the words it states
    size = 0  # the joined length of parts
    code: list[tuple[int, int]] = []  # code spans' (start, end) in the joined text, in order
    linked = -1  # inside a markdown link's text: where it starts in ``parts``, else -1
    labels: list[str] = []
    text_run: list[str] = []
    alts: list[str] = []  # images' alt text: statements of their own, never cited
    hiding: list[str] = []  # the tag of an inline HTML element that hides its text, nested
    hidden: list[str] = []  # the text hidden by such elements: flagged as hidden
    # the parts of link texts and code spans (start, end, whether its words may be prose)
    runs: list[tuple[int, int, bool]] = []
    first_link = len(page.links)
    link_at: list[int] = []  # where each of this block's links stands in the joined text
    children = tok.children or []
    title = _callout_title(children) if asserts and not heading else None
    if title is not None:  # a callout's first line is its title: held to the heading rule
        children = children[title[1] :]  # and, a sentence or not, to a list item's
        _statements(page, [(line, title[0])], False, left, heading=True, callout=True)
        line += 1

    def flush_text() -> None:
        if text_run:
            joined = "".join(text_run)
            for m in _UNDEFINED_REF.finditer(joined):
                page.undefined.append((m.group(1), line))
            text_run.clear()

    def add(piece: str, *, said: bool = True) -> None:
        nonlocal size
        parts.append(piece)
        prose.append(piece if said else " " * len(piece))
        size += len(piece)

    for child, prev in zip(children, ["", *(c.type for c in children)], strict=False):
        if child.type == "html_inline":
            flush_text()
            if child.content.startswith("<!--"):
                _comments(page, child.content, line)  # the paragraph's line, as hidden spans
                continue
            _tooltips(page, child.content, line)
            _hide(child.content, hiding)
            continue
        if hiding:  # a reader does not see it
            if child.type == "footnote_ref" and "label" in child.meta:
                # no footnote marker is shown: it cites nothing (citation.in_html)
                if len(page.in_html) < HTML_REFS_KEPT:
                    page.in_html.append((child.meta["label"], line))
            elif child.type in ("text", "code_inline"):
                hidden.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                hidden.append(" ")
            continue
        if child.type == "text":
            text_run.append(child.content)
            add(child.content, said=linked < 0)
            continue
        flush_text()
        if child.type == "code_inline":
            code.append((size, size + len(child.content)))
            runs.append(
                (len(parts), len(parts) + 1, _PLAIN_WORDS.fullmatch(child.content) is not None)
            )
            add(child.content, said=_prose_code(child.content))
        elif child.type in ("softbreak", "hardbreak"):
            add("\n")  # a space in the claim; counted for the claim's lines
        elif child.type == "footnote_ref":
            if "label" not in child.meta:  # an inline footnote ^[...]: not a citation
                continue
            labels.append(child.meta["label"])
            add(MARK + str(len(labels) - 1) + MARK)
        elif child.type == "image":  # its alt text: read where the image is not shown
            alts.append(child.content)
        elif child.type == "wikilink":
            target, _, label = child.content.partition("|")
            name, _, anchor = target.partition("#")
            page.links.append(Link("wiki", name.strip(), anchor.strip() or None, line))
            if parts and parts[-1].endswith("!") and prev == "text":
                # ![[Page]], ![[img.png|300]]: an embed (its |… a size or a caption), shown
                # as typed in a claim, its words no statement
                parts[-1], prose[-1] = parts[-1][:-1], prose[-1][:-1]
                size -= 1
                link_at.append(size)
                add(f"![[{child.content}]]", said=False)
            else:
                link_at.append(size)
                add(
                    label or _link_words(target),
                    said=bool(label) and not pointed and _link_asserts(label),
                )
        elif child.type == "link_close":
            if linked >= 0 and not pointed and _link_asserts("".join(parts[linked:])):
                prose[linked:] = parts[linked:]  # "[the bridge collapsed in 2024](x.md)"
            if linked >= 0:
                runs.append((linked, len(parts), True))
            linked = -1
        elif child.type == "link_open":
            linked = len(parts)
            tooltip = child.attrs.get("title")
            if tooltip:  # a tooltip: hidden from a reader, read by a model
                _hidden_comment(page, line, str(tooltip))
            href = str(child.attrs.get("href", ""))
            if href and not _external(href):
                target, _, anchor = href.partition("#")
                page.links.append(Link("md", target, anchor or None, line))
                link_at.append(size)
    flush_text()
    if not pointed:
        _reveal_runs(parts, prose, runs)
    text = "".join(parts)
    said = "".join(prose)
    breaks, at = [], text.find("\n")
    while at >= 0:
        breaks.append(at)
        at = text.find("\n", at + 1)
    code_starts = [a for a, _ in code]

    def line_at(at: int) -> int:  # the page line of text offset ``at`` (bisected: linear)
        return line + bisect_left(breaks, at)

    def in_code(at: int) -> bool:
        i = bisect_right(code_starts, at) - 1
        return i >= 0 and at < code[i][1]

    exact = len(text) <= left[0]
    left[0] -= len(text) if exact else 0
    spans = sentences.spans(text, exact=exact)
    uncited: list[tuple[int, int]] = []  # statements with neither citation nor gap marker
    covered = bool(labels)
    for start, end in spans:
        sentence = text[start:end]
        gaps = [
            m
            for m in _GAP.finditer(sentence)
            if m.group(1).strip() and not in_code(start + m.start())
        ]  # a marker without a reason (`[gap: ]`) accounts for nothing
        covered = covered or bool(gaps)
        for m in gaps:
            page.gaps.append((line_at(start + m.start()), " ".join(m.group(1).split())))
        if gaps and MARK not in sentence:
            _gapped(page, line_at(start + gaps[0].start()), sentence, in_block > 0)
        lead = len(sentence) - len(sentence.lstrip())
        first = line_at(start + lead)
        if MARK not in sentence:
            if not gaps and asserts and _asserting(said[start:end], heading, labels_ok, pointed):
                uncited.append((start + lead, end))
            continue
        head = _leading_clause(said[start + lead : end], sentence[lead:].find(MARK))
        if head and not gaps and asserts and not heading:  # "After the mayor fled …, the"
            uncited.append((start + lead, start + lead + head))
        tail = sentence.rfind(MARK) + 1  # what follows the last reference: its own clause?
        tail += len(sentence) - tail - len(sentence[tail:].lstrip(_JOINS))
        joined = _CONJUNCTION.match(sentence, tail)  # "…[^1], but the council …"
        tail = joined.end() if joined else tail
        if not gaps and asserts and _uncited_tail(said[start + tail : end], heading):
            uncited.append((start + tail, end))
        claim = _strip_marks(sentence).replace("\n", " ").strip()
        for idx, at in _marks(sentence):
            at_line = line_at(start + at)
            page.refs.append(
                Ref(labels[idx], line, claim, in_block > 0, at_line, first, block=in_block)
            )
    if not covered:
        page.bare += len(uncited)
    block = (first_link, len(page.links)) if link_at else (0, 0)
    for start, end in uncited[: max(0, STATEMENTS_KEPT - len(page.statements))]:
        shown = " ".join(text[start : min(end, start + 2 * STATEMENT_CHARS)].split())
        shown = shown[:STATEMENT_CHARS]
        a, b = bisect_left(link_at, start), bisect_left(link_at, end)
        links = (first_link + a, first_link + b) if a < b else (0, 0)
        page.statements.append(Statement(line_at(start), shown, covered, links, block))
    if alts and asserts and not heading:
        _statements(page, [(line, alt) for alt in alts], covered, left)
    said_hidden = " ".join("".join(hidden).split())
    if any(c.isalpha() for c in said_hidden):  # in a quote or an aside too: nobody sees it
        if len(page.statements) < STATEMENTS_KEPT:
            shown = f"hidden text: {said_hidden}"[:STATEMENT_CHARS]
            page.statements.append(Statement(line, shown, False))
        page.bare += 1


_PLAIN_WORDS = re.compile(r"[A-Za-z][A-Za-z'’]*(?: [A-Za-z][A-Za-z'’]*)*")


def _reveal_runs(parts: list[str], prose: list[str], spans: list[tuple[int, int, bool]]) -> None:
    """Read link texts and code spans that follow each other with only spaces between
    them as the sentence a reader sees when together they assert ("[Mayor Hill](a.md)
    [stole the](b.md) harbour funds.", "`Mayor Jane Hill` `embezzled` `the funds`."):
    four words or more with a finite verb. A code span takes part only when it holds
    plain words; a run of one span is read as before."""
    run: list[tuple[int, int, bool]] = []
    for span in [*spans, (-1, -1, False)]:
        if run and span[0] >= 0 and span[2] and "".join(parts[run[-1][1] : span[0]]).isspace():
            run.append(span)
            continue
        if len(run) > 1 and _link_asserts(" ".join("".join(parts[a:b]) for a, b, _ in run)):
            for a, b, _ in run:
                prose[a:b] = parts[a:b]
        run = [span] if span[2] else []


# an inline HTML element that hides its text from a reader: the words stay in the page a
# model reads, so they are flagged whatever else the sentence cites
_HIDING = re.compile(
    r"<([a-zA-Z][\w-]{0,30})\b[^<>]{0,2000}?(?:(?<![-\w])hidden(?![-\w])|display\s*:\s*none"
    r"|visibility\s*:\s*hidden|font-size\s*:\s*0(?![.\d])|visually-hidden|sr-only)"
    r"[^<>]{0,2000}>",
    re.I,
)
# elements that have no closing tag: they hide nothing after them
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}
    | {"track", "wbr", "param"}
)
_OPEN_TAG = re.compile(r"<([a-zA-Z][\w-]{0,30})\b")
_CLOSE_TAG = re.compile(r"</([a-zA-Z][\w-]{0,30})\s*>")


def _hide(html: str, hiding: list[str]) -> None:
    """Follow one inline HTML tag: a hiding element opens (``hiding`` gets its tag), a
    nested one of the same tag opens again, a closing tag closes the innermost."""
    if html.rstrip().endswith("/>"):
        return
    if hiding:
        close = _CLOSE_TAG.match(html)
        opened = _OPEN_TAG.match(html)
        if close and close.group(1).lower() == hiding[-1]:
            hiding.pop()
        elif opened and opened.group(1).lower() == hiding[-1] and len(hiding) < 100:
            hiding.append(hiding[-1])
        return
    m = _HIDING.match(html)
    if m and m.group(1).lower() not in _VOID:
        hiding.append(m.group(1).lower())


def _link_asserts(text: str) -> bool:
    """Whether a link's text is a sentence of its own: four words or more with a finite
    verb ("[the bridge collapsed in 2024](x.md)"), not a title ("[the minutes of the
    council](x.md)")."""
    counted = [w for w in text[:1000].split() if any(c.isalpha() for c in w)]
    return len(counted) >= STATEMENT_WORDS and _finite(counted)


_CALLOUT_MARK = re.compile(r"\s*\[![^\]\n]{0,50}\][+-]?[ \t]*")


def _callout_title(children: list[Token]) -> tuple[str, int] | None:
    """A callout's title (the words after ``[!type]`` on its first line) and how many
    children it takes, the line break included; None when the block is no callout or its
    first line holds a reference."""
    if not children or children[0].type != "text":
        return None
    if not children[0].content.startswith("[!") or not _CALLOUT_MARK.match(children[0].content):
        return None
    words: list[str] = []
    for n, child in enumerate(children):
        if child.type in ("softbreak", "hardbreak"):
            return _CALLOUT_MARK.sub("", "".join(words), count=1), n + 1
        if child.type == "footnote_ref":
            return None
        if child.type in ("text", "code_inline"):
            words.append(child.content)
    return _CALLOUT_MARK.sub("", "".join(words), count=1), len(children)  # one line


def _statements(
    page: ParsedPage,
    blocks: list[tuple[int, str]],
    covered: bool,
    left: list[int],
    heading: bool = False,
    field: bool = False,
    callout: bool = False,
) -> None:
    """The statements of text that can carry no citation (an image's alt text, the text
    of a raw HTML block, an HTML heading: ``heading``; a front matter ``field``, whose
    label may end in a full stop; a ``callout`` title, held to the heading rule and to a
    list item's), each block (line, text) cut into sentences: every one is uncited unless
    it holds a gap marker."""
    for line, block in blocks:
        exact = len(block) <= left[0]
        left[0] -= len(block) if exact else 0
        for start, end in sentences.spans(block, exact=exact):
            sentence = block[start:end]
            gaps = [m for m in _GAP.finditer(sentence) if m.group(1).strip()]
            lead = len(sentence) - len(sentence.lstrip())
            first = line + block.count("\n", 0, start + lead)
            for m in gaps:
                page.gaps.append((first, " ".join(m.group(1).split())))
            if gaps:
                _gapped(page, first, sentence, False)
            asserts = (
                _heading_statement(sentence)
                if heading
                else _statement(sentence, labels_ok=True, stopped_label=field)
            ) or (callout and _statement(sentence, labels_ok=True))
            if gaps or not asserts:
                continue
            if not covered:
                page.bare += 1
            if len(page.statements) < STATEMENTS_KEPT:
                shown = " ".join(sentence[: 2 * STATEMENT_CHARS].split())[:STATEMENT_CHARS]
                page.statements.append(Statement(first, shown, covered))


def _gapped(page: ParsedPage, line: int, sentence: str, disputed: bool) -> None:
    """Keep a gap-marked sentence's text, without its markers (ParsedPage.gapped)."""
    said = " ".join(_GAP.sub(" ", sentence[: 2 * GAPPED_CHARS]).split())[:GAPPED_CHARS]
    page.gapped.append((line, _BEFORE_STOP.sub(r"\1", said), disputed))


_BEFORE_STOP = re.compile(r"\s+([.,;:!?])")
HTML_CHARS = 100_000  # of a raw HTML block read for its text; the rest is not read
# tags whose content is not prose (code, scripts) or not a statement (quotes); a heading's
# is read apart (html_headings), held to the heading rule
_HTML_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_HTML_SKIP = (
    frozenset({"script", "style", "code", "pre", "kbd", "samp", "blockquote", "q", "template"})
    | frozenset({"svg", "math", "title"})
    | _HTML_HEADINGS
)
# tags that end a block of text (a paragraph, a cell, an item)
_HTML_BLOCKS = frozenset(
    {"p", "div", "td", "th", "tr", "li", "ul", "ol", "table", "br", "section", "article"}
    | {"figcaption", "caption", "dd", "dt", "dl", "details", "summary", "aside", "hr"}
    | {"header", "footer", "main", "nav", "figure", "center"}
)


_UNCLOSED = re.compile(r"<(?=[^<>]*(?:<|$)|!\[)")  # and "<![" (a CDATA section: its text)
_TAG = re.compile(r"<[^<>]*>")


def _closed_quotes(m: re.Match[str]) -> str:
    """A tag whose quotes do not pair, without them (html.parser would read past its ">")."""
    tag = m.group(0)
    if tag.count('"') % 2 or tag.count("'") % 2:
        return tag.replace('"', " ").replace("'", " ")
    return tag


def html_headings(html: str) -> list[tuple[int, str]]:
    """The headings (``<h1>`` … ``<h6>``) of a raw HTML block, as html_text's blocks,
    without the code and scripts in them."""
    return [(at, text) for at, text, heading in _html_blocks(html) if heading]


def html_text(html: str) -> list[tuple[int, str]]:
    """The prose of a raw HTML block, as (line within the block, 0-based; text) blocks:
    what a reader sees, cut at block tags, without code, scripts, headings and quotes.
    Parsed by the standard library's html.parser over at most HTML_CHARS characters."""
    return [(at, text) for at, text, heading in _html_blocks(html) if not heading]


def _html_blocks(html: str) -> list[tuple[int, str, bool]]:
    """html_text's and html_headings' blocks, each with whether it is a heading's."""
    from html.parser import HTMLParser

    blocks: list[tuple[int, str, bool]] = []
    run: list[str] = []
    start = [0]
    skip = [0]
    heading = [0]  # inside <h1>…<h6>: read as a heading, unless inside code too

    def flush() -> None:
        text = "".join(run)
        if text.strip():
            blocks.append((start[0], text, heading[0] > 0))
        run.clear()

    class Reader(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag in _HTML_HEADINGS:
                flush()
                heading[0] += 1
            elif tag in _HTML_SKIP:
                skip[0] += 1
            elif tag in _HTML_BLOCKS:
                flush()
            elif tag == "img":  # its alt text, as an image's in markdown
                alt = dict(attrs).get("alt")
                if alt and not skip[0]:
                    flush()
                    blocks.append((self.getpos()[0] - 1, alt, False))

        def handle_endtag(self, tag: str) -> None:
            if tag in _HTML_HEADINGS:
                flush()
                heading[0] = max(0, heading[0] - 1)
            elif tag in _HTML_SKIP:
                skip[0] = max(0, skip[0] - 1)
            elif tag in _HTML_BLOCKS:
                flush()

        def handle_data(self, data: str) -> None:
            if skip[0]:
                return
            if not run:
                start[0] = self.getpos()[0] - 1 + (len(data) - len(data.lstrip("\n")))
            run.append(data)

    reader = Reader(convert_charrefs=True)
    # a "<" that no ">" closes before the next "<" is text: html.parser rescans an unclosed
    # construct from its start on every piece it reads (quadratic on "<a <a <a …"); and a
    # quote or a comment left open inside a tag is cut at its ">" the same way
    reader.feed(_TAG.sub(_closed_quotes, _UNCLOSED.sub("&lt;", html[:HTML_CHARS])))
    reader.close()
    flush()
    if len(html) > HTML_CHARS:  # fail closed: what is not read is not accounted for
        blocks.append(
            (
                html.count("\n", 0, HTML_CHARS),
                f"This raw HTML block is longer than {HTML_CHARS:,} characters and the rest of it is not read.",
                False,
            )
        )
    return blocks


# an explicit gap: ``[gap: what the sources do not say]`` (docs/format.md), found in the
# parsed text (code spans and fences never hold one). The reason holds no bracket: an
# unclosed ``[gap:`` stops scanning at the next ``[``, so no text is rescanned (linear).
_GAP = re.compile(r"\[gap:\s*([^\[\]\x00]*)\]")


# a code span that holds words, not code ("`the council declared war on Canada`"): three
# words or more of letters only, one of them a word of prose (an article, a preposition,
# an auxiliary: "pip install clawteam" is a command); its words are the sentence's
_PROSE_CODE = re.compile(r"\s*[A-Za-z][a-z'’]*(?:\s+[A-Za-z][a-z'’]*){2,}\s*[.!]?\s*")
_PROSE_WORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "and",
        "that",
        "this",
        "is",
        "was",
        "were",
        "are",
        "has",
        "have",
        "had",
        "been",
        "will",
    ]
)


def _prose_code(content: str) -> bool:
    if len(content) > 1000 or not _PROSE_CODE.fullmatch(content):
        return False
    return any(w.lower() in _PROSE_WORDS for w in content.split())


STATEMENT_WORDS = 4  # a shorter sentence (a table header, a list label) states nothing


def _asserting(said: str, heading: bool, labels_ok: bool = False, pointed: bool = False) -> bool:
    if heading:
        return _heading_statement(said)
    if pointed:  # an item of a "See also" list: a link and words about it
        return _pointed_statement(said)
    return _statement(said, labels_ok=labels_ok)


def _pointed_statement(said: str) -> bool:
    """Whether an item of a "See also"-style list (a link, then words about it: link text
    is blanked in ``said``) says more than what the link is: POINTED_WORDS words or more
    with a verb in them ("[[Index]] — the council declared war on Canada and the mayor
    fled."). "[[Harbour]] — the dredging of the harbour in 1930" is a description."""
    counted = [w for w in said.split() if any(c.isalpha() for c in w)]
    if _prose_words(said) < POINTED_WORDS or not _statement(said):
        return False
    if _dated_clause(said):  # "[[Harbour]], which the mayor sold in 2022 for 1 pound"
        return True
    for i, w in enumerate(counted):  # a verb in a relative clause describes the link
        word = w.strip(_PUNCT).lower()
        if word in _RELATIVES:
            return False
        following = counted[i + 1].strip(_PUNCT).lower() if i + 1 < len(counted) else ""
        if _auxiliary(w, counted[i + 1] if i + 1 < len(counted) else ""):
            return True
        if not i or not w[:1].islower():
            continue
        past = _past(word) or word in IRREGULAR_PAST
        if past and following not in _PREPOSITIONS | {"between", "into", "as"}:
            return True  # "patterns affected by …" is a participle: a description
        if _present(counted, i) and following not in ("that", "which"):
            return True
    return False


_CLAUSE_WORD = re.compile(r"\b(?:that|which|who|whom|where|when)\b", re.I)


def _dated_clause(said: str) -> bool:
    """Whether a link's description has a clause ("which …", "that …") stating a dated
    event: a number of two digits or more and a past tense after the clause's word
    ("which the mayor sold in 2022", "minutes recording that the bridge collapsed in
    2024"). "the rules that apply to every keeper" describes the link."""
    m = _CLAUSE_WORD.search(said[:2000])
    if m is None:
        return False
    rest = said[m.end() : 2000]
    words = [w.strip(_PUNCT).lower() for w in rest.split()]
    return bool(_DIGITS.search(rest)) and any(
        w in ("was", "were", "had") or _past(w) or w in IRREGULAR_PAST for w in words
    )


_RELATIVES = frozenset(
    ["that", "which", "who", "whom", "whose", "where", "when", "why", "how", "what", "for"]
)


def _callout(tokens: list[Token], i: int) -> bool:
    """Whether the block quote opened at ``tokens[i]`` is an Obsidian callout: its first
    line starts with ``[!`` ("> [!summary]"), the writer's own words in a box."""
    return (
        i + 2 < len(tokens)
        and tokens[i + 1].type == "paragraph_open"
        and tokens[i + 2].type == "inline"
        and tokens[i + 2].content.lstrip().startswith("[!")
    )


# what may stand between a sentence's last reference and the text after it
_JOINS = "\x00\"'”’)]*_ \t\n,;:—–-("


def _uncited_tail(tail: str, heading: bool) -> bool:
    """Whether the text after a sentence's last reference (``tail``, the joining
    punctuation taken off) states something the reference does not cover: four words or
    more with a verb in them, or after a word that opens a clause ("…plan[^1], after which
    the council declared war", "…plan[^1] because …", "…plan[^1], the council declared
    …"). "…backed by the mayor[^1] and by the bishop of the diocese." continues the cited
    sentence: no verb, no clause."""
    if heading:
        return _heading_statement(tail)
    words = tail.split()
    counted = [w for w in words if any(c.isalpha() for c in w)]
    if len(counted) < STATEMENT_WORDS or not _statement(tail):
        return False
    if _ABSOLUTE.match(tail):  # "…[^1], with the mayor stealing the funds"
        return True
    first = counted[0].strip("\"'“‘(*_,").lower()
    return first in _CLAUSE_OPENERS or _verb_like(counted, past=True, present=True)


# a subordinate clause that opens a sentence and states an event of its own
_SUBORDINATE = re.compile(
    r"[*_\"'“‘]*(?:after|before|when|while|since|although|though|because|once|until|whereas"
    r"|as)\s",
    re.I,
)


def _leading_clause(said: str, mark: int) -> int:
    """The length of a subordinate clause opening a cited sentence before its first
    comma, when the sentence's reference comes after that comma and the clause states
    something of its own (four words or more with a finite verb: "After the mayor fled
    to Canada in 1922, | the committee adopted the plan in full.[^1]"), else 0. A
    reference covers its main clause; the opening clause is an uncited assertion unless
    a reference follows it too ("…in 1922,[^2] the committee …")."""
    if not _SUBORDINATE.match(said):
        return 0
    comma = said.find(",", 0, 2000)
    if comma < 0 or comma > mark or not any(c.isalpha() for c in said[comma:mark]):
        return 0  # a reference before the comma, or right after it, cites the clause
    counted = [w for w in said[:comma].split() if any(c.isalpha() for c in w)]
    if len(counted) < STATEMENT_WORDS or not _verb_like(counted[1:], past=True, present=True):
        return 0
    return comma


# a clause of its own without a finite verb: a subject and a gerund or "having" with an
# object after "with", "despite" … ("with the mayor stealing the harbour funds", "despite
# the mayor having stolen …"); "despite opposition from the board" is a phrase
_ABSOLUTE = re.compile(
    r"\s*(?:with|without|despite|amid|notwithstanding|after|before)\s+"
    r"(?:[\w'’-]+\s+){1,4}?(?:having\s+[a-z]+|being\s+[a-z]+|(?!during\b|including\b"
    r"|according\b|regarding\b|concerning\b|following\b|pending\b)[a-z]{2,}ing)\s+"
    r"(?:the|a|an|its|their|his|her|this|that|these|those|\d|[a-z]+\s+(?:the|a|an)\b)",
    re.I,
)
_CONJUNCTION = re.compile(r"(?:and|but|or|yet|so|while|whereas|although|though)\s+", re.I)
# words that open a clause of its own after a reference
_CLAUSE_OPENERS = frozenset(
    {"because", "which", "when", "whereupon", "after", "before", "since", "so", "then"}
    | {"while", "whereas", "although", "though", "yet", "but", "until", "who", "thus"}
    | {"hence", "therefore", "the", "this", "that", "it", "he", "she", "they", "we"}
)


def _statement(said: str, *, labels_ok: bool = False, stopped_label: bool = False) -> bool:
    """Whether a sentence asserts something (docs/checks.md, "Every statement accounted
    for"): ``said`` is its text without code spans and link text. It takes four words
    or more (or two, ending in a stop: "War was declared."); a question, a lead-in ending
    in ``:``, a pointer ("See [[X]] for more") or a metadata line ("Sources: raw/a.md")
    whose words past the pointer or label are few, and a hatnote or a pointer to a table
    or figure ("This article is about …", "For the village, see …", "The table below
    summarises …") assert nothing. With ``stopped_label`` (a front matter field) a label
    may end in a full stop ("Notes on the harbour and the council.")."""
    words = said.split()
    counted = [w for w in words if any(c.isalpha() for c in w)]
    last = said.replace(MARK, " ").rstrip().rstrip("\"'”’)*_")
    if labels_ok and _label(said, last.removesuffix(".") if stopped_label else last, counted):
        return False  # a caption, a cell, a list item without a verb: a label
    if len(counted) < STATEMENT_WORDS and not (
        len(counted) >= 2 and last.endswith((".", "!")) and _verb_like(counted)
    ):
        return _labelled_event(said)
    if _instruction(said):
        return False  # "Edit the sources, not this page.", "Do not confuse …": an instruction
    if last.endswith(":"):  # a lead-in, unless it states a dated event before its colon
        return _dated_lead_in(said, counted)
    if (
        last.endswith("?")
        and _asks(said)
        and not _EMBEDDED.search(said[-2000:])
        and not _presupposes(said)
    ):
        return False
    if _TODO.match(said):  # a note to the writer, not a claim about the subject
        return False
    navigation = _NAVIGATION.match(said)
    if (
        navigation
        and len(counted) <= NAVIGATION_WORDS
        and not _THAT.search(said)
        and not _RELATIVE_CLAUSE.search(said)
        and not _clause_after(said[navigation.end() : 2000])
        and not any(_bracketed_clause(m.group(0)) for m in _BRACKETED.finditer(said[:2000]))
    ):
        return False  # unless a clause in it asserts ("…, which collapsed in 2024")
    if ";" in said and _label_and_pointer(said.split(";")):
        return False  # "Proposal only; see the sources below."
    label = _LABEL.match(said)
    if label:  # a label and a list of paths or links, not a label and a sentence
        rest = said[label.end() :]
        return _prose_words(rest) >= POINTED_WORDS or any(
            _prose_words(part) >= STATEMENT_WORDS - 1 and _verb_like(part.split(), present=True)
            for part in rest.split(";")[1:]
        )
    if words[0].strip("*_").lower() in POINTERS:  # unless a clause of its own follows
        return any(
            _prose_words(part) >= STATEMENT_WORDS
            or (_RELATIVE_START.match(part) and _clause_words(part) >= STATEMENT_WORDS)
            for part in _CLAUSES.split(said)[1:]
        )
    return True


# a relative clause with a verb in a hatnote: "Not to be confused with the Tam bridge,
# which collapsed in 2024", "For the collapse … that killed 12 people, see …"
_RELATIVE_CLAUSE = re.compile(
    r"(?:,\s*(?:which|who|whose)\s+|\b(?:that|which|who)\s+)(?:[a-z]+\s+)?"
    r"(?:[a-z]{2,}ed|was|were|had|has|is|are|killed|fell|died|led|won|lost|sold|built|became)\b",
    re.I,
)
_RELATIVE_START = re.compile(r"\s*(?:which|who|whose|where|when)\b", re.I)


def _clause_after(rest: str) -> bool:
    """Whether what follows a pointer's verb is a clause of its own with "that" left out
    ("The table below shows | the mayor stole the harbour funds."): a verb that can only
    be finite (an irregular simple past such as "stole", an auxiliary) or a past tense
    before an object (a determiner or a number), not inside a relative clause ("the
    stations that were closed", "the stations opened between 1850 and 1900")."""
    words = [w.strip(_PUNCT).lower() for w in rest.split()]
    for i, word in enumerate(words):
        if word in _RELATIVES:
            return False
        following = words[i + 1] if i + 1 < len(words) else ""
        if i and (word in SIMPLE_PAST or word in ("was", "were", "had", "did")):
            return True
        if i and _past(word) and (following in _DETERMINERS or following[:1].isdigit()):
            return True
    return False


def _bracketed_clause(aside: str) -> bool:
    """Whether a bracketed aside of a hatnote states something: a past tense or a
    participle with a number or a gerund's object ("(collapsed in 2024, killing 12
    people)"), or a past tense first ("(dissolved after the mayor's fraud)"). "(1921–1950)"
    and "(disambiguation)" are labels."""
    words = [w.strip(_PUNCT).lower() for w in aside.split()]
    if not words:
        return False
    pasts = [w for w in words if _past(w) or w in IRREGULAR_PAST]
    if words[0] in pasts and len(words) >= 2:
        return True
    gerund = any(
        len(w) > 5
        and w.endswith("ing")
        and i + 1 < len(words)
        and (
            words[i + 1] in _DETERMINERS
            or words[i + 1][:1].isdigit()
            or bool(_NUMBER_WORDS.fullmatch(words[i + 1]))
        )
        for i, w in enumerate(words)
    )
    return gerund or (bool(pasts) and bool(_DIGITS.search(aside)))


def _clause_words(text: str) -> int:
    """Words of a clause, numbers included ("which opened in 2024"), not paths."""
    return sum(
        1
        for w in text.split()
        if any(c.isalnum() for c in w) and "/" not in w and not re.search(r"\w\.\w", w)
    )


def _label_and_pointer(parts: list[str]) -> bool:
    """Whether the parts of a sentence between semicolons are labels (noun phrases of a
    few words without a verb, "Proposal only") and at least one pointer ("see the sources
    below"): a status line, not a claim."""
    pointers = 0
    for part in parts:
        counted = [w for w in part.split() if any(c.isalpha() for c in w)]
        if not counted:
            continue
        if counted[0].strip(_PUNCT + "*_").lower() in POINTERS:
            pointers += 1
            if _prose_words(part) > POINTED_WORDS:
                return False
        elif len(counted) > LABEL_WORDS // 2 or _finite(counted):
            return False
    return pointers > 0


# a label and a short value that states an event: "**2024:** bridge collapsed, 12 dead"
_LABELLED = re.compile(r"\s*[*_]*[^:*_\n]{1,40}[*_]*\s*:[*_]*\s*(.+)", re.S)


# past-tense labels that date the page, not its subject ("Created: 2024-01-01")
_PAGE_DATES = frozenset(
    {"created", "updated", "modified", "reviewed", "edited", "added", "generated", "compiled"}
    | {"imported", "synced", "verified", "checked", "ingested", "fetched", "retrieved"}
    | {"accessed", "captured", "archived", "revised", "tested", "changed", "moved"}
)


def _labelled_event(said: str) -> bool:
    """Whether a short "label: value" line (fewer than four words) states an event: its
    value holds a finite verb ("2024: bridge collapsed, 12 dead"; "Status: draft" not), or
    its label is a past tense and its value a date ("Opened: 1998"; "Created: 2024-01-01"
    dates the page)."""
    m = _LABELLED.match(said[:500])
    if not m or _LABEL.match(said) or _TODO.match(said):
        return False
    label = said[: m.start(1)].strip(" *_:\t").lower()
    if (
        " " not in label
        and (_past(label) or label in IRREGULAR_PAST)
        and label not in _PAGE_DATES
        and any(c.isdigit() for c in m.group(1))
    ):
        return True  # "**Opened:** 1998", "Built: 1901 by the county": an event and its date
    counted = [w for w in m.group(1).split() if any(c.isalpha() for c in w)]
    words = [w.strip(_PUNCT).lower() for w in counted]
    return len(counted) >= 2 and any(
        i
        and counted[i][:1].islower()
        and (_past(w) or w in IRREGULAR_PAST)
        and (words[i + 1] if i + 1 < len(words) else "") != "by"
        for i, w in enumerate(words)
    )


# a question that presupposes a dated event: a question word, a number of two digits or
# more (or in words) and a past tense ("Why did the bridge collapse in 2024?", "How did the 2024
# collapse kill 12 people?"); "When was the plan abandoned?" asks
_DIGITS = re.compile(r"(?<![\w.])\d{2,}(?![\w.]\w)")
# the same in words: "in nineteen twenty-two", "killing twelve people"
_NUMBER_WORDS = re.compile(
    r"\b(?:ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
    r"|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundreds?|thousands?|millions?"
    r"|dozens?)\b",
    re.I,
)


def _presupposes(said: str) -> bool:
    words = said[:2000].split()
    if not words or words[0].strip("\"'“‘(*_#").lower() not in QUESTION_WORDS:
        return False
    if not _DIGITS.search(said[:2000]) and not _NUMBER_WORDS.search(said[:2000]):
        return False
    return any(
        i and (w in ("did", "was", "were", "had") or _past(w) or w in IRREGULAR_PAST)
        for i, w in enumerate(x.strip(_PUNCT).lower() for x in words)
    )


# an instruction to the reader: a verb's base form first, then an article, a possessive
# or "not" ("Edit the sources, not this page.", "Do not confuse …", "Please cite …"); a
# word that opens a sentence otherwise (a preposition, a conjunction, a pronoun) is not
# one, nor a past tense ("Built the bridge …"), a third person ("Revokes the …") or a
# gerund ("Building the bridge took …")
_NOT_IMPERATIVE = frozenset(  # and AUXILIARIES
    [
        "see",  # a pointer: its own rule
        "compare",
        "underneath",
        "atop",
        "amongst",
        "alongside",
        "whilst",
        "note",
        "in",
        "on",
        "at",
        "by",
        "for",
        "from",
        "with",
        "after",
        "before",
        "during",
        "under",
        "over",
        "since",
        "unlike",
        "like",
        "despite",
        "through",
        "across",
        "among",
        "between",
        "against",
        "along",
        "around",
        "behind",
        "beyond",
        "near",
        "into",
        "within",
        "without",
        "as",
        "when",
        "while",
        "if",
        "once",
        "until",
        "unless",
        "because",
        "although",
        "though",
        "whereas",
        "where",
        "whether",
        "both",
        "half",
        "only",
        "even",
        "then",
        "thus",
        "so",
        "yet",
        "and",
        "but",
        "also",
        "hence",
        "of",
        "to",
        "upon",
        "toward",
        "towards",
        "via",
        "per",
        "following",
        "including",
        "regarding",
        "concerning",
        "given",
        "throughout",
        "outside",
        "inside",
        "above",
        "below",
        "beneath",
        "beside",
        "besides",
        "except",
        "amid",
        "onto",
        "off",
        "past",
        "round",
        "all",
        "nearly",
        "almost",
        "today",
        "yesterday",
        "later",
        "now",
        "here",
        "there",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "why",
        "how",
        "it",
        "he",
        "she",
        "they",
        "we",
        "you",
        "i",
        "this",
        "that",
        "these",
        "those",
        "such",
        "each",
        "every",
        "many",
        "most",
        "some",
        "any",
        "no",
        "not",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "first",
        "last",
        "next",
        "another",
        "other",
        "either",
        "neither",
        "the",
        "a",
        "an",
    ]
)
_IMPERATIVE = re.compile(
    r"\s*[*_]*(?:(?i:do\s+not|don't|don’t|never|please)\s+[a-z]+"
    r"|([A-Za-z][a-z]{1,15})\s+(?:the|a|an|your|this|these|those|any|each|every|all|it"
    r"|them)\s)"
)


_INSTRUCTION_PARTS = re.compile(r"[;—–]|\s-\s")


def _instruction(said: str) -> bool:
    """An instruction and nothing else: an imperative without a number, an embedded
    "that" or a simple past after its verb ("Remember the mayor stole …"), each clause after a dash or a semicolon an imperative too or a few words
    ("Do not use X — the server will fail to boot." asserts after its dash)."""
    if not _imperative(said) or _THAT.search(said) or any(c.isdigit() for c in said):
        return False
    if any(w.strip(_PUNCT).lower() in SIMPLE_PAST for w in said[:2000].split()[1:]):
        return False  # "Remember the mayor stole the funds.": "that" left out
    return all(
        _imperative(part) or _prose_words(part) < STATEMENT_WORDS
        for part in _INSTRUCTION_PARTS.split(said[:2000])[1:]
    )


def _imperative(said: str) -> bool:
    """An instruction to the reader: a verb's base form first, then an article, a
    possessive or "not" ("Edit the sources, not this page.", "Do not confuse …", "Please
    cite …"). A word that opens a sentence otherwise (a preposition, a conjunction, a
    pronoun) is not one, nor a past tense ("Built the bridge …"), a third person
    ("Revokes the …"), a gerund ("Building the bridge took …") or an adverb."""
    m = _IMPERATIVE.match(said)
    if m is None:
        return False
    first = (m.group(1) or "").lower()
    return not first or (
        first not in _NOT_IMPERATIVE
        and first not in AUXILIARIES
        and first not in IRREGULAR_PAST
        and not first.endswith(("ed", "ing", "ly", "s"))
    )


_CLAUSES = re.compile(r"[,;:—(]")
# a pointer or a hatnote that embeds an assertion ("The table below shows that …")
_THAT = re.compile(r"\b(?:shows?|says?|notes?|finds?|confirms?|proves?)\s+that\b", re.I)


POINTED_WORDS = 6  # words past a pointer or a label that make a sentence of their own
NAVIGATION_WORDS = 16  # a hatnote longer than this says more than where to go
# hatnotes and pointers to what the page shows: they say where to look, not what is so
_NAVIGATION = re.compile(
    r"\s*[*_]*(?:(?:this|the)\s+(?:article|page|section|entry|note)\s+(?:is|covers)\s+about\b"
    r"|for\s+[^.;]{1,80},\s*see\b"
    r"|not\s+to\s+be\s+confused\s+with\b"
    r"|.{0,80}\bredirects\s+here\b"
    r"|(?:this|the)\s+(?:page|section|article|entry|note|list|index|wiki)s?\s+"
    r"(?:below\s+|above\s+)?"
    r"(?:lists?|summari[sz]es?|shows?|describes?|covers?|follows?|gives?|collects?|traces?)\b"
    r"|(?:below|above)\s+(?:is|are)\s+(?:a|an|the)\b"
    r"|(?:the\s+)?(?:following|sections?\s+below|sections?\s+above)\s+(?:sections?\s+)?"
    r"(?:lists?|summari[sz]es?|shows?|describes?|covers?|follows?|gives?|traces?)\b"
    r"|(?:the\s+)?(?:photograph|photo|image|picture|illustration|drawing)\s+(?:below|above)"
    r"\s+(?:shows?|gives?)\b"
    r"|\(?(?:unless\s+(?:otherwise\s+)?(?:noted|stated|indicated)(?:\s+otherwise)?,\s*)?"
    r"(?:all\s+)?(?:dates|figures|numbers|quotations|quotes|times|amounts|prices|values)\s+"
    r"(?:(?:are|were)\s+(?:given|from|taken|as|in|quoted|rounded|approximate|nominal)"
    r"|(?:come|came)\s+from|in)\b"
    r"|(?:this|the)\s+(?:page|section|article|entry|note|wiki)\s+(?:is|was)\s+(?:maintained"
    r"|generated|written|compiled|kept|edited|built|created|updated)\s+(?:by|from|with)\b"
    r"|(?:compiled|generated|maintained|written)\s+(?:by|from)\s+(?:an?|the)\b"
    r"|(?:the|this)\s+(?:following\s+)?(?:table|list|figure|diagram|chart|map|graph|timeline)"
    r"(?:\s+(?:below|above))?\s+(?:summari[sz]es|shows|lists|gives|compares|sets\s+out)\b)",
    re.I,
)


LEAD_IN_WORDS = 7  # a lead-in this long with a number and a past tense states an event


def _dated_lead_in(said: str, counted: list[str]) -> bool:
    """Whether a sentence ending in ``:`` states something before its colon: LEAD_IN_WORDS
    words or more, a number and a verb in the past tense ("The council declared war on
    Canada in 1921 for three reasons:"). "The plan had three parts:" is a lead-in."""
    return (
        len(counted) >= LEAD_IN_WORDS
        and any(c.isdigit() for c in said)
        and any(
            i
            and w[:1].islower()
            and (_past(w.strip(_PUNCT).lower()) or w.strip(_PUNCT).lower() in IRREGULAR_PAST)
            for i, w in enumerate(counted)
        )
    )


# a question that asserts: "Did you know that …?", a tag question ("…, wasn't he?"), a
# rhetorical tag after a dash ("… — who knew?")
_EMBEDDED = re.compile(
    r"\b(?:did|do)\s+you\s+know\s+(?!how\b|what\b|why\b|when\b|where\b|which\b|who\b"
    r"|whether\b|if\b)"
    r"|\b(?:isn't|isn’t|is\s+it\s+not)\s+(?:it\s+)?true\s+that\b"
    r"|,\s*(?:isn't|wasn't|aren't|weren't|didn't|doesn't|don't|hasn't|haven't|hadn't|won't"
    r"|can't|couldn't|wouldn't|is|was|are|were|did|does|has|had)\s+(?:it|he|she|they|there"
    r"|that|we|you|i)\s*\?"
    r"|[—–]\s*who\s+knew\s*\?",
    re.I,
)


def _asks(said: str) -> bool:
    """Whether a sentence ending in "?" is a question in form: a question word or an
    auxiliary first (or first after a comma, a colon, a dash or an opening quote: "…, and
    is it safe?", 'liveness — "is this container alive?"'), or a hedge
    ("Perhaps it is the same issue?"). "The council declared war on Canada?" is a
    statement with a question mark."""
    for part in re.split(r"[,:;—\"“]", said[:2000]):
        words = part.split()
        if words and words[0].strip("\"'“‘(*_").lower() in _ASKING:
            return True
    return any(w.strip("\"'“‘(*_,?").lower() in _UNSURE for w in said[:2000].split())


def _prose_words(text: str) -> int:
    """Words of ``text`` that are not paths, file names or links (blanked already)."""
    return sum(
        1
        for w in text.split()
        if any(c.isalpha() for c in w) and "/" not in w and not re.search(r"\w\.\w", w)
    )


def _heading_statement(said: str) -> bool:
    """A heading that is a sentence: it ends in a stop and takes four words or more, or it
    takes HEADING_WORDS words or more ("The council declared war on Canada in May")."""
    counted = sum(1 for w in said.split() if any(c.isalpha() for c in w))
    last = said.rstrip().rstrip("\"'”’)*_")
    if last.endswith("?"):  # unless it presupposes a dated event
        return counted >= STATEMENT_WORDS and _presupposes(said)
    if last.endswith(":"):
        return False
    if counted >= STATEMENT_WORDS and last.endswith((".", "!")):
        return True
    words = said.split()
    asks = bool(words) and words[0].strip("*_").lower() in QUESTION_WORDS
    if asks:
        return False
    if counted >= HEADING_WORDS and _verb_like(words, past=False):
        return True
    # a headline: a number or a year and a verb in the past or the present ("Council
    # declares war on Canada in 1921", "Mayor fled to Canada in 1922")
    bare = _BRACKETED.sub(" ", said).split()  # "(recommended, documented from 26.6)": an aside
    return (
        counted >= STATEMENT_WORDS
        and any(c.isdigit() for c in said)
        and any(_headline_verb(bare, i) for i in range(1, len(bare)))
    )


_BRACKETED = re.compile(r"\([^()]{0,200}\)|\[[^\[\]]{0,200}\]")


def _headline_verb(words: list[str], i: int) -> bool:
    """Whether ``words[i]`` (past the first) reads as a finite verb in a headline: a past
    tense ("declared", "fled"), or a present tense before a word that is no preposition
    ("declares war")."""
    w = words[i]
    word = w.strip(_PUNCT).lower()
    if not w[:1].islower():
        return False
    if _past(word) or word in IRREGULAR_PAST:
        return True
    following = words[i + 1].strip(_PUNCT) if i + 1 < len(words) else ""
    return (
        len(word) > 3
        and word.endswith("s")
        and not word.endswith(("ss", "us", "is", "'s", "’s"))
        and word == w
        and following[:1].islower()
        and following not in _PREPOSITIONS
    )


QUESTION_WORDS = frozenset({"how", "what", "why", "when", "where", "which", "who", "whether"})
_UNSURE = frozenset({"maybe", "perhaps", "probably", "possibly"})


HEADING_WORDS = 6  # a heading this long with a verb in it is a sentence, stop or not
# a finite verb a short sentence or a long heading asserts with ("War was declared.",
# "Two kinds of export — they are not interchangeable"): an auxiliary, or (in a sentence,
# not a heading, where "(supported vs. recommended)" is no verb) a lower-case word past
# the first ending in "ed"
AUXILIARIES = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "has",
        "have",
        "had",
        "does",
        "did",
        "do",
        "will",
        "would",
        "can",
        "cannot",
        "could",
        "must",
        "shall",
        "should",
        "may",
        "might",
        "isn't",
        "aren't",
        "wasn't",
        "weren't",
        "hasn't",
        "haven't",
        "hadn't",
        "doesn't",
        "didn't",
        "won't",
        "can't",
    ]
)


def _auxiliary(word: str, following: str = "") -> bool:
    """Whether a word (as written, ``following`` the word after it) is an auxiliary:
    "May" with its capital is the month ("meeting of 3 May 1921", "held in May", "May and
    June"), unless a verb follows ("May attack or call guards"); "may" is the modal."""
    bare = word.strip(_PUNCT)
    if bare == "May":
        nxt = following.strip(_PUNCT)
        # a verb is a word of letters ("May 1921 (raw/minutes.txt)": a path is none)
        verb = nxt.replace("-", "")
        return bare == word and verb.isalpha() and nxt.islower() and nxt not in _PREPOSITIONS
    return bare.lower() in AUXILIARIES


_ASKING = QUESTION_WORDS | AUXILIARIES | {"whom", "or", "and", "but", "so"}


def _verb_like(words: list[str], *, past: bool = True, present: bool = False) -> bool:
    """Whether a word of ``words`` looks like a finite verb: an auxiliary; (``past``) a
    lower-case word past the first ending in "ed" or an irregular past ("fled", "lied",
    "led"); (``present``) a lower-case word past the first ending in "s" before a
    determiner ("…, which costs the town…")."""
    for i, w in enumerate(words):
        word = w.strip(_PUNCT).lower()
        if _auxiliary(w, words[i + 1] if i + 1 < len(words) else ""):
            return True
        if not i or not w[:1].islower():
            continue
        if past and (_past(word) or word in IRREGULAR_PAST):
            return True
        if present and _present(words, i):
            return True
    return False


_PUNCT = "\"'”’“‘()[]*_,.;:!?"


def _past(word: str) -> bool:
    """A past tense, not a compound ("browser-based") or "-eed" ("need")."""
    return len(word) > 3 and word.endswith("ed") and not word.endswith("eed") and "-" not in word


_ARTICLES = frozenset(["the", "a", "an"])


def _present(words: list[str], i: int) -> bool:
    """Whether ``words[i]`` is a verb in the third person: ending in ``s`` before a
    determiner ("Classifies the game archetype"), and not after an article, where it is a
    noun ("the types the importer wraps")."""
    word = words[i].strip(_PUNCT)
    return (
        len(word) > 3
        and (i == 0 or words[i - 1].strip(_PUNCT).lower() not in _ARTICLES)
        and word.endswith("s")
        and not word.endswith(("ss", "us", "is", "'s", "’s"))
        and word == words[i]  # no punctuation between it and the next word
        and i + 1 < len(words)
        and words[i + 1].strip(_PUNCT).lower() in _DETERMINERS
    )


# the simple past of irregular verbs that is no participle and no common noun ("stole",
# "took", "forgave"; not "built", "saw", "thought"): a finite verb wherever it stands,
# first in a table cell too ("| Jane Hill | took bribes |")
SIMPLE_PAST = frozenset(
    [
        "arose",
        "ate",
        "awoke",
        "became",
        "began",
        "blew",
        "broke",
        "came",
        "chose",
        "did",
        "drank",
        "drove",
        "fell",
        "flew",
        "forbade",
        "forgave",
        "forgot",
        "forsook",
        "froze",
        "gave",
        "grew",
        "hid",
        "knew",
        "mistook",
        "overtook",
        "overthrew",
        "ran",
        "rang",
        "rode",
        "rose",
        "sang",
        "sank",
        "shook",
        "slew",
        "slid",
        "spoke",
        "sprang",
        "stank",
        "stole",
        "strode",
        "strove",
        "swam",
        "swore",
        "threw",
        "took",
        "tore",
        "undertook",
        "went",
        "withdrew",
        "woke",
        "wore",
        "wrote",
    ]
)
# a common irregular past a short sentence asserts with ("The mayor fled."): the simple
# pasts above and a few irregular pasts that are participles too ("built", "sold"; not
# "stuck", "sent", "caught", which label states: "Session stuck", "Errors caught early")
IRREGULAR_PAST = SIMPLE_PAST | frozenset(
    [
        "fled",
        "lied",
        "led",
        "fell",
        "rose",
        "won",
        "lost",
        "made",
        "took",
        "gave",
        "went",
        "came",
        "sold",
        "bought",
        "built",
        "paid",
        "met",
        "left",
        "kept",
        "held",
        "told",
        "said",
        "found",
        "ran",
        "fought",
        "wrote",
        "broke",
        "began",
        "died",
        "burnt",
        "burned",
        "sank",
        "shut",
    ]
)
_DETERMINERS = frozenset(
    [
        "the",
        "a",
        "an",
        "its",
        "their",
        "his",
        "her",
        "this",
        "that",
        "these",
        "those",
        "it",
        "them",
        "all",
        "every",
        "no",
        "some",
    ]
)
# a noun and a relative clause ("Year the decision was taken"): a label
_RELATIVE = frozenset({"the", "when", "where", "whose", "in"})


LABEL_WORDS = 8  # a fragment longer than this says more than a label


def _label(said: str, last: str, counted: list[str]) -> bool:
    """Whether a caption, an alt text, a table cell or a list item is a label: a noun
    phrase of at most LABEL_WORDS words in the Latin script, without a stop at its end,
    a ``:`` or ``;`` (a label and a value, two clauses) or a finite verb (``_finite``).
    Text in another script is held to the rule: no verb can be told in it."""
    return (
        len(counted) <= LABEL_WORDS
        and not last.endswith((".", "!"))
        and ":" not in said
        and ";" not in said
        and all(_latin(w) for w in counted)
        and not _finite(counted)
    )


def _latin(word: str) -> bool:
    return all(c < "\u0250" for c in word if c.isalpha())


_PREPOSITIONS = frozenset(
    ["of", "and", "or", "for", "in", "on", "at", "by", "with", "from", "to", "per"]
)


def _finite(counted: list[str]) -> bool:
    """Whether a fragment (a caption, a cell, a list item without a stop) holds a finite
    verb: an auxiliary (not in a noun's relative clause, "Year the decision was taken"),
    a past tense not before "by" ("Mayor resigned in 1922", but "Lens replaced by a
    rotating beacon" is a participle phrase, a label), or a present tense before a
    determiner ("Classifies the game archetype")."""
    words = [w.strip(_PUNCT).lower() for w in counted]
    relative = len(words) > 1 and words[1] in _RELATIVE
    for i, word in enumerate(words):
        if _auxiliary(counted[i], counted[i + 1] if i + 1 < len(counted) else "") and not relative:
            return True
        following = words[i + 1] if i + 1 < len(words) else ""
        past = _past(word) or word in IRREGULAR_PAST
        if i and counted[i][:1].islower() and past and following != "by" and not relative:
            return True
        if _present(counted, i) or (not i and _present([""] + counted, 1)):
            return True
        if (  # "took bribes from the board", "Took the bribe": a verb first
            not i
            and word in SIMPLE_PAST
            and (counted[0][:1].islower() or following in _DETERMINERS)
            and not relative
        ):
            return True
    first = words[0] if words else ""  # "Revokes access tokens": a verb first
    return (
        len(first) > 3
        and first.endswith("s")
        and not first.endswith(("ss", "us", "is", "'s", "’s"))  # "Tamford's harbour board"
        and len(words) > 1
        and counted[1][:1].islower()
        and words[1] not in _PREPOSITIONS
        and not _past(words[1])
    )


POINTERS = frozenset({"see", "cf.", "compare"})  # a sentence starting so points elsewhere
# a metadata line in the page's text: "Sources: raw/a.md, raw/b.md", "**Last updated**: …"
_LABEL = re.compile(
    r"\s*[*_]*(?:sources?|references?|related|see also|tags|aliases|last updated|updated"
    r"|last reviewed|reviewed)"
    r"[*_]*\s*:",
    re.I,
)
_TODO = re.compile(r"\s*[*_]*(?:todo|fixme|to do)\b[*_]*\s*:", re.I)
# headings of sections that list, link or cite rather than state (their slugs)
ASIDES = frozenset(
    {
        "see-also",
        "related",
        "related-pages",
        "related-concepts",
        "related-topics",
        "links",
        "external-links",
        "further-reading",
        "references",
        "sources",
        "sources-used",
        "appearances-in-sources",
        "footnotes",
        "citations",
        "backlinks",
        "contents",
        "table-of-contents",
        "navigation",
        "glossary",  # terms and their definitions
        "changelog",  # the page's own history
        "change-log",
        "page-history",
        "revision-history",
    }
)


def _link_lines(content: str) -> bool:
    """Whether each line of a paragraph starts with a link: a list written without
    bullets ("[[Harbour]] — the dredging")."""
    return all(line.lstrip().startswith("[") for line in content[:10_000].splitlines())


_SOURCES_LABEL = re.compile(r"\s*[*_]*(?:sources?|references?)[*_]*\s*:", re.I)
SOURCES_HEADINGS = frozenset({"sources", "sources-used", "references", "source", "reference"})


def _sources_heading(heading: str) -> bool:
    return slugify(heading[:100]) in SOURCES_HEADINGS


def _aside(heading: str) -> bool:
    return slugify(heading[:100]) in ASIDES


def _external(href: str) -> bool:
    return "://" in href or href.startswith(("mailto:", "tel:", "data:"))


def _marks(text: str) -> list[tuple[int, int]]:
    """(reference index, its offset in ``text``) of each reference mark."""
    out = []
    pieces = text.split(MARK)
    at = len(pieces[0])
    for j in range(1, len(pieces), 2):
        out.append((int(pieces[j]), at))
        at += len(pieces[j]) + 2 + (len(pieces[j + 1]) if j + 1 < len(pieces) else 0)
    return out


def _strip_marks(text: str) -> str:
    pieces = text.split(MARK)
    return "".join(pieces[0::2])
