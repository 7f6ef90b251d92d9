"""The offline judge's rules on a corpus of faithful and unfaithful claims
(tests/support/semantic_cases.py), and through a real verification."""

from __future__ import annotations

import pygit2
import pytest
from support.semantic_cases import FAITHFUL, UNFAITHFUL, Case, half
from support.trees import at, commit_files
from support.verifying import verify_trees

from wikigate.config import Config
from wikigate.verifier.citation import format_tail
from wikigate.verifier.judges.offline import (
    conflicts,
    inflections,
    needs_source,
    source_label,
)

WINDOW = Config().judge.window_chars
DEV_FAITHFUL = [c for c in FAITHFUL if half(c) == "dev"]
DEV_UNFAITHFUL = [c for c in UNFAITHFUL if half(c) == "dev"]


def window(c: Case) -> str:
    start = c.source.index(c.quote)
    return c.source[max(0, start - WINDOW) : start + len(c.quote) + WINDOW]


def rules(c: Case) -> set[str]:
    """The kinds of conflict the rules see, as a verification runs them: the source
    around the quote read only when ``needs_source`` says it can change the verdict."""
    found = conflicts(c.claim, c.quote)
    if needs_source(c.claim, c.quote, found):
        found = conflicts(c.claim, c.quote, window(c), source_label(c.path, c.source))
    return {k.kind for k in found}


def test_the_corpus_halves_are_fixed_and_both_hold_both_kinds():
    for cases in (FAITHFUL, UNFAITHFUL):
        halves = {half(c) for c in cases}
        assert halves == {"dev", "held-out"}
    # the split is by the claim's text: stable whatever the lists' order
    assert half(FAITHFUL[0]) == half(FAITHFUL[0]._replace(quote="x", source="x"))


@pytest.mark.parametrize("case", DEV_FAITHFUL, ids=lambda c: c.claim[:40])
def test_no_flag_on_a_faithful_claim(case):
    assert rules(case) == set()


CAUGHT = {
    "negation dropped": "negation",
    "adopted reported as rejected": "polarity",
    "a recommendation stated as fact": "modal",
    "an open question stated as decided": "modal",
    "scope overgeneralised": "superlative",
    "a number taken from elsewhere": "number",
    "increase reported as decrease": "polarity",
    "forbid reported as allow": "polarity",
    "before reported as after": "polarity",
    "may reported as must": "modal",
    "unit changed": "unit",
    "rose reported as fell": "polarity",
    "an announcement of the future reported as done": "modal",
    "negation before the quote dropped": "negation",
    "a denial reported as a statement": "negation",
    "a refusal reported as done": "negation",
    "a proposal before the quote reported as done": "modal",
    "a rumour reported as fact": "modal",
    "a hypothetical reported as done": "modal",
    "a fraction changed": "number",
    "a number word changed": "number",
    "attributed to another source": "attribution",
    "a denial after the quote dropped": "negation",
    "a precondition reported as the outcome": "outcome",
    "an estimate reported as fact": "modal",
    # the third review of issue 24: the rest of the source's sentence undoes the quote
    "a story the source calls false": "undone",
    "a correction in brackets": "undone",
    "a promoters' estimate reported as fact": "undone",
    "a belief reported as fact": "modal",
    "a disputed figure": "undone",
    "a claim by rivals reported as fact": "undone",
    "a revised figure": "undone",
    "a postponed event reported as done": "undone",
    "a disputed claim": "undone",
    "an abandoned plan reported as done": "undone",
    # the fourth review: the next sentence, "but the work never started", a name swapped
    "a plan whose work never started reported as done": "undone",
    "a dropped plan reported as done": "undone",
    "a claim the next sentence calls false": "undone",
    "a statement the source calls wrong": "undone",
    "a vote for reported as a refusal": "negation",
    "another person's name": "name",
    "another place": "name",
    # a decision reported as done
    "an agreement to sell reported as a sale": "modal",
    "a vote to build reported as built": "modal",
    # the fifth review: a unit of the same kind swapped, flips, "for good" undone
    "acquitted reported as convicted": "polarity",
    "yards for metres": "unit",
    "inches for feet": "unit",
    "francs for pounds": "unit",
    "yen for dollars": "unit",
    "shillings for pounds": "unit",
    "closed for good, but reopened": "undone",
    # the sixth review: retractions in the next sentence (a whole-sentence quote's too),
    # undoings after the quote, a year from another sentence
    "a correction in the next sentence": "undone",
    "next sentence: this never happened": "undone",
    "next sentence after a whole-sentence quote: this never happened": "undone",
    "next sentence: none of this is true": "undone",
    "next sentence: this attribution is doubtful": "undone",
    "next sentence: the claim appears in no record": "undone",
    "next sentence: historians reject this account": "undone",
    "next sentence: the decision was reversed": "undone",
    "but nothing was ever built": "undone",
    "which burned down a month later": "undone",
    "according to a later and unreliable estimate": "undone",
    "a year from another sentence of the source": "number",
}


@pytest.mark.parametrize("case", DEV_UNFAITHFUL, ids=lambda c: c.wrong or "")
def test_what_the_rules_see_of_unfaithful_claims(case):
    kinds = rules(case)
    expected = CAUGHT.get(case.wrong or "")
    if expected is None:  # beyond any word rule: the LLM judge's job (docs/judge.md)
        assert kinds == set()
    else:
        assert expected in kinds


def test_inflections_match_regular_forms_only():
    assert {"adopts", "adopted", "adopting"} <= inflections("adopt")
    assert {"banned", "banning"} <= inflections("ban")
    assert {"reduced", "reducing", "reduces"} <= inflections("reduce")
    assert {"denied", "denies"} <= inflections("deny")
    assert "address" not in inflections("add")


def test_through_verification_a_flip_is_found_and_a_nearby_date_is_not(tmp_path):
    repo = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    source = "Minutes, Q3 2024.\nAfter a long debate the committee decided to adopt the plan.\n"
    quote = "the committee decided to adopt the plan"
    tail = format_tail("raw/m.txt", None, quote, source.find(quote))
    base = commit_files(repo, None, {"raw/m.txt": source})
    tip = commit_files(
        repo,
        base.id,
        {
            "wiki/p.md": "---\ntitle: P\n---\n# P\n\n"
            "In Q3 2024 the committee decided to adopt the plan.[^1] "
            "The committee rejected the plan.[^2]\n\n"
            f"[^1]: {tail}\n[^2]: {tail}\n"
        },
    )
    report = verify_trees(repo, tip, base, config=Config())
    (flag,) = at(report, "citation.semantic_conflict")
    assert flag.message.startswith("[^2] may not support the claim (heuristic judge): polarity")
    assert "claim has [rejected], quote has [adopt]" in flag.message


def test_a_semantic_conflict_is_located_at_its_footnote_with_its_claim_kept(tmp_path):
    """As ``citation.quote_not_found`` is: the finding's line is the footnote's definition
    (the conflict is about what that footnote quotes), the claim's text and lines kept."""
    repo = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    source = "Minutes, Q3 2024.\nAfter a long debate the committee decided to adopt the plan.\n"
    quote = "the committee decided to adopt the plan"
    tail = format_tail("raw/m.txt", None, quote, source.find(quote))
    base = commit_files(repo, None, {"raw/m.txt": source})
    page = (
        "---\ntitle: P\n---\n# P\n\n"  # lines 1-5
        "The committee met in Q3 2024.[^1]\n\n"  # line 6
        "The committee rejected\nthe plan.[^2]\n\n"  # lines 8-9
        "[^1]: raw/m.txt\n"  # line 11: an unquoted reference
        f"[^2]: {tail}\n"  # line 12
    )
    tip = commit_files(repo, base.id, {"wiki/p.md": page})
    report = verify_trees(repo, tip, base, config=Config())
    (flag,) = at(report, "citation.semantic_conflict")
    assert flag.message.startswith("[^2] may not support the claim"), flag.message
    assert flag.line == 12  # the footnote's definition
    assert (flag.claim_start_line, flag.claim_line) == (8, 9)  # the claim's sentence
    assert flag.claim == "The committee rejected the plan."


def _page_citing(repo, sources: dict[str, str], claims: list[tuple[str, str, str]]):
    """A base holding ``sources`` and a tip adding a page whose claims cite them:
    (claim, source path, quote)."""
    base = commit_files(repo, None, sources)
    body, defs = [], []
    for k, (claim, path, quote) in enumerate(claims, 1):
        body.append(f"{claim}[^{k}]")
        defs.append(f"[^{k}]: {format_tail(path, None, quote, sources[path].index(quote))}")
    page = "---\ntitle: P\n---\n# P\n\n" + " ".join(body) + "\n\n" + "\n".join(defs) + "\n"
    return base, commit_files(repo, base.id, {"wiki/p.md": page})


def test_through_verification_the_words_before_a_quote_can_deny_it(tmp_path):
    repo = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    minutes = (
        "Minutes of the March meeting.\nThe Board did not approve the proposal to extend "
        "the pier, citing costs. The Board approved the harbour budget.\n"
    )
    base, tip = _page_citing(
        repo,
        {"raw/minutes.txt": minutes},
        [
            (
                "The Board voted to approve the proposal to extend the pier.",
                "raw/minutes.txt",
                "approve the proposal to extend the pier",
            ),
            ("The Board approved the harbour budget.", "raw/minutes.txt", "approved the harbour"),
        ],
    )
    report = verify_trees(repo, tip, base, config=Config())
    (flag,) = at(report, "citation.semantic_conflict")  # the faithful second claim is not
    assert flag.message.startswith("[^1] may not support the claim (heuristic judge): negation")
    assert "quote has [not]" in flag.message


def test_through_verification_fractions_and_number_words_are_numbers(tmp_path):
    repo = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    report_text = (
        "Annual report. The programme cut costs by one third in its first year. "
        "Twenty-two members of the council resigned. Some four thousand people came.\n"
    )
    base, tip = _page_citing(
        repo,
        {"raw/report.txt": report_text},
        [
            ("The programme cut costs by half.", "raw/report.txt", "cut costs by one third"),
            (
                "Twenty members of the council resigned.",
                "raw/report.txt",
                "Twenty-two members of the council resigned",
            ),
            ("Some 4,000 people came.", "raw/report.txt", "Some four thousand people came"),
        ],
    )
    report = verify_trees(repo, tip, base, config=Config())
    flags = at(report, "citation.semantic_conflict")
    assert [f.message.split(" ")[0] for f in flags] == ["[^1]", "[^2]"], flags
    assert "number: claim has [50], quote has [33]" in flags[0].message
    assert "number: claim has [20], quote has [22]" in flags[1].message


def test_through_verification_a_claim_names_the_source_it_cites(tmp_path):
    repo = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    annual = "Annual Report of the Mill Company, 1921.\nAfter seventy years the mill closed.\n"
    gazette = "LOCAL NEWS. After seventy years the mill closed.\n"
    base, tip = _page_citing(
        repo,
        {"raw/annual-report.txt": annual, "raw/gazette-1921.txt": gazette},
        [
            ("The Gazette reported that the mill closed.", "raw/annual-report.txt", "the mill"),
            ("The Gazette reported that the mill closed.", "raw/gazette-1921.txt", "the mill"),
        ],
    )
    report = verify_trees(repo, tip, base, config=Config())
    (flag,) = at(report, "citation.semantic_conflict")
    assert flag.message.startswith("[^1] may not support the claim (heuristic judge)")
    assert "attribution: claim has [gazette]" in flag.message


HOSTILE = [
    "According to the Gazette ",
    "twenty-two four thousand ",
    "a half two thirds three quarters ",
    "The Gazette Daily News Times reported ",
    "did not fail to, ",
    "x" * 50,
    "was later was never ",
    "but only after ",
    "an estimated ",
    "before finally ",
    "3 May 4 June ",
    "Jane Hill met John Smith ",
    "but the work never ",
    "This turned out to be ",
    ", if x, unless ",
    "voted to build agreed to sell ",
    "This never happened. None of this ",
    "but no tracks were ever ",
    ", which burned down , a ban ",
    "according to one unsourced the ",
    "in 1922. The Grand Navigation Company ",
    '"a b c" (Smith et al. 2011, 2012 ',
    "Section 1, 2, 3 and [4, 5] (6) ",
    '"" "x "y" (z ',
    "first-first co-first a third third ",
]


@pytest.mark.parametrize("pattern", HOSTILE)
@pytest.mark.timing
def test_the_rules_take_linear_time_on_hostile_text(pattern):
    import gc
    import time

    def cpu(n: int) -> float:
        text = (pattern * (n // len(pattern) + 1))[:n]
        best = float("inf")
        gc.disable()
        try:
            for _ in range(3):
                t0 = time.process_time()
                conflicts(text, text[: n // 2], text, source_label("raw/a.txt", text))
                best = min(best, time.process_time() - t0)
        finally:
            gc.enable()
        return best

    a, b = cpu(20_000), cpu(80_000)
    assert b < 8 * a + 0.05, f"{pattern!r}: {a:.3f} s -> {b:.3f} s for 4x the input"


def test_the_documented_figures_are_the_measured_ones():
    """docs/checks.md's row for the current rules is what the rules do on both halves."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "checks.md").read_text()
    section = doc.split("### How well the offline judge does", 1)[1].split("\n#", 1)[0]
    (row,) = [line for line in section.splitlines() if line.startswith("| now |")]
    cells = [c.strip().strip("*") for c in row.strip("|").split("|")][1:]
    measured = []
    for name in ("dev", "held-out"):
        unfaithful = [c for c in UNFAITHFUL if half(c) == name]
        faithful = [c for c in FAITHFUL if half(c) == name]
        measured.append(f"{sum(1 for c in unfaithful if rules(c))} of {len(unfaithful)}")
        measured.append(f"{sum(1 for c in faithful if rules(c))} of {len(faithful)}")
    assert cells == measured


@pytest.mark.parametrize(
    ("claim", "quote", "source"),
    [
        (
            "The expedition failed to reach the summit in 1924.",
            "reach the summit",
            "In 1924 the expedition failed to reach the summit after two attempts.\n",
        ),
        (
            "The minister denied that she had met the contractor.",
            "had met the contractor",
            "The minister denied that she had met the contractor.\n",
        ),
        (
            "The statement is intended to ease migration to future versions.",
            "versions of Python",
            "The statement is intended to ease migration to future versions of Python.\n",
        ),
        (
            "The council approved the budget in June.",
            "approved the budget",
            "The council, which had not met since May, approved the budget in June.\n",
        ),
        # history, a month, an emphasis, a condition after the quote: no hedge, no denial
        (
            "In 1857 Ottawa became the capital.",
            "become the capital in 1857",
            "In 1850 he moved to Ottawa, which would become the capital in 1857.\n",
        ),
        (
            "The council approved the budget in spring.",
            "the council approved the budget",
            "In May the council approved the budget.\n",
        ),
        (
            "The canal carried coal to the coast.",
            "carried coal to the coast",
            "The canal not only carried coal to the coast but also grain.\n",
        ),
        (
            "The council approved the plan.",
            "The council approved the plan",
            "The council approved the plan without amendment.\n",
        ),
        # a lone capitalised word starting the sentence may be no name at all
        (
            "Officials said the bridge was unsafe.",
            "the bridge was unsafe",
            "An inspection in 1879 found that the bridge was unsafe.\n",
        ),
    ],
)
def test_what_surrounds_a_quote_flags_only_a_denial_or_hedge_the_claim_drops(claim, quote, source):
    assert conflicts(claim, quote, source, source_label("raw/s.txt", source)) == []


def test_the_quote_is_read_where_it_is_not_where_it_first_occurs():
    source = "The Board did not approve the plan in May. In June the Board did approve the plan."
    second = source.rindex("approve the plan")
    claim = "In June the Board approved the plan."
    assert conflicts(claim, "approve the plan", source, at=second) == []
    kinds = {k.kind for k in conflicts(claim, "approve the plan", source, at=source.index("app"))}
    assert kinds == {"negation"}


@pytest.mark.parametrize(
    ("claim", "quote", "source"),
    [  # found by the review of issue 24: a hedge before the quote that the claim drops
        (
            "The harbour will be expanded.",
            "the harbour will be expanded",
            "It is unlikely that the harbour will be expanded.\n",
        ),
        (
            "The storm sank forty ships.",
            "the storm sank forty ships",
            "It was widely believed that the storm sank forty ships; in fact the records show "
            "twelve.\n",
        ),
        (
            "The mayor had embezzled the relief fund.",
            "the mayor had embezzled the relief fund",
            "Rumours that the mayor had embezzled the relief fund were later shown to be false.\n",
        ),
        (
            "The dredging doubled the trade of the port.",
            "the dredging doubled the trade of the port",
            "Critics claimed that the dredging doubled the trade of the port, a view the board "
            "rejected as unfounded.\n",
        ),
    ],
)
def test_a_belief_claim_or_rumour_before_the_quote_is_no_fact(claim, quote, source):
    kinds = {c.kind for c in conflicts(claim, quote, source, source_label("raw/s.txt", source))}
    assert "modal" in kinds or "negation" in kinds, kinds


@pytest.mark.parametrize(
    ("claim", "quote", "source"),
    [  # the same words where the claim keeps them, or where they are the fact itself
        (
            "The harbour is unlikely to be expanded.",
            "the harbour will be expanded",
            "It is unlikely that the harbour will be expanded.\n",
        ),
        (
            "William claimed the throne in 1066.",
            "claimed the throne in 1066",
            "William claimed the throne in 1066.\n",
        ),
    ],
)
def test_a_claim_that_keeps_the_hedge_agrees_with_it(claim, quote, source):
    assert conflicts(claim, quote, source, source_label("raw/s.txt", source)) == []


def kinds_of(claim: str, quote: str, source: str) -> set[str]:
    found = conflicts(claim, quote, source, source_label("raw/s.txt", source))
    return {k.kind for k in found}


@pytest.mark.parametrize(
    ("claim", "quote", "source"),
    [  # found by the hostile review of issue 24: the words right after the quote deny it
        (
            "The pier was built.",
            "The pier was",
            "The pier was approved by the council. The pier was never built.\n",
        ),
        (
            "The sea wall was finished in 1890.",
            "The sea wall was finished in 1890",
            "The sea wall was finished in 1890 was later shown to be false, said the survey.\n",
        ),
        (
            "The abbot's charter was genuine.",
            "the abbot's charter was genuine",
            "The belief that the abbot's charter was genuine proved untrue.\n",
        ),
        (
            "The licence for the ferry was granted.",
            "The licence for the ferry",
            "The licence for the ferry was denied in March.\n",
        ),
    ],
)
def test_a_denial_after_the_quote_counts_as_the_quotes(claim, quote, source):
    at = source.rindex(quote)
    found = conflicts(claim, quote, source, source_label("raw/s.txt", source), at=at)
    assert "negation" in {k.kind for k in found}


@pytest.mark.parametrize(
    ("claim", "quote", "source"),
    [  # the same words after the quote where the claim denies too, or they deny nothing
        ("The pier was never built.", "The pier was", "The pier was never built.\n"),
        (
            "The licence for the ferry was denied.",
            "The licence for the ferry",
            "The licence for the ferry was denied in March.\n",
        ),
        (
            "The charter was genuine.",
            "the charter was genuine",
            "The claim that the charter was genuine was later confirmed.\n",
        ),
        (
            "The bridge opened in 1890.",
            "The bridge opened in 1890",
            "The bridge opened in 1890 and it was not repainted until 1920.\n",
        ),
    ],
)
def test_words_after_the_quote_that_deny_nothing_are_no_denial(claim, quote, source):
    assert kinds_of(claim, quote, source) == set()


def test_a_precondition_restated_as_the_outcome_is_flagged():
    source = "The plan was approved in 1910, but only after it had been rejected twice.\n"
    (found,) = conflicts("The plan had been rejected.", "it had been rejected twice", source)
    assert found.describe() == (
        "outcome: claim has [rejected], the quote is a precondition of [approved]"
    )
    # the outcome itself, and the precondition restated whole, are faithful
    assert (
        kinds_of("The plan was approved in 1910.", "The plan was approved in 1910", source) == set()
    )
    assert kinds_of("It had been rejected twice.", "it had been rejected twice", source) == set()


@pytest.mark.parametrize(
    ("claim", "quote", "source"),
    [
        (
            "The factory created 400 jobs.",
            "400 jobs",
            "The factory will bring an estimated 400 jobs.\n",
        ),
        (
            "The ring road cut journeys by 20 minutes.",
            "cut journeys by 20 minutes",
            "The ring road is projected to cut journeys by 20 minutes.\n",
        ),
        (
            "The reservoir holds 9,000 megalitres.",
            "hold 9,000 megalitres",
            "The reservoir is expected to hold 9,000 megalitres.\n",
        ),
    ],
)
def test_a_number_the_source_calls_an_estimate_is_no_fact(claim, quote, source):
    assert "modal" in kinds_of(claim, quote, source)
    hedged = claim.replace(" cut", " was projected to cut").replace(
        "created", "was to create about"
    )
    hedged = hedged.replace("holds", "is expected to hold")
    assert kinds_of(hedged, quote, source) == set()


@pytest.mark.parametrize(
    ("claim", "quote", "source"),
    [  # false flags found by the hostile review of issue 24
        (  # "proposal" is a noun here, not a hedge
            "The council approved the plan for a new harbour.",
            "the council approved the proposal for a new harbour",
            "In March the council approved the proposal for a new harbour.\n",
        ),
        (  # digits and a multiplier are one number
            "The estate sold for 4 thousand pounds.",
            "sold for four thousand pounds",
            "In 1850 the estate sold for four thousand pounds.\n",
        ),
        (
            "The loan was 2.5 million dollars.",
            "a loan of $2,500,000",
            "It was a loan of $2,500,000.\n",
        ),
        (  # a period and a price are units of different kinds
            "The rent was 40 pounds a year.",
            "a rent of £40",
            "The cottage was let at a rent of £40.\n",
        ),
    ],
)
def test_nouns_numbers_and_units_that_agree_are_no_conflict(claim, quote, source):
    assert kinds_of(claim, quote, source) == set()


def test_a_unit_of_the_same_kind_still_conflicts():
    source = "The road is 40 miles long and costs £3 a year to maintain per metre.\n"
    assert "unit" in kinds_of("The road is 40 km long.", "40 miles long", source)


def test_through_verification_a_denial_after_a_capitalised_quote_blocks(tmp_path):
    """The source is read for a quote that ends inside its sentence: what follows may deny
    it (a verification, not only the rules)."""
    repo = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    source = "The pier was approved by the council in 1901. The pier was never built.\n"
    quote = "The pier was"
    tail = format_tail("raw/m.txt", None, quote, source.rindex(quote))
    base = commit_files(repo, None, {"raw/m.txt": source})
    tip = commit_files(
        repo,
        base.id,
        {
            "wiki/p.md": f"---\ntitle: P\n---\n# P\n\nThe pier was built in 1901.[^1]\n\n[^1]: {tail}\n"
        },
    )
    report = verify_trees(repo, tip, base, config=Config())
    (flag,) = at(report, "citation.semantic_conflict")
    assert "negation" in flag.message and "never" in flag.message


def test_wikigate_verify_refuses_a_claim_the_words_after_its_quote_deny(tmp_path, capsys):
    """End to end, as a user types it: `wikigate verify` on a real repository exits
    non-zero for "The pier was built" citing "The pier was" where the source goes on
    "never built" (it exited 0), and 0 once the claim says what the source says."""
    from support.helpers import git

    from wikigate.cli.main import main
    from wikigate.workspace import Workspace

    source = "The pier was approved by the council in 1901. The pier was never built.\n"
    quote = "The pier was"
    tail = format_tail("raw/pier.txt", None, quote, source.rindex(quote))
    ws = Workspace.init(tmp_path / "w")
    run = ws.start_run("ingest", "cli:test")
    run.stage_write("raw/pier.txt", source)
    assert run.finalize(verify=False).status == "committed"
    git(ws.root, "switch", "-qc", "topic")

    def page(claim: str) -> None:
        (ws.root / "wiki" / "pier.md").write_text(
            f"---\ntitle: Pier\n---\n# Pier\n\n{claim}[^1]\n\n[^1]: {tail}\n"
        )
        index = ws.root / "wiki" / "index.md"
        if "[[Pier]]" not in index.read_text():
            index.write_text(index.read_text() + "- [[Pier]]\n")
        git(ws.root, "add", "wiki")
        git(ws.root, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "pier")

    page("The pier was built in 1901.")
    capsys.readouterr()
    assert main(["-C", str(ws.root), "verify"]) != 0
    out = capsys.readouterr().out
    assert "citation.semantic_conflict" in out and "never" in out
    page("The pier was never built.")
    assert main(["-C", str(ws.root), "verify"]) == 0, capsys.readouterr().out
    ws.close()


@pytest.mark.parametrize(
    ("claim", "quote", "source"),
    [  # a back-reference after the quote that confirms, or a clause about something else
        (
            "The pier was built in 1890.",
            "The pier was built in 1890",
            "The pier was built in 1890, a date confirmed by the harbour board's records.\n",
        ),
        (
            "The line opened in 1890.",
            "The line opened in 1890",
            "The line opened in 1890, a year after the plan was abandoned by its rivals.\n",
        ),
        (
            "The line opened in 1890.",
            "The line opened in 1890",
            "The line opened in 1890, but the station was never finished.\n",
        ),
        (
            "The mill employed 400 people, a figure the union disputes.",
            "The mill employed 400 people",
            "The mill employed 400 people, a figure the union disputes.\n",
        ),
        (
            "The factory created 400 jobs, according to its promoters.",
            "The factory created 400 jobs",
            "The factory created 400 jobs, according to estimates by its promoters.\n",
        ),
    ],
)
def test_words_after_the_quote_that_undo_nothing_the_claim_drops_are_no_conflict(
    claim, quote, source
):
    assert conflicts(claim, quote, source, source_label("raw/s.txt", source)) == []


def test_through_verification_a_source_that_takes_the_quote_back_blocks(tmp_path):
    """ "…built by convicts, a story later shown to be false." landed: the quote is
    verbatim, the rest of the source's sentence takes it back (third review of issue 24)."""
    repo = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    source = "The lighthouse was built by convicts, a story later shown to be false.\n"
    quote = "The lighthouse was built by convicts"
    tail = format_tail("raw/m.txt", None, quote, source.index(quote))
    base = commit_files(repo, None, {"raw/m.txt": source})
    page = f"---\ntitle: P\n---\n# P\n\nThe lighthouse was built by convicts.[^1]\n\n[^1]: {tail}\n"
    tip = commit_files(repo, base.id, {"wiki/p.md": page})
    report = verify_trees(repo, tip, base, config=Config())
    (flag,) = at(report, "citation.semantic_conflict")
    assert "undone" in flag.message and "a story later shown to be false" in flag.message


MINUTES = (
    "Minutes of the council meeting of 3 May 2021.\n"
    "The council voted to build a new bridge over the river Tam at a cost of 4 million pounds.\n"
    "The mayor, Jane Hill, chaired the meeting.\n"
)


@pytest.mark.parametrize(
    ("claim", "quote", "kind"),
    [  # the fourth review of issue 24: a name, a currency, a place, a vote swapped
        (
            "The mayor, John Smith, chaired the meeting.",
            "The mayor, Jane Hill, chaired the meeting",
            "name",
        ),
        (
            "The council voted to build a bridge over the Thames.",
            "The council voted to build a new bridge",
            "name",
        ),
        ("The bridge was to cost 4 million dollars.", "at a cost of 4 million pounds", "unit"),
        ("The bridge was to cost 4 million euros.", "at a cost of 4 million pounds", "unit"),
        (
            "The council voted to build three new bridges.",
            "The council voted to build a new bridge",
            "number",
        ),
        (
            "The council voted against building a new bridge.",
            "The council voted to build a new bridge",
            "negation",
        ),
        (
            "The council refused to build a new bridge.",
            "The council voted to build a new bridge",
            "negation",
        ),
    ],
)
def test_a_swapped_name_currency_place_vote_or_a_date_read_as_a_count_conflicts(claim, quote, kind):
    at_ = MINUTES.index(quote)
    found = conflicts(claim, quote, MINUTES, source_label("raw/src.txt", MINUTES), at=at_)
    assert kind in {k.kind for k in found}, [k.describe() for k in found]


@pytest.mark.parametrize(
    "claim",
    [  # the same words, faithful: a name the source has, a date, the quote's own names
        "Jane Hill chaired the council meeting.",
        "The mayor, Jane Hill, chaired the meeting.",
        "The council voted to build a new bridge over the Tam.",
        "On 3 May 2021 the council voted to build a new bridge.",
        "The council voted in May to build a new bridge.",
    ],
)
def test_names_and_dates_the_source_has_are_no_conflict(claim):
    quote = (
        "The mayor, Jane Hill, chaired the meeting"
        if "Hill" in claim
        else "The council voted to build a new bridge"
    )
    found = conflicts(claim, quote, MINUTES, source_label("raw/src.txt", MINUTES))
    assert found == [], [k.describe() for k in found]


@pytest.mark.parametrize(
    ("claim", "quote", "source"),
    [  # the source takes the quote back later in its sentence or in the next one
        (
            "The museum holds 5,000 paintings.",
            "The museum holds 5,000 paintings",
            "The museum holds 5,000 paintings. This turned out to be false.\n",
        ),
        (
            "The fish market opened in 1950.",
            "The fish market opened in 1950",
            "The fish market opened in 1950. That date is wrong: it opened in 1962.\n",
        ),
        (
            "The harbour was dredged in 2021.",
            "The harbour was to be dredged in 2021",
            "The harbour was to be dredged in 2021, but the work never started.\n",
        ),
        (
            "The county built a tram line.",
            "The county built a tram line",
            "The county built a tram line, but the plan was dropped before any track was laid.\n",
        ),
        (
            "The school has 900 pupils.",
            "The school has 900 pupils",
            "The school has 900 pupils; this was later retracted by the paper.\n",
        ),
        (
            "The castle is 800 years old.",
            "The castle is 800 years old",
            "The castle is 800 years old, the guidebook wrongly stated.\n",
        ),
        (
            "The railway carried 2 million passengers.",
            "The railway carried 2 million passengers",
            "The railway carried 2 million passengers, a rough guess by the station master.\n",
        ),
        (
            "The airport opens in 2027.",
            "The airport will open in 2027",
            "The airport will open in 2027, if funding is found.\n",
        ),
        (
            "The ferry service runs daily.",
            "The ferry service ran daily",
            "The ferry service ran daily until it was cancelled in 2019.\n",
        ),
    ],
)
def test_a_source_that_takes_the_quote_back_after_it_conflicts(claim, quote, source):
    found = conflicts(claim, quote, source, source_label("raw/s.txt", source))
    assert found, f"{claim!r} passed"


@pytest.mark.parametrize(
    ("claim", "quote", "source"),
    [  # the same forms, faithful: a confirmation, a condition the claim keeps
        (
            "The museum holds 5,000 paintings.",
            "The museum holds 5,000 paintings",
            "The museum holds 5,000 paintings. This figure was confirmed by the 2020 audit.\n",
        ),
        (
            "The school has 900 pupils.",
            "The school has 900 pupils",
            "The school has 900 pupils; this was later confirmed by the paper.\n",
        ),
        (
            "The airport will open in 2027 if funding is found.",
            "The airport will open in 2027",
            "The airport will open in 2027, if funding is found.\n",
        ),
        (
            "The council voted in 2019 to build a bridge.",
            "The council voted in 2019 to build a bridge",
            "The council voted in 2019 to build a bridge, but the work started only in 2021.\n",
        ),
        (
            "The harbour master did not resign.",
            "Rumours that the harbour master had resigned were unfounded",
            "Rumours that the harbour master had resigned were unfounded.\n",
        ),
        (  # a verdict inside the quote flags nothing on its own
            "Rumours about the harbour master are covered in the harbour report.",
            "Rumours that the harbour master had resigned were unfounded",
            "Rumours that the harbour master had resigned were unfounded.\n",
        ),
        (  # a past the source ended, told as past
            "The ferry service ran daily.",
            "The ferry service ran daily",
            "The ferry service ran daily until it was cancelled in 2019.\n",
        ),
        (
            "The ferry service ran daily until 2019.",
            "The ferry service ran daily",
            "The ferry service ran daily until it was cancelled in 2019.\n",
        ),
    ],
)
def test_a_source_that_confirms_or_a_claim_that_keeps_the_denial_agrees(claim, quote, source):
    found = conflicts(claim, quote, source, source_label("raw/s.txt", source))
    assert found == [], [k.describe() for k in found]


def test_through_verification_a_swapped_name_blocks_and_a_restated_denial_lands(tmp_path):
    """The fourth review of issue 24: "John Smith" citing a quote naming Jane Hill landed,
    and "did not resign" citing "rumours that … had resigned were unfounded" was flagged."""
    repo = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    report_text = "Report, 2022.\nRumours that the harbour master had resigned were unfounded.\n"
    base = commit_files(repo, None, {"raw/src.txt": MINUTES, "raw/rep.txt": report_text})
    named = "The mayor, Jane Hill, chaired the meeting"
    denial = "Rumours that the harbour master had resigned were unfounded"
    t1 = format_tail("raw/src.txt", None, named, MINUTES.index(named))
    t2 = format_tail("raw/rep.txt", None, denial, report_text.index(denial))
    page = (
        "---\ntitle: P\n---\n# P\n\nThe mayor, John Smith, chaired the meeting.[^1]\n\n"
        f"The harbour master did not resign.[^2]\n\n[^1]: {t1}\n[^2]: {t2}\n"
    )
    tip = commit_files(repo, base.id, {"wiki/p.md": page})
    report = verify_trees(repo, tip, base, config=Config())
    (flag,) = at(report, "citation.semantic_conflict")
    assert flag.claim_line == 6 and flag.line == 10  # its claim; its footnote
    assert "name" in flag.message and "smith" in flag.message


def test_through_verification_a_hedge_in_the_next_table_cell_is_the_claims(tmp_path):
    """The fourth review of issue 24: "| about 12,000[^1] | county estimate |" was flagged
    for dropping the source's "according to estimates": the row's next cell keeps it."""
    repo = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    source = "The population of the town is about 12,000, according to estimates by the county.\n"
    quote = "The population of the town is about 12,000"
    tail = format_tail("raw/town.txt", None, quote, source.index(quote))
    base = commit_files(repo, None, {"raw/town.txt": source})

    def page(note: str) -> str:
        return (
            "---\ntitle: P\n---\n# P\n\n| Item | Figure | Notes |\n|---|---|---|\n"
            f"| Town population | about 12,000[^1] | {note} |\n\n[^1]: {tail}\n"
        )

    kept = commit_files(repo, base.id, {"wiki/p.md": page("county estimate")})
    assert at(verify_trees(repo, kept, base, config=Config()), "citation.semantic_conflict") == []
    dropped = commit_files(repo, base.id, {"wiki/p.md": page("census")})
    (flag,) = at(verify_trees(repo, dropped, base, config=Config()), "citation.semantic_conflict")
    assert "according to estimates" in flag.message


@pytest.mark.parametrize(
    ("claim", "quote", "flagged"),
    [  # a decision, a promise or a plan stated as the deed done
        ("The council built a new bridge.", "The council voted to build a new bridge", True),
        ("The board sold the pier.", "the board agreed to sell the pier", True),
        ("The firm paid the fine.", "The firm promised to pay the fine", True),
        ("The council opened the library.", "the council decided to open the library", True),
        # the same words, faithful: the decision kept, or no deed claimed
        (
            "The council voted to build a new bridge.",
            "The council voted to build a new bridge",
            False,
        ),
        ("The board agreed to sell the pier.", "the board agreed to sell the pier", False),
        ("The council decided in 1990 to open the library.", "decided to open the library", False),
        ("The library opened in 1998.", "The library opened in 1998", False),
        # a decision whose deed is deciding: the README's tour
        ("The committee adopted the plan.", "decided to adopt the plan", False),
        ("The board approved the budget.", "The board voted to approve the budget", False),
    ],
)
def test_a_decision_stated_as_done_is_a_modal_conflict(claim, quote, flagged):
    kinds = {k.kind for k in conflicts(claim, quote)}
    assert ("modal" in kinds) is flagged, kinds


def test_through_verification_the_sentence_after_a_whole_sentence_quote_is_read(tmp_path):
    """ "The king stayed at Tamford Hall in 1851." citing that whole sentence, where the
    source goes on "This never happened.", landed: a quote that ends its sentence was
    judged without its source (sixth review of issue 24)."""
    repo = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    source = "The king stayed at Tamford Hall in 1851. This never happened.\n"
    quote = "The king stayed at Tamford Hall in 1851."
    tail = format_tail("raw/m.txt", None, quote, source.index(quote))
    base = commit_files(repo, None, {"raw/m.txt": source})
    page = (
        f"---\ntitle: P\n---\n# P\n\nThe king stayed at Tamford Hall in 1851.[^1]\n\n[^1]: {tail}\n"
    )
    tip = commit_files(repo, base.id, {"wiki/p.md": page})
    report = verify_trees(repo, tip, base, config=Config())
    (flag,) = at(report, "citation.semantic_conflict")
    assert "undone" in flag.message and "This never happened" in flag.message


@pytest.mark.parametrize(
    ("claim", "quote", "source"),
    [
        # the next sentence refers back and denies, doubts or undoes (on the next line too)
        (
            "The hall was built in 1850.",
            "The hall was built in 1850.",
            "The hall was built in 1850.\nThis never happened.\n",
        ),
        (
            "The hall was built in 1850.",
            "hall was built in 1850",
            "The hall was built in 1850 by the guild. None of this is true.\n",
        ),
        (
            "The hall was built in 1850.",
            "The hall was built in 1850.",
            "The hall was built in 1850. Both claims are baseless.\n",
        ),
        (
            "The hall was built in 1850.",
            "The hall was built in 1850.",
            "The hall was built in 1850. The claim appears in no contemporary record.\n",
        ),
        (
            "The hall was built in 1850.",
            "The hall was built in 1850.",
            "The hall was built in 1850. Historians now reject this account entirely.\n",
        ),
        (
            "The hall was built in 1850.",
            "The hall was built in 1850.",
            "The hall was built in 1850. This date is questioned by the county archive.\n",
        ),
        (
            "Dogs were banned from the park in 1998.",
            "Dogs were banned from the park in 1998.",
            "Dogs were banned from the park in 1998. The ban was lifted in 1999.\n",
        ),
        # in the quote's sentence
        (
            "The town has a bandstand, built in 1901.",
            "bandstand was built in 1901",
            "A bandstand was built in 1901, which was demolished in 1902.\n",
        ),
        (
            "Tamford had a tramway from 1890.",
            "approved a tramway in 1890",
            "The council approved a tramway in 1890, but no tracks were ever laid.\n",
        ),
        (
            "The bell was cast in 1420.",
            "bell was cast in 1420",
            "The bell was cast in 1420; this is now considered doubtful.\n",
        ),
        (
            "The inn was a coaching stop.",
            "inn was a coaching stop",
            "The inn was a coaching stop, according to one unsourced pamphlet.\n",
        ),
        (
            "The hotel hosted three kings.",
            "hotel hosted three kings",
            "The hotel hosted three kings, at least according to its owners.\n",
        ),
        (
            "The siege lasted 40 days.",
            "siege lasted 40 days",
            "The siege lasted 40 days, a number nobody has verified.\n",
        ),
    ],
)
def test_a_retraction_or_undoing_outside_any_word_list_conflicts(claim, quote, source):
    assert "undone" in {k.kind for k in conflicts(claim, quote, source)}


@pytest.mark.parametrize(
    ("claim", "quote", "source"),
    [
        (
            "The mill closed in 1950.",
            "The mill closed in 1950.",
            "The mill closed in 1950. It never reopened.\n",
        ),
        (
            "The bridge opened in 1890.",
            "The bridge opened in 1890.",
            "The bridge opened in 1890. This was not the first bridge on the site.\n",
        ),
        (
            "The bridge opened in 1890.",
            "The bridge opened in 1890.",
            "The bridge opened in 1890.\n\nThis never happened, say the rival town's guides.\n",
        ),
        (
            "The hall was built in 1850.",
            "The hall was built in 1850.",
            "The hall was built in 1850. This date is confirmed by the deeds.\n",
        ),
        (
            "The council agreed to build a pool in 1960.",
            "agreed to build a pool in 1960",
            "The council agreed to build a pool in 1960, but nothing was ever built.\n",
        ),
        (
            "A bandstand was built in 1901.",
            "bandstand was built in 1901",
            "A bandstand was built in 1901, which was demolished in 1902.\n",
        ),
        (
            "The parish had 400 people in 1801.",
            "parish had 400 people in 1801",
            "The parish had 400 people in 1801, according to the census.\n",
        ),
    ],
)
def test_a_sentence_after_that_denies_nothing_of_the_claim_is_no_conflict(claim, quote, source):
    assert conflicts(claim, quote, source) == []


def test_a_number_from_another_sentence_about_something_else_is_no_support():
    quote = "decided to adopt the plan in full"
    claim = "The committee adopted the plan in full in 1922."
    other = (
        "The committee decided to adopt the plan in full. The harbour wall was repaired in 1922.\n"
    )
    (k,) = conflicts(claim, quote, other)
    assert k.kind == "number" and k.claim_words == ("1922",)
    # the quote's own sentence, a dateline, or a sentence about the claim's subject dates it
    for source in (
        "In 1922 the committee decided to adopt the plan in full.\n",
        "Minutes, 1922.\nThe committee decided to adopt the plan in full.\n",
        "The committee met in 1922. It decided to adopt the plan in full.\n",
    ):
        assert conflicts(claim, quote, source) == [], source


def test_a_name_sharing_the_rest_of_its_words_is_a_swap():
    quote = "canal was completed in 1832 by the Tam Navigation Company"
    source = "The canal was completed in 1832 by the Tam Navigation Company.\n"
    (k,) = conflicts(
        "The canal was completed in 1832 by the Grand Navigation Company.", quote, source
    )
    assert (k.kind, k.claim_words, k.quote_words) == ("name", ("grand",), ("tam",))
    assert conflicts("The Tam Navigation Company completed the canal in 1832.", quote, source) == []


# Faithful quoted citations shaped like those of real wikis (docs/checks.md "Faithful
# quotes on real wikis"): sentences written for these tests, in the same shapes.
REAL_WIKI_SHAPES = [
    # a section, a bracketed citation number, a list mark: marks of references
    (
        'She defines drift as "a slow change in what the model optimises" (Section 3.2).',
        "a slow change in what the model optimises",
    ),
    (
        'The report calls it "a loss of grip on the spending" (§ 4.1, Table 2).',
        "a loss of grip on the spending",
    ),
    (
        'The harbour board\'s minutes record "the dredging of the channel" (Lee 1998, [14]).',
        "the dredging of the channel",
    ),
    (
        'The charter lists "the duties of the warden" as: (1) keep the roll, (2) ring the '
        "bell, (3) lock the gate.",
        "the duties of the warden",
    ),
    (
        'The idea of "goal drift under pressure" (citing Moreau et al. 2019) returns here.',
        "goal drift under pressure",
    ),
    (
        '"Lanterns of the Northern Coast" (2004) is her widely read survey.',
        "Lanterns of the Northern Coast",
    ),
    # a digit inside a name: no quantity
    ('"Add e2e coverage for the k8s runner" tracked the missing job.', "Add e2e coverage"),
    # "first" of an author's title or a compound, not a superlative
    ('"Tides of the Estuary" (co-first author with Ann Park)', "Tides of the Estuary"),
    ('First author of "A Survey of Canal Locks"', "A Survey of Canal Locks"),
    ('"Mills fail to report flow" — the gauges became a first-class record.', "Mills fail to"),
    # an ordinal noun, not a fraction
    ('"The clerk signs the deed" — a third party witnessing it is optional.', "signs the deed"),
    # a list of citation years
    (
        '"The tide tables were redrawn" (see Marsh et al. 2011/2013, Byrne 2015, 2017).',
        "The tide tables were redrawn",
    ),
]


@pytest.mark.parametrize(("claim", "quote"), REAL_WIKI_SHAPES, ids=lambda x: x[:30])
def test_a_faithful_quote_on_a_real_wiki_shape_is_not_flagged(claim, quote):
    source = f"Preface.\n{quote}, as the record says.\n"
    assert conflicts(claim, quote) == []
    assert conflicts(claim, quote, source, source_label("raw/a.md", source)) == []


@pytest.mark.parametrize(
    ("claim", "quote", "kind"),
    [
        # a date, a plain year and a count stay claimed quantities
        ("In March 2021 the mill closed.", "the mill closed", "number"),
        ("The mill closed (in 2021).", "the mill closed", "number"),
        ("Smith closed the mill in 1921.", "closed the mill", "number"),
        ("Version 2.4.1 fixed the crash.", "fixed the crash", "number"),
        ("Revenue fell in FY2021.", "Revenue fell", "number"),
        ("The mill opened in [1891].", "The mill opened", "number"),
        # a fraction is still a fraction, a first is still a superlative
        ("A third of the votes went to Hill.", "votes went to Hill", "number"),
        ("The first bridge opened in spring.", "bridge opened in spring", "superlative"),
        ("It was the first-ever crossing.", "the crossing", "superlative"),
        # a number in brackets inside the clause, or a bracket no list opens: claimed
        ("The pier is [450] metres long.", "The pier is long", "number"),
        ("The pier is (45) metres high.", "The pier is high", "number"),
        # another passage the claim quotes is its words too (no footnote vouches for it)
        (
            'Reports like "Ferries only run at high tide" and "The pier is not lit at night" '
            "describe the harbour.",
            "Ferries only run at high tide",
            "negation",
        ),
        # the claim's own words outside every quote are still weighed
        (
            'Reports like "Ferries run at high tide" and "The pier is lit" are not true.',
            "Ferries run at high tide",
            "negation",
        ),
        # a negation in scare quotes is not another passage: it stays the claim's
        (
            'The council "did not" approve "the harbour budget for 1921".',
            "the harbour budget",
            "negation",
        ),
        # another quote's words count when the claim does not quote the cited passage
        (
            'Locals say "the ferry never runs" about the harbour.',
            "the ferry runs daily",
            "negation",
        ),
    ],
)
def test_the_real_wiki_readings_keep_what_a_claim_claims(claim, quote, kind):
    assert kind in {c.kind for c in conflicts(claim, quote)}


def test_through_verification_a_cited_section_number_is_no_quantity(tmp_path):
    repo = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    paper = "Scope. Drift is a slow change in what the model optimises.\n"
    base, tip = _page_citing(
        repo,
        {"raw/paper.txt": paper},
        [
            (
                'Drift is "a slow change in what the model optimises" (Section 2.3).',
                "raw/paper.txt",
                "a slow change in what the model optimises",
            ),
            (
                "Drift is a slow change in what 3 models optimise.",
                "raw/paper.txt",
                "a slow change in what the model optimises",
            ),
        ],
    )
    report = verify_trees(repo, tip, base, config=Config())
    flags = at(report, "citation.semantic_conflict")
    assert [f.message.split(" ")[0] for f in flags] == ["[^2]"], flags


@pytest.mark.parametrize(
    ("claim", "quote"),
    [
        # "May" of a date is the month, no hedge (trial 41: a major modal conflict)
        ("The year 1872 saw the lighthouse first lit.", "first lit on 5 May 1872"),
        # full-width or other-script digits are the same number
        ("The pier opened in \uff11\uff18\uff19\uff19.", "The pier opened in 1899"),
        ("The pier opened in 1899.", "The pier opened in \u0661\u0668\u0669\u0669"),
    ],
)
def test_a_month_and_other_digits_are_no_conflict(claim, quote):
    """Trial 41: the offline judge read "5 May 1872"'s month as the hedge "may", and
    "１８９９" as another number than 1899; each a major citation.semantic_conflict."""
    assert conflicts(claim, quote) == []


def test_may_as_a_verb_is_still_a_hedge():
    assert [
        c.kind
        for c in conflicts("The council approved the plan.", "The council may approve the plan")
    ]
