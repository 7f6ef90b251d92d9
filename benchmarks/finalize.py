"""Time `finalize` (engine only, a trivial verifier) for a 50-file run.

    python benchmarks/finalize.py [--files 50] [--repeat 15]

Target (issue 2): median ≤ 0.2 s on a 2-core machine.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from wikigate.models import VerifierVerdict
from wikigate.workspace import Workspace


class CommitVerifier:
    def verify(self, run_id, workspace, plan, staged_tree):  # type: ignore[no-untyped-def]
        return VerifierVerdict(verdict="commit", reasoning="benchmark")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace.init(Path(tmp) / "w")
        ws.verifier = CommitVerifier()
        times = []
        for r in range(args.repeat):
            run = ws.start_run("cascade", "cli:bench")
            for i in range(args.files):
                run.stage_write(f"wiki/r{r}/page{i}.md", f"# Page {i}\n\nText {r}.\n")
            t0 = time.perf_counter()
            result = run.finalize()
            times.append(time.perf_counter() - t0)
            assert result.status == "committed", result
        ws.close()
    print(
        f"finalize, {args.files}-file run, checked-out main, {args.repeat} runs: "
        f"median {statistics.median(times):.3f}s  min {min(times):.3f}s  max {max(times):.3f}s"
    )


if __name__ == "__main__":
    main()
