"""``wikigate anchor`` on a quote typed with straight quotes, apostrophes or hyphens where
the source has typographic ones (’ “ ” – —), or the reverse (trial 28 F11): the verifier
compares a quote verbatim, so anchor refuses it, saying which characters differ, the quote
as the source has it and the footnote quoting it so; that footnote verifies. The CLI in
process, on a real workspace (the MCP tool's error: test_mcp_trial28.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.helpers import in_process

from wikigate.workspace import Workspace

SOURCE = (
    "Field notes.\n"
    "The barn owl’s call — a “shriek” — carries far across the fields.\n"
    "Voles keep to their tunnels in the snow - mostly.\n"
)
CURLY = "The barn owl’s call — a “shriek” — carries far"
INDEX = "---\ntitle: Index\n---\n# Index\n\n- [[Owls]]\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = Workspace.init(tmp_path / "w")
    run = ws.start_run("ingest", "cli:test")
    run.stage_write("raw/notes.txt", SOURCE)
    assert run.finalize().status == "committed"
    ws.close()
    return tmp_path / "w"


def anchor(root: Path, quote: str) -> tuple[int, str, str]:
    done = in_process(["-C", str(root), "anchor", "raw/notes.txt", quote])
    return done.returncode, done.stdout, done.stderr


def test_a_straight_quoted_quote_names_the_source_s_characters_and_its_footnote(root):
    code, out, err = anchor(root, 'The barn owl\'s call -- a "shriek" -- carries far')
    assert code == 1 and out == ""
    assert "the quote does not occur in raw/notes.txt" in err
    assert "matches with the source's own characters at offset 13, line 2" in err
    assert "’ where the quote has '" in err and "— where the quote has --" in err
    assert '“ where the quote has "' in err and '” where the quote has "' in err
    assert 'The quote as the source has it: "The barn owl’s call — a “shriek” — carries far"' in err
    # the footnote it gives is the one anchor prints for the quote as the source has it
    code, tail, _ = anchor(root, CURLY)
    assert code == 0
    assert f"its footnote: {tail.strip()}" in err


def test_the_reverse_a_curly_quote_of_a_straight_source_and_a_dash_for_a_hyphen(root):
    code, _, err = anchor(root, "in the snow – mostly")
    assert code == 1
    assert "- where the quote has –" in err
    assert 'The quote as the source has it: "in the snow - mostly"' in err


def test_several_places_with_the_source_s_characters_ask_for_a_longer_span(root):
    code, _, err = anchor(root, " -- ")  # two em dashes on line 2, a hyphen on line 3
    assert code == 1
    assert "it occurs 3 times with the source's own quotes, apostrophes and dashes" in err
    assert "offset 32 (line 2)" in err and "(line 3)" in err
    assert "quote a longer, unique span" in err and "its footnote" not in err
    # a quote that is nowhere, even with typographic characters, says nothing more
    code, _, err = anchor(root, "the owl's shriek")
    assert code == 1
    assert err.strip().endswith("the quote does not occur in raw/notes.txt")


def test_the_footnote_the_hint_gives_lands(root):
    """The footnote taken from the error, put in a page, verifies and lands."""
    _, _, err = anchor(root, 'The barn owl\'s call -- a "shriek" -- carries far')
    tail = err.split("its footnote: ", 1)[1].strip()
    ws = Workspace.open(root)
    try:
        run = ws.start_run("synthesis", "cli:test")
        page = f"---\ntitle: Owls\n---\n# Owls\n\nA barn owl's shriek carries far.[^1]\n\n[^1]: {tail}\n"
        run.stage_write("wiki/owls.md", page)
        run.stage_write("wiki/index.md", INDEX)
        done = run.finalize()
    finally:
        ws.close()
    assert done.status == "committed", [f.message for f in done.findings]
