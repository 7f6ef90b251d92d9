"""The per-page verdict cache of a whole-wiki verify: a warm ``verify --all`` says what a
cold one says, word for word, without checking again the pages whose inputs did not change;
any change to what a page's findings depend on checks it again; a damaged cache is read as
no cache."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest
from support.trees import commit_files
from support.verifying import verify_trees
from test_cache_and_workers import SOURCES, wiki_files

from wikigate.config import Config
from wikigate.verifier import cache as cache_module
from wikigate.verifier import verdicts
from wikigate.verifier import wiki as wiki_module
from wikigate.verifier.sources import watching_reads

MISPLACED = "wiki/p3.md"  # its anchor is off by one: checked every time (see verdicts.py)


@pytest.fixture
def rechecked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The pages a verification parsed, or read from the page cache, to check them."""
    seen: list[str] = []
    decode_page, parse_page = cache_module.decode_page, wiki_module.parse_page

    def decode(data: bytes) -> Any:
        page = decode_page(data)
        seen.append(page.path)
        return page

    def parse(path: str, text: str) -> Any:
        seen.append(path)
        return parse_page(path, text)

    monkeypatch.setattr(cache_module, "decode_page", decode)
    monkeypatch.setattr(wiki_module, "parse_page", parse)
    return seen


def report_of(repo, commit, cache, config=None) -> dict[str, Any]:
    """The whole report but its timings."""
    report = verify_trees(repo, commit, None, config=config or Config(), cache_path=cache)
    data = report.model_dump(mode="json")
    data["summary"].pop("elapsed_ms")
    for check in data["checks"]:
        check.pop("duration_ms")
    return data


def codes(report: dict[str, Any]) -> set[str]:
    return {f["code"] for f in report["findings"]}


def test_a_warm_whole_wiki_verify_says_what_a_cold_one_says(repo, tmp_path, rechecked):
    cache = tmp_path / "cache.db"
    commit = commit_files(repo, None, wiki_files())
    plain = report_of(repo, commit, None)
    # the wiki has per-page and cross-page problems, so the comparison means something
    assert {
        "citation.anchor_mismatch",
        "citation.semantic_conflict",
        "link.broken",
        "page.orphan",
        "page.unreadable",
    } <= codes(plain)
    assert report_of(repo, commit, cache) == plain  # cold: the rows are written
    with sqlite3.connect(cache) as db:
        assert db.execute("SELECT count(*) FROM verdicts").fetchone()[0] >= 10
    rechecked.clear()
    reads: list[str] = []
    with watching_reads(lambda path, blob: reads.append(path)):
        warm = report_of(repo, commit, cache)
    assert warm == plain
    # only the page whose quote is off its anchor is checked again, its source read again
    assert rechecked == [MISPLACED] and reads == ["raw/s3.txt"]


def edits(commit) -> dict[str, dict[str, Any]]:
    """A change to each thing a page's findings depend on (but the code and the judge)."""
    p1 = wiki_files()["wiki/p1.md"]
    return {
        "the page": {"wiki/p1.md": p1.replace("The mill burned.", "The mill burned in 1740.")},
        "a cited source": {"raw/s1.txt": SOURCES["raw/s1.txt"].replace("mill", "barn")},
    }


@pytest.mark.parametrize("change", ["the page", "a cited source"])
def test_a_changed_page_or_source_is_checked_again(repo, tmp_path, rechecked, change):
    cache = tmp_path / "cache.db"
    first = commit_files(repo, None, wiki_files())
    before = report_of(repo, first, cache)
    changed = commit_files(repo, first.id, edits(first)[change])
    rechecked.clear()
    after = report_of(repo, changed, cache)
    assert after == report_of(repo, changed, None)
    assert after["findings"] != before["findings"]  # the change shows
    assert "wiki/p1.md" in rechecked


def test_changed_rules_check_every_page_again(repo, tmp_path, rechecked):
    cache = tmp_path / "cache.db"
    commit = commit_files(repo, None, wiki_files())
    report_of(repo, commit, cache)
    strict = Config.model_validate({"frontmatter": {"required": {"owner": "str"}}})
    rechecked.clear()
    after = report_of(repo, commit, cache, strict)
    assert after == report_of(repo, commit, None, strict)
    assert any("owner" in f["message"] for f in after["findings"])
    assert "wiki/p1.md" in rechecked


@pytest.mark.parametrize("part", ["code_version", "offline_rules"])
def test_another_verifier_or_judge_checks_every_page_again(
    repo, tmp_path, rechecked, monkeypatch, part
):
    cache = tmp_path / "cache.db"
    commit = commit_files(repo, None, wiki_files())
    cold = report_of(repo, commit, cache)
    monkeypatch.setattr(verdicts, part, lambda: "another")
    rechecked.clear()
    assert report_of(repo, commit, cache) == cold
    assert "wiki/p1.md" in rechecked


def test_damaged_rows_are_checked_again_never_passed(repo, tmp_path, rechecked):
    cache = tmp_path / "cache.db"
    commit = commit_files(repo, None, wiki_files())
    cold = report_of(repo, commit, cache)
    with sqlite3.connect(cache) as db:
        # a row emptied of its findings (its digest no longer matches), rows of garbage
        # text, of bytes, of invalid UTF-8
        data = db.execute("SELECT data FROM verdicts").fetchall()
        assert any("semantic_conflict" in d for (d,) in data)
        db.execute(
            "UPDATE verdicts SET data = replace(data, 'citation.semantic_conflict', 'x') "
            "WHERE data LIKE '%semantic_conflict%'"
        )
        keys = [k for (k,) in db.execute("SELECT key FROM verdicts ORDER BY key")]
        db.execute("UPDATE verdicts SET data = 'not:a row' WHERE key = ?", (keys[0],))
        db.execute("UPDATE verdicts SET data = x'00ff' WHERE key = ?", (keys[1],))
        db.execute("UPDATE verdicts SET data = CAST(x'c3' AS TEXT) WHERE key = ?", (keys[2],))
    assert report_of(repo, commit, cache) == cold
    assert report_of(repo, commit, cache) == cold  # and the rows written again answer
    # garbage over the file itself: no cache at all, the same report
    raw = bytearray(cache.read_bytes())
    raw[100:4096] = b"\xa5" * (4096 - 100)
    cache.write_bytes(bytes(raw))
    for suffix in ("-wal", "-shm"):
        cache.with_name(cache.name + suffix).unlink(missing_ok=True)
    assert report_of(repo, commit, cache) == cold


def test_a_verification_of_chosen_checks_hands_back_every_page(repo, tmp_path):
    """Only a whole-wiki verify with every check reads the rows: the ledger's verification
    (the citations check alone) hands back every page parsed and every anchor."""
    from support.verifying import verification

    cache = tmp_path / "cache.db"
    commit = commit_files(repo, None, wiki_files())
    report_of(repo, commit, cache)
    done = verification(
        repo, commit, None, config=Config(), cache_path=cache, only=frozenset({"citations"})
    )
    assert done.pages is not None and "wiki/p1.md" in done.pages
    assert done.anchors is not None and ("wiki/p1.md", "1") in done.anchors


def test_the_code_digest_covers_the_modules_a_verdict_depends_on():
    """Review 38b (F2): a build that changed a code's default severity in wikigate/codes.py,
    at the same version, was answered from the cached report of the old build: the digest
    read only verifier/, config.py and models.py."""
    from wikigate.verifier.version import code_files

    names = {p.name for p in code_files()}
    for module in ("codes.py", "text.py", "paths.py", "gitrepo.py", "config.py", "models.py"):
        assert module in names, module
    assert {"consistency.py", "engine.py", "offline.py"} <= names  # the verifier's own
