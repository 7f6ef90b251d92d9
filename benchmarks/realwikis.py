"""What the gate says about real agent-written wikis: statements per granularity, adopt's
dialects, findings before and after `adopt --write`, the offline judge's flags.

    python benchmarks/realwikis.py NAME=CHECKOUT[:PAGES[:RAW]] ... [--examples N]
        [--labels benchmarks/realwikis_labels.json] [--no-adopt] [--keep DIR]

Each argument is one wiki: a checkout of its repository (at the commit docs/checks.md
names), the folder of its pages inside it (default ``wiki``; ``.`` for a vault's root)
and of its sources (default ``raw``; empty for none). The script copies the pages to
``wiki/`` and the sources to ``raw/`` of a fresh workspace (``wikigate init``; folders
whose name starts with a dot and the sources folder are not pages), so that every wiki
is read as the gate reads a workspace, and reports:

- **statements**: for ``[statements] granularity`` = sentence, paragraph, page, the
  ``page.uncited`` and ``page.unsupported_statement`` findings of ``verify --all``;
  and the statements the rule sees on every page (what it would flag once the page
  cites), with a sample for reading by hand;
- **dev / held-out**: every figure twice, for the pages whose path hashes even (dev:
  the half a rule may be tuned against) and odd (held-out: read only to measure). The
  split is ``sha256(path under wiki/)[0] % 2``, fixed before anything was read;
- **adopt**: the dialect counts of the dry run, then the findings of ``verify --all``
  by code before and after ``adopt --write`` (on the temporary copy);
- **the offline judge**: ``citation.semantic_conflict`` after adopt, against the quoted
  citations adopt wrote (verbatim passages of the sources); each flag is listed.

``--labels FILE`` (JSON: ``[{"wiki", "page", "line", "label": "true"|"false", "why"}]``)
holds the hand classification of sampled statements and judge flags: the script prints
the false-flag rate over the labelled ones it meets. The output is deterministic: the
samples are the statements whose hash is lowest, not a random draw.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from wikigate.verifier.markdown import parse_page

GRANULARITIES = ("sentence", "paragraph", "page")
STATEMENT_CODES = ("page.uncited", "page.unsupported_statement")
MORE = re.compile(r"(\d+) more statements")


def half(rel: str) -> str:
    """dev or held-out: decided by the path alone, before reading the page."""
    return "dev" if hashlib.sha256(rel.encode()).digest()[0] % 2 == 0 else "held-out"


def wg(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "WIKIGATE_VERIFIER": ""}
    return subprocess.run(
        [sys.executable, "-m", "wikigate", "-C", str(ws), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ws,  # never a checkout of wikigate: PYTHONPATH chooses the code measured
    )


def git(ws: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(ws), "-c", "user.name=bench", "-c", "user.email=b@x", *args],
        check=True,
        capture_output=True,
    )


def build(into: Path, checkout: Path, pages: str, raw: str) -> Path:
    """A workspace holding the wiki's pages under wiki/ and its sources under raw/."""
    ws = into / "ws"
    src = checkout / pages
    for path in sorted(src.rglob("*.md")):
        rel = path.relative_to(src)
        top = rel.parts[0]
        if any(p.startswith(".") for p in rel.parts) or (raw and pages == "." and top == raw):
            continue
        dest = ws / "wiki" / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest)
    if raw and (checkout / raw).is_dir():
        shutil.copytree(checkout / raw, ws / "raw", ignore=shutil.ignore_patterns(".*"))
    git(ws, "init", "-q", "-b", "main")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "the wiki as published")
    made = wg(ws, "init", str(ws))
    if made.returncode:
        raise SystemExit(f"wikigate init failed: {made.stderr}")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "--allow-empty", "-m", "wikigate init")
    return ws


def set_granularity(ws: Path, value: str) -> None:
    toml = ws / "wikigate.toml"
    text = re.sub(r"\n\[statements\]\ngranularity = \"\w+\"\n", "\n", toml.read_text())
    toml.write_text(text + f'\n[statements]\ngranularity = "{value}"\n')
    git(ws, "commit", "-qam", f"granularity {value}")


def findings(ws: Path, ref: str = "HEAD") -> list[dict[str, object]]:
    proc = wg(ws, "verify", "--all", ref, "--format", "json")
    if proc.returncode not in (0, 1, 3, 5):
        raise SystemExit(f"verify --all failed ({proc.returncode}): {proc.stderr[-2000:]}")
    found: list[dict[str, object]] = json.loads(proc.stdout)["findings"]
    return found


def counted(f: dict[str, object]) -> int:
    """A finding that counts the statements past the first 20 of a page stands for them."""
    more = MORE.search(str(f.get("message", "")))
    return int(more.group(1)) if f["code"] == "page.unsupported_statement" and more else 1


def by_half(found: list[dict[str, object]], codes: tuple[str, ...]) -> Counter[str]:
    out: Counter[str] = Counter()
    for f in found:
        path = str(f.get("path") or "")
        if f["code"] in codes and path.startswith("wiki/"):
            out[half(path[5:])] += counted(f)
    return out


def key(*parts: object) -> str:
    return hashlib.sha256("\0".join(map(str, parts)).encode()).hexdigest()


def statements(ws: Path, name: str, examples: int) -> tuple[Counter[str], list[tuple[str, ...]]]:
    """Every statement the rule sees, by half, and the lowest-hashed ``examples`` of each."""
    seen: Counter[str] = Counter()
    every: list[tuple[str, ...]] = []
    for path in sorted((ws / "wiki").rglob("*.md")):
        rel = path.relative_to(ws / "wiki").as_posix()
        if rel in ("index.md", "log.md"):
            continue
        page = parse_page("wiki/" + rel, path.read_text(encoding="utf-8", errors="replace"))
        for s in page.statements:
            seen[half(rel)] += 1
            every.append((key(name, rel, s.line, s.text), half(rel), rel, str(s.line), s.text))
    every.sort()
    sample = [e for h in ("dev", "held-out") for e in [x for x in every if x[1] == h][:examples]]
    return seen, sample


def codes(found: list[dict[str, object]]) -> Counter[str]:
    out: Counter[str] = Counter()
    for f in found:
        out[str(f["code"])] += counted(f)
    return out


def adopt_forms(out: str) -> list[tuple[int, str]]:
    """The dry run's dialect counts: lines ``   N  form`` before the first example."""
    return [(int(m[1]), m[2]) for m in re.finditer(r"^ {4,}(\d+)  (\S.*)$", out, re.M)]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("wikis", nargs="+", help="NAME=CHECKOUT[:PAGES[:RAW]]")
    p.add_argument("--examples", type=int, default=10, help="statements sampled per half")
    p.add_argument("--labels", type=Path, help="hand classification (JSON)")
    p.add_argument("--no-adopt", action="store_true", help="skip adopt and the judge")
    p.add_argument("--keep", type=Path, help="build the workspaces here and keep them")
    a = p.parse_args()
    labels = {
        (x["wiki"], x["page"], int(x["line"])): x
        for x in (json.loads(a.labels.read_text()) if a.labels else [])
    }
    marked: Counter[tuple[str, str, str]] = Counter()  # (what, half, label)
    rows, samples, adopt_rows, judged = [], [], [], []
    for spec in a.wikis:
        name, _, where = spec.partition("=")
        checkout, pages, raw = (where.split(":") + ["wiki", "raw"])[:3]
        tmp = a.keep / name if a.keep else Path(tempfile.mkdtemp(prefix="realwikis-"))
        ws = build(tmp, Path(checkout), pages, raw)
        t = time.perf_counter()
        seen, sample = statements(ws, name, a.examples)
        every = len(list((ws / "wiki").rglob("*.md")))
        flagged = {}
        for g in GRANULARITIES:
            set_granularity(ws, g)
            flagged[g] = by_half(findings(ws), STATEMENT_CODES)
        set_granularity(ws, "sentence")
        for h in ("dev", "held-out"):
            rows.append(
                f"| {name} | {h} | {seen[h]} | "
                + " | ".join(str(flagged[g][h]) for g in GRANULARITIES)
                + " |"
            )
        for _, h, rel, line, text in sample:
            label = labels.get((name, rel, int(line)), {})
            if label:
                marked["statement", h, label["label"]] += 1
            tag = f"[{label['label']} flag: {label.get('why', '')}] " if label else ""
            samples.append(f"- {name} ({h}) {rel}:{line}: {tag}{text[:160]}")
        if not a.no_adopt:
            dry = wg(ws, "adopt")
            forms = adopt_forms(dry.stdout)
            before = codes(findings(ws))
            wrote = wg(ws, "adopt", "--write")
            git(ws, "checkout", "-qf", "main")
            run = re.search(
                r"^(committed|revise|rejected|needs_human_review) (\S+)", wrote.stdout, re.M
            )
            # a run that did not land is read on its branch: the wiki as adopt wrote it
            ref = f"wikigate/runs/{run[2]}" if run and run[1] != "committed" else "main"
            after = codes(findings(ws, ref))
            rewritten = re.search(r"(\d+) definitions? rewritten", wrote.stdout)
            verdict = run[1] if run else "no run: nothing to rewrite"
            adopt_rows.append((name, every, forms, before, after, rewritten, verdict))
            if ref != "main":
                git(ws, "checkout", "-qf", ref)
            quoted = sum(
                1
                for path in (ws / "wiki").rglob("*.md")
                for d in parse_page("wiki/x.md", path.read_text(errors="replace")).definitions
                if d.citation is not None and d.citation.quote
            )
            git(ws, "checkout", "-qf", "main")
            flags = [
                f
                for f in findings(ws, ref)
                if f["code"] == "citation.semantic_conflict"
                and str(f.get("path", "")).startswith("wiki/")
            ]
            for f in flags:
                rel = str(f["path"])[5:]
                label = labels.get((name, rel, int(str(f.get("line") or 0))), {})
                if label:
                    marked["judge", half(rel), label["label"]] += 1
            judged.append((name, quoted, flags))
        print(f"{name}: {time.perf_counter() - t:.1f}s", file=sys.stderr)
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)

    print("## Statements: what the rule sees, and what each granularity flags\n")
    print("| wiki | half | statements on all pages | `sentence` | `paragraph` | `page` |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    print("\n(each granularity: page.uncited + page.unsupported_statement findings)\n")
    print("## Sampled statements (lowest hash per half)\n")
    print("\n".join(samples))
    for what in ("statement", "judge"):
        for h in ("dev", "held-out"):
            t, f = marked[what, h, "true"], marked[what, h, "false"]
            if t + f:
                print(f"\n{what} flags labelled by hand, {h}: {f} false of {t + f}")
    for name, every, forms, before, after, rewritten, verdict in adopt_rows:
        print(f"\n## adopt: {name} ({every} pages)\n")
        for n, form in forms:
            print(f"- {n} {form}")
        print(f"- rewritten by --write: {rewritten.group(1) if rewritten else 0} ({verdict})\n")
        print("| code | before | after adopt --write |\n|---|---|---|")
        for code in sorted(set(before) | set(after)):
            print(f"| `{code}` | {before[code]} | {after[code]} |")
    for name, quoted, flags in judged:
        print(f"\n## offline judge: {name}: {len(flags)} flags on {quoted} quoted citations\n")
        for f in flags:
            print(f"- {f['path']}:{f.get('line')}: {str(f['message'])[:300]}")


if __name__ == "__main__":
    main()
