"""The corpus of agent-written wikis (tests/corpus/realwikis/, issues 24 and 27): a
Karpathy-pattern wiki (raw/ + wiki/ with index and log, `**Sources**:` lines, wikilinks to
sources, path-only footnotes) and an Obsidian vault (pages at its root, front matter
`sources:`, wikilink footnotes, callouts), written in the dialects of the public wikis
measured in docs/checks.md. Each is verified and adopted as a user would, through the real
CLI on a real repository: the findings by code before and after `adopt --write` are what
the corpus's README says they are."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from support.helpers import git, in_process

CORPUS = Path(__file__).parent / "corpus" / "realwikis"


def wg(cwd: Path, *args: str):
    return in_process(["-C", str(cwd), *args], env={"WIKIGATE_VERIFIER": ""})


def workspace(tmp_path: Path, name: str, *init: str) -> Path:
    root = tmp_path / name
    shutil.copytree(CORPUS / name, root)
    git(tmp_path, "init", "-q", "-b", "main", str(root))
    git(root, "add", "-A")
    git(root, "commit", "-qm", "the wiki as its agent wrote it")
    made = wg(root, "init", str(root), *init)
    assert made.returncode == 0, made.stderr
    return root


def codes(root: Path, ref: str = "HEAD") -> Counter[str]:
    proc = wg(root, "verify", "--all", ref, "--format", "json")
    assert proc.returncode in (0, 3), proc.stderr
    return Counter(f["code"] for f in json.loads(proc.stdout)["findings"])


def adopted(root: Path) -> str:
    """`adopt --write`: the run's branch (a run with findings left revises, so the
    rewrites wait on its branch, not on main)."""
    wrote = wg(root, "adopt", "--write")
    assert wrote.returncode == 3, wrote.stdout + wrote.stderr
    git(root, "checkout", "-qf", "main")
    runs = git(root, "for-each-ref", "--format=%(refname:short)", "refs/heads/wikigate/runs")
    (branch,) = runs.stdout.split()
    return branch


@pytest.mark.slow
def test_a_karpathy_pattern_wiki_before_and_after_adopt(tmp_path):
    root = workspace(tmp_path, "karpathy")
    assert codes(root) == {
        "page.unsupported_statement": 8,  # 7 true flags; 1 a "Related pages" description
        # the Sources line of cohort.md, its sentence linking [[issue-101]], the path footnote
        "citation.unquoted": 3,
        "citation.anchor_missing": 2,
        "citation.location": 1,  # [^2] says L8; the quote is on line 9
    }
    dry = wg(root, "adopt").stdout
    assert "1  a path, no quote" in dry and "1  a quote citing its source by wikilink" in dry
    assert "1  a Sources: line or section of links, or a sources: field" in dry
    assert "3 definitions to rewrite" in dry
    assert codes(root, adopted(root)) == {
        "page.unsupported_statement": 8,  # adopt rewrites citations, never prose
        "citation.unquoted": 2,  # the path footnote is an anchored quote now
        "citation.anchor_missing": 1,  # the quote whose location note is wrong
        "citation.location": 1,
    }


def test_an_obsidian_vault_before_and_after_adopt(tmp_path):
    root = workspace(tmp_path, "vault", "--wiki-root", ".")
    assert codes(root) == {
        "page.unsupported_statement": 1,  # a lead sentence of agent-loop.md
        "citation.semantic_conflict": 1,  # "64 workers" quoting "128 workers"
        "citation.unquoted": 2,  # the wikilink footnote; memory-store's sources: field
        "citation.anchor_missing": 2,
    }
    dry = wg(root, "adopt").stdout
    assert "2  a Sources: line or section of links, or a sources: field" in dry
    assert "entities/memory-store.md:4: raw/articles/memory-store-readme.md" in dry
    assert codes(root, adopted(root)) == {
        "page.unsupported_statement": 1,
        "citation.semantic_conflict": 1,  # the unfaithful quote still fails, anchored
        "citation.unquoted": 1,  # the sources: field: adopt leaves Sources lines
    }
