"""Time the claim ledger as a user meets it: ``wikigate claims`` building it from scratch on
a fresh clone, then bringing it up to date after a 10-page commit to main.

    python benchmarks/make_wiki.py /tmp/w10k --pages 10000 --citations 100000 --raw-mb 1024
    python benchmarks/ledger.py /tmp/w10k [--repeat 5]

Each repeat: a fresh ``git clone --no-local`` (no cache, no telemetry); ``wikigate claims
--page wiki/index.md`` (whole command: the build of every claim's row is the cost, the
listing is one page's); then 10 pages edited and committed to main with git, and the same
command again (the update). The command's own line on stderr says how many pages the
update read; the script checks it read exactly the 10. Last, the whole ledger listed as
CSV from the up-to-date database.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from harness import Figure, command, fresh_clone, git, run

ARGV = [command("wikigate"), "claims", "--page", "wiki/index.md"]


def edit_ten(clone: Path, rng: random.Random) -> None:
    topics = sorted((clone / "wiki" / "topics").rglob("*.md"))
    chosen = rng.sample(topics, 10)
    for path in chosen:
        path.write_text(path.read_text().replace("## Details", "## Details\n\nEdited.", 1))
    git(
        clone,
        "-c",
        "user.name=bench",
        "-c",
        "user.email=bench@example.com",
        "commit",
        "-qam",
        "Ten pages edited",
    )


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("wiki", type=Path)
    p.add_argument("--repeat", type=int, default=5)
    a = p.parse_args()
    build = Figure("build from scratch, fresh clone (`wikigate claims --page wiki/index.md`)")
    update = Figure("update after a 10-page commit to main (same command)")
    listing = Figure("list every claim as CSV, ledger up to date (`wikigate claims --format csv`)")
    rng = random.Random(7)
    rows = 0
    for _ in range(a.repeat):
        with fresh_clone(a.wiki) as clone:
            took, proc = run(ARGV, clone)
            build.add(took)
            assert "rebuilt" in proc.stderr, proc.stderr
            edit_ten(clone, rng)
            took, proc = run(ARGV, clone)
            update.add(took)
            assert "1 commit, 10 pages read" in proc.stderr, proc.stderr
            took, proc = run([command("wikigate"), "claims", "--format", "csv"], clone)
            listing.add(took)
            rows = proc.stdout.count("\n") - 1
    for figure in (build, update, listing):
        print(figure)
    print(
        f"{rows} claims in the ledger; {build.median / max(rows, 1) * 1e6:.0f} µs a claim to build"
    )


if __name__ == "__main__":
    main()
