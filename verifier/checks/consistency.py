"""Claims checked against the rest of the wiki: claim.contradiction, claim.source_conflict,
claim.conflict_marker.

For each cited claim a run adds or changes (each claim of the wiki in a whole-wiki verify),
the other claims about the same subject, on other pages and its own, are its candidates:
claims sharing its words (names, nouns, verbs: every word of four letters or more that is
not a stopword, a number or a negation), those that may disagree with it first (a number
other than its own, the opposite polarity: a crowd that cannot disagree never takes their
place), then the rarest words first, at most ``[consistency] max_candidates`` of them. In a
run, the pages that may hold them are looked up in the tree's TermIndex (each word of at
most COMMON pages → the pages whose claims hold it; ``word!y``, ``word!q``, ``word!-`` →
those whose claims giving a year, another figure, a denial hold it), kept in the
verification cache by tree and derived from the
base's (WikiTree.term_index), and only those pages are read: their claims, and what the ranking
reads of each, from the verification cache by page blob (_pool_claims), else parsed.

A candidate about the same subject (most of their words in common, or nearly all of the
shorter's; no proper name telling them apart) contradicts the claim when it gives a
different number or date (not a decade holding the year, a rough figure within 10%, or
another year of a time series) in the same units, or when one denies what the other says
(not a denial of another date or of something more, nor a qualifying ", but not …"). When
each side is what its own quote says, about their subject, and the sources differ, the
sources disagree: the page must say so, by citing both sources on the claim or with a
``[conflict: raw/…]`` marker in its sentence (which may say no more than which source says
what: else claim.conflict_marker), else claim.source_conflict. Otherwise it is the writer's
error: claim.contradiction. A marker silences only the pair whose other claim cites a source
it names. Claims of a ``::: disputed`` block that main had, before the
block's dated update (``**Updated YYYY-MM-DD per raw/…:**``), are history, never compared;
the update, a claim new in a block and every claim (or gap-marked statement) of a block with
no update are compared like any other (``history``).

With the LLM judge, the pairs about one subject no rule decides are voted on too
(judges/llm/pairs.py), within ``[consistency] judge_max_tokens``, the possible
contradictions first: one of those is a finding only if the judge votes ``contradicts``
(offline, and with no vote, claim.possible_contradiction).

Bounded: a claim's first CLAIM_CHARS characters are read, KEYS of its words index it (a
key at most max_candidates claims of one page), and each claim scores at most SCAN *
max_candidates others, its rarest keys first: linear in the claims. A whole-wiki verify
compares only the claims a rule can decide on (a number, a negation), reads the others in
full only as candidates, and keeps its findings in the verification cache by tree, with
each compared claim's candidates: the next tree's pass is derived from it (_rederive).
"""

from __future__ import annotations

import array
import functools
import hashlib
import heapq
import json
import marshal
import math
import operator
import re
import unicodedata
import zlib
from collections import Counter, OrderedDict
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TypedDict, cast, final

import pygit2

from wikigate.codes import CODES, finding
from wikigate.models import Finding, OtherClaim
from wikigate.text import shown

from ..claims import CONFLICT_MARKER, UPDATE, PageClaim, is_update, page_claims
from ..entries import TreeLimitError
from ..judges.offline import (
    DIMENSIONS,
    NEGATIONS,
    NUMBER_WORDS,
    UNIT_ALIASES,
    UNITS,
    read_words,
    rules_digest,
    spoken_figures,
)
from ..judges.protocol import PairInput, PairVotes
from ..markdown import ParsedPage
from ..sources import NOWHERE
from ..staged import StagedTree
from ..wiki import WikiTree
from .context import Context
from .reading import fold
from .runs import STOPWORDS

CLAIM_CHARS = 2000  # of a claim's sentence read
KEYS = 12  # words of a claim that index it
SCAN = 4  # claims scored per key: SCAN * max_candidates
# pages tied at a claim's cut, in claims of a kind that may contradict it, read whole up to
# this many (a crowd of pages the rules set aside took the places: review 39a #7)
TIE_PAGES = 1000
SAME_SUBJECT = 0.6  # the share of words two claims about one subject have in common
MIN_SHARED = 2  # and at least this many words
COMMON = 1000  # a key of more pages than this is too common to index (counted, not listed)
EXACT = 2_000_000  # claim × candidate scores computed in full below this; else bounded
CONFLICT = CONFLICT_MARKER
_YEAR = re.compile(r"1\d{3}|20\d{2}")
_MONTH_DAY = re.compile(r"\d{1,2} [a-z]{3}")


@dataclass(frozen=True)
class Read:
    """A claim as the check reads it (its ``[conflict: raw/…]`` marker left out)."""

    claim: PageClaim
    words: frozenset[str]  # its subject: words minus numbers, negations, stopwords (stems)
    numbers: frozenset[str]
    units: frozenset[str]
    negated: bool  # its main clause denies (", but not at night" qualifies it)
    keys: tuple[str, ...]
    marked: bool  # its sentence holds a [conflict: …] marker
    years: frozenset[int] = frozenset()
    decades: frozenset[int] = frozenset()  # "the 1890s": 1890
    approx: frozenset[str] = frozenset()  # "about 4,000", "four thousand": roughly
    names: tuple[frozenset[str], ...] = ()  # its proper names ("Harbour Lighthouse")
    plain: frozenset[str] = frozenset()  # its words of three letters or more (stems)
    period: bool = False  # "during the war", "until 1938": a time the claim is bound to
    named: frozenset[str] = frozenset()  # numbers that are part of a name: "Zebra 40"
    dated: frozenset[str] = frozenset()  # the word before a date: "lit" in "lit in 1870"
    tense: str = ""  # "present" (is, are, has, have), "past" (was, were, had), or ""
    described: frozenset[str] = frozenset()  # numbers only of an appositive: "(built 1890)"
    counts: frozenset[str] = frozenset()  # year-like numbers that count: "1,500 books"
    spans: tuple[tuple[float, float], ...] = ()  # "between 5,000 and 5,500", "before 1900"
    # each figure with a unit of _FACTORS: (its system, its value in the system's base unit,
    # half its last digit's step in that unit, and -1 for a figure it is at most, 1 for one
    # it is at least, else 0): "0.4 km" is ("m", 400.0, 50.0, 0), "less than 1 hour" is
    # ("min", 60.0, 30.0, -1)
    measures: tuple[tuple[str, float, float, int], ...] = ()
    agent: frozenset[str] = frozenset()  # "The town opened the museum": "town" (stems)
    alias: frozenset[str] = frozenset()  # the number of an appositive: "(No. 3)", ", route 4,"
    # a size describing the subject outside the predicate, read as a claim of its own: "The
    # bridge, 300 metres long, was opened in 1890": "The bridge is 300 metres long"; and the
    # claim's clauses, each read as a claim of the subject (_clauses)
    sizes: tuple[Read, ...] = ()
    # two clauses of two subjects ("The bridge was built in 1890 and the pier is 300 metres
    # long"): compared only clause by clause (its ``sizes``), never as one claim
    joined: bool = False
    # the words of its main clause (stems) where a qualifier follows it (", but not in
    # winter", ", but it does not run in winter", "except in winter"): what it affirms
    # (empty: all of ``plain``)
    main: frozenset[str] = frozenset()


_LETTERS = re.compile(r"[^\W\d_]+")  # letters of any script (review 38a #2: "[a-z]+")
# words no claim is keyed by (_keys)
_NOT_KEYS = frozenset(STOPWORDS) | frozenset(NEGATIONS) | frozenset(NUMBER_WORDS)


def keys_of(sentence: str) -> tuple[str, ...]:
    """The words that index a claim: its longest words of four letters or more that are
    not stopwords, negations or number words (cheap: read for every claim of the wiki)."""
    return _keys(_words(sentence))


def _words(sentence: str) -> set[str]:
    """The claim's words, lower case, its ``[conflict: raw/…]`` marker left out."""
    return _words_in(_unmarked(sentence))


def _unmarked(sentence: str) -> str:
    """What a claim says (_said), its ``[conflict: raw/…]`` marker left out."""
    said = _said(sentence)
    return CONFLICT.sub(" ", said) if "[" in said else said


def _words_in(text: str) -> set[str]:
    """The words of an _unmarked text, lower case (ASCII text is as fold reads it, accents
    left out: "café" is "cafe")."""
    return set(_LETTERS.findall((text if text.isascii() else _unaccented(fold(text))).lower()))


def _unaccented(text: str) -> str:
    """``text`` with the accents of its letters left out ("café": "cafe"; review 38a #2:
    "[a-z]+" read "caf", a word too short to count, so "The café opened in 1894" was never
    compared with "… in 1896")."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _said(sentence: str) -> str:
    """What a claim says (its first CLAIM_CHARS characters): an update's dated marker left
    out ("Updated 2026-11-21 per raw/…:" names when and where from, not what); digits of
    any script as ASCII ("١٨٧٣": 1873, which NFKC leaves alone), a year in Roman numerals
    after a preposition as digits ("in MDCCCXCIV": in 1894) (review 37b)."""
    m = UPDATE.match(sentence)
    text = sentence[m.end() : m.end() + CLAIM_CHARS] if m else sentence[:CLAIM_CHARS]
    if not text.isascii():
        text = _OTHER_DIGIT.sub(lambda d: str(unicodedata.decimal(d.group(0))), text)
        # "ⅯⅮⅭⅭⅭⅬⅩⅩ" (U+2160..U+2188): the letters NFKC folds them to (review 37c #5)
        text = _ROMAN_SIGN.sub(lambda r: unicodedata.normalize("NFKC", r.group(0)), text)
    if ("M" in text or "m" in text) and _ROMAN_WORD.search(text):
        text = _ROMAN_YEAR.sub(_roman_year, text)
    return text


_OTHER_DIGIT = re.compile(r"(?![0-9])\d")
_ROMAN_SIGN = re.compile("[\u2160-\u2188]")
_ROMAN_YEAR = re.compile(
    r"\b((?:in|of|on|since|until|till|from|by|before|after|during|circa|c\.)\s+)"
    r"(M{1,2}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3}))\b",
    re.I,
)
# what _ROMAN_YEAR needs, found cheaply: a word of Roman letters after a space, "M" first
_ROMAN_WORD = re.compile(r"\sM[MDCLXVI]*\b", re.I)
_ROMAN = {"M": 1000, "D": 500, "C": 100, "L": 50, "X": 10, "V": 5, "I": 1}


def _roman_year(m: re.Match[str]) -> str:
    value = roman_value(m.group(2))
    return m.group(1) + str(value) if value is not None else m.group(0)


def roman_value(numeral: str) -> int | None:
    """A well-formed Roman year (1000 to 2099: ``_ROMAN_YEAR``'s form) as a number, else
    None; in lower case only of four letters or more ("mdccclxx": 1870; "in mix", "in mm"
    are words: review 37c #5)."""
    if not numeral.isupper() and len(numeral) < 4:
        return None
    # ASCII letters only: the patterns ignore case, and Unicode case folding matches "İ"
    # (U+0130) and "ı" to "i", which are no Roman numerals (a KeyError made the check fail)
    if not numeral.isascii() or _ROMAN_NUMERAL.fullmatch(numeral) is None:
        return None
    value = 0
    upper = numeral.upper()
    for here, after in zip(upper, [*upper[1:], ""], strict=True):
        v = _ROMAN[here]
        value += -v if after and _ROMAN[after] > v else v
    return value if 1000 <= value <= 2099 else None


_ROMAN_NUMERAL = re.compile(r"M{1,2}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})", re.I)


def history(claims: Iterable[PageClaim]) -> set[str]:
    """The ids of the claims that are history: in a ``::: disputed`` block, before the
    block's dated update (``**Updated YYYY-MM-DD per raw/…:**`` on a later claim of the
    block, with no claim outside a block between them) that is about the same subject and
    disagrees with it (the pair the rules would flag). A disputed claim with no such update
    after it, and every update, are compared like any other claim (review 37b: a claim
    wrapped in a block with no update left the check for good, and so did an update once it
    had landed; review 37c: an update about any other subject, or dated 2026-13-45, made
    the old claim history)."""
    out: set[str] = set()
    pending: list[PageClaim] = []
    for c in sorted(claims, key=lambda c: (c.page, c.line)):
        if pending and pending[-1].page != c.page:
            pending = []
        if not c.disputed:
            pending = []
        elif is_update(c.sentence):
            new = read(c)
            out.update(p.id for p in pending[-PENDING:] if _replaces(new, read(p)))
            pending = []
        else:
            pending.append(c)
    return out


PENDING = 20  # the claims before an update it may make history (the nearest ones)


def _replaces(new: Read, old: Read) -> bool:
    """The update says of the old claim's subject another figure, date or the opposite."""
    return disagreement(new, old) not in (None, POSSIBLE)


def current(claims: list[PageClaim]) -> list[PageClaim]:
    """``claims`` without the ones that are history (``history``)."""
    old = history(claims)
    return [c for c in claims if c.id not in old]


def _keyed(w: str) -> bool:
    """A word that indexes a claim: of four letters or more, not a stopword, negation or
    number word; or a content word of three ("bus", "inn", "dam": review 39a #2, the gate
    never looked up the claims about them, only the whole-wiki pass compared them)."""
    n = len(w)
    return (n >= 4 and w not in _NOT_KEYS) or (n == 3 and w not in _SHORT_STOP)


def _key_set(words: set[str]) -> frozenset[str]:
    """_keys(words) as a set (unsorted unless there are more than KEYS)."""
    subject = [w for w in words if _keyed(w)]
    if len(subject) <= KEYS:
        return frozenset(subject)
    subject.sort(key=len, reverse=True)
    if len(subject[KEYS - 1]) > len(subject[KEYS]):  # no tie at the cut: no order of names
        return frozenset(subject[:KEYS])
    return frozenset(_keys(words))


def _keys(words: set[str]) -> tuple[str, ...]:
    subject = [w for w in words if _keyed(w)]
    subject.sort()
    subject.sort(key=len, reverse=True)  # stable: the longest first, then alphabetically
    return tuple(subject[:KEYS])


# "eighteen ninety-six", "nineteen hundred and ten": years in words
_TENS = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
_UNITS_W = "one|two|three|four|five|six|seven|eight|nine"
_TEENS = "ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
_YEAR_WORDS = re.compile(
    rf"\b(eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty)"
    rf"(?:[\s-]+hundred(?:[\s-]+and)?)?[\s-]+(?:({_TENS})(?:[\s-]+({_UNITS_W}))?|({_TEENS}))\b"
    rf"|\b(eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)"
    rf"[\s-]+hundred\b(?![\s-]+(?:and|{_UNITS_W}|{_TEENS}|{_TENS}))",
    re.I,
)
_WORD_VALUE = {w: int(v) for w, v in NUMBER_WORDS.items() if int(v) < 100}
# a number in words before a word, read as digits (trial 40 #7: "takes forty minutes" made
# "forty" a word of the subject, "“takes forty” may be another thing than “takes”"): tens
# with their unit ("twenty-five"), teens, two to nine; "one" only before a unit ("one of
# them" stays), none before a scale word or "and" (text2num reads "two thousand")
_SMALL = "two|three|four|five|six|seven|eight|nine"
_NUMBER_WORD = re.compile(
    rf"\b(?:({_TENS})(?:[\s-]+({_UNITS_W}))?|({_TEENS}|{_SMALL}))\b"
    r"(?=\s+(?!(?:and|hundred|thousand|million|billion|of)\b)[a-z])"
)
_ONE_UNIT = re.compile(r"\bone(?=\s+(?:hour|minute|second|day|week|mile|yard|metre|meter)s?\b)")


_SCALE_WORDS = frozenset({"and", "hundred", "thousand", "million", "billion"})
_LAST_WORD = re.compile(r"([a-z]+)[\s-]*$")


def _number_word(m: re.Match[str]) -> str:
    before = _LAST_WORD.search(m.string, max(0, m.start() - 20), m.start())
    if before is not None and (before.group(1) in _SCALE_WORDS or before.group(1) in _WORD_VALUE):
        return m.group(0)  # part of a longer number: "four hundred and twenty" (text2num's)
    if m.group(3):
        return str(_WORD_VALUE[m.group(3)])
    return str(_WORD_VALUE[m.group(1)] + (_WORD_VALUE[m.group(2)] if m.group(2) else 0))


def _numbers_in_words(text: str) -> str:
    """Numbers in words as digits where the rules read a figure (``_NUMBER_WORD``, and the
    offline judge's ``spoken_figures``: "half an hour", "one and a half thousand"); lower-case words only (a name, "Seven Sisters",
    stays)."""
    text = spoken_figures(text)
    if "one " in text:
        text = _ONE_UNIT.sub("1", text)
    return _NUMBER_WORD.sub(_number_word, text)


def _year_of(m: re.Match[str]) -> str:
    if m.group(5):
        return str(_WORD_VALUE[m.group(5).lower()] * 100)
    head = _WORD_VALUE[m.group(1).lower()] * 100
    if m.group(4):
        return str(head + _WORD_VALUE[m.group(4).lower()])
    return str(
        head + _WORD_VALUE[m.group(2).lower()] + _WORD_VALUE.get((m.group(3) or "zero").lower(), 0)
    )


_DECADE = re.compile(r"\b(?:the\s+)?((?:1\d|20)\d0)'?s\b", re.I)
_HEDGE = re.compile(
    r"\b(?:about|around|some|nearly|almost|approximately|roughly|circa|ca\.|c\.|approx\.?|"
    r"over|more than|less than|fewer than|under|at least|at most|up to|estimated|perhaps|"
    r"an estimated|close to|just over|just under)\s+(?:an?\s+)?(\d[\d,]*(?:\.\d+)?)",
    re.I,
)
_DIGITS = re.compile(r"\d[\d,]*(?:\.\d+)?")
# what follows a claim's main clause and only qualifies it: ", but not at night",
# ", not 52 metres as once reported", ", except on Sundays"
_QUALIFIER = re.compile(
    r",\s*(?:but|except|though|although|unless|not|save|apart|only)\b|\s(?:but\s+not|except)\b",
    re.I,
)
_Y = r"(?:1\d{3}|20\d{2})"
# a period between two years: "from 1900 to 1935", "between 1900 and 1935", "1900–1935"
_RANGE = re.compile(
    rf"\bfrom\s+({_Y})\s+(?:to|until|till)\s+({_Y})\b|\bbetween\s+({_Y})\s+and\s+({_Y})\b"
    rf"|(?<![\d,.])({_Y})\s*[\u2013\u2014-]\s*({_Y})(?![\d,.]*\d)",
    re.I,
)
_PERIOD = re.compile(
    _RANGE.pattern + r"|\b(?:during|until|till|since|before|after|while|whilst|when|wartime)\b",
    re.I,
)
_NAME_RUN = re.compile(r"(?:[A-Z][\w'&-]*\s+)*[A-Z][\w'&-]*")
# short words that say no more than the negation they go with ("does not", "no longer")
_NEGATION_HELPERS = frozenset(
    {"does", "did", "do", "doe", "doesn", "didn", "longer", "ever", "any"}
)
# the words of three letters that say nothing of a subject (longer ones: STOPWORDS)
_SHORT_STOP = frozenset(re.findall(r"\w+", "the and was its has had are for but not did any all"))
_SHORT_STOP |= frozenset(re.findall(r"\w+", "one his her who yet now too onto"))
# function words of three letters (a content word of three letters, "bus", "inn", "run",
# "pay", "win", is read as any other word: review 38a #2)
_SHORT_STOP |= frozenset(
    re.findall(
        r"\w+",
        "nor yes off out how why may can per via she him our you get got let own see few "
        "new old ago far way set put lot due non etc ltd its isn wasn aren hasn hadn don "
        "also",
    )
)


@functools.lru_cache(maxsize=1 << 16)
def _stem(w: str) -> str:
    """A word's stem, cheaply: "opened", "opens", "opening" → "open"; "closed", "close" →
    "clos"; "running", "ran", "runs" → "run" and the past forms of common irregular verbs
    as their verb's ("paid": "pay", "sank", "sunk": "sink"; review 38a #2)."""
    irregular = _IRREGULAR.get(w)
    if irregular is not None:
        return irregular
    return _suffixed(w)


def _suffixed(w: str) -> str:
    for suffix in ("ing", "ed", "es", "s", "e"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            stem = w[: -len(suffix)]
            if suffix in ("ing", "ed") and stem[-1] == stem[-2] and stem[-1] in _DOUBLED:
                return stem[:-1]  # "running": "run", "stopped": "stop"
            return stem
    return w


_DOUBLED = frozenset("bgmnprt")  # "running", "stopped"; not "falling", "passed", "added"
# irregular forms of common verbs, each read as its verb (a word of two forms, "found",
# "left", "rose", "saw", is not listed: it is also another word)
_IRREGULAR = {
    form: _suffixed(verb)
    for verb, forms in (
        ("pay", "paid"),
        ("win", "won"),
        ("run", "ran"),
        ("sink", "sank sunk"),
        ("ring", "rang rung"),
        ("sing", "sang sung"),
        ("build", "built"),
        ("begin", "began begun beginning"),
        ("sell", "sold"),
        ("buy", "bought"),
        ("hold", "held"),
        ("make", "made"),
        ("give", "gave given"),
        ("take", "took taken"),
        ("come", "came"),
        ("write", "wrote written"),
        ("stand", "stood"),
        ("lose", "lost"),
        ("keep", "kept"),
        ("lead", "led"),
        ("meet", "met"),
        ("send", "sent"),
        ("spend", "spent"),
        ("burn", "burnt"),
        ("teach", "taught"),
        ("bring", "brought"),
        ("grow", "grew grown"),
        ("draw", "drew drawn"),
        ("fly", "flew flown"),
        ("choose", "chose chosen"),
        ("break", "broke broken"),
        ("drive", "drove driven"),
        ("ride", "rode ridden"),
        ("swim", "swam swum"),
        ("strike", "struck"),
    )
    for form in forms.split()
}


_NEGATION_STEMS = frozenset(_stem(n) for n in NEGATIONS)
_NOT_PLAIN = _SHORT_STOP | NEGATIONS | _NEGATION_HELPERS
_SHORT_STEMS = frozenset(_stem(w) for w in _NOT_PLAIN if len(w) <= 3)  # "did", "doe"
_NOT_NAMES = STOPWORDS | _SHORT_STOP | {"in", "on", "at", "of", "a", "an", "by"}

# words for one event: a synonym of the other claim's verb is the same event, not another
# ("first illuminated in 1872" against "first lit in 1870"); each group reads as its first
_SAME_EVENT = {
    _stem(w): _stem(group.split()[0])
    for group in (
        "lit illuminated lighted kindled",
        "opened inaugurated unveiled",
        "founded established instituted",
        "built constructed erected",
        "demolished razed",
        "closed shut",
        "died perished",
        "born",
        "launched floated",
        "completed finished",
    )
    for w in group.split()
}


def _events(stems: Iterable[str]) -> frozenset[str]:
    """Stems, each word of an event read as its group's first (``_SAME_EVENT``)."""
    return frozenset(_SAME_EVENT.get(w, w) for w in stems)


def _text(sentence: str) -> str:
    """A claim's text as the rules read it: its first CLAIM_CHARS characters, without its
    ``[conflict: raw/…]`` marker (the page's note, not the claim), years in words as digits,
    a possessive as the noun before its head ("the museum's hall", "the museum’s hall": "the
    museum hall"), an appositive after the subject left out ("The ferry (the boat) does
    not run", "The ferry, the old boat, does not run": "The ferry does not run")."""
    # as a reader reads it: "Lighthоuse" with a Cyrillic о, "１８９６" full-width (review 36b)
    text = fold(CONFLICT.sub("", _said(sentence)))
    if not text.isascii():  # "doesn’t", "museum’s": the ASCII apostrophe (review 37d #1)
        text = _unaccented(text.translate(_APOSTROPHES))
    if "'" in text:
        text = _POSSESSIVE.sub(_possessive, text)
    if "itself" in text or "that is" in text or "i.e." in text:
        # "The museum shop (the museum itself) opened …": the museum
        text = _RENAMED.sub(_renamed, text, count=1)
    if "(" in text or "," in text:  # "The ferry, route number 4, does not run": the ferry
        text = _NUMBER_APPOSITIVE.sub(r"\1", text, count=1)
    if "(" in text or "," in text or "-" in text or "\u2014" in text or "\u2013" in text:
        text = _APPOSITIVE.sub(r"\1", text, count=1)
    if "o." in text or "r." in text or "No " in text or "#" in text:
        text = _NUMBER_SIGN.sub("number ", text)  # "Mill No. 3": "Mill number 3"
    if "ength" in text or "eight" in text or "idth" in text or "epth" in text:
        # "is 300 metres in length", "has a length of 300 metres": "is 300 metres long"
        # and "the bridge's length is 300 metres" (its possessive read as "the bridge length")
        text = _DIMENSION_OF.sub(_dimension_of, _IN_DIMENSION.sub(_in_dimension, text))
        text = _DIMENSION_IS.sub(_dimension_is, text)
    if "stand" in text or "stood" in text:
        # "stands 42 metres tall": "is 42 metres tall" (review 39a #9: only possible)
        text = _STANDS.sub(lambda m: "is" if m.group(1).lower() == "stands" else "was", text)
    if (
        "o later" in text
        or "o earlier" in text
        or "o more" in text
        or "o fewer" in text
        or ("o less" in text)
    ):  # "no later than 1800": before 1800, no denial (review 41a #9)
        text = _NO_MORE.sub(lambda m: _BOUNDS_SAID[m.group(1).lower()], text)
    if "no one" in text or "nobody" in text or "No one" in text or "Nobody" in text:
        text = _NO_ONE.sub("0 people", text)  # a count of none (review 41a #5)
    if " by " in text:  # "founded by Sir John Lowe in 1552": founded in 1552 (review 41a #1)
        text = _BY_AGENT.sub("", text)
    if " to " in text:  # "opened to the public in 1894": opened in 1894 (not "to traffic")
        text = _AUDIENCE.sub("", text)
    if "ann" in text or "year" in text:  # "annually", "per year": "a year"
        text = _A_YEAR.sub("a year", text)
    text = _numbers_in_words(_YEAR_WORDS.sub(_year_of, text))
    if "measure" in text or "rise" in text or "rose" in text:
        # "measures 300 metres": "is 300 metres long"; "rises sixty-two metres": "is 62
        # metres tall" (after number words are read)
        text = _MEASURES.sub(_measured, text)
    if " until " in text and " not " in text:
        # "was not drained until 1956": first drained in 1956 (review 41a #9)
        text = _NOT_UNTIL.sub(r"\1 first \2 in \3", text)
    if "fortnight" in text:
        text = _FORTNIGHT.sub("2 weeks", text)
    if "our" in text and "min" in text:  # "1 hour and 20 minutes": "80 minutes" (review 40a #7)
        text = _HOURS_MINUTES.sub(_in_minutes, text)
    return text


# the agent of a passive verb: "by" and a name ("by Sir John Lowe", "by the Bishop of Ely",
# "by King John") or an organisation ("by the railway company", "by the Midland Railway")
_BY_AGENT = re.compile(
    r"(?<=[a-z\d])\s+by\s+(?!(?:January|February|March|April|May|June|July|August|September"
    r"|October|November|December|Christmas|Easter|Whitsun|Michaelmas|the\s+end)\b)"
    r"(?:(?:the|a|an)\s+)?(?:"
    r"(?:[A-Z][\w'-]*\.?\s+(?:(?:of|de|van|von|the)\s+)?)*[A-Z][\w'-]*"
    r"|(?:[a-z]+\s+){0,2}(?:company|council|corporation|society|trust|railway|government"
    r"|architect|builder|builders|firm|town|city|parish|church|crown|state|county|king|queen"
    r"|bishop|monks|guild|fishermen|villagers|townspeople|navy|army))\b",
)
_NO_MORE = re.compile(r"\b[Nn]o\s+(later|earlier|more|fewer|less)\s+than\b")
_BOUNDS_SAID = {
    "later": "before",
    "earlier": "after",
    "more": "at most",
    "fewer": "at least",
    "less": "at least",
}
_NO_ONE = re.compile(r"\b(?:[Nn]o[\s-]one|[Nn]obody)\b")
_NOT_UNTIL = re.compile(
    r"\b(was|were|did|had)\s+not\s+([a-z]+)\s+until\s+((?:1\d{3}|20\d{2})\b)", re.I
)
_FORTNIGHT = re.compile(r"\b(?:a|one)\s+fortnight\b", re.I)
_AUDIENCE = re.compile(
    r"(?<=\w)\s+to\s+(?:the\s+)?(?:general\s+)?(?:public|visitors)\b",
    re.I,
)
_A_YEAR = re.compile(
    r"\b(?:annually|yearly|per\s+annum|per\s+year|each\s+year|every\s+year)\b", re.I
)
# "1 hour and 20 minutes", "an hour and twenty minutes" (review 40b: no digit)
_MINUTE_WORDS = rf"(?:{_TENS})(?:[\s-]+(?:{_UNITS_W}))?|{_TEENS}|{_UNITS_W}"
_HOURS_MINUTES = re.compile(
    rf"\b(\d{{1,3}}|an?|one)\s*(?:hours?|hrs?|h)\s*(?:,\s*|and\s+)?(\d{{1,2}}|{_MINUTE_WORDS})"
    r"\s*(?:minutes?|mins?)\b",
    re.I,
)


def _in_minutes(m: re.Match[str]) -> str:
    hours = int(m.group(1)) if m.group(1).isdigit() else 1
    said = m.group(2).lower()
    minutes = (
        int(said) if said.isdigit() else sum(_WORD_VALUE[w] for w in re.split(r"[\s-]+", said))
    )
    return f"{hours * 60 + minutes} minutes"


# an appositive just after the subject that names the subject again, "the X itself" or
# "that is the X": the claim is about what it names ("The museum shop (the museum itself)
# opened in 1894" is about the museum, not the shop)
_RENAMED = re.compile(
    r"^(\W*)((?:[A-Za-z][\w'-]*\s+){0,5}?[A-Za-z][\w'-]*)\s*(?:\(\s*|,\s+)"
    r"(?:(?:that is|i\.e\.),?\s+((?:the|its|their)\s+[A-Za-z][\w'-]*(?:\s+[A-Za-z][\w'-]*){0,3}?)"
    r"(?:\s+itself)?|((?:the|its|their)\s+[A-Za-z][\w'-]*(?:\s+[A-Za-z][\w'-]*){0,3}?)\s+itself)"
    r"\s*(?:\)|,)(?=\s)",
    re.I,
)


def _renamed(m: re.Match[str]) -> str:
    """The subject an appositive names again, if its last word is one of the subject's
    ("The museum shop (the museum itself)": "the museum"); else the text unchanged ("The
    museum (that is the building)": _APPOSITIVE leaves it out)."""
    name = m.group(3) or m.group(4)
    if name.split()[-1].lower() not in m.group(2).lower().split():
        return m.group(0)
    return m.group(1) + name


# one predicate of a size, however it is put (review 38a #10: "The bridge is 300 metres in
# length" and "… has a length of 300 metres" were never compared with "… 400 metres long")
_ADJECTIVE = {"length": "long", "height": "high", "width": "wide", "depth": "deep"}
_IN_DIMENSION = re.compile(
    r"\b(is|was|are|were)\s+((?:[\w,.]+\s+){1,4}?)in\s+(length|height|width|depth)\b", re.I
)
_DIMENSION_OF = re.compile(
    r"\b(has|had|have)\s+an?\s+(?:total\s+)?(length|height|width|depth)\s+of\s+"
    r"((?:[a-z]+\s+){0,2}\d[\d,]*(?:\.\d+)?\s*[A-Za-z]+)\b",
    re.I,
)
_BE = {"has": "is", "had": "was", "have": "are"}
_DIMENSION_IS = re.compile(
    r"\b(length|height|width|depth)\s+(is|was)\s+((?:[a-z]+\s+){0,2}\d[\d,]*(?:\.\d+)?\s*[A-Za-z]+)\b",
    re.I,
)
_MEASURES = re.compile(
    r"\b(measures|measured|rises|rose)\s+((?:[a-z]+\s+){0,2}\d[\d,]*(?:\.\d+)?\s*[A-Za-z]+)\b"
    r"(?!\s+(?:long|tall|high|wide|deep|in|across|from|above|over)\b)",
    re.I,
)


def _dimension_is(m: re.Match[str]) -> str:
    return f"{m.group(2)} {m.group(3)} {_ADJECTIVE[m.group(1).lower()]}"


def _measured(m: re.Match[str]) -> str:
    verb = m.group(1).lower()
    be = "was" if verb in ("measured", "rose") else "is"
    return f"{be} {m.group(2)} {'long' if verb.startswith('measure') else 'tall'}"


_STANDS = re.compile(
    r"\b(stands|stood)(?=\s+(?:[a-z]+\s+)?\d[\d,]*(?:\.\d+)?\s*[A-Za-z]+\s+(?:tall|high)\b)",
    re.I,
)


def _in_dimension(m: re.Match[str]) -> str:
    return f"{m.group(1)} {m.group(2)}{_ADJECTIVE[m.group(3).lower()]}"


def _dimension_of(m: re.Match[str]) -> str:
    return f"{_BE[m.group(1).lower()]} {m.group(3)} {_ADJECTIVE[m.group(2).lower()]}"


# "Mill No. 3", "Mill no. 3", "Lock Nr. 12", "Pier #4": the sign of a number naming the
# thing, read as "number" (review 38b F3: "No." was read as a negation)
_NUMBER_SIGN = re.compile(r"(?<=[A-Za-z] )(?:(?:[Nn]o|[Nn]r|[Nn]os)\.\s*|No\s+|#\s*)(?=\d)")


_APOSTROPHES = str.maketrans({"\u2019": "'", "\u02bc": "'", "\u2018": "'", "\uff07": "'"})
# "the museum's hall", "the brothers' mill": the noun as read before a head (review 37d #1:
# "museum's" was read as a word of its own, so the pair was never compared); not "it's",
# "there's", "let's" (a contraction: "it is")
_POSSESSIVE = re.compile(r"\b([A-Za-z]+)'s\b|(?<=[A-Za-z]s)'(?=\s)")
_CONTRACTED = frozenset(
    re.findall(r"\w+", "it he she that there what who here where how let this one everyone")
)


def _possessive(m: re.Match[str]) -> str:
    word = m.group(1)
    if word is None:
        return ""  # "the brothers' mill"
    return m.group(0) if word.lower() in _CONTRACTED else word


# an appositive just after the subject (its first words, at most six): in brackets (not
# a qualifier: "(in summer)", "(except on Sundays)"), or between commas or dashes after
# "the"/"a"/"its", with no figure of its own ("The ferry (the boat) does not run in winter"
# against "The ferry runs in winter": review 37d #1); the rest of the sentence and a
# bracket giving a figure ("The bridge (built in 1894) is …") are read whole
_QUALIFYING = (
    r"in|on|at|during|until|till|except|but|only|not|no|never|from|to|for|with|without|if|"
    r"when|while|unless|since|before|after|by|as|via|per|every|each|weather|save|apart"
)
_APPOSITIVE = re.compile(
    r"^(\W*(?:[A-Za-z][\w'-]*\s+){0,5}?[A-Za-z][\w'-]*)"
    rf"(?:\s*\((?!\s*(?:{_QUALIFYING})\b)[^()\d]{{1,80}}\)"
    r"|,\s+(?:the|an?|its|their)\s+[^,;:()\d]{1,60},"
    r"|\s+[\u2014\u2013-]{1,2}\s*(?:the|an?|its|their)\s+[^\u2014\u2013;:()\d-]{1,60}?"
    r"\s*[\u2014\u2013-]{1,2})(?=\s)",
    re.I,
)


_MONTHS = frozenset(
    re.findall(r"\w+", "january february march april may june july august september october")
) | frozenset(
    re.findall(r"\w+", "november december jan feb mar apr jun jul aug sep sept oct nov dec")
)
# "Zebra 40", "Route 66", "Platform 3": a number naming the thing (not a year, not a day)
_NAMED_NUMBER = re.compile(r"\b([A-Z][a-z]+)\s+(\d+)\b(?![.,]\d)(?:\s+([a-z]+))?")
_NUMBERED = re.compile(r"\b([A-Za-z]+)\s+[Nn]umber\s+(\d+)\b(?![.,]\d)")
_LAW_YEAR = re.compile(
    r"\b(?:Act|Acts|Treaty|Convention|Accord|Agreement|Order|Regulations|Statute|Charter)"
    r"\s+(1\d{3}|20\d{2})\b"
)
_YEAR_NAMED = re.compile(r"\b[Tt]he\s+(1\d{3}|20\d{2})\s+(?=[A-Z][a-z])")
_VERSION = re.compile(
    r"(?:\b[A-Z][\w+#-]*\s+|\b[Vv]ersion\s+|\bv)(\d+(?:\.\d+)+)\b(?![.,]\d)"
    r"|(?<![\d.,])(\d+(?:\.\d+)+)(?=\s+(?:release|version|update|edition)s?\b)"
)
# verbs before "number N" that make it a figure, a rank: "The school was number 3 in the
# county", "ranked number 3" (review 39a #6: read as a name, never compared)
_RANKING = frozenset(
    re.findall(
        r"\w+",
        "is are was were be been being became become becomes remained remains ranked ranks "
        "rank rated rates came comes stood stands placed finished listed",
    )
)
# an appositive after the subject that numbers it, read as a name of the subject and left
# out of the text: "The Harbour Lighthouse (No. 3) was first lit", "The ferry, route number
# 4, does not run", "The mill, number 2 on the river, was built" (review 39a #6: the number
# was read as another subject's, or the appositive's words as the subject's); its number is
# the claim's alias (two claims giving two such numbers are about two things)
_NUMBER_APPOSITIVE = re.compile(
    r"^(\W*(?:[A-Za-z][\w'-]*\s+){0,5}?[A-Za-z][\w'-]*)"
    r"(?:\s*\(\s*(?:(?:[A-Za-z]+\s+)?(?:number|nos?\.?|nr\.?|\#)\s*(\d+)"
    # or a word and a number of three digits at most, "(route 4)", not "(built 1890)"
    rf"|(?!(?:{_QUALIFYING}|about|around|some|nearly|almost|over|under|circa|ca?)\b)"
    r"[A-Za-z]+\s+(\d{1,3}))\s*\)"
    r"|,\s+(?:[A-Za-z]+\s+)?(?:number|nos?\.|nr\.|\#)\s*(\d+)"
    r"(?:\s+(?:on|in|of|along|at|by)\s+(?:the\s+)?[A-Za-z]+)?,)(?=\s)",
    re.I,
)


def _alias(raw: str) -> frozenset[str]:
    """The number of an appositive numbering the subject (``_NUMBER_APPOSITIVE``)."""
    if "(" not in raw and "," not in raw:
        return frozenset()
    m = _NUMBER_APPOSITIVE.match(_unmarked(raw))
    return frozenset() if m is None else frozenset(g for g in m.groups()[1:] if g)


# capitalised words before a figure that say how much, not which: "Nearly 400 people"
_QUANTIFIERS = frozenset(
    re.findall(
        r"\w+",
        "over under within around about some almost nearly roughly approximately exactly only "
        "just fewer less more most least barely circa all every another last next past top "
        "many several few each per with without for from since after before between among",
    )
)
# the word a date hangs on: "lit in 1870", "lit on 3 May 1870", "demolished in the 1960s"
_DATED = re.compile(
    r"\b([A-Za-z]+)\s+(?:in|on|during)\s+(?:the\s+)?(?:(?:early|late|mid)[\s-]+)?"
    r"(?:\d{1,2}\s+[A-Za-z]+\s+)?(?:1\d{3}|20\d{2})"
)
_TOKEN = re.compile(r"[A-Za-z]+")
_PRESENT = frozenset({"is", "are", "has", "have"})
_PRESENT_NOW = _PRESENT | {"does", "do", "still"}  # a present verb: no dated past (_past_form)
_PAST = frozenset({"was", "were", "had"})
# words that may stand between a subject and its verb without naming another thing
_NOT_HEAD = frozenset(
    re.findall(
        r"\w+",
        "is are was were be been being has have had do does did will would can could may might "
        "shall should must first again once later soon then also still already just even ever "
        "now thus since never not only itself themselves too yet both all each alone",
    )
)


def _named(text: str) -> frozenset[str]:
    """The numbers of ``text`` that are part of a name ("Zebra 40 grazed", "Route 66"):
    after a word with a capital that is no month or function word, and no year; or after
    "number" after a word ("Mill number 2", "the mill No. 3": review 38b F3, twenty pages
    "Mill number N produced flour …" gave 190 source conflicts)."""
    numbered = (
        frozenset(
            m.group(2)
            for m in _NUMBERED.finditer(text)
            if m.group(1).lower() not in _RANKING  # "was number 3 in the county": a rank
        )
        if "umber" in text
        else frozenset()
    )
    if "he " in text:  # "the 2012 Olympics", "the 1966 World Cup": a year in a name
        numbered |= frozenset(_YEAR_NAMED.findall(text))
    if "Act" in text or "Treaty" in text or "Convention" in text or "Order" in text:
        numbered |= frozenset(_LAW_YEAR.findall(text))  # "the Reform Act 1867" (review 41c)
    if "." in text:
        # "Firefox 3.0", "version 2.0", "the 1.4 release": a version names the thing (review
        # 41b H4: "Firefox 3.0 was released in 2008" against "… 2009" was a time series)
        numbered |= frozenset(m.group(1) or m.group(2) for m in _VERSION.finditer(text))
    return numbered | frozenset(
        m.group(2)
        for m in _NAMED_NUMBER.finditer(text)
        if (w := m.group(1).lower()) not in _MONTHS
        and w not in _NOT_NAMES
        and w not in _QUANTIFIERS
        and w not in _NOT_HEAD
        and not w.endswith("ly")
        and not _YEAR.fullmatch(m.group(2))
        and (m.group(3) or "") not in UNITS
    )


def _tense(words: set[str] | frozenset[str]) -> str:
    present, past = bool(words & _PRESENT), bool(words & _PAST)
    return "present" if present and not past else "past" if past and not present else ""


def read(claim: PageClaim, *, whole: bool = True) -> Read:
    """What the rules read of a claim; ``whole``: with the reads of its parts (a size
    outside its predicate, its clauses), which are read without theirs (bounded: a claim of
    many clauses is read at most 1 + CLAUSES + 3 times)."""
    raw = claim.sentence[:CLAIM_CHARS]
    text = _text(raw)
    dated = _events(
        _stem(w)
        for m in _DATED.finditer(text)
        if (w := m.group(1).lower()) not in _NOT_PLAIN
        and w not in STOPWORDS
        and w not in _NOT_HEAD
        and len(w) >= 3
    )
    named = _named(text)
    decades = frozenset(int(m.group(1)) for m in _DECADE.finditer(text))
    text = _DECADE.sub(" ", text)
    words, numbers = read_words(text)
    if not text.isascii():  # words of another script than Latin ("Ωδείο"), case-folded
        words = words | {w.casefold() for w in _ANY_WORD.findall(text) if not w.isascii()}
    numbers = numbers - named
    main, described = _apart(text)
    counts = _counts(text) if numbers else frozenset()
    spans, bounding = _spans(text) if numbers else ((), frozenset())
    qualified = _QUALIFIER.search(text)
    main_words = read_words(text[: qualified.start()])[0] if qualified else words
    approx: frozenset[str] = frozenset()
    if numbers:
        literal = {m.group(0).replace(",", "") for m in _DIGITS.finditer(text)}
        hedged = {m.group(1).replace(",", "") for m in _HEDGE.finditer(text)}
        approx = (
            frozenset(
                n
                for n in numbers
                if n in hedged or (n not in literal and " " not in n and _round(n))
            )
            - bounding
        )  # "fewer than 5,000" is no rough 5,000
    measures, measured = (
        _measures(text) if numbers and not words.isdisjoint(_FACTORS) else ((), frozenset())
    )
    content = [
        w
        for w in words
        if len(w) >= 3
        and not w[0].isdigit()
        and w not in STOPWORDS
        and w not in measured
        and w != "since"
    ]  # a unit after a figure is no word of the subject ("2 miles", "3,520 yards"), nor
    # the "since" of a period ("Since 1890 the ferry has not run": the ferry, run)
    subject = (
        _events(_stem(w) for w in content if len(w) >= 4 or w not in _NOT_PLAIN)
        - _NEGATION_STEMS
        - _SHORT_STEMS
    )
    plain = _events(_stem(w) for w in content if w not in _NOT_PLAIN)
    parts = (
        (_described(claim, text) if measures or "-" in text else ())
        # a clause can hide only a figure or a denial: a claim with neither has none to
        # read (the 10k benchmark wiki's candidates: a fifth of a run's check)
        + (
            _clauses(claim, raw)
            if numbers or qualified or not words.isdisjoint(NEGATIONS) or "except" in words
            else ()
        )
        if whole
        else ()
    )
    names = tuple(
        run
        for m in _NAME_RUN.finditer(text)
        if (run := frozenset(w.lower() for w in m.group(0).split()) - _NOT_NAMES)
    )
    return Read(
        claim,
        subject,
        numbers,
        _units(text, words),
        bool(main_words & NEGATIONS),
        keys_of(raw),
        CONFLICT.search(raw) is not None,
        frozenset(int(n) for n in numbers if _YEAR.fullmatch(n) and n not in counts),
        decades,
        approx,
        names,
        plain,
        _PERIOD.search(_DURING_SEASON.sub("in ", main)) is not None,
        named,
        dated,
        _tense(words if ", " not in text else _unrelated(text, words)),
        described,
        counts,
        spans,
        measures,
        _agent(text),
        _alias(raw),
        parts,
        joined=bool(parts) and _OTHER_SUBJECT.search(raw) is not None,
        main=(
            _events(
                _stem(w)
                for w in main_words
                if len(w) >= 3
                and not w[0].isdigit()
                and w not in STOPWORDS
                and w not in _NOT_PLAIN
                and w != "since"
            )
            if qualified
            else frozenset()
        ),
    )


def _units(text: str, words: frozenset[str]) -> frozenset[str]:
    """The units of a claim's figures: a time word said of no figure is none ("all year
    round", "in the summer months": review 40b, "year" and "months" made the claim's units
    another's, and its figure was never compared)."""
    units = words & UNITS
    loose = units & _LOOSE_UNITS
    if loose:
        units = (units - loose) | {m.group(1).lower() for m in _FIGURED_TIME.finditer(text)} & loose
    return units


_LOOSE_UNITS = frozenset({"year", "years", "month", "months", "week", "weeks", "day", "days"})
_FIGURED_TIME = re.compile(
    rf"(?:\d|\b(?:a|an|per|each|every|{_TENS}|{_TEENS}|{_UNITS_W}|hundred|thousand|dozen))"
    r"\s+(years?|months?|weeks?|days?)\b",
    re.I,
)


# an agent before an event's verb and its object, at the start of a claim: "The town
# opened the museum in 1894", "Brunel built the bridge" (review 38a #10: never compared
# with "The museum opened its doors in 1896"; the object is the subject)
_AGENT = re.compile(
    r"^\W*(?:the\s+)?((?:[A-Za-z][\w'-]*\s+){1,3}?)"
    r"(?:(?:re)?(?:open|found|establish|erect|construct|clos|demolish|launch|complet|finish|"
    r"inaugurat|unveil|design|dedicat|consecrat|discover|invent|publish|patent|paint|compos|"
    r"adapt|direct|record|produc|creat|develop|isolat|identifi|describ|nam|film)ed"
    r"|(?:re)?built|(?:re)?lit|bought|sold|wrote)"
    # its object: after an article, or a word that is no preposition ("Alexander Fleming
    # discovered penicillin in 1926": review 41c; not "The town opened in 1894")
    r"\s+(?:(?:the|an?)\s+|(?!(?:in|on|at|by|to|for|from|with|after|before|during|until|since"
    r"|its|their|his|her)\b)(?=[a-z]))",
    re.I,
)


def _agent(text: str) -> frozenset[str]:
    """The words (stems, as ``Read.words``) of an agent before an event's verb and its
    object (``_AGENT``): none where the verb follows an auxiliary ("was opened")."""
    m = _AGENT.match(text)
    if m is None:
        return frozenset()
    words = [w.lower() for w in _LETTERS.findall(m.group(1))]
    if any(w in _NOT_HEAD for w in words):
        return frozenset()
    return _events(_stem(w) for w in words if w not in STOPWORDS)


# the factors of the offline judge's units (DIMENSIONS, UNIT_ALIASES: the faithful-quote
# check's table, by their canonical names) within one system of one kind: each unit's
# system (named by its base unit) and its size in that base. Metric and imperial units are
# not converted into each other ("400 metres" and "1312 feet" are not compared): the table
# has no such factors (review 38a #9: "0.3 kilometres" against "400 metres" was no pair)
_FACTORS: dict[str, tuple[str, float]] = {
    **{u: ("m", f) for u, f in (("km", 1000.0), ("m", 1.0), ("cm", 0.01), ("mm", 0.001))},
    **{u: ("ft", f) for u, f in (("miles", 5280.0), ("yards", 3.0), ("feet", 1.0))},
    "inches": ("ft", 1 / 12),
    **{u: ("kg", f) for u, f in (("tons", 1000.0), ("kg", 1.0), ("g", 0.001), ("mg", 1e-6))},
    **{u: ("lb", f) for u, f in (("lb", 1.0), ("ounces", 1 / 16))},
    **{u: ("min", 60.0) for u in ("hours", "hour")},
    **{u: ("min", 1.0) for u in ("minutes", "minute")},
    **{u: ("min", 1 / 60) for u in ("seconds", "second")},
    **{u: ("min", 1440.0) for u in ("days", "day")},
    **{u: ("min", 10080.0) for u in ("weeks", "week")},
    # a month and a year on average (review 41a #6: "6 weeks" against "4 months" landed)
    **{u: ("min", 43830.0) for u in ("months", "month")},
    **{u: ("min", 525960.0) for u in ("years", "year")},
}
# the judge's units, each system of one kind (DIMENSIONS: length, mass, time)
assert set(_FACTORS) <= UNITS
assert all(
    len({DIMENSIONS[u] for u, (s, _) in _FACTORS.items() if s == system}) == 1
    for system in {s for s, _ in _FACTORS.values()}
)
# every spelling of those units (the judge's aliases), longest first
_SPELLINGS = {u: u for u in _FACTORS} | {
    a: u for a, u in UNIT_ALIASES.items() if u in _FACTORS and a.isalpha()
}
_MEASURE = re.compile(
    r"(?<![\w.,])(\d[\d,]*(?:\.\d+)?)\s*-?\s*("
    + "|".join(sorted(map(re.escape, _SPELLINGS), key=len, reverse=True))
    + r")\b"
)


def _measures(text: str) -> tuple[tuple[tuple[str, float, float, int], ...], frozenset[str]]:
    """The figures of ``text`` with a unit of _FACTORS ("0.3 kilometres", "400 m", "less
    than 1 hour": a bound), and those units (as read_words reads them: "km", "miles")."""
    out = []
    units = set()
    low = text.lower()
    exact = "exactly" in low or "precisely" in low
    for m in _MEASURE.finditer(low):
        figure = m.group(1).replace(",", "")
        try:
            value = float(figure)
        except ValueError:
            continue
        unit = _SPELLINGS[m.group(2)]
        units.add(unit)
        system, factor = _FACTORS[unit]
        step = 10.0 ** -(len(figure) - figure.index(".") - 1) if "." in figure else 1.0
        if exact and _EXACTLY.search(low, 0, m.start()):
            step = 0.0  # "exactly 1 tonne": no rounding (review 39a #4)
        before = low[max(0, m.start() - 16) : m.start()]
        way = -1 if _AT_MOST.search(before) else 1 if _AT_LEAST.search(before) else 0
        out.append((system, value * factor, step * factor / 2, way))
    return tuple(out), frozenset(units)


# a bound said of a figure with a unit (review 40b: "less than 1 hour" against "50 minutes")
_AT_MOST = re.compile(
    r"\b(?:fewer than|less than|under|below|up to|at most|no more than|within)\s+$"
)
_AT_LEAST = re.compile(r"\b(?:more than|over|above|at least|no fewer than|no less than)\s+$")
_EXACTLY = re.compile(r"\b(?:exactly|precisely)\s+$")
# the most a figure's rounding stretches: an eighth of it ("0.4 km" is 350 to 450 metres;
# a whole "1 km" is 875 to 1,125 metres, not 500 to 1,500: review 39a #4)
_ROUNDING = 1 / 8


def _band(value: float, half: float, other_value: float, other_half: float) -> float:
    """How far two converted figures may be apart and agree: the rounding of the less
    precise one, at most _ROUNDING of it (a figure said "exactly" has no rounding)."""
    if other_half > half:
        value, half = other_value, other_half
    return min(half, abs(value) * _ROUNDING)


# a size describing the subject outside the predicate (review 39a #9: never compared with
# "The bridge is 400 metres long"): in an appositive after it ("The bridge, 300 metres long,
# was opened"), before it ("Only 300 metres long, the bridge is the shortest"), or as a
# compound adjective ("The 300-metre bridge was opened": long, tall or high)
_SIZE_UNIT = "|".join(sorted(map(re.escape, _SPELLINGS), key=len, reverse=True))
_SIZE_HEDGE = r"(?:(?:some|about|around|nearly|almost|roughly|approximately)\s+)?"
_SIZE_ADJECTIVE = r"(long|high|tall|wide|deep)"
# the verb after a subject of a few words: "the bridge is", "the bridge crosses"
_SIZE_VERB = r"\s+(?=(?:is|was|are|were|has|had|[a-z]+s|[a-z]+ed)\b)"
# a word of such a subject: no preposition or conjunction ("the 50-metre approach to the
# bridge" is not the bridge)
_SIZE_WORD = r"(?!(?:of|to|for|in|on|at|and|or|with|from|by|near)\s)[A-Za-z][\w'-]*"
_SIZE_APPOSITIVE = re.compile(
    r"^\W*((?:[A-Za-z][\w'-]*\s+){0,5}?[A-Za-z][\w'-]*),\s+"
    rf"({_SIZE_HEDGE}\d[\d,]*(?:\.\d+)?\s*(?:{_SIZE_UNIT}))\s+{_SIZE_ADJECTIVE},\s",
    re.I,
)
_SIZE_FRONTED = re.compile(
    rf"^\W*(?:(?:only|just)\s+)?({_SIZE_HEDGE}\d[\d,]*(?:\.\d+)?\s*(?:{_SIZE_UNIT}))\s+{_SIZE_ADJECTIVE},\s+"
    rf"((?:the|an?)\s+(?:{_SIZE_WORD}\s+){{0,3}}?{_SIZE_WORD}){_SIZE_VERB}",
    re.I,
)
_SIZE_COMPOUND = re.compile(
    rf"^\W*(the|an?)\s+(\d[\d,]*(?:\.\d+)?-(?:{_SIZE_UNIT}))(?:-{_SIZE_ADJECTIVE})?\s+"
    rf"((?:{_SIZE_WORD}\s+){{0,3}}?{_SIZE_WORD}){_SIZE_VERB}",
    re.I,
)


def _described(claim: PageClaim, text: str) -> tuple[Read, ...]:
    """The sizes ``text`` gives its subject outside its predicate, each read as the claim
    "<subject> is <size>" (a compound adjective with no dimension of its own, "the
    300-metre bridge", as each of long, tall and high)."""
    if "," in text:
        m = _SIZE_APPOSITIVE.match(text)
        if m is not None:
            said = [f"{m.group(1)} is {m.group(2).lower()} {m.group(3).lower()}."]
        elif (m := _SIZE_FRONTED.match(text)) is not None:
            said = [f"{m.group(3)} is {m.group(1).lower()} {m.group(2).lower()}."]
        else:
            said = []
    else:
        said = []
    if not said and "-" in text and (m := _SIZE_COMPOUND.match(text)) is not None:
        subject, figure = f"{m.group(1)} {m.group(4)}", m.group(2).replace("-", " ").lower()
        dimensions = (m.group(3).lower(),) if m.group(3) else ("long", "tall", "high")
        said = [f"{subject} is {figure} {d}." for d in dimensions]
    return tuple(read(claim._replace(sentence=x[0].upper() + x[1:]), whole=False) for x in said)


# a claim's clauses, each a claim of its subject (review 40a #1, #3, #4: "The bridge was
# built in 1890 and is 300 metres long", "The ferry was launched in 1890 and does not run in
# winter", "The bridge is 300 metres long and is closed in winter" hid their figure or
# denial behind the other clause's year or words): a second clause joined by "and" and a
# verb, and the claim with a relative or participle clause between commas left out ("The
# bridge, which was built in 1890, is 300 metres long": "The bridge is 300 metres long")
_AUXILIARIES = "is|are|was|were|has|have|had|does|do|did|can|will|remains|stands|takes|runs"
_VERB = rf"(?:{_AUXILIARIES}|never|still|also|\w+ed)\b"
# a clause of the subject after "and" or "but", its pronoun said or not ("and is 300 metres
# long", ", but it does not run in winter": review 40b), or after a comma in a list ("The
# bridge carries a railway, is 300 metres long and …")
_SECOND = re.compile(
    rf"\s*(?:,\s*(?:and|but)|\s+(?:and|but)|,(?=\s+{_VERB}))\s+(?:(?:it|they)\s+)?"
    # or a present verb after "and", an adverb before it ("and holds 25,000 people", "and
    # now has 48 modules": review 41b H5)
    rf"(?:(?=(?:now|today|also|still|later)\s+)|(?<=and\s)(?=[a-z]{{3,}}(?<![su]s)(?<!ss)s\b)|(?={_VERB}))",
    re.I,
)
# a second clause with a subject of its own: "… in 1890 and the pier is 300 metres long"
# (review 40b: its figure was read as the first subject's)
_OTHER_SUBJECT = re.compile(
    rf"\s*,?\s+(?:and|but|while|whereas)\s+(?=(?:the|its|their|his|her|a|an)\s+"
    rf"(?:[\w'-]+\s+){{0,3}}?{_VERB})",
    re.I,
)
_PARTICIPLE = r"(?:\w+ed|" + "|".join(sorted(_IRREGULAR)) + r")"
_NO_COMMA = r"(?:[^,]|(?<=\d),(?=\d{3}))"  # no comma but a figure's ("25,000")
_RELATIVE = re.compile(
    r"^(?P<subject>[^,]{3,80}?),\s+(?:(?:which|who|that)\s+(?P<said>[^,]{3,120}?)|"
    rf"(?P<participle>{_PARTICIPLE}\s+[^,]{{3,120}}?)),\s+(?P<rest>{_NO_COMMA}{{3,}})$",
    re.I,
)
# a participle's phrase before the subject: "Founded in 1850, the museum holds …"
_FRONTED = re.compile(
    rf"^(?P<participle>{_PARTICIPLE}\s+[^,]{{3,80}}?),\s+(?P<subject>(?:the|a|an)\s+[^,]{{1,60}}?)"
    rf"\s+(?P<rest>(?:{_AUXILIARIES}|\w+ed|[a-z]+(?<!s)s)\b{_NO_COMMA}*)$",
    re.I,
)
# the subject: the words before the first verb, an auxiliary, a past or a present one
# ("The bridge crosses the river and is 300 metres long": review 40b); a present verb
# (in -s, not -ss) only after a word besides the article ("The trams cross": no subject)
_SUBJECT = re.compile(
    rf"^(?P<subject>.{{3,80}}?)\s+(?={_VERB})"
    rf"|^(?P<named>(?:the\s+|a\s+|an\s+)?[\w'-]+(?:\s+[\w'-]+){{0,5}}?)\s+(?=[a-z]+(?<!s)s\b)",
    re.I,
)
# subjects joined before one predicate: "The library and the baths opened in 1894", "Both
# the museum and the library were opened in 1894"
_NOUNS = r"(?:the\s+|its\s+|their\s+)?[\w'-]+(?:\s+[\w'-]+){0,2}?"
_COORDINATED = re.compile(
    rf"^(?:both\s+)?(?P<first>{_NOUNS})(?P<middle>(?:,\s+{_NOUNS})*),?\s+and\s+(?P<last>{_NOUNS})"
    rf"\s+(?:were\s+|are\s+|have\s+|had\s+)?(?:all\s+|both\s+|each\s+)?"
    rf"(?P<predicate>{_VERB}.*)$",
    re.I,
)
# an object's own relative clause the second clause may go with: "The museum has a lamp
# that was made in 1870 and is 2 metres tall" (the lamp is, not the museum: review 40b)
_OBJECT_CLAUSE = re.compile(r"\b(?:that|which|who|whose|whom)\b", re.I)
# a time or place a claim's main clause is denied for: ", but not in winter", "except on
# Mondays": read as its clause "<main clause> not in winter" (a denial of it)
_EXCEPT = re.compile(
    r",?\s+(?:but\s+not|except)\s+(?P<rest>(?:in|on|at|during|for)\b[^,;]{1,60})$", re.I
)
CLAUSES = 3  # clauses read of a claim at most


def _clauses(claim: PageClaim, raw: str) -> tuple[Read, ...]:
    """The claim's clauses, each read as a claim of its own subject (at most CLAUSES): what
    it denies its main clause for (``_EXCEPT``), a relative or participle clause about its
    subject (``_RELATIVE``, ``_FRONTED``), a clause with a subject of its own
    (``_OTHER_SUBJECT``), the subject's further clauses (``_SECOND``); none for a claim of
    one clause. Read only with "and", "but", "except" or a comma (cheap)."""
    if " and " not in raw and ", " not in raw and " but " not in raw and " except " not in raw:
        return ()
    text = raw.strip().rstrip(".")
    said: list[str] = []
    if (q := _EXCEPT.search(text)) is not None:
        said.append(f"{text[: q.start()]} not {q.group('rest')}")
    m = _RELATIVE.match(text) if ", " in text else None
    if m is not None:
        # "The pier, which opened in 1894, is …": "The pier is …", "The pier opened in 1894";
        # "The museum, founded in 1850, holds …": "The museum was founded in 1850"
        subject = m.group("subject")
        said.append(f"{subject} {m.group('rest')}")
        what = m.group("said") or f"was {m.group('participle')}"
        said.append(f"{subject} {what}")
    elif ", " in text and (m := _FRONTED.match(text)) is not None:
        subject = m.group("subject")
        said += [f"{subject} {m.group('rest')}", f"{subject} was {m.group('participle')}"]
    own = _OTHER_SUBJECT.split(text, maxsplit=1)
    if len(own) == 2 and _SUBJECT.match(own[0]) is None:
        own = [text]  # "The library and the baths opened": one predicate (_COORDINATED)
    if len(own) == 2:
        said += own  # each clause with its own subject
    elif (c := _COORDINATED.match(text)) is not None:
        # "The library and the baths opened in 1894": each opened in 1894 (review 41a #3)
        subjects = [c.group("first"), *c.group("middle").split(", ")[1:], c.group("last")]
        said += [f"{x} {c.group('predicate')}" for x in subjects]
    parts = _SECOND.split(own[0], maxsplit=CLAUSES)
    if len(parts) >= 2 and (head := _SUBJECT.match(parts[0])) is not None:
        subject = head.group("subject") or head.group("named")
        if "," not in subject and _OBJECT_CLAUSE.search(parts[0], head.end()) is None:
            said += [parts[0], *(f"{subject} {p}" for p in parts[1:])]
    said = [x for x in dict.fromkeys(said) if x != text][:CLAUSES]
    return tuple(
        read(claim._replace(sentence=x[0].upper() + x[1:] + "."), whole=False) for x in said
    )


def _measures_meet(a: Read, b: Read) -> bool | None:
    """Whether each figure of ``a`` with a unit meets one of ``b``'s of the same system,
    converted into one unit, within the rounding of the less precise one, at most an eighth
    of it (_band: "0.4 km" and "402 metres" agree, "0.3 km" and "400 metres" do not, nor do
    "1 km" and "600 metres"), or within its bound ("less than 1 hour" and "50 minutes");
    None when they share no system (no unit, or "metres" against "feet": not compared)."""
    common = {m[0] for m in a.measures} & {m[0] for m in b.measures}
    if not common:
        return None
    # one side's figures all among the other's, as _quantities_meet ("42 metres tall and 2
    # km from the pier" holds "42 metres tall")
    return any(
        all(any(_measure_meets(m, n) for n in y.measures) for m in x.measures if m[0] in common)
        for x, y in ((a, b), (b, a))
    )


def _measure_meets(m: tuple[str, float, float, int], n: tuple[str, float, float, int]) -> bool:
    """Two figures of one system agree: within rounding (``_band``), or the figures' ranges
    meet where one is a bound ("under 60 minutes": up to 60)."""
    s, v, half, way = m
    t, w, other, way2 = n
    if s != t:
        return False
    if way == way2 == 0:
        return abs(v - w) <= _band(v, half, w, other) * (1 + 1e-9)
    lo_v, hi_v = _range(v, half, way)
    lo_w, hi_w = _range(w, other, way2)
    return max(lo_v, lo_w) <= min(hi_v, hi_w)


def _range(v: float, half: float, way: int) -> tuple[float, float]:
    """The values a figure stands for: up to it, from it, or within its rounding."""
    if way < 0:
        return -math.inf, v
    if way > 0:
        return v, math.inf
    band = _band(v, half, v, half)
    return v - band, v + band


# a range or a bound: "between 5,000 and 5,500", "5,000–5,500", "fewer than 6,000",
# "before 1900" (review 38a #5: each was read as a figure of its own, and a careful
# writer's range was refused as a conflict)
_NUM = r"(\d[\d,]*(?:\.\d+)?)"
_SPAN = re.compile(
    rf"\b(?:between|from)\s+{_NUM}\s+(?:and|to|until|till)\s+{_NUM}"
    rf"|(?<![\d,.]){_NUM}\s*(?:[\u2013\u2014-]|\s+to\s+)\s*{_NUM}(?![\d,.]*\d)"
    rf"|\b(fewer than|less than|under|below|before|up to|at most|no more than|no later than)\s+{_NUM}"
    rf"|\b(more than|over|above|after|at least|no fewer than|no less than|no earlier than)\s+{_NUM}",
    re.I,
)


def _spans(text: str) -> tuple[tuple[tuple[float, float], ...], frozenset[str]]:
    """The ranges and bounds of ``text`` (``_SPAN``), and the numbers that bound one."""
    spans: list[tuple[float, float]] = []
    bounding: set[str] = set()
    for m in _SPAN.finditer(text):
        g = m.groups()
        try:
            if g[0] is not None or g[2] is not None:
                x, y = (g[0], g[1]) if g[0] is not None else (g[2], g[3])
                lo, hi = float(x.replace(",", "")), float(y.replace(",", ""))
                if hi < lo and len(y) == 2 and _YEAR.fullmatch(x):
                    hi = lo // 100 * 100 + hi  # "1875-77": 1875 to 1877 (review 41a #15)
                if lo >= hi:
                    continue  # "1893–94": no range read
                spans.append((lo, hi))
                bounding |= {x.replace(",", ""), y.replace(",", "")}
            elif g[5] is not None:
                spans.append((float("-inf"), float(g[5].replace(",", ""))))
                bounding.add(g[5].replace(",", ""))
            else:
                spans.append((float(g[7].replace(",", "")), float("inf")))
                bounding.add(g[7].replace(",", ""))
        except ValueError:
            continue
    return tuple(spans), frozenset(bounding)


def _within(n: str | int, spans: tuple[tuple[float, float], ...]) -> bool:
    try:
        v = float(n)
    except ValueError:
        return False
    return any(lo <= v <= hi for lo, hi in spans)


# a year-like number that counts: with a thousands comma ("1,500"), or before a plural
# noun and after no preposition of time ("held 1500 books"; not "in 1894 visitors came")
# (review 38a #5: "1,500 exhibits in 1950" against "1,200 … in 1900" read as two dates)
_COUNT = re.compile(
    r"(?<![\d,.])(\d{1,2},\d{3})(?![\d,.]*\d)"
    r"|(?<!\bin )(?<!\bon )(?<!\bby )(?<!\bof )(?<!\bto )(?<!since )(?<!until )(?<!from )"
    r"(?<!before )(?<!after )(?<!during )(?<!circa )(?<![\d,.])(\d{4})\s+(?=[a-z]+(?<![su])s\b)",
    re.I,
)


def _counts(text: str) -> frozenset[str]:
    """The year-like numbers of ``text`` that count things (``_COUNT``), without commas."""
    return frozenset((m.group(1) or m.group(2)).replace(",", "") for m in _COUNT.finditer(text))


# an appositive after the subject that carries a figure: "The ferry, in service since 1890,
# does not run", "The ferry (the boat of 1890) does not run": it describes the subject, its
# figure is no time of the claim (review 38a #3: the denial read as one of another time)
_DATED_APPOSITIVE = re.compile(
    r"^\W*(?:[A-Za-z][\w'-]*\s+){0,5}?[A-Za-z][\w'-]*"
    r"(\s*\([^()]{0,80}\d[^()]{0,80}\)|,\s+[^,;:()]{0,60}\d[^,;:()]{0,60},"
    # or a participle's phrase with a time of its own: "The ferry, restarted after the war,
    # does not run in winter" (the time is the restart's, not the denial's: review 39a #1)
    r"|,\s+[A-Za-z]+(?:ed|en)\s+[^,;:()\d]{0,40}?\b(?:during|until|till|since|before|after"
    r"|while|whilst|when|wartime)\b[^,;:()\d]{0,40},)(?=\s)"
)
_SEASONS = "winter|summer|spring|autumn|the winter|the summer|the spring|the autumn"
_DURING_SEASON = re.compile(rf"\bduring\s+(?=(?:{_SEASONS})\b)", re.I)  # "in winter"


def _apart(text: str) -> tuple[str, frozenset[str]]:
    """``text`` without an appositive after its subject that carries a figure, and the
    numbers only that appositive says."""
    m = _DATED_APPOSITIVE.match(text) if ("," in text or "(" in text) else None
    if m is None:
        return text, frozenset()
    main = text[: m.start(1)] + text[m.end(1) :]
    return main, read_words(m.group(1))[1] - read_words(main)[1]


def _round(n: str) -> bool:
    """A figure in words is rough when it ends in a scale word ("four thousand", "three
    hundred", "two and a half million": a whole number of hundreds); "four hundred and
    twenty" and "twelve" are exact (review 36b)."""
    try:
        value = float(n)
    except ValueError:
        return False
    return value >= 100 and value.is_integer() and int(value) % 100 == 0


def _same_subject(a: Read, b: Read) -> bool:
    """Most of their words are the same (60% of all, two at least), or the shorter's are
    nearly all in the longer (three at least, three in four: "opened its doors in 1896" and
    "was opened in 1894 after a campaign"); and no proper name tells them apart ("South
    Lighthouse", "Harbour Lighthouse")."""
    # "the ferry service": the ferry; but a same-thing noun both say is their subject ("The
    # tower was completed in 1890/1891": review 38a #1, never compared), kept
    same = _SAME_THING - (a.words & b.words)
    wa, wb = a.words - same, b.words - same
    if (a.agent or b.agent) and not _share(wa, wb):
        # "The town opened the museum": about the museum, its agent of its own left out
        wa, wb = wa - (a.agent - wb), wb - (b.agent - wa)
    if not _share(wa, wb):
        # "the ferry line": maybe the ferry (review 37c #2); unsure() says so in the finding
        if len(wa & wb) < MIN_SHARED or (a.negated == b.negated and a.numbers == b.numbers):
            return False  # (nothing they could disagree on: not worth reading their words)
        why = unsure(a, b)
        if why is None:
            return False
        head = _stem(why[1].split()[-1].lower())
        if not _share(wa - {head}, wb - {head}):
            return False
    return not _other_names(a, b) and not _named_apart(a, b) and not _named_apart(b, a)


# words before a head that describe it and name no other one ("the old lighthouse" against
# "the Harbour Lighthouse" is still compared)
_DESCRIBING = frozenset(
    re.findall(
        r"\w+",
        "old new former original present current great grand main little small big large "
        "first last later earlier early late upper lower inner outer",
    )
)


def _named_apart(a: Read, b: Read) -> bool:
    """``a`` names the thing with a proper name ending in a word ``b`` says in lower case
    after a word of its own that the name lacks: "The Brunel Hall" against "the museum
    hall" (or "the museum's hall", review 37d #1) are two things, each named otherwise; not
    a describing word ("the old lighthouse" against "the Harbour Lighthouse")."""
    ta, tb = _tokens(a.claim.sentence), _tokens(b.claim.sentence)
    heads = {
        w
        for (x, x_capital), (w, capital) in zip(ta, ta[1:], strict=False)
        if capital and x_capital and x not in STOPWORDS and x not in _NOT_NAMES
    }
    if not heads:
        return False
    theirs = {w for w, _ in ta}
    return any(
        w in heads
        and not capital
        and not x_capital
        and x not in theirs
        and x not in _NOT_PLAIN
        and x not in STOPWORDS
        and x not in _DESCRIBING
        and len(x) >= 3
        for (x, x_capital), (w, capital) in zip(tb, tb[1:], strict=False)
    )


def _share(wa: frozenset[str] | set[str], wb: frozenset[str] | set[str]) -> bool:
    shared = len(wa & wb)
    union = len(wa | wb)
    shorter = min(len(wa), len(wb))
    return (shared >= MIN_SHARED and shared >= SAME_SUBJECT * union) or (
        shared >= 3 and shared >= 0.75 * shorter
    )


def _other_names(a: Read, b: Read) -> bool:
    """Each names a thing the other does not, by a name sharing a word with the other's."""
    if set(a.names) & set(b.names):
        return False
    return any(ra & rb and not (ra <= rb or rb <= ra) for ra in a.names for rb in b.names)


def _dates_meet(a: Read, b: Read) -> bool:
    """Every date of ``a`` is one of ``b``'s: a year, a day of a month, a year in a decade
    ("1894" in "the 1890s") or a decade holding a year."""
    days_b = {n for n in b.numbers if _MONTH_DAY.fullmatch(n)}
    for n in a.numbers:
        if _MONTH_DAY.fullmatch(n) and n not in days_b:
            return False
    for y in a.years:
        if (
            y not in b.years
            and y // 10 * 10 not in b.decades
            and not _within(y, _eras(b))
            and not _rough_year(y, a, b)
        ):
            return False
    return all(d in b.decades or any(y // 10 * 10 == d for y in b.years) for d in a.decades)


def _eras(r: Read) -> tuple[tuple[float, float], ...]:
    """The claim's ranges and bounds of years ("between 1900 and 1935", "before 1900"; not
    "after 2 years": review 41a #4, it held every year from 2 on)."""
    return tuple(
        (lo, hi)
        for lo, hi in r.spans
        if all(x in (-math.inf, math.inf) or 1000 <= x < 2100 for x in (lo, hi))
    )


def _rough_year(y: int, a: Read, b: Read) -> bool:
    """``a``'s year ``y`` and one of ``b``'s, either said roughly ("around 1120", "c. 1123"),
    are at most ROUGH_YEARS apart (review 41a #15: "around 1120" against "in 1123")."""
    rough = str(y) in a.approx
    return any((rough or str(x) in b.approx) and abs(x - y) <= ROUGH_YEARS for x in b.years)


ROUGH_YEARS = 5


def _near(x: str, y: str) -> bool:
    try:
        fx, fy = float(x), float(y)
    except ValueError:
        return False
    return abs(fx - fy) <= 0.1 * max(abs(fx), abs(fy))


def _quantities_meet(a: Read, b: Read) -> bool:
    """Every quantity of ``a`` is one of ``b``'s, or near one (within 10%) where either says
    it roughly ("about 4,000", "four thousand": 4,012 agrees)."""
    qb = _quantities(b)
    for n in _quantities(a):
        if n in qb or _within(n, b.spans):
            continue
        if not any((n in a.approx or m in b.approx) and _near(n, m) for m in qb):
            return False
    return True


def _quantities(r: Read) -> frozenset[str]:
    return frozenset(
        n
        for n in r.numbers
        if (n in r.counts or not _YEAR.fullmatch(n)) and not _MONTH_DAY.fullmatch(n)
    )


def _own_head(a: Read, b: Read) -> tuple[str, str] | None:
    """``a`` puts a word of its own, in lower case, between a word of ``b`` and the word
    that follows it in ``b`` (or in place of ``b``'s own such word): a head noun that may
    name another thing ("The museum shop opened" against "The museum opened", "the museum
    café" against "the museum hall", "The Harbour Lighthouse keeper was" against "The
    Harbour Lighthouse was"); returned as (``a``'s word before it, the word). Not a name's
    word ("Harbour Lighthouse Tower"), an adverb ("first", "finally"), an auxiliary ("The
    pier was opened") or a word naming the same thing (``_SAME_THING``)."""
    ta, tb = _tokens(a.claim.sentence), _tokens(b.claim.sentence)
    theirs = {w for w, _ in ta}
    after: dict[str, set[str]] = {}  # each word of b → the words after it (fillers skipped)
    for j, (w, _) in enumerate(tb[:-1]):
        after.setdefault(w, set()).update((tb[j + 1][0], _next(tb, j + 1)))
        z, capital = tb[j + 1]
        if (
            _plain_head(z, capital)
            and z not in theirs
            and w not in _FILLERS
            and w not in STOPWORDS
            and z not in _SAME_EVENT  # "first lit", "first illuminated": a verb, one event
        ):  # b's own head: a's may stand in its place ("museum café", "museum hall")
            after[w].add(_next(tb, j + 2))
    mine = {w for w, _ in tb}
    for i, ((w, _), (y, capital)) in enumerate(zip(ta, ta[1:], strict=False)):
        x = _next(ta, i + 2)
        if (
            x
            and x in after.get(w, ())
            and y not in mine
            and w not in _NOT_PLAIN
            and w not in STOPWORDS
            and len(w) >= 3
            and _plain_head(y, capital)
            and not (y in _SAME_EVENT and x not in mine)
            and not (y.startswith("re") and y[2:] in mine)  # "reopened": a verb, no head
            and "re" + y not in mine  # "opened" against "reopened": a verb (review 39a #8)
        ):
            return _written(a.claim.sentence, i, 2)
    return None


def _plain_head(y: str, capital: bool) -> bool:
    return (
        not capital
        and y not in _NOT_HEAD
        and y not in _UNIT_STEMS  # "takes 2 hours" against "takes 40 minutes": a unit
        and y not in _SAME_THING
        and y not in _NOT_PLAIN
        and y not in STOPWORDS
        and not y.endswith("ly")
        and len(y) >= 3
    )


def _written(sentence: str, at: int, n: int) -> tuple[str, str]:
    """The words ``at`` and ``at + n - 1`` of the sentence as written (``_tokens``' order,
    each with the letters after it: "café")."""
    text = _text(sentence)
    words = []
    for m in _TOKEN.finditer(text):
        end = m.end()
        while end < len(text) and text[end].isalpha():
            end += 1
        words.append(text[m.start() : end])
    return words[at], " ".join(words[at : at + n])


_FILLERS = _NOT_HEAD | NEGATIONS | _NEGATION_HELPERS
_UNIT_STEMS = frozenset(map(_stem, UNITS)) | frozenset(UNITS)
# head nouns that name the same thing as the word before them ("the museum building", "the
# ferry service", "the lighthouse tower"): no other thing (review 37b: "The museum building
# opened its doors in 1894" landed against "The museum opened its doors in 1896")
_SAME_THING = frozenset(
    _stem(w)
    for w in re.findall(
        r"\w+",
        "building buildings service services structure site facility facilities tower "
        "premises complex institution establishment edifice organisation organization "
        "operation operations itself",
    )
)
# words before a subject naming a kind of it ("the railway bridge", "the maritime museum"):
# another thing; a word not listed ("the old stone museum") names the same one (review 37b)
_KINDS = frozenset(
    _stem(w)
    for w in re.findall(
        r"\w+",
        "railway rail road foot swing suspension toll rope chain pontoon maritime naval "
        "military war art science folk transport motor car passenger cargo freight steam "
        "toy wax aviation mining tram bus infant infants grammar primary secondary junior "
        "nursery elementary",
    )
)


def _kind_of(a: Read, b: Read) -> tuple[str, str] | None:
    """``a`` puts a word naming a kind (``_KINDS``), or a capitalised word of its own before
    a lower-case one, which ``b`` does not say, just before a word of ``b``: "The railway
    bridge is 300 metres long" against "The bridge is 400 metres long", "The Sunday school"
    against "The school" may be another one; returned as (the word of ``b``, both)."""
    ta = _tokens(a.claim.sentence)
    mine = {w for w, _ in _tokens(b.claim.sentence)}
    whose = _plural_possessives(a.claim.sentence)
    for i, ((y, capital), (w, w_capital)) in enumerate(zip(ta, ta[1:], strict=False)):
        if y in mine or w not in mine or w in _NOT_PLAIN:
            continue
        if ((y in _KINDS or y in whose) and not capital) or (
            capital
            and i > 0
            and not w_capital
            and y not in STOPWORDS
            and y not in _NOT_PLAIN
            and w not in STOPWORDS
        ):
            words = _written(a.claim.sentence, i, 2)
            return words[1].split()[-1], words[1]
    return None


def _plural_possessives(sentence: str) -> frozenset[str]:
    """The stems of the plural possessives of ``sentence`` ("the girls' school": "girl"), a
    kind of what follows, not the thing itself (review 38a #8: read as "the school")."""
    if "s'" not in sentence and "s\u2019" not in sentence:
        return frozenset()
    return frozenset(_stem(m.group(1).lower()) for m in _PLURAL_POSSESSIVE.finditer(sentence))


_PLURAL_POSSESSIVE = re.compile(r"\b([A-Za-z]+s)['\u2019](?=\s)")


@functools.lru_cache(maxsize=4096)
def _tokens(sentence: str) -> tuple[tuple[str, bool], ...]:
    """A claim's words in order, as the rules read its text: each its stem, and whether it
    is written with a capital (read only for a pair the rules find disagreeing)."""
    return tuple((_stem(w.lower()), w[0].isupper()) for w in _TOKEN.findall(_text(sentence)))


def _next(tokens: tuple[tuple[str, bool], ...], at: int) -> str:
    """The first word from ``at`` on that is no auxiliary, adverb or negation ("does not
    open": "open")."""
    for w, _ in tokens[at : at + 8]:
        if w not in _FILLERS and not w.endswith("ly"):
            return w
    return ""


def _another_event(a: Read, b: Read) -> bool:
    """Their dates hang on other words, neither said by the other claim: another event
    ("was first paid in 1871" against "was first lit in 1870"; a synonym is the same
    event: read() reads each as its group's first word, ``_SAME_EVENT``)."""
    return bool(
        a.dated
        and b.dated
        and a.dated.isdisjoint(b.dated)
        and a.dated.isdisjoint(b.plain)
        and b.dated.isdisjoint(a.plain)
    )


def _another_time(a: Read, b: Read) -> bool:
    """Their figures hold for other times: other seasons ("6 times a day in summer" against
    "2 times a day in winter"), a dated past and the present ("took 3 hours in 1900"
    against "takes 50 minutes": review 39a #5, each a source conflict); or one says what
    was (``was``, ``had``), with words of its own, the other what is: "The old wooden
    bridge was 250 metres long" against "The bridge is 400 metres long"."""
    if _other_seasons(a, b) or (_dated_past(a) and _undated_now(b)):
        return True
    if (_then(a) and _undated_now(b)) or (_then(b) and _undated_now(a)):
        return True  # "held 40,000 volumes when it opened" against "holds 85,000 volumes"
    if _one_qualified(a, b):
        return True
    if _dated_past(b) and _undated_now(a):
        return True
    if {a.tense, b.tense} != {"present", "past"}:
        return False
    past, present = (a, b) if a.tense == "past" else (b, a)
    return bool(past.plain - present.plain)


# a figure of the subject with or without its parts: "With its approaches the bridge is 500
# metres long", "… 0.5 km long including its approaches" measure another whole than "The
# bridge is 400 metres long" (review 39a #5: the first was a source conflict, the second
# none); "with"/"without" only where it qualifies the size, at the start or just after it
# ("The bridge, with its red railings, is 300 metres long" is compared)
_WHOLE = re.compile(
    r"\b(?:including|excluding)\s+(?:its|their)\s+[a-z]"
    r"|^\W*(?:with|without)\s+(?:its|their)\s+[a-z]"
    r"|\b(?:long|tall|high|wide|deep)\s+(?:with|without)\s+(?:its|their)\s+[a-z]",
    re.I,
)


def _other_verbs(a: Read, b: Read) -> bool:
    """Their figures count what other verbs do: "was nominated for 14 Academy Awards"
    against "won 11 Academy Awards" (review 41c): each claim's first past verb is one the
    other does not say (a synonym is the same: ``_SAME_EVENT``)."""
    va, vb = _first_past(a), _first_past(b)
    return bool(va and vb and va != vb and va not in b.plain and vb not in a.plain)


def _first_past(r: Read) -> str:
    """The stem (its event's, ``_events``) of the claim's first past verb, or ""."""
    for w in _TOKEN.findall(r.claim.sentence):
        w = w.lower()
        if _a_past(w):
            return next(iter(_events([_IRREGULAR.get(w) or _stem(w)])))
    return ""


def _another_whole(a: Read, b: Read) -> bool:
    """One measures the subject with or without its parts, the other does not say."""
    return (_WHOLE.search(a.claim.sentence) is None) != (_WHOLE.search(b.claim.sentence) is None)


def _other_seasons(a: Read, b: Read) -> bool:
    """Each names times of year or week (``_times_named``), not the same ones ("in summer"
    and "in winter", "in summer" and "on Sundays in summer": review 40b)."""
    sa = _times_named(a.claim.sentence)
    sb = _times_named(b.claim.sentence) if sa else frozenset()
    return bool(sa and sb and sa != sb)


def _past_form(r: Read) -> bool:
    """The claim says what was: ``was``, ``had``, a verb's past ("took", "opened")."""
    if r.tense:
        return r.tense == "past"
    sentence = r.claim.sentence
    if ", " in sentence:  # not a relative clause's verb: "The ferry, which is still in
        sentence = _RELATIVE_SPAN.sub("", sentence)  # service, took 3 hours in 1900"
    tokens = [w.lower() for w in _TOKEN.findall(sentence)]
    if _PRESENT_NOW.intersection(tokens):
        # "The bridge, which was built in 1890, is 300 metres long" (review 40a #1); "ran in
        # 1900 and still does so" (review 40b)
        return False
    return any(_a_past(w) for w in tokens)


_RELATIVE_SPAN = re.compile(r",\s+(?:which|who|that)\s+[^,]{1,120},", re.I)


def _unrelated(text: str, words: frozenset[str]) -> frozenset[str]:
    """``words`` without a relative clause's between commas (its tense is not the claim's)."""
    if _RELATIVE_SPAN.search(text) is None:
        return words
    return frozenset(w.lower() for w in _TOKEN.findall(_RELATIVE_SPAN.sub("", text)))


# a past time said without a year (review 41a #13)
_THEN = re.compile(
    r"\b(?:once|originally|formerly|initially|at\s+first|at\s+(?:its|the|their)\s+"
    r"(?:opening|founding|foundation|start|launch)|when\s+(?:it|they|the\s+\w+)\s+"
    r"(?:first\s+)?(?:\w+ed|was|were|began|opened|built|founded|made))\b",
    re.I,
)


def _then(r: Read) -> bool:
    """What was at a past time said without a year: "held 40,000 volumes when it opened",
    "once held 40,000 volumes"."""
    return _past_form(r) and _THEN.search(r.claim.sentence) is not None


def _a_past(w: str) -> bool:
    """A verb's past form: "opened", "took"; not "red", "hundred", "speed"."""
    return (w.endswith("ed") and not w.endswith("eed") and w not in _NOT_PAST) or w in _IRREGULAR


_NOT_PAST = frozenset({"red", "bed", "shed", "hundred", "sacred", "naked", "wicked", "ragged"})


def _dated_past(r: Read) -> bool:
    """What was in a year: "The crossing took 3 hours in 1900" (not a year only of an
    appositive: "The town hall, a building of 1877, cost £12,000": review 41a #9)."""
    return any(str(y) not in r.described for y in r.years) and _past_form(r)


def _undated_now(r: Read) -> bool:
    """What is, with no date: "The crossing takes 50 minutes"."""
    return not r.years and not r.decades and not _past_form(r)


POSSIBLE = "possible"  # disagreement(): another head noun or kind word may be another thing


def disagreement(a: Read, b: Read) -> str | None:
    """What ``a`` and ``b`` disagree on ("number", "date", "negation"), or None: about
    another subject, or compatible; ``POSSIBLE`` when only a head noun or kind word of one's
    own tells them apart ("the museum hall", "the railway bridge": maybe another thing,
    maybe the same: ``unsure``)."""
    if a.joined or b.joined:
        return _size_disagreement(a, b)  # clause by clause: each of its own subject
    kind = _disagreement(a, b)
    if kind is None:
        # a size describing the subject: "The bridge, 300 metres long, was opened in 1890"
        # against "The bridge is 400 metres long" (review 39a #9)
        return _size_disagreement(a, b) if a.sizes or b.sizes else None
    if _another_place(a, b) or _another_place(b, a):
        return None  # "the museum café" against "the museum": another establishment
    if (_GENERATION.search(a.claim.sentence) is None) != (
        _GENERATION.search(b.claim.sentence) is None
    ):
        return None  # "Thomas Hale junior" against "Thomas Hale": another person
    if _own_object(a, b) or _own_object(b, a):
        return None  # "opened its new wing in 1950" against "opened in 1894": another thing
    if _pages_apart(a, b):
        return None  # "The club was founded in 1878." on two clubs' pages (review 41b H2)
    if unsure(a, b) is not None:
        return POSSIBLE
    return kind


def _denies(r: Read) -> bool:
    """The claim, or one of its clauses, denies ("…, but it does not run in winter")."""
    return r.negated or any(s.negated for s in r.sizes)


# an event's object of its own, after the subject's verb: "The museum opened its new wing
# in 1950", "… opened a café in 1950" are about the wing and the café, not the museum's
# opening ("its doors", "its gates": the opening itself; "The town opened the museum": the
# object is the other claim's subject, compared)
_OBJECT = re.compile(
    r"\b(?:(?:re)?open|found|buil|complet|clos|extend|add|launch|unveil|restor|demolish)[a-z]*"
    r"\s+(?:its|their|a|an|the)\s+((?:[^\W\d_]+\s+){0,2}?[^\W\d_]{3,})"
    r"(?=\s+(?:in|on|at|to|for|from|with|by|after|before|during|until|since)\b|\W*$|\s*[,;(])",
    re.I,
)
_OPENING = frozenset({"door", "gate", "doors", "gates"})
_GENERATION = re.compile(r"\b(?:junior|senior|jnr|snr|jr|sr|the\s+younger|the\s+elder)\b\.?", re.I)


# a subject that only says what kind of thing the page is about ("The company was founded in
# 1976" on Acme's page, "It was first released in 2003" on an album's): it is the page's
# thing (review 41b H2: two clubs' pages were one club). Kinds named for an organisation or
# a work, not a town's buildings ("the pier", "the school": one thing in a town's wiki)
_PAGE_KINDS = (
    "company|firm|corporation|business|club|team|band|album|single|song|film|movie|book|"
    "novel|game|series|show|programme|ship|vessel|aircraft|party|newspaper|magazine|label|"
    "brand|project|software"
)
_PAGE_SUBJECT = re.compile(
    rf"^\W*(?:(?:the|this)\s+({_PAGE_KINDS})|(it|they))\s+"
    rf"(?=(?:{_AUXILIARIES}|first|also|now|never|still|\w+ed|[a-z]+s)\b)",
    re.I,
)


def _pages_apart(a: Read, b: Read) -> bool:
    """Each claim's subject is its page's thing, said only by its kind or a pronoun, the
    same in both (``_PAGE_SUBJECT``), and the two pages' names share no word: two things."""
    ma = _PAGE_SUBJECT.match(a.claim.sentence)
    if ma is None or (mb := _PAGE_SUBJECT.match(b.claim.sentence)) is None:
        return False
    if (ma.group(1) or ma.group(2)).lower() != (mb.group(1) or mb.group(2)).lower():
        return False
    wa, wb = _page_words(a.claim.page), _page_words(b.claim.page)
    return bool(wa and wb) and wa.isdisjoint(wb)


def _page_words(path: str) -> frozenset[str]:
    """The words of a page's file name that may name its thing ("albion-fc": albion; not
    "history", "s1932", "timeline": a page of any thing's, whose "the club" is the wiki's)."""
    name = path.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower()
    return frozenset(
        w
        for w in re.split(r"[^a-z0-9]+", name)
        if len(w) >= 3 and w.isalpha() and w not in _PAGE_TOPICS
    )


_PAGE_TOPICS = frozenset(
    re.findall(
        r"\w+",
        "history timeline overview index log season seasons notes summary list records facts "
        "about home main intro introduction background chronology town city village people "
        "places events early later modern today new old",
    )
)


def _own_object(a: Read, b: Read) -> bool:
    """``a``'s event has an object ``b`` does not name (``_OBJECT``); its doors or gates
    are the event itself ("opened its public doors to visitors")."""
    m = _OBJECT.search(a.claim.sentence)
    if m is None:
        return False
    said = m.group(1).lower().split()
    head = said[-1]
    return _OPENING.isdisjoint(said) and _stem(head) not in b.plain and head not in b.words


def _size_disagreement(a: Read, b: Read) -> str | None:
    """What a size one claim gives its subject outside its predicate (``Read.sizes``) and
    the other's size (its own, or one of its such sizes) disagree on, or None."""
    for x in a.sizes or (a,):
        for y in b.sizes or (b,):
            kind = disagreement(x, y)
            if kind is not None and kind != POSSIBLE:  # maybe another thing: not flagged
                return kind
    return None


# head nouns that, after a word naming a subject, name another establishment of it ("the
# museum shop", "the museum café", "the pier car park"): another thing, no finding (review
# 37d #2: each was a claim.possible_contradiction against "the museum", so a careful writer
# was refused); a head noun not listed ("the museum hall", "the ferry boat", "the pier
# kiosk", "the museum library") may be the thing itself or a part of it: possible
_PLACES = frozenset(
    re.findall(
        r"\w+",
        "shop giftshop bookshop café cafe cafés cafes store restaurant "
        "restaurants tearoom tearooms canteen garden gardens "
        # a part with its own dates ("the museum's east wing", "the museum extension": review
        # 38a #8, each a plain source conflict against "the museum opened … in 1896")
        "wing wings extension extensions annexe annexes annex "
        # a part of a building, a bridge or a canal, "of" it or after it ("the west tower of
        # the church", "the church spire": review 41a #12, read as the church itself)
        "spire spires nave chancel transept transepts footbridge pound pounds arch arches",
    )
)
# and "of" it: "the west tower of the church" (review 41a #12; "the lighthouse tower" is the
# lighthouse itself, "the tower of the church" a part of it)
_PARTS_OF = _PLACES | {"tower", "towers"}
_PLACE_PAIRS = frozenset({("car", "park"), ("tea", "room"), ("coffee", "shop")})


def _another_place(a: Read, b: Read) -> bool:
    """``a`` puts, just after a word of ``b`` naming its subject, one or two lower-case
    words of its own, one naming another establishment (``_PLACES``: "the museum gift
    shop", "the museum's café", "the pier car park")."""
    words = _place_words(a.claim.sentence)
    mine = {w for w, _, _ in _place_words(b.claim.sentence)}
    for i, (w, _, _) in enumerate(words[:-1]):
        if w not in mine or w in STOPWORDS or w in _NOT_PLAIN or len(w) < 3:
            continue
        own = []
        for y, capital, joined in words[i + 1 : i + 3]:
            if not joined or capital or y in mine or y in STOPWORDS or y in _NOT_HEAD:
                break  # "the museum, shop and café": a list, the museum too
            own.append(y)
        if (any(y in _PLACES for y in own) or tuple(own) in _PLACE_PAIRS) and not _bare(
            words, w, i, b
        ):
            return True
    sentence = a.claim.sentence
    return (" of " in sentence and _place_of(words, mine, b)) or _new_one(words, mine)


def _place_of(words: tuple[tuple[str, bool, bool], ...], mine: set[str], b: Read) -> bool:
    """``words`` name another establishment or part "of" a word of ``b`` naming its subject:
    "The shop of the museum", "the east wing of the museum" (review 38a #8: a plain source
    conflict, where "the museum shop" was none)."""
    for i in range(1, len(words) - 1):
        if words[i][0] != "of" or words[i - 1][0] not in _PARTS_OF or words[i - 1][0] in mine:
            continue
        j = i + 1
        while j < len(words) - 1 and words[j][0] in _ARTICLES:
            j += 1
        w = words[j][0]
        if w in mine and w not in STOPWORDS and w not in _NOT_PLAIN and not _bare(words, w, j, b):
            return True
    return False


_ARTICLES = frozenset({"the", "a", "an", "its", "their", "this", "that"})
_SUCCESSOR = frozenset(
    {"new", "former", "present", "current", "second", "third", "fourth", "replacement"}
)


def _new_one(words: tuple[tuple[str, bool, bool], ...], mine: set[str]) -> bool:
    """``words`` say "the new" (``_SUCCESSOR``) just before a word of the other claim naming
    its subject, which the other does not say so: "The new museum opened its doors in 1975"
    against "The museum opened its doors in 1896" is a successor, another one (review 38a
    #8); "the former town hall", "the present church", "the second station" (review 41a)."""
    return any(
        w in _SUCCESSOR
        and w not in mine
        and i + 1 < len(words)
        and words[i + 1][0] in mine
        and words[i + 1][2]
        and words[i + 1][0] not in STOPWORDS
        and words[i + 1][0] not in _NOT_PLAIN
        for i, (w, _, _) in enumerate(words)
    )


def _bare(words: tuple[tuple[str, bool, bool], ...], w: str, at: int, b: Read) -> bool:
    """``words`` name ``w`` again elsewhere than ``at``, bare: at the end of a clause, before
    a function word or before the word ``b`` says after it ("The museum shop and the museum
    opened", "… in 1894, as did the museum": the museum too, review 38a #4)."""
    theirs = _place_words(b.claim.sentence)
    after = {theirs[j + 1][0] for j, (x, _, _) in enumerate(theirs[:-1]) if x == w}
    for j, (x, _, _) in enumerate(words):
        if x != w or j == at:
            continue
        if j + 1 == len(words):
            return True
        y, _, joined = words[j + 1]
        if not joined or y in after or y in STOPWORDS or y in _NOT_PLAIN or y in _NOT_HEAD:
            return True
    return False


@functools.lru_cache(maxsize=4096)
def _place_words(sentence: str) -> tuple[tuple[str, bool, bool], ...]:
    """A claim's words in order as written (lower case, with their accents: "café"), each
    with whether it has a capital and whether only spaces or a hyphen stand before it (read
    only for a pair the rules find disagreeing)."""
    text = _text(sentence)
    out = []
    end = 0
    for m in _ANY_WORD.finditer(text):
        gap = text[end : m.start()]
        out.append(
            (m.group(0).lower(), m.group(0)[0].isupper(), _JOINED.fullmatch(gap) is not None)
        )
        end = m.end()
    return tuple(out)


_ANY_WORD = re.compile(r"[^\W\d_]+")
_JOINED = re.compile(r"[\s-]+")


def unsure(a: Read, b: Read) -> tuple[str, str] | None:
    """Why ``a`` and ``b`` may be about two things: (the word both name, the phrase of
    one's own: "museum", "museum hall"), or None (review 37c #2, #4: no word list tells
    "the museum hall" from "the museum café" offline)."""
    for x, y in ((a, b), (b, a)):
        why = _own_head(x, y) or _kind_of(x, y)
        if why is not None:
            return why
    return None


def _disagreement(a: Read, b: Read) -> str | None:
    """What the rules find ``a`` and ``b`` disagree on when they are about one subject:
    the figures and polarity read first, the subject (_same_subject, the dearer, with
    its head nouns: ``unsure``) only for a pair they find disagreeing (most candidate
    pairs do not: a run's check on the 10k benchmark wiki, 59 of 600)."""
    kind = _disagreeing(a, b)
    return kind if kind is not None and _same_subject(a, b) else None


def _disagreeing(a: Read, b: Read) -> str | None:
    if a.named != b.named or (a.alias and b.alias and a.alias != b.alias):
        return None  # "Zebra 40" and "Zebra 39", "Pier 40" and "the pier": two things
    if a.negated != b.negated:
        neg, pos = (a, b) if a.negated else (b, a)
        if neg.period and pos.period and _times_apart(neg, pos):
            return None  # "until 1930" ends where "since 1930" starts (review 39a #3)
        if neg.period and pos.period and _times_overlap(neg, pos):
            return "negation"  # "ran … until 1935" and "Since 1930 … has not run" (review 40a #2)
        if _dated_past(pos) and _undated_now(neg) and not _EVER.search(neg.claim.sentence):
            return None  # "ran in winter until 1950" and "does not run in winter" (review 40a #5)
        since = _since(neg) if neg.period and not pos.period else None
        if not neg.numbers - neg.described - {str(since)} <= pos.numbers:
            return None  # "was not opened in 1899" against "opened in 1894": it agrees
        affirmed = pos.main or pos.plain  # not what its qualifier denies or excepts
        if neg.plain - affirmed and affirmed - neg.plain:
            return None  # it denies another thing ("… in summer" against "… in winter")
        if neg.period and not pos.period and not (since is not None and _now(pos, since)):
            return None  # another time
        if _denies_more(neg, pos):
            return None  # "does not run on Sundays in winter" against "runs in winter"
        return "negation"
    if a.negated:
        return None  # two denials do not contradict each other
    if a.period and b.period and _times_apart(a, b):
        return None  # "300 m long until 1950" and "450 m long since 1950" (review 40b)
    dated = (a.years or a.decades) and (b.years or b.decades)
    qa, qb = _quantities(a), _quantities(b)
    if (
        qa
        and qb
        and dated
        and not (_dates_meet(a, b) or _dates_meet(b, a))
        and a.years.isdisjoint(b.years)
    ):
        return None  # a time series: 5,200 in 1910 and about 4,000 in 1900
    dates_ok = not dated or _dates_meet(a, b) or _dates_meet(b, a)
    days = {n for n in a.numbers | b.numbers if _MONTH_DAY.fullmatch(n)}
    if days and not dated:
        dates_ok = _dates_meet(a, b) or _dates_meet(b, a)
    quantities_ok = not (qa and qb) or _quantities_meet(a, b) or _quantities_meet(b, a)
    if a.units != b.units or (not quantities_ok and a.measures and b.measures):
        # "0.3 km" and "400 metres", "more than 2 hours" and "90 minutes": one system's
        # units, converted; "354 km" and "354.2 km": within rounding (review 41b); "400 m"
        # and "1312 feet": other systems, not compared
        meet = _measures_meet(a, b) if a.measures and b.measures else None
        quantities_ok = True if meet is None else meet
    if dates_ok and quantities_ok:
        return None
    if quantities_ok:
        if _another_event(a, b) or _other_ordinals(a, b) or _again(a) != _again(b):
            return None
        if _scheduled(a, b) or _scheduled(b, a):
            return None
        if _recurs(a) and _recurs(b):
            return None  # "won the league in 1923" and "… in 1931" (review 41b H3)
        return "date"
    if _another_time(a, b) or _another_whole(a, b) or _other_verbs(a, b):
        return None
    return "number"


# a denial of every time up to now: "has never been drained", "has not been demolished"
# (review 41a #2: read as a present denial, it agreed with "was drained in 1956")
_EVER = re.compile(r"\b(?:has|have)(?:\s+(?:never|not)|n['\u2019]t)\b", re.I)


def _since(r: Read) -> int | None:
    """The year of a period open to now that is the claim's only time: "Since 1890 the
    ferry has not run" (not "did not run", not "until", "during", …); else None."""
    sentence = r.claim.sentence
    m = _SINCE.search(sentence)
    if m is None or r.tense == "past":
        return None
    if any(p.group(0).lower() != "since" for p in _PERIOD.finditer(sentence)):
        return None
    return int(m.group(1))


# the event a period starts or ends at, said as a clause: "since it was rebuilt in 1950"
_EVENT = r"(?:(?:it|they|he|she)\s+(?:was|were|had\s+been)\s+[a-z]+\s+(?:in\s+)?)?"
_SINCE = re.compile(rf"\bsince\s+{_EVENT}(1\d{{3}}|20\d{{2}})\b", re.I)


def _times_overlap(a: Read, b: Read) -> bool:
    """Each claim's one period (``_interval``) meets the other's for a while: "ran …
    until 1935" or "from 1900 to 1935" and "Since 1930 … has not run" (review 40a #2,
    40b); two periods open the same way ("until 1930", "until 1935") are not read."""
    ta, tb = _interval(a), _interval(b)
    if ta is None or tb is None or _same_way(ta, tb):
        return False
    return min(ta[1], tb[1]) > max(ta[0], tb[0])


# a time a frequency or duration may be given for, apart from the usual one: "In summer the
# launch runs 6 times a day" against "The launch runs 2 times a day" (review 40a #6: a
# timetable's general figure and its seasonal or Sunday one were a contradiction); any
# spelling ("summertime", "each winter", "every Sunday": review 40b, each then exempt
# against "in summer"); and a figure said for every time is not the usual one ("all year
# round", "always", "every day": compared with a seasonal one)
_QUALIFIED_TIME = re.compile(
    r"\b(?:winters?|summers?|springs?|autumns?|summertime|wintertime|springtime"
    r"|sundays?|saturdays?|mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|weekends?"
    r"|weekdays?|easter|christmas|holidays?"
    r"|january|february|march|april|june|july|august|september|october|november|december)\b",
    re.I,
)
_ALL_TIMES = re.compile(
    r"\b(?:all\s+(?:the\s+)?year(?:\s+round)?|year[\s-]+round|always|every\s+day|daily"
    r"|throughout\s+the\s+year|all\s+week)\b",
    re.I,
)
_FREQUENCY = re.compile(
    r"\b(?:times|minutes?|hours?|days?|weeks?|sailings|trains|services|opens|closes)\b"
    r"|\bat\s+\d{1,2}(?:[.:]\d\d)?\b",  # an opening hour (review 41a #16)
    re.I,
)


def _one_qualified(a: Read, b: Read) -> bool:
    """One claim gives its frequency or duration for a time of year, week or holiday
    (``_QUALIFIED_TIME``), the other for none: another time."""
    sa, sb = a.claim.sentence, b.claim.sentence
    if _FREQUENCY.search(sa) is None or _FREQUENCY.search(sb) is None:
        return False
    if _ALL_TIMES.search(sa) is not None or _ALL_TIMES.search(sb) is not None:
        return False
    return bool(_times_named(sa)) != bool(_times_named(sb))


@functools.lru_cache(maxsize=4096)
def _times_named(sentence: str) -> frozenset[str]:
    """The times of year, week or holiday a claim names, each in one spelling ("summers",
    "summertime", "the summer months": "summer"; "Sundays": "sunday")."""
    if _QUALIFIED_TIME.search(sentence) is None:
        return frozenset()
    return frozenset(
        _ONE_TIME.sub("", m.group(0).lower()) for m in _QUALIFIED_TIME.finditer(sentence)
    )


_ONE_TIME = re.compile(r"(?:time|s)$")  # "summertime", "summers", "sundays": one spelling


def _times_apart(a: Read, b: Read) -> bool:
    """Each claim's one period (``_interval``), and the two do not meet: "until 1930" or
    "before 1930" ends where "since 1930" or "after 1930" starts ("The tram ran on Sundays
    until 1930" against "Since 1930 the tram has not run on Sundays": review 39a #3, a
    careful history in two sentences was a major contradiction)."""
    ta, tb = _interval(a), _interval(b)
    if ta is None or tb is None or _same_way(ta, tb):
        return False
    return min(ta[1], tb[1]) <= max(ta[0], tb[0])


def _same_way(ta: tuple[float, float], tb: tuple[float, float]) -> bool:
    """Both periods open to the past, or both to the future."""
    return (ta[0] == tb[0] == -math.inf) or (ta[1] == tb[1] == math.inf)


def _interval(r: Read) -> tuple[float, float] | None:
    """The claim's one period as years (lo, hi): "until/till/before 1930" (-inf, 1930),
    "since/after 1930" (1930, inf), "from 1900 to 1935" (1900, 1935); None unless that is
    its only period and its years are the period's."""
    if r.decades:
        return None
    sentence = r.claim.sentence
    periods = _PERIOD.findall(sentence)
    if len(periods) != 1:
        return None
    m = _RANGE.search(sentence)
    if m is not None:
        lo, hi = (int(y) for y in m.groups() if y is not None)
        return (lo, hi) if lo < hi and r.years == {lo, hi} else None
    if len(r.years) != 1:
        return None
    m = _BOUND.search(sentence)
    if m is None:
        return None
    year = int(m.group(2))
    return (
        (-math.inf, year) if m.group(1).lower() in ("until", "till", "before") else (year, math.inf)
    )


_BOUND = re.compile(rf"\b(since|until|till|before|after)\s+{_EVENT}(1\d{{3}}|20\d{{2}})\b", re.I)


def _now(r: Read, since: int) -> bool:
    """``r`` says what is (the present, no past form of a verb) or what was in a year from
    ``since`` on: a time a denial "since" that year meets ("Since 1890 the ferry has not
    run" against "The ferry runs in winter"; not against "The ferry ran in winter in
    1880", nor "… ran in winter")."""
    if r.years:
        return all(y >= since for y in r.years)
    if r.tense == "past":
        return False
    return r.tense == "present" or not any(
        _a_past(w) for w in map(str.lower, _TOKEN.findall(r.claim.sentence))
    )


def _again(r: Read) -> bool:
    """The claim dates a repeat of its event: "opened its doors again in 1946", "reopened
    in 1950", "was rebuilt in 1921" (review 38a #8: a plain source conflict against
    "opened its doors in 1896"); its only date, the repeat's: a claim of two dates ("first
    opened in 1894 and again in 1950") dates its first event too (review 39a #1)."""
    if len(r.years) + len(r.decades) > 1:
        return False
    if r.plain & _REDONE:
        return True
    return _AGAIN.search(r.claim.sentence) is not None


# "again", and its other spellings (review 39a #8: each a plain source conflict against
# "opened its doors in 1896"): "re-opened", "once more", "for a second time", "anew"
_AGAIN = re.compile(
    r"\b(?:again|anew|once\s+more|(?:for\s+)?(?:a|the)\s+(?:second|third|fourth|fifth)\s+time)\b"
    r"|\bre-(?:open|buil|lit|light|found|establish|launch|start|consecrat|dedicat|instat|erect)",
    re.I,
)


# "reopened", "rebuilt", "relit", "re-founded": a verb done again (read as its stem)
_REDONE = frozenset(
    _stem(w)
    for w in re.findall(
        r"\w+",
        "reopened reopen reopens rebuilt rebuild relit relighted refounded reestablished "
        "relaunched reconsecrated rededicated reinstated restarted",
    )
)
# words of a recurring time: a claim dating one the other lacks ("on Sundays from 1901") is
# of a schedule ("opened its doors on Sundays from 1901" against "opened its doors in 1896":
# review 38a #8), no date of the other's event ("the Sunday school" is no recurring time)
_RECURRING = re.compile(
    r"\b(?:sundays|mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|weekends|"
    r"weekdays|evenings|mornings|afternoons|nights|holidays|daily|weekly|nightly)\b",
    re.I,
)
# the recurring time and its start together: "on Sundays from 1901", "from 1901 on
# weekdays" (not a recurring word anywhere: "opened in 1894 and is open daily" is dated)
_SCHEDULE = re.compile(
    rf"{_RECURRING.pattern}\s+(?:from|since|after)\s+(?:\d{{1,2}}\s+[a-z]+\s+)?"
    rf"(?:1\d{{3}}|20\d{{2}})\b"
    rf"|\b(?:from|since|after)\s+(?:1\d{{3}}|20\d{{2}})\s+(?:on\s+|in\s+the\s+)?"
    rf"{_RECURRING.pattern}",
    re.I,
)


def _scheduled(a: Read, b: Read) -> bool:
    """``a`` dates a recurring time ("on Sundays from 1901"), ``b`` says none."""
    return (
        not a.plain.isdisjoint(_RECURRING_STEMS)
        and _SCHEDULE.search(a.claim.sentence) is not None
        and _RECURRING.search(b.claim.sentence) is None
    )


# what _RECURRING's words are read as in Read.plain (a cheap test first)
_RECURRING_STEMS = _events(
    _stem(w) for w in re.findall(r"\(\?:([a-z|]+)\)", _RECURRING.pattern)[0].split("|")
)


# events that happen again by nature: a title won, a tour, a visit, a flood, a relegation
# (review 41b H3: each pair of years was a source conflict); not with an ordinal ("first
# won the league in 1923" against "… in 1931" still differ)
_RECURS = _events(
    _stem(w)
    for w in re.findall(
        r"\w+",
        "win won wins winning champion champions tour toured tours visit visited visits "
        "adapt adapted host hosted hosts flood flooded floods relegate relegated promote "
        "promoted play played perform performed acquire acquired award awarded defeat "
        "defeated beat erupt erupted strike struck raid raided bomb bombed stage staged "
        "perform performs tour reissue reissued revive revived",
    )
)


def _recurs(r: Read) -> bool:
    """The claim dates an event that happens again by nature (``_RECURS``), no ordinal
    ("first", "last") or "only" saying which."""
    return not r.plain.isdisjoint(_RECURS) and r.plain.isdisjoint(_ORDINALS | _ONLY)


_ONLY = frozenset({"only", "once", "never"})


_ORDINALS = frozenset(
    _stem(w) for w in re.findall(r"\w+", "first last second third final earliest latest")
)


def _other_ordinals(a: Read, b: Read) -> bool:
    """Each dates another one of a series: "was last lit in 1960" against "was first lit
    in 1870" (review 38a: "lit", a word of three letters, now counts)."""
    oa, ob = a.plain & _ORDINALS, b.plain & _ORDINALS
    return bool(oa and ob and oa.isdisjoint(ob))


_NEGATION_TOKENS = frozenset(_stem(n) for n in NEGATIONS) | {"t"}  # "isn't": "isn", "t"


def _denies_more(neg: Read, pos: Read) -> bool:
    """The denial's words of its own come after its negation, no adverb: it denies
    something more ("does not run on Sundays in winter" against "runs in winter"); words
    of its own before it describe the subject ("The small ferry does not run", "still",
    "regularly": review 38a #2, now compared as words of three letters count)."""
    extra = neg.plain - (pos.main or pos.plain)
    if not extra:
        return False
    sentence = neg.claim.sentence
    if "since" in sentence.lower():  # the event its period starts at: "since it was rebuilt"
        sentence = _SINCE.sub(lambda m: f"since {m.group(1)}", sentence)
    tokens = _tokens(sentence)
    at = next((i for i, (w, _) in enumerate(tokens) if w in _NEGATION_TOKENS), None)
    if at is None:
        return False
    return any(
        w in extra and w not in _NOT_HEAD and w not in _FILLERS and not w.endswith("ly")
        for w, _ in tokens[at + 1 :]
    )


def pair_finding(a: PageClaim, b: PageClaim) -> Finding | None:
    """The finding the check makes of claim ``a`` met with claim ``b`` (each citing only its
    own source), or None: the rules alone, no candidate search (the corpus's measure)."""
    ra, rb = read(a), read(b)
    kind = disagreement(ra, rb)
    if kind is None:
        return None
    return _finding(ra, rb, kind, {(c.page, c.sentence): {c.source} for c in (a, b)})


def _quote(claim: PageClaim) -> Read:
    return _quote_read(claim.quote)


@functools.lru_cache(maxsize=4096)
def _quote_read(quote: str) -> Read:
    """A quote as the rules read it (a claim's quote is read for each pair it is in: once)."""
    return read(PageClaim("", "", 0, quote, "", None, quote, None, None, False))


def _backed(r: Read, other: Read, kind: str, *, piece: bool = False) -> bool:
    """The claim says what its own quote says, in what the two claims disagree on, and the
    quote is about their subject (a quote that holds the year but is about another thing
    backs nothing); with ``piece``, for the claim already there (not the one being
    checked, whose writer chose its quote), a piece of the claim naming nothing else does
    too ("first lit in 1870" for "The Harbour Lighthouse was first lit in 1870": review
    36b, an honest marked conflict was refused as the new writer's error)."""
    q = _quote(r.claim)
    shared = r.words & other.words
    piece = piece and bool(q.plain & other.plain) and q.plain <= r.plain
    # more than half (review 38a: "lit", now a word, made "first lit in 1879" half of
    # "Harbour Lighthouse first lit": a quote naming no lighthouse backed the claim)
    if len(shared & q.words) * 2 <= len(shared) and not piece:
        return False
    if kind == "negation":
        # the polarity of the part that disagrees: "The ferry sails daily, but it does not
        # run in winter" denies, in its clause, what "The ferry runs in winter" says
        parts = [x for x in r.sizes if disagreement(x, other) not in (None, POSSIBLE)]
        if not parts:
            return q.negated == r.negated
        said = {q.negated} | {y.negated for y in q.sizes}  # its quote, or a part of it, says
        return any(x.negated in said for x in parts)
    return r.numbers <= q.numbers or (
        _quantities_meet(r, q) and _dates_meet(r, q) and bool(r.numbers)
    )


def check_consistency(ctx: Context) -> list[Finding]:
    section = ctx.config.consistency
    if not section.enabled or section.max_candidates == 0:
        return []
    compare = getattr(ctx.judge, "compare_pairs", None)
    key = _result_key(ctx) if ctx.lint and compare is None else None
    if key is not None:
        hit = ctx.cache.verdicts([key]).get(key)
        if hit is not None:
            try:
                return [Finding.model_validate(f) for f in json.loads(hit)]
            except (ValueError, TypeError):
                pass  # a damaged row: checked again
    out = _started(ctx, _capped(_check(ctx, compare)))
    if key is not None:
        ctx.cache.store_verdicts({key: json.dumps([f.model_dump(mode="json") for f in out])})
    return out


PER_PAGE = 50  # contradiction findings listed per page; one more counts the rest


def _capped(found: list[Finding]) -> list[Finding]:
    return capped(found)


def capped(found: list[Finding], codes: frozenset[str] | None = None) -> list[Finding]:
    """At most PER_PAGE findings of each code (of ``codes``, else every code) per page,
    then one counting the rest: a page of a thousand claims on one subject is one problem,
    not half a million findings (each fingerprinted and stored: review 36b)."""
    seen: dict[tuple[str | None, str], int] = {}
    out: list[Finding] = []
    for f in found:
        if codes is not None and f.code not in codes:
            out.append(f)
            continue
        key = (f.path, f.code)
        n = seen[key] = seen.get(key, 0) + 1
        if n <= PER_PAGE:
            out.append(f)
    for (path, code), n in seen.items():
        if n > PER_PAGE:
            first = next(f for f in out if (f.path, f.code) == (path, code))
            out.append(
                first.model_copy(
                    update={
                        "message": f"{n - PER_PAGE} more {code} findings on {path} "
                        f"(past the first {PER_PAGE})",
                        "claim": None,
                        "line": None,
                    }
                )
            )
    return out


def _result_key(ctx: Context) -> str:
    """What a whole-wiki check's findings depend on: the tree, and what ``_scope`` names."""
    return _scope(ctx, "consistency", str(ctx.tip.tree_id))


def _scope(ctx: Context, *tag: str) -> str:
    """A digest of ``tag`` and what the check's findings depend on but the tree: where the
    pages are, the rules' section, this module and the offline judge's number reading."""
    layout = ctx.tip.layout
    material = json.dumps(
        [
            *tag,
            layout.root,
            list(layout.exclude),
            ctx.config.consistency.model_dump(mode="json"),
            _module_digest(),
            rules_digest(),
        ]
    )
    return hashlib.blake2b(material.encode(), digest_size=20).hexdigest()


@functools.lru_cache(maxsize=1)
def _module_digest() -> str:
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]


def _check(ctx: Context, compare: Any) -> list[Finding]:
    section = ctx.config.consistency
    if ctx.base is None and compare is None:
        return _whole(ctx, section.max_candidates)
    cut: list[Finding] = []  # claims whose candidates were cut (_elsewhere)
    mine, pool = _claims(ctx, section.max_candidates, cut)
    found, unsure, cites = _compared(
        mine,
        pool,
        section.max_candidates,
        decidable=ctx.lint and compare is None,
        whole=ctx.base is None,
        judged=compare is not None,
        # no LLM judge: only the pairs a rule may decide (the others were ranked and read
        # for nothing: unsure pairs go only to the judge)
        decisive=compare is None and ctx.base is not None,
    )
    if ctx.base is not None:
        found = writers_side(found, mine)
        one_source_read(ctx.tip, found)
    out = [f for _, _, f in found] + _marker_findings(mine) + cut
    if compare is not None and unsure:
        out += _judged(ctx, compare, unsure, cites)
    return out


# ---------------------------------------------------------------- the whole-wiki pass

WHOLE_CHANGED = 0.1  # past this share of the pages changed, a whole-wiki pass is made anew
Place = tuple[int, str, int]  # a claim's place in a whole-wiki pass: (gap-marked, page, nth)
Row = tuple[Place, Place, Finding]  # an open contradiction: its two sides, its finding


def _whole(ctx: Context, cap: int) -> list[Finding]:
    """A whole-wiki verify's findings (offline): derived from the last tree's pass kept in
    the verification cache when few pages changed (``_derived``), else every claim of the
    wiki compared (``_full``); kept for the next tree."""
    tip = ctx.tip
    scope = _pass_scope(ctx)
    versions = {p: str(tip.entries[p].oid) for p in tip.pages}
    got = None
    last = _last_pass(ctx.cache.latest_pass(scope))
    if last is not None:
        got = _derived(ctx, cap, last, versions)
    made = got if got is not None else _full(ctx, cap)
    # the tree whose TermIndex (kept in the cache) the next pass derives its index from:
    # the last one's when no page changed (no index of this tree was made)
    same = last is not None and got is not None and last.versions == versions
    tree = last.tree if same and last is not None else str(tip.tree_id)
    ctx.cache.store_whole_pass(scope, str(tip.tree_id), _stored(tree, versions, made))
    rows, markers = made.rows, made.markers
    return [f for _, _, f in rows] + [f for p in sorted(markers) for f in markers[p]]


def _pass_scope(ctx: Context) -> str:
    """What a whole-wiki pass depends on but its tree (``_scope``)."""
    return _scope(ctx, "pass")


# a claim compared in a whole-wiki pass (one a rule decides on, or a gap-marked statement)
# → its candidates' places, best first (_pairs): what a derived pass ranks again only for
# the claims whose candidates a changed page may change (_rederive)
Lists = dict[Place, list[Place]]


@dataclass
class Parts:
    """What a whole-wiki pass finds, and what the next one is derived from."""

    rows: list[Row]
    markers: dict[str, list[Finding]]  # page → its claim.conflict_marker findings
    gaps: dict[str, list[str]]  # page → the keys of its gap-marked statements (keys_of)
    lists: Lists
    counts: dict[str, tuple[int, int]]  # page → its claims, and those compared (_sizes)


@dataclass
class _Pass(Parts):
    tree: str = ""
    versions: dict[str, str] = field(default_factory=dict)  # page → its blob id


def _stored(tree: str, versions: dict[str, str], made: Parts) -> bytes:
    pages = sorted(versions.keys() | made.counts.keys())
    number = {p: n for n, p in enumerate(pages)}

    def code(place: Place) -> int:  # a place as one number: page, nth, gap-marked
        return (number[place[1]] << 33) | (place[2] << 1) | place[0]

    data = {
        "tree": tree,
        "versions": versions,
        "rows": [[*a, *b, f.model_dump(mode="json")] for a, b, f in made.rows],
        "markers": {p: [f.model_dump(mode="json") for f in fs] for p, fs in made.markers.items()},
        "gaps": made.gaps,
        "pages": pages,
        "lists": [[code(h), *map(code, cs)] for h, cs in sorted(made.lists.items())],
        "counts": made.counts,
    }
    return json.dumps(data).encode()


def _last_pass(data: bytes | None) -> _Pass | None:
    """A stored pass, decoded (None: none, or a damaged one)."""
    if data is None:
        return None
    try:
        got = json.loads(data)
        versions = got["versions"]
        if not isinstance(versions, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in versions.items()
        ):
            return None
        rows: list[Row] = []
        for ag, ap, an, bg, bp, bn, f in got["rows"]:
            if not all(isinstance(x, int) for x in (ag, an, bg, bn)):
                return None
            if not (isinstance(ap, str) and isinstance(bp, str)):
                return None
            rows.append(((ag, ap, an), (bg, bp, bn), Finding.model_validate(f)))
        markers = {
            str(p): [Finding.model_validate(f) for f in fs] for p, fs in got["markers"].items()
        }
        gaps = {str(p): [str(k) for k in ks] for p, ks in got["gaps"].items()}
        pages = got["pages"]
        if not all(isinstance(p, str) for p in pages):
            return None

        def place(code: int) -> Place:
            if not isinstance(code, int) or code < 0:
                raise ValueError("not a place")
            return (code & 1, pages[code >> 33], (code >> 1) & 0xFFFFFFFF)

        lists = {place(h): [place(c) for c in cs] for h, *cs in got["lists"]}
        counts = {str(p): (int(n), int(m)) for p, (n, m) in got["counts"].items()}
        return _Pass(rows, markers, gaps, lists, counts, str(got["tree"]), versions)
    except (ValueError, TypeError, KeyError, AttributeError, IndexError):
        return None


def _current_of(tree: WikiTree, path: str) -> tuple[list[PageClaim], list[PageClaim]]:
    """A page's claims and gap-marked statements that are not history (``history``)."""
    page = tree.page(path)
    cited, gapped = page_claims(page), gap_claims(page)
    past = history([*cited, *gapped])  # a gap-marked statement may be history too
    return [c for c in cited if c.id not in past], [g for g in gapped if g.id not in past]


def _placed(
    tree: WikiTree, paths: Iterable[str], places: dict[int, Place]
) -> tuple[list[PageClaim], list[PageClaim]]:
    """The current claims and gap-marked statements of ``paths`` (loaded), each with its
    place (by object) into ``places``."""
    cited: list[PageClaim] = []
    gaps: list[PageClaim] = []
    for p in paths:
        c, g = _current_of(tree, p)
        places.update((id(x), (0, p, n)) for n, x in enumerate(c))
        places.update((id(x), (1, p, n)) for n, x in enumerate(g))
        cited += c
        gaps += g
    return cited, gaps


def _markers(cited: list[PageClaim]) -> dict[str, list[Finding]]:
    out: dict[str, list[Finding]] = {}
    for f in _marker_findings(cited):
        out.setdefault(f.path or "", []).append(f)
    return out


def _full(ctx: Context, cap: int) -> Parts:
    """Every claim of the wiki that a rule can decide on (and every gap-marked statement)
    against its candidates among every claim of the wiki: each pair once, from the side
    placed first (pages by path, a page's claims in order, gap-marked statements last)."""
    tip = ctx.tip
    tip.load(tip.pages)
    places: dict[int, Place] = {}
    cited, gaps = _placed(tip, sorted(tip.pages), places)
    tip.term_index(TermIndex)  # the next tree's pass derives its candidates from it
    rows, lists = _full_rows(cited, gaps, places, cap)
    return Parts(rows, _markers(cited), _gap_keys(gaps), lists, _sizes(cited, gaps, lists))


def _full_rows(
    cited: list[PageClaim], gaps: list[PageClaim], places: dict[int, Place], cap: int
) -> tuple[list[Row], Lists]:
    """The open contradictions of ``cited`` and ``gaps`` (in place order), and each
    compared claim's candidates."""
    by_id: dict[int, list[PageClaim]] = {}
    found = _compared(cited + gaps, cited, cap, decidable=True, whole=True, lists=by_id)[0]
    rows = sorted(
        ((places[id(a)], places[id(b)], f) for a, b, f in found), key=lambda r: (r[0], r[1])
    )
    lists = {places[k]: [places[id(c)] for c in cs] for k, cs in by_id.items()}
    return rows, lists


def _sizes(
    cited: list[PageClaim], gaps: list[PageClaim], lists: Lists
) -> dict[str, tuple[int, int]]:
    """Per page: its claims, and its claims and statements compared (``lists``' heads):
    whether a full pass scores bounded (_pairs) is known from them."""
    out: dict[str, list[int]] = {}
    for c in cited:
        out.setdefault(c.page, [0, 0])[0] += 1
    for g in gaps:
        out.setdefault(g.page, [0, 0])
    for h in lists:
        out.setdefault(h[1], [0, 0])[1] += 1
    return {p: (n, m) for p, (n, m) in out.items()}


def _gap_keys(gaps: list[PageClaim]) -> dict[str, list[str]]:
    """The keys of each page's gap-marked statements: the pages a changed claim is compared
    with from their statements' side (the TermIndex lists only cited claims' pages)."""
    out: dict[str, set[str]] = {}
    for g in gaps:
        out.setdefault(g.page, set()).update(keys_of(g.sentence))
    return {p: sorted(ks) for p, ks in out.items()}


class _Source:
    """Where a derived pass reads the claims it compares again: whole pages (their current
    claims and gap-marked statements, each with its place) and the pages holding a key."""

    def __init__(self, places: dict[int, Place]):
        self.places = places
        self.at: dict[Place, PageClaim] = {}
        self.cited: dict[str, list[PageClaim]] = {}
        self.gaps: dict[str, list[PageClaim]] = {}

    def load(self, pages: Iterable[str]) -> None:
        wanted = sorted({p for p in pages if p not in self.cited})
        for p, (cs, gs) in zip(wanted, self._read(wanted), strict=True):
            self.cited[p], self.gaps[p] = cs, gs
            for kind, xs in ((0, cs), (1, gs)):
                for n, x in enumerate(xs):
                    self.places[id(x)] = (kind, p, n)
                    self.at[(kind, p, n)] = x

    def _read(self, pages: list[str]) -> list[tuple[list[PageClaim], list[PageClaim]]]:
        raise NotImplementedError

    def holding(self, keys: set[str], among: set[str] | None = None) -> set[str]:
        """The pages (of ``among``, if given) whose claims (or gap-marked statements) hold
        one of ``keys``."""
        raise NotImplementedError


class _TreeSource(_Source):
    """A tree's pages, parsed; the pages holding a key from its TermIndex (a key of more
    than COMMON pages is not listed there: its other pages are not read)."""

    def __init__(
        self, tree: WikiTree, index: TermIndex, gaps: dict[str, list[str]], places: dict[int, Place]
    ):
        super().__init__(places)
        self.tree, self.index, self.gap_keys = tree, index, gaps
        self.present = set(tree.pages)

    def _read(self, pages: list[str]) -> list[tuple[list[PageClaim], list[PageClaim]]]:
        pages = [p for p in pages if p in self.present]
        self.tree.load(pages)
        return [_current_of(self.tree, p) for p in pages]

    def load(self, pages: Iterable[str]) -> None:
        super().load(p for p in pages if p in self.present)

    def holding(self, keys: set[str], among: set[str] | None = None) -> set[str]:
        out = {p for k in keys for p in self.index.pages_of(k)}
        out |= {p for p, ks in self.gap_keys.items() if not keys.isdisjoint(ks)}
        return {p for p in out if p in self.present and (among is None or p in among)}


class _MemorySource(_Source):
    """Claims at hand (``wikigate health``'s, every page's), by page."""

    def __init__(
        self, pages: dict[str, tuple[list[PageClaim], list[PageClaim]]], places: dict[int, Place]
    ):
        super().__init__(places)
        self.pages = pages
        self.keys: dict[str, frozenset[str]] = {}  # a page's claims' keys, once read

    def _read(self, pages: list[str]) -> list[tuple[list[PageClaim], list[PageClaim]]]:
        return [self.pages[p] for p in pages if p in self.pages]

    def load(self, pages: Iterable[str]) -> None:
        super().load(p for p in pages if p in self.pages)

    def holding(self, keys: set[str], among: set[str] | None = None) -> set[str]:
        pages = self.pages if among is None else among
        out = set()
        for p in pages:
            got = self.keys.get(p)
            if got is None and p in self.pages:
                cs, gs = self.pages[p]
                got = self.keys[p] = frozenset(k for x in (*cs, *gs) for k in keys_of(x.sentence))
            if got is not None and not got.isdisjoint(keys):
                out.add(p)
        return out


def _derived(ctx: Context, cap: int, last: _Pass, versions: dict[str, str]) -> Parts | None:
    """The pass of this tree from ``last`` (another tree's), as ``_rederive`` makes it, the
    pages holding a key read from the tree's TermIndex. None: too many pages changed, or
    the last tree is not readable."""
    tip = ctx.tip
    changed = {
        p for p in last.versions.keys() | versions.keys() if last.versions.get(p) != versions.get(p)
    }
    if len(changed) > WHOLE_CHANGED * len(versions):
        return None
    markers = {p: fs for p, fs in last.markers.items() if p not in changed}
    gap_keys = {p: ks for p, ks in last.gaps.items() if p not in changed}
    if not changed:
        return Parts(last.rows, markers, gap_keys, last.lists, last.counts)
    try:
        base = WikiTree(
            ctx.repo,
            pygit2.Oid(hex=last.tree),
            ctx.cache,
            limits=ctx.config.limits,
            layout=tip.layout,
        )
    except (KeyError, ValueError, TypeError, pygit2.GitError, TreeLimitError):
        return None  # the last tree is gone (or was never this repository's)
    index = tip.term_index(TermIndex, base)  # derived from the last tree's: the next's base
    here = sorted(p for p in changed if p in versions)
    places: dict[int, Place] = {}
    source = _TreeSource(tip, index, gap_keys, places)
    source.load(here)
    mine_cited = [c for p in here for c in source.cited[p]]
    mine_gaps = [g for p in here for g in source.gaps[p]]
    gap_keys.update(_gap_keys(mine_gaps))
    source.gap_keys = gap_keys
    got = _rederive(last, changed, source, cap)
    if got is None:
        return None
    rows, lists, counts = got
    for p, fs in _markers(mine_cited).items():
        markers[p] = fs
    return Parts(rows, markers, gap_keys, lists, counts)


def _rederive(
    last: _Pass, changed: set[str], source: _Source, cap: int
) -> tuple[list[Row], Lists, dict[str, tuple[int, int]]] | None:
    """The open contradictions, candidates and counts of a full pass of this tree, from
    ``last`` (a pass of another tree, ``changed`` pages away; the changed pages present are
    loaded in ``source``). A claim's candidates depend only on the claims sharing its keys
    (and their pages' other claims: at most max_candidates of a page a key), so they are
    ranked again only for the claims of the changed pages and for the unchanged claims
    whose candidates a changed page's claims were (all of their keys' claims ranked again
    when the cap bound: the next one in line is not known) or may now be (their candidates
    ranked again with the changed pages' claims: the best of those and of the last ones are
    the best of all). A pair is reported when one side has the other among its candidates,
    graded from the side placed first of those that have; the pairs of two claims whose
    candidates did not change are kept as they were. None: a last pass with no
    candidates (a pass of an older version)."""
    old = last.lists
    places = source.places
    reads: dict[int, Read] = {}

    def full(c: PageClaim) -> Read:
        r = reads.get(id(c))
        if r is None:
            r = reads[id(c)] = read(c)
        return r

    here = sorted(p for p in source.cited if p in changed)
    new_cited = [c for p in here for c in source.cited[p]]
    new_gaps = [g for p in here for g in source.gaps[p]]
    # the changed pages' claims compared (a number, a negation; every gap-marked statement)
    compared_new = [r for r in map(full, new_cited) if r.numbers or _denies(r)]
    compared_new += map(full, new_gaps)
    fresh = {k for c in new_cited for k in keys_of(c.sentence)}  # gaps are no candidates
    again: set[Place] = set()  # unchanged claims ranked again
    wide: set[Place] = set()  # ... against every claim sharing their keys
    heads: set[str] = set()  # the unchanged pages of claims compared
    for h, cs in old.items():
        if h[1] in changed:
            continue
        heads.add(h[1])
        if any(c[1] in changed for c in cs):
            again.add(h)
            if len(cs) >= cap:
                wide.add(h)
    near = source.holding(fresh, heads) if fresh else set()
    source.load(near)
    for p in near:
        for x in (*source.cited[p], *source.gaps[p]):
            at = places[id(x)]
            if at in old and not fresh.isdisjoint(keys_of(x.sentence[:CLAIM_CHARS])):
                again.add(at)
    source.load({h[1] for h in again})
    if any(h not in source.at for h in again):
        return None  # not this pass's claims: a damaged pass
    wanted = {k for r in compared_new for k in r.keys}
    wanted |= {k for h in wide for k in keys_of(source.at[h].sentence)}
    pool_pages = set(here) | {h[1] for h in again}
    pool_pages |= source.holding(wanted) if wanted else set()
    pool_pages |= {c[1] for h in again - wide for c in old[h]}
    source.load(pool_pages)
    pool = [c for p in sorted(pool_pages) if p in source.cited for c in source.cited[p]]
    mine_read = sorted(
        [full(source.at[h]) for h in again] + compared_new, key=lambda r: places[id(r.claim)]
    )
    counts = {p: n for p, n in last.counts.items() if p not in changed}
    for p in here:
        counts[p] = (len(source.cited[p]), 0)
    new: Lists = {places[id(r.claim)]: [] for r in mine_read}
    for h in new:
        if h[1] in changed:
            n, m = counts[h[1]]
            counts[h[1]] = (n, m + 1)
    total = sum(n for n, _ in counts.values())
    compared = sum(m for _, m in counts.values())
    bounded = compared * total > EXACT  # as the full pass scores
    for a, c in _pairs(mine_read, pool, cap, bounded=bounded):
        new[places[id(a.claim)]].append(places[id(c)])
    # the claims whose candidates changed (a changed page's, or another list): their pairs
    # are graded again; a pair of two claims whose candidates did not change is as it was
    moved = {
        h
        for h, cs in new.items()
        if h[1] in changed
        or cs != old.get(h)
        or any(c[1] in changed for c in cs)  # the same place, maybe another claim
    }
    lists = {h: cs for h, cs in old.items() if h[1] not in changed and h not in moved}
    todo: set[tuple[Place, Place]] = set()
    for h in moved:
        todo.update((min(h, c), max(h, c)) for c in new[h])
    for h, cs in lists.items():  # an unchanged list naming a claim whose list changed
        if not moved.isdisjoint(cs):
            todo.update((min(h, c), max(h, c)) for c in cs if c in moved)
    lists.update(new)
    source.load({p[1] for pair in todo for p in pair})
    cites: Cites = {}
    for p in source.cited:
        for c in source.cited[p]:
            cites.setdefault((c.page, c.sentence), set()).add(c.source)
    rows = [
        r
        for r in last.rows
        if r[0][1] not in changed
        and r[1][1] not in changed
        and r[0] not in moved
        and r[1] not in moved
    ]
    for u, v in sorted(todo):
        if v in lists.get(u, ()):
            first, second = u, v  # the first placed that has the other among its candidates
        elif u in lists.get(v, ()):
            first, second = v, u
        else:
            continue
        if first not in source.at or second not in source.at:
            return None  # a damaged pass
        a, b = full(source.at[first]), full(source.at[second])
        kind = disagreement(a, b)
        if kind is None:
            continue
        if a.claim.source == GAP:
            f = _gap_finding(a, b, kind)
        else:
            f = _finding(a, b, kind, cites, whole=True)
        if f is not None:
            rows.append((first, second, f))
    rows.sort(key=lambda r: (r[0], r[1]))
    return rows, lists, counts


Cites = dict[tuple[str, str], set[str]]  # (page, sentence) → the sources cited on it


# claims as read (a pure function of the claim), the last READS_KEPT kept for the next
# check of a long-lived process (an MCP server: a run's candidates are much the last's)
READS_KEPT = 4096
_read_kept = functools.lru_cache(maxsize=READS_KEPT)(lambda claim: read(claim))


def forget() -> None:
    """Drop what this process keeps of earlier checks (a new process's state: benchmarks
    of a one-shot command, tests)."""
    _FEATURES.clear()
    _ROWS.clear()
    _ROWS_CLAIMS[0] = 0
    _read_kept.cache_clear()


def _read_of(claim: PageClaim) -> Read:
    """``read(claim)``, of this very claim object (the checks pair claims by identity)."""
    r = _read_kept(claim)
    if r.claim is claim:
        return r
    again = object.__new__(Read)
    again.__dict__.update(r.__dict__)
    object.__setattr__(again, "claim", claim)
    return again


def _compared(
    mine: list[PageClaim],
    pool: list[PageClaim],
    cap: int,
    *,
    decidable: bool = False,
    whole: bool = False,
    judged: bool = False,
    lists: dict[int, list[PageClaim]] | None = None,
    decisive: bool = False,
) -> tuple[list[tuple[PageClaim, PageClaim, Finding]], list[tuple[Read, Read]], Cites]:
    """The open contradictions between ``mine`` and their candidates in ``pool`` (each
    with its finding), the pairs about one subject no rule decides, what each sentence
    cites. The pool's claims are read in full only when they are a candidate;
    ``decidable``: only the claims of ``mine`` a rule can decide on (a number, a negation:
    the other side of a negation is found from the negated one); ``whole``: a whole wiki's
    claims, none of them new (_finding); ``judged``: an LLM judge decides the possible
    contradictions (``POSSIBLE``): they are not findings but the first of the undecided
    pairs (review 37d: sent before the others, within the judge's token cap). Into
    ``lists``: each compared claim's candidates, best first (by the claim's object id).
    ``decisive``: no LLM judge reads the undecided pairs (_pairs)."""
    cites: Cites = {}
    for c in (*mine, *pool):
        if c.source != GAP:
            cites.setdefault((c.page, c.sentence), set()).add(c.source)
    reads: dict[str, Read] = {}

    def full(c: PageClaim) -> Read:
        r = reads.get(c.id)
        if r is None:
            r = reads[c.id] = _read_of(c)
        return r

    mine_read = [full(c) for c in mine]
    if decidable:  # a gap-marked statement is compared one way: its other side never is
        mine_read = [r for r in mine_read if r.numbers or _denies(r) or r.claim.source == GAP]
    found: list[tuple[PageClaim, PageClaim, Finding]] = []
    seen: set[frozenset[str]] = set()
    unsure: list[tuple[Read, Read]] = []  # about one subject, no rule sees a disagreement
    possible: list[tuple[Read, Read]] = []  # with ``judged``: the judge's to decide first
    if lists is not None:
        lists.update((id(a.claim), []) for a in mine_read)
    for a, other in _pairs(mine_read, pool, cap, decisive=decisive):
        if lists is not None:
            lists[id(a.claim)].append(other)
        pair = frozenset((a.claim.id, other.id))
        if pair in seen:
            continue
        seen.add(pair)
        b = full(other)
        kind = disagreement(a, b)
        gap = a.claim.source == GAP
        if kind is None:
            if (
                not gap
                and len(a.words & b.words) >= MIN_SHARED
                and a.claim.sentence != b.claim.sentence
            ):
                unsure.append((a, b))
            continue
        if kind == POSSIBLE and judged:
            possible.append((a, b))
            continue
        f = _gap_finding(a, b, kind) if gap else _finding(a, b, kind, cites, whole=whole)
        if f is not None:
            found.append((a.claim, b.claim, f))
    return found, possible + unsure, cites


def open_contradictions(
    claims: list[PageClaim],
    cap: int,
    *,
    gaps: list[PageClaim] | None = None,
    cache: Any = None,
    key: str | None = None,
) -> list[tuple[PageClaim, PageClaim, Finding]]:
    """The open contradictions among ``claims`` (a whole wiki's, say), offline: each pair
    once, with the finding the check makes of it (``wikigate health``, the claims' states);
    and of each gap-marked statement of ``gaps`` (gap_claims) with the claims it
    contradicts (claim.gap_contradiction). With a ``cache`` (verifier/cache.py) and a
    ``key`` saying what ``claims`` are (a tree), the answer is kept there and read back;
    a tree a few pages of claims away from the last one kept is derived from it
    (``_rederive``)."""
    gaps = gaps or []
    if cap == 0:
        return []
    if cache is not None and key is not None:
        key = hashlib.blake2b(
            json.dumps(["open", key, cap, _module_digest(), rules_digest()]).encode(),
            digest_size=20,
        ).hexdigest()
        hit = cache.verdicts([key]).get(key)
        if hit is not None:
            by_id = {c.id: c for c in (*claims, *gaps)}
            try:
                rows = json.loads(hit)
                return [(by_id[a], by_id[b], Finding.model_validate(f)) for a, b, f in rows]
            except (ValueError, KeyError, TypeError):
                pass  # a damaged row, or not these claims': computed again
    by_page: dict[str, tuple[list[PageClaim], list[PageClaim]]] = {}
    for c in claims:
        by_page.setdefault(c.page, ([], []))[0].append(c)
    for g in gaps:
        by_page.setdefault(g.page, ([], []))[1].append(g)
    places: dict[int, Place] = {}
    at: dict[Place, PageClaim] = {}
    cited: list[PageClaim] = []
    gapped: list[PageClaim] = []
    versions: dict[str, str] = {}  # page → a digest of its claims (lines included)
    for p in sorted(by_page):
        cs, gs = by_page[p]
        past = history([*cs, *gs])
        cs, gs = [c for c in cs if c.id not in past], [g for g in gs if g.id not in past]
        by_page[p] = cs, gs
        for kind, xs in ((0, cs), (1, gs)):
            for n, x in enumerate(xs):
                place = (kind, p, n)
                places[id(x)], at[place] = place, x
        cited += cs
        gapped += gs
        versions[p] = hashlib.blake2b(repr((cs, gs)).encode(), digest_size=16).hexdigest()
    scope = hashlib.blake2b(
        json.dumps(["open", cap, _module_digest(), rules_digest()]).encode(), digest_size=20
    ).hexdigest()
    last = _last_pass(cache.latest_pass(scope)) if cache is not None and key is not None else None
    got = None
    if last is not None:
        got = _derived_open(last, versions, by_page, cap)
        if got is not None and any(a not in at or b not in at for a, b, _ in got[0]):
            got = None  # a damaged row: computed in full
    if got is None:
        rows, lists = _full_rows(cited, gapped, places, cap)
        got = rows, lists, _sizes(cited, gapped, lists)
    rows, lists, counts = got
    out = [(at[a], at[b], f) for a, b, f in rows]
    if cache is not None and key is not None:
        made = Parts(rows, {}, {}, lists, counts)
        cache.store_whole_pass(scope, key, _stored(key, versions, made))
        stored = [(a.id, b.id, f.model_dump(mode="json")) for a, b, f in out]
        cache.store_verdicts({key: json.dumps(stored)})
    return out


def _derived_open(
    last: _Pass,
    versions: dict[str, str],
    by_page: dict[str, tuple[list[PageClaim], list[PageClaim]]],
    cap: int,
) -> tuple[list[Row], Lists, dict[str, tuple[int, int]]] | None:
    """open_contradictions' pass from ``last``, as ``_rederive`` makes it, every claim at
    hand. None: too many pages changed, or a damaged pass."""
    changed = {
        p for p in last.versions.keys() | versions.keys() if last.versions.get(p) != versions.get(p)
    }
    if len(changed) > WHOLE_CHANGED * len(versions):
        return None
    source = _MemorySource(by_page, {})
    source.load(p for p in changed if p in by_page)
    return _rederive(last, changed, source, cap)


def pair_inputs(unsure: list[tuple[Read, Read]]) -> list[PairInput]:
    """The pairs no rule decided, as the LLM judge reads them (``p1``, ``p2``…)."""
    return [
        PairInput(
            f"p{n}",
            a.claim.id,
            a.claim.sentence,
            a.claim.quote,
            b.claim.id,
            b.claim.sentence,
            b.claim.quote,
        )
        for n, (a, b) in enumerate(unsure, 1)
    ]


def _judged(
    ctx: Context,
    compare: Callable[[list[PairInput], StagedTree, int], PairVotes],
    unsure: list[tuple[Read, Read]],
    cites: Cites,
) -> list[Finding]:
    """The LLM judge's votes on the pairs no rule decided: ``contradicts`` is a finding;
    a pair it could not vote on fails closed; pairs past the token cap are counted. A
    possible contradiction (``POSSIBLE``: "the museum hall" against "the museum") voted
    ``contradicts`` is what the rules make of it as one thing (claim.contradiction or
    claim.source_conflict, ``_finding``), with the judge's reason; ``consistent`` or
    ``unrelated``, none; with no vote, claim.possible_contradiction as offline."""
    pairs = {p.pair_id: (a, b, p) for (a, b), p in zip(unsure, pair_inputs(unsure), strict=True)}
    staged = StagedTree(ctx.repo, ctx.tip, ctx.tip_commit, ctx.heartbeat)
    got = compare(
        [p for _, _, p in pairs.values()], staged, ctx.config.consistency.judge_max_tokens
    )
    if ctx.judgment is None and hasattr(ctx.judge, "judge"):  # its artifacts go with it
        ctx.judgment = ctx.judge.judge([], staged)
    out: list[Finding] = []
    whole = ctx.base is None
    for pair_id, (a, b, _) in pairs.items():
        vote = got.votes.get(pair_id)
        gap = a.claim.source == GAP
        if vote is None:
            if disagreement(a, b) == POSSIBLE:  # not judged: the offline finding stands
                found = _gap_finding(a, b, POSSIBLE) if gap else _possible(a, b, cites)
                if found is not None:
                    out.append(found)
            continue
        if vote[0] != "contradicts":
            continue
        kind = _disagreement(a, b) or "judge"  # one thing: the rules' kind, if any
        if gap:
            found = _gap_finding(a, b, kind)
        else:
            found = _finding(a, b, kind, cites, reason=vote[1], whole=whole)
        if found is not None:
            out.append(found)
    first = unsure[0][0].claim  # where a finding about the pairs as a whole stands
    if got.error is not None:
        out.append(
            finding(
                "claim.consistency_unjudged",
                first.page,
                first.line,
                f"the LLM judge could not compare the run's claims with the rest of the wiki: "
                f"{got.error}",
            )
        )
    if got.unjudged:
        cap = ctx.config.consistency.judge_max_tokens
        out.append(
            finding(
                "claim.consistency_unjudged",
                first.page,
                first.line,
                f"{got.unjudged} of {len(unsure)} pairs of claims were not sent to the LLM judge: "
                f"past [consistency] judge_max_tokens = {cap}",
                severity="minor",
                hint="raise [consistency] judge_max_tokens to judge them all",
            )
        )
    return out


def _claims(
    ctx: Context, cap: int, cut: list[Finding] | None = None
) -> tuple[list[PageClaim], list[PageClaim]]:
    """The claims to check (the run's new or changed ones; every claim in a whole-wiki
    verify) and the claims they are checked against; into ``cut``, a finding for each
    claim whose candidate pages were cut (_elsewhere)."""
    tip, base = ctx.tip, ctx.base
    pages = set(tip.pages)
    changed = [p for p in ctx.changed() if p in tip.entries and p in pages]
    if base is None:
        tip.load(tip.pages)
        everything, gaps = [], []
        for p in tip.pages:
            cited, gapped = page_claims(tip.page(p)), gap_claims(tip.page(p))
            past = history([*cited, *gapped])  # a gap-marked statement may be history too
            everything += [c for c in cited if c.id not in past]
            gaps += [g for g in gapped if g.id not in past]
        return everything + gaps, everything  # every page, as the links check reads them
    tip.load(changed)
    base.load([p for p in changed if p in base.entries])
    mine: list[PageClaim] = []
    pool: list[PageClaim] = []
    for path in changed:
        before = page_claims(base.page(path)) if path in base.entries else []
        old = {(c.sentence, c.source, c.quote) for c in before}
        # a disputed block's claims before its dated update are history when main had
        # them; a claim new in a block, every update and a block without one are compared
        now = page_claims(tip.page(path))
        was = history(now)
        for c in now:
            if c.id in was and (c.sentence, c.source, c.quote) in old:
                continue
            pool.append(c)
            if (c.sentence, c.source, c.quote) not in old:
                mine.append(c)
        # its new gap-marked statements, compared one way (review 36b: a gap marker in place
        # of a citation took a contradiction out of the check)
        had = {g.sentence for g in gap_claims(base.page(path))} if path in base.entries else set()
        mine += [g for g in gap_claims(tip.page(path)) if g.sentence not in had]
    if not mine:
        return [], []
    _FEATURES.clear()  # the memo holds this verification's claims (a server's next run:
    # its own; the last run's are in the cache's rows)
    # the pages elsewhere first: a key's first claims are theirs, not the run's own
    elsewhere = _elsewhere(tip, base, mine, set(changed), cap, cut)
    # the features of the run's own pages, which _pairs reads as it reads the candidates':
    # kept by their blobs (the next run's base), their unchanged claims' from the base's
    _pool_claims(tip, changed, base)
    return mine, elsewhere + pool


def _elsewhere(
    tip: WikiTree,
    base: WikiTree,
    mine: list[PageClaim],
    changed: set[str],
    cap: int,
    cut: list[Finding] | None = None,
) -> list[PageClaim]:
    """The claims of the pages (not changed by the run) whose claims share a claim's words:
    for each claim, the ``cap`` pages sharing most of them (its words of at most COMMON
    pages: the tree's TermIndex, derived from the base's); and, apart, for each kind of
    claim that may contradict it (_contrary: another year, another figure, a denial), the
    ``cap`` pages whose claims of that kind share most of them, so that no crowd of pages of
    another kind (which no rule can find contradicting it) takes their place. Ties at the
    cut are broken by a digest of the claim and the page (review 38a #6: by path, a crowd
    named to sort first chose which side of the cut a page fell on). Into ``cut``: a
    claim.consistency_cut finding for each claim with more pages of a kind that may
    contradict it (or, for a denial, of any kind) tied with the last of its ``cap`` than
    SCAN * ``cap`` (the pages past it are not compared)."""
    index = tip.term_index(TermIndex, base)
    plain = [keys_of(c.sentence) for c in mine]
    # (the claim, its keys, the kind of claim looked up: "" any, None any but not told)
    lookups: list[tuple[int, tuple[str, ...], str | None]] = [
        (n, ks, "" if DENIES in kinds_of(mine[n].sentence) else None) for n, ks in enumerate(plain)
    ]
    for n, ks in enumerate(plain):  # the pages of the kinds that may contradict it
        lookups += [(n, tuple(k + v for k in ks), v) for v in _contrary(mine[n].sentence)]
    numbers = {k: index.numbers_of(k) for k in {k for _, ks, _ in lookups for k in ks}}
    work = sum(len(numbers[k]) for _, ks, _ in lookups for k in ks)
    bounded = work > EXACT
    postings = {k: index.pages_of(k) for k in numbers} if bounded else {}  # by path
    limit = SCAN * cap
    wanted: set[str] = set()
    # a claim cut → the pages tied at its cut, those kept, those above the tie, their kind
    tied: dict[int, tuple[int, int, int, str]] = {}
    for at, mine_keys, told in lookups:  # as _pairs scores claims: bounded per claim
        common = sum(k in index.common for k in mine_keys)  # they may be shared: not known
        score: dict[str, int] = {}
        if not bounded:  # every page holding one of its keys: counted by number, in C
            counted: Counter[int] = Counter()
            for k in mine_keys:
                counted.update(numbers[k])
            for number, n in counted.items():
                path = index.pages[number]
                if path not in changed:
                    score[path] = n
        for k in sorted(mine_keys, key=lambda k: (len(numbers[k]), k)) if bounded else ():
            if len(score) >= limit:
                break
            for path in postings[k][:limit]:
                if path not in changed:
                    score[path] = score.get(path, 0) + 1
        # the best ``cap`` pages, and those tied with the last of them (up to SCAN * cap;
        # of a kind that may contradict it, up to TIE_PAGES: review 39a #7, a crowd of
        # pages the rules set aside, "opened its doors again in 1950", took the places):
        # a crowd of pages does not push out the page of the claim's own subject, which
        # _pairs ranks first (review 37b), whatever the crowd's pages are called; the
        # digest that orders a tie (_tie) read only for a tie past its room
        if len(score) > cap:
            last = heapq.nlargest(cap, score.values())[-1]
            best = [(path, n) for path, n in score.items() if n > last]
            ties = [path for path, n in score.items() if n == last]
            room = (limit if told is None else TIE_PAGES) - len(best)
            if len(ties) > room:
                if told is not None and last + common >= MIN_SHARED:
                    # a crowd past the bound: which of them is its subject?
                    cut_at = (len(ties), room, len(best), told)
                    tied[at] = max(tied.get(at, (0, 0, 0, "")), cut_at)
                said = mine[at].sentence
                ties = heapq.nsmallest(room, ties, key=lambda path: (_tie(said, path), path))
            best += [(path, last) for path in ties]
        else:
            best = list(score.items())
        wanted.update(path for path, n in best if n + common >= MIN_SHARED)
    if cut is not None:
        cut += [_cut(mine[at], *tie, cap) for at, tie in sorted(tied.items())]
    return _pool_claims(tip, sorted(wanted))


# what _pairs reads of a candidate, a pure function of its sentence: its words (_words),
# its _signature, its key set (_key_set), its events (_events of its words' stems) and
# what it gives a rule (kinds_of)
# (a row read back keeps the words, keys and events as the tuples it stored: made sets
# for ~4,000 claims of a 10-page run's pool, they were a tenth of its check)
Features = tuple[
    "Collection[str]", "Signature", "Collection[str]", "Collection[str]", tuple[str, ...]
]
# candidates' features kept in memory (by sentence): from _pool_claims to _pairs, for
# one check (_claims clears it); the features are the pool's, in memory anyway: the memo
# adds an entry each, up to FEATURES_KEPT (past it, _pairs reads a claim again: a pool of
# 5,000 claims was reached by a 10-page run on the 1k benchmark wiki, and then _pairs
# read every claim past it, 100 ms); a claim of more words than FEATURE_WORDS is not kept
FEATURES_KEPT = 200_000
FEATURE_WORDS = 48
_FEATURES: dict[str, Features] = {}


def _features(sentence: str) -> Features:
    text = _unmarked(sentence)
    words = _words_in(text)
    events = frozenset(map(_event_stem, words))  # _events(_stem(w) for w in words)
    kinds = kinds_of(sentence)
    return frozenset(words), _signature_in(text, words), _key_set(words), events, kinds


@functools.lru_cache(maxsize=2**16)
def _event_stem(word: str) -> str:
    stem = _stem(word)
    return _SAME_EVENT.get(stem, stem)


@functools.lru_cache(maxsize=1)
def _features_digest() -> str:
    """What a page's features row depends on besides its blob: this module, how claims
    are read from a parsed page (claims.py), the offline judge's words."""
    material = [_module_digest(), rules_digest()]
    material.append(hashlib.sha256(Path(page_claims.__code__.co_filename).read_bytes()).hexdigest())
    return hashlib.blake2b("/".join(material).encode(), digest_size=12).hexdigest()


def _pool_claims(tip: WikiTree, pages: list[str], base: WikiTree | None = None) -> list[PageClaim]:
    """The current claims (``current``) of ``pages``, in order: read from the verification
    cache's features rows (by page blob: the page's claims and their ``Features``, which
    go into the memo _pairs reads) or, for a page without one, parsed, and its row stored
    (issue 28: a run's candidates were read again in every verification). ``base``: the
    tree a run changed ``pages`` from: a page's features there are its unchanged
    sentences' (a run's own pages: most of their claims are the base's)."""
    digest = _features_digest()
    keys = {p: f"{tip.entries[p].oid}:{digest}" for p in pages if p in tip.entries}
    found: dict[str, tuple[list[PageClaim], list[Features]]] = {}
    for path, key in keys.items():
        kept = _ROWS.get(key)
        if kept is not None and kept[0] == path:
            _ROWS.move_to_end(key)
            found[path] = kept[1]
    rows = tip.cache.features([k for p, k in keys.items() if p not in found])
    for path, key in keys.items():
        data = rows.get(key)
        got = _decoded(data, path) if data is not None else None
        if got is not None:
            found[path] = got
            _keep(key, path, got)
    missing = [p for p in keys if p not in found]
    known = _base_features(base, missing, digest) if base is not None and missing else {}
    tip.load(missing)
    fresh: dict[str, bytes] = {}
    for path in missing:
        page = tip.page(path)
        claims = current(page_claims(page))
        features = [known.get(c.sentence) or _features(c.sentence) for c in claims]
        found[path] = claims, features
        if page is not None:  # an unreadable page: not kept (the limits may change)
            fresh[keys[path]] = _row(path, claims, features)
            _keep(keys[path], path, found[path])
    tip.cache.store_features(fresh)
    out: list[PageClaim] = []
    for path in pages:
        claims, features = found.get(path, ([], []))
        out += claims
        for c, f in zip(claims, features, strict=True):
            if len(_FEATURES) < FEATURES_KEPT and len(f[0]) <= FEATURE_WORDS:
                _FEATURES[c.sentence] = f
    return out


# pages' features rows as read (decoded), by key, kept in memory for the next check of a
# long-lived process (an MCP server: a run's candidates are much the last run's); at most
# ROWS_KEPT claims, the least recently read dropped first
ROWS_KEPT = 20_000
_ROWS: OrderedDict[str, tuple[str, tuple[list[PageClaim], list[Features]]]] = OrderedDict()
_ROWS_CLAIMS = [0]  # the claims _ROWS holds


def _keep(key: str, path: str, got: tuple[list[PageClaim], list[Features]]) -> None:
    old = _ROWS.pop(key, None)
    if old is not None:
        _ROWS_CLAIMS[0] -= len(old[1][0])
    if len(got[0]) > ROWS_KEPT:
        return
    _ROWS[key] = (path, got)
    _ROWS_CLAIMS[0] += len(got[0])
    while _ROWS_CLAIMS[0] > ROWS_KEPT:
        _, (_, dropped) = _ROWS.popitem(last=False)
        _ROWS_CLAIMS[0] -= len(dropped[0])


def _row(path: str, claims: list[PageClaim], features: list[Features]) -> bytes:
    """A page's features row (read back by _decoded): the sets as tuples (marshal writes a
    frozenset ~6x slower than a tuple, and reads it no faster)."""
    rows = [
        (tuple(w), (tuple(d), n, neg), tuple(k), tuple(e), g)
        for w, (d, n, neg), k, e, g in features
    ]
    return marshal.dumps((path, [tuple(c) for c in claims], rows))


def _base_features(base: WikiTree, pages: list[str], digest: str) -> dict[str, Features]:
    """The features of ``pages``' claims as the base's features rows have them, by
    sentence (a pure function of it: _features)."""
    keys = {p: f"{base.entries[p].oid}:{digest}" for p in pages if p in base.entries}
    rows = base.cache.features(list(keys.values()))
    out: dict[str, Features] = {}
    for path, key in keys.items():
        data = rows.get(key)
        got = _decoded(data, path) if data is not None else None
        if got is not None:
            out.update((c.sentence, f) for c, f in zip(*got, strict=True))
    return out


_page_claim = cast(Callable[[Any], PageClaim], functools.partial(tuple.__new__, PageClaim))


def _decoded(data: bytes, path: str) -> tuple[list[PageClaim], list[Features]] | None:
    """A features row read back, or None (another path's: the same blob elsewhere; or
    damaged)."""
    try:
        at, claims, rows = marshal.loads(data)
        if at != path or len(claims) != len(rows):
            return None
        f, none = frozenset, frozenset[str]()
        features: list[Features] = [
            (w, (f(d) if d else none, n, neg), k, e, g) for w, (d, n, neg), k, e, g in rows
        ]
        return [_page_claim(c) for c in claims], features
    except (EOFError, ValueError, TypeError):
        return None


def _cut(claim: PageClaim, ties: int, kept: int, above: int, kind: str, cap: int) -> Finding:
    said = {YEARS: "a year", FIGURES: "a figure", DENIES: "a denial"}.get(kind, "anything")
    more = f", after {above} sharing more" if above else ""
    return finding(
        "claim.consistency_cut",
        claim.page,
        claim.line,
        f"{ties} pages share this claim's words as much as the last of its {cap} candidate "
        f"pages, in claims giving {said} that may contradict it; only "
        f"{kept} of them were compared{more} (at most {TIE_PAGES} pages a claim in a "
        f"tie of such claims): a contradiction with one of the other {ties - kept} would not "
        f"be found",
        claim=claim.sentence,
        claim_line=claim.line,
    )


FEATURE_ROWS_AT_ONCE = 500  # pages' features rows written together (bounded memory)


def _keys_keeping_features(tree: WikiTree, pages: list[str]) -> dict[str, frozenset[str]]:
    """``_page_keys`` of each of ``pages`` (loaded), and each page's features row (as
    _pool_claims keeps it) stored when the cache has none: its claims' words read once for
    both."""
    digest = _features_digest()
    keys = {p: f"{tree.entries[p].oid}:{digest}" for p in pages}
    have = tree.cache.feature_keys(list(keys.values())) if tree.cache.conn is not None else None
    out: dict[str, frozenset[str]] = {}
    fresh: dict[str, bytes] = {}
    for path in pages:
        page = tree.page(path)
        claims = current(page_claims(page))
        if have is None or keys[path] in have or page is None:
            out[path] = _page_keys(tree, path)
            continue
        features = [_features(c.sentence) for c in claims]
        out[path] = _claims_keys(
            claims, [_keys(set(f[0])) for f in features], [f[4] for f in features]
        )
        fresh[keys[path]] = _row(path, claims, features)
        if len(fresh) >= FEATURE_ROWS_AT_ONCE:
            tree.cache.store_features(fresh)
            fresh = {}
    tree.cache.store_features(fresh)
    return out


def _page_keys(tree: WikiTree, path: str) -> frozenset[str]:
    """The keys of a page's claims (history aside: ``history``): what TermIndex holds of
    it; a claim that may disagree with another also under ``key!y`` (it gives a year),
    ``key!q`` (another figure) and ``key!-`` (it denies), as it does (kinds_of)."""
    claims = current(page_claims(tree.page(path)))
    return _claims_keys(claims, [keys_of(c.sentence) for c in claims])


def _claims_keys(
    claims: list[PageClaim],
    keys: list[tuple[str, ...]],
    kinds: list[tuple[str, ...]] | None = None,
) -> frozenset[str]:
    """_page_keys of ``claims``, each claim's keys (keys_of) given, and its kinds_of when
    known (a features row's)."""
    out: set[str] = set()
    for n, (c, ks) in enumerate(zip(claims, keys, strict=True)):
        out.update(ks)
        for v in kinds[n] if kinds is not None else kinds_of(c.sentence):
            out.update(k + v for k in ks)
    return frozenset(out)


# a key's variants: the pages whose claims holding it give a year, another figure (number
# words count as both: "eighteen ninety-six"), or deny
YEARS, FIGURES, DENIES = "!y", "!q", "!-"
_ANY_DIGIT = re.compile(r"\d")


def kinds_of(sentence: str) -> tuple[str, ...]:
    """What a claim gives that a rule may find contradicting another claim (cheap: no full
    reading): a year (YEARS), another figure (FIGURES), a denial (DENIES)."""
    text = fold(CONFLICT.sub(" ", _said(sentence)))
    words = _words(text)
    spelled = not words.isdisjoint(_NUMBER_WORDS) or not words.isdisjoint(_FRACTIONS)
    digits = [d.replace(",", "") for d in _DIGITS.findall(text)] if _ANY_DIGIT.search(text) else []
    out: list[str] = []
    if spelled or any(_YEAR.fullmatch(d) for d in digits):
        out.append(YEARS)
    if spelled or any(not _YEAR.fullmatch(d) for d in digits):
        out.append(FIGURES)
    if not words.isdisjoint(NEGATIONS) or _CONTRACTED_NOT.search(text):
        out.append(DENIES)
    return tuple(out)


_FRACTIONS = frozenset(
    ["half", "halves", "third", "thirds", "quarter", "quarters", "fifth", "fifths"]
)
_CONTRACTED_NOT = re.compile(r"n['\u2019]t\b", re.I)  # "isn't", "won't": a denial as read


def decidable(sentence: str) -> bool:
    """The claim has a number or a negation (cheap: no full reading): a rule may find it
    contradicts another."""
    return bool(kinds_of(sentence))


def _contrary(sentence: str) -> tuple[str, ...]:
    """The kinds of claim that may contradict it: another year, another figure, and a
    denial of what it says (a denial's own contrary, the claim it denies, is any claim)."""
    kinds = kinds_of(sentence)
    return tuple(k for k in (YEARS, FIGURES) if k in kinds) + (() if DENIES in kinds else (DENIES,))


def _tie(claim: str, other: str) -> int:
    """The order within a tie at a candidate cap: a digest of the claim and the candidate
    (a page's path, or a claim's page and sentence), not a name order a writer chooses."""
    return zlib.crc32(f"{claim}\0{other}".encode())


Signature = tuple[frozenset[str], bool, bool]  # _signature


def _signature(sentence: str, words: set[str]) -> Signature:
    """A claim's digits, whether it has number words, whether it denies (cheap; ``words``:
    its _words)."""
    return _signature_in(_unmarked(sentence), words)


def _signature_in(text: str, words: set[str]) -> Signature:
    """_signature of a claim's _unmarked text."""
    found = _DIGITS.findall(text)
    digits = frozenset([d.replace(",", "") for d in found]) if found else frozenset()
    return digits, not words.isdisjoint(_NUMBER_WORDS), not words.isdisjoint(NEGATIONS)


_NUMBER_WORDS = frozenset(NUMBER_WORDS)


@functools.lru_cache(maxsize=2**12)
def _figures(digits: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    """A signature's digits: its years, its other figures."""
    years = frozenset(d for d in digits if _YEAR.fullmatch(d))
    return years, digits - years


def _same_kind(a: Signature, b: Signature) -> bool:
    """Whether a claim of signature ``b`` may contradict one of ``a`` by what ``a`` gives:
    another year for a year, another figure for a figure (number words may be either),
    the opposite polarity (kinds_of)."""
    if a[2] != b[2]:
        return True
    ya, qa = _figures(a[0])
    yb, qb = _figures(b[0])
    spelled = a[1] or b[1]
    if (ya or a[1]) and (yb or b[1]) and (ya != yb or spelled):
        return True
    return bool((qa or a[1]) and (qb or b[1]) and (qa != qb or spelled))


def _aligned(a: Signature, b: Signature) -> bool:
    """A claim of signature ``b`` gives another figure than ``a`` for a year ``a`` gives:
    the likeliest contradiction of a figure of a year ("scored 71 goals in 1932" against
    one season page of a hundred, "scored 31 goals in 1932": review 41b H1, ranked with the
    other 99 by words alone, it was cut)."""
    ya, qa = _figures(a[0])
    if not ya or not qa:
        return False
    yb, qb = _figures(b[0])
    return bool(qb) and not ya.isdisjoint(yb) and qa != qb


def _may_disagree(
    a: tuple[frozenset[str], bool, bool], b: tuple[frozenset[str], bool, bool]
) -> bool:
    """Whether a claim of signature ``b`` may contradict one of ``a`` (else it is harmless
    to it: no number but ``a``'s, no denial ``a`` lacks or the other way round)."""
    if a[2] != b[2]:
        return True
    return bool(b[0] or b[1]) and (b[1] or a[1] or b[0] != a[0])


@final
class TermIndex:
    """A tree's claims by their words: each key (keys_of) of at most COMMON pages → the
    pages whose claims hold it; the keys of more pages, with their page counts. A pure
    function of the tree's pages (WikiTree.term_index keeps it in the verification cache by
    tree id, and derives a run's from its base's): bounded by the claims' keys, at most
    KEYS a claim, whatever the pages say. Stored compactly: the pages once (``pages``: a
    number → its path, "" for a page removed since), each key's pages as their numbers."""

    name: ClassVar[str] = (
        "terms-"
        + hashlib.blake2b(
            json.dumps(
                [
                    6,  # 6: content words of three letters are keys (review 39a #2)
                    UPDATE.pattern,
                    YEARS,
                    FIGURES,
                    DENIES,
                    _YEAR.pattern,
                    sorted(_FRACTIONS),
                    _CONTRACTED_NOT.pattern,
                    CONFLICT.pattern,
                    CLAIM_CHARS,
                    KEYS,
                    COMMON,
                    sorted(STOPWORDS),
                    sorted(NEGATIONS),
                    sorted(NUMBER_WORDS),
                    sorted(_SHORT_STOP),
                ]
            ).encode(),
            digest_size=8,
        ).hexdigest()
    )

    def __init__(self, pages: list[str], postings: dict[str, bytes], common: dict[str, int]):
        self.pages = pages
        self.postings = postings  # key → array("I") of page numbers, as bytes
        self.common = common
        # derived: what changed from the base's (``delta``): pages by number, keys
        self._changed: tuple[dict[int, str], set[str]] | None = None

    def pages_of(self, key: str) -> list[str]:
        """The pages whose claims hold ``key``, sorted; none for a common key."""
        data = self.postings.get(key)
        if not data:
            return []
        try:
            return sorted(self.pages[n] for n in _numbers(data))
        except IndexError:
            raise ValueError("a damaged term index in the verification cache") from None

    def numbers_of(self, key: str) -> array.array[int]:
        """The numbers (in ``pages``) of the pages whose claims hold ``key``, unsorted."""
        data = self.postings.get(key)
        found = _numbers(data) if data else array.array("I")
        if found and max(found) >= len(self.pages):
            raise ValueError("a damaged term index in the verification cache")
        return found

    @classmethod
    def of(cls, keys: dict[str, frozenset[str]]) -> TermIndex:
        pages = sorted(keys)
        lists: dict[str, list[int]] = {}
        for n, path in enumerate(pages):
            for k in keys[path]:
                lists.setdefault(k, []).append(n)
        common = {k: len(ns) for k, ns in lists.items() if len(ns) > COMMON}
        postings = {k: _packed(ns) for k, ns in lists.items() if len(ns) <= COMMON}
        return cls(pages, postings, common)

    @classmethod
    def build(cls, tree: WikiTree) -> TermIndex:
        """From every page's claims; their features rows kept on the way (what a run's
        check reads of its candidates: a fresh clone's first build, then every run's
        candidates read rows, not the pages: issue 30's 10-page check on the 10k wiki
        derived ~4,000 candidates' features in each run)."""
        tree.load(tree.pages)
        return cls.of(_keys_keeping_features(tree, tree.pages))

    @classmethod
    def derive(cls, base: TermIndex, base_tree: WikiTree, tree: WikiTree) -> TermIndex | None:
        """``tree``'s from ``base``'s (``base_tree``'s), reading only the pages that differ;
        None (build it) when a common key would be listed again (its pages are not
        known), or when most page numbers are of removed pages."""
        old_pages, new_pages = set(base_tree.pages), set(tree.pages)
        changed = [p for p in tree.changed_since(base_tree) if p in old_pages or p in new_pages]
        base_tree.load([p for p in changed if p in old_pages])
        tree.load([p for p in changed if p in new_pages])
        pages, postings, common = list(base.pages), dict(base.postings), dict(base.common)
        wanted = set(changed)
        number = {p: n for n, p in enumerate(pages) if p in wanted}  # the changed pages'
        renumbered: dict[int, str] = {}
        touched: set[str] = set()
        for path in changed:
            old = _page_keys(base_tree, path) if path in old_pages else frozenset()
            new = _page_keys(tree, path) if path in new_pages else frozenset()
            n = number.get(path)
            if n is None:
                if not new:
                    continue
                n = number[path] = len(pages)
                pages.append(path)
                renumbered[n] = path
            if path not in new_pages:
                pages[n] = renumbered[n] = ""
            touched |= old ^ new
            for k in old - new:
                if k in common:
                    common[k] -= 1
                    if common[k] <= COMMON:
                        return None
                    continue
                rest = [m for m in _numbers(postings.get(k, b"")) if m != n]
                if rest:
                    postings[k] = _packed(rest)
                else:
                    postings.pop(k, None)
            for k in new - old:
                if k in common:
                    common[k] += 1
                    continue
                hits = [*_numbers(postings.get(k, b"")), n]
                if len(hits) > COMMON:
                    postings.pop(k, None)
                    common[k] = len(hits)
                else:
                    postings[k] = _packed(hits)
        if pages.count("") * 2 > len(pages):
            return None
        derived = cls(pages, postings, common)
        derived._changed = renumbered, touched
        return derived

    def dumps(self) -> bytes:
        return marshal.dumps((self.name, self.pages, self.postings, self.common))

    def delta(self) -> bytes:
        """A derived index's changes from its base's: the page numbers given a path (or
        ""), and each key changed, its pages (or None) and its count if common (or None)."""
        if self._changed is None:
            raise ValueError("not a derived index")
        renumbered, touched = self._changed
        keys = {k: (self.postings.get(k), self.common.get(k)) for k in sorted(touched)}
        return marshal.dumps((self.name, len(self.pages), renumbered, keys))

    def apply(self, delta: bytes) -> None:
        """Make this index (a base's, just loaded) the one ``delta`` was taken from."""
        name, size, renumbered, keys = marshal.loads(delta)
        if name != self.name or not isinstance(renumbered, dict) or not isinstance(keys, dict):
            raise ValueError("not a term index delta")
        pages, postings, common = self.pages, self.postings, self.common
        for n in sorted(renumbered):
            if n == len(pages):
                pages.append(renumbered[n])
            elif n < len(pages):
                pages[n] = renumbered[n]
            else:
                raise ValueError("a damaged term index delta")
        if len(pages) != size:
            raise ValueError("a damaged term index delta")
        for k, (listed, counted) in keys.items():
            if listed is None:
                postings.pop(k, None)
            else:
                postings[k] = listed
            if counted is None:
                common.pop(k, None)
            else:
                common[k] = counted

    @classmethod
    def loads(cls, data: bytes) -> TermIndex:
        name, pages, postings, common = marshal.loads(data)
        if (
            name != cls.name
            or not isinstance(pages, list)
            or not isinstance(postings, dict)
            or not isinstance(common, dict)
        ):
            raise ValueError("not a term index")
        return cls(pages, postings, common)


def _packed(numbers: list[int]) -> bytes:
    return array.array("I", numbers).tobytes()


def _numbers(data: bytes) -> array.array[int]:
    out = array.array("I")
    out.frombytes(data)
    return out


_SHARED = operator.itemgetter(1)
# words that are no keys and set a claim apart from one without them (_again, _new_one):
# ranked as a candidate's own words (_pairs)
_MARKS = frozenset({"again", "anew", "new", "re"})
PLAIN: Signature = (frozenset(), False, False)  # a claim with no number and no negation


def _best(
    ranked: list[tuple[bool, bool, bool, bool, int, int, int]],
    cap: int,
    sentence: str,
    pool: list[PageClaim],
) -> list[tuple[bool, bool, bool, bool, int, int, int, int]]:
    """The first ``cap`` of ``ranked`` (each its group, its keys of its own, its index in
    ``pool``) as _tie orders a tie: the digest read only for those tied at the cut (a
    crowd of thousands tied in one group: one digest each was ~4 ms a claim)."""

    def tie(i: int) -> int:
        return _tie(sentence, f"{pool[i].page}\0{pool[i].sentence}")

    first = heapq.nsmallest(cap, ranked)
    if len(ranked) > cap:
        cut = first[-1][:-1]
        kept = [x for x in first if x[:-1] < cut]
        tied = [x for x in ranked if x[:-1] == cut]
        if len(tied) > cap - len(kept):
            tied.sort(key=lambda x: (tie(x[-1]), x[-1]))
        first = kept + tied[: cap - len(kept)]
    return sorted((*x[:-1], tie(x[-1]), x[-1]) for x in first)


def _pairs(
    mine: list[Read],
    pool: list[PageClaim],
    cap: int,
    *,
    bounded: bool | None = None,
    decisive: bool = False,
) -> list[tuple[Read, PageClaim]]:
    """Each claim of ``mine`` with its candidates in ``pool`` (on its own page too, itself
    aside): the claims that may disagree with it (a number other than its own, the opposite
    negation) before the others, then those sharing most of its keys, the rarest keys
    scanned first (until SCAN * ``cap`` claims are scored; the claims with a number or a
    negation scanned before the others), at most ``cap``. A key indexes at most ``cap``
    claims of one page (a page of many claims on one subject does not crowd out the
    others); a crowd of claims that cannot disagree with it (the same numbers, none, the
    same polarity) never takes the place of one that may. ``decisive``: only the pairs a
    rule may decide (no LLM judge reads the others): a claim that does not deny is given
    no candidate that gives no year, figure or denial (kinds_of), which no rule finds
    contradicting it (perf28: the ~4,000 plain candidates of a 10-page run, ranked for
    nothing)."""
    index: dict[str, list[int]] = {}  # of the keys of ``mine``: the only ones looked up
    later: dict[str, list[int]] = {}  # the same, claims with no number and no negation
    live: dict[str, list[int]] = {}  # those of ``later`` that give a rule something
    wanted = {k for a in mine for k in a.keys}
    per_page: Counter[tuple[str, str]] = Counter()
    # what the ranking reads of a candidate, read once here (each pool claim's text is
    # read once, whatever the claims of ``mine`` it is scored for: review of issue 30's
    # cost): its signature, its keys, and its words for its events (only for a dated claim)
    # (the candidates of _pool_claims: their features read from the cache, _FEATURES)
    signature: dict[int, Signature] = {}
    own: dict[int, Collection[str]] = {}  # its keys, each once
    said: dict[int, set[str]] = {}
    events: dict[int, Collection[str]] = {}  # a candidate's events (_events), once
    marked: dict[int, frozenset[str]] = {}  # a candidate's _MARKS
    dated = any(a.dated for a in mine)
    for i, c in enumerate(pool):
        known = _FEATURES.get(c.sentence)
        if known is not None:
            held, sig, keys, found, kinds = known
            hits = wanted.intersection(keys)
            if not hits:
                continue  # none of its keys is wanted
            signature[i], own[i] = sig, keys
            if dated:
                events[i] = found
            if not _MARKS.isdisjoint(held):
                marked[i] = _MARKS.intersection(held)
        else:
            text = _unmarked(c.sentence)
            words = _words_in(text)
            if words.isdisjoint(wanted):
                continue  # none of its keys is wanted
            sig = signature[i] = _signature_in(text, words)
            keys = own[i] = _key_set(words)
            hits = wanted.intersection(keys)
            if dated:
                said[i] = words
            kinds = kinds_of(c.sentence) if decisive and not (sig[0] or sig[1] or sig[2]) else ()
            if not _MARKS.isdisjoint(words):
                marked[i] = _MARKS.intersection(words)
        into = index if (sig[0] or sig[1] or sig[2]) else later
        alive = decisive and into is later and bool(kinds)
        for k in hits:
            n = per_page[(k, c.page)]
            if n < cap:
                per_page[(k, c.page)] = n + 1
                into.setdefault(k, []).append(i)
                if alive:
                    live.setdefault(k, []).append(i)
    out: list[tuple[Read, PageClaim]] = []
    if bounded is None:  # a derived pass scores as the full pass it stands for (_rederive)
        bounded = len(mine) * len(pool) > EXACT
    limit = SCAN * cap if bounded else len(pool)
    mine_ids = {id(a.claim) for a in mine}
    at: dict[int, list[int]] = {}  # a claim of ``mine`` → where it is in ``pool``
    for i, c in enumerate(pool):
        if id(c) in mine_ids:
            at.setdefault(id(c), []).append(i)
    for a in mine:
        # the candidates scored (keys shared), those with a number or a negation apart
        scores: tuple[Counter[int], Counter[int]] = (Counter(), Counter())
        itself = at.get(id(a.claim), [])  # not its own candidate; its page's other claims are
        size = {k: len(index.get(k, ())) + len(later.get(k, ())) for k in a.keys}
        # a claim that does not deny, when only a rule decides: no candidate that gives
        # a rule nothing (no year, figure or denial: not in ``live``)
        plain = later if not decisive or DENIES in kinds_of(a.claim.sentence) else live
        for postings, score in zip((index, plain), scores, strict=True):
            for k in sorted(a.keys, key=lambda k: (size[k], k)):
                if bounded and len(scores[0]) + len(scores[1]) >= limit:
                    break  # enough candidates from its rarer words: the common ones add noise
                score.update(postings.get(k, ())[:limit])
                for i in itself:
                    score.pop(i, None)
        text = _unmarked(a.claim.sentence)
        mine_words = _words_in(text)
        mine_sig = _signature_in(text, mine_words)
        mine_keys = frozenset(a.keys)
        other: dict[int, bool] = {}  # not saying its dated word
        if a.dated:
            for i in (*scores[0], *scores[1]):
                stems = events.get(i)
                if stems is None:
                    stems = events[i] = _events(_stem(w) for w in said[i])
                other[i] = a.dated.isdisjoint(stems)
        # those that may disagree, those of a kind it gives first (another year for a
        # year, another figure for a figure, the opposite polarity: review 38a #6); then
        # those saying its dated word ("lit" in "first lit in
        # 1878"); then most keys shared, fewest of their own ("the Harbour Lighthouse keeper
        # … paid" ×25 is another thing and never spends the cap before "the Harbour
        # Lighthouse was first lit": review 37b); then a digest of the claim and the
        # candidate (_tie: not the order of the pages' names), its index last. The
        # candidates by the first three (known without reading them again), and the fewest
        # keys of their own counted only for the first groups, up to ``cap`` of them
        groups: dict[tuple[bool, bool, bool, bool, int], list[int]] = {}
        for i, shared in scores[0].items():
            sig = signature[i]
            group = (
                not _may_disagree(mine_sig, sig),
                not _same_kind(mine_sig, sig),
                not _aligned(mine_sig, sig),
                other.get(i, False),
                -shared,
            )
            groups.setdefault(group, []).append(i)
        # a candidate with no number and no negation: its first two are known without a
        # call each; an undated claim's groups of them are by keys shared, most first, and
        # only the first ``cap`` of them are read (perf28: a pool of ~4,000 such claims)
        head = (not _may_disagree(mine_sig, PLAIN), not _same_kind(mine_sig, PLAIN), True)
        if a.dated:
            for i, shared in scores[1].items():
                groups.setdefault((*head, other[i], -shared), []).append(i)
        else:
            taken, last = 0, 0
            for i, shared in sorted(scores[1].items(), key=_SHARED, reverse=True):
                if taken >= cap and shared != last:
                    break  # the groups after it rank after these
                groups.setdefault((*head, False, -shared), []).append(i)
                taken, last = taken + 1, shared
        # a mark the claim lacks ("again", "new") counts as a word of the candidate's own:
        # "The museum opened its doors again in 1950" ×100 ranked with "The museum opened
        # its doors in 1896" and took the places (review 39a #7)
        mine_marks = _MARKS & mine_words
        ranked: list[tuple[bool, bool, bool, bool, int, int, int]] = []
        for group in sorted(groups):
            ranked += [
                (
                    *group,
                    len(own[i])
                    - len(mine_keys.intersection(own[i]))
                    + len(marked.get(i, mine_marks) - mine_marks),
                    i,
                )
                for i in groups[group]
            ]
            if len(ranked) >= cap:
                break  # the groups after it all rank after these
        best = _best(ranked, cap, a.claim.sentence, pool)
        out += [(a, pool[x[-1]]) for x in best]
    return out


def _finding(
    a: Read,
    b: Read,
    kind: str,
    cites: dict[tuple[str, str], set[str]],
    reason: str = "",
    *,
    whole: bool = False,
) -> Finding | None:
    ca, cb = a.claim, b.claim
    if kind == POSSIBLE:
        return _possible(a, b, cites)
    what = {
        "number": "a different number",
        "date": "a different date",
        "negation": "the opposite",
        "judge": "something else",
    }[kind]
    message = (
        f"{ca.page}:{ca.line} ({ca.id}, citing {ca.source}) says {what} of the same subject "
        f"as {cb.page}:{cb.line} ({cb.id}, citing {cb.source}): “{_excerpt(claimed(ca))}” "
        f"against “{_excerpt(claimed(cb))}”"
    )
    if reason:
        message += f"; the LLM judge: {_excerpt(reason, 300)}"
    if _cites_both(a, b, cites):
        return None  # the claim cites both sources and gives both figures: stated
    if (
        kind != "judge"
        and ca.source != cb.source
        and (
            (_backed(a, b, kind) and _backed(b, a, kind, piece=True))
            # a whole wiki's pair has no new side: either may be the one its writer chose
            # (review 37c #3: the gate's verdict, graded from the old claim's side, was
            # the writer's error in `verify --all` and `health`)
            or (whole and _backed(b, a, kind) and _backed(a, b, kind, piece=True))
        )
    ):
        # [conflict: raw/…]: stated too, but only of the other claim's source (review 37b:
        # a marker naming any file under raw/ took its claim out of every comparison)
        if (a.marked and _states(ca.sentence, b)) or (b.marked and _states(cb.sentence, a)):
            return None
        note = _marker_note(a, b)
        return finding(
            "claim.source_conflict",
            ca.page,
            ca.line,
            f"the sources disagree: {ca.source} and {cb.source} each say what its claim says"
            f"{note}; " + message,
            claim=claimed(ca),
            claim_line=ca.line,
            hint=_conflict_hint(a, b, kind),
            **_sides(ca, cb),
        )
    if (
        kind not in ("judge", POSSIBLE)
        and not whole
        and ca.source == cb.source
        and _backed(a, b, kind)
        and _backed(b, a, kind, piece=True)
    ):
        # one source, two quotes that disagree: the new claim's quote verified in this run,
        # so the other's no longer does (its source changed: stale), unless the source says
        # both (review 38a #7: the writer citing the corrected source was told to correct
        # their own claim)
        message += _one_source(ca, cb, None)
    return finding(
        "claim.contradiction",
        ca.page,
        ca.line,
        message,
        claim=claimed(ca),
        claim_line=ca.line,
        **_sides(ca, cb),
    )


class _Sides(TypedDict):
    source: str | None
    other: OtherClaim


def _sides(ca: PageClaim, cb: PageClaim) -> _Sides:
    """A contradiction's two sides as its finding's fields (trial 40 #6: the other claim
    was only in the message): the claim's own source, and the other claim."""
    other = OtherClaim(
        page=cb.page, line=cb.line, claim_id=cb.id, claim=claimed(cb), source=cb.source
    )
    return {"source": ca.source or None, "other": other}


def writers_side(
    found: list[tuple[PageClaim, PageClaim, Finding]], mine: list[PageClaim]
) -> list[tuple[PageClaim, PageClaim, Finding]]:
    """A run's contradictions between two of its own claims, each on the side of the
    writer's error: when the claim it sits on says what its quote says and the other's
    quote does not give the other's figure (or denial), the finding is made from that
    other claim's side, so that it and its next step name the claim to correct (trial 40
    #8: it sat on whichever side was compared first, often the correct one)."""
    new = {c.id for c in mine}
    out: list[tuple[PageClaim, PageClaim, Finding]] = []
    for a, b, f in found:
        if f.code == "claim.contradiction" and b.id in new and GAP not in (a.source, b.source):
            ra, rb = _read_of(a), _read_of(b)
            kind = disagreement(rb, ra)
            if (
                kind in ("number", "date", "negation")
                and _backed(ra, rb, kind)
                and not _backed(rb, ra, kind)
            ):
                g = _finding(rb, ra, kind, {})
                if g is not None and g.code == "claim.contradiction":
                    out.append((b, a, g))
                    continue
        out.append((a, b, f))
    return out


def _marker_note(a: Read, b: Read) -> str:
    """What is wrong with the pair's ``[conflict: …]`` markers that state nothing: one names
    the other claim's source with another figure than that claim's (trial 40 #10: that was
    told as naming another source), or names other sources only; '' without a marker."""
    parts: list[str] = []
    for x, y in ((a, b), (b, a)):
        said = _said_by(x.claim.sentence) if x.marked else {}
        if not said:
            continue
        figures = said.get(y.claim.source)
        if figures:
            given = ", ".join(sorted(figures))
            its = ", ".join(sorted(y.numbers)) or "another figure"
            parts.append(
                f"the [conflict: …] marker of {x.claim.id} gives {given} for "
                f"{y.claim.source}, which says {its} ({y.claim.id}): correct the figure"
            )
        else:
            parts.append(
                f"a [conflict: …] marker names {', '.join(sorted(said))}, not the other "
                f"claim's source with its figure"
            )
    return f" ({'; '.join(parts)})" if parts else ""


def _cites_both(a: Read, b: Read, cites: Cites) -> bool:
    """One claim's sentence cites both claims' sources and states their conflict: it gives
    the other claim's figure too ("The pier opened in 1894 or in 1899.[^1][^2]"), or the
    other has none. A sentence of one figure citing a source of another states nothing
    (trial 40 #2: "The pier opened in 1899.[^1][^2]" passed as a stated conflict)."""
    for x, y in ((a, b), (b, a)):
        said = cites.get((x.claim.page, x.claim.sentence), set())
        stated = not y.numbers or not x.numbers.isdisjoint(y.numbers)
        if len(said) > 1 and y.claim.source in said and stated:
            return True
    return False


def _one_source(ca: PageClaim, cb: PageClaim, in_source: bool | None) -> str:
    """What a contradiction of two claims quoting one source says of it: ``in_source``,
    whether ``cb``'s quote is still in the source (None: not read)."""
    if in_source is None:
        return (
            f"; both quote {ca.source}, and their quotes disagree: if {cb.page}:{cb.line}'s "
            f"quote no longer verifies, that claim is stale (its source changed since it was "
            f"written: `wikigate claims --state stale`), and the fix is to update it"
        )
    if not in_source:
        return (
            f"; both quote {ca.source}, and {cb.page}:{cb.line}'s quote is no longer in it: "
            f"that claim is stale (its source changed since it was written: `wikigate claims "
            f"--state stale`), not this claim's error: update it too"
        )
    return (
        f"; both quote {ca.source}, and it says both (each quote is in it): the claims hold "
        f"for other times or things than these rules tell apart, or the source disagrees "
        f"with itself"
    )


def _stale_sentence(cb: PageClaim, stale: PageClaim) -> str:
    """What a contradiction says of the other side's sentence citing two sources, one of
    them this claim's, whose quote there is no longer in it (``stale``)."""
    return (
        f"; {cb.page}:{cb.line}'s sentence cites {stale.source} too ([^{stale.label}]), and "
        f"that quote is no longer in it: the sentence is stale (its source changed since it "
        f"was written: `wikigate claims --state stale`), not this claim's error: update it too"
    )


def _update_too(stale: PageClaim) -> str:
    """The hint of a contradiction whose other side is stale (trial 41: "correct the claim
    that its source does not support" sent the writer of a correct update to undo it)."""
    return (
        f"update the stale claim {stale.id} ({stale.page}:{stale.line}) too, to what "
        f"{stale.source} now says (quoting it), or keep it in a `::: disputed` block as "
        f"history; this claim says what its source says"
    )


SAYS_BOTH = (
    "say in each claim what sets it apart (the time, place or thing it holds for), or, if "
    "the source disagrees with itself, say so on the page"
)


def one_source_read(tip: WikiTree, found: list[tuple[PageClaim, PageClaim, Finding]]) -> None:
    """A run's contradictions of two claims quoting one source, told whether the other
    claim's quote is still in that source at ``tip`` (review 39a #3: "that claim is stale"
    was said of a claim whose quote verified, the source saying both): read only for such
    findings, each source once, a quote not at its anchor searched for at most
    ONE_SOURCE_SCANS times a source (past that: not told, as before). So is the other
    side's sentence when it cites two sources, one of them the claim's (``_sentence_side``).
    A contradiction whose other side is stale (its quote is no longer in its source) is
    claim.stale_other (minor), its hint to update that claim too (trial 41: a correct update of one stale copy
    was blocked by another copy, and told to correct itself); the stale claim is
    citation.stale's, and a claim the run wrote quoting what its source does not say is
    citation.quote_not_found's."""
    by_source: dict[tuple[str, int | None], list[tuple[int, PageClaim]]] = {}
    sides: dict[int, list[PageClaim]] = {}
    for n, (a, b, f) in enumerate(found):
        if f.code == "claim.source_conflict" and b.source != GAP:
            # what the other source "says" is a claim of it that may be stale (trial 41b:
            # the hint asked for a marker naming a stale copy's figure, and the true one
            # was refused)
            by_source.setdefault((b.source, b.pdf_page), []).append((n, b))
            continue
        if f.code != "claim.contradiction":
            continue
        if a.source == b.source and _one_source(a, b, None) in f.message:
            by_source.setdefault((b.source, b.pdf_page), []).append((n, b))
            continue
        side = _sentence_side(tip, a, b)
        if side:
            sides[n] = side
            for c in side:
                by_source.setdefault((c.source, c.pdf_page), []).append((n, c))
    told: dict[tuple[int, str], bool | None] = {}
    for (source, pdf_page), items in by_source.items():
        there = _quotes_in(tip, source, pdf_page, [c for _, c in items])
        told.update(((n, c.id), t) for (n, c), t in zip(items, there, strict=True))
    for n, (a, b, f) in enumerate(found):
        update: dict[str, Any]
        if f.code == "claim.source_conflict":
            if told.get((n, b.id)) is not False:
                continue
            message = (
                f.message + f"; {b.page}:{b.line}'s quote is no longer in {b.source}: that "
                f"claim is stale (its source changed since it was written: `wikigate claims "
                f"--state stale`), not what {b.source} says now: update it too"
            )
            update = {"message": message, "hint": _update_too(b), "code": STALE_OTHER}
        elif n in sides:
            stale = next((c for c in sides[n] if told.get((n, c.id)) is False), None)
            if stale is None:
                continue
            message = f.message + _stale_sentence(b, stale)
            update = {"message": message, "hint": _update_too(stale), "code": STALE_OTHER}
        elif told.get((n, b.id)) is not None:
            here = bool(told[(n, b.id)])
            note = _one_source(a, b, here)
            update = {"message": f.message.replace(_one_source(a, b, None), note)}
            if here:
                update["hint"] = SAYS_BOTH
            else:
                update.update(hint=_update_too(b), code=STALE_OTHER)
        else:
            continue
        if "code" in update:  # another code: a finding of its own (its severity, signature)
            update["severity"] = CODES[STALE_OTHER].severity
            found[n] = (a, b, Finding.model_validate({**f.model_dump(), **update}))
        else:
            found[n] = (a, b, f.model_copy(update=update))


STALE_OTHER = "claim.stale_other"  # a contradiction whose other side is stale (trial 41)


def _sentence_side(tip: WikiTree, a: PageClaim, b: PageClaim) -> list[PageClaim]:
    """The claims of ``b``'s sentence that cite ``a``'s source, when that sentence cites two
    sources or more (``The pier opened in 1894 or in 1899.[^1][^2]``) and ``a`` says what
    its quote says of what they disagree on: the ones whose quote, once no longer in that
    source, make the sentence stale (trial 41: the update met such a sentence was called
    the writer's error twice, once for each footnote, with no word of the stale one)."""
    ra, rb = _read_of(a), _read_of(b)
    kind = disagreement(ra, rb)
    if kind not in ("number", "date", "negation") or not _backed(ra, rb, kind):
        return []
    same = [
        c for c in page_claims(tip.page(b.page)) if (c.line, c.sentence) == (b.line, b.sentence)
    ]
    if len({c.source for c in same}) < 2:
        return []
    return [c for c in same if c.source == a.source]


ONE_SOURCE_SCANS = 8


def _quotes_in(
    tip: WikiTree, source: str, pdf_page: int | None, claims: list[PageClaim]
) -> list[bool | None]:
    """Whether each claim's quote is in the source at ``tip`` (as the citation check places
    it: at its anchor, elsewhere, or in a markup source's text view); None when that cannot
    be told (no such source, no text, a near miss only, the scans spent)."""
    if source not in tip.entries:
        return [None] * len(claims)
    quotes = [(c.offset, c.quote) for c in claims]
    try:  # the citation check reads it as this does (a PDF's page, a markup's text view)
        ((error, located),) = tip.locate([(source, pdf_page, quotes)], ONE_SOURCE_SCANS)
    except TreeLimitError:
        return [None] * len(claims)
    if error is not None:
        return [None] * len(claims)
    out: list[bool | None] = []
    for where in located:
        if where is None or where.offset >= 0:
            out.append(True)
        elif where.offset == NOWHERE and where.near is None:
            out.append(False)
        else:
            out.append(None)
    return out


# the findings about a claim of a run's page (claim_line set): their claim_start_line too
_ON_CLAIM = frozenset(
    (
        "claim.contradiction",
        "claim.source_conflict",
        "claim.possible_contradiction",
        "claim.consistency_cut",
    )
)


def _started(ctx: Context, found: list[Finding]) -> list[Finding]:
    """``found``, each finding about a claim given the line its claim's sentence starts on
    (``claim_start_line``, as citation findings have it: trial 28b N6), read from its
    page's references on the claim's line; by the claim's text when claims of several
    start lines end there, else left None. Only the pages holding such findings are read."""
    todo = {id(f) for f in found if f.code in _ON_CLAIM and f.path and f.claim_line is not None}
    if not todo:
        return found
    pages = sorted({str(f.path) for f in found if id(f) in todo})
    ctx.tip.load(pages)
    ends: dict[tuple[str, int], list[tuple[str, str, int]]] = {}
    for path in pages:
        page = ctx.tip.page(path)
        for ref in page.refs if page is not None else []:
            text = " ".join((ref.row or ref.claim).split())
            shown = claimed(
                PageClaim(path, ref.label, ref.at_line, text, "", None, "", None, None, False)
            )
            ends.setdefault((path, ref.at_line), []).append((text, shown, ref.start_line))
    out: list[Finding] = []
    for f in found:
        here = ends.get((str(f.path), f.claim_line or 0), []) if id(f) in todo else []
        starts = {n for *_, n in here}
        if len(starts) > 1:  # the claim as the finding shows it (claimed, or as it is)
            starts = {n for text, shown, n in here if f.claim in (text, shown)}
        if len(starts) == 1:
            f = f.model_copy(update={"claim_start_line": starts.pop()})
        out.append(f)
    return out


def _possible(a: Read, b: Read, cites: Cites) -> Finding | None:
    """claim.possible_contradiction: the two claims disagree if they are about one thing,
    and only a head noun or kind word of one's own says they may not be (``unsure``)."""
    ca, cb = a.claim, b.claim
    if _cites_both(a, b, cites):
        return None  # the claim cites both sources and gives both figures: stated
    if (a.marked and _states(ca.sentence, b)) or (b.marked and _states(cb.sentence, a)):
        return None
    word, phrase = unsure(a, b) or ("", "")
    side = f"{ca.source}" if ca.source != GAP else "no source: a statement marked [gap: …]"
    found = finding(
        "claim.possible_contradiction",
        ca.page,
        ca.line,
        f"{ca.page}:{ca.line} ({ca.id}, citing {side}) may contradict {cb.page}:{cb.line} "
        f"({cb.id}, citing {cb.source}): “{_excerpt(claimed(ca))}” against "
        f"“{_excerpt(claimed(cb))}”; they disagree if they are about one thing, but "
        f"“{phrase}” may be another thing than “{word}”",
        claim=claimed(ca),
        claim_line=ca.line if ca.source != GAP else None,  # a gap-marked statement: no claim
        **_sides(ca, cb),
    )
    if ca.source == GAP:  # its sentence starts on its line (trial 40 #9)
        found = found.model_copy(update={"claim_start_line": ca.line})
    return found


_BEFORE_STOP = re.compile(r"\s+([.,;:!?])")


def _conflict_hint(a: Read, b: Read, kind: str) -> str:
    """claim.source_conflict's next step, built from the pair (trial 41: one fixed example
    about a pier, "both figures" for a denial): the marker to add to this claim, with what
    the other source says."""
    said = _BEFORE_STOP.sub(r"\1", claimed(a.claim)).rstrip(" .")
    theirs = sorted(b.numbers - a.numbers - b.described, key=lambda n: (" " not in n, n))[:2]
    shown = [n[:-3] + n[-3:].capitalize() if _MONTH_DAY.fullmatch(n) else n for n in theirs]
    joiner = " " if any(_MONTH_DAY.fullmatch(n) for n in theirs) else " and "
    what = joiner.join(shown) if shown and kind != "negation" else "otherwise"
    marker = f"{said} [conflict: {b.claim.source} says {what}]."
    if kind == "negation":
        return (
            "say so on the page: add a marker inside the claim's sentence, before its "
            f"footnote (`{_excerpt(marker, 200)}`), or cite both sources on the claim"
        )
    return (
        "say so on the page: give both figures and cite both sources on the claim, or add a "
        f"marker inside its sentence, before its footnote (`{_excerpt(marker, 200)}`)"
    )


def claimed(claim: PageClaim) -> str:
    """A claim's sentence as a finding shows it: its ``[conflict: raw/…]`` marker and an
    update's dated marker left out (the page's notes, not the claim's words: trial 41)."""
    sentence = claim.sentence
    if (m := UPDATE.match(sentence)) is not None:
        sentence = sentence[m.end() :]
    if CONFLICT.search(sentence) is None:
        return sentence
    return _BEFORE_STOP.sub(r"\1", " ".join(CONFLICT.sub(" ", sentence).split()))


GAP = ""  # the source of a gap-marked statement (gap_claims): none


def gap_claims(page: ParsedPage | None) -> list[PageClaim]:
    """A page's gap-marked statements (ParsedPage.gapped) as claims citing no source
    (``GAP``), ids ``page#^gapN``: compared one way, with the cited claims."""
    if page is None:
        return []
    return [
        PageClaim(page.path, f"gap{n}", line, text, GAP, None, "", None, None, disputed)
        for n, (line, text, disputed) in enumerate(page.gapped, 1)
    ]


def _gap_finding(a: Read, b: Read, kind: str) -> Finding | None:
    """claim.gap_contradiction: a statement marked ``[gap: …]`` (no source) says another
    number or date than a cited claim of the same subject, or denies it."""
    ca, cb = a.claim, b.claim
    if kind == POSSIBLE:
        return _possible(a, b, {})
    what = {
        "number": "a different number",
        "date": "a different date",
        "judge": "something else (the LLM judge)",
    }.get(kind, "the opposite")
    found = finding(
        "claim.gap_contradiction",
        ca.page,
        ca.line,
        f"{ca.page}:{ca.line} (a statement marked [gap: …], citing no source) says {what} of "
        f"the same subject as {cb.page}:{cb.line} ({cb.id}, citing {cb.source}): "
        f"“{_excerpt(claimed(ca))}” against “{_excerpt(claimed(cb))}”",
        claim=ca.sentence,
        **_sides(ca, cb),
    )
    # no footnote reference (claim_line null); its sentence starts on its line (trial 40 #9)
    return found.model_copy(update={"claim_start_line": ca.line})


# what a [conflict: …] marker may say: which source says what, part by part
# ("raw/town.txt says 1894", "raw/a.txt gives another year, raw/b.txt says 1899")
_MARKER_PART = re.compile(
    r"raw/[^\s,;]+(?:\s+(?:disagrees|differs|(?:says|gives|has|states|reports|records|"
    r"puts it at|dates it to)(?:\s+[^\s,;.!?]+(?:[.,]\d+)*){1,4}))?",
    re.I,
)
_MARKER_BODY = re.compile(r"\[conflict:\s*(.*?)\]", re.I | re.S)


_MARKER_SOURCE = re.compile(r"raw/[^\s,;\]]+")


def marker_sources(sentence: str) -> frozenset[str]:
    """The sources the sentence's ``[conflict: raw/…]`` markers name ("raw/town.txt")."""
    return frozenset(
        m.group(0).rstrip(".:!?")
        for c in CONFLICT.finditer(sentence[:CLAIM_CHARS])
        for m in _MARKER_SOURCE.finditer(c.group(1))
    )


def _said_by(sentence: str) -> dict[str, set[str]]:
    """Each source a ``[conflict: …]`` marker names → the figures it says that source gives
    ("raw/town.txt says 1899": {"1899"}; none for "raw/town.txt disagrees")."""
    out: dict[str, set[str]] = {}
    for c in CONFLICT.finditer(sentence[:CLAIM_CHARS]):
        for part in re.split(r"[,;]\s*(?=raw/)", c.group(1)):
            m = _MARKER_SOURCE.match(part.strip())
            if m is not None:
                rest = _said(part.strip()[m.end() :])
                figures = {d.replace(",", "") for d in _DIGITS.findall(rest)}
                # "raw/town.txt says MDCCCLXX": 1870, as a claim's Roman year is read
                # (review 37c #3: read as no figure, it matched any)
                figures |= {
                    str(v)
                    for w in re.findall(r"[^\W\d_]+", rest)
                    if (v := roman_value(w)) is not None
                }
                out.setdefault(m.group(0).rstrip(".:!?"), set()).update(figures)
    return out


def _states(sentence: str, other: Read) -> bool:
    """The sentence's marker states its conflict with ``other``: it names ``other``'s
    source, and a figure it gives for it is one of ``other``'s (review 37b: a marker
    naming any file under raw/ muted every contradiction of its claim)."""
    figures = _said_by(sentence).get(other.claim.source)
    if figures is None:
        return False
    return not figures or not figures.isdisjoint(other.numbers)


def marker_says_more(sentence: str) -> str | None:
    """The text of the sentence's ``[conflict: raw/…]`` marker when it says more than which
    source says what (each part, split at commas and semicolons: a source under raw/, then
    at most a verb such as "says" and four words), else None."""
    for m in CONFLICT.finditer(sentence[:CLAIM_CHARS]):
        body = m.group(1).strip()
        parts = [p.strip() for p in re.split(r"[,;]\s*(?=raw/)", body)]
        if not all(_MARKER_PART.fullmatch(p) for p in parts):
            return body
    return None


def _marker_findings(claims: list[PageClaim]) -> list[Finding]:
    out: list[Finding] = []
    seen: set[tuple[str, str]] = set()
    for c in claims:
        if (c.page, c.sentence) in seen or c.source == GAP:
            continue
        seen.add((c.page, c.sentence))
        body = marker_says_more(c.sentence)
        if body is not None:
            out.append(
                finding(
                    "claim.conflict_marker",
                    c.page,
                    c.line,
                    f"the [conflict: …] marker of {c.id} says more than which source says what "
                    f"(no judge reads its words): “{_excerpt(body)}”",
                    claim=c.sentence,
                )
            )
    return out


def _excerpt(text: str, limit: int = 120) -> str:
    """A claim's sentence for a message: one line, at most ``limit`` characters."""
    return shown(text if len(text) <= limit else text[: limit - 1] + "…")
