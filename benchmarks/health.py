"""Time the wiki agreeing with itself on the 10k wiki: the consistency check of a 10-page
run, and ``wikigate health`` cold and warm.

    python benchmarks/make_wiki.py /tmp/w10k --pages 10000 --citations 100000 --raw-mb 1024
    python benchmarks/health.py /tmp/w10k [--repeat 3]

Each repeat: a fresh ``git clone --no-local``. Then

- 10-page runs: 10 topic pages each given a new claim that denies a claim of another
  page (citing that claim's quote), verified SKEPTICAL in process against main; the figures
  are the consistency check's own wall and CPU time (what it adds to the run's
  verification) in a first run (main's term index built from every page), a second run
  (its index derived from main's: the gate's usual case) and that run again (its index
  cached), with the second run's findings and the pairs and estimated tokens it would have
  given the LLM judge (``--check-only``: these alone, no health figures);
- ``wikigate health --format json`` twice as a user runs it: cold (no verification cache)
  and warm (the cache the first wrote).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import time
from pathlib import Path

import pygit2
from harness import Figure, command, fresh_clone, run

from wikigate.config import Config  # noqa: E402
from wikigate.verifier.checks import consistency  # noqa: E402
from wikigate.verifier.judges.llm.pairs import OUTPUT_PER_PAIR, pairs_text  # noqa: E402
from wikigate.verify import Request, cache_path, verify  # noqa: E402

HEALTH = [command("wikigate"), "health", "--format", "json"]
_CLAIM = re.compile(r"The record states that ([^\[]{20,200})\.\[\^(\d+)\]")


def ten_page_run(repo: pygit2.Repository, rng: random.Random) -> pygit2.Commit:
    """A commit on main's tip: 10 topic pages, each with a claim of another page denied
    ("… that not …") and that claim's footnote definition: a negation the check finds."""
    main = repo[repo.references["refs/heads/main"].target]
    topics = [e for e in _walk(repo, main.tree, "") if e[0].startswith("wiki/topics/")]
    chosen = rng.sample(topics, 20)
    files: dict[str, bytes] = {}
    for (path, oid), (_, other) in zip(chosen[:10], chosen[10:], strict=True):
        text = repo[oid].data.decode()
        theirs = repo[other].data.decode()
        m = _CLAIM.search(theirs)
        assert m is not None, "make_wiki.py's pages state their claims so"
        label = m.group(2)
        definition = re.search(rf"^\[\^{label}\]: (.*)$", theirs, re.M)
        assert definition is not None
        claim = f"The record states that not {m.group(1)}.[^x1]"
        text = text.replace("## Details", f"{claim}\n\n## Details", 1)
        text += f"[^x1]: {definition.group(1)}\n"
        files[path] = text.encode()
    builder_tree = main.tree
    for path, data in files.items():
        from wikigate.gitrepo import tree_with

        builder_tree = repo[tree_with(repo, builder_tree, path, repo.create_blob(data))]
    sig = pygit2.Signature("bench", "bench@example.com")
    oid = repo.create_commit(None, sig, sig, "ten pages\n", builder_tree.id, [main.id])
    return repo[oid]


def _walk(repo: pygit2.Repository, tree: pygit2.Tree, prefix: str) -> list[tuple[str, pygit2.Oid]]:
    out = []
    for entry in tree:
        path = f"{prefix}{entry.name}"
        if entry.type_str == "tree":
            out += _walk(repo, repo[entry.id], path + "/")
        elif path.endswith(".md"):
            out.append((path, entry.id))
    return out


PHASES = (
    "main's index built (every page's claims read)",
    "a run's index derived from main's",
    "warm (the run's index cached)",
)


def check_seconds(
    clone: Path, rng: random.Random
) -> tuple[list[tuple[float, float]], int, int, int]:
    """The consistency check's wall and CPU seconds in 10-page runs' verifications: the
    first run (main's term index built), a second run (its index derived from main's) and
    that run again (its index cached); the second run's findings, and the pairs and
    estimated input tokens the LLM judge would get."""
    repo = pygit2.Repository(str(clone))
    base = repo[repo.references["refs/heads/main"].target]
    first, tip = ten_page_run(repo, rng), ten_page_run(repo, rng)
    timed: list[tuple[float, float]] = []
    check = consistency._check

    def timing(*args):  # the check's own work, in this process
        consistency.forget()  # each verification as a command's: nothing kept in memory
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return check(*args)
        finally:
            timed.append((time.perf_counter() - wall, time.process_time() - cpu))

    consistency._check = timing
    try:
        for commit in (first, tip, tip):
            request = Request(
                repo, commit, base, strictness="SKEPTICAL", cache_path=cache_path(repo)
            )
            report = verify(request).report
    finally:
        consistency._check = check
    found = sum(
        f.code.startswith("claim.con") or f.code == "claim.source_conflict" for f in report.findings
    )
    pairs, tokens = _judge_load(repo, tip, base)
    return timed, found, pairs, tokens


def _judge_load(
    repo: pygit2.Repository, tip: pygit2.Commit, base: pygit2.Commit
) -> tuple[int, int]:
    """The pairs no rule decides (what the LLM judge would be sent), and their tokens."""
    from wikigate.verifier.checks.context import Context
    from wikigate.verifier.judges.choose import make_judge
    from wikigate.verifier.wiki import PageCache, WikiTree

    cache = PageCache(cache_path(repo))
    config = Config()
    ctx = Context(
        repo,
        WikiTree(repo, tip.tree, cache),
        WikiTree(repo, base.tree, cache),
        None,
        "SKEPTICAL",
        config,
        make_judge(config, repo=repo, cache=cache, requested="offline"),
        cache=cache,
    )
    mine, pool = consistency._claims(ctx, config.consistency.max_candidates)
    _, unsure, _ = consistency._compared(mine, pool, config.consistency.max_candidates)
    text = pairs_text(consistency.pair_inputs(unsure))
    tokens = round(len(text) / config.judge.chars_per_token) + OUTPUT_PER_PAIR * len(unsure)
    return len(unsure), tokens


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("wiki", type=Path)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--check-only", action="store_true", help="no `wikigate health` figures")
    a = p.parse_args()
    rng = random.Random(30)
    checks = [Figure(f"consistency check of a 10-page run, {what}: wall") for what in PHASES]
    cpus = [Figure(f"consistency check of a 10-page run, {what}: CPU") for what in PHASES]
    cold = Figure("`wikigate health --format json`, cold (no verification cache)")
    warm = Figure("`wikigate health --format json`, warm")
    notes: list[str] = []
    figures = None
    for _ in range(a.repeat):
        with fresh_clone(a.wiki) as clone:
            if not a.check_only:
                took, proc = run(HEALTH, clone)
                cold.add(took)
                figures = json.loads(proc.stdout)["wiki"]
                took, _ = run(HEALTH, clone)
                warm.add(took)
            t0 = time.perf_counter()
            timed, found, pairs, tokens = check_seconds(clone, rng)
            for (wall, cpu), w, c in zip(timed, checks, cpus, strict=True):
                w.add(wall)
                c.add(cpu)
            notes.append(
                f"{found} findings, {pairs} pairs for the judge (~{tokens} tokens); "
                f"setup {time.perf_counter() - t0:.1f}s"
            )
    for figure in (*checks, *cpus, *(() if a.check_only else (cold, warm))):
        print(figure)
    if figures is not None:
        print("health:", json.dumps(figures))
    print("the run:", "; ".join(notes))
    median = statistics.median(checks[1].times) * 1000
    print(f"median check, index derived: {median:.0f} ms (goal < 200 ms)")


if __name__ == "__main__":
    main()
