"""The offline judge's rules: what a rule can see between a claim and its quote.

Numbers, dates and units the claim has but neither the quote nor the window of source
text around it has (a number stated near the quote is not a conflict; number words,
"twenty-two", "four thousand", are read as numbers by text2num, and fractions, "half",
"a third", "three quarters", as percentages); a negation on one side only, the quote's
side including the words of its clause just before and after it in the source ("did not
| approve the proposal", "failed to | reach the summit", "the pier | was never built");
a precondition stated as its sentence's outcome ("approved, but only after | it had been
rejected"); a number the source calls an estimate ("an estimated | 400 jobs"); a polarity
flip (adopt/reject,
increase/decrease, allow/forbid, before/after…) from the small list ``POLARITY`` below; a
modal shift (the quote, or the words of its clause before it, hedges, recommends,
proposes or leaves a question open, the claim asserts); a superlative or universal the
quote lacks; a claim attributed to a named source ("the Gazette reported", "according to
Dr. Harris") whose name is nowhere in the cited source's path, head or the window; the
source taking the quote back later in its sentence or in the next one ("…, but the work
never started", "…, but nothing was ever built", "…, which burned down a month later",
"This turned out to be false.", "This never happened.", "The decision was reversed."); a
number found only in another sentence of the window, about something else; a name in the
slot where the source has another ("the mayor, John Smith" for "the mayor, Jane Hill",
"the Grand Navigation Company" for "the Tam Navigation Company").
A claim is read without what is not its claim about the quote (``_as_claimed``): its
references' marks and citation years ("Section 2.3", "[59]", "(1)", "et al. 2015"), "first"
of an author's title ("co-first author"), digits inside a name ("e2e"); "a third party" is
no fraction. A citation number closes its clause ("… night [14]."): "is [450] metres" is
claimed; another passage the claim quotes is the claim's words too.
Each conflict names the words that differ.  No network, no model: a tripwire, not a
judgement of support (docs/checks.md; the LLM judge gets these as hints).
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

# the rules whose verdict the window of source text around a quote can change
WINDOWED = ("number", "unit", "negation", "name")
NEGATIONS = frozenset({"not", "no", "never", "none", "nor", "cannot", "without", "neither"})
# words just before a quote, in its clause, that deny what the quote says
DENIALS = NEGATIONS | frozenset(
    {
        "fail",
        "fails",
        "failed",
        "deny",
        "denies",
        "denied",
        "refuse",
        "refuses",
        "refused",
        "decline",
        "declines",
        "declined",
    }
)
# words just before (or after) a quote, in its clause, that make it something less than
# a fact; "would" only as "would have" (a counterfactual: "which would | become the
# capital" is history) and "may" only in lower case ("In May | the council…" is a month)
CONTEXT_HEDGES = frozenset(
    {
        "would have",
        "might",
        "may",
        "could",
        "should",
        "proposed",
        "proposes",
        "propose",
        "plans",
        "planned",
        "rumoured",
        "rumored",
        "rumours",
        "rumors",
        "unlikely",
        "believed",
        "claimed",
        "alleged",
        "allegedly",
        "reportedly",
        "reputedly",
        "supposedly",
        "whether",
        "hoped",
        "hopes",
        "intended",
        "intends",
        "insist",
        "insists",
        "insisted",
    }
)
BEFORE_WORDS = 6  # how many words of the quote's clause before it the rules weigh
AFTER_WORDS = 2  # and after it, for a hedge
DENIAL_AFTER_WORDS = 8  # and after it, for a denial ("… was later shown to be false")
SOURCE_HEAD = 500  # characters of a source's start read for its name (attribution)
# hedges that make a statement something less than a plain fact
HEDGES = frozenset(
    {
        "may",
        "might",
        "could",
        "can",
        "should",
        "possibly",
        "perhaps",
        "likely",
        "unlikely",
        "suggests",
        "suggest",
        "suggested",
        "sometimes",
        "often",
        "recommend",
        "recommends",
        "recommended",
        "propose",
        "proposes",
        "proposed",
        "whether",
        "undecided",
        "unclear",
        "unresolved",
        "uncertain",
        "open",
        "pending",
        "would",
        "plans",
        "planned",
        "expects",
        "expected",
    }
)
# the hedges a claim may not drop: a quote with one of these and a claim with no hedge at
# all turn a recommendation, a proposal or an open question into a fact
STRONG_HEDGES = HEDGES - {"can", "often", "sometimes", "likely", "open"}
CERTAIN = frozenset(
    {"must", "always", "is", "are", "will", "definitely", "certainly", "proves", "prove", "shows"}
)
SUPERLATIVES = frozenset(
    {
        "best",
        "worst",
        "largest",
        "smallest",
        "biggest",
        "most",
        "least",
        "first",
        "only",
        "fastest",
        "slowest",
        "highest",
        "lowest",
        "greatest",
        "oldest",
        "newest",
        "all",
        "every",
        "always",
        "never",
    }
)
# what each unit measures: a claim's unit conflicts only with a quote that states another
# unit of the same kind ("40 km" for "40 miles"), never with one of another kind ("£40 a
# year": a price and a period both hold)
DIMENSIONS: dict[str, str] = {
    **dict.fromkeys(("%",), "ratio"),
    **dict.fromkeys(("km", "m", "cm", "mm", "miles", "feet", "inches", "yards"), "length"),
    **dict.fromkeys(("kg", "g", "mg", "lb", "tons", "ounces"), "mass"),
    **dict.fromkeys(("acres", "hectares", "km²", "m²"), "area"),
    **dict.fromkeys(("litres", "ml", "gallons", "pints", "bushels"), "volume"),
    **dict.fromkeys(
        [
            "hours",
            "hour",
            "minutes",
            "minute",
            "seconds",
            "second",
            "days",
            "day",
            "years",
            "year",
            "months",
            "month",
            "weeks",
            "week",
        ],
        "time",
    ),
    **dict.fromkeys(("°c", "°f", "degrees"), "temperature"),
    **dict.fromkeys(("usd", "$", "€", "£", "¥", "shillings", "pence", "francs"), "money"),
    **dict.fromkeys(("guineas", "rupees", "roubles", "lire"), "money"),
    **dict.fromkeys(("million", "billion", "thousand"), "scale"),
}
UNITS = frozenset(DIMENSIONS)  # the words read as units
# each spelling of a unit read as one word: "90 m" and "90 metres" agree, "90 feet" and
# "90 metres" are two units of one kind (length) and conflict
UNIT_ALIASES = {"percent": "%", "pct": "%", "dollars": "$", "dollar": "$", "euros": "€"}
UNIT_ALIASES |= {"euro": "€", "pounds": "£", "pound": "£", "sterling": "£"}  # pounds: money
UNIT_ALIASES |= {"yen": "¥", "shilling": "shillings", "franc": "francs", "guinea": "guineas"}
UNIT_ALIASES |= {"penny": "pence", "pennies": "pence", "rupee": "rupees", "rouble": "roubles"}
UNIT_ALIASES |= dict.fromkeys(("kilometres", "kilometre", "kilometers", "kilometer"), "km")
UNIT_ALIASES |= dict.fromkeys(("metres", "metre", "meters", "meter"), "m")
UNIT_ALIASES |= dict.fromkeys(("centimetres", "centimetre", "centimeters", "centimeter"), "cm")
UNIT_ALIASES |= dict.fromkeys(("millimetres", "millimetre", "millimeters", "millimeter"), "mm")
UNIT_ALIASES |= {"mile": "miles", "foot": "feet", "ft": "feet", "inch": "inches"}
UNIT_ALIASES |= {"yard": "yards", "yd": "yards", "yds": "yards"}
UNIT_ALIASES |= dict.fromkeys(("kilograms", "kilogram", "kilogrammes", "kilos", "kilo"), "kg")
UNIT_ALIASES |= dict.fromkeys(("grams", "gram", "grammes", "gramme"), "g")
UNIT_ALIASES |= dict.fromkeys(("tonnes", "tonne", "ton"), "tons")
UNIT_ALIASES |= {"lbs": "lb", "ounce": "ounces", "oz": "ounces"}
UNIT_ALIASES |= {"acre": "acres", "hectare": "hectares", "ha": "hectares"}
UNIT_ALIASES |= dict.fromkeys(("liters", "liter", "litre"), "litres")
UNIT_ALIASES |= dict.fromkeys(("millilitres", "millilitre", "milliliters", "milliliter"), "ml")
UNIT_ALIASES |= {"gallon": "gallons", "pint": "pints", "bushel": "bushels"}
# words that refuse or deny on either side ("refused to build", "voted against building"),
# and a verdict inside a quote that denies the rest of it ("rumours that … were unfounded"):
# it agrees with a claim that denies, and flags nothing on its own ("Rumours about the
# harbour master are covered in the report" is no conflict)
REFUSALS = frozenset({"refuse", "refuses", "refused", "refusing"})
# not "false": a value in technical prose ("returns False")
VERDICTS = frozenset({"unfounded", "untrue", "baseless", "disproved", "refuted"})
NUMBER_WORDS = {
    "zero": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
    "eleven": "11",
    "twelve": "12",
    "thirteen": "13",
    "fourteen": "14",
    "fifteen": "15",
    "sixteen": "16",
    "seventeen": "17",
    "eighteen": "18",
    "nineteen": "19",
    "twenty": "20",
    "thirty": "30",
    "forty": "40",
    "fifty": "50",
    "sixty": "60",
    "seventy": "70",
    "eighty": "80",
    "ninety": "90",
    "hundred": "100",
}

# Opposites a quote and a claim can swap without a negation: each side lists its words'
# base forms; their regular inflections (``inflections``) are matched too, irregular
# ones are listed.  Small on purpose: a pair belongs here
# only when the two words cannot both describe one fact (docs/checks.md).
POLARITY: tuple[tuple[frozenset[str], frozenset[str]], ...] = tuple(
    (frozenset(a.split()), frozenset(b.split()))
    for a, b in (
        ("adopt accept approve", "reject"),
        ("approve", "deny block veto"),
        (
            "increase rise rose risen raise grow grew grown gain",
            "decrease fall fell fallen drop decline shrink shrank reduce lower",
        ),
        ("allow permit", "forbid forbade forbidden prohibit ban"),
        ("before earlier", "after later"),
        ("more", "less fewer"),
        ("higher above", "lower below"),
        ("larger bigger", "smaller"),
        ("include", "exclude"),
        ("support favour favor", "oppose"),
        ("succeed success", "fail failure"),
        ("win won", "lose lost"),
        ("enable", "disable"),
        ("add", "remove"),
        ("confirm", "deny"),
        ("true", "false"),
        ("majority", "minority"),
        ("maximum", "minimum"),
        ("strengthen", "weaken"),
        ("improve", "worsen"),
        ("agree", "disagree"),
        ("legal lawful", "illegal unlawful"),
        ("safe", "unsafe"),
        ("possible", "impossible"),
        ("mandatory required compulsory", "optional voluntary"),
        ("buy bought", "sell sold"),
        ("import", "export"),
        ("open", "close closed shut"),
        ("start begin began begun", "stop"),
        ("guilty convicted convict", "innocent acquitted acquit"),
        ("completed complete finished", "abandoned unfinished uncompleted"),
        ("closed close shut", "reopened reopen reopens reopening"),
        ("alive", "dead"),
        ("north", "south"),
        ("east", "west"),
    )
)

_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?|\d+(?:[.,]\d+)*|[%$€£¥°]")
# the same on text with no letter A-Z: a cheaper scan
_WORD_LOWER = re.compile(r"[a-z]+(?:'[a-z]+)?|\d+(?:[.,]\d+)*|[%$€£¥°]")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")  # the number alternative of both
_NUMBER_NAMES = frozenset(NUMBER_WORDS)
_ALIASES = frozenset(UNIT_ALIASES)


class _Lazy:
    """A regular expression compiled on its first use: the longest of the rules' patterns
    (~25 ms to compile) are not compiled by a process that never runs them (a hook whose
    pages' claims did not change)."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern, self.flags = pattern, flags
        self._compiled: re.Pattern[str] | None = None

    def _get(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled

    def search(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self._get().search(text, pos, endpos)

    def match(self, text: str) -> re.Match[str] | None:
        return self._get().match(text)


@dataclass(frozen=True)
class Conflict:
    # number | unit | negation | polarity | outcome | modal | superlative | attribution | undone
    # | name
    kind: str
    claim_words: tuple[str, ...]
    quote_words: tuple[str, ...]

    def describe(self) -> str:
        c = ", ".join(self.claim_words) or "—"
        q = ", ".join(self.quote_words) or "—"
        if self.kind == "outcome":  # the words are the source sentence's, not the quote's
            return f"outcome: claim has [{c}], the quote is a precondition of [{q}]"
        if self.kind == "undone":
            return f"undone: claim has [{c}], the source goes on [{q}]"
        return f"{self.kind}: claim has [{c}], quote has [{q}]"


@dataclass(frozen=True)
class _Words:
    words: frozenset[str]
    numbers: frozenset[str]


def inflections(base: str) -> set[str]:
    """A word's regular forms: adopt → adopts, adopted, adopting; ban → banned, banning;
    reduce → reduces, reduced, reducing; deny → denies, denied."""
    forms = {base, base + "s", base + "es", base + "ed", base + "ing"}
    if base.endswith("e"):
        forms |= {base + "d", base[:-1] + "ing"}
    if base.endswith("y") and len(base) > 2 and base[-2] not in "aeiou":
        forms |= {base[:-1] + "ies", base[:-1] + "ied"}
    if (
        len(base) >= 3
        and base[-1] not in "aeiouwxy"
        and base[-2] in "aeiou"
        and base[-3] not in "aeiou"
    ):
        forms |= {base + base[-1] + "ed", base + base[-1] + "ing"}
    return forms


_POLARITY_FORMS = tuple(
    (
        frozenset(f for w in a for f in inflections(w)),
        frozenset(f for w in b for f in inflections(w)),
    )
    for a, b in POLARITY
)


_POLARIZED = frozenset().union(*(a | b for a, b in _POLARITY_FORMS))


_FRACTION_UNITS = {"half": 50, "halves": 50, "third": 100 / 3, "thirds": 100 / 3}
_FRACTION_UNITS |= {"quarter": 25, "quarters": 25, "fifth": 20, "fifths": 20}
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4}
_COUNTS |= {"1": 1, "2": 2, "3": 3, "4": 4}
# "half" alone, or a counted fraction ("a third", "two thirds", "three quarters"): never
# "the third", "first quarter"
_FRACTION = re.compile(
    r"\b(?:(a|an|one|two|three|four|[1-4])[\s-]+)?(half|halves|thirds?|quarters?|fifths?)\b"
)
# the words text2num reads as part of a number ("twenty-two", "four thousand")
_SPELLED_WORDS: tuple[str, ...] = (
    "twenty",
    "thirty",
    "forty",
    "fifty",
    "sixty",
    "seventy",
    "eighty",
    "ninety",
)
_SPELLED_WORDS += ("hundred", "thousand", "million", "billion")
_SPELLED = re.compile(r"\b(?:" + "|".join(_SPELLED_WORDS) + r")\b")
# digits and a multiplier: "4 thousand" is 4000 as "four thousand" is (text2num reads
# only words), "2.5 million" is 2500000
_SCALED = re.compile(r"\b(\d{1,12}(?:\.\d{1,6})?)\s+(hundred|thousand|million|billion)\b")
_SCALE = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}


def _scaled(m: re.Match[str]) -> str:
    whole, _, part = m.group(1).partition(".")
    scale = _SCALE[m.group(2)]
    fraction = int(part) * scale // 10 ** len(part) if part else 0
    return str(int(whole) * scale + fraction)


# nouns an ordinal "third" or "fifth" names one of, never a fraction of: "a third party",
# "a third opinion", "a fifth attempt"
_ORDINAL_NOUNS = re.compile(
    r"[\s-]+(?:part(?:y|ies)|person|persons|opinion|time|place|option|way|wave|round|term"
    r"|generation|world|reading|attempt|edition|version|kind|type|case|instance|example"
    r"|step|stage|phase|pass|try|source|row|column|floor|grade|year|day|week|month|century"
    r"|wheel|rail|eye|act|book|volume|season|episode|game|set|try|line|level|layer|class)\b"
)


def _fraction(m: re.Match[str]) -> str:
    count, unit = m.group(1), m.group(2)
    if count is None and not unit.startswith("hal"):
        return m.group(0)
    if unit in ("third", "fifth") and _ORDINAL_NOUNS.match(m.string, m.end()):
        return m.group(0)  # "a third party": one of several, not a fraction
    return f" {round(_COUNTS.get(count or 'a', 1) * _FRACTION_UNITS[unit])} "


def _spelled(text: str) -> bool:
    """Whether lower-case ``text`` may hold a word ``_SPELLED`` matches: it holds one of
    them (a cheap test before the pattern)."""
    for word in _SPELLED_WORDS:  # noqa: SIM110 (a loop: no generator to start)
        if word in text:
            return True
    return False


_SMALL_WORDS = {w: int(v) for w, v in NUMBER_WORDS.items() if int(v) < 20}
# fractions of an hour, and "N and a half" of a scale word or a unit: figures, not a
# percentage (trial 40 #7: "half an hour" was 50, "one and a half thousand" 1 and 50,000)
_HOUR_PARTS = (
    (re.compile(r"\b(?:an?|one)\s+hour\s+and\s+a\s+half\b"), "90 minutes"),
    (re.compile(r"\bthree\s+quarters\s+of\s+an\s+hour\b"), "45 minutes"),
    (re.compile(r"\b(?:a\s+)?quarter\s+of\s+an\s+hour\b|\ba\s+quarter[\s-]hour\b"), "15 minutes"),
    (re.compile(r"\bhalf\s+an\s+hour\b|\ba\s+half[\s-]hour\b"), "30 minutes"),
)
_AND_A_HALF = re.compile(
    r"\b(\d{1,6}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+and\s+a\s+half"
    r"\s+(hundred|thousand|million|billion|hours?|minutes?|days?|weeks?|miles?|km"
    r"|kilomet(?:re|er)s?|met(?:re|er)s?|tons?|tonnes?|kg|kilograms?)\b"
)


def _and_a_half(m: re.Match[str]) -> str:
    n, unit = m.group(1), m.group(2)
    whole = int(n) if n.isdigit() else _SMALL_WORDS[n]
    if unit in _SCALE:  # "one and a half thousand": 1500, a figure of its own
        return str(whole * _SCALE[unit] + _SCALE[unit] // 2)
    return f"{whole}.5 {unit}"


def spoken_figures(text: str) -> str:
    """Lower-case ``text`` with a part of an hour in minutes ("half an hour": "30 minutes")
    and "N and a half" of a scale word or unit as a figure ("one and a half thousand":
    "1500", "two and a half hours": "2.5 hours")."""
    if "half" not in text and "quarter" not in text:
        return text
    for pattern, said in _HOUR_PARTS:
        text = pattern.sub(said, text)
    if "and a half" in text:
        text = _AND_A_HALF.sub(_and_a_half, text)
    return text


def _numbers_spelled(text: str) -> str:
    """Fractions as percentages, and compound number words as digits (text2num, loaded
    on the first text that has one: never on the CLI's start path)."""
    text = spoken_figures(text)
    if (
        "half" in text
        or "halves" in text
        or "third" in text
        or "quarter" in text
        or "fifth" in text
    ):
        text = _FRACTION.sub(_fraction, text)
    if not _spelled(text):
        return text
    if _SPELLED.search(text):
        text = _SCALED.sub(_scaled, text)
    if _SPELLED.search(text):
        from text_to_num import alpha2digit  # type: ignore[import-untyped]

        # isolated small numbers stay words (the table below reads them): text2num
        # would turn "one of them" into "1 of them" and "the third" into "3rd".
        # Piece by piece: text2num's cost grows with the square of a run of number
        # words, and no number is written in more than a few dozen words
        text = "".join(
            alpha2digit(piece, "en", threshold=1000) if _SPELLED.search(piece) else piece
            for piece in _PIECES.findall(text)
        )
    return text


_MONTHS = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november"
    r"|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)"
)
_MONTHS_TITLE = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November"
    r"|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)"
)
# a day of a month, "3 may" (the text is lower case), read as the date "3 may"
_DATE_DAY = re.compile(r"\b([1-9]|[12]\d|3[01])(?:st|nd|rd|th)?\s+(" + _MONTHS + r")\b")
_AGAINST = re.compile(r"\b(vot(?:e|ed|es|ing))\s+against\b")


def _month_word(m: re.Match[str]) -> str:
    """A day's month, kept as a word; but "may" is no hedge ("lit on 5 May 1872": trial 41,
    a modal conflict)."""
    return " " if m.group(2).startswith("may") else f" {m.group(2)} "


_PIECES = re.compile(r"\S*\s*(?:\S+\s*){0,47}", re.S)  # up to 48 words, all of the text


def _read(text: str) -> _Words:
    """The text's words (number words as digits, unit aliases unified) and its numbers
    without commas; a text read again is taken from the memo (up to ``_MEMO_MAX`` texts,
    forgotten all at once when full: a quote is read by several rules, a window by each
    claim citing it)."""
    got = _MEMO.get(text)
    if got is None:
        got = _read_text(text)
        if len(text) <= _MEMO_CHARS:
            if len(_MEMO) >= _MEMO_MAX:
                _MEMO.clear()
            _MEMO[text] = got
    return got


_MEMO: dict[str, _Words] = {}
_MEMO_MAX = 256  # texts kept read (at most _MEMO_CHARS each: bounded memory)
_MEMO_CHARS = 20_000


def forget() -> None:
    """Forget the texts read (benchmarks time the rules from cold)."""
    _MEMO.clear()


def _ascii_digit(text: str) -> bool:
    """Whether ``text`` has a digit 0-9 (a cheap test before a pattern that needs one)."""
    return (
        "0" in text
        or "1" in text
        or "2" in text
        or "3" in text
        or "4" in text
        or "5" in text
        or "6" in text
        or "7" in text
        or "8" in text
        or "9" in text
    )


def _maybe_digit(text: str) -> bool:
    """Whether ``text`` may have a digit ``\\d`` matches: 0-9, or any character outside
    ASCII (other scripts' digits)."""
    return not text.isascii() or _ascii_digit(text)


def _absent(text: str, needed: tuple[str, ...]) -> bool:
    """Whether ``text`` surely has no match of a case-insensitive pattern every match of
    which holds one of ``needed`` (lower case): ASCII text that holds none of them. Text
    outside ASCII is never ruled out (case folding maps other letters onto ASCII ones)."""
    if not text.isascii():
        return False
    low = text.lower()
    for n in needed:  # noqa: SIM110 (a loop: no generator to start, on every call)
        if n in low:
            return False
    return True


_LETTERS = re.compile(r"[a-z]+")


def _read_text(text: str) -> _Words:
    if not text.isascii():  # "１８９９", "١٨٩٩": digits as ASCII ones (trial 41)
        text = "".join(str(int(ch)) if ch.isdecimal() and not ch.isascii() else ch for ch in text)
    text = text.lower().replace("n't", " not").replace("per cent", "percent")
    if "against" in text:
        text = _AGAINST.sub(r"\1 refused", text)
    dates: set[str] = set()
    # "3 May": a day, not a count of three (the pattern's day starts with a digit 1-9)
    if _ascii_digit(text) and _DATE_DAY.search(text):
        dates = {f"{m.group(1)} {m.group(2)[:3]}" for m in _DATE_DAY.finditer(text)}
        text = _DATE_DAY.sub(_month_word, text)
    digits = _numbers_spelled(text)
    # no letter A-Z is left in ``text`` by ``str.lower``; text2num's output is not known so
    words = set((_WORD_LOWER if digits is text else _WORD).findall(digits))
    # the words starting with a digit are the numbers: the pattern's number alternative,
    # which no other alternative's word can hold a digit of
    numbers = dates
    if _maybe_digit(digits):
        numbers = {w.replace(",", "") for w in set(_NUMBER.findall(digits))} | dates
    named = words & _NUMBER_NAMES
    if named:
        spelled = {NUMBER_WORDS[w] for w in named}
        words = (words - named) | spelled
        numbers |= spelled
    aliased = words & _ALIASES
    if aliased:
        words = (words - aliased) | {UNIT_ALIASES[w] for w in aliased}
    return _Words(frozenset(words), frozenset(numbers))


def read_words(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """``text``'s words (lower case, number words as digits, unit aliases unified) and its
    numbers (without commas; a day of a month as "3 may"), as the rules read a claim."""
    read = _read(text)
    return read.words, read.numbers


_DIGEST: list[str] = []


def rules_digest() -> str:
    """A digest of this module's code: what a cached result of ``conflicts`` depends on."""
    if not _DIGEST:
        _DIGEST.append(hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16])
    return _DIGEST[0]


def source_label(path: str, text: str) -> str:
    """What attribution compares a claim's named source with: the cited source's path
    and the start of its text (a title, a masthead, frontmatter)."""
    return f"{path}\n{text[:SOURCE_HEAD]}"


_CLAUSE_END = re.compile(r"[.;:!?,()\n\u2014\u2013\"]")
_HONORIFICS = frozenset({"the", "dr", "mr", "mrs", "ms", "prof", "sir", "lord", "lady", "st"})
_SAYS = (
    r"(?:reported|reports|said|says|wrote|writes|stated|states|announced|announces|"
    r"claimed|claims|described|describes|noted|notes|told|tells)"
)
# a part of each of _SAYS' words: a text with none has no match of _SAID
_SAYS_STEMS: tuple[str, ...] = (
    "report",
    "said",
    "says",
    "wrote",
    "writes",
    "state",
    "announce",
    "claim",
)
_SAYS_STEMS += ("describe", "note", "told", "tells")
_NAME = r"((?:[A-Z][\w'&-]*\.?\s+){0,3}[A-Z][\w'&-]*)"
_ACCORDING = re.compile(r"\b[Aa]ccording to (?:the\s+)?" + _NAME)
_SAID = re.compile(r"(?:^|(?<=\s))([Tt]he\s+)?" + _NAME + r"\s+" + _SAYS + r"\b")
# how every match of _SAID ends (a name's last word, then the verb): a cheaper scan first
_NAME_SAYS = re.compile(r"[A-Z][\w'&-]*\s+" + _SAYS + r"\b")


def attributed(claim: str) -> tuple[str, ...]:
    """The names a claim attributes itself to ("the Gazette reported", "according to
    Dr. Harris", "Dr. Harris said"): their distinctive words, lower-cased.  A lone word
    starting the sentence ("Officials said", "Smith wrote") is not read as a name: its
    capital may be the sentence's."""
    text = claim[:1000]
    # each pattern tried on a claim that has its words (both are case-sensitive)
    found = [m.group(1) for m in _ACCORDING.finditer(text)] if "ccording to" in text else []
    can = any(s in text for s in _SAYS_STEMS) and _NAME_SAYS.search(text)
    said = _SAID.finditer(text) if can else ()
    for m in said:
        lone = m.group(1) is None and " " not in m.group(2) and not text[: m.start()].strip()
        if not lone:
            found.append(m.group(2))
    names = [
        w
        for name in found
        for w in _LETTERS.findall(name.lower())
        if w not in _HONORIFICS and len(w) > 2
    ]
    return tuple(dict.fromkeys(names))


def needs_source(claim: str, quote: str, found: list[Conflict]) -> bool:
    """Whether the rules on (claim, quote) can change with the source around the quote:
    always. A quote that starts inside a sentence may be denied or hedged by the words
    before it, one that ends inside one by the words after it ("… was never built"), and
    one that ends its sentence by the next sentence ("This never happened."); a claim
    naming its source is compared with the source's name. (Kept as a function: the
    benchmark's ``--rules`` reads an older module's answer.)"""
    return True


def _context(quote: str, window: str, at: int | None = None) -> tuple[str, str]:
    """The words of the quote's clause just before and just after it in ``window`` (the
    quote is at ``at`` there, else where it first occurs)."""
    if at is None or window[at : at + len(quote)] != quote:
        at = window.find(quote) if quote else -1
    if at < 0:
        return "", ""
    before = _CLAUSE_END.split(window[max(0, at - 200) : at])[-1]
    after = ""
    if not _CLAUSE_END.match(quote[-1]):  # a quote that ends its clause has no after
        after = _CLAUSE_END.split(window[at + len(quote) : at + len(quote) + 100])[0]
    return (
        " ".join(before.split()[-BEFORE_WORDS:]),
        " ".join(after.split()[:DENIAL_AFTER_WORDS]),
    )


_NOT_ONLY = re.compile(r"\b(?:not|never) (?:only|just|merely)\b", re.IGNORECASE)
_ASCII_LETTERS = re.compile(r"[A-Za-z]+")
_WOULD_HAVE = re.compile(r"\bwould\s+have\b", re.IGNORECASE)


def _not_only(text: str, by: str) -> str:
    """``text`` with each "not only" ("never just", …) replaced ``by``."""
    return text if _absent(text, ("not", "never")) else _NOT_ONLY.sub(by, text)


def _cues(before: str, after: str) -> tuple[frozenset[str], frozenset[str]]:
    """The denials in the words before a quote ("did not", "failed to", "no longer"; not
    "not only") and right after it ("… was never built", "… was later shown to be
    false", "… were retracted"), and the hedges before or after it."""
    before = _not_only(before, " ").replace("n't", " not")
    denials = frozenset(_LETTERS.findall(before.lower())) & DENIALS
    denied_after = _AFTER_DENIAL.match(_not_only(after.lower().replace("n't", " not"), " x "))
    if denied_after:
        denials |= {denied_after.group(1).split()[-1]}
    hedges: set[str] = set()
    for text in (before, " ".join(after.split()[:AFTER_WORDS])):
        words = set(_ASCII_LETTERS.findall(text))
        hedges |= {w.lower() for w in words if w.lower() in CONTEXT_HEDGES and w != "May"}
        if not _absent(text, ("would",)) and _WOULD_HAVE.search(text):
            hedges.add("would have")
    return denials, frozenset(hedges)


# the words right after a quote that deny it: a verb's auxiliaries and adverbs, then a
# negation ("… was never built", "… were not supported"), a verdict ("… proved untrue",
# "… was later shown to be false") or an undoing ("… was denied", "… were later
# retracted"). Only at the start of what follows the quote in its clause: "and it was
# not repainted" is another statement
AFTER_DENIALS = frozenset(
    {
        "denied",
        "rejected",
        "retracted",
        "withdrawn",
        "refuted",
        "disproved",
        "debunked",
        "dismissed",
        "overturned",
        "refused",
        "abandoned",
        "cancelled",
        "canceled",
        "false",
        "untrue",
        "wrong",
        "unfounded",
        "baseless",
    }
)
_AFTER_DENIAL = re.compile(
    r"(?:(?:was|were|is|are|has|have|had|been|be|being|later|subsequently|eventually|then|"
    r"ultimately|soon|also|quickly|widely|officially|publicly|since|itself|themselves|all)\s+)*"
    r"((?:shown|proved|proven|found|turned\s+out|revealed|declared|ruled)\s+(?:to\s+be\s+)?"
    r"(?:false|untrue|wrong|unfounded|baseless)"
    r"|never|not|false|untrue|wrong|unfounded|baseless|denied|rejected|retracted|withdrawn"
    r"|refuted|disproved|debunked|dismissed|overturned|refused|abandoned|cancelled|canceled)\b"
)


# marks of a sentence's references, not quantities it claims: a section, table or figure
# number ("§4.2", "Section 2.3", "Table 1"), a bracketed citation number ("[59]", "[3, 7]";
# not "[1891]"),
# a list mark ("(1) make money, (2) …", "(b)")
_REFERENCE_NUMBERS = re.compile(
    r"§+\s*\d{1,4}(?:\.\d{1,4}){0,4}"
    r"|\b(?:Sections?|Secs?\.|Chapters?|Ch\.|Tables?|Figures?|Figs?\.|Appendix|Definitions?"
    r"|Theorems?|Lemmas?|Eqs?\.|Equations?|Algorithms?)\s+\d{1,4}(?:\.\d{1,4}){0,4}[a-z]?"
    r"(?:\s*(?:,|and|&|[-\u2013])\s*\d{1,4}(?:\.\d{1,4}){0,4}[a-z]?){0,8}\b"
    # a citation number closes its clause ("… night [14].", "([14])"); "is [450] metres"
    # is a number in brackets, still claimed
    r"|\[\d{1,3}(?:\s*[,\u2013-]\s*\d{1,3}){0,8}\](?=\s*(?:[.,;:!?)\]]|\[|$))"
    # a list mark opens the claim or an item after ":", ";" or ","
    r"|(?:^|(?<=[:;,]\s))\((?:\d{1,2}|[a-z]|[ivx]{1,4})\)"
)
# a year of a bibliographic citation: "et al. 2023", "Carlsmith (2023)", a title's
# '"…" (2022)', and in brackets after an author's or a venue's name, "(Hendrycks 2023)",
# "(citing Soares et al. 2015)", "(ICML 2023)"; never after a month ("(March 2021)")
_YEAR = r"((?:1[5-9]|20)\d\d[a-z]?(?:\s*[/,\u2013-]\s*(?:1[5-9]|20)\d\d[a-z]?){0,8})\b"
_CITED_YEAR = re.compile(
    r"(\bet\s+al\.?,?\s+|(?:\b(?!" + _MONTHS_TITLE + r"\b)[A-Z][\w'-]*|[\"\u201d])\s*\()" + _YEAR
)
_BRACKETS = re.compile(r"\(([^()]{1,300})\)")
_NAMED_YEAR = re.compile(
    r"(\b(?!" + _MONTHS_TITLE + r"\b)[A-Z][\w'-]*(?:\s+et\s+al\.?)?,?\s+)" + _YEAR
)
# digits inside a name ("e2e", "k8s", "i18n"): no quantity ("FY2021", "EC2" are read)
_IN_NAME = re.compile(r"(?<=[A-Za-z])\d+(?=[A-Za-z])")
# "first" as a title or in a compound, not a superlative: "co-first author", "first
# author", "First author of", "first-class", "first-order" (but "first-ever" is one)
_FIRST_TITLE = re.compile(
    r"\bco-first\b|\bfirst(?=[\s-]+authors?\b|[\s-]+authored\b|-(?!ever\b)[a-z])",
    re.IGNORECASE,
)


def _as_claimed(claim: str, quote: str) -> str:
    """The claim as the rules weigh it against ``quote``: without its references' marks
    and years (a citation's numbers are no quantities it claims), "first" of an author's
    title, digits inside names.  Another passage the claim quotes stays its words: a quote
    no footnote cites is the writer's assertion as much as the rest of the sentence."""
    # each pattern tried only on a claim that has what it needs (a digit, a bracket)
    if _maybe_digit(claim) or "(" in claim:
        claim = _REFERENCE_NUMBERS.sub(" ", claim)
    if _ascii_digit(claim):
        claim = _CITED_YEAR.sub(r"\1", claim)
    if "(" in claim:
        claim = _BRACKETS.sub(lambda m: "(" + _NAMED_YEAR.sub(r"\1", m.group(1)) + ")", claim)
    if _maybe_digit(claim):
        claim = _IN_NAME.sub("", claim)
    if claim.isascii() and "first" not in claim.lower():
        return claim
    return _FIRST_TITLE.sub(" ", claim)


def conflicts(
    claim: str,
    quote: str,
    window: str = "",
    source: str = "",
    at: int | None = None,
    row: str = "",
) -> list[Conflict]:
    """What a rule sees between ``claim`` and ``quote``; numbers and units stated in the
    ``window`` of source text around the quote (at ``at`` in it) count as the quote's, the
    words of its clause just before it are weighed for a denial, before and after it for
    a hedge; ``source`` (a ``source_label``) is what a claim's attribution is compared
    with. ``row`` is the table row of a claim in a table cell: its other cells' hedges
    ("| about 12,000[^3] | county estimate |") are the claim's, for the rules that ask
    whether the claim keeps a hedge, an estimate or an undoing."""
    c, q = _read(_as_claimed(claim, quote)), _read(quote)
    kept = c if not row else _Words(c.words | _read(row[:2000]).words, c.numbers)
    # the window's numbers and units count only against a claim that has some: a claim
    # with neither is never read against the window's words
    cu = c.words & UNITS
    near = _read(f"{quote}\n{window}") if window and (c.numbers or cu) else q
    before, after = _context(quote, window, at) if window else ("", "")
    denied, hedged = _cues(before, after) if window else (frozenset(), frozenset())
    estimate = _estimate(f"{before} {quote}")
    if estimate and not kept.words & APPROXIMATE:
        hedged |= {estimate}
    out: list[Conflict] = []
    missing = c.numbers - near.numbers
    if window and c.numbers - q.numbers - missing:  # numbers found only near the quote
        missing |= _borrowed(claim, c, q, quote, window, at)
    if missing:
        out.append(Conflict("number", tuple(sorted(missing)), tuple(sorted(q.numbers))))
    qu = near.words & UNITS
    kinds = {DIMENSIONS[u] for u in qu}
    other = {u for u in cu - qu if DIMENSIONS[u] in kinds}
    if other:
        out.append(Conflict("unit", tuple(sorted(other)), tuple(sorted(q.words & UNITS))))
    cneg, qneg = c.words & (NEGATIONS | REFUSALS), q.words & (NEGATIONS | REFUSALS)
    if cneg and not qneg:  # "did not resign" for "rumours that … had resigned were unfounded"
        qneg = q.words & VERDICTS
    if denied:  # "failed to | reach": the claim agrees if it denies too ("failed", "not")
        cneg |= c.words & (DENIALS | AFTER_DENIALS)
        qneg |= denied
    if bool(cneg) != bool(qneg):
        out.append(Conflict("negation", tuple(sorted(cneg)), tuple(sorted(qneg))))
    out += _polarity(c, q)
    if window:
        out += _outcome(c, q, _precondition_outcome(quote, window, at))
    if not kept.words & (HEDGES | CONTEXT_HEDGES):  # the row's hedge is the claim's
        out += _modal(c, q, hedged) or _decided(c, quote)
    sup = (c.words & SUPERLATIVES) - q.words - denied  # "| was never built" is the quote's
    if sup:
        out.append(Conflict("superlative", tuple(sorted(sup)), ()))
    if window:
        out += _undone_by_source(kept, quote, window, at)
    if source:
        out += _attribution(claim, f"{source}\n{quote}\n{window}")
    out += _names(claim, quote, window, at, source)
    return out


NUMBER_HINT = "number: "  # how a number conflict's hint starts (Conflict.describe)


def figures_stated(claim: str, quotes: Sequence[str]) -> bool:
    """Whether a claim citing several quotes (one sentence, ``[^1][^2]``) states the
    figures its sources disagree on: it gives more than one figure, each of its figures is
    given by one of its quotes, and each quote gives one of its figures ("The pier opened
    in 1894 or in 1899.[^1][^2]", quotes of 1894 and of 1899).  Then a quote lacking a
    figure another quote gives is no conflict (trial 40 #2: each footnote was held to the
    whole claim).  A claim of one figure citing a source of another states no conflict,
    and a figure no quote gives is still the claim's own (the trust boundary): False."""
    if len(quotes) < 2:
        return False
    given: list[frozenset[str]] = []
    figures: set[str] = set()
    for quote in quotes:
        numbers = _read(_as_claimed(claim, quote)).numbers
        if figures and numbers != figures:
            return False  # read against another quote it says other figures: unsure
        figures = set(numbers)
        given.append(_read(quote).numbers)
    if len(figures) < 2:
        return False
    if any(not figures & q for q in given):
        return False
    return not figures - frozenset().union(*given)


# a capitalised word inside a sentence: a name ("Jane Hill", "the Thames"); the
# sentence's first word and the words after a stop are not read (their capital is the
# sentence's)
_CAPITALISED = re.compile(r"(?<![.!?:\"“]\s)(?<=\s)[A-Z][a-z]{2,}\b")
_NOT_NAMES = frozenset({"the", "this", "that", "these", "those", "its", "their", "his", "her"})
_NAME_REST = re.compile(r"(?:\s+[A-Z][a-z]{2,}){1,2}\b")  # the rest of a name of words
_SLOT_WORDS = 3  # words before a name that say which slot of the sentence it fills
_NOT_SLOT = frozenset({"the", "a", "an", "of", "and", "or", "in", "on", "at", "to", "by"})


def _named_slots(text: str) -> dict[str, frozenset[str]]:
    """Each name of ``text`` (lower case) and the words just before it: its slot."""
    out: dict[str, frozenset[str]] = {}
    text = text[:2000]
    for m in _CAPITALISED.finditer(text):
        name = m.group(0).lower()
        if name in _NOT_NAMES:
            continue
        before = re.findall(r"[a-z]+", text[max(0, m.start() - 60) : m.start()].lower())
        # and the words of the name it starts: "Grand | Navigation Company" shares its
        # slot with "Tam | Navigation Company"
        rest = _NAME_REST.match(text, m.end())
        after = rest.group(0).lower().split() if rest else []
        out[name] = frozenset(before[-_SLOT_WORDS:] + after) - _NOT_SLOT
    return out


def _names(claim: str, quote: str, window: str, at: int | None, source: str) -> list[Conflict]:
    """A name swapped: the claim has a name that neither the quote, the window nor the
    source's name has, in the slot where the quote's sentence in the source has a name
    the claim lacks (the words before each share one: "the mayor, John Smith" for "the
    mayor, Jane Hill", "over the Thames" for "over the river Tam"). A name the claim adds
    elsewhere ("echoes the Declaration of Independence") is not read."""
    mine = _named_slots(claim.strip())
    if not mine:
        return []
    known = set(re.findall(r"[a-z]+", f"{quote}\n{window}\n{source}".lower()))
    extra = {n: slot for n, slot in mine.items() if n not in known}
    if not extra:
        return []
    said = set(re.findall(r"[a-z]+", claim.lower()))
    theirs = {
        n: slot
        for n, slot in _named_slots(_sentence_of(quote, window, at).strip()).items()
        if n not in said
    }
    swapped = {(a, b) for a, sa in extra.items() for b, sb in theirs.items() if sa & sb}
    if not swapped:
        return []
    return [
        Conflict(
            "name",
            tuple(sorted({a for a, _ in swapped})),
            tuple(sorted({b for _, b in swapped})),
        )
    ]


LABEL_WORDS = 4  # a sentence of the window this short is a label ("Opened in 1932.")


def _borrowed(
    claim: str, c: _Words, q: _Words, quote: str, window: str, at: int | None
) -> set[str]:
    """The claim's numbers that the quote lacks and the window has only in other
    sentences about something else: the quote's sentence lacks it, and each sentence
    holding it is longer than a label and shares no word of four letters or more with the
    claim ("adopted the plan in full in 1922" citing "decided to adopt the plan in full",
    1922 only in "The harbour wall was repaired in 1922."; "Minutes of the council
    meeting of 3 May 2021." does date "the council voted …")."""
    if not quote or quote not in window:
        return set()
    own = _read(_sentence_of(quote, window, at)).numbers
    todo = c.numbers - q.numbers - own
    if not todo:
        return set()
    said = {w for w in c.words if len(w) > 3 and not w[0].isdigit()}
    supported: set[str] = set()
    for piece in re.split(r"[.!?](?:\s|$)|\n", window):
        read = _read(piece)
        nums = read.numbers & todo
        if nums and (len(piece.split()) <= LABEL_WORDS or read.words & said):
            supported |= nums
    return set(todo - supported)


def _sentence_of(quote: str, window: str, at: int | None) -> str:
    """The sentence of ``window`` holding the quote (the quote alone without a window)."""
    if at is None or window[at : at + len(quote)] != quote:
        at = window.find(quote) if quote else -1
    if at < 0:
        return quote
    starts = [m.end() for m in _SENTENCE_END.finditer(window, max(0, at - 300), at)]
    begin = starts[-1] if starts else max(0, at - 300)
    end = _SENTENCE_END.search(window, at + len(quote), at + len(quote) + 300)
    return window[begin : end.start() if end else at + len(quote) + 300]


# the rest of the quote's sentence in the source taking back what the quote says: a
# back-reference to it that undoes it ("…, a story later shown to be false", "…, a figure
# the union disputes", "— a plan that was abandoned", "; this figure was later revised"),
# a correction in brackets ("(in fact it was never completed)"), a hearsay tag ("…, or so
# his rivals claimed", "…, according to estimates by its promoters"), or "but" and the
# quote's own subject undone ("was to open in 1890, but the opening was postponed")
# words that doubt a statement rather than deny it: "this attribution is doubtful", "a
# number nobody has verified", "according to one unsourced pamphlet"
_DOUBT = (
    r"(?:doubt\w*|dubious|questionable|unsourced|unreliable|unverified|unconfirmed"
    r"|uncorroborated|unsubstantiated|unproven|apocryphal|spurious|fabricated|invented"
    r"|implausible|baseless|unfounded|(?:nobody|no\s+one|none|never|not)\s+(?:[\w'’-]+\s+)"
    r"{0,2}?(?:verified|confirmed|corroborated|substantiated|proved|proven|checked|recorded"
    r"|attested|documented))"
)
_UNDOING = (
    r"(?:"
    + _DOUBT
    + r"|false|untrue|wrong|incorrect|mistaken|inaccurate|exaggerated|overstated|never"
    r"|disputed?|disputes|denied|denies|deny|contested|contests|questioned|doubted|doubts"
    r"|revised|abandoned|dropped|retracted|withdrawn|rejected|refuted|disproved|debunked"
    r"|discredited)"
)
_BACK_REFERENCE = _Lazy(
    r"(?:^|[,;(\u2014\u2013]|\s-\s)\s*(?:a|an|the|this|that|which\s+is\s+a)\s+"
    r"(?:story|claim|figure|date|plan|rumou?r|account|number|estimate|report|tale|legend"
    r"|belief|assertion|version|total|count)\s+(?:that\s+|which\s+)?"
    r"(?:[\w'’-]+\s+){0,4}?" + _UNDOING + r"\b",
    re.I,
)
_HEARSAY = _Lazy(
    r"\(\s*(?:in\s+fact|actually|in\s+reality|in\s+truth)\b"
    r"|\bor\s+so\s+(?:[\w'’-]+\s+){0,3}?(?:claimed|claims?|said|says?|alleged|alleges?"
    r"|insisted|insists?|believed|believes?|thought|maintained|maintains?|reported)\b"
    r"|\baccording\s+to\s+(?:[\w'’-]+\s+){0,3}?(?:estimates?|rumou?rs?|legend|tradition"
    r"|promoters|critics|gossip|hearsay|projections?)\b"
    r"|\baccording\s+to\s+(?:[\w'’-]+\s+){0,4}?" + _DOUBT + r"\b"
    r"|\b(?:at\s+least|only)\s+according\s+to\b",
    re.I,
)
_BUT_UNDONE = _Lazy(
    r"\bbut\s+(?:it|this|that|they|the\s+([a-z]+))\s+(?:(?:was|were|had\s+been|has\s+been|is)"
    r"\s+)?(?:later\s+|then\s+|eventually\s+|soon\s+)?(?:postponed|abandoned|cancelled"
    r"|canceled|called\s+off|delayed|scrapped|shelved|dropped|never|fell\s+through)\b",
    re.I,
)
# "but the work never started", "but the plan was dropped": nouns that name the quote's
# event whatever its words
_EVENT_NOUNS = frozenset(
    {"work", "works", "plan", "plans", "project", "scheme", "construction", "idea", "proposal"}
)
# a pronoun taking the quote back ("; this was later retracted"), a guess ("…, a rough
# guess by the station master"), a condition ("…, if funding is found")
_PRONOUN_UNDONE = _Lazy(
    r"(?:^|[,;(\u2014\u2013])\s*(?:this|that|which|it)\s+(?:was|were|is|has\s+been|had\s+been)"
    r"\s+(?:[\w'’-]+\s+){0,2}?" + _UNDOING + r"\b",
    re.I,
)
_GUESS = _Lazy(
    r"(?:^|[,;(\u2014\u2013])\s*(?:a|an|the|this|that|which\s+is\s+a)\s+(?:[\w'’-]+\s+)?"
    r"(?:guess|speculation|conjecture|exaggeration)\b",
    re.I,
)
# a state the source says ended: "ran daily | until it was cancelled in 2019"
_ENDED = _Lazy(
    r"^\s*,?\s*until\s+(?:it|they|this|that|the\s+[a-z]+)\s+(?:was|were|had\s+been)\s+"
    r"(?:[a-z]+\s+)?(?:cancelled|canceled|closed|abolished|discontinued|scrapped|withdrawn"
    r"|demolished|ended|stopped|suspended|dissolved|replaced)\b",
    re.I,
)
# "…, but nothing was ever built", "…, but no tracks were ever laid": the deed never done
_BUT_NEVER = _Lazy(
    r"\bbut\s+(?:[\w'’-]+\s+){0,3}?(?:nothing|no|never|none|not|nobody|n't)\s+"
    r"(?:[\w'’-]+\s+){0,3}?ever\b",
    re.I,
)
# the words of a decision (a claim keeping one states the decision, which stands)
_DECIDING = frozenset(
    {"voted", "decided", "agreed", "resolved", "approved", "authorised", "authorized"}
    | {"promised", "pledged", "planned", "proposed", "ordered", "sanctioned", "granted"}
)
# what the quote's sentence goes on to say ended it: "…, which burned down a month
# later", "…, a ban lifted the following week" (a claim that states it as still so)
_ENDED_AFTER = _Lazy(
    r"^\s*[,;(\u2014\u2013]\s*(?:which|that|a|an|the|this|it)\s+(?:[\w'’-]+\s+){0,3}?"
    r"(?:burned|burnt|destroyed|demolished|lifted|repealed|revoked|rescinded|overturned"
    r"|reversed|abolished|closed|dissolved|torn|pulled\s+down|collapsed|sank|cancelled"
    r"|canceled|scrapped|withdrawn|ended|replaced|razed)\b",
    re.I,
)
# a claim that states something as still so
_STILL = frozenset({"is", "are", "has", "have", "still", "now", "today", "currently"})
_STILL |= frozenset({"remains", "remain", "continues", "continue"})
_CONDITION = re.compile(r"^\s*,?\s*(?:if|unless|provided|providing)\b", re.I)
# the source calling its own statement wrong: "…, the guidebook wrongly stated"
_WRONGLY = _Lazy(r"\b(?:wrongly|falsely|mistakenly|incorrectly|erroneously)\b", re.I)
# the next sentence taking the quote's sentence back: it refers back to it (it starts
# with "this", "that", "both", "none of this", or names it with a noun for a statement or
# a decision: "the claim", "this account", "the decision") and denies, doubts or undoes
# it ("This never happened.", "Both claims are baseless.", "This attribution is
# doubtful.", "Historians now reject this account entirely.", "The decision was reversed
# a week later."). A denial needs a word of truth or occurrence after it ("never
# happened", "in no contemporary record"): "This was not the first bridge" is no undoing
_SHELL = (
    r"(?:story|stories|claims?|figures?|dates?|numbers?|reports?|accounts?|statements?"
    r"|estimates?|rumou?rs?|attributions?|traditions?|versions?|legends?|tales?|assertions?"
    r"|decisions?|bans?|orders?|rulings?|verdicts?|votes?|plans?)"
)
_REFERS_BACK = _Lazy(
    r"^\s*(?:this|that|these|those|both|none\s+of\s+(?:this|these|that|it|them)"
    r"|all\s+of\s+(?:this|it)|the\s+" + _SHELL + r")\b"
    r"|\b(?:this|that|these|those|both)\s+(?:[a-z]+\s+)?" + _SHELL + r"\b",
    re.I,
)
_UNDO_VERB = (
    r"(?:reject|revers|overturn|rescind|repeal|revok|annul|lift|cancel|withdr[ae]w|retract"
    r"|refut|disprov|debunk|discredit|dismiss)"
)
_DENIES_NEXT = _Lazy(
    # a verdict or a doubt: "is false", "is doubtful", "is disputed", "a myth"
    r"\b(?:" + _DOUBT + r"|false|untrue|wrong|incorrect|mistaken|inaccurate|exaggerated"
    r"|disputed|contested|questioned|doubted|retracted|refuted|disproved|debunked"
    r"|discredited|myths?)\b"
    # undone: "was reversed a week later", "historians reject this account"
    r"|\b(?:was|were|been|is|are|be)\s+(?:[a-z]+\s+){0,2}?" + _UNDO_VERB + r"(?:e?d|led|n)\b"
    r"|\b"
    + _UNDO_VERB
    + r"(?:e?s|e?d|led|n)?\s+(?:this|that|these|those|both|the)\s+(?:[a-z]+\s+)?"
    + _SHELL
    + r"\b"
    # denied: "never happened", "none of this is true", "in no contemporary record"
    r"|\b(?:never|not|no|none|nothing|n't)\s+(?:[\w'’-]+\s+){0,3}?(?:happened|happen|occurred"
    r"|occur|took\s+place|true|so|correct|accurate|records?|evidence|sources?|trace)\b",
    re.I,
)


def _retracted_next(window: str, at: int) -> str:
    """The next sentence (from ``at``) when it refers back to the one before and takes
    it back, else ''."""
    end = _SENTENCE_END.search(window, at, at + 300)
    nxt = window[at : end.start() if end else at + 300]
    if _refers_back_next(nxt) and _DENIES_NEXT.search(nxt):
        return " ".join(nxt.split())
    return ""


# a claim that keeps the undoing (or hedges, or denies) agrees with the source
_KEEPS = frozenset(
    {"story", "claim", "claimed", "rumour", "rumor", "legend", "estimate", "estimated"}
    | {"disputed", "false", "revised", "abandoned", "postponed", "planned", "reportedly"}
    | {"allegedly", "according", "supposedly", "reputedly"}
)


def _undone_by_source(c: _Words, quote: str, window: str, at: int | None) -> list[Conflict]:
    """The rest of the quote's sentence in the source (up to 300 characters) undoing it,
    or the next sentence on its line taking it back ("… in 1950. That date is wrong."):
    an ``undone`` conflict, unless the claim keeps the undoing, hedges or denies; a
    condition right after the quote ("…, if funding is found") the claim drops: ``modal``."""
    if at is None or window[at : at + len(quote)] != quote:
        at = window.find(quote) if quote else -1
    if at < 0:
        return []
    after = at + len(quote)
    end = _SENTENCE_END.search(window, after, after + 300)
    ended = bool(_SENTENCE_END.search(quote.rstrip()[-1:] + " "))
    tail = "" if ended else window[after : end.start() if end else after + 300]
    # the next sentence starts after the quote's end (or the quote's sentence's), on the
    # same line or the next one; a blank line ends the paragraph
    nxt_at = after if ended else (end.end() if end else -1)
    while 0 <= nxt_at < len(window) and window[nxt_at] in " \t":
        nxt_at += 1
    if window[nxt_at : nxt_at + 1] == "\n":
        nxt_at = -1 if window[nxt_at + 1 : nxt_at + 2].strip() == "" else nxt_at + 1
    if nxt_at >= len(window):
        nxt_at = -1
    if nxt_at >= 0 and not c.words & (_KEEPS | NEGATIONS | VERDICTS):
        said = _retracted_next(window, nxt_at)
        if said and not _keeps_undoing(c, quote, said):
            return [Conflict("undone", (), (said,))]
    low = _ascii_lower(tail)
    m = (
        _search(_BACK_REFERENCE, tail, low)
        or _search(_HEARSAY, tail, low)
        or _search(_WRONGLY, tail, low)
        or _search(_PRONOUN_UNDONE, tail, low)
        or _search(_GUESS, tail, low)
    )
    stopped = _ENDED.match(tail) if m is None else None
    if stopped and "until" not in c.words and _still(c, quote):
        return [Conflict("undone", (), (" ".join(stopped.group(0).split()),))]
    if _for_good(c):  # "closed for good" cited for "closed, but … reopened it"
        again = _search(_AGAIN, tail, low) or (
            _AGAIN.search(window, nxt_at, nxt_at + 200) if nxt_at >= 0 else None
        )
        if again and not again.group(1) and not c.words & _AGAIN_WORDS:
            return [Conflict("undone", (), (again.group(0),))]
    if m is None and _CONDITION.match(tail) and not c.words & {"if", "unless", "provided"}:
        said = " ".join(tail.split()[:6]).strip(", ")
        return [Conflict("modal", (), (said,))]
    if m is None:
        m = _search(_BUT_UNDONE, tail, low)
        noun = m.group(1) if m else None
        if noun and noun.lower() not in _EVENT_NOUNS and not _refers_back(noun, quote):
            m = None
    if m is None:  # "…, but nothing was ever built": unless the claim is the decision
        m = _search(_BUT_NEVER, tail, low)
        if m and c.words & _read(quote).words & _DECIDING:
            m = None
    if m is None and _still(c, quote):  # "…, which burned down a month later"
        m = _ENDED_AFTER.match(tail)
    if m is None or c.words & (HEDGES | CONTEXT_HEDGES | NEGATIONS | _KEEPS):
        return []
    undoing = {w for w in re.findall(r"[a-z]+", m.group(0).lower()) if len(w) > 3}
    if undoing & c.words - _read(quote).words:  # "…, a figure the union disputes." kept
        return []
    return [Conflict("undone", (), (" ".join(m.group(0).strip(",;(—– ").split()),))]


# a claim that something ended for good, and the source saying it came back
_FOR_GOOD = frozenset({"permanently", "forever", "finally", "irrevocably"})
_AGAIN_WORDS = frozenset({"reopened", "reopen", "reopens", "revived", "resumed", "restored"})
_AGAIN = _Lazy(
    r"(never\s+|not\s+|n't\s+|no\s+longer\s+)?\b(?:re-?opened|re-?opens?|revived|resumed"
    r"|restored|restarted)\b",
    re.I,
)


# the words (lower case) one of which each match of a pattern holds: a text with none of
# them is not searched (``_absent``)
_NEEDS: dict[_Lazy, tuple[str, ...]] = {
    _BACK_REFERENCE: ("story", "claim", "figure", "date", "plan", "rumo", "account", "number")
    + ("estimate", "report", "tale", "legend", "belief", "assertion", "version", "total")
    + ("count",),
    _HEARSAY: ("(", "so", "according"),
    _WRONGLY: ("wrongly", "falsely", "mistakenly", "incorrectly", "erroneously"),
    _PRONOUN_UNDONE: ("this", "that", "which", "it"),
    _GUESS: ("guess", "speculation", "conjecture", "exaggeration"),
    _AGAIN: ("re",),
    _BUT_UNDONE: ("but",),
    _BUT_NEVER: ("but",),
}


def _search(pattern: _Lazy, text: str, low: str | None) -> re.Match[str] | None:
    """``pattern.search(text)``, unless ``text`` lacks every word the pattern needs (``low``:
    ``text`` in lower case when it is ASCII, else None: see ``_absent``)."""
    if low is not None:
        for n in _NEEDS[pattern]:
            if n in low:
                break
        else:
            return None
    return pattern.search(text)


# _REFERS_BACK matches at the start of a text (a word of referring there) or where it
# names a statement: a noun of _SHELL, each holding one of these
_SHELL_STEMS: tuple[str, ...] = (
    "stor",
    "claim",
    "figure",
    "date",
    "number",
    "report",
    "account",
    "statement",
)
_SHELL_STEMS += ("estimate", "rumo", "attribution", "tradition", "version", "legend", "tale")
_SHELL_STEMS += ("assertion", "decision", "ban", "order", "ruling", "verdict", "vote", "plan")


def _refers_back_next(text: str) -> bool:
    """Whether ``_REFERS_BACK`` matches ``text`` (tried only when it can)."""
    low = _ascii_lower(text)
    if low is not None and not low.lstrip().startswith(("th", "both", "none", "all")):
        for n in _SHELL_STEMS:
            if n in low:
                break
        else:
            return False
    return _REFERS_BACK.search(text) is not None


def _ascii_lower(text: str) -> str | None:
    return text.lower() if text.isascii() else None


def _keeps_undoing(c: _Words, quote: str, said: str) -> bool:
    """Whether the claim holds a word of the undoing the quote lacks ("The decision was
    reversed" kept by "…, a decision reversed a week later")."""
    undoing = {w for w in re.findall(r"[a-z]+", said.lower()) if len(w) > 3}
    return bool(undoing & (c.words - _read(quote).words) - _REFERRING)


_REFERRING = frozenset({"this", "that", "these", "those", "both", "none"})


def _for_good(c: _Words) -> bool:
    return bool(c.words & _FOR_GOOD) or {"for", "good"} <= c.words or {"for", "ever"} <= c.words


def _still(c: _Words, quote: str) -> bool:
    """Whether a claim states something as still so: a present-tense word ("is", "still",
    "today") or a verb in the third person the quote does not have ("runs" for "ran")."""
    if c.words & _STILL:
        return True
    theirs = _read(quote).words
    for w in c.words:  # noqa: SIM110 (a loop: no generator to start)
        if (
            w.endswith("s")
            and len(w) > 3
            and not w.endswith(("ss", "us", "is"))
            and w not in theirs
            and w[:-1] not in theirs
        ):
            return True
    return False


def _refers_back(noun: str, quote: str) -> bool:
    """Whether "the NOUN" names what the quote is about: it shares the first four letters
    of a word of the quote ("the opening" for "was to open")."""
    stem = noun.lower()[:4]
    return len(stem) == 4 and any(w.lower().startswith(stem) for w in re.findall(r"\w+", quote))


# a quote that is the precondition of its sentence's outcome: "approved, but only after
# | it had been rejected twice", "| rejected twice | before finally being adopted"
_ONLY_AFTER = re.compile(r"\b(?:only\s+(?:after|once|when)|not\s+until|until)\s*$", re.I)
_BEFORE_FINALLY = re.compile(
    r"^\W*(?:[\w'-]+\s+){0,4}?before\s+(?:finally|eventually|ultimately|at\s+last)\b", re.I
)
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)|\n")


def _precondition_outcome(quote: str, window: str, at: int | None) -> str:
    """The outcome of the quote's sentence when the quote is its precondition (the words
    before "but only after | QUOTE", or after "QUOTE | … before finally"), else ''."""
    if at is None or window[at : at + len(quote)] != quote:
        at = window.find(quote) if quote else -1
    if at < 0:
        return ""
    starts = [m.end() for m in _SENTENCE_END.finditer(window, max(0, at - 300), at)]
    head = window[starts[-1] if starts else max(0, at - 300) : at]
    end = _SENTENCE_END.search(window, at + len(quote), at + len(quote) + 300)
    tail = window[at + len(quote) : end.start() if end else at + len(quote) + 300]
    m = None if _absent(head[-200:], ("only", "until")) else _ONLY_AFTER.search(head[-200:])
    if m:
        return head[-200:][: m.start()]
    m = None if _absent(tail, ("before",)) else _BEFORE_FINALLY.match(tail)
    return tail[m.end() :] if m else ""


def _outcome(c: _Words, q: _Words, outcome: str) -> list[Conflict]:
    """A claim that restates a precondition without its qualifiers ("The plan had been
    rejected" for "… approved, but only after it had been rejected twice") in the words
    opposite to its sentence's outcome: it reads as the outcome. A claim keeping every
    word of the quote states the precondition, and is not flagged."""
    if not outcome or q.words <= c.words:
        return []
    o = _read(outcome)
    words = frozenset(w[2:] if w.startswith("re") and w[2:] in _POLARIZED else w for w in o.words)
    return [
        Conflict("outcome", k.claim_words, k.quote_words)
        for k in _polarity(c, _Words(words, o.numbers))
    ]


# a number the source calls an estimate, a projection or an expectation ("an estimated
# 400 jobs", "is projected to cut … by 20 minutes", "expected to hold 60,000"): the word
# before a number in the quote's clause, the quote included. A claim with one of these
# or an approximation ("about 400") hedges as much
ESTIMATES = frozenset(
    {
        "estimated",
        "estimate",
        "estimates",
        "projected",
        "projection",
        "projections",
        "expected",
        "expect",
        "expects",
        "forecast",
        "forecasts",
        "forecasted",
        "predicted",
        "predicts",
        "predict",
        "anticipated",
        "targeted",
    }
)
APPROXIMATE = ESTIMATES | frozenset(
    {"about", "approximately", "roughly", "around", "nearly", "almost", "some", "est"}
)
_ESTIMATE_WORDS = tuple(sorted(ESTIMATES))
_ESTIMATE = re.compile(r"\b(" + "|".join(_ESTIMATE_WORDS) + r")\b\D{0,80}?\d", re.IGNORECASE)


def _estimate(text: str) -> str:
    """The estimate word before a number in ``text`` (a quote's clause), else ''."""
    text = text[:2000]
    if not _maybe_digit(text) or _absent(text, _ESTIMATE_WORDS):
        return ""  # the pattern needs a digit and one of the words
    m = _ESTIMATE.search(text)
    return m.group(1).lower() if m else ""


def _attribution(claim: str, known: str) -> list[Conflict]:
    names = attributed(claim)
    if not names:
        return []
    seen = set(re.findall(r"[a-z]+", known.lower()))
    if any(n in seen for n in names):
        return []
    return [Conflict("attribution", names, ())]


def _polarity(c: _Words, q: _Words) -> list[Conflict]:
    if c.words.isdisjoint(_POLARIZED) or q.words.isdisjoint(_POLARIZED):
        return []  # most sentences: no word of the list on one side
    out = []
    for a, b in _POLARITY_FORMS:
        for mine, theirs in ((a, b), (b, a)):
            if c.words & mine and q.words & theirs and not c.words & theirs and not q.words & mine:
                out.append(
                    Conflict(
                        "polarity",
                        tuple(sorted(c.words & mine)),
                        tuple(sorted(q.words & theirs)),
                    )
                )
                break
    return out


# a decision, a promise or an intention to do something, not the deed ("voted to build",
# "agreed to sell"): a claim with the deed in the past and none of these words reports it
# as done
DECISIONS = frozenset(
    {"voted", "votes", "vote", "decided", "decides", "agreed", "agrees", "resolved"}
    | {"promised", "promises", "pledged", "pledges", "vowed", "undertook", "offered"}
    | {"intended", "intends", "aimed", "aims", "wanted", "wants", "sought", "seeks"}
    | {"planned", "plans", "proposed", "proposes", "tried", "attempted", "threatened"}
)
_DECISION_WORDS = tuple(sorted(DECISIONS))
_DECIDED = re.compile(r"\b(" + "|".join(_DECISION_WORDS) + r")\s+to\s+([a-z]{2,20})\b", re.I)
# verbs whose deed is the decision itself: "decided to adopt the plan" is adopting it
PERFORMATIVES = frozenset(
    {"adopt", "approve", "accept", "reject", "appoint", "endorse", "ratify", "authorise"}
    | {"authorize", "elect", "award", "grant", "refuse", "decline", "dismiss", "recommend"}
    | {"support", "oppose", "back", "veto", "confirm", "sanction", "affirm"}
)
# the irregular pasts of the verbs a decision is usually about
_IRREGULAR = {
    "build": "built",
    "sell": "sold",
    "buy": "bought",
    "make": "made",
    "pay": "paid",
    "give": "gave",
    "take": "took",
    "hold": "held",
    "keep": "kept",
    "leave": "left",
    "begin": "began",
    "run": "ran",
    "win": "won",
    "lose": "lost",
    "send": "sent",
    "spend": "spent",
    "bring": "brought",
    "set": "set",
    "cut": "cut",
    "shut": "shut",
    "rebuild": "rebuilt",
    "withdraw": "withdrew",
    "go": "went",
    "meet": "met",
}


def _decided(c: _Words, quote: str) -> list[Conflict]:
    """A decision in the quote ("The council voted to build a new bridge") stated in the
    claim as the deed done ("The council built a new bridge"): the verb's past tense in
    the claim, and no word of deciding."""
    if c.words & DECISIONS or _absent(quote[:2000], _DECISION_WORDS):
        return []
    for m in _DECIDED.finditer(quote[:2000]):
        verb = m.group(2).lower()
        if verb in PERFORMATIVES:
            continue
        done = {verb + "ed", verb + "d", _IRREGULAR.get(verb, "")}
        if verb.endswith("y") and len(verb) > 2:
            done.add(verb[:-1] + "ied")
        if c.words & done - {""} and verb not in c.words:
            return [Conflict("modal", tuple(sorted(c.words & done)), (m.group(0).lower(),))]
    return []


def _modal(c: _Words, q: _Words, hedged: frozenset[str] = frozenset()) -> list[Conflict]:
    if c.words & (HEDGES | CONTEXT_HEDGES):
        return []
    if hedged and not q.words & HEDGES:
        return [Conflict("modal", tuple(sorted(c.words & CERTAIN)), tuple(sorted(hedged)))]
    qhedge = q.words & HEDGES
    if not qhedge:
        return []
    if c.words & CERTAIN:
        return [Conflict("modal", tuple(sorted(c.words & CERTAIN)), tuple(sorted(qhedge)))]
    strong = q.words & STRONG_HEDGES
    if strong:
        return [Conflict("modal", (), tuple(sorted(strong)))]
    return []
