"""The text a reader sees of a page, for ``[presentation]`` (checks/presentation.py): the
page rendered to text by markdown-it (the project's parser, verifier/markdown.py), every
character with the line of the page it comes from.

- entities decoded (``&nbsp;`` is a space, ``&#114;`` an r), emphasis and inline tags
  removed (``w**or**ld`` is ``world``), soft and hard breaks and ``<br>`` read as spaces;
- Unicode folded (``fold``): NFKC (full-width ``ｗ`` is ``w``), invisible format characters
  removed (a soft hyphen, ``&shy;``, zero-width spaces and joiners), and the Cyrillic and
  Greek letters that look like Latin ones read as those (``LOOKALIKES``);
- an HTML comment is dropped whole, as a reader sees it (``world <!-- x --> class`` reads
  ``world class``);
- ``hidden=True`` (``avoid``): code blocks, front matter and the words inside HTML
  comments are read too (a phrase in a comment is hidden text, not absent text), the
  comments' words set apart after the page's text, on their own lines;
  ``hidden=False`` (``preserve``): they are not, nor the text of an inline HTML element
  that hides it (``hidden``, ``display:none``: markdown._hide); text no reader sees keeps
  nothing.

One parse and one pass over its tokens: linear in the page.
"""

from __future__ import annotations

import bisect
import html
import re
import unicodedata
from typing import NamedTuple

from markdown_it.token import Token

from ..markdown import _HIDING, ParseLimit, _bounded, _ended, _hide, _normalize, markdown

# Cyrillic and Greek letters that look like Latin ones, read as those (docs/config.md)
LOOKALIKES = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p",
    "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ј": "j", "ԁ": "d",
    "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l", "ь": "b",
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
    "С": "C", "Т": "T", "У": "Y", "Х": "X", "Ѕ": "S", "І": "I", "Ј": "J", "Ԛ": "Q",
    "Ԝ": "W", "Һ": "H", "Ӏ": "I",
    # Greek
    "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
    "τ": "t", "υ": "u", "χ": "x", "γ": "y",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
    "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
}  # fmt: skip
_LOOKALIKE_TABLE = str.maketrans(LOOKALIKES)

# format characters a reader does not see: soft hyphen, zero-width spaces and joiners,
# direction marks and embeddings, word joiner and invisible operators, BOM
_INVISIBLE = re.compile("[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f"
                        "\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufe00-\ufe0f\ufeff]")  # fmt: skip

# an HTML tag on one line; "<" to the next "<" or ">" at most, its name read once (possessive:
# no split of a long name between the two parts is tried), so linear on any line
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*+|)[^<>]*>")
# tags that break text where they stand: read as a space
_BREAKING = frozenset(
    {"br", "p", "div", "td", "th", "tr", "li", "hr", "img", "h1", "h2", "h3", "h4", "h5"}
    | {"h6", "table", "ul", "ol", "dd", "dt", "section", "blockquote", "pre", "wbr"}
)


def fold(text: str) -> str:
    """``text`` as matched: NFKC, invisible format characters removed, look-alikes Latin."""
    text = unicodedata.normalize("NFKC", text)
    return _INVISIBLE.sub("", text).translate(_LOOKALIKE_TABLE)


def _tag(m: re.Match[str]) -> str:
    name = (m.group(2) or "").lower()
    return " " if name in _BREAKING else ""


def strip_tags(line: str) -> str:
    """One line of raw HTML as text: tags removed (breaking ones as a space), entities
    decoded."""
    return html.unescape(_TAG.sub(_tag, line)) if "<" in line or "&" in line else line


def _comments(raw: str, out: Reading | None, line: int) -> str:
    """``raw`` (from line ``line`` on) with its HTML comments blanked whole, their line
    breaks kept, as a reader sees it (``world <!-- x --> class`` reads ``world class``).
    ``out``: the comments' words are read too (``hidden``), set aside (``Reading.aside``)
    on the lines they stand on. An unclosed comment runs to the end."""
    parts: list[str] = []
    at = 0
    while (start := raw.find("<!--", at)) >= 0:
        end = raw.find("-->", start + 4)
        stop = len(raw) if end < 0 else end + 3
        parts.append(raw[at:start])
        body = raw[start + 4 : stop - 3 if end >= 0 else stop]
        if out is not None:
            out.aside(body, line + raw.count("\n", 0, start))
        parts.append(" " + "\n" * body.count("\n") + " ")
        at = stop
    parts.append(raw[at:])
    return "".join(parts)


# an HTML tag, over lines too; its name read once (as _TAG)
_ANY_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*+)[^<>]*>")
# elements whose text is code, or no text a page shows
_CODE = frozenset({"pre", "code", "kbd", "samp", "script", "style", "template", "textarea"})


def _unseen(raw: str) -> str:
    """A raw HTML block without the text of code elements (``<pre>``, ``<code>``…) and of
    elements that hide it (``hidden``, ``display:none``: markdown._HIDING), their line breaks
    kept; an element never closed runs to the end of the block. One pass."""
    out: list[str] = []
    skip: list[str] = []
    at = 0
    for m in _ANY_TAG.finditer(raw):
        text = raw[at : m.start()]
        out.append("\n" * text.count("\n") if skip else text)
        out.append(m.group(0))
        at = m.end()
        name, tag = m.group(2).lower(), m.group(0)
        if m.group(1):
            if skip and name == skip[-1]:
                skip.pop()
        elif tag.endswith("/>"):
            continue
        elif (skip and name == skip[-1]) or (
            not skip and (name in _CODE or _HIDING.match(tag) is not None)
        ):
            skip.append(name)
    rest = raw[at:]
    out.append("\n" * rest.count("\n") if skip else rest)
    return "".join(out)


SEPARATE = "\x00"  # between texts a phrase does not run across (no word, no space)


class Heading(NamedTuple):
    line: int
    level: int
    text: str  # folded, words single-spaced, case-folded


class Reading:
    """The text a reader sees (folded), the line of each offset, and the headings."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.offsets: list[int] = []
        self.lines: list[int] = []
        self.headings: list[Heading] = []
        self.text = ""
        self._aside: list[tuple[str, int]] = []

    def aside(self, raw: str, line: int) -> None:
        """Hidden text (a comment's words, from line ``line`` on), read after the page's
        text, each apart (``finish``): a phrase within it is found, none across it."""
        self._aside.append((raw, line))

    def finish(self) -> None:
        for raw, line in self._aside:
            self.add(SEPARATE, line)
            for n, part in enumerate(raw.split("\n")):
                self.add(strip_tags(part) + " ", line + n)
        if self._aside:
            self.add(SEPARATE, self._aside[-1][1])
        self.text = "".join(self.parts)

    def add(self, piece: str, line: int) -> None:
        """``piece`` (no line break in it) as line ``line`` of the page."""
        piece = fold(piece)
        if not piece:
            return
        if not self.lines or self.lines[-1] != line:
            self.offsets.append(self.size)
            self.lines.append(line)
        self.parts.append(piece)
        self.size += len(piece)

    def add_lines(self, raw: str, line: int, tags: bool) -> None:
        """``raw``'s lines from line ``line`` on, each ended by a line break; ``tags``: raw
        HTML, read as strip_tags reads it."""
        for n, part in enumerate(raw.split("\n")):
            self.add(strip_tags(part) if tags else part, line + n)
            self.add("\n", line + n)

    def line(self, offset: int) -> int:
        i = bisect.bisect_right(self.offsets, offset) - 1
        return self.lines[max(0, i)] if self.lines else 1


def read(text: str, hidden: bool) -> Reading:
    """The page ``text`` as a reader sees it (see the module's doc)."""
    out = Reading()
    src = _normalize(text)
    try:
        _bounded(src)
    except ParseLimit:  # not parsed: read raw, every line (the page is held elsewhere)
        out.add_lines(src, 1, tags=True)
        out.text = "".join(out.parts)
        return out
    tokens = markdown().parse(_ended(src), {})
    aside = out if hidden else None
    line = 1
    for i, tok in enumerate(tokens):
        if tok.map is not None:
            line = tok.map[0] + 1
        if tok.type == "inline":
            start = len(out.parts)
            if tok.children:
                _inline(out, tok.children, line, hidden)
            elif tok.content:  # a footnote definition's body: read as written
                out.add_lines(_comments(tok.content, aside, line), line, tags=True)
            if i > 0 and tokens[i - 1].type == "heading_open":
                said = "".join(out.parts[start:])
                level = int(tokens[i - 1].tag[1:])
                out.headings.append(Heading(line, level, " ".join(said.split()).casefold()))
            out.add("\n", line)
        elif tok.type in ("fence", "code_block", "front_matter"):
            if hidden:
                first = line + 1 if tok.type != "code_block" else line
                out.add_lines(tok.content, first, tags=False)
        elif tok.type == "html_block":
            raw = _comments(tok.content, aside, line)
            if not hidden:
                raw = _unseen(raw)
                out.headings.extend(html_headings(raw, line))
            out.add_lines(raw, line, tags=True)
    out.finish()
    return out


_HTML_HEADING = re.compile(r"<h([1-6])(?=[\s/>])[^<>]*>", re.IGNORECASE)


def html_headings(raw: str, line: int) -> list[Heading]:
    """The ``<h1>`` … ``<h6>`` headings of a raw HTML block starting at ``line``: linear (each
    level's closing tag is looked for once per stretch of the block)."""
    out: list[Heading] = []
    lower = raw.lower()
    closes: dict[str, int] = {}
    used: dict[str, int] = {}
    counted, at = 0, line
    for m in _HTML_HEADING.finditer(raw):
        level = m.group(1)
        close = closes.get(level, -2)
        if close != -1 and close < m.end():
            close = closes[level] = lower.find(f"</h{level}", m.end())
        if close < 0 or used.get(level) == close:  # no end, or that heading read already
            continue
        used[level] = close
        at += raw.count("\n", counted, m.start())
        counted = m.start()
        said = " ".join(strip_tags(fold(raw[m.end() : close])).split()).casefold()
        out.append(Heading(at, int(level), said))
    return out


def _inline(out: Reading, children: list[Token], line: int, hidden: bool) -> None:
    hiding: list[str] = []  # inline HTML elements that hide their text (markdown._hide)
    for child in children:
        kind = child.type
        shown = hidden or not hiding
        if kind in ("softbreak", "hardbreak"):
            out.add(" ", line)
            line += 1
        elif kind in ("text", "text_special", "code_inline", "image") and shown:
            out.add(child.content, line)
        if kind in ("link_open", "image") and hidden and child.attrGet("title"):
            out.add(f" {child.attrGet('title')} ", line)  # a title: shown on hovering
        if kind == "wikilink" and shown:
            out.add(child.content.rpartition("|")[2], line)
        elif kind == "html_inline":
            if not child.content.startswith("<!--"):
                _hide(child.content, hiding)
            raw = _comments(child.content, out if hidden else None, line)
            parts = raw.split("\n")
            for n, part in enumerate(parts):
                out.add(strip_tags(part), line + n)
            line += len(parts) - 1
