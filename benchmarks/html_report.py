"""Time the HTML report of the whole ledger and `wikigate stats` as a user runs them.

    python benchmarks/make_wiki.py /tmp/w10k --pages 10000 --citations 100000 --raw-mb 1024
    python benchmarks/html_report.py /tmp/w10k [--runs 10000] [--repeat 5]

One fresh ``git clone --no-local``; its ledger built once (``wikigate claims``, not timed
here: benchmarks/ledger.py times it). Then, whole commands, each ``--repeat`` times:

- ``wikigate report html --output FILE``: every claim of the 10k-page wiki (100,000) in one
  file; its size is printed (goal: under 20 MB);
- ``wikigate stats`` (text), ``--format csv`` and ``--html`` over ``--runs`` runs: the
  telemetry gets that many run rows spread over a year (a tenth rejected, a twentieth
  overridden, a fiftieth unverified; writer and verifier spend), written straight into the
  database (finalizing 10,000 real runs would take hours; the command reads the rows the
  same way whatever wrote them). Their tips are main's commit, so the fidelity walk runs.
"""

from __future__ import annotations

import argparse
import random
import resource
import sqlite3
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

from harness import Figure, command, fresh_clone, git, run

WG = command("wikigate")


def timed(
    argv: list[str], cwd: Path, cpu: list[float]
) -> tuple[float, subprocess.CompletedProcess[str]]:
    """``run``, and the command's CPU time (user + system) appended to ``cpu``: on a
    shared machine the wall time mostly says how long it waited for a core."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    took, proc = run(argv, cwd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return took, proc


def fill_runs(clone: Path, n: int) -> None:
    """``n`` runs over the year before now, in the clone's telemetry database."""
    db = sqlite3.connect(clone / ".git" / "wikigate" / "telemetry.db")
    tip = git(clone, "rev-parse", "HEAD").strip()
    base = git(clone, "rev-parse", "HEAD~1").strip()
    rng = random.Random(29)
    start = datetime.now(UTC) - timedelta(days=365)
    runs, overrides = [], []
    for i in range(n):
        at = start + timedelta(seconds=rng.randrange(365 * 86400))
        stamp = at.isoformat(timespec="microseconds").replace("+00:00", "Z")
        run_id = at.strftime("%Y%m%d-%H%M%S-%f") + f"-{i % 65536:04x}"
        rejected, overridden = i % 10 == 0, i % 20 == 0
        verdict = "commit_override" if overridden else "reject" if rejected else "commit"
        status = "rejected" if rejected and not overridden else "committed"
        runs.append(
            (
                run_id,
                "bench",
                "cli:bench",
                "cascade",
                status,
                stamp,
                stamp,
                verdict,
                1 + i % 3,
                rng.randrange(10_000),
                rng.randrange(2_000),
                rng.random() / 10,
                rng.randrange(5_000),
                rng.randrange(500),
                rng.random() / 50,
                f"wikigate/run/{run_id}",
                base,
                tip if status == "committed" else base,
                int(i % 50 == 0),
            )
        )
        if overridden:
            overrides.append((run_id, f"maintainer{i % 3}", "known source", "cli", stamp))
    db.executemany(
        "INSERT INTO runs (run_id, workspace, triggered_by, run_type, status, started_at, "
        "ended_at, verdict, loop_count, budget_input_tokens_used, budget_output_tokens_used, "
        "budget_usd_used, verifier_input_tokens, verifier_output_tokens, verifier_usd, branch, "
        "base_commit, tip_commit, unverified) VALUES (" + ",".join("?" * 19) + ")",
        runs,
    )
    db.executemany(
        "INSERT INTO overrides (run_id, actor, reason, source, at) VALUES (?,?,?,?,?)", overrides
    )
    db.commit()
    db.close()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("wiki", type=Path)
    p.add_argument("--runs", type=int, default=10_000)
    p.add_argument("--repeat", type=int, default=5)
    a = p.parse_args()
    html = Figure("`wikigate report html --output FILE`, the whole ledger")
    text = Figure(f"`wikigate stats`, {a.runs} runs, per week")
    csv = Figure(f"`wikigate stats --format csv`, {a.runs} runs")
    page = Figure(f"`wikigate stats --html --output FILE`, {a.runs} runs")
    cpus: dict[str, list[float]] = {f.what: [] for f in (html, text, csv, page)}
    with fresh_clone(a.wiki) as clone:
        run([WG, "claims", "--page", "wiki/index.md"], clone)  # the ledger, built once
        fill_runs(clone, a.runs)
        out = clone.parent / "ledger.html"
        for _ in range(a.repeat):
            took, _proc = timed(
                [WG, "report", "html", "--output", str(out)], clone, cpus[html.what]
            )
            html.add(took)
            took, proc = timed([WG, "stats"], clone, cpus[text.what])
            text.add(took)
            took, _proc = timed([WG, "stats", "--format", "csv"], clone, cpus[csv.what])
            csv.add(took)
            took, _proc = timed(
                [WG, "stats", "--html", "--output", str(clone.parent / "s.html")],
                clone,
                cpus[page.what],
            )
            page.add(took)
        size = out.stat().st_size
        claims = int(run([WG, "claims", "--format", "csv"], clone)[1].stdout.count("\n")) - 1
        rows = proc.stdout.count("\n") - 1
    for figure in (html, text, csv, page):
        cpu = sorted(cpus[figure.what])
        print(f"{figure}; CPU {cpu[len(cpu) // 2]:.2f} s ({cpu[0]:.2f}–{cpu[-1]:.2f})")
    print(f"report html: {size / 1e6:.1f} MB for {claims} claims; stats: {rows} weeks")


if __name__ == "__main__":
    main()
