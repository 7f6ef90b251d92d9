"""Time full verification and a 10-page run on a wiki from make_wiki.py.

    python benchmarks/verify.py WIKI [--repeat 3]

Targets (issue 3): full verify of 10,000 pages / 100,000 citations / ~1 GB raw ≤ 10 s;
verify of a 10-page run ≤ 0.5 s (warm cache under .git/wikigate/).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path
from typing import Any

from wikigate.changes import change_request
from wikigate.verifier.citation import format_tail
from wikigate.verify import Request, cache_path, verdict_of, verify
from wikigate.workspace import Workspace


def timed(fn):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("wiki", type=Path)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    ws = Workspace.open(a.wiki)
    cache = cache_path(ws.repo)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{cache}{suffix}").unlink(missing_ok=True)
    cold, report = timed(lambda: verify(change_request(ws, "main", whole=True)).report)
    s = report.summary
    print(
        f"full verify, cold cache: {cold:.2f}s — {s.pages} pages, {s.citations} citations, "
        f"{s.anchors_verified} anchors verified, {s.links} links, verdict {report.verdict}"
    )
    for c in report.checks:
        print(f"    {c.name:12} {c.status:8} {c.duration_ms / 1000:.2f}s")
    warm = [
        timed(lambda: verify(change_request(ws, "main", whole=True)).report)[0]
        for _ in range(a.repeat)
    ]
    print(f"full verify, warm cache: median {statistics.median(warm):.2f}s")

    # each run is verified once, as finalize does: a new tip tree each time
    pages = sorted(e for e in _pages(ws) if e.startswith("wiki/topics/"))
    rng = random.Random(1)
    firsts = []
    for _ in range(a.repeat + 2):
        run = ws.start_run("cascade", "cli:bench")
        for path in rng.sample(pages, 10):
            text = (run.read(path) or b"").decode()
            run.stage_write(path, text.replace("## Details", "## Details\n\nA new paragraph.", 1))
        took, verdict = timed(lambda: _verify_run(ws, run))  # noqa: B023
        firsts.append(took)
    print(
        f"10-page run verify ({len(firsts)} runs, 10 random pages each): median "
        f"{statistics.median(firsts):.2f}s, max {max(firsts):.2f}s — verdict {verdict.verdict}, "
        f"{len(verdict.findings)} findings"
    )

    # ingest runs: a new 10 MB source and 10 new pages citing it, linked from the index.
    # Coverage scans every page for the source's key terms: a source on new topics
    # matches few pages; one sharing the wiki's whole vocabulary matches every page.
    fresh = random.Random(2)
    new_words = ["viaduct", "ferrous", "smelting", "turbines", "aqueduct", "boiler", "sluices"]
    sentences = (
        " ".join(fresh.choice(new_words) for _ in range(12)).capitalize() + ". "
        for _ in range(200_000)
    )
    for label, body in [
        ("new topics", "".join(sentences)[: 10 * 2**20]),
        ("every page matches", (run.read("raw/source-0001.txt") or b"").decode()[100:]),
    ]:
        took = []
        for _ in range(3):
            verdict, seconds = _ingest(ws, body)
            took.append(seconds)
        print(
            f"ingest run verify (10 MB source, 10 pages; {label}): median "
            f"{statistics.median(took):.2f}s of 3 runs — verdict {verdict.verdict}, "
            f"{len(verdict.findings)} findings"
        )
    ws.close()


def _ingest(ws: Workspace, body: str):  # type: ignore[no-untyped-def]
    """Stage an ingest run, then time only its verification."""
    run = ws.start_run("ingest", "cli:bench")
    text = "A new record.\n\n" + body
    run.stage_write("raw/ingested.txt", text)
    links = []
    for i in range(10):
        start = text.find(" ", 1000 + i * 500_000) + 1
        end = text.rfind(" ", start + 40, start + 120)
        quote = text[start:end]
        tail = format_tail("raw/ingested.txt", None, quote, start)
        run.stage_write(
            f"wiki/ingested/new-{i}.md",
            f"---\ntitle: New {i}\n---\n# New {i}\n\nIt says {quote.lower()}.[^1]\n\n[^1]: {tail}\n",
        )
        links.append(f"- [[New {i}]]")
    index = (run.read("wiki/index.md") or b"").decode()
    run.stage_write("wiki/index.md", index + "\n".join(links) + "\n")
    took, verdict = timed(lambda: _verify_run(ws, run))
    return verdict, took


def _verify_run(ws: Workspace, run: Any) -> Any:
    """The run's verification as finalize asks for it (its plan, its base's rules)."""
    plan = run.plan()
    repo = ws.repo
    request = Request(
        repo,
        repo[run.tip()],
        repo[plan.meta.base],
        plan=plan,
        judge_may_lower=False,
        cache_path=cache_path(repo),
    )
    return verdict_of(verify(request))


def _pages(ws: Workspace) -> list[str]:
    from wikigate.verifier.wiki import PageCache, WikiTree

    main = ws.repo[ws.repo.references["refs/heads/main"].target]
    return WikiTree(ws.repo, main.tree, PageCache(None)).pages


if __name__ == "__main__":
    main()
