"""The offline judge's rules before and after a change: the same conflicts on every input,
and what each version costs (issue 25's "identical verdicts", docs/benchmarks.md).

    python benchmarks/rules_same.py record /tmp/w1k /tmp/inputs.pickle   # a cold verify's calls
    git show main:verifier/judges/offline.py > /tmp/before.py
    python benchmarks/rules_same.py compare /tmp/before.py /tmp/inputs.pickle

``record`` runs a cold ``wikigate verify --all`` of a wiki (a fresh clone: its cache is
removed first) in this process and keeps every call of the rules (``conflicts``) the
semantic check made. ``compare`` runs the rules of both versions on those calls, on the
corpus of faithful and unfaithful claims (tests/support/semantic_cases.py, each case with
and without its window, as benchmarks/judge.py runs them) and on real prose (Python's
reference manual, as judge.py's prose figures), and checks that every call gives the same
conflicts and ``read_words`` the same words; it prints the CPU time each version took.
Exit 1 on any difference, naming the first few.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import pickle
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

Call = tuple[tuple[Any, ...], dict[str, Any]]


def record(wiki: Path, out: Path) -> None:
    from wikigate.cli import main
    from wikigate.verifier.checks import semantic

    calls: list[Call] = []
    rules = semantic.conflicts

    def recording(*args: Any, **kwargs: Any) -> Any:
        calls.append((args, kwargs))
        return rules(*args, **kwargs)

    semantic.conflicts = recording  # type: ignore[assignment]
    os.environ["WIKIGATE_WORKERS"] = "0"  # every call in this process
    shutil.rmtree(wiki / ".git" / "wikigate", ignore_errors=True)
    os.chdir(wiki)
    sys.argv = ["wikigate", "verify", "--all", "--format", "json", "--output", os.devnull]
    with contextlib.suppress(SystemExit):
        main()
    out.write_bytes(pickle.dumps(calls))
    print(f"{len(calls)} calls of the rules recorded in {out}")


def corpus_calls() -> list[Call]:
    """The corpus cases (alone and with their window) and real prose, as judge.py runs them."""
    from support.semantic_cases import FAITHFUL, UNFAITHFUL

    from wikigate.config import JudgeSection
    from wikigate.verifier.judges.offline import source_label

    w = JudgeSection().window_chars
    calls: list[Call] = []
    for c in [*FAITHFUL, *UNFAITHFUL]:
        calls.append(((c.claim, c.quote, "", ""), {}))
        at = c.source.index(c.quote)
        start = max(0, at - w)
        around = c.source[start : at + len(c.quote) + w]
        label = source_label(c.path, c.source)
        calls.append(((c.claim, c.quote, around, label), {}))
        calls.append(((c.claim, c.quote, around, label), {"at": at - start}))
    import pydoc_data.topics as topics

    for name, text in sorted(topics.topics.items()):
        src = " ".join(text.split())
        for m in re.finditer(r"[A-Z][^.!?]*[.!?](?=\s+[A-Z]|$)", src):
            sentence = m.group(0)
            words = sentence.split()
            if not 8 <= len(words) <= 50:
                continue
            quote = " ".join(words[len(words) // 2 :])
            at = m.start() + sentence.index(quote)
            window = src[max(0, at - w) : at + len(quote) + w]
            label = source_label(f"raw/{name}.txt", src)
            calls.append(((sentence, quote, window, label), {}))
            calls.append(((sentence, quote), {"row": f"| {sentence} | estimated |"}))
    return calls


def load(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location("rules_before", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["rules_before"] = module
    spec.loader.exec_module(module)
    return module


def run(module: Any, calls: list[Call]) -> tuple[list[list[str]], float]:
    start = time.process_time()
    out = [[k.describe() for k in module.conflicts(*a, **kw)] for a, kw in calls]
    return out, time.process_time() - start


def compare(before: Path, recorded: list[Path]) -> int:
    from wikigate.verifier.judges import offline as after

    old = load(before)
    sets = {"corpus and prose": corpus_calls()}
    for path in recorded:
        sets[str(path)] = pickle.loads(path.read_bytes())
    differ = 0
    for name, calls in sets.items():
        # each version twice, alternating, on fresh memos: the second run is the timed one
        for module in (old, after, old, after):
            getattr(module, "forget", lambda: None)()
            a, ta = run(module, calls)
            if module is old:
                expected, t_old = a, ta
            else:
                got, t_new = a, ta
        bad = [i for i, (e, g) in enumerate(zip(expected, got, strict=True)) if e != g]
        texts = {t for a, _ in calls for t in a[:3] if isinstance(t, str)}
        words_bad = [t for t in texts if old.read_words(t) != after.read_words(t)]
        flagged = sum(bool(e) for e in expected)
        print(
            f"{name}: {len(calls)} calls ({flagged} flagged), {len(bad)} differ; "
            f"read_words on {len(texts)} texts, {len(words_bad)} differ; CPU before "
            f"{t_old:.2f} s, after {t_new:.2f} s ({t_old / max(t_new, 1e-9):.1f}x)"
        )
        for i in bad[:5]:
            print(f"    {calls[i][0][:2]!r}: before {expected[i]}, after {got[i]}")
        for t in words_bad[:5]:
            print(f"    read_words({t[:80]!r}) differs")
        differ += len(bad) + len(words_bad)
    return 1 if differ else 0


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record", help="a cold verify --all's calls of the rules")
    r.add_argument("wiki", type=Path)
    r.add_argument("out", type=Path)
    c = sub.add_parser("compare", help="another version's rules on the same calls")
    c.add_argument("before", type=Path, help="another version of verifier/judges/offline.py")
    c.add_argument("recorded", type=Path, nargs="*", help="calls kept by `record`")
    a = p.parse_args()
    if a.cmd == "record":
        record(a.wiki.resolve(), a.out.resolve())
    else:
        sys.exit(compare(a.before, a.recorded))


if __name__ == "__main__":
    main()
