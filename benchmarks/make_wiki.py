"""Generate a realistic wiki repository for benchmarks.

    python benchmarks/make_wiki.py OUT --pages 10000 --citations 100000 --raw-mb 1024

Raw sources of ~10 MB each under raw/, pages under wiki/ (reachable from wiki/index.md
through hub pages, each with cross links), every citation anchored at a real offset.
Everything is written as git objects with pygit2 and committed to main.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

import pygit2

from wikigate.gitrepo import signature
from wikigate.verifier.citation import format_tail
from wikigate.workspace import Workspace

WORDS = [
    "river",
    "bridge",
    "harbour",
    "council",
    "ledger",
    "survey",
    "quarry",
    "engine",
    "signal",
    "archive",
    "mineral",
    "season",
    "village",
    "treaty",
    "railway",
    "canal",
    "market",
    "chapel",
    "garrison",
    "voyage",
    "cargo",
    "orchard",
    "meadow",
    "lantern",
    "furnace",
    "charter",
    "granary",
    "tannery",
    "beacon",
    "estuary",
    "causeway",
    "foundry",
    "vessel",
    "pasture",
    "mill",
    "harvest",
    "timber",
    "copper",
    "weaver",
    "saddle",
    "anchor",
    "compass",
    "tide",
    "ferry",
    "lighthouse",
    "warehouse",
]


def text_chunk(rng: random.Random, size: int) -> str:
    words, n = [], 0
    while n < size:
        sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 16)))
        sentence = sentence.capitalize() + ". "
        words.append(sentence)
        n += len(sentence)
    return "".join(words)


def _respell(text: str, n: int) -> str:
    """Give every word a suffix of letters unique to ``n`` ("river" → "riverbc")."""
    tag = ""
    while True:
        n, r = divmod(n, 26)
        tag = "abcdefghijklmnopqrstuvwxyz"[r] + tag
        if not n:
            break
    for word in WORDS:
        text = text.replace(word, word + tag)
        text = text.replace(word.capitalize(), word.capitalize() + tag)
    return text


def build_tree(repo: pygit2.Repository, files: dict[str, pygit2.Oid]) -> pygit2.Oid:
    nested: dict = {}
    for path, oid in files.items():
        node = nested
        *dirs, name = path.split("/")
        for d in dirs:
            node = node.setdefault(d, {})
        node[name] = oid

    def write(node: dict) -> pygit2.Oid:
        tb = repo.TreeBuilder()
        for name, value in sorted(node.items()):
            if isinstance(value, dict):
                tb.insert(name, write(value), pygit2.GIT_FILEMODE_TREE)
            else:
                tb.insert(name, value, pygit2.GIT_FILEMODE_BLOB)
        return tb.write()

    return write(nested)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("out", type=Path)
    p.add_argument("--pages", type=int, default=1000)
    p.add_argument("--citations", type=int, default=10000)
    p.add_argument("--raw-mb", type=float, default=100)
    p.add_argument("--seed", type=int, default=7)
    a = p.parse_args()
    t0 = time.perf_counter()
    rng = random.Random(a.seed)
    ws = Workspace.init(a.out)
    repo = ws.repo
    base = repo[repo.references["refs/heads/main"].target]
    files: dict[str, pygit2.Oid] = {}
    for entry in base.tree:  # keep wikigate.toml etc.; index and log are rewritten below
        if entry.type_str == "blob":
            files[entry.name] = entry.id
    files["wiki/log.md"] = repo.create_blob(b"---\ntitle: Log\n---\n# Log\n")

    n_sources = max(1, round(a.raw_mb / 10))
    per_source = int(a.raw_mb * 2**20 / n_sources)
    chunks = [text_chunk(rng, 2**20) for _ in range(min(8, n_sources))]
    sources: list[tuple[str, str]] = []
    for i in range(n_sources):
        header = f"Source {i}: a generated record, seed {a.seed}.\n\n"
        # every source has its own spelling of the vocabulary, so sources do not share
        # text (real sources don't), and a clone's pack does not store them as deltas
        body = _respell(chunks[i % len(chunks)], i)
        text = (header + body * (per_source // len(body) + 1))[:per_source]
        path = f"raw/source-{i:04d}.txt"
        files[path] = repo.create_blob(text.encode())
        sources.append((path, text))
    print(
        f"raw: {n_sources} sources, {sum(len(t) for _, t in sources) / 2**20:.0f} MB "
        f"({time.perf_counter() - t0:.1f}s)"
    )

    per_page = max(1, a.citations // a.pages)
    names = [f"page-{i:05d}" for i in range(a.pages)]
    hubs = [names[i : i + 100] for i in range(0, a.pages, 100)]
    for h, members in enumerate(hubs):
        links = "\n".join(f"- [[{m}]]" for m in members)
        files[f"wiki/hubs/hub-{h:03d}.md"] = repo.create_blob(
            f"---\ntitle: Hub {h}\n---\n# Hub {h}\n\n{links}\n".encode()
        )
    index = "\n".join(f"- [[Hub {h}]]" for h in range(len(hubs)))
    files["wiki/index.md"] = repo.create_blob(
        f"---\ntitle: Index\n---\n# Index\n\n{index}\n".encode()
    )
    for i, name in enumerate(names):
        body, defs = [], []
        for k in range(1, per_page + 1):
            path, text = rng.choice(sources)
            start = text.find(" ", rng.randrange(0, len(text) - 200)) + 1
            end = text.rfind(" ", start + 40, start + 120)
            quote = text[start:end]
            body.append(f"The record states that {quote.lower()}.[^{k}]")
            defs.append(f"[^{k}]: {format_tail(path, None, quote, start)}")
        see = " ".join(f"[[{rng.choice(names)}]]" for _ in range(2))
        page = (
            f"---\ntitle: Page {i}\naliases: [{name}]\n---\n# Page {i}\n\n"
            + " ".join(body[: per_page // 2])
            + "\n\n## Details\n\n"
            + " ".join(body[per_page // 2 :])
            + f"\n\nSee also {see}.\n\n"
            + "\n".join(defs)
            + "\n"
        )
        files[f"wiki/topics/{i // 100:03d}/{name}.md"] = repo.create_blob(page.encode())
    sig = signature(repo)
    tree = build_tree(repo, files)
    commit = repo.create_commit(None, sig, sig, "benchmark wiki\n", tree, [base.id])
    repo.references["refs/heads/main"].set_target(commit)
    repo.checkout_head(strategy=pygit2.enums.CheckoutStrategy.FORCE)
    ws.close()
    print(
        f"wiki: {a.pages} pages, {a.pages * per_page} citations at {a.out} "
        f"({time.perf_counter() - t0:.1f}s)"
    )


if __name__ == "__main__":
    main()
