"""Time `finalize`: one run in-process, or many finalizing at once as whole commands.

    python benchmarks/finalize.py [--files 50] [--repeat 15]
    python benchmarks/finalize.py --concurrent 20 --wiki /tmp/w1k [--rounds 5]

The first: the engine only (a trivial verifier), a 50-file run; target median ≤ 0.2 s.
The second: ``--concurrent`` processes each run ``wikigate run finalize`` at once (the
default verifier, process start included) on runs editing distinct pages of a clone of
WIKI (made by make_wiki.py) whose verifier cache is warm (one untimed ``verify --all``,
as in a repository in use); reports throughput in runs/s, median and range of the rounds.
Every run must commit: none may be lost to the race for main.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from wikigate.models import VerifierVerdict
from wikigate.workspace import Workspace


class CommitVerifier:
    def verify(self, run_id, workspace, plan, staged_tree):  # type: ignore[no-untyped-def]
        return VerifierVerdict(verdict="commit", reasoning="benchmark")


def concurrent(wiki: Path, count: int, rounds: int) -> None:
    rates, walls = [], []
    for r in range(rounds):
        with tempfile.TemporaryDirectory() as tmp:
            clone = Path(tmp) / "w"
            subprocess.run(["git", "clone", "-q", str(wiki), str(clone)], check=True)
            # a working repository's cache is warm: verify the wiki once, untimed
            subprocess.run(
                [sys.executable, "-m", "wikigate", "-C", str(clone), "verify", "--all"],
                capture_output=True,
            )
            ws = Workspace.open(clone)
            listing = subprocess.run(
                ["git", "-C", str(clone), "ls-tree", "-r", "--name-only", "main", "wiki/topics/"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            pages = [p for p in listing if not p.endswith(("index.md", "log.md"))]
            runs = []
            for i in range(count):
                run = ws.start_run("cascade", "cli:bench")
                page = pages[i * 7 % len(pages)]
                text = run.read(page).decode()
                run.stage_write(page, text + f"\nEdited in round {r} by run {i}.\n")
                runs.append(run.run_id)
            ws.close()
            t0 = time.perf_counter()
            procs = [
                subprocess.Popen(
                    [sys.executable, "-m", "wikigate", "-C", str(clone), "run", "finalize", rid],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                )
                for rid in runs
            ]
            outs = [p.communicate()[0] for p in procs]
            wall = time.perf_counter() - t0
            failed = [o for p, o in zip(procs, outs, strict=True) if p.returncode != 0]
            assert not failed, failed[0]
            walls.append(wall)
            rates.append(count / wall)
            print(
                f"round {r + 1}: {count} runs committed in {wall:.2f}s ({count / wall:.1f} runs/s)"
            )
    print(
        f"{count} concurrent `wikigate run finalize`, {len(pages)}-page wiki, {rounds} rounds: "
        f"median {statistics.median(rates):.1f} runs/s "
        f"(range {min(rates):.1f}–{max(rates):.1f}); wall median {statistics.median(walls):.2f}s"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--concurrent", type=int, default=0, metavar="N")
    parser.add_argument("--wiki", type=Path, help="with --concurrent: a wiki made by make_wiki.py")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if args.concurrent:
        if args.wiki is None:
            parser.error("--concurrent needs --wiki")
        concurrent(args.wiki, args.concurrent, args.rounds)
        return
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
