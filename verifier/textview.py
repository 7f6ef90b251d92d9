"""A source's text as a reader sees it: its markup removed (HTML tags and comments,
entities, MediaWiki ``[[target|label]]``, ``[url label]``, ``''italics''`` and ``<ref>``
notes, markdown links and emphasis), each character of the view mapped back to the
raw text it was read from.

A quote of the rendered text is found in the view; its anchor stays an offset into the
raw text: where the raw span the quote maps to starts (``raw_span``), and its SHA-256
stays the quote's. A raw offset inside removed markup is no view offset
(``view_offset`` is None): an anchor there never matches through the view.

What the view keeps, so that it cannot make a quote say what the source does not:
strikethrough (``<s>``, ``<del>``, ``<strike>``, ``~~``) stays in, markup and all
(a reader sees the words struck); so do template calls (``{{…}}``), whose rendering
cannot be known here. And a match through the view may cross only markup that shows its
text as it is (``HARMLESS_TAGS`` without attributes but a link's, emphasis not touching a
digit, links, entities, line breaks): not a ``<script>``, ``<style>``, a hidden or styled
element, ``<sup>``/``<sub>``, an image, a comment or a ``<ref>`` (removed with its text),
each of which can join words a reader never sees together (``TextView.clean``). Building a view costs one linear pass of bounded regular
expressions over the text (no construct is searched for past the next bracket of its
kind, or past a fixed length); a text with more than MAX_EDITS pieces of markup gets no
view (None): its quotes are checked against its raw text alone.
"""

from __future__ import annotations

import html
import posixpath
import re
from bisect import bisect_right
from typing import NamedTuple

VIEW_VERSION = 1  # part of a markup source's reading (sources.reading_of): cached anchors
MAX_EDITS = 200_000  # pieces of markup one view removes or replaces, at most

MARKDOWN = frozenset({".md", ".markdown"})
MEDIAWIKI = frozenset({".wiki", ".mediawiki"})
HTML = frozenset({".html", ".htm", ".xhtml"})


def dialect(path: str) -> str | None:
    """The markup a source is read in, by its name: markdown, mediawiki, html, or None
    (plain text and PDFs: what a reader sees is the text itself)."""
    ext = posixpath.splitext(path.lower())[1]
    if ext in MARKDOWN:
        return "markdown"
    if ext in MEDIAWIKI:
        return "mediawiki"
    if ext in HTML:
        return "html"
    return None


_KEPT_TAGS = frozenset({"s", "strike", "del"})
# tags whose removal leaves their text as a reader sees it (when they carry no attributes,
# but a link's): anything else (script, style, template, sup, sub, a hidden or styled
# element…) may hide its text or change what it says, and a view match may not cross it
HARMLESS_TAGS = frozenset(
    [
        "a",
        "b",
        "i",
        "u",
        "em",
        "strong",
        "p",
        "br",
        "span",
        "div",
        "small",
        "big",
        "mark",
        "cite",
        "q",
        "abbr",
        "dfn",
        "code",
        "tt",
        "kbd",
        "var",
        "li",
        "ul",
        "ol",
        "dl",
        "dt",
        "dd",
        "blockquote",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "table",
        "thead",
        "tbody",
        "tfoot",
        "tr",
        "td",
        "th",
        "caption",
        "math",
        "center",
        "font",
    ]
)
LINK_ATTRIBUTES = frozenset({"href", "title", "rel", "target"})
_ATTRIBUTE_VALUE = re.compile(r"\"[^\"]*\"|'[^']*'")
_ATTRIBUTE_NAME = re.compile(r"[A-Za-z_:][-\w:.]*")
_TAG = r"</?(?P<tag>[A-Za-z][A-Za-z0-9]{0,30})(?:\s[^<>]{0,1000})?/?>"
_ENTITY = r"(?P<ent>&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});)"
_WIKILINK = r"\[\[(?P<wt>[^\[\]\n|]{1,500})(?:(?P<bar>\|)(?P<wl>[^\[\]\n]{0,500}))?\]\]"
_EXTLINK = r"\[(?:https?|ftp)://[^\s\[\]<>]{1,2000} (?P<el>[^\[\]\n]{1,500})\]"
_MDLINK = (
    r"!?\[(?P<ml>[^\[\]\n]{0,1000})\]"
    r"\((?:[^()\s\[\]]{0,2000}|<[^<>\n]{0,2000}>)(?:[ \t]+\"[^\"\n]{0,500}\")?\)"
)
_QUOTES = r"(?P<q>'{2,5})"  # MediaWiki's two to five apostrophes: italics, bold
_EMPHASIS = r"(?P<em>\*{1,3}|_{1,3}|`{1,3})"

_PATTERNS = {
    "markdown": re.compile("|".join([_TAG, _ENTITY, _WIKILINK, _MDLINK, _EMPHASIS])),
    "mediawiki": re.compile("|".join([_TAG, _ENTITY, _WIKILINK, _EXTLINK, _QUOTES])),
    "html": re.compile("|".join([_TAG, _ENTITY])),
}
# elements removed with what they hold: comments everywhere, MediaWiki's footnotes
_COMMENT_OPEN, _COMMENT_CLOSE = "<!--", "-->"
_REF_OPEN = re.compile(r"<ref(?:\s[^<>]{0,1000})?(?P<closed>/)?>", re.IGNORECASE)
_REF_CLOSE = re.compile(r"</ref\s{0,10}>", re.IGNORECASE)

Edit = tuple[int, int, str]  # raw[start:end] reads as the string (empty: removed)
Span = tuple[int, int]  # raw[start:end]: markup a view match may not cross


class TooMarkedUp(Exception):
    """More than MAX_EDITS pieces of markup: no view is made."""


class TextView:
    """The view's text and, per segment of it, where it came from in the raw text: a
    segment is copied (char i of it is raw char start + i) or one replacement (an
    entity: every char of it maps to the raw entity's start)."""

    def __init__(self, raw: str, edits: list[Edit], unsafe: list[Span] | None = None) -> None:
        self._unsafe = sorted(unsafe or [])  # may overlap (an element's span holds its tags)
        self._unsafe_starts = [a for a, _ in self._unsafe]
        self._reach: list[int] = []  # the furthest end of the spans up to each one
        for _, end in self._unsafe:
            self._reach.append(max(end, self._reach[-1]) if self._reach else end)
        parts: list[str] = []
        self._view: list[int] = []  # where each segment starts in the view
        self._raw: list[int] = []  # and in the raw text
        self._len: list[int] = []  # its raw length
        self._copied: list[bool] = []
        pos = at = 0
        for start, end, text in edits:
            if start > pos:
                self._segment(at, pos, start - pos, True)
                parts.append(raw[pos:start])
                at += start - pos
            if text:
                self._segment(at, start, end - start, False)
                parts.append(text)
                at += len(text)
            pos = end
        if pos < len(raw) or not self._view:
            self._segment(at, pos, len(raw) - pos, True)
            parts.append(raw[pos:])
        self.text = "".join(parts)

    def _segment(self, at: int, raw: int, length: int, copied: bool) -> None:
        self._view.append(at)
        self._raw.append(raw)
        self._len.append(length)
        self._copied.append(copied)

    def raw_offset(self, at: int) -> int:
        """The raw offset view char ``at`` was read from."""
        i = max(bisect_right(self._view, at) - 1, 0)
        if self._copied[i]:
            return self._raw[i] + at - self._view[i]
        return self._raw[i]

    def raw_span(self, at: int, length: int) -> tuple[int, int]:
        """The raw span (start, end) the view's ``text[at:at + length]`` was read from."""
        last = at + max(length, 1) - 1
        i = max(bisect_right(self._view, last) - 1, 0)
        if self._copied[i]:
            end = self._raw[i] + last - self._view[i] + 1
        else:
            end = self._raw[i] + self._len[i]
        return self.raw_offset(at), end

    def view_offset(self, raw: int) -> int | None:
        """The view offset of raw offset ``raw``; None when that character is markup
        removed (or inside an entity, past its first character)."""
        i = bisect_right(self._raw, raw) - 1
        if i < 0 or raw >= self._raw[i] + self._len[i]:
            return None
        if self._copied[i]:
            return self._view[i] + raw - self._raw[i]
        return self._view[i] if raw == self._raw[i] else None

    def at(self, raw: int, quote: str) -> bool:
        """Whether the quote is in the view where raw offset ``raw`` is (crossing no
        markup that may hide or change text: ``clean``)."""
        v = self.view_offset(raw)
        if v is None or not quote or not self.text.startswith(quote, v):
            return False
        return self.clean(*self.raw_span(v, len(quote)))

    def clean(self, start: int, end: int) -> bool:
        """Whether raw[start:end] holds no markup a view match may not cross."""
        i = bisect_right(self._unsafe_starts, end - 1) - 1
        return i < 0 or self._reach[i] <= start


class Match(NamedTuple):
    """A quote found in a source's view: the raw span it maps to, and its line."""

    offset: int  # raw offset of the span's start: the anchor
    end: int
    line: int


def find(view: TextView, raw: str, quote: str) -> Match | None:
    """Where the quote first is in the view, as a raw span, crossing only harmless markup."""
    at = view.text.find(quote) if quote else -1
    while at >= 0:
        offset, end = view.raw_span(at, len(quote))
        if view.clean(offset, end):
            return Match(offset, end, raw.count("\n", 0, offset) + 1)
        at = view.text.find(quote, at + 1)
    return None


def occurrences(view: TextView, quote: str) -> list[int]:
    """The raw offsets where the quote occurs in the view (overlapping ones too), crossing
    only harmless markup."""
    out: list[int] = []
    at = view.text.find(quote) if quote else -1
    while at >= 0:
        offset, end = view.raw_span(at, len(quote))
        if view.clean(offset, end):
            out.append(offset)
        at = view.text.find(quote, at + 1)
    return out


def text_view(raw: str, kind: str | None) -> TextView | None:
    """The view of ``raw`` read as ``kind`` (``dialect``); None when it is plain text,
    holds no markup, or holds too much (MAX_EDITS)."""
    if kind is None:
        return None
    try:
        edits = _edits(raw, kind)
    except TooMarkedUp:
        return None
    if not edits:
        return None
    if _STYLESHEET.search(raw):  # a stylesheet may hide any element: no tag is harmless
        unsafe = [(start, end) for start, end, text in edits if not text]
    else:
        unsafe = [(a, b) for a, b, text in edits if not _harmless(raw, a, b, text)]
    return TextView(raw, edits, unsafe + _elements(raw, unsafe))


_STYLESHEET = re.compile(r"<(?:style|link)\b", re.IGNORECASE)
_CLOSING = re.compile(r"</([A-Za-z][A-Za-z0-9]{0,30})\s{0,10}>")
_OPENING = re.compile(r"<([A-Za-z][A-Za-z0-9]{0,30})")


def _elements(raw: str, unsafe: list[Span]) -> list[Span]:
    """The whole element each unsafe opening tag starts (``<div style=…>…</div>``,
    ``<script>…</script>``): to the next closing tag of its name, so that a quote inside
    it, not only one crossing its tags, is no match. One pass for the closing tags, then
    a bisection per opening one: linear in the markup, however it nests."""
    closing: dict[str, list[tuple[int, int]]] = {}
    for shut in _CLOSING.finditer(raw):
        closing.setdefault(shut.group(1).lower(), []).append((shut.start(), shut.end()))
    starts = {name: [a for a, _ in spans] for name, spans in closing.items()}
    out: list[Span] = []
    for a, b in unsafe:
        opening = _OPENING.match(raw, a, b)
        if opening is None or raw[a:b].endswith("/>"):
            continue
        name = opening.group(1).lower()
        spans = closing.get(name)
        if not spans:
            continue
        i = bisect_right(starts[name], b - 1)
        if i < len(spans):
            out.append((a, spans[i][1]))
    return out


def _harmless(raw: str, start: int, end: int, text: str) -> bool:
    """Whether removing (or replacing) raw[start:end] leaves what a reader sees: a
    harmless tag without attributes (a link's may have href, title…), an entity, a line
    break, a link's brackets and target, emphasis that touches no digit (``10**6`` is not
    106). Comments, ``<ref>`` notes, images and every other tag are not."""
    piece = raw[start:end]
    if text:  # an entity, or <br> read as a line break
        return True
    if piece.startswith("<!--") or piece[:4].lower() == "<ref":
        return False
    if piece.startswith("<"):
        m = re.match(r"</?([A-Za-z][A-Za-z0-9]*)", piece)
        tag = m.group(1).lower() if m else ""
        if tag not in HARMLESS_TAGS:
            return False
        rest = _ATTRIBUTE_VALUE.sub("", piece[m.end() if m else 0 :].rstrip(">/"))
        names = {n.lower() for n in _ATTRIBUTE_NAME.findall(rest)}
        return not names or (tag == "a" and names <= LINK_ATTRIBUTES)
    if piece.startswith("!["):
        return False  # an image: its alt text is not what a reader sees
    if piece.startswith("[[") and ":" in piece.split("|", 1)[0]:
        return False  # [[File:…]], [[Category:…]]: not text
    before = raw[start - 1] if start > 0 else " "
    after = raw[end] if end < len(raw) else " "
    return not (piece[0] in "*_'" and (before.isdigit() or after.isdigit()))


def _edits(raw: str, kind: str) -> list[Edit]:
    """The markup to remove or replace, sorted, none overlapping: the elements removed
    whole, and the inline markup between them (one regular expression's matches)."""
    removed = _removed_elements(raw, kind)
    out: list[Edit] = []
    pattern = _PATTERNS[kind]
    pos = 0
    for element in [*removed, (len(raw), len(raw), "")]:
        for m in pattern.finditer(raw, pos, element[0]):
            out.extend(_inline(raw, m))
        if element[0] < element[1]:
            out.append(element)
        if len(out) > MAX_EDITS:
            raise TooMarkedUp
        pos = element[1]
    return out


def _inline(raw: str, m: re.Match[str]) -> list[Edit]:
    start, end = m.span()
    group = m.lastgroup
    if group == "tag":
        tag = m.group("tag").lower()
        if tag in _KEPT_TAGS:
            return []
        return [(start, end, "\n" if tag == "br" else "")]  # a line break reads as one
    if group == "ent":
        text = html.unescape(m.group())
        return [] if text == m.group() else [(start, end, text)]
    if group in ("wt", "wl"):
        if m.group("bar") is None:  # [[target]]: the target is what a reader sees
            return [(start, start + 2, ""), (end - 2, end, "")]
        if not m.group("wl"):  # [[target|]]: MediaWiki's pipe trick, shown as the target
            return [(start, start + 2, ""), (m.start("bar"), end, "")]
        return [(start, m.start("wl"), ""), (end - 2, end, "")]
    if group == "el":
        return [(start, m.start("el"), ""), (end - 1, end, "")]
    if group == "ml":
        return [(start, m.start("ml"), ""), (m.end("ml"), end, "")]
    if group in ("em", "q") and _delimiter(raw, start, end):
        return [(start, end, "")]
    return []


def _delimiter(raw: str, start: int, end: int) -> bool:
    """A run of ``*``, ``_``, backticks or apostrophes that reads as markup: not between
    spaces (``2 * 3``), and for ``_`` not inside a word (``snake_case``)."""
    before = raw[start - 1] if start > 0 else " "
    after = raw[end] if end < len(raw) else " "
    if before.isspace() and after.isspace():
        return False
    return not (raw[start] == "_" and before.isalnum() and after.isalnum())


def _removed_elements(raw: str, kind: str) -> list[Edit]:
    """Comments (``<!-- … -->``) and, in MediaWiki, ``<ref>…</ref>`` and ``<ref …/>``:
    removed with what they hold, in order. Linear: each opening is looked for once past
    the last element, and once a closing mark is not found, its kind is done."""
    out: list[Edit] = []
    pos = 0
    comment = raw.find(_COMMENT_OPEN)
    ref = _REF_OPEN.search(raw) if kind == "mediawiki" else None
    while comment >= 0 or ref is not None:
        if comment >= 0 and (ref is None or comment < ref.start()):
            close = raw.find(_COMMENT_CLOSE, comment + len(_COMMENT_OPEN))
            if close < 0:
                comment = -1  # unclosed: no comment after it closes either
                continue
            out.append((comment, close + len(_COMMENT_CLOSE), ""))
        else:
            assert ref is not None
            if ref.group("closed"):
                out.append((ref.start(), ref.end(), ""))
            else:
                shut = _REF_CLOSE.search(raw, ref.end())
                if shut is None:
                    ref = None  # an unclosed <ref>: its tags go as tags, its text stays
                    continue
                out.append((ref.start(), shut.end(), ""))
        if len(out) > MAX_EDITS:
            raise TooMarkedUp
        pos = out[-1][1]
        if 0 <= comment < pos:
            comment = raw.find(_COMMENT_OPEN, pos)
        if ref is not None and ref.start() < pos:
            ref = _REF_OPEN.search(raw, pos)
    return out
