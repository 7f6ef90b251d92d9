"""The offline judge on faithful, verbatim-quoted citations from two real wikis
(docs/checks.md#faithful-quotes-on-real-wikis).

    python benchmarks/judge_real.py kueue=KUEUE_GIT_DIR aisafety=AISAFETY_GIT_DIR
    python benchmarks/judge_real.py … --show-held-out          # print held-out flags too
    git show REV:verifier/judges/offline.py > /tmp/before.py
    python benchmarks/judge_real.py … --rules /tmp/before.py   # another version's rules

Each GIT_DIR is a clone's ``.git`` (or a bare mirror) of the repository below; it is read at
the commit below, never at its tip.  The wikis' text is not in this repository (kueue is
GPL-2.0, aisafety states no license): ``judge_real_triples.json`` holds only where each
triple is (repository, commit, page path, line, column of the quote on the line) and its
half, and this script rebuilds the triples from the checkouts and checks that it found
exactly those.

A triple: a quoted string of 3 or more words on a page line (outside front matter, code
fences, tables, headings, and the structural pages ``index.md`` and ``log.md``), cited by
the first wiki link after it on the line (else the nearest one before it) whose target is a
source kept in the repository that holds the quote verbatim.  The claim is the sentence(s)
holding the quote, cut by wikigate's segmenter, with every link of the line to a kept
source taken out (as wikigate builds a claim: the sentence without its reference marks).
Every triple is faithful (the quote is verbatim in the cited source; two random draws of 20
were checked by hand), so every flag is a false flag.

Split: ``sha256(f"{wiki}\\n{path}\\nL{line}:{quote}")[0] % 2`` (0: dev, 1: held-out), fixed
before any rule was judged or changed.  Rules are tuned on dev; held-out is only measured.
Judged as ``benchmarks/judge.py`` ``case_conflicts`` judges a corpus case.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import posixpath
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from judge import RULES, load_rules  # noqa: E402

from wikigate.config import JudgeSection  # noqa: E402
from wikigate.verifier.judges.offline import source_label  # noqa: E402
from wikigate.verifier.sentences import spans  # noqa: E402

MANIFEST = Path(__file__).with_name("judge_real_triples.json")
QUOTE = re.compile(r'"([^"\n]{12,400})"|“([^”\n]{12,400})”')
LINK = re.compile(
    r"\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]|\[([^\]]*)\]\(([^)#\s]+)(?:#[^)]*)?\)"
)


def git(git_dir: str, *args: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", git_dir, *args],
        capture_output=True,
        text=True,
        errors="replace",
        check=True,
    ).stdout


def half(wiki: str, path: str, line: int, quote: str) -> str:
    h = hashlib.sha256(f"{wiki}\n{path}\nL{line}:{quote}".encode()).digest()[0]
    return "dev" if h % 2 == 0 else "held-out"


def _plain(line: str) -> str:
    """A page line as a reader reads it: list and quote marks, emphasis, link syntax off."""
    s = re.sub(r"^\s*(?:[-*+]|\d+\.)\s+|^\s*>\s*", "", line)
    s = LINK.sub(lambda m: (m.group(2) or m.group(1)) if m.group(1) else m.group(3), s)
    return s.replace("**", "").replace("__", "")


def _link_text(m: re.Match[str]) -> str:
    return (m.group(2) or m.group(1)) if m.group(1) else m.group(3)


def extract(wiki: dict[str, Any], git_dir: str) -> list[dict[str, Any]]:
    """The wiki's triples at its commit (the module docstring says which)."""
    commit, source_prefix, page_prefix = wiki["commit"], wiki["sources"], wiki["pages"]
    files = git(git_dir, "ls-tree", "-r", "--name-only", commit, "--").splitlines()
    fset = set(files)
    by_stem: dict[str, list[str]] = collections.defaultdict(list)
    for f in files:
        if f.startswith(source_prefix):
            by_stem[f.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower()].append(f)
            by_stem[f.rsplit(".", 1)[0].lower()].append(f)

    def resolve(target: str, page: str) -> str | None:
        t = target.strip().replace("%20", " ")
        for c in (t, t + ".md", posixpath.normpath(posixpath.join(posixpath.dirname(page), t))):
            if c in fset and c.startswith(source_prefix):
                return c
        k = (t[:-3] if t.endswith(".md") else t).lower()
        for kk in (k, "wiki/" + k, k.rsplit("/", 1)[-1]):
            if len(set(by_stem.get(kk, []))) == 1:
                return by_stem[kk][0]
        return None

    sources: dict[str, str] = {}
    rows: list[dict[str, Any]] = []
    seen: set[tuple[str, int, str]] = set()
    for page in files:
        if not (page.startswith(page_prefix) and page.endswith(".md")):
            continue
        if page.startswith(source_prefix) or posixpath.basename(page) in ("index.md", "log.md"):
            continue
        text = git(git_dir, "show", f"{commit}:{page}")
        body_start = 0
        if text.startswith("---\n"):  # front matter: not prose
            end = text.find("\n---", 4)
            body_start = text.count("\n", 0, end + 4) + 1 if end > 0 else 0
        fence = False
        for ln, line in enumerate(text.splitlines(), 1):
            if line.lstrip().startswith("```"):
                fence = not fence
            if ln <= body_start or fence or line.lstrip().startswith(("|", "#")):
                continue
            for m in QUOTE.finditer(line):
                q = m.group(1) or m.group(2)
                if "[[" in q or "](" in q or len(q.split()) < 3:
                    continue
                links = list(LINK.finditer(line))
                after = [lk for lk in links if lk.start() >= m.end()]
                before = [lk for lk in links if lk.start() < m.start()][::-1]
                src = None
                for lk in after[:1] + before[:1]:
                    src = resolve(lk.group(1) or lk.group(4), page)
                    if src:
                        break
                if not src:
                    continue
                if src not in sources:
                    sources[src] = git(git_dir, "show", f"{commit}:{src}")
                if q not in sources[src] or (page, ln, q) in seen:
                    continue
                seen.add((page, ln, q))
                p = _plain(line)
                at = p.find(q)
                cut = [(a, b) for a, b in spans(p) if a < at + len(q) and b > at]
                claim = p[cut[0][0] : cut[-1][1]].strip() if cut else p.strip()
                for lk in links:  # every link to a kept source read as a reference mark
                    if resolve(lk.group(1) or lk.group(4), page):
                        claim = claim.replace(_link_text(lk), "", 1)
                claim = re.sub(r"\s*\(\s*[—-]?\s*\)", "", claim)
                claim = re.sub(r"\(\s*[,;—-]*\s*[,;]\s*", "(", claim)
                claim = re.sub(r"^\s*[:—-]\s*", "", " ".join(claim.split()))
                rows.append(
                    {
                        "wiki": wiki["name"],
                        "path": page,
                        "line": ln,
                        "column": m.start(),
                        "claim": claim,
                        "quote": q,
                        "source_path": src,
                        "source": sources[src],
                        "half": half(wiki["name"], page, ln, q),
                    }
                )
    return rows


def judge(row: dict[str, Any]) -> list[Any]:
    """As benchmarks/judge.py ``case_conflicts``: alone, then with the source around it."""
    claim, quote, text = row["claim"], row["quote"], row["source"]
    alone = list(RULES[0](claim, quote, "", ""))
    if not RULES[1](claim, quote, alone):
        return alone
    at = text.index(quote)
    w = JudgeSection().window_chars
    around = text[max(0, at - w) : at + len(quote) + w]
    return list(RULES[0](claim, quote, around, source_label(row["source_path"], text)))


_META = re.compile(
    r"\b((?:19|20)\d\d)\b|§\s*([\d.]+)|\b(?:Section|Sec\.|Table|Figure|Fig\.|Definition|"
    r"Theorem)\s+([\d.]+)|\[(\d+)\]|\((\d+)\)|\b(\d+(?:\.\d+)+)\b"
)


def cause(claim: str, c: Any) -> str:
    """A flag's class, read off the claim (for the report, not a rule)."""
    if c.kind == "number":
        meta = {g for m in _META.finditer(claim) for g in m.groups() if g}
        if all(n in meta for n in c.claim_words):
            return "number: a reference's number (year, section, list mark)"
        return "number: another figure of the sentence"
    if len(QUOTE.findall(claim)) > 1:
        return f"{c.kind}: the writer's words, in a sentence quoting several passages"
    return f"{c.kind}: the writer's words outside the quote"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("git_dirs", nargs="+", help="NAME=GIT_DIR for kueue and aisafety")
    ap.add_argument("--show-held-out", action="store_true")
    ap.add_argument("--rules", type=Path, help="another version of verifier/judges/offline.py")
    a = ap.parse_args()
    if a.rules is not None:
        load_rules(a.rules)
    dirs = dict(d.split("=", 1) for d in a.git_dirs)
    manifest = json.loads(MANIFEST.read_text())
    table: dict[tuple[str, str], list[Any]] = collections.defaultdict(
        lambda: [0, 0, collections.Counter()]
    )
    causes: collections.Counter[str] = collections.Counter()
    shown = []
    for wiki in manifest["wikis"]:
        rows = extract(wiki, dirs[wiki["name"]])
        found_ids = sorted([r["path"], r["line"], r["column"], r["half"]] for r in rows)
        if found_ids != sorted(wiki["triples"]):
            sys.exit(
                f"{wiki['name']}: the triples found differ from {MANIFEST.name}: is "
                f"{dirs[wiki['name']]} a clone of {wiki['repository']}?"
            )
        for r in rows:
            flags = judge(r)
            t = table[(r["wiki"], r["half"])]
            t[0] += 1
            t[1] += bool(flags)
            t[2].update(c.kind for c in flags)
            causes.update((r["half"], cause(r["claim"], c)) for c in flags)
            if flags and (r["half"] == "dev" or a.show_held_out):
                shown.append((r, flags))
    print("| wiki | half | faithful citations | flagged | kinds |")
    print("|---|---|---|---|---|")
    for half_name in ("dev", "held-out"):
        n = f = 0
        for (wiki_name, h), (judged, flagged, kinds) in sorted(table.items()):
            if h != half_name:
                continue
            k = ", ".join(f"{x} {y}" for x, y in sorted(kinds.items())) or "—"
            print(f"| {wiki_name} | {h} | {judged} | {flagged} ({flagged / judged:.1%}) | {k} |")
            n, f = n + judged, f + flagged
        print(f"| both | {half_name} | {n} | {f} ({f / max(n, 1):.1%}) | |")
    print("\nflags by class:")
    for (half_name, name), count in sorted(causes.items()):
        print(f"  {half_name}: {name}: {count}")
    for r, flags in shown:
        print(f"\n[{r['half']}] {r['wiki']} {r['path']}:{r['line']} -> {r['source_path']}")
        print(f"  claim: {r['claim'][:300]}")
        print(f"  quote: {r['quote'][:200]}")
        for c in flags:
            print(f"  flag:  {c.describe()}  [{cause(r['claim'], c)}]")


if __name__ == "__main__":
    main()
