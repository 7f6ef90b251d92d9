"""benchmarks/judge_real.py: the triples it rebuilds from a wiki's git history at a fixed
commit, their split, and its refusal to measure a checkout whose triples differ from the
committed identifiers."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path

import pytest
from support.helpers import git

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "judge_real.py"


@pytest.fixture(scope="module")
def judge_real():
    spec = importlib.util.spec_from_file_location("judge_real_under_test", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["judge_real_under_test"] = module
    spec.loader.exec_module(module)
    return module


LINE = (
    'Reports like "Ferries only run at high tide" ([[issue-1]]) and "The pier is not lit '
    'at night" ([[issue-2]]) describe the harbour.'
)


def _wiki(tmp_path: Path) -> tuple[str, str]:
    repo = tmp_path / "w"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "raw").mkdir()
    (repo / "wiki").mkdir()
    (repo / "raw" / "issue-1.md").write_text("# Ferries only run at high tide\n\nBody.\n")
    (repo / "raw" / "issue-2.md").write_text("# The pier is not lit at night\n\nBody.\n")
    (repo / "wiki" / "harbour.md").write_text(f"---\ntitle: Harbour\n---\n# Harbour\n\n{LINE}\n")
    (repo / "wiki" / "index.md").write_text(f"{LINE}\n")  # a structural page: not read
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "w")
    commit = git(repo, "rev-parse", "HEAD").stdout.strip()
    return str(repo / ".git"), commit


def test_the_triples_are_rebuilt_split_and_not_flagged(tmp_path, judge_real):
    git_dir, commit = _wiki(tmp_path)
    wiki = {"name": "t", "commit": commit, "sources": "raw/", "pages": "wiki/"}
    rows = judge_real.extract(wiki, git_dir)
    assert [(r["path"], r["line"], r["quote"], r["source_path"]) for r in rows] == [
        ("wiki/harbour.md", 6, "Ferries only run at high tide", "raw/issue-1.md"),
        ("wiki/harbour.md", 6, "The pier is not lit at night", "raw/issue-2.md"),
    ]
    # the claim is the sentence without its links to sources, as wikigate cuts a claim
    assert rows[0]["claim"] == (
        'Reports like "Ferries only run at high tide" and "The pier is not lit at night" '
        "describe the harbour."
    )
    for r in rows:
        h = hashlib.sha256(f"t\nwiki/harbour.md\nL6:{r['quote']}".encode()).digest()[0]
        assert r["half"] == ("dev" if h % 2 == 0 else "held-out")
    # each other passage is the claim's words: "not" is charged to the first quote,
    # "only" to the second
    assert [c.kind for c in judge_real.judge(rows[0])] == ["negation"]
    assert [c.kind for c in judge_real.judge(rows[1])] == ["superlative"]


def test_a_checkout_whose_triples_differ_is_not_measured(tmp_path, judge_real, monkeypatch, capsys):
    git_dir, commit = _wiki(tmp_path)
    rows = judge_real.extract(
        {"name": "t", "commit": commit, "sources": "raw/", "pages": "wiki/"}, git_dir
    )
    ids = [[r["path"], r["line"], r["column"], r["half"]] for r in rows]
    wiki = {"name": "t", "repository": "o/t", "commit": commit, "sources": "raw/"}
    wiki |= {"pages": "wiki/", "triples": ids}
    manifest = tmp_path / "m.json"
    monkeypatch.setattr(judge_real, "MANIFEST", manifest)
    monkeypatch.setattr(sys, "argv", ["judge_real.py", f"t={git_dir}"])
    manifest.write_text(json.dumps({"wikis": [wiki]}))
    judge_real.main()
    assert "| both | " in capsys.readouterr().out
    manifest.write_text(json.dumps({"wikis": [wiki | {"triples": ids[:1]}]}))
    with pytest.raises(SystemExit, match="the triples found differ from m.json"):
        judge_real.main()
