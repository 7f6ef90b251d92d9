"""The fuzz harness for cost: pages built from an adversarial grammar (nested and unclosed
brackets and markers, long lines, repeated references) verify to located findings only,
in time linear in their size.

Each example is a short pattern repeated to a size: the pattern is what hypothesis
explores; the repetition is what turns a quadratic rescan into a stall. The time measured
is this process's CPU time (other load on a busy machine cannot skew a ratio of two), and
the bound is a ratio: 4x the input may cost at most 8x the time (linear is ~4x, quadratic
~16x), over a size calibrated so that neither is mostly noise (support/cost.py). The
default suite runs a few examples, the same ones every time (derandomized); `pytest -m
stress` explores many, differently on each run.
"""

from __future__ import annotations

import pygit2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.cost import assert_linear
from support.trees import commit_files
from support.verifying import verify_trees

from wikigate.config import Config
from wikigate.verifier.citation import format_tail
from wikigate.verifier.claims import compare, page_claims
from wikigate.verifier.markdown import parse_page

pytestmark = pytest.mark.timing

SOURCE = "raw/s.txt"
SOURCE_TEXT = "The committee rejected the plan. The treasurer resigned.\n"
INDEX = "---\ntitle: Index\n---\n# Index\n\n- [[Notes]]\n"
GOOD = format_tail(SOURCE, None, "rejected the plan", SOURCE_TEXT.index("rejected the plan"))

ATOMS = [
    "[", "]", "[[", "]]", "[^", "[^1]", "[^x", "^[", "![", "](", "(", "<", ">", "`", "``",
    "*", "_", "~", "|", "#", "\\", "[gap:", "[gap: why]", ". ", "? ", "! ", ".", " ", "\t",
    "\n", "\n\n", "\n- ", "\n> ", "\n    ", "---\n", "[[Notes]]", "[[a|b]]", "http://x",
    "word", "Mr.", "c. 1894", "3.5 %", "\u202e", "\u200b", "é", "ﬁ",
    f"\n[^1]: {GOOD}\n", '\n[^2]: raw/s.txt — "nowhere at all" {@5 sha256:' + "0" * 64 + "}\n",
    "\n[^3]: raw/none.txt — \"q\"\n", "\n[^1]: again\n",
]  # fmt: skip

patterns = st.lists(st.sampled_from(ATOMS), min_size=1, max_size=8).map("".join)


def _grow(pattern: str, size: int) -> str:
    return (pattern * (size // len(pattern) + 1))[:size]


def _linear(pattern: str, run, size: int, label: str) -> None:
    assert_linear(lambda n: run(_grow(pattern, n)), size, f"{label} {pattern!r}")


@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,  # the default suite runs the same examples every time; stress explores
    suppress_health_check=[HealthCheck.too_slow],
)
@given(pattern=patterns)
def test_generated_hostile_pages_parse_in_linear_time(pattern):
    _linear(pattern, lambda text: parse_page("wiki/notes.md", text), 10_000, "parse")


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    repo = pygit2.init_repository(str(tmp_path_factory.mktemp("fuzz") / "r"), bare=True)
    return repo, commit_files(repo, None, {SOURCE: SOURCE_TEXT, "wiki/index.md": INDEX})


def _verify(repo, base, text: str):
    tip = commit_files(repo, base.id, {"wiki/notes.md": "---\ntitle: Notes\n---\n" + text})
    return verify_trees(repo, tip, base, config=Config())


@settings(
    max_examples=6,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(pattern=patterns)
def test_generated_hostile_pages_verify_to_findings_in_linear_time(base, pattern):
    repo, commit = base
    report = _verify(repo, commit, _grow(pattern, 8_000))
    errors = [f for f in report.findings if f.code == "verifier.error"]
    assert not errors, errors[0].message
    assert all(f.path is None or f.path.startswith(("wiki/", "raw/")) for f in report.findings)
    _linear(pattern, lambda text: _verify(repo, commit, text), 5_000, "verify")


@pytest.mark.stress
@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(pattern=patterns)
def test_many_generated_hostile_pages_verify_in_linear_time(base, pattern):
    repo, commit = base
    _linear(pattern, lambda text: parse_page("wiki/notes.md", text), 40_000, "parse")
    report = _verify(repo, commit, _grow(pattern, 40_000))
    assert not [f for f in report.findings if f.code == "verifier.error"]


def test_convergence_over_many_identical_claims_costs_linear_time():
    """Each claim on main stands for one claim of the run's page (R3): matching them, and
    trying a lost claim's wordings, stays linear when one sentence repeats thousands of times."""
    sleep = "Cats sleep sixteen hours.[^1] "

    def run(n: int) -> None:
        k = n // len(sleep)
        before = "# A\n\n" + sleep * k + '\n\n[^1]: raw/a.txt — "x"\n'
        after = before.replace(sleep, "Dogs bark.[^1] ", k // 2)
        claims = [page_claims(parse_page("wiki/a.md", t)) for t in (before, after)]
        assert sum(c.result == "fail" for c in compare(*claims, archived=False)) == k // 2

    assert_linear(run, 60_000, "convergence")


def test_a_table_of_cited_cells_parses_in_linear_time():
    """Each cited cell states its row (R1): a wide table of cited cells stays linear."""
    cols = 40
    head = "|" + "|".join(f"h{i}" for i in range(cols)) + "|\n|" + "---|" * cols + "\n"
    row = "|" + "|".join(f"v{i}[^1]" for i in range(cols)) + "|\n"

    def run(n: int) -> None:
        text = "# A\n\n" + head + row * (n // len(row)) + '\n[^1]: raw/a.txt — "x"\n'
        page = parse_page("wiki/a.md", text)
        assert page.refs and page.refs[-1].row.startswith("h39: v39")

    assert_linear(run, 60_000, "table")


def test_fingerprints_of_many_findings_on_one_long_line_cost_linear_time():
    """Review 36b: each finding hashed its whole line again: findings x line length."""
    from wikigate.models import Finding, fingerprint

    def run(n: int) -> None:
        line = "The granary holds many tonnes of grain.[^1] " * (n // 45)
        for k in range(n // 45):
            fingerprint(
                Finding(code="claim.contradiction", severity="major", message=f"m{k}"), line
            )

    assert_linear(run, 400_000, "fingerprints on one line")


def test_the_judges_diff_of_a_long_rewritten_page_costs_linear_time():
    """Review 36a: the direction/rubric/voice check diffed each page with difflib,
    quadratic on a long page (116 KB: 63 s of CPU); libgit2's diff, then clipped."""
    from types import SimpleNamespace

    from wikigate.verifier.checks import runs

    def run(n: int) -> None:
        # lines that repeat below difflib's 1% autojunk threshold (review 36a's page)
        old = "".join(f"{k % 150} row\n" for k in range(n // 8))
        new = "".join(f"{k * 7 % 150} row\n" for k in range(n // 8))
        tree = lambda text: SimpleNamespace(entries={"wiki/p.md"}, text_or_empty=lambda p: text)  # noqa: E731
        ctx = SimpleNamespace(
            base=tree(old),
            tip=tree(new),
            changed=lambda: ["wiki/p.md"],
            config=SimpleNamespace(judge=SimpleNamespace(max_claims_chars=60_000)),
        )
        diff, clipped = runs._diff(ctx)
        assert "is clipped" in diff and clipped == ["wiki/p.md"]

    assert_linear(run, 200_000, "the judge's diff of a page")
