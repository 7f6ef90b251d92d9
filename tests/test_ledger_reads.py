"""The claim ledger reads what its verification already parsed: each commit's tree is
walked once and each page parsed once, and the rows are what they were."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.helpers import git
from test_ledger import QUOTE, RAVENS, _index, page_with, run_cli
from test_ledger import wiki as wiki  # noqa: F401 - the fixture

from wikigate import ledger
from wikigate.verifier import cache as cache_module
from wikigate.verifier import wiki as wiki_module
from wikigate.workspace import Workspace


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often a tree was walked, a page parsed, and a parsed page read from the cache."""
    counts = {"walks": 0, "parses": 0, "decodes": 0}

    def counting(name: str, key: str, module: object = wiki_module):  # type: ignore[no-untyped-def]
        real = getattr(module, name)

        def wrapped(*args, **kwargs):  # type: ignore[no-untyped-def]
            counts[key] += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, wrapped)

    counting("walk", "walks")
    counting("parse_page", "parses")
    counting("decode_page", "decodes")  # a page just parsed
    counting("decode_page", "decodes", cache_module)  # a page read from the cache
    return counts


def test_a_ledger_built_on_a_fresh_clone_walks_each_commit_once(
    wiki: Path,  # noqa: F811
    tmp_path: Path,
    counted: dict[str, int],
) -> None:
    ravens = page_with("Ravens", (RAVENS, RAVENS))
    _, done = run_cli(
        wiki, "cascade", {"wiki/ravens.md": ravens, "wiki/index.md": _index("Owls", "Ravens")}
    )
    assert done.returncode == 0, done.stdout
    expected = {r["claim_id"]: r for r in ledger.claims(Workspace.open(wiki))}
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(wiki), str(clone))
    ws = Workspace.open(clone)
    try:
        for key in counted:
            counted[key] = 0
        built = ledger.sync(ws)
        rows = {r["claim_id"]: r for r in ledger.claims(ws)}
    finally:
        ws.close()
    assert built.rebuilt and sorted(rows) == ["wiki/owls.md#^1", "wiki/ravens.md#^1"]
    assert rows == expected
    # commits that change a page are verified, their trees walked at most once each (it was
    # twice: the verification's, then the ledger's own to read claims and gaps); a run's
    # commits that change no source are verified together (issue 28): fewer walks
    changing = git(clone, "rev-list", "--first-parent", "main", "--", "wiki/").stdout.split()
    assert 1 <= counted["walks"] < len(changing)
    # every page parsed once per blob, by the verification; none decoded again from the cache
    assert counted["parses"] >= 1 and counted["decodes"] == counted["parses"]


def test_the_sync_of_a_ten_page_run_verifies_its_pages_once(
    wiki: Path,  # noqa: F811
    counted: dict[str, int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 28 (mcp28g): a run's commits each change a page and no source, so the ledger's
    sync after it is one citations check of the run's pages at its last commit (it was one
    a commit, each walking the commit's tree), with the rows a commit-by-commit rebuild
    makes (introduced and changed commits too)."""
    ws = Workspace.open(wiki)
    try:
        ledger.sync(ws)
        run = ws.start_run("cascade", "cli:test")
        names = [f"Ravens {n}" for n in range(10)]
        pages = {
            f"wiki/ravens-{n}.md": page_with(name, (RAVENS, RAVENS)) for n, name in enumerate(names)
        }
        for path, text in pages.items():
            run.stage_write(path, text)
        owls = page_with("Owls", (QUOTE, QUOTE), (RAVENS, RAVENS))  # a claim added
        run.stage_write("wiki/owls.md", owls)
        run.stage_write("wiki/index.md", _index("Owls", *names))
        done = run.finalize(judge=None)
        assert done.status == "committed", done.reason
        verified: list[tuple[str, ...]] = []
        real = ledger.read_pages

        def reading(request, what):  # type: ignore[no-untyped-def]
            verified.append(request.pages)
            return real(request, what)

        monkeypatch.setattr(ledger, "read_pages", reading)
        for key in counted:
            counted[key] = 0
        writes: list[int] = []  # the sync's write transactions (each one a commit)
        immediate = type(ws.store).immediate
        monkeypatch.setattr(
            type(ws.store), "immediate", lambda self: writes.append(1) or immediate(self)
        )
        synced = ledger.sync(ws)
        monkeypatch.setattr(type(ws.store), "immediate", immediate)
        rows = ledger.claims(ws)
        assert synced.commits >= 12 and synced.pages == 12
        assert len(writes) == 1  # the run's commits in one transaction (it was one each)
        # one verification of the run's twelve pages, its last commit's tree walked once
        assert verified == [tuple(sorted([*pages, "wiki/owls.md", "wiki/index.md"]))]
        assert counted["walks"] == 1
        assert {r["page"] for r in rows} == {"wiki/owls.md", *pages}
        # a commit-by-commit rebuild, as before: the same rows
        monkeypatch.setattr(ledger, "BATCH", 1)
        verified.clear()
        ledger.rebuild(ws)
        assert ledger.claims(ws) == rows
        assert len(verified) >= 12  # commit by commit
    finally:
        ws.close()


def test_a_source_added_mid_run_starts_a_batch_and_the_rows_equal_a_rebuild(
    wiki: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """mcp28g: a commit that adds a source is read at itself (the pages citing it too), so a
    run that cites a source before adding it, then edits the page again, leaves the rows a
    commit-by-commit rebuild leaves; and the claim, mismatched at its first commit, is
    anchored from the source's commit on."""
    from wikigate.verifier.citation import format_tail

    source = "raw/ravens.txt"
    tail = format_tail(source, None, RAVENS, 0)
    first = f"# Ravens\n\n{RAVENS}[^1]\n\n[^1]: {tail}\n"
    again = f"# Ravens\n\nA roost. {RAVENS}[^1]\n\n[^1]: {tail}\n"
    ws = Workspace.open(wiki)
    try:
        ledger.sync(ws)
        run = ws.start_run("ingest", "cli:test")
        run.stage_write("wiki/ravens.md", first)
        run.stage_write(source, RAVENS + "\n")
        run.stage_write("wiki/ravens.md", again)
        run.stage_write("wiki/index.md", _index("Owls", "Ravens"))
        done = run.finalize(judge=None)
        assert done.status == "committed", done.reason
        ledger.sync(ws)
        rows = ledger.claims(ws)
        ravens = [r for r in rows if r["page"] == "wiki/ravens.md"]
        assert [(r["anchor_status"], r["source"]) for r in ravens] == [("anchored", source)]
        monkeypatch.setattr(ledger, "BATCH", 1)
        ledger.rebuild(ws)
        assert ledger.claims(ws) == rows
    finally:
        ws.close()
