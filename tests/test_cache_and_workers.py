"""What makes verification fast must not change what it says.

The page cache, the link graph derived from the base's, and the worker
processes each give the same report as a plain, cold, single-process verify.
"""

from __future__ import annotations

import os
import random
import sqlite3

import pygit2
import pytest
from support.trees import commit_files
from support.verifying import verify_trees

from wikigate.config import Config, parse_config
from wikigate.gitrepo import repository
from wikigate.verifier import parallel, sources, wiki
from wikigate.verifier.checks import semantic
from wikigate.verifier.citation import format_tail
from wikigate.verifier.links import LinkGraph
from wikigate.verifier.parallel import Workers
from wikigate.verifier.wiki import PageCache, WikiTree

SOURCES = {
    f"raw/s{i}.txt": f"Record {i}: the harbour froze in winter {i}.\nThe mill burned in year {i}.\n"
    for i in range(4)
}


def page(title: str, body: str, extra: str = "") -> str:
    return f"---\ntitle: {title}\n{extra}---\n# {title}\n\n{body}\n"


def cited(i: int, offset_shift: int = 0) -> str:
    source = f"raw/s{i % 4}.txt"
    quote = f"The mill burned in year {i % 4}."
    offset = SOURCES[source].find(quote) + offset_shift
    return f"The mill burned.[^1]\n\n[^1]: {format_tail(source, None, quote, offset)}"


def wiki_files(n: int = 12) -> dict[str, str]:
    files: dict[str, str] = dict(SOURCES)
    links = " ".join(f"[[P{i}]]" for i in range(n))
    files["wiki/index.md"] = page("Index", f"{links} [[Nowhere]]")
    files["wiki/log.md"] = "# Log\n"
    for i in range(n):
        files[f"wiki/p{i}.md"] = page(f"P{i}", cited(i, offset_shift=1 if i == 3 else 0))
    files["wiki/lonely.md"] = page("Lonely", cited(0))
    files["wiki/dated.md"] = page("Dated", cited(1), extra="updated: 2024-01-01\n")
    files["wiki/latin1.md"] = "caf\xe9".encode("latin-1")  # type: ignore[assignment]
    quote = "The mill burned in year 1."
    tail = format_tail("raw/s1.txt", None, quote, SOURCES["raw/s1.txt"].find(quote))
    files["wiki/p0.md"] = page("P0", f"The mill burned in year 9.[^1]\n\n[^1]: {tail}")
    return files


def findings(report):
    return sorted((f.code, f.severity, f.path, f.line, f.message) for f in report.findings)


def lint(repo, commit, cache=None, config=None):
    return verify_trees(repo, commit, None, config=config or Config(), cache_path=cache)


def test_cold_warm_and_uncached_reports_are_the_same(repo, tmp_path):
    commit = commit_files(repo, None, wiki_files())
    cache = tmp_path / "cache.db"
    plain = lint(repo, commit)
    cold = lint(repo, commit, cache)
    warm = lint(repo, commit, cache)
    assert findings(plain) == findings(cold) == findings(warm)
    codes = {f[0] for f in findings(plain)}
    # the wiki has real problems, so the comparison means something
    assert {
        "citation.anchor_mismatch",
        "citation.semantic_conflict",
        "link.broken",
        "page.orphan",
        "page.unreadable",
    } <= codes
    with sqlite3.connect(cache) as db:
        assert db.execute("SELECT count(*) FROM pages").fetchone()[0] >= 15
        # one verified anchor per (source blob, offset, quote), however many pages cite it
        query = "SELECT count(*) FROM anchors WHERE key NOT LIKE '%:page:%'"
        assert db.execute(query).fetchone()[0] == 4
        # and a row per set of anchors a page holds when all of them verified: the pages
        # cite one quote from each of 4 sources (p3's is off by one, but p7 and p11 cite
        # the same source's quote correctly), so pages share those rows
        query = "SELECT count(*) FROM anchors WHERE key LIKE '%:page:%'"
        assert db.execute(query).fetchone()[0] == 4


def _judged(repo, parent, source: str, claim: str, quote: str):
    offset = source.find(quote)
    tail = format_tail("raw/m.txt", None, quote, offset)
    files = {
        "raw/m.txt": source,
        "wiki/index.md": page("Index", "[[P]]"),
        "wiki/p.md": page("P", f"{claim}[^1]\n\n[^1]: {tail}"),
    }
    return commit_files(repo, parent, files)


def conflicts_in(report) -> list[str]:
    return [f.message for f in report.findings if f.code == "citation.semantic_conflict"]


def test_the_offline_judges_hints_are_the_same_from_the_cache(repo, tmp_path):
    """Cold, warm and uncached verifications flag the same claims; a cached row answers
    only for the words and the source it was made from: the same page with a source whose
    text around the quote lost the number is flagged, though the page did not change."""
    quote = "the harbour froze in winter"
    near = f"In 1740 {quote}, and the mill stopped.\n"
    claim = "In 1740 the harbour froze in winter."
    flagged = "The harbour froze in 1741 and every winter."
    cache = tmp_path / "cache.db"
    calm = _judged(repo, None, near, claim, quote)
    for _ in range(2):  # cold, then warm: the number is in the source near the quote
        assert conflicts_in(lint(repo, calm, cache)) == []
    with sqlite3.connect(cache) as db:  # the page's row, and its one claim's
        assert db.execute("SELECT count(*) FROM hints").fetchone()[0] == 2
    far = f"In 1939 {quote}, and the mill stopped.\n"  # same offset, same quote, new blob
    moved = _judged(repo, calm.id, far, claim, quote)
    for report in (lint(repo, moved), lint(repo, moved, cache), lint(repo, moved, cache)):
        (message,) = conflicts_in(report)
        assert "number: claim has [1740]" in message
    wrong = _judged(repo, None, near, flagged, quote)
    plain = conflicts_in(lint(repo, wrong))
    assert plain and plain == conflicts_in(lint(repo, wrong, cache))
    assert plain == conflicts_in(lint(repo, wrong, cache))  # from the cache


def test_a_claim_added_to_a_page_spares_its_other_claims_sources(repo, tmp_path):
    """The hints are kept per claim too: a page given one new claim has the offline judge
    read that claim's source only, not the sources of the claims it kept (whose hints,
    read from the cache, are the same as a cold verify's)."""
    near = "In 1740 the harbour froze in winter, and the mill stopped.\n"
    mills = "In 1802 the mill burned down, and the harbour was empty.\n"
    cites = {
        "raw/a.txt": ("In 1740 the harbour froze.", "the harbour froze in winter"),
        "raw/b.txt": ("The mill burned in 1803.", "the mill burned down"),
    }
    text = {"raw/a.txt": near, "raw/b.txt": mills}

    def files(claims: list[tuple[str, str]]) -> dict[str, str]:
        body = " ".join(f"{said}[^{n}]" for n, (_, said) in enumerate(claims, 1)) + "\n\n"
        body += "\n".join(
            f"[^{n}]: {format_tail(src, None, cites[src][1], text[src].find(cites[src][1]))}"
            for n, (src, _) in enumerate(claims, 1)
        )
        return {**text, "wiki/index.md": page("Index", "[[P]]"), "wiki/p.md": page("P", body)}

    kept = [("raw/a.txt", cites["raw/a.txt"][0]), ("raw/b.txt", cites["raw/b.txt"][0])]
    cache = tmp_path / "cache.db"
    first = commit_files(repo, None, files(kept))
    lint(repo, first, cache)  # cold: every claim's hints kept
    grown = commit_files(repo, first.id, files([*kept, ("raw/a.txt", "The harbour froze.")]))
    read: list[str] = []
    with sources.watching_reads(lambda path, _: read.append(path)):
        warm = conflicts_in(lint(repo, grown, cache))
    assert read == ["raw/a.txt"]  # the new claim's source; raw/b.txt's claim from the cache
    assert warm == conflicts_in(lint(repo, grown)) and len(warm) == 1  # b's number
    assert "1803" in warm[0]


def test_a_damaged_hints_row_is_a_cache_miss(repo, tmp_path):
    cache = tmp_path / "cache.db"
    commit = _judged(
        repo, None, "Owls may hunt at dusk.\n", "Owls must hunt at dusk.", "Owls may hunt at dusk."
    )
    (expected,) = conflicts_in(lint(repo, commit, cache))
    with sqlite3.connect(cache) as db:
        db.execute("UPDATE hints SET data = '[[0, [1, 2]]]'")
    assert conflicts_in(lint(repo, commit, cache)) == [expected]


def test_a_pages_anchor_row_vouches_only_for_the_anchors_it_was_made_from(repo, tmp_path):
    """Warm, a page whose anchors all verified is one lookup; move one of its quotes'
    offsets and the page's row no longer answers: the moved anchor is checked, and found
    wrong, though its neighbour on the page still comes from the cache."""
    cache = tmp_path / "cache.db"
    two = "\n".join(
        f"{claim}[^{n}]" for n, claim in ((1, "The mill burned."), (2, "The harbour froze."))
    )

    def tails(shift: int) -> str:
        mill = "The mill burned in year 1."
        harbour = "the harbour froze in winter 1"
        src = SOURCES["raw/s1.txt"]
        return (
            f"[^1]: {format_tail('raw/s1.txt', None, mill, src.find(mill))}\n"
            f"[^2]: {format_tail('raw/s1.txt', None, harbour, src.find(harbour) + shift)}"
        )

    files = {**SOURCES, "wiki/index.md": page("Index", "[[P]]"), "wiki/p.md": ""}
    good = commit_files(repo, None, {**files, "wiki/p.md": page("P", f"{two}\n\n{tails(0)}")})
    for _ in range(2):
        assert not [f for f in lint(repo, good, cache).findings if f.code.startswith("citation")]
    moved = commit_files(repo, None, {**files, "wiki/p.md": page("P", f"{two}\n\n{tails(2)}")})
    for report in (lint(repo, moved), lint(repo, moved, cache), lint(repo, moved, cache)):
        (wrong,) = [f for f in report.findings if f.code == "citation.anchor_mismatch"]
        assert wrong.message.startswith("[^2]: the text at offset")
        assert report.summary.anchors_verified == 1


def test_front_matter_dates_are_typed_the_same_cold_and_warm(repo, tmp_path):
    commit = commit_files(repo, None, wiki_files())
    cache = tmp_path / "cache.db"
    config = parse_config('[frontmatter.required]\nupdated = "str"\n', "t")
    for _ in range(2):  # cold, then from the cache
        report = lint(repo, commit, cache, config)
        dated = [
            f.message
            for f in report.findings
            if f.code == "page.frontmatter" and f.path == "wiki/dated.md"
        ]
        assert dated == ["front matter field 'updated' should be str, not date"]
        assert not [f for f in report.findings if f.code == "verifier.error"]
    config = parse_config('[frontmatter.required]\nupdated = "date"\n', "t")
    report = lint(repo, commit, cache, config)
    fm = [f for f in report.findings if f.code == "page.frontmatter"]
    assert fm and "wiki/dated.md" not in {f.path for f in fm}  # the others lack the field


def test_workers_give_the_same_report_as_one_process(repo, tmp_path, monkeypatch):
    commit = commit_files(repo, None, wiki_files(30))
    monkeypatch.setenv("WIKIGATE_WORKERS", "0")
    alone = lint(repo, commit, tmp_path / "alone.db")

    used = []
    real_map = Workers.map

    def spy(self, fn, tasks, *, parallel=True):
        if parallel:
            used.append(fn.__name__)
        return real_map(self, fn, tasks, parallel=parallel)

    monkeypatch.setenv("WIKIGATE_WORKERS", "2")
    monkeypatch.setattr(wiki, "PARALLEL_PAGES", 1)
    monkeypatch.setattr(wiki, "PARALLEL_SOURCE_BYTES", 1)
    monkeypatch.setattr(semantic, "PARALLEL_CLAIMS", 1)
    monkeypatch.setattr(semantic, "CLAIMS_PER_TASK", 7)
    monkeypatch.setattr(Workers, "map", spy)
    shared = lint(repo, commit, tmp_path / "shared.db")
    assert sorted(set(used)) == ["_conflicts_task", "_locate_task", "parse_entries"]
    assert "citation.semantic_conflict" in {f[0] for f in findings(shared)}
    assert findings(shared) == findings(alone)
    assert shared.summary == alone.summary.model_copy(
        update={"elapsed_ms": shared.summary.elapsed_ms}
    )


def test_workers_see_a_pushs_quarantined_objects(tmp_path, monkeypatch):
    """In pre-receive, pushed objects sit in a quarantine directory named by the
    environment; workers opening the repository themselves must see them too."""
    server = pygit2.init_repository(str(tmp_path / "server.git"), bare=True)
    pushed = pygit2.init_repository(str(tmp_path / "incoming.git"), bare=True)
    commit = commit_files(pushed, None, wiki_files(30))  # objects only in "quarantine"
    monkeypatch.setenv("GIT_QUARANTINE_PATH", str(tmp_path / "incoming.git" / "objects"))
    repo = repository(server.path)
    monkeypatch.setenv("WIKIGATE_WORKERS", "0")
    alone = lint(repo, repo[commit.id])
    monkeypatch.setenv("WIKIGATE_WORKERS", "2")
    monkeypatch.setattr(wiki, "PARALLEL_PAGES", 1)
    monkeypatch.setattr(wiki, "PARALLEL_SOURCE_BYTES", 1)
    shared = lint(repo, repo[commit.id])
    assert "verifier.error" not in {f[0] for f in findings(shared)}
    assert findings(shared) == findings(alone)


def test_coverage_scan_on_workers_matches_one_process(repo, monkeypatch):
    files = wiki_files(6)
    for i in range(3):
        files[f"wiki/keeper{i}.md"] = page(
            f"Keeper {i}", "The lighthouse keeper visited the foundries."
        )
    base = commit_files(repo, None, files)
    source = "The lighthouse stood by the foundries. A lighthouse, two foundries.\n"
    tip = commit_files(repo, base.id, {"raw/new.txt": source})

    def coverage():
        report = verify_trees(repo, tip, base, config=Config())
        return sorted((f.path, f.message) for f in report.findings if f.code == "run.coverage")

    monkeypatch.setenv("WIKIGATE_WORKERS", "0")
    alone = coverage()
    monkeypatch.setenv("WIKIGATE_WORKERS", "2")
    monkeypatch.setattr(wiki, "PARALLEL_SCAN", 1)
    assert coverage() == alone
    assert [path for path, _ in alone] == [f"wiki/keeper{i}.md" for i in range(3)]
    assert "foundries, lighthouse" in alone[0][1]


PARENT = os.getpid()


def _double_or_die(repo, n):
    if os.getpid() != PARENT:
        os._exit(3)  # a worker killed mid-task
    return n * 2


def test_a_killed_worker_loses_no_work(repo):
    workers = Workers(repo, count=2)
    try:
        assert list(workers.map(_double_or_die, list(range(6)))) == [0, 2, 4, 6, 8, 10]
        assert not workers.enabled  # the broken pool is not used again
    finally:
        workers.close()


def test_worker_count_follows_the_environment(monkeypatch):
    monkeypatch.setenv("WIKIGATE_WORKERS", "3")
    assert parallel.worker_count() == 3
    monkeypatch.setenv("WIKIGATE_WORKERS", "")
    assert parallel.worker_count() >= 1


# ---------------------------------------------------------------- link graph


def _random_wiki(rng: random.Random, names: list[str]) -> dict[str, str | None]:
    files: dict[str, str | None] = {}
    for name in names:
        targets = rng.sample([*names, "Ghost", "index"], 3)
        links = " ".join(
            f"[[{t}]]" if rng.random() < 0.7 else f"[x]({t.lower()}.md#top)" for t in targets
        )
        alias = f"aliases: [{rng.choice(names)}-alias]\n" if rng.random() < 0.3 else ""
        title = rng.choice([name.upper(), f"{name} page", names[0]])
        files[f"wiki/{name.lower()}.md"] = page(title, f"# Top\n\n{links}", extra=alias)
    files["wiki/index.md"] = page("Index", " ".join(f"[[{n}]]" for n in names[:3]))
    return files


def _changes(rng: random.Random, names: list[str]) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name in rng.sample(names, 4):
        kind = rng.choice(["delete", "retitle", "relink", "alias"])
        path = f"wiki/{name.lower()}.md"
        if kind == "delete":
            out[path] = None
        elif kind == "retitle":
            out[path] = page(rng.choice(names), f"[[{rng.choice(names)}]]")
        elif kind == "relink":
            out[path] = page(name, f"[[{rng.choice(names)}#Top]] [[Ghost]]")
        else:
            out[path] = page(name, "[[index]]", extra=f"aliases: [{rng.choice(names)}]\n")
    out["wiki/new-page.md"] = page(rng.choice(names), f"[[{rng.choice(names)}]]")
    out["raw/ghost.md"] = "a file a markdown link may now reach\n"
    return out


@pytest.mark.parametrize("seed", range(25))
def test_derived_link_graph_equals_one_built_from_scratch(repo, seed):
    rng = random.Random(seed)
    names = [f"N{i}" for i in range(12)]
    base = commit_files(repo, None, _random_wiki(rng, names))
    tip = commit_files(repo, base.id, _changes(rng, names))
    cache = PageCache(None)
    base_tree, tip_tree = WikiTree(repo, base.tree, cache), WikiTree(repo, tip.tree, cache)
    derived = LinkGraph.derive(LinkGraph.build(base_tree), tip_tree)
    built = LinkGraph.build(WikiTree(repo, tip.tree, PageCache(None)))
    assert derived.names == built.names
    assert derived.asks == built.asks
    assert derived.orphans() == built.orphans()


def test_removing_a_heading_breaks_links_from_pages_the_run_did_not_touch(repo, tmp_path):
    files = wiki_files(3)
    files["wiki/index.md"] = page("Index", "[[P0#Sleep]] [[P1]] [[P2]] [[Lonely]] [[Dated]]")
    files["wiki/p0.md"] = page("P0", "## Sleep\n\n" + cited(0))
    del files["wiki/latin1.md"]
    base = commit_files(repo, None, files)
    tip = commit_files(repo, base.id, {"wiki/p0.md": page("P0", "## Rest\n\n" + cited(0))})
    report = verify_trees(repo, tip, base, config=Config(), cache_path=tmp_path / "c.db")
    broken = [(f.path, f.message) for f in report.findings if f.code == "link.broken"]
    assert broken == [("wiki/index.md", "[[P0#Sleep]]: wiki/p0.md has no heading #sleep")]


def test_the_graph_cache_keeps_only_recent_trees(repo, tmp_path):
    cache = tmp_path / "cache.db"
    commit = commit_files(repo, None, wiki_files(2))
    for i in range(wiki.GRAPHS_KEPT + 4):
        commit = commit_files(
            repo, commit.id, {"wiki/p0.md": page("P0", f"Take {i}.\n\n{cited(0)}")}
        )
        lint(repo, commit, cache)
    with sqlite3.connect(cache) as db:
        assert db.execute("SELECT count(*) FROM graphs").fetchone()[0] == wiki.GRAPHS_KEPT
