"""How many statements each `[statements] granularity` flags on real wikis, and which.

    python benchmarks/statements.py FOLDER [FOLDER ...] [--examples N] [--seed S]
    python benchmarks/statements.py FOLDER ... --dump after.txt   # every statement, to diff

Each FOLDER is a wiki: every ``*.md`` under it is parsed as wikigate parses a page
(``wiki/index.md`` and ``wiki/log.md`` relative to FOLDER are structural, as in the gate).
For each setting it prints the findings the gate would give:

- ``page``: page.uncited, one per non-structural page that cites nothing;
- ``paragraph``: that, plus page.unsupported_statement for each statement of a citing
  page in a block holding no citation or gap marker;
- ``sentence``: that, plus each uncited statement of a citing page, whatever its block.

and, since the public llm-wiki pattern pages mostly cite nothing, what the statement rule
sees on every page: the statements it would flag if the page cited something, with
examples drawn at random (``--examples``) to read what they are. docs/checks.md holds
the figures for the wikis we measured.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from wikigate.verifier.markdown import ParsedPage, parse_page

STRUCTURAL = ("index.md", "log.md")


def pages(folder: Path) -> list[tuple[str, ParsedPage]]:
    out = []
    for path in sorted(folder.rglob("*.md")):
        rel = path.relative_to(folder).as_posix()
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        out.append((rel, parse_page("wiki/" + rel, text)))
    return out


def compare(folders: list[Path]) -> None:
    """Each block of each page cut by sentences.spans (the clear stops first, syntok for
    the rest) and by syntok alone (at a stop): the cuts must be the same."""
    from wikigate.verifier import sentences

    blocks = same = 0
    differ: list[str] = []
    real = sentences.spans

    def both(text: str, *, exact: bool = True) -> list[tuple[int, int]]:
        nonlocal blocks, same
        clean = sentences._hide(text)[0]
        if clean.strip():
            blocks += 1
            if sentences._cuts(clean) == sentences._syntok_cuts(clean, 0, len(clean)):
                same += 1
            elif len(differ) < 10:
                differ.append(" ".join(clean.split())[:200])
        return real(text, exact=exact)

    sentences.spans = both  # type: ignore[assignment]
    try:
        for folder in folders:
            pages(folder)
    finally:
        sentences.spans = real  # type: ignore[assignment]
    print(f"\nsegmentation: {same} of {blocks} blocks cut as syntok alone cuts them")
    for text in differ:
        print(f"- differs: {text}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("folders", nargs="+", type=Path)
    p.add_argument("--examples", type=int, default=8)
    p.add_argument("--seed", type=int, default=24)
    p.add_argument(
        "--dump",
        type=Path,
        help="write every statement the rule sees (wiki, page:line, text) to this file, to "
        "diff what a change of the rule adds or removes",
    )
    p.add_argument(
        "--compare",
        action="store_true",
        help="also check that sentences.spans cuts every block as syntok alone does",
    )
    a = p.parse_args()
    rng = random.Random(a.seed)
    print(
        "| wiki | pages | citing | statements (all pages) | page | paragraph | sentence | parse s |"
    )
    print("|---|---|---|---|---|---|---|---|")
    samples: list[tuple[str, str, int, str]] = []
    every_found: list[str] = []
    for folder in a.folders:
        t = time.perf_counter()
        parsed = [(rel, pg) for rel, pg in pages(folder) if rel not in STRUCTURAL]
        took = time.perf_counter() - t
        citing = [pg for _, pg in parsed if pg.refs or pg.gaps]
        uncited = sum(1 for _, pg in parsed if not pg.refs and (pg.bare or not pg.gaps))
        every = sum(len(pg.statements) for _, pg in parsed)
        paragraph = sum(1 for pg in citing for s in pg.statements if not s.covered)
        sentence = sum(len(pg.statements) for pg in citing)
        print(
            f"| {folder.name} | {len(parsed)} | {len(citing)} | {every} | {uncited} "
            f"| {uncited + paragraph} | {uncited + sentence} | {took:.2f} |"
        )
        found = [(folder.name, rel, s.line, s.text) for rel, pg in parsed for s in pg.statements]
        samples += rng.sample(found, min(a.examples, len(found)))
        every_found += [f"{name} {rel}:{line}: {text}" for name, rel, line, text in found]
    if a.dump:
        a.dump.write_text("".join(f"{line}\n" for line in every_found), encoding="utf-8")
    if a.compare:
        compare(a.folders)
    print("\nexamples of statements the rule sees (wiki, page:line, text):\n")
    for name, rel, line, text in samples:
        print(f"- {name} {rel}:{line}: {text[:140]}")


if __name__ == "__main__":
    main()
