"""The stale-claim route's defects (session 41's new-user trial): a claim is stale only
when a source it cites changed since the commit that gave the claim its text (one
mechanism for the gate, `verify --all` and the ledger); a claim kept in a `::: disputed`
block is history everywhere; a claim citing two sources, one changed, can be repaired; a
removal is said in the text report; `verify --all` lists stale pages. A real workspace,
the product's verifier, the CLI in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.helpers import git, start, wikigate
from test_stale_fix import (
    CHANGED,
    CLOCK,
    LONG,
    OPENED,
    PIER,
    PRODUCT,
    TOWN,
    advance,
    changed_wiki,
    cite,
    disputed_repair,
    main_file,
    page,
    run_writing,
    states,
)

from wikigate.verifier.citation import format_tail
from wikigate.workspace import Workspace

INDEX = "---\ntitle: Index\n---\n# Index\n\n- [[pier]]\n"


@pytest.fixture
def wiki(tmp_path: Path) -> Path:
    """main: the pier page verified, then a person's commit changing its source so that
    [^2] (400 metres) is stale."""
    files = {"raw/town.txt": TOWN, "wiki/pier.md": PIER, "wiki/index.md": INDEX}
    return changed_wiki(tmp_path / "wiki", files, {"raw/town.txt": CHANGED})


@pytest.fixture
def never(tmp_path: Path) -> Path:
    """main: a person's commit of a page whose [^2] quotes what its source never said;
    the source has not changed since."""
    root = tmp_path / "wiki"
    Workspace.init(root).close()
    advance(root, {"raw/town.txt": CHANGED, "wiki/pier.md": PIER, "wiki/index.md": INDEX})
    return root


def verify_all(root: Path) -> tuple[list[dict], str]:
    done = wikigate(root, "verify", "--all", "--format", "json", env=PRODUCT)
    found = [f for f in json.loads(done.stdout)["findings"] if f["path"] == "wiki/pier.md"]
    text = wikigate(root, "verify", "--all", env=PRODUCT).stdout
    return found, text


def test_a_quote_that_never_verified_is_not_called_stale(never):
    """Defect 1: the gate called it citation.stale ("its source changed since the claim
    was written") from the base tree alone; nothing changed: it never verified."""
    assert states(never)["wiki/pier.md#^2"] == "unverified"
    before = git(never, "rev-parse", "main").stdout
    _, done = run_writing(never, {"wiki/pier.md": page([OPENED, LONG, CLOCK])})
    assert done.returncode == 1, done.stdout + done.stderr  # fail-closed: the run touches it
    assert "citation.stale" not in done.stdout
    assert "critical citation.quote_not_found: [^2]" in done.stdout
    assert "the claim never verified: its text is as commit" in done.stdout
    assert "wrote it, and raw/town.txt has not changed since" in done.stdout
    assert git(never, "rev-parse", "main").stdout == before
    found, _ = verify_all(never)
    assert [f["code"] for f in found] == ["citation.quote_not_found"]
    assert "changed since the claim was written" not in found[0]["message"]
    # fail-closed is no trap: a run may update (or remove) the claim that never verified
    update = ("The pier is 420 metres long.", "The pier is 420 metres long.")
    text = page([OPENED, update], source=CHANGED)
    _, done = run_writing(never, {"wiki/pier.md": text})
    assert done.returncode == 0, done.stdout + done.stderr
    assert main_file(never, "wiki/pier.md") == text


def test_a_stale_claim_is_stale_in_verify_all_and_its_page_listed(wiki):
    """Defect 5: `verify --all`'s "pages not fresh:" left out stale pages."""
    found, text = verify_all(wiki)
    assert [f["code"] for f in found] == ["citation.stale"]
    assert "pages not fresh:\n  wiki/pier.md: stale (1 claim whose source changed)" in text


def test_a_disputed_claim_is_history_in_verify_all_and_the_ledger(wiki):
    """Defect 2: after the disputed-block repair landed, `verify --all` said critical
    citation.quote_not_found and the ledger `unverified`; docs/ledger.md: no finding."""
    disputed_repair(wiki)
    found, text = verify_all(wiki)
    assert found == []
    assert "PASS" in text.splitlines()[-1]
    assert states(wiki) == {
        "wiki/pier.md#^1": "fresh",
        "wiki/pier.md#^2": "disputed",
        "wiki/pier.md#^3": "fresh",
    }
    done = wikigate(wiki, "claims", "--state", "disputed", env=PRODUCT)
    assert done.returncode == 0, done.stderr
    assert "wiki/pier.md#^2" in done.stdout and "#^1" not in done.stdout


GUIDE = "A guide to the town. The pier is 400 metres long. It is open daily.\n"
SAID = "The pier is 400 metres long."
BOTH = (
    f"---\ntitle: Pier\n---\n# Pier\n\n{SAID}[^1][^2]\n\n"
    f"[^1]: {cite(TOWN, SAID)}\n"
    f"[^2]: {format_tail('raw/guide.txt', None, SAID, GUIDE.find(SAID))}\n"
)


@pytest.fixture
def two(tmp_path: Path) -> Path:
    """main: one sentence citing two sources; a person's change of one leaves [^1] stale
    and [^2] verifying."""
    files = {
        "raw/town.txt": TOWN,
        "raw/guide.txt": GUIDE,
        "wiki/pier.md": BOTH,
        "wiki/index.md": INDEX,
    }
    return changed_wiki(tmp_path / "wiki", files, {"raw/town.txt": CHANGED})


def test_a_claim_citing_a_stale_and_a_fresh_source_can_be_updated(two):
    """Defect 3: the sentence is one claim per footnote; updating it altered the fresh
    [^2]'s claim (run.convergence), though the sentence is stale as a whole."""
    assert states(two) == {"wiki/pier.md#^1": "stale", "wiki/pier.md#^2": "fresh"}
    new = "The pier is 420 metres long."
    text = f"---\ntitle: Pier\n---\n# Pier\n\n{new}[^1]\n\n[^1]: {cite(CHANGED, new)}\n"
    _, done = run_writing(two, {"wiki/pier.md": text})
    assert done.returncode == 0, done.stdout + done.stderr
    assert main_file(two, "wiki/pier.md") == text


def test_a_claim_citing_a_stale_and_a_fresh_source_can_be_kept_disputed(two):
    new = "The pier is 420 metres long."
    text = (
        BOTH.replace(
            f"{SAID}[^1][^2]\n",
            f"::: disputed\n{SAID}[^1][^2]\n\n"
            f"**Updated 2026-11-27 per raw/town.txt:** {new}[^3]\n:::\n",
        )
        + f"[^3]: {cite(CHANGED, new)}\n"
    )
    _, done = run_writing(two, {"wiki/pier.md": text})
    assert done.returncode == 0, done.stdout + done.stderr
    assert main_file(two, "wiki/pier.md") == text
    found, _ = verify_all(two)
    assert found == []


def test_the_text_report_says_a_stale_claim_was_removed(wiki):
    """Defect 4: the removal was in the JSON's claim_checks only."""
    run = start(wiki, run_type="cascade")
    done = wikigate(wiki, "run", "write", run, "wiki/pier.md", "--from", "-", stdin=page([OPENED]))
    assert done.returncode == 0, done.stderr
    branch = git(wiki, "for-each-ref", "--format=%(refname:short)", "refs/heads/").stdout.split()
    (ref,) = [b for b in branch if run in b]
    done = wikigate(wiki, "verify", ref, env=PRODUCT)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert "claims on changed pages: 1 kept, 0 reworded, 0 removed or altered" in lines
    assert (
        "removed, not verifying on main: wiki/pier.md#^2 'The pier is 400 metres long.' (stale)"
    ) in lines
