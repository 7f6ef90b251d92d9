"""The offline judge's rules on a corpus of faithful and unfaithful claims
(tests/support/semantic_cases.py), and through a real verification."""

from __future__ import annotations

import pygit2
import pytest
from support.semantic_cases import FAITHFUL, UNFAITHFUL, Case
from support.trees import at, commit_files
from support.verifying import verify_trees

from wikigate.config import Config
from wikigate.verifier.citation import format_tail
from wikigate.verifier.heuristic import conflicts, inflections

WINDOW = Config().judge.window_chars


def window(c: Case) -> str:
    start = c.source.index(c.quote)
    return c.source[max(0, start - WINDOW) : start + len(c.quote) + WINDOW]


@pytest.mark.parametrize("case", FAITHFUL, ids=lambda c: c.claim[:40])
def test_no_flag_on_a_faithful_claim(case):
    assert conflicts(case.claim, case.quote, window(case)) == []


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
}


@pytest.mark.parametrize("case", UNFAITHFUL, ids=lambda c: c.wrong or "")
def test_what_the_rules_see_of_unfaithful_claims(case):
    kinds = {k.kind for k in conflicts(case.claim, case.quote, window(case))}
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
