"""What the gate says, read as a user reads it: a summary counts every finding it sums
up, a quote not in its source is `quote_not_found` whatever its sha, lint mode says
PASS/FAIL, and `runs show` of an overridden run lists what was overridden."""

from __future__ import annotations

import json
import re

import pygit2
import pytest
from support.helpers import start, wikigate
from support.trees import at, commit_files
from support.verifying import verify_trees
from support.wiki_runs import SOURCE, SOURCE_TEXT, cited_page

from wikigate.config import Config
from wikigate.verifier.citation import format_tail, quote_hash

PRODUCT = {"WIKIGATE_VERIFIER": ""}  # the product's own verifier, not the markers plug-in


@pytest.fixture
def wiki(tmp_path):
    root = tmp_path / "w"
    assert wikigate(tmp_path, "init", str(root)).returncode == 0
    return root


def _rejected_run(root) -> str:
    """A run whose page has findings of several severities, two of them critical."""
    run = start(root)
    wikigate(root, "run", "write", run, SOURCE, "--from", "-", stdin=SOURCE_TEXT)
    quote = "A barn owl can hear a mouse under snow."
    good = format_tail(SOURCE, None, quote, SOURCE_TEXT.index(quote))
    page = (
        "---\ntitle: Owls\n---\n# Owls\n\n"
        "Owls hunt by ear.[^1] Owls fly by night.[^2] A barn owl hears mice.[^3]\n\n"
        '[^1]: raw/made-up.txt — "Owls hunt by ear."\n'
        '[^2]: raw/also-made-up.txt — "Owls fly by night."\n'
        f"[^3]: {good}\n"
        f"[^4]: {good}\n"  # defined, never referenced: minor
    )
    wikigate(root, "run", "write", run, "wiki/owls.md", "--from", "-", stdin=page)
    return run


def test_the_reject_reason_counts_every_finding_it_sums_up(wiki):
    run = _rejected_run(wiki)
    proc = wikigate(wiki, "run", "finalize", run, env=PRODUCT)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    head, *listed = proc.stdout.split("\nnext:\n")[0].splitlines()  # the findings
    listed = [line for line in listed if not line.strip().startswith("hint:")]
    more = re.search(r"\(\+(\d+) more: ([^)]*)\)$", head)
    assert more is not None, head
    assert int(more.group(1)) + 1 == len(listed), proc.stdout  # the first, and the rest
    severities = [line.split(": ")[1].split()[0] for line in listed]
    assert severities.count("critical") == 2, proc.stdout
    rest = severities[1:]
    expected = ", ".join(
        f"{rest.count(s)} {s}" for s in ("critical", "major", "minor") if s in rest
    )
    assert more.group(2) == expected
    shown = wikigate(wiki, "runs", "show", run).stdout
    assert f"(+{len(listed) - 1} more: {expected})" in shown  # the stored reason too


def _page(repo, base, tail: str):
    return commit_files(
        repo,
        base.id,
        {"wiki/owls.md": f"---\ntitle: Owls\n---\n# Owls\n\nOwls hear well.[^1]\n\n[^1]: {tail}\n"},
    )


@pytest.fixture
def sources(tmp_path):
    repo = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    return repo, commit_files(repo, None, {SOURCE: SOURCE_TEXT})


def test_a_quote_not_in_its_source_is_not_found_whatever_its_sha(sources):
    repo, base = sources
    invented = "Owls can see in total darkness."
    for sha in ("0" * 64, quote_hash("something else")):
        tail = f'{SOURCE} — "{invented}" {{@36 sha256:{sha}}}'
        report = verify_trees(repo, _page(repo, base, tail), base, config=Config())
        assert at(report, "citation.hash_mismatch") == []
        (found,) = at(report, "citation.quote_not_found")
        assert "does not occur in raw/owls.txt" in found.message
        assert "anchor" not in (found.hint or "")  # anchoring cannot help: quote verbatim


def test_a_quote_in_its_source_with_a_wrong_sha_is_a_hash_mismatch_with_the_right_tail(
    sources, tmp_path
):
    repo, base = sources
    quote = "A barn owl can hear a mouse under snow."
    offset = SOURCE_TEXT.index(quote)
    right = format_tail(SOURCE, None, quote, offset)
    wrong = right[:-65] + "0" * 64 + "}"
    cache = tmp_path / "cache.db"
    # the second verification finds the anchor in the cache of verified anchors
    verify_trees(repo, _page(repo, base, right), base, config=Config(), cache_path=cache)
    for cache_path in (None, cache):
        report = verify_trees(
            repo, _page(repo, base, wrong), base, config=Config(), cache_path=cache_path
        )
        (found,) = at(report, "citation.hash_mismatch")
        assert found.severity == "critical" and "footnote records 000000000000" in found.message
        assert f"sha256:{quote_hash(quote)}" in (found.hint or "")
        assert found.suggested_tail == right
        assert at(report, "citation.semantic_conflict") == []  # not judged: not verified
        assert report.verdict == "reject"


def test_lint_mode_says_pass_or_fail_not_commit(wiki):
    clean = wikigate(wiki, "verify", "--all", env=PRODUCT)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert clean.stdout.splitlines()[-1].startswith("PASS: 0 critical, 0 major, 0 minor")
    repo = pygit2.Repository(str(wiki))
    main = repo.references["refs/heads/main"].target
    bad = commit_files(repo, main, {"wiki/index.md": "# Index\n\nREJECT-ME\n"})
    repo.references.create("refs/heads/bad", bad.id)
    failed = wikigate(wiki, "verify", "--all", "bad")  # the markers plug-in rejects it
    assert failed.returncode == 1, failed.stdout + failed.stderr
    last = failed.stdout.splitlines()[-1]
    assert last.startswith("FAIL (reject, no run): 1 critical"), last
    assert "COMMIT" not in clean.stdout + failed.stdout


def test_runs_show_of_an_overridden_run_lists_what_was_overridden(wiki):
    run = _rejected_run(wiki)
    rejected = wikigate(wiki, "run", "finalize", run, env=PRODUCT)
    assert rejected.returncode == 1
    listed = [
        line.strip()
        for line in rejected.stdout.split("\nnext:\n")[0].splitlines()[1:]  # the findings
        if not line.strip().startswith("hint:")
    ]
    done = wikigate(wiki, "verify", "override", run, "--reason", "sources arrive tomorrow")
    assert done.returncode == 0, done.stdout + done.stderr
    shown = wikigate(wiki, "runs", "show", run).stdout
    assert "verdict        commit_override" in shown
    assert f"overridden findings: {len(listed)}" in shown, shown
    for line in listed:  # each as finalize listed it: path:line: severity code: message
        assert f"  {line}" in shown, line
    assert "raw/made-up.txt does not exist" in shown
    data = json.loads(wikigate(wiki, "runs", "show", run, "--format", "json").stdout)
    assert len(data["overridden"]) == len(listed)
    assert {f["code"] for f in data["overridden"]} >= {"citation.source_missing"}


def test_a_run_page_of_the_product_commits(wiki):
    """The page helpers above pass when nothing is wrong (the findings are the page's)."""
    run = start(wiki)
    wikigate(wiki, "run", "write", run, SOURCE, "--from", "-", stdin=SOURCE_TEXT)
    wikigate(wiki, "run", "write", run, "wiki/owls.md", "--from", "-", stdin=cited_page("owls"))
    wikigate(
        wiki,
        "run",
        "replace",
        run,
        "wiki/index.md",
        "--old",
        "Link every page from here.",
        "--new",
        "Link every page from here.\n\n- [[Owls]]",
    )
    proc = wikigate(wiki, "run", "finalize", run, env=PRODUCT)
    assert proc.returncode == 0, proc.stdout
