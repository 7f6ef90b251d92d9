"""Reading raw sources: a PDF is parsed once per verification, however many of its
pages the wiki cites, and each page's citations get the findings they always did."""

from __future__ import annotations

import pygit2
import pypdf
import pytest
from support.trees import commit_files

from wikigate.config import Config
from wikigate.verifier.citation import format_tail
from wikigate.verifier.engine import verify_trees

PAGES = [
    "Ravens can count to five.",
    "Crows remember human faces.",
    "Magpies recognise themselves in mirrors.",
]


def pdf(pages: list[str]) -> bytes:
    """A PDF with one line of Helvetica text on each page."""
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(len(pages)))
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode(),
    ]
    font = 3 + 2 * len(pages)
    for i, text in enumerate(pages):
        stream = f"BT /F1 12 Tf 72 712 Td ({text}) Tj ET".encode()
        objs.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>".encode()
        )
        objs.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objs.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
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


@pytest.fixture
def repo(tmp_path):
    return pygit2.init_repository(str(tmp_path / "r"), bare=True)


@pytest.fixture
def parses(monkeypatch):
    """How many times pypdf parsed a PDF (verification in this process)."""
    monkeypatch.setenv("WIKIGATE_WORKERS", "0")
    made: list[int] = []
    real = pypdf.PdfReader

    def counting(*args, **kwargs):
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(pypdf, "PdfReader", counting)
    return made


def page_citing(*tails: str) -> str:
    body = " ".join(f"Birds are clever.[^{i}]" for i in range(1, len(tails) + 1))
    defs = "\n".join(f"[^{i}]: {tail}" for i, tail in enumerate(tails, 1))
    return f"---\ntitle: Birds\n---\n# Birds\n\n{body}\n\n{defs}\n"


def citation_findings(repo, files):
    files = {"wiki/index.md": "---\ntitle: Index\n---\n# Index\n\n- [[Birds]]\n", **files}
    tip = commit_files(repo, None, {"wiki/log.md": "# Log\n", **files})
    report = verify_trees(repo, tip, None, config=Config())
    assert not [f for f in report.findings if f.code == "verifier.error"], report.findings
    found = [(f.code, f.line, f.message) for f in report.findings if f.code.startswith("citation.")]
    return sorted(found), report.summary.anchors_verified


def test_a_pdf_cited_on_every_page_is_parsed_once(repo, parses):
    paper = "raw/paper.pdf"
    tails = [
        format_tail(paper, 1, "count to five", 11),  # at its anchor
        format_tail(paper, 2, "human faces", 0),  # on its page, not at its anchor
        format_tail(paper, 3, "recognise themselves", None),  # on its page, no anchor
        format_tail(paper, 3, "count to five", 11),  # on another page only
    ]
    found, verified = citation_findings(
        repo, {paper: pdf(PAGES), "wiki/birds.md": page_citing(*tails)}
    )
    assert verified == 1
    assert found == [
        (
            "citation.anchor_mismatch",
            9,
            "[^2]: the text at offset 0 of raw/paper.pdf is not the quote; "
            "the quote is at offset 15, line 1",
        ),
        (
            "citation.anchor_missing",
            10,
            "[^3]: the quote is in raw/paper.pdf (offset 8, line 1) but has no anchor",
        ),
        (
            "citation.quote_not_found",
            11,
            "[^4]: the quote does not occur in raw/paper.pdf p.3: 'count to five'",
        ),
    ]
    assert len(parses) == 1


def test_each_page_keeps_its_own_reason_to_be_unreadable(repo, parses):
    paper, broken = "raw/paper.pdf", "raw/broken.pdf"
    tails = [
        format_tail(paper, 4, "count to five", 11),  # past the last page
        f'{paper} — "count to five"',  # no page
        format_tail(paper, 1, "count to five", 11),
        format_tail(broken, 1, "count to five", 11),
        format_tail(broken, 2, "count to five", 11),
    ]
    files = {
        paper: pdf(PAGES),
        broken: b"%PDF-1.4\nnot a PDF at all\n",
        "wiki/birds.md": page_citing(*tails),
    }
    found, verified = citation_findings(repo, files)
    assert verified == 1
    unreadable = [(line, message) for code, line, message in found]
    assert all(code == "citation.source_unreadable" for code, _, _ in found)
    assert unreadable[:2] == [
        (8, "[^1]: raw/paper.pdf has 3 pages; p.4 does not exist"),
        (9, "[^2]: raw/paper.pdf is a PDF; the citation must name a page (SOURCE, p.N)"),
    ]
    assert [line for line, _ in unreadable[2:]] == [11, 12]
    assert all("raw/broken.pdf is not a readable PDF (" in m for _, m in unreadable[2:])
    assert len(parses) == 2  # one each: the paper and the broken PDF
