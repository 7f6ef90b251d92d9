"""The whole-wiki report cache (verifier/reportcache.py): a second ``wikigate verify --all``
of the same tree answers with the report of the first, word for word but for its timings,
without verifying again; a change to a page, a source, the rules, the judge's
configuration, the preset or the verifier's code verifies again; a damaged row is
recomputed, never trusted."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from support.helpers import git, in_process
from test_cache_and_workers import SOURCES, wiki_files

from wikigate.verifier import engine, reportcache
from wikigate.verifier import version as version_module
from wikigate.workspace import Workspace

PRODUCT = {"WIKIGATE_VERIFIER": ""}  # the product's own verifier, not the test plug-in


@pytest.fixture
def wiki(tmp_path: Path) -> Path:
    """A workspace whose main holds a wiki with per-page and cross-page findings."""
    root = tmp_path / "wiki"
    Workspace.init(root).close()
    write(root, wiki_files())
    commit(root, "pages")
    return root


@pytest.fixture
def verified(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The trees the engine verified (a cache hit verifies none)."""
    seen: list[str] = []
    run_checks = engine.run_checks

    def counting(request: Any) -> Any:
        seen.append(str(request.tip.tree_id))
        return run_checks(request)

    monkeypatch.setattr(engine, "run_checks", counting)
    return seen


def write(root: Path, files: dict[str, Any]) -> None:
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            target.write_bytes(text)
        else:
            target.write_text(text, encoding="utf-8")


def commit(root: Path, message: str, *flags: str) -> None:
    git(root, "add", "-A")
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-qm", message, *flags)


def verify_all(root: Path, *args: str, fmt: str = "json") -> tuple[int, str]:
    proc = in_process(["-C", str(root), "verify", "--all", "--format", fmt, *args], env=PRODUCT)
    assert proc.returncode in (0, 1, 3, 5), proc.stderr
    return proc.returncode, proc.stdout


def timeless(out: str) -> dict[str, Any]:
    """A JSON report but its timings."""
    data: dict[str, Any] = json.loads(out)
    data["summary"].pop("elapsed_ms")
    for check in data["checks"]:
        check.pop("duration_ms")
    return data


def test_a_second_verify_all_answers_with_the_same_report(wiki, verified):
    code, cold = verify_all(wiki)
    _, cold_text = verify_all(wiki, fmt="text")  # the text report of a hit, below
    assert len(verified) == 1  # the text report came from the row the first one kept
    # the wiki has per-page and cross-page findings, so the comparison means something
    codes = {f["code"] for f in json.loads(cold)["findings"]}
    assert {"citation.anchor_mismatch", "link.broken", "page.orphan"} <= codes
    again, warm = verify_all(wiki)
    assert len(verified) == 1  # answered from the cache: nothing verified again
    assert again == code and timeless(warm) == timeless(cold)
    # the same report as a fresh computation's, with no cache at all
    (wiki / ".git" / "wikigate" / "cache.db").unlink()
    for suffix in ("-wal", "-shm"):
        (wiki / ".git" / "wikigate" / f"cache.db{suffix}").unlink(missing_ok=True)
    _, fresh_text = verify_all(wiki, fmt="text")
    assert len(verified) == 2

    def masked(text: str) -> str:  # the summary line's elapsed time
        return re.sub(r"· \d+\.\d\ds", "· Ns", text)

    assert masked(cold_text) == masked(fresh_text)
    assert verify_all(wiki)[1] != "" and len(verified) == 2  # the fresh one was kept


def test_a_commit_of_the_same_tree_is_answered_as_itself(wiki, verified):
    _, first = verify_all(wiki)
    commit(wiki, "nothing", "--allow-empty")
    _, second = verify_all(wiki)
    assert len(verified) == 1
    head = git(wiki, "rev-parse", "HEAD").stdout.strip()
    assert json.loads(second)["tip"] == head != json.loads(first)["tip"]
    assert {**timeless(second), "tip": ""} == {**timeless(first), "tip": ""}


CHANGES = {
    "a page": {
        "wiki/p1.md": wiki_files()["wiki/p1.md"].replace(
            "The mill burned.", "The mill burned in 1740."
        )
    },
    "a source": {"raw/s1.txt": SOURCES["raw/s1.txt"].replace("mill", "barn")},
    "the rules": {"wikigate.toml": None},  # [frontmatter] required: owner
    "the judge's configuration": {"wikigate.toml": "judge"},
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_change_to_what_the_report_depends_on_verifies_again(wiki, verified, change):
    _, before = verify_all(wiki)
    files = dict(CHANGES[change])
    if "wikigate.toml" in files:
        rules = (wiki / "wikigate.toml").read_text()
        files["wikigate.toml"] = (
            rules.replace("[frontmatter.required]", '[frontmatter.required]\nowner = "str"', 1)
            if files["wikigate.toml"] is None
            else rules.replace("[judge]", "[judge]\nmodel = 'claude-other-model'", 1)
        )
        assert files["wikigate.toml"] != rules
    write(wiki, files)
    commit(wiki, change)
    _, after = verify_all(wiki)
    assert len(verified) == 2  # verified again
    assert not {f["code"] for f in json.loads(after)["findings"]} & {"verifier.error", "config"}
    if change != "the judge's configuration":
        assert timeless(after)["findings"] != timeless(before)["findings"]  # it shows
    verify_all(wiki)
    assert len(verified) == 2  # and that report is kept in turn


def test_another_preset_or_verifier_code_verifies_again(wiki, verified, monkeypatch):
    verify_all(wiki)
    _, paranoid = verify_all(wiki, "--strictness", "paranoid")
    assert len(verified) == 2 and json.loads(paranoid)["strictness"] == "PARANOID"
    monkeypatch.setattr(version_module, "code_version", lambda: "0+another")
    verify_all(wiki)
    assert len(verified) == 3


def test_the_llm_judge_is_never_answered_from_the_cache(wiki):
    from wikigate.changes import change_request

    ws = Workspace.open(wiki)
    try:
        request = change_request(ws, whole=True)
        assert reportcache.whole_key(request) is not None
        from dataclasses import replace

        for other in (
            replace(request, judge="anthropic"),
            replace(request, judge_dry_run=True),
            replace(request, only=frozenset({"citations"})),
            replace(request, cache_path=None),
        ):
            assert reportcache.whole_key(other) is None
    finally:
        ws.close()


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE reports SET data = CAST(replace(CAST(data AS TEXT), 'link.broken', 'x') AS BLOB)",
        "UPDATE reports SET data = CAST('not:a report' AS BLOB)",
        "UPDATE reports SET data = x'00ff'",
    ],
)
def test_a_damaged_row_is_recomputed(wiki, verified, damage):
    _, cold = verify_all(wiki)
    db = sqlite3.connect(wiki / ".git" / "wikigate" / "cache.db")
    with db:
        assert db.execute("SELECT count(*) FROM reports").fetchone()[0] == 1
        db.execute(damage)
    db.close()
    _, again = verify_all(wiki)
    assert len(verified) == 2  # not trusted: verified again
    assert timeless(again) == timeless(cold)
    verify_all(wiki)
    assert len(verified) == 2  # the row written anew answers


def test_a_report_of_another_tree_under_this_key_is_recomputed(wiki, verified):
    first = git(wiki, "rev-parse", "HEAD").stdout.strip()
    _, cold = verify_all(wiki)
    write(wiki, {"wiki/p1.md": wiki_files()["wiki/p1.md"] + "\nSee [[Nowhere at all]].\n"})
    commit(wiki, "another tree")
    _, other = verify_all(wiki)
    assert timeless(other)["findings"] != timeless(cold)["findings"]
    db = sqlite3.connect(wiki / ".git" / "wikigate" / "cache.db")
    with db:  # the second tree's row, digest and all, under the first tree's key
        rows = db.execute("SELECT tree, data FROM reports ORDER BY used").fetchall()
        assert len(rows) == 2
        db.execute("UPDATE reports SET data = ? WHERE tree = ?", (rows[1][1], rows[0][0]))
    db.close()
    _, again = verify_all(wiki, first)
    assert len(verified) == 3  # not trusted: verified again
    assert {**timeless(again), "tip": ""} == {**timeless(cold), "tip": ""}
