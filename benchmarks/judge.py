"""Figures for the semantic judge (docs/judge.md).

    python benchmarks/judge.py            # against the Messages API emulator on 127.0.0.1
    python benchmarks/judge.py --real     # against the real API (ANTHROPIC_API_KEY; costs money)

1. A 50-citation run over 5 sources, judged by the anthropic judge: the input tokens the
   server received (uncached, cache writes, cache reads) as the judge sends them (one
   request per source, the source block cached), against one request per citation (the
   same requests with ``max_claims_per_request = 1``), and against per-citation requests
   with no source block at all.  Goal: at least 5x fewer than one request per citation.
   With ``--real`` the same run goes to the real API: tokens and dollars as billed.
2. The offline heuristic's catches and false flags: on the corpus of faithful and unfaithful
   claims of the tests (tests/support/semantic_cases.py), its development and held-out
   halves apart; and its false flags on faithful wikis: the bundled demo wiki, a
   benchmark wiki (benchmarks/make_wiki.py) and part 1's pages.

    python benchmarks/judge.py --heuristic   # part 2 only
    git show ca59fb7:verifier/judges/offline.py > /tmp/before.py
    python benchmarks/judge.py --heuristic --rules /tmp/before.py   # before issue 24
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

import pygit2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from support.anthropic_emulator import AnthropicEmulator  # noqa: E402
from support.semantic_cases import FAITHFUL, UNFAITHFUL, Case, half  # noqa: E402
from support.trees import commit_files  # noqa: E402

from wikigate.config import Config, JudgeSection  # noqa: E402
from wikigate.verifier.citation import format_tail  # noqa: E402
from wikigate.verifier.judges.offline import conflicts, needs_source, source_label  # noqa: E402
from wikigate.verify import Request, Verification, verify  # noqa: E402

SOURCES = 5
PER_SOURCE = 10
SOURCE_CHARS = 24_000  # a long article, ~6,000 tokens
WORDS = [
    "committee",
    "council",
    "report",
    "budget",
    "phase",
    "plan",
    "bridge",
    "river",
    "harbour",
    "district",
    "survey",
    "engineer",
    "mayor",
    "school",
    "railway",
    "station",
    "tunnel",
    "market",
    "museum",
    "library",
    "hospital",
]


def sentence(rng: random.Random, n: int) -> str:
    a, b, c = rng.sample(WORDS, 3)
    return (
        f"In {1990 + n % 30} the {a} reviewed the {b} and reported {rng.randint(2, 99)} "
        f"findings about the {c} of section {n}."
    )


def make_run(repo: pygit2.Repository) -> tuple[pygit2.Commit, pygit2.Commit]:
    rng = random.Random(7)
    files: dict[str, str] = {}
    pages: dict[str, str] = {}
    for s in range(SOURCES):
        sentences, n = [], 0
        while sum(len(x) + 1 for x in sentences) < SOURCE_CHARS:
            sentences.append(sentence(rng, s * 1000 + n))
            n += 1
        text = "\n".join(" ".join(sentences[i : i + 4]) for i in range(0, len(sentences), 4))
        path = f"raw/source-{s}.txt"
        files[path] = text
        picked = rng.sample(sentences, PER_SOURCE)
        body = " ".join(f"{q[:-1]}, the minutes say.[^{k}]" for k, q in enumerate(picked, 1))
        defs = "\n".join(
            f"[^{k}]: {format_tail(path, None, q, text.find(q))}" for k, q in enumerate(picked, 1)
        )
        pages[f"wiki/topic-{s}.md"] = (
            f"---\ntitle: Topic {s}\n---\n# Topic {s}\n\n{body}\n\n{defs}\n"
        )
    base = commit_files(repo, None, files)
    return base, commit_files(repo, base.id, pages)


def judge_run(repo: pygit2.Repository, base: Any, tip: Any, **cfg: Any) -> Verification:
    config = Config(judge=JudgeSection(provider="anthropic", max_tool_turns=0, **cfg))
    # no cache_path: no judgment cache
    return verify(Request(repo, tip, base, rules=config))


def received(emu: AnthropicEmulator) -> tuple[int, int, int, int]:
    """(requests, input tokens in all, of them cache reads, cache writes), as counted."""
    total = sum(
        u["input_tokens"] + u["cache_creation_input_tokens"] + u["cache_read_input_tokens"]
        for u in emu.usages
    )
    reads = sum(u["cache_read_input_tokens"] for u in emu.usages)
    writes = sum(u["cache_creation_input_tokens"] for u in emu.usages)
    return len(emu.usages), total, reads, writes


def tokens_part() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = pygit2.init_repository(str(Path(tmp) / "r"), bare=True)
        base, tip = make_run(repo)
        rows = []
        for label, cfg, no_block in (
            ("one request per source (the judge)", {}, False),
            ("one request per citation", {"max_claims_per_request": 1}, False),
            ("per citation, no source block", {"max_claims_per_request": 1}, True),
        ):
            emu = AnthropicEmulator()
            os.environ["ANTHROPIC_BASE_URL"] = emu.url
            os.environ["ANTHROPIC_API_KEY"] = "benchmark-key"
            if no_block:
                cfg = {**cfg, "source_block_chars": 1000, "source_span_chars": 0}
            done = judge_run(repo, base, tip, **cfg)
            assert done.report.judge is not None
            votes = done.report.judge.votes
            assert len(votes) == SOURCES * PER_SOURCE and all(v.vote == "supports" for v in votes)
            rows.append((label, *received(emu), done.report.judge.usage.usd))
            emu.close()
        print(f"{SOURCES * PER_SOURCE} citations over {SOURCES} sources of ~{SOURCE_CHARS:,} chars")
        print(
            "| requests | input tokens received | of them cache reads | cache writes | USD (price table) | mode |"
        )
        print("|---|---|---|---|---|---|")
        for label, n, total, reads, writes, usd in rows:
            print(f"| {n} | {total:,} | {reads:,} | {writes:,} | ${usd:.4f} | {label} |")
        print(f"per citation / per source: {rows[1][2] / rows[0][2]:.1f}x the input tokens")


def real_part() -> None:
    if not os.environ.get("ANTHROPIC_API_KEY"):
        sys.exit("--real needs ANTHROPIC_API_KEY")
    with tempfile.TemporaryDirectory() as tmp:
        repo = pygit2.init_repository(str(Path(tmp) / "r"), bare=True)
        base, tip = make_run(repo)
        done = judge_run(repo, base, tip)
        j = done.report.judge
        assert j is not None
        u = j.usage
        counts: dict[str, int] = {}
        for v in j.votes:
            counts[v.vote] = counts.get(v.vote, 0) + 1
        print(
            f"real API, model {j.model}: {u.requests} requests, {u.input_tokens:,} uncached + "
            f"{u.cache_write_tokens:,} cache-write + {u.cache_read_tokens:,} cache-read input "
            f"tokens, {u.output_tokens:,} output tokens, ${u.usd:.4f}; votes {counts}"
        )


# --rules FILE: another version of verifier/judges/offline.py (its conflicts, needs_source)
RULES: list[Any] = [conflicts, needs_source]


def load_rules(path: Path) -> None:
    """The ``conflicts`` of another version of the rules (``git show REV:verifier/
    heuristic.py > FILE``): the corpus and prose figures of that version."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("other_heuristic", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["other_heuristic"] = module
    spec.loader.exec_module(module)
    import inspect

    other = module.conflicts
    RULES[1] = getattr(module, "needs_source", lambda *_: True)
    if len(inspect.signature(other).parameters) < 4:  # before attribution: no source
        RULES[0] = lambda claim, quote, window, _source: other(claim, quote, window)
    else:
        RULES[0] = other


def case_conflicts(c: Case) -> list[Any]:
    """The rules on one corpus case, as the offline judge runs them in a verification:
    the source around the quote read only when ``needs_source`` says it can change the
    verdict (a quote that ends its sentence is read alone)."""
    alone = list(RULES[0](c.claim, c.quote, "", ""))
    if not RULES[1](c.claim, c.quote, alone):
        return alone
    at = c.source.index(c.quote)
    w = JudgeSection().window_chars
    around = c.source[max(0, at - w) : at + len(c.quote) + w]
    return list(RULES[0](c.claim, c.quote, around, source_label(c.path, c.source)))


def prose_figures() -> None:
    """Faithful by construction, on real prose: each plain sentence of Python's reference
    manual (``pydoc_data.topics``, shipped with Python) restated whole as the claim, citing
    its second half as the quote, the source around it as the window.  A flag is a claim
    word the quote lacks outside its clause (a "not" or an "only" in the first half), or a
    false flag of the rules that read the quote's clause."""
    import collections
    import pydoc_data.topics as topics
    import re

    w = JudgeSection().window_chars
    n, flagged, kinds = 0, 0, collections.Counter()
    for name, text in sorted(topics.topics.items()):
        src = " ".join(text.split())
        for m in re.finditer(r"[A-Z][^.!?]*[.!?](?=\s+[A-Z]|$)", src):
            sentence = m.group(0)
            words = sentence.split()
            if not 8 <= len(words) <= 50 or re.search(r"[(){}\[\]=<>*`:]|\.\.\.", sentence):
                continue  # code, lists and fragments: not prose
            quote = " ".join(words[len(words) // 2 :])
            at = m.start() + sentence.index(quote)
            window = src[max(0, at - w) : at + len(quote) + w]
            found = RULES[0](sentence, quote, window, source_label(f"raw/{name}.txt", src))
            n += 1
            flagged += bool(found)
            kinds.update({k.kind for k in found})
    print(
        f"heuristic, real prose (Python {sys.version_info.major}.{sys.version_info.minor} "
        f"reference manual): {n} sentences citing their second half, {flagged} flagged "
        f"({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))})"
    )


def corpus_figures(show_held_out: bool = False) -> dict[str, tuple[int, int, int, int]]:
    """Per half of the corpus: (unfaithful caught, unfaithful, faithful flagged, faithful).
    What was missed or flagged is printed for the development half only: the held-out
    half is measured, not looked at while tuning (``--show-held-out`` prints it)."""
    out = {}
    for name in ("dev", "held-out"):
        faithful = [c for c in FAITHFUL if half(c) == name]
        unfaithful = [c for c in UNFAITHFUL if half(c) == name]
        flags = [c for c in faithful if case_conflicts(c)]
        caught = [c for c in unfaithful if case_conflicts(c)]
        out[name] = (len(caught), len(unfaithful), len(flags), len(faithful))
        print(
            f"heuristic, corpus {name} half: {len(caught)} of {len(unfaithful)} unfaithful "
            f"claims caught, {len(flags)} of {len(faithful)} faithful claims flagged"
        )
        if name == "held-out" and not show_held_out:
            continue
        for c in unfaithful:
            if c not in caught:
                print(f"    missed: {c.wrong}: {c.claim!r} / {c.quote!r}")
        for c in flags:
            print(f"    false flag: {c.claim!r}: {[k.describe() for k in case_conflicts(c)]}")
    return out


def wiki_flags(ws: Any) -> tuple[int, list[str]]:
    """A whole wiki's main verified offline: its citations, and the semantic flags."""
    from wikigate.changes import change_request

    report = verify(change_request(ws, "main", whole=True)).report
    semantic = [
        f"{f.path}:{f.line}: {f.message}"
        for f in report.findings
        if f.code == "citation.semantic_conflict"
    ]
    return report.summary.citations, semantic


def heuristic_part(show_held_out: bool = False, rules: Path | None = None) -> None:
    if rules is not None:
        load_rules(rules)
    corpus_figures(show_held_out)
    prose_figures()
    if rules is not None:
        return  # the wikis are verified by the installed rules only
    import subprocess

    from wikigate.demo import run_demo
    from wikigate.workspace import Workspace

    with tempfile.TemporaryDirectory() as tmp:
        run_demo(Path(tmp) / "demo", lambda _line: None)
        ws = Workspace.open(Path(tmp) / "demo")
        cited, flags = wiki_flags(ws)
        ws.close()
        print(
            f"heuristic, bundled demo wiki (main, every page): {cited} faithful citations, "
            f"{len(flags)} flagged"
        )
        for f in flags:
            print(f"    {f}")
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "benchmarks" / "make_wiki.py"),
                str(Path(tmp) / "bench"),
                "--pages",
                "200",
                "--citations",
                "2000",
                "--raw-mb",
                "20",
            ],
            check=True,
            capture_output=True,
        )
        ws = Workspace.open(Path(tmp) / "bench")
        cited, flags = wiki_flags(ws)
        ws.close()
        print(
            f"heuristic, benchmark wiki (benchmarks/make_wiki.py, 200 pages): {cited} "
            f"faithful citations, {len(flags)} flagged"
        )
        for f in flags[:20]:
            print(f"    {f}")
        repo = pygit2.init_repository(str(Path(tmp) / "r"), bare=True)
        base, tip = make_run(repo)
        report = verify(Request(repo, tip, base, rules=Config())).report
        flagged = [f for f in report.findings if f.code == "citation.semantic_conflict"]
        print(
            f"heuristic, judge benchmark run (part 1's pages): {report.summary.citations} "
            f"faithful citations, {len(flagged)} flagged"
        )


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--real", action="store_true", help="the real API (ANTHROPIC_API_KEY)")
    p.add_argument("--heuristic", action="store_true", help="part 2 only (no emulator)")
    p.add_argument(
        "--show-held-out", action="store_true", help="print the held-out half's misses too"
    )
    p.add_argument(
        "--rules",
        type=Path,
        help="another version of verifier/judges/offline.py: its corpus and prose figures",
    )
    a = p.parse_args()
    if a.real:
        real_part()
    elif not a.heuristic:
        tokens_part()
    heuristic_part(a.show_held_out, a.rules)


if __name__ == "__main__":
    main()
