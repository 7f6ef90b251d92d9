"""Session 41's new-user trial (trial 41, item 3) of stale claims: a `::: disputed` block
keeps a stale claim as history only beside its dated update citing the same source (one
rule for the gate, `verify --all`, the ledger's states and `health`); a claim committed
straight to main that never verified says so in `verify --all`; `run finalize`'s text
says which claims a run removed that failed on main. A real workspace, the product's
verifier, the CLI in-process."""

from __future__ import annotations

import pytest
from support.helpers import git, wikigate
from test_stale_fix import (
    CHANGED,
    LONG,
    OPENED,
    PIER,
    PRODUCT,
    advance,
    changed_wiki,
    cite,
    main_file,
    page,
    run_writing,
    states,
)
from test_stale_states import never, verify_all, wiki  # noqa: F401 (fixtures)

from wikigate.verifier.citation import format_tail
from wikigate.verifier.markdown import parse_page

NEW = "The pier is 420 metres long."
GUIDE = "A guide to the town. The bandstand was built in 1901.\n"
BANDSTAND = "The bandstand was built in 1901."
CLOCK = "The hall has a clock."
STALE = "The pier opened in 1894.[^1] The pier is 400 metres long.[^2]\n"
UPDATE = f"**Updated 2026-11-27 per raw/town.txt:** {NEW}[^3]"
TOWN_NOTE = f"[^3]: {cite(CHANGED, NEW)}\n"
GUIDE_NOTE = f"[^3]: {format_tail('raw/guide.txt', None, BANDSTAND, GUIDE.find(BANDSTAND))}\n"

# the stale [^2] wrapped in `::: disputed` blocks that keep nothing: (the page's claims,
# the footnote added)
NOT_KEPT = {
    # trial 41: a block alone made the page fresh and `health` count 0 stale
    "no-update": ("The pier opened in 1894.[^1]\n\n::: disputed\n{stale}:::\n", ""),
    # trial 41: an "update" citing another source, about another thing
    "another-source": (
        "The pier opened in 1894.[^1]\n\n::: disputed\n{stale}\n"
        f"**Updated 2026-11-27 per raw/guide.txt:** {BANDSTAND}[^3]\n:::\n",
        GUIDE_NOTE,
    ),
    # trial 41b: an "update" citing the same source, about another thing
    "another-thing": (
        "The pier opened in 1894.[^1]\n\n::: disputed\n{stale}\n"
        f"**Updated 2026-11-27 per raw/town.txt:** {CLOCK}[^3]\n:::\n",
        f"[^3]: {cite(CHANGED, CLOCK)}\n",
    ),
    # the update in another block: blocks are told apart
    "another-block": (
        "The pier opened in 1894.[^1]\n\n::: disputed\n{stale}:::\n\n"
        f"::: disputed\n{UPDATE}\n:::\n",
        TOWN_NOTE,
    ),
    # docs/ledger.md: "with the update after it in the block"
    "update-before": (
        f"The pier opened in 1894.[^1]\n\n::: disputed\n{UPDATE}\n\n{{stale}}:::\n",
        TOWN_NOTE,
    ),
}


@pytest.mark.parametrize("case", NOT_KEPT, ids=list(NOT_KEPT))
def test_a_disputed_block_keeps_a_stale_claim_only_beside_its_update(wiki, case):  # noqa: F811
    """Trial 41's HIGH finding: a stale claim wrapped in `::: disputed` with no dated update
    (or an update citing another source) was `disputed`, its page fresh, `health` stale 0,
    `--fail-over stale=0` passing, and the gate said nothing."""
    claims, note = NOT_KEPT[case]
    if case == "another-source":
        advance(wiki, {"raw/guide.txt": GUIDE})
    text = PIER.replace(STALE, claims.format(stale="The pier is 400 metres long.[^2]\n"))
    text += note
    assert text != PIER
    _, done = run_writing(wiki, {"wiki/pier.md": text})
    assert "minor citation.stale: [^2]" in done.stdout, done.stdout
    assert "block holds no dated update citing raw/town.txt after it" in done.stdout
    assert "wiki/pier.md: stale (1 claim whose source changed" in done.stdout
    # the run lands (the claim is kept, unchanged), with the stale claim's note (an update
    # before it disagrees with it: claim.stale_other, minor, naming it to update too)
    assert done.returncode == 0, done.stdout + done.stderr
    assert main_file(wiki, "wiki/pier.md") == text
    assert states(wiki)["wiki/pier.md#^2"] == "stale"
    listed = wikigate(wiki, "pages", "--state", "stale", env=PRODUCT).stdout
    assert listed.startswith("wiki/pier.md  stale")
    held = wikigate(wiki, "health", "--fail-over", "stale=0", env=PRODUCT)
    assert held.returncode == 1, held.stdout + held.stderr
    assert "stale 1 > 0" in held.stdout + held.stderr
    found, said = verify_all(wiki)
    (stale,) = [f for f in found if f["code"] == "citation.stale"]
    assert stale["severity"] == "minor"
    assert "`**Updated YYYY-MM-DD per raw/town.txt:** …`" in stale["hint"]
    assert "pages not fresh:\n  wiki/pier.md: stale (1 claim whose source changed" in said


def test_a_stale_claim_beside_its_update_in_the_block_is_history(wiki):  # noqa: F811
    """The documented repair, in the second of two blocks: history, no finding, stale 0."""
    claims = (
        "::: disputed\nThe pier opened in 1894.[^1]\n:::\n\n"
        f"::: disputed\nThe pier is 400 metres long.[^2]\n\n{UPDATE}\n:::\n"
    )
    text = PIER.replace(STALE, claims) + TOWN_NOTE
    _, done = run_writing(wiki, {"wiki/pier.md": text})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "citation.stale" not in done.stdout
    assert states(wiki)["wiki/pier.md#^2"] == "disputed"
    held = wikigate(wiki, "health", "--fail-over", "stale=0", env=PRODUCT)
    assert held.returncode == 0, held.stdout + held.stderr
    found, _ = verify_all(wiki)
    assert found == []
    # the parser tells the blocks apart: which one each reference is in (0: none)
    parsed = parse_page("wiki/pier.md", main_file(wiki, "wiki/pier.md"))
    assert [(r.label, r.block) for r in parsed.refs] == [("1", 1), ("2", 2), ("3", 2)]


def test_verify_all_says_a_claim_main_s_tip_wrote_never_verified(never):  # noqa: F811
    """Trial 41: a claim committed straight to main, its source unchanged: `verify --all`
    said the plain `citation.quote_not_found` when main's tip wrote it, without the
    "never verified … commit X" docs/ledger.md promises."""
    head = git(never, "rev-parse", "main").stdout.strip()
    found, said = verify_all(never)
    assert [f["code"] for f in found] == ["citation.quote_not_found"]
    assert (
        f"the claim never verified: its text is as commit {head[:12]} wrote it, and "
        "raw/town.txt has not changed since"
    ) in found[0]["message"]
    assert f"as commit {head[:12]} wrote it" in said


def test_run_finalize_says_which_claims_it_removed_that_failed_on_main(wiki):  # noqa: F811
    """Trial 41: `run finalize`'s text left out the "removed, not verifying on main" line
    `wikigate verify`'s text report prints (docs/ledger.md)."""
    run, done = run_writing(wiki, {"wiki/pier.md": page([OPENED])})
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith(f"committed {run}")
    line = f"removed, not verifying on main: wiki/pier.md#^2 {LONG[0]!r} (stale)"
    assert line in done.stdout.splitlines()


def test_leaving_a_sentence_of_two_figures_and_sources_one_stale_is_no_semantic_conflict(
    tmp_path,
):
    """Trial 41b: "The pier is 400 or 450 metres long.[^1][^2]" citing the town (400) and a
    guide (450); once the town's source changed, a run that only edited something else on
    the page was sent to revise: the guide's footnote judged alone (a major
    citation.semantic_conflict, "claim has [400]"), though its source never changed."""
    from test_stale_fix import TOWN
    from test_stale_states import INDEX

    guide = "A guide to the town. The pier is 450 metres long.\n"
    said = "The pier is 400 or 450 metres long."
    town_quote, guide_quote = "The pier is 400 metres long.", "The pier is 450 metres long."
    text = (
        f"---\ntitle: Pier\n---\n# Pier\n\n{said}[^1][^2]\n\n"
        f"[^1]: {cite(TOWN, town_quote)}\n"
        f"[^2]: {format_tail('raw/guide.txt', None, guide_quote.rstrip('.'), guide.find(guide_quote))}\n"
    )
    files = {
        "raw/town.txt": TOWN,
        "raw/guide.txt": guide,
        "wiki/pier.md": text,
        "wiki/index.md": INDEX,
    }
    root = changed_wiki(tmp_path / "wiki", files, {"raw/town.txt": CHANGED})
    left = text.replace(f"{said}[^1][^2]\n", f"{said}[^1][^2] See [[index]].\n")
    _, done = run_writing(root, {"wiki/pier.md": left})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "semantic_conflict" not in done.stdout, done.stdout
    assert "minor citation.stale: [^1]" in done.stdout, done.stdout
