"""The offline judge's rules: what a rule can see between a claim and its quote.

Numbers, dates and units the claim has but neither the quote nor the window of source
text around it has (a number stated near the quote is not a conflict); a negation on
one side only; a polarity flip (adopt/reject, increase/decrease, allow/forbid,
before/after…) from the small list ``POLARITY`` below; a modal shift (the quote hedges,
recommends or leaves a question open, the claim asserts); a superlative or universal the
quote lacks.  Each conflict names the words that differ.  No network, no model: a
tripwire, not a judgement of support (docs/checks.md; the LLM judge gets these as hints).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

WINDOWED = ("number", "unit")  # the rules that read the window of source text around a quote
NEGATIONS = frozenset({"not", "no", "never", "none", "nor", "cannot", "without", "neither"})
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
        "recommendation",
        "propose",
        "proposes",
        "proposed",
        "proposal",
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
UNITS = frozenset(
    {
        "%",
        "km",
        "m",
        "cm",
        "mm",
        "kg",
        "g",
        "mg",
        "lb",
        "miles",
        "mile",
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
        "°c",
        "°f",
        "degrees",
        "usd",
        "$",
        "€",
        "£",
        "million",
        "billion",
        "thousand",
        "feet",
        "foot",
        "tons",
    }
)
UNIT_ALIASES = {"percent": "%", "pct": "%", "dollars": "$", "dollar": "$", "euros": "€"}
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
        ("guilty", "innocent acquitted"),
        ("alive", "dead"),
        ("north", "south"),
        ("east", "west"),
    )
)

_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?|\d+(?:[.,]\d+)*|[%$€£°]")
_NUMBER_NAMES = frozenset(NUMBER_WORDS)
_ALIASES = frozenset(UNIT_ALIASES)


@dataclass(frozen=True)
class Conflict:
    kind: str  # number | unit | negation | polarity | modal | superlative
    claim_words: tuple[str, ...]
    quote_words: tuple[str, ...]

    def describe(self) -> str:
        c = ", ".join(self.claim_words) or "—"
        q = ", ".join(self.quote_words) or "—"
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


def _read(text: str) -> _Words:
    """The text's words (number words as digits, unit aliases unified) and its numbers
    without commas."""
    text = text.lower().replace("n't", " not").replace("per cent", "percent")
    words = set(_WORD.findall(text))
    numbers = {w.replace(",", "") for w in words if w[0].isdigit()}
    named = words & _NUMBER_NAMES
    if named:
        spelled = {NUMBER_WORDS[w] for w in named}
        words = (words - named) | spelled
        numbers |= spelled
    if words & _ALIASES:
        words = {UNIT_ALIASES.get(w, w) for w in words}
    return _Words(frozenset(words), frozenset(numbers))


_DIGEST: list[str] = []


def rules_digest() -> str:
    """A digest of this module's code: what a cached result of ``conflicts`` depends on."""
    if not _DIGEST:
        _DIGEST.append(hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16])
    return _DIGEST[0]


def conflicts(claim: str, quote: str, window: str = "", source: str = "") -> list[Conflict]:
    """What a rule sees between ``claim`` and ``quote``; numbers and units stated in the
    ``window`` of source text around the quote count as the quote's."""
    c, q = _read(claim), _read(quote)
    near = _read(f"{quote}\n{window}") if window else q
    out: list[Conflict] = []
    if c.numbers - near.numbers:
        out.append(
            Conflict("number", tuple(sorted(c.numbers - near.numbers)), tuple(sorted(q.numbers)))
        )
    cu, qu = c.words & UNITS, near.words & UNITS
    if cu - qu and qu:
        out.append(Conflict("unit", tuple(sorted(cu - qu)), tuple(sorted(q.words & UNITS))))
    cneg, qneg = c.words & NEGATIONS, q.words & NEGATIONS
    if bool(cneg) != bool(qneg):
        out.append(Conflict("negation", tuple(sorted(cneg)), tuple(sorted(qneg))))
    out += _polarity(c, q)
    out += _modal(c, q)
    sup = (c.words & SUPERLATIVES) - q.words
    if sup:
        out.append(Conflict("superlative", tuple(sorted(sup)), ()))
    return out


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


def _modal(c: _Words, q: _Words) -> list[Conflict]:
    qhedge = q.words & HEDGES
    if not qhedge or c.words & HEDGES:
        return []
    if c.words & CERTAIN:
        return [Conflict("modal", tuple(sorted(c.words & CERTAIN)), tuple(sorted(qhedge)))]
    strong = q.words & STRONG_HEDGES
    if strong:
        return [Conflict("modal", (), tuple(sorted(strong)))]
    return []
