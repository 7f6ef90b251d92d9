"""The citation grammar: ``SOURCE[, p.PAGE] — "QUOTE" {@OFFSET sha256:HEX}``.

The quote is a JSON string; the anchor is a code-point offset into the
source text (for PDFs: into pypdf's text of page PAGE) and the SHA-256 of
the quote's UTF-8 bytes.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
import unicodedata
from bisect import bisect_right
from collections.abc import Callable, Sequence
from functools import partial
from typing import NamedTuple
from urllib.parse import unquote

SEPARATORS = ("—", "--")
HEX_DIGITS = frozenset("0123456789abcdef")
ASCII_DIGITS = frozenset("0123456789")
MAX_PAGE_DIGITS = 6  # p.999999
MAX_OFFSET_DIGITS = 10  # beyond any source's length (sources are at most 50 MB)
_DECODER = json.JSONDecoder()


class Citation(NamedTuple):
    source: str
    page: int | None
    quote: str  # "": a reference without a quote (it proves only that the source exists)
    offset: int | None
    sha256: str | None
    lines: tuple[int, int] | None = None  # a line note: L3, L3-L7, #L3-L7, :3-7
    section: str | None = None  # a section note: §"Section", [[source#Section]]
    pages: tuple[int, int] | None = None  # a page range note: pp. 33-35
    form: str = "quote"  # the dialect it is written in (DIALECTS)

    @property
    def anchored(self) -> bool:
        return self.offset is not None

    @property
    def quoted(self) -> bool:
        return bool(self.quote)

    @property
    def pieces(self) -> list[str]:
        """An ellipsis-joined quote's pieces (``…`` or ``...`` between them), else []."""
        return ellipsis_pieces(self.quote)


# the forms a footnote may cite in (``Citation.form``; docs/format.md names each)
DIALECTS = {
    "quote": 'SOURCE — "QUOTE": the canonical form',
    "path": "a path without a quote (raw/x.md, 2026-04-21)",
    "wikilink": "a wikilink to a source ([[raw/articles/foo]], [[foo]])",
    "link": "a markdown link to a source ([foo](../raw/foo.md))",
}


class CitationSyntaxError(ValueError):
    pass


def quote_hash(quote: str) -> str:
    return hashlib.sha256(quote.encode("utf-8")).hexdigest()


MAX_NOTES = 6  # location notes in one definition
MAX_SECTION_CHARS = 200
MAX_LINE_DIGITS = 10  # L9999999999: beyond any source's line count (sources are at most 50 MB)
# one location note; every quantifier is bounded, so a match attempt costs constant time
_NOTE = re.compile(
    r"pp\.\s?(?P<p1>[0-9]{1,40})\s?[-–]\s?(?P<p2>[0-9]{1,40})"
    r"|p\.\s?(?P<page>[0-9]{1,40})"
    r"|L(?P<l1>[0-9]{1,40})(?:\s?[-–]\s?L?(?P<l2>[0-9]{1,40}))?"
    r'|§\s?(?:"(?P<quoted>[^"\n]{1,201})"|(?P<bare>[^\s,"]{1,81}))'
)
_LINE_SUFFIX = re.compile(
    r"(?:#L([0-9]{1,40})(?:-L?([0-9]{1,40}))?|:([0-9]{1,40})(?:-([0-9]{1,40}))?)$"
)
_NOTE_HELP = 'L3, L3-L7, p. 12, pp. 33-35 or §"Section"'


class _Notes:
    """Location notes read so far."""

    def __init__(self) -> None:
        self.page: int | None = None
        self.pages: tuple[int, int] | None = None
        self.lines: tuple[int, int] | None = None
        self.section: str | None = None
        self.count = 0

    def read(self, text: str) -> bool:
        """Read ``text`` as location notes, whitespace apart (parentheses allowed around
        them): False when some of it is not a note."""
        text = text.strip()
        if text.startswith("(") and text.endswith(")"):
            text = text[1:-1].strip()
        if not text:
            return False
        at = 0
        while at < len(text):
            m = _NOTE.match(text, at)
            if m is None or (m.end() < len(text) and not text[m.end()].isspace()):
                return False
            self._add(m)
            at = m.end()
            while at < len(text) and text[at].isspace():
                at += 1
        return True

    def _add(self, m: re.Match[str]) -> None:
        self.count += 1
        if self.count > MAX_NOTES:
            raise CitationSyntaxError(f"more than {MAX_NOTES} location notes")
        note = _clip(m.group(0))
        if m["page"] is not None or m["p1"] is not None:
            if self.page is not None or self.pages is not None:
                raise CitationSyntaxError(f"a second page note: {note!r}")
            if m["page"] is not None:
                self.page = _positive(m["page"], MAX_PAGE_DIGITS, note, "pages")
            else:
                first = _positive(m["p1"], MAX_PAGE_DIGITS, note, "pages")
                last = _positive(m["p2"], MAX_PAGE_DIGITS, note, "pages")
                self.pages = _range(first, last, note)
        elif m["l1"] is not None:
            self.lines = self._lines(m["l1"], m["l2"], note)
        else:
            if self.section is not None:
                raise CitationSyntaxError(f"a second section note: {note!r}")
            section = m["quoted"] if m["quoted"] is not None else m["bare"]
            if len(section) > MAX_SECTION_CHARS or not section.strip():
                raise CitationSyntaxError(
                    f"section note {note!r}: a section title of 1 to {MAX_SECTION_CHARS} characters"
                )
            self.section = section.strip()

    def _lines(self, first: str, last: str | None, note: str) -> tuple[int, int]:
        if self.lines is not None:
            raise CitationSyntaxError(f"a second line note: {note!r}")
        a = _positive(first, MAX_LINE_DIGITS, note, "lines")
        b = _positive(last, MAX_LINE_DIGITS, note, "lines") if last is not None else a
        return _range(a, b, note)

    def source_suffix(self, source: str) -> str:
        """``source`` without a line suffix (``#L3-L7``, ``:3-7``), read as a line note."""
        m = _LINE_SUFFIX.search(source, max(0, len(source) - 90))
        if m is None or m.start() == 0:
            return source
        note = _clip(m.group(0))
        self.count += 1
        self.lines = self._lines(m[1] or m[3], m[2] or m[4], note)
        return source[: len(source) - len(m.group(0))]

    def citation(self, source: str, quote: str, form: str) -> Citation:
        page = self.page
        if self.pages is not None and self.pages[0] == self.pages[1]:
            page, self.pages = self.pages[0], None
        return Citation(source, page, quote, None, None, self.lines, self.section, self.pages, form)


def _positive(digits: str, max_digits: int, note: str, what: str) -> int:
    number = _number(digits, max_digits)
    if number is None or number < 1:
        raise CitationSyntaxError(
            f"location note {note!r}: {what} count from 1, with at most {max_digits} digits"
        )
    return number


def _range(first: int, last: int, note: str) -> tuple[int, int]:
    if last < first:
        raise CitationSyntaxError(f"location note {note!r}: the range ends before it starts")
    return first, last


def _split_outside_quotes(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` where it is not inside double quotes (a section title's)."""
    if '"' not in text:
        return text.split(sep)
    parts, start, inside = [], 0, False
    for i, ch in enumerate(text):
        if ch == '"':
            inside = not inside
        elif ch == sep and not inside:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _words(text: str) -> list[str]:
    """``text`` split at whitespace outside double quotes (``§"Two words"`` is one)."""
    if '"' not in text:
        return text.split()
    words, start, inside = [], None, False
    for i, ch in enumerate(text):
        if ch == '"':
            inside = not inside
        if ch.isspace() and not inside:
            if start is not None:
                words.append(text[start:i])
            start = None
        elif start is None:
            start = i
    if start is not None:
        words.append(text[start:])
    return words


def _quote_start(text: str) -> int:
    """Where the quote's opening ``"`` is: the first one that is not a section note's."""
    at = 0
    while True:
        q = text.find('"', at)
        if q < 0:
            return -1
        before = text[max(0, q - 2) : q].rstrip()
        if not before.endswith("§"):
            return q
        close = text.find('"', q + 1)
        if close < 0:
            return -1
        at = close + 1


def parse_definition(tail: str) -> Citation:
    """Parse the text after ``[^ID]:``; raise CitationSyntaxError saying what is wrong."""
    text = tail.strip()
    quote_at = _quote_start(text)
    if quote_at < 0:
        return _reference(text)
    head = text[:quote_at].rstrip()
    notes = _Notes()
    for sep in SEPARATORS:
        if head.endswith(sep):
            head = head[: -len(sep)].rstrip()
            break
    else:
        dash = _dash(head)
        if dash is None or not notes.read(head[dash[1] :]):
            raise CitationSyntaxError(_no_separator(text, quote_at, head))
        head = head[: dash[0]].rstrip()  # SOURCE — NOTE "QUOTE"
    source, form = _source_and_notes(head, notes, quoted=True)
    try:
        quote, end = _DECODER.raw_decode(text, quote_at)
    except json.JSONDecodeError as e:
        raise CitationSyntaxError(f"the quote is not a valid JSON string: {e.msg}") from e
    if not isinstance(quote, str) or not quote:
        raise CitationSyntaxError("the quote is empty")
    if not quote.isascii():  # O(1): only non-ASCII text can hold a lone surrogate
        _check_encodable(quote)
    rest = text[end:].strip()
    anchor_at = rest.find("{@")
    after, anchor = (rest[:anchor_at], rest[anchor_at:]) if anchor_at >= 0 else (rest, "")
    after = after.strip().lstrip(",").strip()
    if after and not notes.read(after):
        raise CitationSyntaxError(
            f"unexpected text after the quote: {_clip(after)!r} "
            f"(a location note reads {_NOTE_HELP}; the anchor {{@OFFSET sha256:HEX}} goes last)"
        )
    c = notes.citation(source, quote, form)
    if anchor:
        offset, digest = _anchor(anchor)
        c = c._replace(offset=offset, sha256=digest)
    return c


def _dash(head: str) -> tuple[int, int] | None:
    """Where a separator stands inside ``head`` (its start and end), if one does."""
    found = [(at, at + len(sep) + 2) for sep in SEPARATORS if (at := head.find(f" {sep} ")) >= 0]
    return min(found) if found else None


def _source_and_notes(head: str, notes: _Notes, *, quoted: bool) -> tuple[str, str]:
    """The source named at the start of ``head`` and its form; the notes after it read
    into ``notes``. Without a quote, text after a comma that is no note (a date, "accessed
    …") is allowed and ignored; with one, it is an error naming that text."""
    if not head:
        raise CitationSyntaxError("no source before the quote")
    form = "quote" if quoted else "path"
    if head.startswith("[[") and (close := head.find("]]")) > 2:
        target = head[2:close].partition("|")[0]
        target, hashed, section = target.partition("#")
        if hashed and section.strip():
            if section.startswith("L") and _LINE_SUFFIX.search("#" + section):
                notes.source_suffix(target + "#" + section)  # [[x.txt#L3]]: a line note
            else:
                notes.section = section.strip()[:MAX_SECTION_CHARS]
        source, rest, form = target.strip(), head[close + 2 :], "wikilink"
    elif (
        head.startswith("[") and (mid := head.find("](")) > 0 and (close := head.find(")", mid)) > 0
    ):
        href = head[mid + 2 : close].strip().strip("<>")
        source, rest, form = notes.source_suffix(href), head[close + 1 :], "link"
    else:
        parts = _split_outside_quotes(head, ",")
        first = parts[0].strip()
        words = _words(first)
        # the source and the notes written after it without a comma
        k = _notes_from(words)
        source = " ".join(words[:k]) if k < len(words) else first
        if k < len(words):
            notes.read(" ".join(words[k:]))
        source = notes.source_suffix(source)
        rest = "," + ",".join(parts[1:]) if len(parts) > 1 else ""
    if not source:
        raise CitationSyntaxError("no source before the quote" if quoted else "no source")
    for part in _split_outside_quotes(rest, ",")[1:] if rest.startswith(",") else [rest]:
        part = part.strip()
        if part and not notes.read(part):
            if quoted:
                raise CitationSyntaxError(_not_a_note(part))
            if not notes.count and form == "path" and not _free_note(part):
                raise CitationSyntaxError(_not_a_note(part))
    return source, form


def _notes_from(words: list[str]) -> int:
    """Where the location notes after a source start among ``words`` (the source is
    ``words[:k]``); raises on more notes than a definition may hold, or a word that reads
    as a wrongly written section note."""
    k = len(words)
    while k > 1 and len(words) - k < 3 * MAX_NOTES and _is_notes(" ".join(words[k - 1 :])):
        k -= 1
    if k > 1 and len(words) - k >= 3 * MAX_NOTES:
        raise CitationSyntaxError(f"more than {MAX_NOTES} location notes")
    for word in words[1:k]:
        if word.startswith("§"):
            raise CitationSyntaxError(_not_a_note(word))
    return k


def _is_notes(text: str) -> bool:
    try:
        return _Notes().read(text)
    except CitationSyntaxError:
        return True  # a note, wrongly written: read it to say so


def _free_note(text: str) -> bool:
    """Text after a source reference's comma that is no location note: a date or a few
    words ("accessed 2026-04-21"), never another citation."""
    return len(text) <= 80 and '"' not in text


def _not_a_note(text: str) -> str:
    if text.startswith(("p.", "pp.")):
        return (
            f"page {_clip(text)!r}: expected p.N (or pp.N-M) with N ≥ 1 "
            f"(ASCII digits, at most {MAX_PAGE_DIGITS})"
        )
    if text.startswith("§"):
        return (
            f'section note {_clip(text)!r}: expected §"Title" '
            f"(at most {MAX_SECTION_CHARS} characters) or §Word"
        )
    if len(text) > 1 and text[0] == "L" and not text[1].isalpha():
        return (
            f"line note {_clip(text)!r}: expected L3 or L3-L7 "
            f"(ASCII digits, at most {MAX_LINE_DIGITS})"
        )
    return (
        f"text between the source and the dash: {_clip(text)!r} is not a location note "
        f'({_NOTE_HELP}); write SOURCE, NOTE — "QUOTE"'
    )


def _reference(text: str) -> Citation:
    """A footnote with no quote: a source reference (path, wikilink or link to a source),
    or not a citation at all."""
    if not text:
        raise CitationSyntaxError("the definition is empty")
    notes = _Notes()
    if text.startswith("["):
        source, form = _source_and_notes(text, notes, quoted=False)
        return notes.citation(source, "", form)
    first = _split_outside_quotes(text, ",")[0].strip()
    words = _words(first)
    k = _notes_from(words)
    if k != 1 or not _path_like(words[0]):
        raise CitationSyntaxError(
            'no quote: expected SOURCE — "QUOTE" (or, unquoted, a source\'s path, '
            "wikilink or link: it proves only that the source exists)"
        )
    source, form = _source_and_notes(text, notes, quoted=False)
    return notes.citation(source, "", form)


def _path_like(word: str) -> bool:
    """A word that names a file: a path under raw/, or a name with an extension."""
    stem = word.partition("#")[0]
    return stem.startswith("raw/") or ("." in stem.strip(".") and not stem.endswith("."))


def _no_separator(text: str, quote_at: int, head: str) -> str:
    """What stands where ``SOURCE — "QUOTE"`` wants its dash right before the quote."""
    expected = "expected ' — ' or ' -- ' between the source and the quote"
    dash = min((at for sep in SEPARATORS if (at := text.find(f" {sep} ")) >= 0), default=-1)
    if 0 <= dash < quote_at:  # SOURCE — TEXT "QUOTE"
        between = text[dash:quote_at].strip().lstrip("—-").strip()
        return (
            f"text between the dash and the quote: {_clip(between)!r} is not a location note "
            f'({_NOTE_HELP}); write SOURCE, NOTE — "QUOTE"'
        )
    if head.endswith(("-", "–")):
        what = "a hyphen" if head.endswith("-") else "an en dash"
        return f"{expected}, not {what}: write the em dash '—' or two hyphens '--'"
    return f"{expected}; found {_clip(head)!r} before the quote"


def _anchor(rest: str) -> tuple[int, str]:
    if not (rest.startswith("{@") and rest.endswith("}")):
        raise CitationSyntaxError(f"unexpected text after the quote: {rest[:40]!r}")
    body = rest[2:-1].split()
    offset = _number(body[0], MAX_OFFSET_DIGITS) if body else None
    if len(body) != 2 or offset is None or not body[1].startswith("sha256:"):
        raise CitationSyntaxError(
            "anchor must read {@OFFSET sha256:HEX} "
            f"(OFFSET: ASCII digits, at most {MAX_OFFSET_DIGITS})"
        )
    digest = body[1].removeprefix("sha256:")
    if len(digest) != 64 or not HEX_DIGITS.issuperset(digest):
        raise CitationSyntaxError("sha256 must be 64 lowercase hex digits")
    return offset, digest


def _number(text: str, max_digits: int) -> int | None:
    """``text`` as a number if it is 1 to ``max_digits`` ASCII digits.

    Not str.isdigit(): it accepts '²' (which int() refuses) and '４２' (which
    int() reads as 42), and int() refuses more than 4,300 digits."""
    if not 0 < len(text) <= max_digits or not ASCII_DIGITS.issuperset(text):
        return None
    return int(text)


def _check_encodable(quote: str) -> None:
    """A JSON \\uXXXX escape can decode to a lone surrogate, which has no UTF-8
    bytes and so no SHA-256."""
    try:
        quote.encode("utf-8")
    except UnicodeEncodeError as e:
        raise CitationSyntaxError(
            f"the quote holds a lone surrogate (\\u{ord(quote[e.start]):04x} at character "
            f"{e.start}); write the character itself, or a valid \\uXXXX\\uXXXX pair"
        ) from e


def _clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def format_tail(source: str, page: int | None, quote: str, offset: int | None) -> str:
    """The definition text after ``[^ID]: ``; with an anchor when ``offset`` is given."""
    where = f"{source}, p.{page}" if page else source
    text = f"{where} — {json.dumps(quote, ensure_ascii=False)}"
    if offset is not None:
        text += f" {{@{offset} sha256:{quote_hash(quote)}}}"
    return text


# ---------------------------------------------------------------- near misses
# The check is exact. When a quote does not occur, these say where it would match
# after a fold (Unicode normalization, line ends, case, whitespace, typographic quotes
# and dashes), so the writer knows what differs. Each fold of a source is computed once,
# and only for a miss.


class NearMiss(NamedTuple):
    fold: str  # a key of FOLDS
    offset: int  # where the source's own text starts, in code points
    line: int
    # the source's own text of the quote, when the fold maps one character to one
    # (SAME_LENGTH): what the quote, copied verbatim, is
    exact: str | None = None


def _collapse(text: str) -> str:
    """Runs of whitespace as one space (kept at either end: chunks join up)."""
    inner = " ".join(text.split())
    if not inner:
        return " " if text else ""
    head = " " if text[0].isspace() else ""
    tail = " " if text[-1].isspace() else ""
    return head + inner + tail


# the characters a writer types for one the source may hold as its typographic form (or
# the reverse): quotes and apostrophes, dashes; each folds to one character, so a quote
# folded is as long as the source's span it matches (``wikigate anchor`` shares these)
SINGLE_QUOTES = "'\u2018\u2019\u201a\u201b\u2032"  # ' ‘ ’ ‚ ‛ ′
DOUBLE_QUOTES = '"\u201c\u201d\u201e\u201f\u2033'  # " “ ” „ ‟ ″
DASHES = "-\u2010\u2011\u2012\u2013\u2014\u2015\u2212"  # - ‐ ‑ ‒ – — ― −
TYPOGRAPHIC_FOLD = str.maketrans(
    {
        **dict.fromkeys(SINGLE_QUOTES, "'"),
        **dict.fromkeys(DOUBLE_QUOTES, '"'),
        **dict.fromkeys(DASHES, "-"),
    }
)
TYPOGRAPHIC = "using the source's own quotes, apostrophes and dashes"  # a key of FOLDS


_TYPOGRAPHIC_PAIRS = [(chr(k), v) for k, v in TYPOGRAPHIC_FOLD.items() if chr(k) != v]


def fold_typographic(text: str) -> str:
    """``text`` with each quote, apostrophe and dash as its ASCII form: one character for
    one (an ASCII text is its own fold). A replace per character that occurs: a few
    times faster than ``str.translate`` on a long text."""
    if text.isascii():
        return text
    for typographic, typed in _TYPOGRAPHIC_PAIRS:
        if typographic in text:
            text = text.replace(typographic, typed)
    return text


def typographic_differences(source: Sequence[str], typed: Sequence[str]) -> str:
    """Which characters of the source's span differ from the quote's, each pair once, in
    order: "’ where the quote has ', — where the quote has --" (``typed``: the quote's
    pieces, one a character of the source's; a dash may be typed as two hyphens)."""
    pairs = dict.fromkeys((s, t) for s, t in zip(source, typed, strict=True) if s != t)
    return ", ".join(f"{s} where the quote has {t}" for s, t in pairs)


FOLDS: dict[str, Callable[[str], str]] = {
    "Unicode normalization (NFC)": partial(unicodedata.normalize, "NFC"),
    "Unicode normalization (NFKC)": partial(unicodedata.normalize, "NFKC"),
    "folding CRLF line ends to LF": lambda s: s.replace("\r\n", "\n").replace("\r", "\n"),
    "ignoring case": str.casefold,
    "collapsing whitespace": _collapse,
    TYPOGRAPHIC: fold_typographic,
}
SAME_LENGTH = frozenset({TYPOGRAPHIC})  # folds of one character to one: NearMiss.exact


class _Folded(NamedTuple):
    text: str
    starts: list[int]  # where each chunk starts in the source
    folded_starts: list[int]  # and in the folded text


class NearMisses:
    """Where quotes that do not occur in ``text`` would match after each fold."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._chunks: list[int] | None = None
        self._folded: dict[str, _Folded] = {}

    def find(self, quote: str) -> NearMiss | None:
        for name, fold in FOLDS.items():
            folded = self._fold(name)
            at = folded.text.find(fold(quote))
            if at >= 0:
                same = name in SAME_LENGTH  # offsets are the source's
                offset = at if same else self._source_offset(name, folded, at)
                line = self.text.count("\n", 0, offset) + 1
                exact = self.text[offset : offset + len(quote)] if same else None
                return NearMiss(name, offset, line, exact)
        return None

    def _chunk_starts(self) -> list[int]:
        """Chunks split at a newline, before it or after it, wherever that does not
        split a run of whitespace: every fold of the text is then the folds of its
        chunks joined, so offsets map back chunk by chunk."""
        if self._chunks is None:
            text, starts = self.text, [0]
            at = text.find("\n")
            while at >= 0:
                if at > 0 and not text[at - 1].isspace():
                    starts.append(at)
                elif at + 1 < len(text) and not text[at + 1].isspace():
                    starts.append(at + 1)
                at = text.find("\n", at + 1)
            self._chunks = starts
        return self._chunks

    def _fold(self, name: str) -> _Folded:
        if name not in self._folded and name in SAME_LENGTH:  # the text at once
            self._folded[name] = _Folded(FOLDS[name](self.text), [0], [0])
        if name not in self._folded:
            fold, starts = FOLDS[name], self._chunk_starts()
            ends = [*starts[1:], len(self.text)]
            parts = [fold(self.text[a:b]) for a, b in zip(starts, ends, strict=True)]
            folded_starts, total = [], 0
            for part in parts:
                folded_starts.append(total)
                total += len(part)
            self._folded[name] = _Folded("".join(parts), starts, folded_starts)
        return self._folded[name]

    def _source_offset(self, name: str, folded: _Folded, at: int) -> int:
        """The source offset of folded offset ``at``: the longest prefix of its chunk
        that folds to no more than the chunk's text before ``at`` (bisected), so
        that it skips a combining accent or the rest of a run of spaces."""
        i = bisect_right(folded.folded_starts, at) - 1
        start = folded.starts[i]
        end = folded.starts[i + 1] if i + 1 < len(folded.starts) else len(self.text)
        chunk, want, fold = self.text[start:end], at - folded.folded_starts[i], FOLDS[name]
        lo, hi = 0, len(chunk)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if len(fold(chunk[:mid])) <= want:
                lo = mid
            else:
                hi = mid - 1
        return start + lo


# ------------------------------------------------------------- dialects' checks


def format_citation(c: Citation, source: str | None = None, offset: int | None = None) -> str:
    """The canonical tail of ``c`` (its notes after the source, comma apart), with an
    anchor when ``offset`` is given; ``source`` for the path it resolved to."""
    where = source if source is not None else c.source
    if c.page:
        where += f", p.{c.page}"
    if c.pages:
        where += f", pp.{c.pages[0]}-{c.pages[1]}"
    if c.lines:
        a, b = c.lines
        where += f", L{a}" + (f"-L{b}" if b != a else "")
    if c.section:
        where += f", §{json.dumps(c.section, ensure_ascii=False)}"
    if not c.quote:
        return where
    text = f"{where} — {json.dumps(c.quote, ensure_ascii=False)}"
    if offset is not None:
        text += f" {{@{offset} sha256:{quote_hash(c.quote)}}}"
    return text


def source_names(c: Citation, page_path: str) -> list[str]:
    """The names a citation's source is looked up by under raw/, in order: a wikilink as
    Obsidian resolves it (the name, then the name with ``.md``), a markdown link relative
    to the page (``/…``: to the repository's root)."""
    if c.form == "link":
        href = unquote(c.source)
        if href.startswith("/"):
            return [href.lstrip("/")]
        return [posixpath.normpath(posixpath.join(posixpath.dirname(page_path), href))]
    if c.form == "wikilink" and "." not in posixpath.basename(c.source):
        return [c.source, c.source + ".md"]
    return [c.source]


ELLIPSES = re.compile(r"…|\.\.\.")
MAX_PIECES = 20  # of an ellipsis quote that are searched for
MIN_PIECE_CHARS = 8  # each piece's: words picked from here and there prove nothing
ELLIPSIS_SPAN = 5000  # characters from the first piece's start to the last one's end
MAX_STARTS = 100  # occurrences of the first piece an ellipsis search tries


def ellipsis_pieces(quote: str) -> list[str]:
    """The pieces of a quote joined by ``…`` or ``...`` (each stripped, empty ones
    dropped); [] when the quote holds no ellipsis."""
    if "…" not in quote and "..." not in quote:
        return []
    return [p for p in (piece.strip() for piece in ELLIPSES.split(quote)) if p]


def find_pieces(text: str, pieces: list[str]) -> tuple[int, int] | None:
    """Where ``pieces`` occur in ``text`` in order, the first piece's start to the last
    one's end at most ELLIPSIS_SPAN characters apart (the earliest such place), or None.
    Tries at most MAX_STARTS occurrences of the first piece: at most MAX_STARTS ×
    ELLIPSIS_SPAN characters scanned past the first piece's own search."""
    if not pieces or len(pieces) > MAX_PIECES or min(map(len, pieces)) < MIN_PIECE_CHARS:
        return None
    first = pieces[0]
    at = text.find(first)
    tries = 0
    while at >= 0 and tries < MAX_STARTS:
        tries += 1
        end, limit = at + len(first), at + ELLIPSIS_SPAN
        for piece in pieces[1:]:
            found = text.find(piece, end, limit)
            if found < 0 or not _may_leave_out(text[end - 1], text[end:found], piece[0]):
                break
            end = found + len(piece)
        else:
            return at, end
        at = text.find(first, at + 1)
    return None


# what the text an ellipsis leaves out may not hold: a paragraph break or a heading (the
# pieces would come from two places), or a word that can turn what the pieces say around
_LEFT_OUT_BREAK = re.compile(
    r"\n[ \t\r]*(?:\n|#|=|-{2,}|\*{3,})|</?(?:p|div|h[1-6]|li|ul|ol|tr|td|th|table|br|hr|"
    r"section|blockquote)\b",
    re.IGNORECASE,
)
_LEFT_OUT_WORD = re.compile(
    r"(?<![\w'’])(?:no|not|never|none|nor|neither|nobody|nothing|nowhere|without|cannot|"
    r"except|excluding|unless|only|but|however|although|though|yet|false|untrue|denied|"
    r"disputed|retracted|refuted|doubtful|rarely|seldom|hardly|barely|few|fewer|less|zero|"
    r"wrongly|falsely|mistakenly|allegedly|supposedly|reportedly|[a-z]+n[’']t)(?![\w'’])",
    re.IGNORECASE,
)


def _may_leave_out(before: str, gap: str, after: str) -> bool:
    """Whether an ellipsis may stand for ``gap`` between ``before`` (the piece's last
    character) and ``after`` (the next piece's first): whole words only ("… safe" may not
    stand for "un|safe"), and nothing in it that could change what the pieces around it say
    (``reduced mortality in … patients`` for "in no patients"), nor a break between two
    places (a paragraph, a heading, an HTML block)."""
    if gap and ((before.isalnum() and gap[0].isalnum()) or (after.isalnum() and gap[-1].isalnum())):
        return False  # the gap begins or ends inside a word
    return not _LEFT_OUT_BREAK.search(gap) and not _LEFT_OUT_WORD.search(gap)


class SourceIndex:
    """A source text's lines and sections, for checking location notes: built once (one
    pass over the text), then each note costs a bisection or a dictionary lookup."""

    def __init__(self, text: str) -> None:
        self.length = len(text)
        starts, at = [0], text.find("\n")
        while at >= 0:
            starts.append(at + 1)
            at = text.find("\n", at + 1)
        if starts[-1] == len(text) and len(starts) > 1:
            starts.pop()  # a final newline ends the last line; it starts none
        self.starts = starts if text else []
        self.sections: dict[str, list[tuple[int, int]]] = {}
        self.titles: list[str] = []
        self._headings(text)

    @property
    def line_count(self) -> int:
        return len(self.starts)

    def line_of(self, offset: int) -> int:
        return max(1, bisect_right(self.starts, offset))

    def span(self, first: int, last: int) -> tuple[int, int] | None:
        """Lines ``first``..``last`` as a character range, or None past the last line."""
        if last > len(self.starts):
            return None
        end = self.starts[last] if last < len(self.starts) else self.length
        return self.starts[first - 1], end

    def _headings(self, text: str) -> None:
        """Markdown (``## Title``) and MediaWiki (``== Title ==``) headings: each section
        runs to the next heading of its level or above."""
        open_: list[tuple[int, str, int]] = []  # (level, key, start) of the sections open
        for n, start in enumerate(self.starts):
            if start >= len(text) or text[start] not in "#=":
                continue
            end = self.starts[n + 1] if n + 1 < len(self.starts) else len(text)
            heading = _heading(text[start:end].strip())
            if heading is None:
                continue
            level, title = heading
            while open_ and open_[-1][0] >= level:
                lv, key, s = open_.pop()
                self.sections[key][-1] = (s, start)
            key = section_key(title)
            self.sections.setdefault(key, []).append((start, len(text)))
            if len(self.titles) < 20:
                self.titles.append(title)
            open_.append((level, key, start))


def section_key(title: str) -> str:
    return " ".join(title.replace("*", "").replace("_", " ").split()).casefold()


def _heading(line: str) -> tuple[int, str] | None:
    if line.startswith("#"):
        level = len(line) - len(line.lstrip("#"))
        rest = line[level:]
        if level > 6 or (rest and not rest[0].isspace()):
            return None
        title = rest.strip().rstrip("#").strip()
        return (level, title) if title else None
    level = len(line) - len(line.lstrip("="))
    if level > 6 or len(line) - len(line.rstrip("=")) != level or len(line) <= 2 * level:
        return None
    title = line[level:-level].strip()
    return (level, title) if title else None
