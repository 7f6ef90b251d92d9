"""Time ``wikigate github`` as a workflow step runs it, against the GitHub emulator.

    python benchmarks/github.py WIKI [--repeat 5]

WIKI is a generated wiki (benchmarks/make_wiki.py; the figures in docs/benchmarks.md use
1,000 pages).  A pull request changes 10 of its pages, adding 4 fabricated quotes to each
(40 findings: a reject, with `close-on-reject: false` so every repetition sees the same
pull request).  Each repetition is a fresh `git clone --no-local` of origin, as a runner's
checkout is (the clone is not timed), and a fresh emulator state: the figure is the first
verification of a pull request, process start included.

Prints the wall time (median and range) and the API requests of one verification, by
method and route.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.github_emulator import GitHubEmulator, Pull  # noqa: E402

from wikigate.verifier.citation import format_tail  # noqa: E402

TOKEN = "ghs_benchmark"
REPO = "octo/wiki"
PAGES, PER_PAGE = 10, 4


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(cwd), *args], check=True, capture_output=True, text=True
    ).stdout


def make_pull(seed: Path, bare: Path) -> None:
    """A branch changing PAGES pages, each gaining PER_PAGE fabricated quotes."""
    git(seed, "checkout", "-q", "-B", "feature", "main")
    pages = sorted((seed / "wiki" / "topics").rglob("*.md"))[:PAGES]
    source = next(p for p in sorted((seed / "raw").rglob("*")) if p.is_file())
    rel = source.relative_to(seed).as_posix()
    for page in pages:
        text = page.read_text()
        for k in range(PER_PAGE):
            made_up = f"The harbour council sold {k + 7} bridges to {page.stem} in one night."
            label = f"bench{k}"
            text += (
                f"\n{made_up}[^{label}]\n\n[^{label}]: {format_tail(rel, None, made_up, None)}\n"
            )
        page.write_text(text)
    git(seed, "add", "wiki")
    git(seed, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "10 pages, 40 fabrications")
    git(
        seed,
        "push",
        "-q",
        "-f",
        str(bare),
        "feature:refs/heads/feature",
        "feature:refs/pull/1/head",
    )


def route(path: str) -> str:
    path = re.sub(r"^/repos/[^/]+/[^/]+", "", path)
    return re.sub(r"/[0-9a-f]{40}|/\d+", "/{id}", path) or "/"


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("wiki", type=Path)
    p.add_argument("--repeat", type=int, default=5)
    a = p.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="wikigate-gh-bench-"))
    try:
        seed = tmp / "seed"
        git(tmp, "clone", "-q", "--no-local", str(a.wiki), str(seed))
        bare = tmp / "origin.git"
        git(tmp, "clone", "-q", "--bare", "--no-local", str(seed), str(bare))
        make_pull(seed, bare)
        emu = GitHubEmulator(bare, REPO, TOKEN)
        times, requests = [], Counter[str]()
        with emu.running():
            for n in range(a.repeat):
                emu.pulls = {1: Pull(1, "feature")}
                for store in (emu.review_comments, emu.issue_comments, emu.check_runs):
                    store.clear()
                emu.reviews.clear()
                emu.requests.clear()
                checkout = tmp / f"checkout-{n}"
                git(tmp, "clone", "-q", "--no-local", str(bare), str(checkout))
                event = tmp / "event.json"
                pull = emu._pull(emu.pulls[1])
                event.write_text(
                    '{"action": "opened", "number": 1, "sender": {"login": "author"}, '
                    f'"pull_request": {__import__("json").dumps(pull)}}}'
                )
                env = {
                    **os.environ,
                    "GITHUB_EVENT_NAME": "pull_request_target",
                    "GITHUB_EVENT_PATH": str(event),
                    "GITHUB_REPOSITORY": REPO,
                    "GITHUB_TOKEN": TOKEN,
                    "GITHUB_API_URL": emu.url,
                    "RUNNER_TEMP": str(tmp),
                    "WIKIGATE_CLOSE_ON_REJECT": "false",
                    "WIKIGATE_DELETE_BRANCH": "false",
                }
                t0 = time.perf_counter()
                proc = subprocess.run(
                    [sys.executable, "-m", "wikigate", "github"],
                    cwd=checkout,
                    env=env,
                    capture_output=True,
                    text=True,
                )
                times.append(time.perf_counter() - t0)
                if proc.returncode != 1:
                    sys.exit(
                        f"expected a reject (exit 1), got {proc.returncode}:\n{proc.stdout}{proc.stderr}"
                    )
                if n == 0:
                    requests = Counter(f"{m} {route(path)}" for m, path, _ in emu.requests)
                    findings = len(emu.check_run()["annotations"])
                shutil.rmtree(checkout)
        load = os.getloadavg()[0]
        print(
            f"wikigate github, 10-page PR ({findings} findings), {a.repeat} runs, load {load:.2f}"
        )
        print(
            f"  wall time: median {statistics.median(times):.2f} s "
            f"(range {min(times):.2f}–{max(times):.2f} s)"
        )
        print(f"  API requests of one verification: {sum(requests.values())}")
        for what, count in sorted(requests.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"    {count:3d}  {what}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
