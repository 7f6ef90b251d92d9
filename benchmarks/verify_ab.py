"""A cold ``wikigate verify --all`` of one wiki with two versions of the code, run by run
in turn (the same load for both): CPU time (user + system of the command and its workers),
wall time, the semantic check's ``duration_ms``, and whether both reports agree.

    git archive main | tar -x -C /tmp/before
    python benchmarks/verify_ab.py /tmp/p1k --before /tmp/before --repeat 3

"Before" runs with ``PYTHONPATH=TREE`` (that export's ``wikigate`` is imported first);
"after" is the installed code. Each run starts cold (``.git/wikigate`` removed). The
reports must be identical but for their durations (exit 1 if not).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import command

WIKIGATE = command("wikigate")


def _same(report: dict[str, Any]) -> str:
    """The report without what moves run to run (durations, elapsed time)."""
    checks = [(c["name"], c["status"], c["findings"], c["reason"]) for c in report["checks"]]
    summary = {k: v for k, v in report["summary"].items() if not k.endswith("_ms")}
    rest = {k: v for k, v in report.items() if k not in ("checks", "summary")}
    return json.dumps([checks, summary, rest], sort_keys=True, default=str)


def run(wiki: Path, before: Path | None, out: Path) -> tuple[float, float, float, str]:
    shutil.rmtree(wiki / ".git" / "wikigate", ignore_errors=True)
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if before is not None:
        env["PYTHONPATH"] = str(before)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    argv = [WIKIGATE, "verify", "--all", "--format", "json", "--output", str(out)]
    subprocess.run(argv, cwd=wiki, env=env, check=False)
    wall = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
    report = json.loads(out.read_text())
    semantic = next(c["duration_ms"] for c in report["checks"] if c["name"] == "semantic")
    return cpu, wall, semantic / 1000, _same(report)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("wiki", type=Path)
    p.add_argument("--before", type=Path, required=True, help="an export of the older code")
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    figures: dict[str, list[tuple[float, float, float]]] = {"before": [], "after": []}
    reports = set()
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(a.repeat):
            for name, tree in (("before", a.before.resolve()), ("after", None)):
                cpu, wall, semantic, same = run(a.wiki.resolve(), tree, Path(tmp) / "r.json")
                figures[name].append((cpu, wall, semantic))
                reports.add(same)
                load = os.getloadavg()[0]
                print(
                    f"{name} {i}: CPU {cpu:.2f} s, wall {wall:.2f} s, semantic check "
                    f"{semantic:.2f} s (load {load:.1f})",
                    flush=True,
                )
    for name, runs in figures.items():
        cols = list(zip(*runs, strict=True))
        shown = [
            f"{label} {statistics.median(c):.2f} s ({min(c):.2f}-{max(c):.2f})"
            for label, c in zip(("CPU", "wall", "semantic check"), cols, strict=True)
        ]
        print(f"{name}: " + ", ".join(shown) + f", n={len(runs)}")
    print("reports identical but for durations" if len(reports) == 1 else "REPORTS DIFFER")
    sys.exit(0 if len(reports) == 1 else 1)


if __name__ == "__main__":
    main()
