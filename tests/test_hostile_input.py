"""Hostile pages and sources: every one becomes located findings, never an error or a stall."""

from __future__ import annotations

import time

import pygit2
import pytest
from support.trees import commit_files
from wikigate.verifier.citation import format_tail, quote_hash
from wikigate.verifier.engine import verify_trees
from wikigate.verifier.markdown import parse_page

from wikigate.config import Config

NOTES = (
    "Minutes of the meeting.\n"
    "After a long debate the committee rejected the plan by seven votes to two.\n"
    "The treasurer resigned the next day.\n"
)
INDEX = "---\ntitle: Index\n---\n# Index\n\n- [[Notes]]\n"
HEAD = "---\ntitle: Notes\n---\n# Notes\n\n"  # the page body starts on line 6


def anchored(quote: str, source: str = "raw/notes.txt", text: str = NOTES) -> str:
    return format_tail(source, None, quote, text.index(quote))


@pytest.fixture
def repo(tmp_path):
    return pygit2.init_repository(str(tmp_path / "r"), bare=True)


@pytest.fixture
def base(repo):
    return commit_files(
        repo,
        None,
        {"raw/notes.txt": NOTES, "wiki/index.md": INDEX, "wiki/log.md": "# Log\n"},
    )


def verify(repo, base, files, *, lint=False):
    tip = commit_files(repo, base.id, files)
    return verify_trees(repo, tip, None if lint else base, config=Config())


def at(report, code):
    return [f for f in report.findings if f.code == code]


def no_errors(report):
    assert not at(report, "verifier.error"), report.findings
    assert all(c.status != "error" for c in report.checks), report.checks


# ---------------------------------------------------------------- duplicate labels


def test_duplicate_footnote_label_is_critical_and_the_first_definition_is_verified(repo, base):
    page = HEAD + (
        "The committee rejected the plan.[^1]\n\n"  # line 6
        '[^1]: raw/notes.txt — "the committee approved the plan"\n'  # line 8: readers see this
        "\n"
        "Unrelated text.\n"
        "\n"
        f"[^1]: {anchored('the committee rejected the plan by seven votes to two')}\n"  # line 12
    )
    report = verify(repo, base, {"wiki/notes.md": page})
    no_errors(report)
    dupes = [f for f in at(report, "citation.syntax") if "defined" in f.message]
    assert [(f.severity, f.path, f.line) for f in dupes] == [("critical", "wiki/notes.md", 12)]
    assert "line 8" in dupes[0].message and "[^1]" in dupes[0].message
    # the first definition is the one checked: its quote is not in the source
    missing = at(report, "citation.quote_not_found")
    assert [(f.path, f.line) for f in missing] == [("wiki/notes.md", 8)]
    assert report.verdict == "reject"


def test_duplicate_on_the_next_line_and_both_verbatim_still_rejects(repo, base):
    good = anchored("the committee rejected the plan")
    page = HEAD + f"The committee rejected the plan.[^a]\n\n[^a]: {good}\n[^a]: {good}\n"
    report = verify(repo, base, {"wiki/notes.md": page})
    no_errors(report)
    dupes = at(report, "citation.syntax")
    assert [(f.severity, f.line) for f in dupes] == [("critical", 9)]
    assert "line 8" in dupes[0].message
    assert report.verdict == "reject"


# ---------------------------------------------------------------- malformed anchors

GOOD_HASH = quote_hash("the committee rejected the plan")


@pytest.mark.parametrize(
    ("definition", "message"),
    [
        ('raw/notes.txt, p.\u00b2 — "the committee rejected the plan"', "p.N"),
        ('raw/notes.txt, p.\uff11 — "the committee rejected the plan"', "p.N"),
        ("raw/notes.txt, p." + "9" * 5000 + ' — "the committee rejected the plan"', "p.N"),
        (
            'raw/notes.txt — "the committee rejected the plan" {@\u00b2 sha256:' + GOOD_HASH + "}",
            "OFFSET",
        ),
        (
            'raw/notes.txt — "the committee rejected the plan" {@\uff14\uff13 sha256:'
            + GOOD_HASH
            + "}",
            "OFFSET",
        ),
        (
            'raw/notes.txt — "the committee rejected the plan" {@'
            + "7" * 5000
            + " sha256:"
            + GOOD_HASH
            + "}",
            "OFFSET",
        ),
        ('raw/notes.txt — "the committee \\ud800 rejected"', "surrogate"),
        ('raw/notes.txt — "\\udfff"', "surrogate"),
    ],
    ids=[
        "superscript-page",
        "fullwidth-page",
        "5000-digit-page",
        "superscript-offset",
        "fullwidth-offset",
        "5000-digit-offset",
        "lone-surrogate",
        "lone-low-surrogate",
    ],
)
def test_malformed_definition_is_a_located_finding_and_the_page_is_still_checked(
    repo, base, definition, message
):
    page = HEAD + (
        "The committee rejected the plan.[^1] It was unanimous.[^2]\n\n"
        f"[^1]: {definition}\n"  # line 8
        '[^2]: raw/notes.txt — "the vote was unanimous"\n'  # line 9: a second, broken citation
    )
    report = verify(repo, base, {"wiki/notes.md": page})
    no_errors(report)
    syntax = at(report, "citation.syntax")
    assert [(f.severity, f.path, f.line) for f in syntax] == [("critical", "wiki/notes.md", 8)]
    assert message in syntax[0].message
    missing = at(report, "citation.quote_not_found")
    assert [(f.path, f.line) for f in missing] == [("wiki/notes.md", 9)]


def test_ascii_digits_still_parse(repo, base):
    page = (
        HEAD
        + f"The committee rejected the plan.[^1]\n\n[^1]: {anchored('the committee rejected the plan')}\n"
    )
    report = verify(repo, base, {"wiki/notes.md": page})
    assert report.verdict == "commit", report.findings
    assert report.summary.anchors_verified == 1


# ---------------------------------------------------------------- linear-time parsing

_NOTE = '\n\n[^1]: raw/notes.txt — "x"\n'  # a definition arms the footnote reference rule
HOSTILE = {
    "brackets": lambda n: "[" * n,
    "double-brackets": lambda n: "[[" * (n // 2),
    "brackets-closed-once": lambda n: "[" * (n - 1) + "]",
    "nested": lambda n: "[" * (n // 2) + "]" * (n // 2),
    "footnote-openers": lambda n: "[^" * (n // 2) + _NOTE,
    "footnote-labels": lambda n: ("[^" + "a" * 10) * (n // 12) + _NOTE,
    "inline-footnotes": lambda n: "^[" * (n // 2),
    "images": lambda n: "![" * (n // 2),
    "wikilink-openers": lambda n: "[[a" * (n // 3),
    "wikilinks-unclosed": lambda n: "[[a]" * (n // 4) + "]]",
    "bracket-lines": lambda n: "[\n" * (n // 2),
}
SMALL, LARGE = 12_500, 50_000


def _parse_seconds(text: str, tries: int = 2) -> float:
    best = float("inf")
    for _ in range(tries):
        t0 = time.perf_counter()
        parse_page("wiki/x.md", text)
        best = min(best, time.perf_counter() - t0)
    return best


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_pages_parse_in_linear_time(name):
    make = HOSTILE[name]
    small = _parse_seconds(make(SMALL))
    # generous absolute bound (a busy CI machine): ~0.05-0.5 s here, 0.2-9 s before
    assert small < 3, f"{name}: {SMALL // 1000} KB took {small:.2f} s"
    large = _parse_seconds(make(LARGE))
    # 4x the input: linear time is ~4x, quadratic ~16x
    ratio = large / max(small, 1e-3)
    assert ratio < 8, f"{name}: {small:.3f} s → {large:.3f} s (x{ratio:.1f} for x4 input)"


def test_a_200kb_bracket_page_verifies_in_a_second(repo, base):
    for text in ("[" * 200_000, "[[" * 100_000):
        t0 = time.perf_counter()
        report = verify(repo, base, {"wiki/notes.md": text})
        elapsed = time.perf_counter() - t0
        no_errors(report)
        assert at(report, "page.uncited")  # it was parsed and checked
        assert elapsed < 3, f"{len(text) // 1000} KB took {elapsed:.2f} s"  # ~0.3 s here
