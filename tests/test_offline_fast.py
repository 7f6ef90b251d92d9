"""The offline judge's fast paths give the verdicts of the plain rules (issue 25): each
pattern skipped only on text it cannot match, reads memoised, a window's words read only
for a claim they can change; a verification runs the rules once per claim; and the rules'
cost per claim stays bounded (the timing tier)."""

from __future__ import annotations

import re

import pygit2
import pytest
from support.cost import FLOOR, cpu_seconds
from support.semantic_cases import FAITHFUL, UNFAITHFUL
from support.trees import commit_files
from support.verifying import verify_trees

from wikigate.config import Config
from wikigate.verifier.checks import semantic
from wikigate.verifier.citation import format_tail
from wikigate.verifier.judges import offline
from wikigate.verifier.judges.offline import conflicts, read_words, source_label

WINDOW = Config().judge.window_chars
CASES = [*FAITHFUL, *UNFAITHFUL]

# text built to reach each skipped pattern: its words in every case, next to ones outside
# ASCII that case folding maps onto ASCII letters (ſ is s, K the Kelvin sign is k, ı and
# İ are i), digits of other scripts (٣), a curly apostrophe
TRICKY = [
    "The figure, a STORY later shown to be FALSE, was REVISED.",
    "It opened in 1890 (in fact it was never completed), or ſo his rivals claimed.",
    "…, according to estimates by its promoters; This was later retracted.",
    "— a plan that was abandoned, a rough guess by the station master",
    "The guidebook wrongly stated it, but the opening was postponed, but nothing was ever built",
    "  None of this happened. Both claims are baseless. The decision was reversed.",
    "THE VOTE WAS OVERTURNED. thıs account is doubtful. Thİs story is unfounded.",
    "It was reopened; it RE-OPENED; it was reſtored; it was not revived",
    "The council VOTED TO BUILD a bridge; they ᴋ-voted to sell; it was estimated at ٣ km",
    "An ESTIMATED 400 jobs; projected to cut 20 minutes; expected to hold 60,000",
    "approved, but ONLY AFTER it had been rejected; not until 1901; rejected twice BEFORE FINALLY",
    "Dr. Harris said it; according to the Gazette; The Times REPORTED; K Smith states",
    "twenty-two, four thousand, a third, two THIRTY, ninety nine, 2.5 million",
    "3 May 1921, 21st March, the ３ june, it's, don't, o'clock, 45% and $30 and 90°",
    "Co-first author Smith; FIRST-class; fırst author; Section 2.3 [59] (1) et al. 2015",
    "He would have gone; WOULD HAVE; not only, NEVER JUST, did not approve; may; May",
]


def _texts() -> list[str]:
    """Claims, quotes, sources and pieces of them, and the tricky lines."""
    out = list(TRICKY)
    for c in CASES:
        out += [c.claim, c.quote, c.source]
        out += re.split(r"(?<=[.;,])\s+", c.source)
        at = c.source.index(c.quote) + len(c.quote)
        out.append(c.source[at : at + 300])
    return out


def _calls() -> list[tuple[tuple[str, ...], dict[str, object]]]:
    """Every corpus case without and with its window, and each tricky line as a claim, a
    quote and the source after a quote."""
    calls: list[tuple[tuple[str, ...], dict[str, object]]] = []
    for c in CASES:
        at = c.source.index(c.quote)
        start = max(0, at - WINDOW)
        around = c.source[start : at + len(c.quote) + WINDOW]
        label = source_label(c.path, c.source)
        calls.append(((c.claim, c.quote), {}))
        calls.append(((c.claim, c.quote, around, label), {"at": at - start}))
        calls.append(((c.claim, c.quote, around, label), {"row": f"| {c.claim} | about |"}))
    for line in TRICKY:
        for c in CASES[:: max(1, len(CASES) // 12)]:
            window = f"{c.quote} {line}\n{line}"
            calls.append(((c.claim, c.quote, window, f"raw/x.txt\n{line}"), {"at": 0}))
            calls.append(((line, c.quote, window, "raw/x.txt"), {"at": 0}))
            calls.append(((c.claim, line, f"{line}, {line}. {line}", "raw/x.txt"), {}))
    return calls


def _every_pattern_tried(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rules as written before the fast paths: no test before a pattern, no memo."""
    monkeypatch.setattr(offline, "_absent", lambda text, needed: False)
    monkeypatch.setattr(offline, "_ascii_lower", lambda text: None)
    monkeypatch.setattr(offline, "_ascii_digit", lambda text: True)
    monkeypatch.setattr(offline, "_maybe_digit", lambda text: True)
    monkeypatch.setattr(offline, "_spelled", lambda text: True)
    monkeypatch.setattr(offline, "_SAYS_STEMS", ("",))
    monkeypatch.setattr(offline, "_NAME_SAYS", re.compile(""))
    monkeypatch.setattr(offline, "_WORD_LOWER", offline._WORD)
    monkeypatch.setattr(
        offline, "_refers_back_next", lambda t: offline._REFERS_BACK.search(t) is not None
    )
    monkeypatch.setattr(offline, "_MEMO_CHARS", -1)
    offline.forget()


def _described(calls: list[tuple[tuple[str, ...], dict[str, object]]]) -> list[list[str]]:
    return [[k.describe() for k in conflicts(*a, **kw)] for a, kw in calls]  # type: ignore[arg-type]


def test_the_fast_rules_give_the_verdicts_of_every_pattern_tried(monkeypatch):
    calls = _calls()
    texts = _texts()
    offline.forget()
    fast = _described(calls)
    fast_words = [read_words(t) for t in texts]
    assert any(fast) and not all(fast)  # the corpus has both kinds
    with monkeypatch.context() as m:
        _every_pattern_tried(m)
        plain = _described(calls)
        plain_words = [read_words(t) for t in texts]
    offline.forget()
    assert [i for i, (a, b) in enumerate(zip(fast, plain, strict=True)) if a != b] == []
    assert fast_words == plain_words


def test_a_skipped_pattern_is_one_that_cannot_match():
    for text in _texts():
        low = offline._ascii_lower(text)
        for pattern in offline._NEEDS:
            want = pattern.search(text)
            got = offline._search(pattern, text, low)
            assert (got and got.span()) == (want and want.span()), (pattern.pattern, text)
        assert offline._refers_back_next(text) == bool(offline._REFERS_BACK.search(text)), text
        low_text = text.lower()
        if offline._SPELLED.search(low_text):
            assert offline._spelled(low_text), text
        if offline._DATE_DAY.search(low_text):
            assert offline._ascii_digit(low_text), text
        if offline._SAID.search(text):
            assert offline._NAME_SAYS.search(text), text


def test_memoised_reads_equal_fresh_ones_and_the_memo_stays_bounded():
    texts = _texts()
    offline.forget()
    first = [read_words(t) for t in texts]
    assert [read_words(t) for t in texts] == first  # from the memo
    offline.forget()
    assert [read_words(t) for t in texts] == first
    for i in range(3 * offline._MEMO_MAX):
        read_words(f"claim {i}")
    assert len(offline._MEMO) <= offline._MEMO_MAX
    huge = "word " * (offline._MEMO_CHARS // 5 + 1)
    read_words(huge)
    assert huge not in offline._MEMO
    offline.forget()


def test_a_verification_runs_the_rules_once_per_claim(tmp_path, monkeypatch):
    """The rules read every claim with its window: no second pass without it."""
    repo = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    source = "".join(f"The pier number {k} was built of oak in the spring. " for k in range(40))
    quotes = [f"The pier number {k} was built of oak" for k in range(0, 40, 4)]
    base = commit_files(repo, None, {"raw/s.txt": source})
    body = " ".join(f"Pier {k * 4} was built of oak.[^{k}]" for k in range(len(quotes)))
    defs = "\n".join(
        f"[^{k}]: {format_tail('raw/s.txt', None, q, source.index(q))}"
        for k, q in enumerate(quotes)
    )
    page = f"---\ntitle: P\n---\n# P\n\n{body}\n\n{defs}\n"
    tip = commit_files(repo, base.id, {"wiki/p.md": page})
    seen: list[tuple[str, str]] = []
    rules = semantic.conflicts

    def counted(*args, **kwargs):
        seen.append((args[0], args[2] if len(args) > 2 else ""))
        return rules(*args, **kwargs)

    monkeypatch.setattr(semantic, "conflicts", counted)
    report = verify_trees(repo, tip, base, config=Config())
    assert report.summary.citations == len(quotes)
    assert len(seen) == len(quotes)  # once each, before: twice (once without the window)
    assert all(window for _, window in seen)


# prose of the corpus's sources, long enough for a window of the default size each side
_PROSE = " ".join(c.source.replace("\n", " ") for c in CASES)


def _timed_calls(n: int) -> list[tuple[str, str, str, str, int]]:
    out = []
    for i in range(n):
        c = CASES[i % len(CASES)]
        at = (i * 997) % max(1, len(_PROSE) - 2 * WINDOW)
        window = f"{_PROSE[at : at + WINDOW]} {c.quote} {_PROSE[at + WINDOW : at + 2 * WINDOW]}"
        out.append((f"{c.claim} ({i})", c.quote, window, "raw/s.txt\nSource", WINDOW + 1))
    return out


@pytest.mark.timing
def test_the_rules_cost_per_claim_is_bounded_and_linear():
    """Claims of the corpus with a number each (so the window's words are read too), on
    windows of real prose: ~0.5-0.8 ms of CPU a claim on a busy machine, as before issue
    25 (the cost of reading a window; a claim without numbers or units costs less than
    half of that since). The bound is a few times that, the ratio of two sizes linear."""

    def go(calls: list[tuple[str, str, str, str, int]]) -> None:
        offline.forget()
        for claim, quote, window, label, at in calls:
            conflicts(claim, quote, window, label, at=at)

    small, large = _timed_calls(500), _timed_calls(2000)
    t_small = cpu_seconds(lambda: go(small))
    t_large = cpu_seconds(lambda: go(large))
    per_claim = t_large / len(large)
    assert per_claim < 3e-3, f"the rules took {per_claim * 1e3:.2f} ms of CPU a claim"
    assert t_large < 8 * max(t_small, FLOOR), (t_small, t_large)
