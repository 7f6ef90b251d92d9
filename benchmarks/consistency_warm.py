"""The consistency check's CPU for 10-page runs on one warm clone of the 10k wiki: main's term
index built once (by the first run), then each run's index derived from it, and that run
again (cached). For comparing two versions of the code without a fresh clone's noise: give
each version its own copy of the clone (the features rows are kept by the code's digest,
the term index by its rules' name: a clone shared by two versions favours the first).

    git clone --no-local /tmp/w10k /tmp/c10k && cp -a /tmp/c10k /tmp/c10k-other
    python benchmarks/consistency_warm.py /tmp/c10k --runs 3 --seed 7

Prints the check's CPU milliseconds of each run, derived then cached.
"""

from __future__ import annotations

import argparse
import random
import time

import pygit2
from health import ten_page_run

from wikigate.verifier.checks import consistency
from wikigate.verify import Request, cache_path, verify


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("clone")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--seed", type=int, default=7)
    a = p.parse_args()
    repo = pygit2.Repository(a.clone)
    base = repo[repo.references["refs/heads/main"].target]
    rng = random.Random(a.seed)
    timed: list[float] = []
    check = consistency._check

    def timing(*args):  # the check's own work, as a command's: nothing kept in memory
        consistency.forget()
        cpu = time.process_time()
        try:
            return check(*args)
        finally:
            timed.append(time.process_time() - cpu)

    consistency._check = timing

    def verified(commit: pygit2.Commit) -> None:
        verify(Request(repo, commit, base, strictness="SKEPTICAL", cache_path=cache_path(repo)))

    verified(ten_page_run(repo, rng))  # main's index built, if it is not yet
    timed.clear()
    for _ in range(a.runs):
        tip = ten_page_run(repo, rng)
        verified(tip)
        verified(tip)
    derived = " ".join(f"{t * 1000:.0f}" for t in timed[0::2])
    cached = " ".join(f"{t * 1000:.0f}" for t in timed[1::2])
    print(f"consistency check CPU ms: derived {derived} | cached {cached}")


if __name__ == "__main__":
    main()
