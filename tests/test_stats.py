"""`wikigate stats`: the figures of real runs (through the Workspace API, on a clock set
week by week) equal a recount from git alone (the run records in the notes, the pages of
main's first-parent history) and survive a rebuild of the telemetry from the notes."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter, defaultdict
from datetime import UTC, date, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from support.helpers import in_process
from support.wiki_runs import QUOTE, SOURCE, cited_page, fabricated_page, page_run

from wikigate import gitrepo, ledger, runid
from wikigate import stats as health
from wikigate.models import Budget
from wikigate.records import parse_record
from wikigate.verifier.claims import page_claims
from wikigate.verifier.markdown import parse_page
from wikigate.workspace import Workspace

MONDAY = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)  # ISO week 2026-W02


class Clock(datetime):
    """``wikigate.runid``'s clock, set by the test: every timestamp the engine records."""

    at = MONDAY

    @classmethod
    def now(cls, tz: Any = None) -> Any:
        Clock.at += timedelta(seconds=1)
        return Clock.at


@pytest.fixture
def weeks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    """Three weeks of runs: W02 a committed run (writer spend attested) and a rejected
    one; W03 the rejected run overridden, an unverified run; W04 a committed run."""
    monkeypatch.setattr(runid, "datetime", Clock)
    Clock.at = MONDAY
    ws = Workspace.init(tmp_path / "w")
    owls = ws.start_run("ingest", "cli:test")
    owls.stage_write(SOURCE, "Owls hunt at night and rest by day.\n" + QUOTE + "\n")
    owls.stage_write("wiki/owls.md", cited_page("owls"))
    index = (owls.read("wiki/index.md") or b"").decode()
    owls.stage_write("wiki/index.md", index + "- [[owls]]\n")
    owls.attest_usage(Budget(input_tokens=1000, output_tokens=200, usd=0.25))
    assert owls.finalize().status == "committed"
    made_up = page_run(ws, "made-up", fabricated_page("made-up"))
    assert made_up.status == "rejected"
    Clock.at = MONDAY + timedelta(days=7)
    ws.override(made_up.run_id, "the source is in the archive")
    assert page_run(ws, "bats", cited_page("bats"), verify=False).status == "committed"
    Clock.at = MONDAY + timedelta(days=14)
    crows = ws.start_run("cascade", "cli:test")
    crows.stage_write("wiki/crows.md", cited_page("crows"))
    index = (crows.read("wiki/index.md") or b"").decode()
    crows.stage_write("wiki/index.md", index + "- [[crows]]\n")
    crows.attest_usage(Budget(input_tokens=500, output_tokens=100, usd=0.05))
    assert crows.finalize().status == "committed"
    ledger.sync(ws)
    yield ws
    ws.close()


def week(stamp: str | date) -> str:
    day = stamp if isinstance(stamp, date) else runid.parse_iso(stamp).date()
    return health.period_of(day, "week")


def recount(ws: Workspace) -> dict[str, dict[str, Any]]:
    """The figures from git alone: the newest record of each run in the notes, and each
    claim on main by the first-parent commit that last changed its page."""
    records: dict[str, Any] = {}
    for _commit, data in gitrepo.iter_notes(ws.repo):
        r = parse_record(data)
        if r is not None and (
            r.run_id not in records or r.recorded_at > records[r.run_id].recorded_at
        ):
            records[r.run_id] = r
    out: dict[str, dict[str, Any]] = defaultdict(lambda: defaultdict(int))
    landed = {}
    for r in records.values():
        w = out[week(r.started_at)]
        w["runs"] += 1
        w.setdefault("verdicts", Counter())[r.verdict or r.status] += 1
        w["unverified"] += int(r.unverified)
        w["loops"] += r.loop_count if r.verdict is not None else 0  # verified runs only
        w["writer_usd"] += r.usage.usd or 0
        w["writer_input_tokens"] += r.usage.input_tokens or 0
        if r.override_at:
            o = out[week(r.override_at)]
            o["overrides"] += 1
            o.setdefault("actors", Counter())[r.override_actor] += 1
        if r.status == "committed":  # each of its commits, tip down to its base
            c = gitrepo.commit_at(ws.repo, r.tip_commit)
            while str(c.id) != r.base_commit:
                landed[str(c.id)] = week(r.ended_at or r.started_at)
                c = c.parents[0]
    commit = gitrepo.commit_at(ws.repo, ws.repo.references[ws.env.main].target)
    last: dict[str, str] = {}  # page → the newest first-parent commit changing it
    while commit is not None:
        parent = commit.parents[0] if commit.parents else None
        changed = (
            gitrepo.changed_paths(ws.repo, parent.tree, commit.tree)
            if parent is not None
            else [d.new_file.path for d in commit.tree.diff_to_tree(swap=True).deltas]
        )
        for path in changed:
            if path.startswith("wiki/") and path not in last:
                last[path] = str(commit.id)
        commit = parent
    tip = gitrepo.commit_at(ws.repo, ws.repo.references[ws.env.main].target)
    for path, changed_in in last.items():
        data = gitrepo.read_blob(ws.repo, tip.tree, path)
        if data is None:
            continue
        for c in page_claims(parse_page(path, data.decode())):
            w = out[landed[changed_in]]
            w["claims"] += 1
            source = gitrepo.read_blob(ws.repo, tip.tree, c.source)
            anchored = (
                source is not None
                and c.offset is not None
                and source.decode()[c.offset :].startswith(c.quote)
            )
            w["anchored"] += int(anchored)
            w["flagged"] += int(not anchored and c.offset is not None)
    return out


def test_stats_equal_a_recount_from_git_and_a_rebuild(weeks: Workspace, tmp_path: Path) -> None:
    ws = weeks
    figures = health.stats(ws, "week")
    got = {p.period: p for p in figures.periods}
    want = recount(ws)
    w2, w3, w4 = (week(MONDAY.date() + timedelta(days=d)) for d in (0, 7, 14))
    assert list(got) == [w2, w3, w4] == sorted(want)
    for key, p in got.items():
        r = want[key]
        assert p.runs == r["runs"]
        assert p.verdicts == dict(r.get("verdicts", {}))
        assert p.overrides == r["overrides"]
        assert p.override_actors == dict(r.get("actors", {}))
        assert p.unverified == r["unverified"]
        assert p.loops == r["loops"]
        assert p.writer_usd == pytest.approx(r["writer_usd"])
        assert p.writer_input_tokens == r["writer_input_tokens"]
        assert (p.claims, p.anchored, p.flagged) == (r["claims"], r["anchored"], r["flagged"])
    # and what a person would check by hand
    assert got[w2].runs == 2 and got[w2].verdicts == {"commit": 1, "commit_override": 1}
    assert got[w2].writer_usd == pytest.approx(0.25) and got[w2].overrides == 0
    assert got[w3].overrides == 1 and got[w3].unverified == 1
    assert list(got[w3].override_actors.values()) == [1]
    assert got[w3].claims == 2 and got[w3].flagged == 1  # the overridden made-up source
    assert got[w3].fidelity == 0.5 and got[w4].fidelity == 1.0
    assert got[w4].writer_usd == pytest.approx(0.05) and got[w4].verifier_usd == 0
    assert figures.pairs == 2 and figures.correlation is None  # 3 pairs needed
    # the telemetry rebuilt from the notes gives the same figures
    before = health.as_json(figures)
    ws.store.db.execute("DELETE FROM overrides")
    ws.store.db.execute("DELETE FROM runs")
    ws.rebuild_telemetry(None)
    ledger.rebuild(ws)
    assert health.as_json(health.stats(ws, "week")) == before


def test_loops_per_run_counts_the_verifications_of_verified_runs_only(weeks: Workspace) -> None:
    """Found by review (#9): a run never finalized counted as one loop, and so did one
    committed with --no-verify; loops_per_run is verifications per verified run."""
    ws = weeks
    Clock.at = MONDAY + timedelta(days=21)  # 2026-W05
    ws.start_run("cascade", "cli:test")  # started, never finalized
    owl = ws.start_run("cascade", "cli:test")
    owl.stage_write("wiki/barn.md", "# Barn\n\nBarn owls nest in old barns.\n")  # uncited
    index = (owl.read("wiki/index.md") or b"").decode()
    owl.stage_write("wiki/index.md", index + "- [[barn]]\n")
    assert owl.finalize().status == "pending"  # revise: loop 1
    owl.stage_write("wiki/barn.md", cited_page("barn"))
    assert owl.finalize().status == "committed"  # loop 2
    got = {p.period: p for p in health.stats(ws, "week").periods}
    w3, w5 = week(MONDAY.date() + timedelta(days=7)), week(MONDAY.date() + timedelta(days=21))
    assert (got[w5].runs, got[w5].loops, got[w5].loops_per_run) == (2, 2, 2.0)
    assert got[w3].runs == 1 and got[w3].loops_per_run is None  # its one run: --no-verify


def test_gaps_on_pages_without_claims_are_counted(weeks: Workspace) -> None:
    """Found by review (#8): stats counted only the gap markers on pages with claims
    (`claims --gaps` listed 22, stats said 1)."""
    ws = weeks
    Clock.at = MONDAY + timedelta(days=21)  # 2026-W05
    moles = "# Moles\n\nMoles dig long tunnels under lawns [gap: no source on moles yet].\n"
    assert page_run(ws, "moles", moles).status == "committed"
    ledger.sync(ws)
    got = {p.period: p for p in health.stats(ws, "week").periods}
    w5 = week(MONDAY.date() + timedelta(days=21))
    assert got[w5].gaps == 1 and got[w5].claims == 0
    assert sum(p.gaps for p in got.values()) == len(ledger.gaps(ws)) == 1


def test_stats_cli_formats(weeks: Workspace, tmp_path: Path) -> None:
    root = str(weeks.root)

    def wg(*args: str) -> Any:
        return in_process(["-C", root, "stats", *args], env={"WIKIGATE_VERIFIER": ""})

    text = wg()
    assert text.returncode == 0, text.stderr
    assert "2026-W03" in text.stdout and "overrides by:" in text.stdout
    rows = list(csv.DictReader(io.StringIO(wg("--format", "csv").stdout)))
    assert [r["period"] for r in rows] == ["2026-W02", "2026-W03", "2026-W04"]
    assert rows[1]["unverified"] == "1" and rows[0]["writer_usd"] == "0.2500"
    data = json.loads(wg("--by", "month", "--format", "json").stdout)
    assert [p["period"] for p in data["periods"]] == ["2026-01"]
    assert data["periods"][0]["runs"] == 4 and data["periods"][0]["claims"] == 4
    days = json.loads(wg("--by", "day", "--format", "json").stdout)
    assert [p["period"] for p in days["periods"]] == ["2026-01-05", "2026-01-12", "2026-01-19"]
    out = tmp_path / "stats.html"
    assert wg("--html", "--output", str(out)).returncode == 0
    doc = out.read_text(encoding="utf-8")

    class Tags(HTMLParser):
        tags: list[tuple[str, dict[str, str | None]]] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            self.tags.append((tag, dict(attrs)))

    scan = Tags()
    scan.feed(doc)
    names = [t for t, _ in scan.tags]
    assert names.count("script") == 1 and names.count("svg") == 3 and "rect" in names
    csp = [a["content"] for t, a in scan.tags if a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and (csp[0] or "").startswith("default-src 'none'; script-src 'sha256-")
    assert not any(k.startswith("on") or k in ("src", "style") for _, a in scan.tags for k in a)
    assert "http:" not in doc and "https:" not in doc  # nothing to fetch, no CDN
