"""The commit hook's CPU, two installs side by side (issue 24: one verification instead of
two): the same ``git commit`` staging in two clones of a wiki, each install's
``wikigate-commit`` run on its own clone, in alternating order, round after round, so that
both see the same load. Prints the median and range of each hook process's CPU time
(user + system) and the load average seen.

    git archive main | tar -x -C /tmp/before && python -m venv /tmp/venv-before \\
        && /tmp/venv-before/bin/pip install /tmp/before
    python benchmarks/commit_ab.py /tmp/w1k /tmp/venv-before/bin .venv/bin --rounds 15

Each round edits the same 5 random pages in both clones (fresh page blobs: what a commit
sees), runs both hooks, then commits both with ``--no-verify``. The first round, which
fills each clone's caches, is not counted. ``benchmarks/commands.py --only commit`` times
a whole ``git commit`` under pre-commit instead, one install at a time.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import tempfile
from pathlib import Path

GIT_ID = ("-c", "user.name=bench", "-c", "user.email=bench@example.com")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("wiki", type=Path, help="a wiki from make_wiki.py (the 1,000-page one)")
    p.add_argument("bins", type=Path, nargs=2, help="two installs' bin folders: A, then B")
    p.add_argument("--rounds", type=int, default=15)
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        clones = []
        for i, bin_dir in enumerate(a.bins):
            clone = Path(tmp) / f"clone{i}"
            git(Path(tmp), "clone", "-q", "--no-local", str(a.wiki), str(clone))
            clones.append((str(bin_dir / "wikigate-commit"), clone))
        topics = sorted(
            p.relative_to(clones[0][1]) for p in clones[0][1].rglob("wiki/topics/*/*.md")
        )
        rng = random.Random(5)
        cpu: list[list[float]] = [[], []]
        loads: list[float] = []
        for n in range(a.rounds + 1):
            pick = [str(p) for p in rng.sample(topics, 5)]
            for _, clone in clones:
                for path in pick:
                    page = clone / path
                    page.write_text(
                        page.read_text().replace("## Details", f"## Details\n\n{n}.", 1)
                    )
                git(clone, "add", "-A")
            order = [0, 1] if n % 2 else [1, 0]
            for k in order:
                hook, clone = clones[k]
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                proc = subprocess.run([hook, *pick], cwd=clone, capture_output=True, text=True)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                if proc.returncode not in (0, 1):
                    raise SystemExit(f"{hook}: exit {proc.returncode}\n{proc.stderr}")
                if n:
                    cpu[k].append(
                        after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
                    )
            if n:
                loads.append(os.getloadavg()[0])
            for _, clone in clones:
                git(clone, *GIT_ID, "commit", "-q", "--no-verify", "-m", f"edit {n}")
    for bin_dir, times in zip(a.bins, cpu, strict=True):
        print(
            f"{bin_dir}: wikigate-commit CPU {statistics.median(times):.2f} s median "
            f"({min(times):.2f}–{max(times):.2f}, n={len(times)}, "
            f"load {min(loads):.1f}–{max(loads):.1f})"
        )


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True)


if __name__ == "__main__":
    main()
