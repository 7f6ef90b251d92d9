"""The pre-commit hook environment of wikigate: its size and how long it takes to build.

A fresh clone of this repository at REV is named by ``repo:`` (a local path) in a
temporary ``.pre-commit-config.yaml``, and ``pre-commit install-hooks`` builds the hook
environment in an empty ``PRE_COMMIT_HOME`` with pip's cache off (every wheel read again;
a package built from an sdist is built again). Prints the wall-clock time and the size of
``PRE_COMMIT_HOME`` (``du``, the environment and pre-commit's clone of the repository).

    python benchmarks/hook_env.py [REV] [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIG = """repos:
  - repo: {repo}
    rev: {rev}
    hooks:
      - id: wikigate-citations
      - id: wikigate-links
"""


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


def once(rev: str) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        clone = base / "wikigate"
        subprocess.run(["git", "clone", "-q", "--no-local", str(ROOT), str(clone)], check=True)
        sha = git("rev-parse", f"{rev}^{{commit}}", cwd=ROOT)
        git("fetch", "-q", str(ROOT), sha, cwd=clone)
        wiki = base / "wiki"
        wiki.mkdir()
        git("init", "-q", cwd=wiki)
        (wiki / ".pre-commit-config.yaml").write_text(CONFIG.format(repo=clone, rev=sha))
        home = base / "home"
        env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PIP_NO_CACHE_DIR": "1"}
        start = time.monotonic()
        subprocess.run(
            [sys.executable, "-m", "pre_commit", "install-hooks"], cwd=wiki, env=env, check=True
        )
        seconds = time.monotonic() - start
        du = subprocess.run(["du", "-sk", str(home)], capture_output=True, text=True, check=True)
        return seconds, int(du.stdout.split()[0]) * 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("rev", nargs="?", default="HEAD")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    times, sizes = [], []
    for _ in range(args.repeat):
        seconds, size = once(args.rev)
        times.append(seconds)
        sizes.append(size)
        print(f"{seconds:.1f} s, {size / 2**20:.1f} MiB", flush=True)
    load = os.getloadavg()[0]
    print(
        f"median {statistics.median(times):.1f} s ({min(times):.1f}-{max(times):.1f}, "
        f"n={len(times)}), {statistics.median(sizes) / 2**20:.1f} MiB, load {load:.1f}"
    )


if __name__ == "__main__":
    main()
