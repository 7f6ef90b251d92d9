"""The wiki's health and the states of claims and pages (wikigate/health.py, `wikigate
health`, `wikigate pages`, `wikigate claims --state`): a real workspace whose main holds a
fixture wiki, the product's default verifier, the command as a user runs it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from support.helpers import wikigate
from support.trees import advance_main as advance

from wikigate import health as health_module
from wikigate.verifier.citation import format_tail
from wikigate.workspace import INDEX_MD, Workspace

DEFAULT = {"WIKIGATE_VERIFIER": ""}
TOWN = (
    "The pier opened in 1894. The pier is 400 metres long. "
    "The ferry does not run in winter. The museum holds 300 paintings.\n"
)
GUIDE = "The ferry runs in winter.\n"
SOURCES = {"raw/town.txt": TOWN, "raw/guide.txt": GUIDE}


def cite(source: str, quote: str) -> str:
    return format_tail(source, None, quote, SOURCES[source].find(quote))


def page(title: str, body: str, claims: list[tuple[str, str]]) -> str:
    """``body`` then each claim, as a sentence citing the quote it is."""
    cited = " ".join(f"{q}[^{i}]" for i, (_, q) in enumerate(claims, 1))
    notes = "\n".join(f"[^{i}]: {cite(src, q)}" for i, (src, q) in enumerate(claims, 1))
    return f"---\ntitle: {title}\n---\n# {title}\n\n{body}\n\n{cited}\n\n{notes}\n"


FILES = {
    **SOURCES,
    "wiki/index.md": "---\ntitle: Index\n---\n# Index\n\n- [[town]]\n- [[ferry]]\n",
    # 3 claims, 1 uncited statement, 1 gap marker: 4 of 5 statements accounted for
    "wiki/town.md": page(
        "Town",
        "The town council meets every Tuesday evening in the old hall. "
        "The harbour is deep [gap: no survey yet].",
        [
            ("raw/town.txt", "The pier opened in 1894."),
            ("raw/town.txt", "The pier is 400 metres long."),
            ("raw/town.txt", "The ferry does not run in winter."),
        ],
    ),
    # its claim and the town's third disagree, and so do their sources: contested
    "wiki/ferry.md": page("Ferry", "", [("raw/guide.txt", "The ferry runs in winter.")]),
    # linked from nowhere
    "wiki/museum.md": page("Museum", "", [("raw/town.txt", "The museum holds 300 paintings.")]),
}


@pytest.fixture
def wiki(tmp_path: Path) -> Path:
    root = tmp_path / "wiki"
    Workspace.init(root).close()
    advance(root, FILES)
    return root


def cli(root: Path, *args: str):
    return wikigate(root, *args, env=DEFAULT)


def health_json(root: Path, *args: str) -> tuple[int, dict]:
    done = cli(root, "health", "--format", "json", *args)
    assert done.returncode in (0, 1, 3), done.stderr
    return done.returncode, json.loads(done.stdout)


def test_health_equals_a_hand_count(wiki):
    code, data = health_json(wiki)
    assert code == 0
    Draft202012Validator(health_module.schema()).validate(data)
    pages = {p["page"]: p for p in data["pages"]}
    town = pages["wiki/town.md"]
    assert (town["statements"], town["accounted"], town["claims"], town["anchored"]) == (5, 4, 3, 3)
    assert town["gaps"] == 1
    assert pages["wiki/ferry.md"]["contradictions"] == 1 and town["contradictions"] == 1
    assert [p for p, v in pages.items() if v["orphan"]] == ["wiki/museum.md"]
    assert {p: v["state"] for p, v in pages.items()} == {
        "wiki/index.md": "fresh",
        "wiki/log.md": "fresh",  # wikigate init's
        "wiki/town.md": "contested",
        "wiki/ferry.md": "contested",
        "wiki/museum.md": "fresh",
    }
    # the wiki: 5 claims all anchored; 7 statements, 6 accounted for (wikigate init's log
    # says "Append-only record of changes to this wiki.": structural, exempt as verify
    # holds it); no judge ran
    assert pages["wiki/log.md"]["statements"] == 0
    assert data["wiki"] == {
        "coverage": round(6 / 7, 4),
        "anchored": 1.0,
        "supported": None,
        "contradictions": 1,
        "possible_contradictions": 0,
        "stale": 0,
        "orphans": 1,
        "pages": 5,
        "claims": 5,
        "statements": 7,
        "gaps": 1,
        "judged": 0,
    }


def test_coverage_counts_statements_as_verify_holds_them(tmp_path):
    """Found by review (#8): health counted the init scaffold's sentences, which verify
    exempts (a fresh wiki's coverage was 0%); a hub of links asserts nothing (issue 26:
    not page.uncited), so it counts no statement."""
    root = tmp_path / "wiki"
    Workspace.init(root).close()
    advance(
        root,
        {
            **SOURCES,
            "wiki/index.md": INDEX_MD + "\n- [[pier]]\n- [[hub]]\n",  # the scaffold's text kept
            "wiki/pier.md": page("Pier", "", [("raw/town.txt", "The pier opened in 1894.")]),
            "wiki/hub.md": "---\ntitle: Hub\n---\n# Hub\n\n- [[pier]]\n",
        },
    )
    verified = cli(root, "verify", "--all", "--format", "json")
    flagged = {(f["code"], f["path"]) for f in json.loads(verified.stdout)["findings"]}
    assert flagged == set()
    _, data = health_json(root)
    pages = {p["page"]: (p["statements"], p["accounted"]) for p in data["pages"]}
    assert pages == {
        "wiki/index.md": (0, 0),
        "wiki/log.md": (0, 0),
        "wiki/pier.md": (1, 1),
        "wiki/hub.md": (0, 0),
    }
    assert (data["wiki"]["statements"], data["wiki"]["coverage"]) == (1, 1.0)


def test_a_changed_source_makes_its_claim_and_page_stale_the_others_stay_fresh(wiki):
    before = advance(wiki, {"wiki/log.md": "# Log\n"})
    advance(wiki, {"raw/town.txt": TOWN.replace("400 metres", "420 metres")})
    _, data = health_json(wiki, "--baseline", before)
    pages = {p["page"]: p for p in data["pages"]}
    assert pages["wiki/town.md"]["state"] == "stale" and pages["wiki/town.md"]["stale"] == 1
    assert pages["wiki/museum.md"]["state"] == "fresh"
    assert data["wiki"]["stale"] == 1 and data["baseline"]["delta"]["stale"] == 1
    assert "stale" in data["baseline"]["regressions"]

    done = cli(wiki, "claims", "--format", "json", "--states")
    assert done.returncode == 0, done.stderr
    states = {r["claim_id"]: r["state"] for r in json.loads(done.stdout)}
    assert states == {
        "wiki/town.md#^1": "fresh",
        "wiki/town.md#^2": "stale",
        "wiki/town.md#^3": "contested",
        "wiki/ferry.md#^1": "contested",
        "wiki/museum.md#^1": "fresh",
    }
    done = cli(wiki, "claims", "--state", "stale")
    assert done.stdout.startswith("wiki/town.md#^2  mismatched") and done.stdout.endswith(
        "  stale\n"
    )

    done = cli(wiki, "pages", "--state", "stale")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "wiki/town.md  stale  3 claims, 1 stale, 1 open contradiction"
    ]


def test_a_page_edited_so_its_quote_is_off_is_unverified_not_stale(wiki):
    town = FILES["wiki/town.md"].replace("@", "@1", 1)  # the writer's own anchor, wrong
    advance(wiki, {"wiki/town.md": town})
    _, data = health_json(wiki)
    assert data["wiki"]["stale"] == 0
    assert data["wiki"]["anchored"] == 0.8


def test_fail_under_baseline_and_regression_exit_codes(wiki):
    before = advance(wiki, {"wiki/log.md": "# Log\n"})  # its statement gone: 6 of 7
    assert cli(wiki, "health", "--fail-under", "coverage=0.85,anchored=1").returncode == 0
    under = cli(wiki, "health", "--fail-under", "coverage=0.9")
    assert under.returncode == 1 and "coverage 0.8571 < 0.9" in under.stderr
    # a floor on a figure nothing measured (no judge voted: supported) fails, never passes
    unmeasured = cli(wiki, "health", "--fail-under", "supported=0.9")
    assert unmeasured.returncode == 1 and "supported not measured" in unmeasured.stderr
    # an uncited statement added: coverage falls
    town = FILES["wiki/town.md"].replace("old hall.", "old hall. The mayor lives by the pier.")
    advance(wiki, {"wiki/town.md": town})
    shown = cli(wiki, "health", "--baseline", before)
    assert shown.returncode == 0 and "coverage" in shown.stdout and "(-" in shown.stdout
    regressed = cli(wiki, "health", "--baseline", before, "--fail-on-regression")
    assert regressed.returncode == 3 and "worse than at" in regressed.stderr
    both = cli(
        wiki, "health", "--baseline", before, "--fail-on-regression", "--fail-under", "coverage=0.9"
    )
    assert both.returncode == 1
    assert cli(wiki, "health", "--baseline", "HEAD", "--fail-on-regression").returncode == 0
    # usage errors: exit 2
    assert cli(wiki, "health", "--fail-under", "speed=0.9").returncode == 2
    assert cli(wiki, "health", "--fail-under", "coverage=9").returncode == 2
    assert cli(wiki, "health", "--fail-on-regression").returncode == 2
    assert cli(wiki, "health", "--baseline", "no-such-ref").returncode == 2


def test_the_published_schema_is_the_modules():
    published = Path(__file__).parent.parent / "docs" / "health.schema.json"
    assert json.loads(published.read_text()) == health_module.schema()


def test_a_warm_measure_compares_no_claim_again(wiki, monkeypatch):
    from wikigate import ledger
    from wikigate.verifier.checks import consistency

    ws = Workspace.open(wiki)
    try:
        first = ledger.health(ws)
        compared: list[int] = []
        real = consistency._compared
        monkeypatch.setattr(
            consistency, "_compared", lambda *a, **k: compared.append(1) or real(*a, **k)
        )
        again = ledger.health(ws)
    finally:
        ws.close()
    assert compared == [] and again.figures() == first.figures() and again.claims == first.claims


def test_a_floor_given_twice_is_a_usage_error(wiki):
    """Review 36b (#9): `coverage=0.9,coverage=0.1` kept the last floor and passed a wiki
    at 0.857: a CI line assembled from two sources lost its floor without a word."""
    done = cli(wiki, "health", "--fail-under", "coverage=0.9,coverage=0.1")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "coverage is given twice" in done.stderr
    # one floor per figure, as before
    assert cli(wiki, "health", "--fail-under", "coverage=0.1,anchored=0.5").returncode == 0


def test_a_repeated_or_empty_fail_under_is_a_usage_error(wiki):
    """Review 37b (#5): `--fail-under coverage=0.9 --fail-under coverage=0.1` kept the last
    option and exit 0; `--fail-under anchored=0.9 --fail-under coverage=0.1` lost the first
    floor; an empty `--fail-under ""` (a CI variable left unset) set no floor."""
    twice = cli(wiki, "health", "--fail-under", "coverage=0.9", "--fail-under", "coverage=0.1")
    assert twice.returncode == 2, (twice.stdout, twice.stderr)
    assert "coverage is given twice" in twice.stderr
    # two options, two figures: both floors hold (coverage is 0.857 here)
    both = cli(wiki, "health", "--fail-under", "coverage=0.9", "--fail-under", "anchored=0.1")
    assert both.returncode == 1, (both.stdout, both.stderr)
    fine = cli(wiki, "health", "--fail-under", "coverage=0.1", "--fail-under", "anchored=0.1")
    assert fine.returncode == 0
    for bad in ("", ",", "coverage=0.1,,anchored=0.5", "coverage=\u0661"):
        done = cli(wiki, "health", "--fail-under", bad)
        assert done.returncode == 2, (bad, done.stdout, done.stderr)


def test_fail_under_reads_spaces_alike_and_quotes_the_option_as_given(wiki):
    """Review 37d (#4): `' coverage=0.5'` was read but `'coverage =0.5'` refused; and an
    empty second option was reported inside a string the user never typed
    ("'coverage=0.1,' has an empty part"). Coverage is 0.857 on this wiki."""
    for spaced in (
        " coverage=0.9",
        "coverage =0.9",
        "coverage= 0.9 ",
        "anchored=0.1, coverage = 0.9",
    ):
        done = cli(wiki, "health", "--fail-under", spaced)
        assert done.returncode == 1, (spaced, done.stdout, done.stderr)  # the floor holds
        assert "coverage" in done.stdout + done.stderr
    empty = cli(wiki, "health", "--fail-under", "coverage=0.1", "--fail-under", "")
    assert empty.returncode == 2
    assert "'' has an empty part" in empty.stderr and "coverage=0.1," not in empty.stderr


def test_a_sentence_citing_its_source_by_a_link_is_accounted_for_as_verify_holds_it(tmp_path):
    """Issue 30: verify reads a sentence linking a source under raw/ as citing it, unquoted
    (citation.unquoted; not page.uncited, not page.unsupported_statement), but health
    counted it as a statement with neither citation nor gap marker."""
    root = tmp_path / "wiki"
    Workspace.init(root).close()
    advance(
        root,
        {
            **SOURCES,
            "wiki/index.md": INDEX_MD + "\n- [[linked]]\n- [[mixed]]\n",
            # no footnote: two sentences each linking a source, one with neither
            "wiki/linked.md": "---\ntitle: Linked\n---\n# Linked\n\n"
            "The pier opened in 1894, as [[town.txt]] records.\n\n"
            "The ferry runs in winter ([guide](../raw/guide.txt)).\n\n"
            "The harbour master keeps a small boat by the slipway.\n",
            # one footnoted claim, one linked sentence, one gap marker, one uncited sentence
            "wiki/mixed.md": page(
                "Mixed",
                "The museum holds 300 paintings, by [[raw/town.txt]]. "
                "The harbour is deep [gap: no survey yet]. "
                "The quay was paved with granite from the north.",
                [("raw/town.txt", "The pier is 400 metres long.")],
            ),
        },
    )
    verified = cli(root, "verify", "--all", "--format", "json")  # sentence granularity
    flagged = {(f["code"], f["path"], f["line"]) for f in json.loads(verified.stdout)["findings"]}
    # verify: the links are unquoted citations, the one sentence with neither is flagged
    assert {c for c, p, _ in flagged if p == "wiki/linked.md"} == {
        "citation.unquoted",
        "page.unsupported_statement",
    }
    assert ("page.uncited", "wiki/linked.md", None) not in flagged
    unsupported = [(p, line) for c, p, line in flagged if c == "page.unsupported_statement"]
    assert sorted(unsupported) == [("wiki/linked.md", 10), ("wiki/mixed.md", 6)]
    _, data = health_json(root)
    pages = {p["page"]: (p["statements"], p["accounted"]) for p in data["pages"]}
    # by hand: linked 3 statements, 2 by their links; mixed 4, the claim, the link, the gap
    assert pages["wiki/linked.md"] == (3, 2)
    assert pages["wiki/mixed.md"] == (4, 3)
    assert (data["wiki"]["statements"], data["wiki"]["coverage"]) == (7, round(5 / 7, 4))


def test_a_gap_marked_statement_contradicting_a_cited_claim_counts(wiki):
    """Review 36b (#7): a gap-marked "The pier opened in 1896" against the town page's
    cited 1894 counted no contradiction, and the sentence as accounted for."""
    before = advance(wiki, {"wiki/log.md": "# Log\n"})
    advance(
        wiki,
        {
            "wiki/index.md": FILES["wiki/index.md"] + "- [[pier]]\n",
            "wiki/pier.md": "---\ntitle: Pier\n---\n# Pier\n\n"
            "The pier opened in 1896. [gap: no source found yet]\n",
        },
    )
    code, data = health_json(wiki, "--baseline", before, "--fail-on-regression")
    assert code == 3 and "contradictions" in data["baseline"]["regressions"]
    pages = {p["page"]: p for p in data["pages"]}
    assert data["wiki"]["contradictions"] == 2  # the ferry's, and the gap-marked pier's
    assert pages["wiki/pier.md"]["contradictions"] == 1
    assert pages["wiki/town.md"]["contradictions"] == 2
    # still accounted for (a gap marker is an honest "no source"), but not consistent
    assert (pages["wiki/pier.md"]["statements"], pages["wiki/pier.md"]["accounted"]) == (1, 1)
    done = cli(wiki, "claims", "--format", "json", "--states")
    states = {r["claim_id"]: r["state"] for r in json.loads(done.stdout)}
    assert states["wiki/town.md#^1"] == "contested"


def test_a_possible_contradiction_is_counted_apart(wiki):
    """Review 37c (#2): "The museum hall holds 250 paintings" against "The museum holds 300
    paintings" may be about another thing: a claim.possible_contradiction, counted as
    `possible_contradictions`, not as an open contradiction, and a regression of its own."""
    before = advance(wiki, {"wiki/log.md": "# Log\n"})
    hall = "The museum hall holds 250 paintings."
    advance(
        wiki,
        {
            "raw/hall.txt": hall + "\n",
            "wiki/index.md": FILES["wiki/index.md"] + "- [[hall]]\n",
            "wiki/hall.md": "---\ntitle: Hall\n---\n# Hall\n\n"
            f"{hall}[^1]\n\n[^1]: {format_tail('raw/hall.txt', None, hall, 0)}\n",
        },
    )
    code, data = health_json(wiki, "--baseline", before, "--fail-on-regression")
    assert (data["wiki"]["contradictions"], data["wiki"]["possible_contradictions"]) == (1, 1)
    assert code == 3 and data["baseline"]["regressions"] == ["possible_contradictions"]
    pages = {p["page"]: p for p in data["pages"]}
    assert pages["wiki/hall.md"]["possible_contradictions"] == 1
    assert pages["wiki/hall.md"]["contradictions"] == 0
    Draft202012Validator(health_module.schema()).validate(data)
    text = cli(wiki, "health").stdout
    assert "possible_contradictions 1" in " ".join(text.split())


def test_fail_over_holds_a_count_to_a_ceiling(wiki):
    """Trial 40: a CI could hold "no open contradictions" only as "no more than at the
    baseline" (one fixed and one new passed); `--fail-over contradictions=0` exits 1 with
    the fixture's one open contradiction, and names it; a count at its ceiling passes."""
    over = cli(wiki, "health", "--fail-over", "contradictions=0,stale=0")
    assert over.returncode == 1, over.stderr
    assert "over its ceiling: contradictions 1 > 0" in over.stderr
    assert "stale" not in over.stderr  # 0 stale: at its ceiling
    assert cli(wiki, "health", "--fail-over", "contradictions=1,orphans=1").returncode == 0
    code, data = health_json(wiki, "--fail-over", "contradictions=0")
    assert code == 1 and data["failures"]["over"] == ["contradictions 1 > 0"]
    Draft202012Validator(health_module.schema()).validate(data)
    # usage errors: a ratio, a fraction, a figure twice, an empty part
    for bad in ("coverage=0", "contradictions=0.5", "stale=0,stale=1", "", "contradictions=-1"):
        done = cli(wiki, "health", "--fail-over", bad)
        assert done.returncode == 2, (bad, done.stdout)
        assert "--fail-over" in done.stderr


def test_a_ratios_change_reads_in_points(wiki):
    """Trial 40: "anchored 94.1%  (-0.0588)" read as 0.06 points; a ratio's change is
    given in percentage points beside its percentage, a count's as a number."""
    before = advance(wiki, {"wiki/log.md": "# Log\n"})
    town = FILES["wiki/town.md"].replace("old hall.", "old hall. The mayor lives by the pier.")
    advance(wiki, {"wiki/town.md": town})
    shown = cli(wiki, "health", "--baseline", before).stdout
    coverage = next(line for line in shown.splitlines() if line.strip().startswith("coverage"))
    assert coverage.split() == ["coverage", "75.0%", "(-10.7", "pts)"], coverage
    orphans = next(line for line in shown.splitlines() if line.strip().startswith("orphans"))
    assert orphans.split() == ["orphans", "1", "(+0)"], orphans
