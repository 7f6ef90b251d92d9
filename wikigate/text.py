"""Text rules shared by the engine and the verifier: what counts as a match, what is printable.

The engine (``run.py``, ``paths.py``, ``gitrepo.py``) and the verifier import from
here, so ``str_replace`` and ``wikigate anchor`` agree on "exactly one match", and
paths and commit trailers agree on which characters they refuse.
"""

from __future__ import annotations

import re
import unicodedata
from typing import NamedTuple

# Unicode's Bidi_Control characters (category Cf): they reorder what a reader sees.
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)

# Unicode's format characters (category Cf, through Unicode 15): invisible, they hide text
# (zero-width spaces and joiners, tag characters, the soft hyphen) or reorder what a reader
# sees (bidi overrides and isolates); and the rest of Unicode's default-ignorable code
# points, which render as nothing (the combining grapheme joiner, Hangul and Khmer fillers,
# Mongolian variation selectors, the halfwidth filler, unassigned ignorables), and the
# braille blank. Variation selectors count only two or more in a row: one after a
# character picks its form (an emoji's), a run of them hides a message.
# tests/test_hostile_input.py holds the table to the running Python's unicodedata.
FORMAT_CHARS = re.compile(
    "[\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u115f\u1160"
    "\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f"
    "\u2800\u3164\ufeff\uffa0\ufff0-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e00ff\U000e01f0-\U000e0fff]"
    "|[\ufe00-\ufe0f\U000e0100-\U000e01ef]{2,}"
)

_KINDS = {
    "Cc": "a control character",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
    "Cs": "not valid UTF-8",  # an undecodable byte, kept as a lone surrogate
}


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """``1 claim``, ``2 claims``: a count with its noun."""
    return f"{n:,} {noun if n == 1 else nouns or noun + 's'}"


def occurrences(text: str, needle: str) -> list[int]:
    """Every offset where ``needle`` starts in ``text``, overlapping matches included.

    ``"aa"`` occurs twice in ``"aaa"`` (at 0 and 1): an edit or an anchor that
    names it is ambiguous.  ``needle`` must not be empty.
    """
    if not needle:
        raise ValueError("occurrences() of an empty string")
    out, at = [], text.find(needle)
    while at >= 0:
        out.append(at)
        at = text.find(needle, at + 1)
    return out


class BadChar(NamedTuple):
    """A character that may not appear in a path or a one-line value."""

    position: int
    char: str
    kind: str

    def describe(self) -> str:
        return f"{code_point(self.char, self.kind)} at position {self.position}"


def code_point(char: str, what: str) -> str:
    """A character as a message names it: ``U+200B (ZERO WIDTH SPACE)``."""
    return f"U+{ord(char):04X} ({what})"


def first_unprintable(value: str, *, bidi: bool = True) -> BadChar | None:
    """The first control character, line or paragraph separator, lone surrogate
    or (with ``bidi``) bidirectional control in ``value``; None when it has none."""
    for i, ch in enumerate(value):
        kind = _KINDS.get(unicodedata.category(ch))
        if kind is None and bidi and ch in BIDI_CONTROLS:
            kind = "a bidirectional control character"
        if kind is not None:
            return BadChar(i, ch, kind)
    return None


class Invisible(NamedTuple):
    """An invisible character in a text: where (1-based line and column) and which."""

    line: int
    column: int
    char: str

    def describe(self) -> str:
        name = unicodedata.name(self.char, "a format character")
        return f"{code_point(self.char, name)} at line {self.line}, column {self.column}"


def invisible_chars(text: str, limit: int | None = None) -> list[Invisible]:
    """The invisible characters (FORMAT_CHARS) in ``text``, a leading byte-order mark
    excepted, the first ``limit`` of them (all when None); one regex pass, lines counted
    as it goes."""
    if text.isascii():
        return []
    out: list[Invisible] = []
    line, line_start, counted = 1, 0, 0
    for m in FORMAT_CHARS.finditer(text):
        if limit is not None and len(out) >= limit:
            break
        at = m.start()
        if at == 0 and m.group() == "\ufeff":
            continue
        newlines = text.count("\n", counted, at)
        if newlines:
            line += newlines
            line_start = text.rfind("\n", counted, at) + 1
        counted = at
        out.append(Invisible(line, at - line_start + 1, m.group()[0]))
    return out


def shown(value: str) -> str:
    """``value`` safe to print on one line: unprintable characters as escapes."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in value)


def escaped(text: str, most: int = 100) -> str:
    """Writer-controlled text (a path) on one line, cut to ``most`` characters, every
    invisible (``FORMAT_CHARS``) and unprintable character written as ``\\uXXXX``."""
    cut = text if len(text) <= most else text[: most - 1] + "…"
    out = FORMAT_CHARS.sub(lambda m: "".join(f"\\u{ord(c):04x}" for c in m.group()), cut)
    return "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in out)
