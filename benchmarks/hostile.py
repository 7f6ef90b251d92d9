"""Hostile input: the time and peak memory of verifying each hostile case at 1×, 10× and
100× its size (docs/benchmarks.md, "Hostile input"; issue 23).

    python benchmarks/hostile.py [--only tree-bomb,pdf-repeated] [--scales 1,10,100]

Each figure is one verification (``wikigate.verify``, the base's default rules) in a fresh
process (``hostile.py --one CASE SCALE``): the wall time of the verification alone (the
repository is built first), the peak RSS of that process (``ru_maxrss``, the building
included) and the peak RSS of the processes it started (the PDF box). A case is a row of
``CASES``: its name, what it is at 1×, and how to build its commit at a scale; a new
hostile input is a new row.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pygit2

from wikigate.config import Config
from wikigate.gitrepo import tree_with
from wikigate.verifier.citation import format_tail
from wikigate.verify import Request, verify

NOTES = "Minutes of the meeting.\nThe committee rejected the plan by seven votes to two.\n"
QUOTE = "The committee rejected the plan by seven votes to two."
INDEX = "---\ntitle: Index\n---\n# Index\n\n- [[Notes]]\n"
SIG = pygit2.Signature("bench", "bench@example.invalid")


def commit(
    repo: pygit2.Repository, parent: pygit2.Commit | None, tree: pygit2.Oid
) -> pygit2.Commit:
    parents = [parent.id] if parent is not None else []
    return repo[repo.create_commit(None, SIG, SIG, "bench\n", tree, parents)]


def with_files(
    repo: pygit2.Repository, parent: pygit2.Commit | None, files: dict[str, bytes]
) -> pygit2.Commit:
    tree = parent.tree if parent is not None else repo[repo.TreeBuilder().write()]
    tree_id = tree.id
    for path, data in files.items():
        tree_id = tree_with(repo, repo[tree_id], path, repo.create_blob(data))
    return commit(repo, parent, tree_id)


def base_commit(repo: pygit2.Repository) -> pygit2.Commit:
    tail = format_tail("raw/notes.txt", None, QUOTE, NOTES.index(QUOTE))
    notes = f"---\ntitle: Notes\n---\n# Notes\n\n{QUOTE}[^1]\n\n[^1]: {tail}\n"
    files = {
        "raw/notes.txt": NOTES,
        "wiki/index.md": INDEX,
        "wiki/log.md": "# Log\n",
        "wiki/notes.md": notes,
    }
    return with_files(repo, None, {k: v.encode() for k, v in files.items()})


# ---------------------------------------------------------------- the cases


def bomb_tree(repo: pygit2.Repository, levels: int, fanout: int = 10) -> pygit2.Oid:
    """``levels`` tree objects, each naming the one below ``fanout`` times."""
    blob = repo.create_blob(b"x\n")
    tree: pygit2.Oid | None = None
    for _ in range(levels):
        builder = repo.TreeBuilder()
        for k in range(fanout):
            if tree is None:
                builder.insert(f"f{k}.txt", blob, pygit2.GIT_FILEMODE_BLOB)
            else:
                builder.insert(f"d{k}", tree, pygit2.GIT_FILEMODE_TREE)
        tree = builder.write()
    assert tree is not None
    return tree


def under_raw(repo: pygit2.Repository, base: pygit2.Commit, name: str, tree: pygit2.Oid):  # type: ignore[no-untyped-def]
    raw = repo.TreeBuilder(repo[base.tree["raw"].id])
    raw.insert(name, tree, pygit2.GIT_FILEMODE_TREE)
    root = repo.TreeBuilder(base.tree)
    root.insert("raw", raw.write(), pygit2.GIT_FILEMODE_TREE)
    return commit(repo, base, root.write())


def tree_bomb(repo: pygit2.Repository, base: pygit2.Commit, scale: int) -> pygit2.Commit:
    """1×: six trees of ten entries, 10^6 files under raw/bomb/ (the issue's push)."""
    return under_raw(repo, base, "bomb", bomb_tree(repo, 6 + round(math.log10(scale))))


def tree_wide(repo: pygit2.Repository, base: pygit2.Commit, scale: int) -> pygit2.Commit:
    """1×: the same shape within the limit, 10^3 files, expanded (10×: 10^4; 100×: 10^5)."""
    return under_raw(repo, base, "wide", bomb_tree(repo, 3 + round(math.log10(scale))))


def repeated_pdf(refs: int, content: bytes) -> bytes:
    """One page whose /Contents names one FlateDecode stream ``refs`` times."""
    stream = zlib.compress(content, 9)
    return serialized(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 5 0 R >> >> /Contents [" + b"4 0 R " * refs + b"] >>",
            b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream)
            + stream
            + b"\nendstream",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        ]
    )


def serialized(objs: list[bytes]) -> bytes:
    """A PDF of these objects (numbered from 1, the first the catalog), with its xref."""
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


def citing_pdf(repo: pygit2.Repository, base: pygit2.Commit, source: bytes) -> pygit2.Commit:
    tail = format_tail("raw/h.pdf", 1, "Crows remember faces.", None)
    page = f"---\ntitle: Birds\n---\n# Birds\n\nCrows remember faces.[^1]\n\n[^1]: {tail}\n"
    index = INDEX + "- [[Birds]]\n"
    files = {"raw/h.pdf": source, "wiki/birds.md": page.encode(), "wiki/index.md": index.encode()}
    return with_files(repo, base, files)


PDF_TEXT = b"BT /F1 12 Tf 72 712 Td (Crows remember faces.) Tj ET\n"


def pdf_repeated(repo: pygit2.Repository, base: pygit2.Commit, scale: int) -> pygit2.Commit:
    """1×: a 1 MB content stream (a 2 KB PDF) named 10 times (the issue's case); 10×:
    100 times; 100×: 1,000 times."""
    return citing_pdf(repo, base, repeated_pdf(10 * scale, PDF_TEXT * 20_000))


def pdf_small_repeated(repo: pygit2.Repository, base: pygit2.Commit, scale: int) -> pygit2.Commit:
    """1×: a 50 KB content stream named 10 times, within pdf_bytes at every scale: read
    once (10×: 100 times; 100×: 1,000 times)."""
    return citing_pdf(repo, base, repeated_pdf(10 * scale, PDF_TEXT * 1_000))


def form_pdf(draws: int, content: bytes) -> bytes:
    """One page drawing one form XObject ``draws`` times (``/X0 Do``)."""
    form = zlib.compress(content, 9)
    page = zlib.compress(b"/X0 Do\n" * draws, 9)
    return serialized(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font "
            b"<< /F1 5 0 R >> /XObject << /X0 6 0 R >> >> /Contents 4 0 R >>",
            b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(page) + page + b"\nendstream",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            b"<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font "
            b"<< /F1 5 0 R >> >> /Length %d /Filter /FlateDecode >>\nstream\n"
            % len(form)
            + form
            + b"\nendstream",
        ]
    )


def pdf_forms(repo: pygit2.Repository, base: pygit2.Commit, scale: int) -> pygit2.Commit:
    """1×: a form XObject of 1 MB drawn 10 times (a 4 KB PDF; pypdf parses a form once per
    draw); 10×: 100 draws; 100×: 1,000 draws."""
    return citing_pdf(repo, base, form_pdf(10 * scale, PDF_TEXT * 20_000))


def quotes_missed(repo: pygit2.Repository, base: pygit2.Commit, scale: int) -> pygit2.Commit:
    """1×: 100 citations whose quotes miss their anchors and occur nowhere in a 10 MB
    source (the issue's 37 s); 10×: 1,000; 100×: 10,000."""
    words = [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "epsilon",
        "zeta",
        "theta",
        "iota",
        "kappa",
        "naïve",
    ]
    source = " ".join(words[i % len(words)] for i in range(1_700_000)).encode()
    n = 100 * scale
    body = "\n".join(f"Claim number {i} stands here.[^{i}]" for i in range(n))
    defs = "\n".join(
        f"[^{i}]: " + format_tail("raw/big.txt", None, f"words not there {i}", 5) for i in range(n)
    )
    page = f"---\ntitle: Big\n---\n# Big\n\n{body}\n\n{defs}\n"
    files = {
        "raw/big.txt": source,
        "wiki/big.md": page.encode(),
        "wiki/index.md": (INDEX + "- [[Big]]\n").encode(),
    }
    return with_files(repo, base, files)


def hostile_page(text: str) -> Callable[[pygit2.Repository, pygit2.Commit, int], pygit2.Commit]:
    def build(repo: pygit2.Repository, base: pygit2.Commit, scale: int) -> pygit2.Commit:
        page = "---\ntitle: Notes\n---\n# Notes\n\n" + text * (scale * 78_000 // len(text))
        return with_files(repo, base, {"wiki/notes.md": page.encode()})

    return build


def gaps_unclosed(repo: pygit2.Repository, base: pygit2.Commit, scale: int) -> pygit2.Commit:
    """1×: a 78 KB page of ``[gap:`` markers never closed (the issue's 17 s); 10×: 780 KB;
    100×: 7.8 MB."""
    return hostile_page("Words here [gap: x ")(repo, base, scale)


def sentence_gaps(repo: pygit2.Repository, base: pygit2.Commit, scale: int) -> pygit2.Commit:
    """1×: one 78 KB line of sentence stops each followed by an unclosed ``[gap:``."""
    return hostile_page("a. [gap: x")(repo, base, scale)


def code_spans(repo: pygit2.Repository, base: pygit2.Commit, scale: int) -> pygit2.Commit:
    """1×: a 78 KB paragraph of code spans (found by the cost fuzz: quadratic before)."""
    return hostile_page("``_")(repo, base, scale)


@dataclass(frozen=True)
class Case:
    name: str
    build: Callable[[pygit2.Repository, pygit2.Commit, int], pygit2.Commit]

    @property
    def what(self) -> str:
        return " ".join((self.build.__doc__ or "").split())


CASES = (
    Case("tree-bomb", tree_bomb),
    Case("tree-wide", tree_wide),
    Case("pdf-repeated", pdf_repeated),
    Case("pdf-small-repeated", pdf_small_repeated),
    Case("pdf-forms", pdf_forms),
    Case("quotes-missed", quotes_missed),
    Case("gaps-unclosed", gaps_unclosed),
    Case("sentence-gaps", sentence_gaps),
    Case("code-spans", code_spans),
)


# ---------------------------------------------------------------- measuring


def one(name: str, scale: int) -> dict[str, object]:
    """One verification of case ``name`` at ``scale``, in this process."""
    case = next(c for c in CASES if c.name == name)
    with tempfile.TemporaryDirectory() as tmp:
        repo = pygit2.init_repository(str(Path(tmp) / "r"), bare=True)
        base = base_commit(repo)
        tip = case.build(repo, base, scale)
        started = time.perf_counter()
        report = verify(Request(repo, tip, base, rules=Config())).report
        seconds = time.perf_counter() - started
    limits = [
        f.code
        for f in report.findings
        if f.code in ("tree.limit", "citation.source_unreadable", "verifier.error", "page.limit")
    ]
    return {
        "seconds": seconds,
        "gate_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "box_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
        "verdict": report.verdict,
        "finding": limits[0] if limits else "",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="cases, comma-separated")
    parser.add_argument("--scales", default="1,10,100")
    parser.add_argument("--one", nargs=2, metavar=("CASE", "SCALE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one[0], int(args.one[1]))))
        return
    only = {c for c in args.only.split(",") if c}
    scales = [int(s) for s in args.scales.split(",")]
    print("| case | scale | time | peak RSS, gate | peak RSS, PDF box | verdict, finding |")
    print("|---|---|---|---|---|---|")
    for case in CASES:
        if only and case.name not in only:
            continue
        for scale in scales:
            proc = subprocess.run(
                [sys.executable, __file__, "--one", case.name, str(scale)],
                capture_output=True,
                text=True,
                check=True,
            )
            row = json.loads(proc.stdout)
            box = f"{row['box_mib']:.0f} MiB" if row["box_mib"] else "–"
            print(
                f"| `{case.name}` | {scale}× | {row['seconds']:.2f} s | {row['gate_mib']:.0f} MiB "
                f"| {box} | {row['verdict']}, `{row['finding'] or 'none'}` |",
                flush=True,
            )
    print(f"\nload average after: {os.getloadavg()[0]:.1f}")
    for case in CASES:
        if not only or case.name in only:
            print(f"- `{case.name}`: {case.what}")


if __name__ == "__main__":
    main()
