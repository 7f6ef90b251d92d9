"""Time staging one write (sweep included) with many finished runs in telemetry.

    python benchmarks/staging.py [--runs 20000] [--repeat 15]

Every op sweeps first; sweep looks only at open runs (an indexed query), so the cost
of an op does not grow with the history.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from wikigate.workspace import Workspace


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace.init(Path(tmp) / "w")
        with ws.store.immediate():
            ws.store.table("runs").insert_all(
                {
                    "run_id": f"old-{i:06d}",
                    "workspace": "w",
                    "triggered_by": "cli:bench",
                    "run_type": "cascade",
                    "status": "committed" if i % 2 else "rejected",
                    "started_at": "2026-01-01T00:00:00+00:00",
                    "branch": f"wikigate/runs/old-{i:06d}",
                    "base_commit": "0" * 40,
                }
                for i in range(args.runs)
            )
        run = ws.start_run("cascade", "cli:bench")
        times = []
        for i in range(args.repeat):
            t0 = time.perf_counter()
            run.stage_write(f"wiki/p{i}.md", f"# P{i}\n")
            times.append(time.perf_counter() - t0)
        ws.close()
    print(
        f"stage one write, {args.runs} finished runs in telemetry, {args.repeat} ops: "
        f"median {statistics.median(times) * 1000:.1f} ms, "
        f"range {min(times) * 1000:.1f}–{max(times) * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()
