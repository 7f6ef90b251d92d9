"""What a run does to each cited claim (claim_checks), frozen claims, gap markers, scope,
required steps: the verifier on real git objects (docs/ledger.md)."""

from __future__ import annotations

import pytest
from support.trees import at, commit_files, no_errors
from support.verifying import plan_for, verify_trees

from wikigate.config import Config, parse_config
from wikigate.models import Budget, Plan, RunMeta
from wikigate.verifier.citation import format_tail
from wikigate.verifier.claims import page_claims
from wikigate.verifier.markdown import parse_page

SOURCE = (
    "Cats sleep for sixteen hours a day.\n"
    "Dogs may bark at night.\n"
    "Owls are not the fastest birds.\n"
)
INDEX = "---\ntitle: Index\n---\n# Index\n\n- [[Cats]]\n"
SLEEP = "Cats sleep for sixteen hours a day."
BARK = "Dogs may bark at night."


def tail(quote: str) -> str:
    return format_tail("raw/animals.txt", None, quote, SOURCE.find(quote))


def cats(body: str) -> str:
    return f"---\ntitle: Cats\n---\n# Cats\n\n{body}\n"


GOOD = cats(f"{SLEEP}[^1] {BARK}[^2]\n\n[^1]: {tail(SLEEP)}\n[^2]: {tail(BARK)}")


@pytest.fixture
def base(repo):
    return commit_files(
        repo,
        None,
        {
            "raw/animals.txt": SOURCE,
            "wiki/index.md": INDEX,
            "wiki/log.md": "# Log\n",
            "wiki/cats.md": GOOD,
        },
    )


def verify(repo, base, files, *, toml="", run_type=None, scope=None):
    tip = commit_files(repo, base.id, files)
    plan = plan_for(base, tip, run_type, scope=scope) if run_type else None
    config = parse_config(toml, "wikigate.toml") if toml else Config()
    report = verify_trees(repo, tip, base, config=config, plan=plan)
    no_errors(report)
    return report


def results(report) -> dict[str, tuple[str, str]]:
    return {c.claim_id: (c.result, c.reason) for c in report.claim_checks}


def test_each_claim_of_a_changed_page_passes_warns_or_fails(repo, base):
    moved = cats(
        f"## Intro added above\n\n{BARK}[^b]\n\n{SLEEP}[^a]\n\n"
        f"[^a]: {tail(SLEEP)}\n[^b]: {tail(BARK)}"
    )
    report = verify(repo, base, {"wiki/cats.md": moved})
    got = results(report)
    assert got["wiki/cats.md#^1"] == ("pass", "kept, as [^a]")
    assert got["wiki/cats.md#^2"] == ("pass", "kept, as [^b]")
    assert report.verdict == "commit"

    reworded = cats(
        f"Cats sleep for sixteen hours each day.[^1] {BARK}[^2]\n\n"
        f"[^1]: {tail(SLEEP)}\n[^2]: {tail(BARK)}"
    )
    report = verify(repo, base, {"wiki/cats.md": reworded})
    assert results(report)["wiki/cats.md#^1"][0] == "warn"
    assert "reworded around the same quote" in results(report)["wiki/cats.md#^1"][1]
    assert results(report)["wiki/cats.md#^2"] == ("pass", "unchanged")
    assert not at(report, "run.convergence") and report.verdict == "commit"

    # the same footnote under another statement (another number): altered, not reworded
    altered = cats(
        f"Cats sleep for six hours a day.[^1] {BARK}[^2]\n\n[^1]: {tail(SLEEP)}\n[^2]: {tail(BARK)}"
    )
    report = verify(repo, base, {"wiki/cats.md": altered})
    assert results(report)["wiki/cats.md#^1"] == ("fail", "removed or altered")
    (conv,) = at(report, "run.convergence")
    assert conv.severity == "critical" and conv.line == 6 and report.verdict == "reject"


def test_a_second_sentence_citing_the_same_footnote_is_a_claim_too(repo, base):
    """Found by review: only the first sentence referencing a label was a claim, so a run
    could rewrite or delete the second one on main with no run.convergence."""
    twice = cats(
        f"{SLEEP}[^1] Kittens sleep even longer.[^1] {BARK}[^2]\n\n"
        f"[^1]: {tail(SLEEP)}\n[^2]: {tail(BARK)}"
    )
    on_main = commit_files(repo, base.id, {"wiki/cats.md": twice})
    altered = cats(
        f"{SLEEP}[^1] Kittens never sleep.[^1] {BARK}[^2]\n\n"
        f"[^1]: {tail(SLEEP)}\n[^2]: {tail(BARK)}"
    )
    report = verify(repo, on_main, {"wiki/cats.md": altered})
    got = results(report)
    assert got["wiki/cats.md#^1"] == ("pass", "unchanged")
    assert got["wiki/cats.md#^1@2"] == ("fail", "removed or altered")
    assert at(report, "run.convergence") and report.verdict == "reject"


def test_of_two_identical_sentences_rewriting_the_second_is_an_altered_claim(repo, base):
    """Found by review (R3): two identical sentences citing one footnote were both matched
    to the one the run kept, so rewriting or deleting the other passed."""
    twice = cats(f"{SLEEP}[^1] {SLEEP}[^1]\n\n[^1]: {tail(SLEEP)}")
    on_main = commit_files(repo, base.id, {"wiki/cats.md": twice})
    for run in (f"{SLEEP}[^1] Cats never sleep.[^1]", f"{SLEEP}[^1]"):
        report = verify(repo, on_main, {"wiki/cats.md": cats(f"{run}\n\n[^1]: {tail(SLEEP)}")})
        got = results(report)
        assert got["wiki/cats.md#^1"] == ("pass", "unchanged")
        assert got["wiki/cats.md#^1@2"] == ("fail", "removed or altered")
        assert at(report, "run.convergence") and report.verdict == "reject"
    first = cats(f"Cats never sleep.[^1] {SLEEP}[^1]\n\n[^1]: {tail(SLEEP)}")
    got = results(verify(repo, on_main, {"wiki/cats.md": first}))
    assert got == {
        "wiki/cats.md#^1": ("fail", "removed or altered"),
        "wiki/cats.md#^1@2": ("pass", "unchanged"),
    }


def test_a_cited_table_cell_is_its_whole_row_so_a_new_subject_is_an_altered_claim(repo, base):
    """Found by review (R1): a cell's claim was its own text, so "| Old cats | 16[^1] |" ->
    "| Dogs | 16[^1] |" kept the claim "16" and passed."""
    table = "| Animal | Hours |\n|---|---|\n| {} | 16[^1] |"
    on_main = commit_files(
        repo, base.id, {"wiki/cats.md": cats(f"{table.format('Old cats')}\n\n[^1]: {tail(SLEEP)}")}
    )
    report = verify(
        repo, on_main, {"wiki/cats.md": cats(f"{table.format('Dogs')}\n\n[^1]: {tail(SLEEP)}")}
    )
    assert results(report)["wiki/cats.md#^1"] == ("fail", "removed or altered")
    (found,) = at(report, "run.convergence")
    assert found.claim == "Animal: Old cats; Hours: 16" and found.line == 8
    # the row's other cited cells are claims of their own, not part of this one
    two = "| Animal | Hours | Barks |\n|---|---|---|\n| [[Dogs]] | 16[^1] | yes[^2] |\n"
    assert [c.sentence for c in page_claims(parse_page("wiki/d.md", two + GOOD))][:2] == [
        "Animal: Dogs; Hours: 16",
        "Animal: Dogs; Barks: yes",
    ]
    moved = cats(f"Intro.[gap: none]\n\n{table.format('Old cats')}\n\n[^1]: {tail(SLEEP)}")
    assert results(verify(repo, on_main, {"wiki/cats.md": moved}))["wiki/cats.md#^1"][0] == "pass"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The ferry runs in winter.", "The ferry runs in summer."),  # a season swapped
        ("The town had 16 inns.", "The county had 16 inns."),  # a subject swapped
        ("The mill grinds 16 sacks a day.", "The mill rarely grinds 16 sacks a day."),  # hedge
        ("The granary holds 16 tonnes.", "The granary holds 16 tonnes of sand."),  # added
        ("The school was founded by the parish.", "The school was founded by the crown."),
    ],
)
def test_one_word_changed_in_a_cited_claim_is_an_altered_claim(repo, base, old, new):
    """Found by review (36b): "reworded" was 60% of the words in common, so a short claim
    with one word swapped, added or a hedge slipped in passed as a rewording."""
    on_main = commit_files(
        repo, base.id, {"wiki/cats.md": cats(f"{old}[^1]\n\n[^1]: {tail(SLEEP)}")}
    )
    report = verify(repo, on_main, {"wiki/cats.md": cats(f"{new}[^1]\n\n[^1]: {tail(SLEEP)}")})
    assert results(report)["wiki/cats.md#^1"] == ("fail", "removed or altered")
    assert at(report, "run.convergence")
    # another order, other articles and inflections stay a rewording
    same = old.replace("The ", "A ").replace(".", "").rstrip() + "."
    kept = verify(repo, on_main, {"wiki/cats.md": cats(f"{same}[^1]\n\n[^1]: {tail(SLEEP)}")})
    assert results(kept)["wiki/cats.md#^1"][0] in ("pass", "warn")


def test_a_cited_rows_subject_changed_by_one_word_is_an_altered_claim(repo, base):
    """Found by review (36a, 36b): "Old cats" -> "Young cats" kept 60% of the row's words."""
    table = "| Animal | Hours |\n|---|---|\n| {} | 16[^1] |"
    on_main = commit_files(
        repo, base.id, {"wiki/cats.md": cats(f"{table.format('Old cats')}\n\n[^1]: {tail(SLEEP)}")}
    )
    young = cats(f"{table.format('Young cats')}\n\n[^1]: {tail(SLEEP)}")
    report = verify(repo, on_main, {"wiki/cats.md": young})
    assert results(report)["wiki/cats.md#^1"] == ("fail", "removed or altered")


def test_a_reference_inside_raw_html_is_flagged_where_it_stands(repo, base):
    """Found by review (R2): "<div>…[^1]</div>" is no footnote a reader sees, and its
    sentence escaped the ledger and the convergence check with no finding at all."""
    html = cats(
        f"{SLEEP}[^1] {BARK}[^2]\n\n<table><tr><td>Old cats sleep two hours.[^1]</td></tr>"
        f"</table>\n\n<details><summary>More</summary>\n\n{SLEEP}[^1]\n\n</details>\n\n"
        f"[^1]: {tail(SLEEP)}\n[^2]: {tail(BARK)}"
    )
    report = verify(repo, base, {"wiki/cats.md": html})
    (found,) = at(report, "citation.in_html")
    assert found.severity == "major" and found.line == 8 and "[^1]" in found.message
    assert report.verdict == "revise"
    # markdown inside <details> (blank lines around it) is a claim like any other
    claims = page_claims(parse_page("wiki/cats.md", html))
    assert [(c.id, c.sentence) for c in claims] == [
        ("wiki/cats.md#^1", SLEEP),
        ("wiki/cats.md#^2", BARK),
        ("wiki/cats.md#^1@2", SLEEP),
    ]


def test_a_claim_kept_in_a_disputed_block_passes(repo, base):
    hedged = cats(
        f"::: disputed\n{SLEEP}[^1]\n\n**Updated 2026-11-21 per raw/animals.txt:** "
        f"Owls are not the fastest birds.[^3]\n:::\n\n{BARK}[^2]\n\n"
        f"[^1]: {tail(SLEEP)}\n[^2]: {tail(BARK)}\n"
        f"[^3]: {tail('Owls are not the fastest birds.')}"
    )
    report = verify(repo, base, {"wiki/cats.md": hedged})
    assert report.verdict == "commit", report.findings
    assert report.verdict == "commit"


FROZEN_CLAIM = '[ledger]\nfrozen = ["wiki/cats.md#^1"]\n'


def test_a_frozen_claim_may_not_change_and_a_rewording_asks_a_person(repo, base):
    removed = cats(f"{BARK}[^2]\n\n[^2]: {tail(BARK)}")
    report = verify(repo, base, {"wiki/cats.md": removed}, toml=FROZEN_CLAIM)
    (frozen,) = at(report, "claim.frozen")
    assert frozen.severity == "critical" and "wiki/cats.md#^1" in frozen.message
    assert not at(report, "run.convergence")  # one finding per claim: the frozen one
    assert report.verdict == "reject"
    assert report.claim_checks[0].frozen == "wiki/cats.md#^1"

    reworded = cats(
        f"Cats sleep for sixteen hours each day.[^1] {BARK}[^2]\n\n"
        f"[^1]: {tail(SLEEP)}\n[^2]: {tail(BARK)}"
    )
    report = verify(repo, base, {"wiki/cats.md": reworded}, toml=FROZEN_CLAIM)
    assert [f.code for f in report.findings] == ["claim.frozen_reworded"]
    assert report.verdict == "needs_human_review"

    # the unfrozen claim next to it may be reworded freely
    other = cats(
        f"{SLEEP}[^1] At night, dogs may bark.[^2]\n\n[^1]: {tail(SLEEP)}\n[^2]: {tail(BARK)}"
    )
    assert verify(repo, base, {"wiki/cats.md": other}, toml=FROZEN_CLAIM).verdict == "commit"


def test_a_frozen_page_gains_no_claim_and_a_frozen_folder_covers_its_pages(repo, base):
    toml = '[ledger]\nfrozen = ["wiki/"]\n'
    grown = (
        GOOD
        + f"\nOwls are not the fastest birds.[^3]\n\n[^3]: {tail('Owls are not the fastest birds.')}\n"
    )
    report = verify(repo, base, {"wiki/cats.md": grown}, toml=toml)
    (f,) = at(report, "claim.frozen")
    assert "changes the frozen wiki/cats.md" in f.message and f.line == 11
    assert report.verdict == "reject"


def test_a_frozen_page_may_not_change_at_all_in_any_run_type(repo, base):
    toml = '[ledger]\nfrozen = ["wiki/cats.md"]\n'
    # uncited text appended: no claim changes, the page does
    grown = GOOD + "\nCats are the best animals, everyone knows.\n"
    report = verify(repo, base, {"wiki/cats.md": grown}, toml=toml)
    (f,) = at(report, "claim.frozen")
    assert f.severity == "critical" and f.line == 11 and "frozen wiki/cats.md" in f.message
    assert report.verdict == "reject"
    # a word changed in uncited text above the claims
    edited = GOOD.replace("# Cats", "# Cats (revised)")
    (f,) = at(verify(repo, base, {"wiki/cats.md": edited}, toml=toml), "claim.frozen")
    assert f.line == 4

    # an archive run may delete pages with cited claims, but not a frozen one
    tip = commit_files(
        repo, base.id, {"wiki/cats.md": None, "wiki/index.md": "---\ntitle: Index\n---\n# Index\n"}
    )
    meta = RunMeta(
        run_id="r",
        run_type="archive",
        triggered_by="cli:t",
        base=str(base.id),
        started_at="2026-01-01T00:00:00Z",
        budget=Budget(),
    )
    report = verify_trees(
        repo,
        tip,
        base,
        config=parse_config(toml, "wikigate.toml"),
        plan=Plan(meta=meta, ops=[], tip=str(tip.id)),
    )
    (f,) = at(report, "claim.frozen")
    assert "deletes the frozen wiki/cats.md" in f.message and report.verdict == "reject"
    # the same archive run passes without the freeze
    unfrozen = verify_trees(
        repo, tip, base, config=Config(), plan=Plan(meta=meta, ops=[], tip=str(tip.id))
    )
    assert not at(unfrozen, "claim.frozen") and not at(unfrozen, "run.convergence")

    # a frozen folder gains no page
    folder = '[ledger]\nfrozen = ["wiki/pets/"]\n'
    new_page = cats(f"{SLEEP}[^1]\n\n[^1]: {tail(SLEEP)}").replace("Cats", "Pets", 2)
    report = verify(repo, base, {"wiki/pets/cats.md": new_page}, toml=folder)
    assert [f.path for f in at(report, "claim.frozen")] == ["wiki/pets/cats.md"]


def test_a_frozen_claim_keeps_its_label(repo, base):
    relabelled = cats(f"{SLEEP}[^k] {BARK}[^2]\n\n[^k]: {tail(SLEEP)}\n[^2]: {tail(BARK)}")
    report = verify(repo, base, {"wiki/cats.md": relabelled}, toml=FROZEN_CLAIM)
    (f,) = at(report, "claim.frozen")
    assert "relabelled as [^k]" in f.message and f.line == 6 and report.verdict == "reject"
    # unfrozen, the same relabel is a pass
    assert verify(repo, base, {"wiki/cats.md": relabelled}).verdict == "commit"

    # relabelled, and another claim takes the frozen label: still the frozen claim's change
    swapped = cats(f"{SLEEP}[^k] {BARK}[^1]\n\n[^k]: {tail(SLEEP)}\n[^1]: {tail(BARK)}")
    report = verify(repo, base, {"wiki/cats.md": swapped}, toml=FROZEN_CLAIM)
    assert any("relabelled as [^k]" in f.message for f in at(report, "claim.frozen"))
    assert report.verdict == "reject"


def test_relabel_then_reword_of_a_frozen_claim_is_caught_at_the_reword(repo, base):
    """A relabel that landed anyway (a maintainer's override, or a rule from before the fix)
    leaves the entry naming no claim: the next change to its page, the reword, is refused."""
    relabelled = cats(f"{SLEEP}[^k] {BARK}[^2]\n\n[^k]: {tail(SLEEP)}\n[^2]: {tail(BARK)}")
    landed = commit_files(repo, base.id, {"wiki/cats.md": relabelled})
    reworded = cats(
        f"Cats sleep for sixteen hours each day.[^k] {BARK}[^2]\n\n"
        f"[^k]: {tail(SLEEP)}\n[^2]: {tail(BARK)}"
    )
    report = verify(repo, landed, {"wiki/cats.md": reworded}, toml=FROZEN_CLAIM)
    (f,) = at(report, "claim.frozen")
    assert f.severity == "critical" and "names no cited claim of wiki/cats.md" in f.message
    assert report.verdict == "reject"


def test_a_frozen_claim_with_a_bad_entry_is_a_config_error():
    from wikigate.errors import ConfigError

    with pytest.raises(ConfigError, match=r"ledger\.frozen"):
        parse_config('[ledger]\nfrozen = ["docs/x.md"]\n', "wikigate.toml")


GAPPED = cats(
    "Cats purr for reasons no source here explains [gap: no source on why cats purr].\n\n"
    "Their whiskers sense air currents in the dark. [gap: sensing range unknown]"
)
BARE = cats("Cats purr for reasons no source here explains.\n\nA second plain statement here.")


def test_gap_marked_page_passes_uncited_and_gaps_are_counted(repo, base):
    report = verify(repo, base, {"wiki/purr.md": GAPPED, "wiki/index.md": INDEX + "- [[Purr]]\n"})
    assert not at(report, "page.uncited"), report.findings
    assert report.summary.gaps == 2
    unmarked = verify(repo, base, {"wiki/purr.md": BARE, "wiki/index.md": INDEX + "- [[Purr]]\n"})
    assert at(unmarked, "page.uncited")
    half = cats(
        "Cats purr for reasons no source here explains [gap: why].\n\nA second plain statement here."
    )
    report = verify(repo, base, {"wiki/purr.md": half, "wiki/index.md": INDEX + "- [[Purr]]\n"})
    (f,) = at(report, "page.uncited")
    assert "1 statements carry neither" in f.message


def test_gap_policy_forbids_or_caps_gap_markers(repo, base):
    files = {"wiki/purr.md": GAPPED, "wiki/index.md": INDEX + "- [[Purr]]\n"}
    none = verify(repo, base, files, toml="[gap_policy]\nallowed = false\n")
    assert [(f.code, f.line) for f in at(none, "page.gap")] == [("page.gap", 6), ("page.gap", 8)]
    capped = verify(repo, base, files, toml="[gap_policy]\nmax_per_page = 1\n")
    (f,) = at(capped, "page.gap")
    assert "2 gap markers" in f.message and f.line == 8
    assert capped.verdict == "revise"


def test_gap_marker_in_code_is_not_a_gap(repo, base):
    page = cats(f"Use `[gap: x]` to mark a gap in your notes.[^1]\n\n[^1]: {tail(SLEEP)}")
    report = verify(repo, base, {"wiki/cats.md": page})
    assert report.summary.gaps == 0


def test_a_change_outside_the_declared_scope_is_critical(repo, base):
    files = {"wiki/cats.md": GOOD + "\nMore.\n", "wiki/index.md": INDEX + "\n"}
    inside = verify(repo, base, files, run_type="cascade", scope=("wiki/cats.md", "wiki/index.md"))
    assert not at(inside, "run.scope")
    outside = verify(repo, base, files, run_type="cascade", scope=("wiki/cats.md",))
    (f,) = at(outside, "run.scope")
    assert f.path == "wiki/index.md" and f.severity == "critical" and outside.verdict == "reject"
    folder = verify(repo, base, files, run_type="cascade", scope=("wiki/",))
    assert not at(folder, "run.scope")
    # appending to the log is always allowed
    logged = verify(
        repo, base, {"wiki/log.md": "# Log\n- did x\n"}, run_type="cascade", scope=("wiki/a.md",)
    )
    assert not at(logged, "run.scope")
    unscoped = verify(repo, base, files, run_type="cascade")
    assert not at(unscoped, "run.scope")


REQUIRED = """
[runs.required.ingest]
append = ["wiki/log.md"]
link_new_pages_from = ["wiki/index.md"]
"""


def test_required_steps_of_a_run_type(repo, base):
    source = {"raw/new.txt": "New facts.\n"}
    page = f"---\ntitle: Lions\n---\n# Lions\n\n{SLEEP}[^1]\n\n[^1]: {tail(SLEEP)}\n"
    missing = verify(
        repo, base, {**source, "wiki/lions.md": page}, toml=REQUIRED, run_type="ingest"
    )
    found = sorted((f.path, f.message) for f in at(missing, "run.required_step"))
    assert found == [
        ("wiki/lions.md", "an ingest run must link its new page wiki/lions.md from wiki/index.md"),
        ("wiki/log.md", "an ingest run must append to wiki/log.md (it did not add to its end)"),
    ]
    assert missing.verdict == "revise", missing.findings
    done = verify(
        repo,
        base,
        {
            **source,
            "wiki/lions.md": page,
            "wiki/index.md": INDEX + "- [[Lions]]\n",
            "wiki/log.md": "# Log\n- ingested raw/new.txt\n",
        },
        toml=REQUIRED,
        run_type="ingest",
    )
    assert not at(done, "run.required_step")
    # another run type is not held to the ingest steps
    other = verify(repo, base, {"wiki/lions.md": page}, toml=REQUIRED, run_type="cascade")
    assert not at(other, "run.required_step")
