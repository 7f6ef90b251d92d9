"""Does the quote support the claim?  The offline, deterministic judge.

This is a heuristic, and says so: it flags only what a rule can see —
numbers, dates and units that differ, a negation on one side only, a modal
shift (may/should → must/is), a superlative the quote does not have.  An LLM
judge plugs into the same :class:`Judge` protocol.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

NEGATIONS = frozenset({"not", "no", "never", "none", "nor", "cannot", "without", "neither"})
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
        "suggests",
        "suggest",
        "sometimes",
        "often",
    }
)
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
        "percent",
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
    "twenty": "20",
    "hundred": "100",
}

_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?|\d+(?:[.,]\d+)*|[%$€£°]")


@dataclass(frozen=True)
class Conflict:
    kind: str  # number | unit | negation | modal | superlative
    claim_words: tuple[str, ...]
    quote_words: tuple[str, ...]

    def describe(self) -> str:
        c = ", ".join(self.claim_words) or "—"
        q = ", ".join(self.quote_words) or "—"
        return f"{self.kind}: claim has [{c}], quote has [{q}]"


class Judge(Protocol):
    """Compare a claim with the quote cited for it."""

    name: str

    def judge(self, claim: str, quote: str) -> list[Conflict]: ...


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")  # the same numbers _WORD finds
_NUMBER_NAMES = frozenset(NUMBER_WORDS)


def _words(text: str) -> tuple[set[str], set[str]]:
    """The text's words (number words as digits), and its numbers without commas."""
    text = text.lower().replace("n't", " not")
    words = set(_WORD.findall(text))
    named = words & _NUMBER_NAMES
    numbers = {n.replace(",", "") for n in _NUMBER.findall(text)}
    if named:
        spelled = {NUMBER_WORDS[w] for w in named}
        words = (words - named) | spelled
        numbers |= spelled
    return words, numbers


class HeuristicJudge:
    """Rules only; never calls out.  Each conflict names the words that differ."""

    name = "heuristic"

    def judge(self, claim: str, quote: str) -> list[Conflict]:
        (cs, cn), (qs, qn) = _words(claim), _words(quote)
        conflicts: list[Conflict] = []
        if cn - qn:
            conflicts.append(Conflict("number", tuple(sorted(cn - qn)), tuple(sorted(qn))))
        cu, qu = cs & UNITS, qs & UNITS
        if cu - qu and qu:
            conflicts.append(Conflict("unit", tuple(sorted(cu - qu)), tuple(sorted(qu))))
        cneg, qneg = cs & NEGATIONS, qs & NEGATIONS
        if bool(cneg) != bool(qneg):
            conflicts.append(Conflict("negation", tuple(sorted(cneg)), tuple(sorted(qneg))))
        qhedge = qs & HEDGES
        if qhedge and not (cs & HEDGES) and (cs & CERTAIN):
            conflicts.append(Conflict("modal", tuple(sorted(cs & CERTAIN)), tuple(sorted(qhedge))))
        sup = (cs & SUPERLATIVES) - qs
        if sup:
            conflicts.append(Conflict("superlative", tuple(sorted(sup)), ()))
        return conflicts
