"""Reading raw sources: a PDF is parsed once per verification, however many of its
pages the wiki cites, and each page's citations get the findings they always did."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest
from support.trees import commit_files
from support.verifying import verify_trees

from wikigate.config import Config
from wikigate.verifier import pdfbox
from wikigate.verifier.citation import format_tail

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
def parses(monkeypatch):
    """How many times a PDF was parsed: each parse is one box (pdfbox.extract), one
    PdfReader in a worker process."""
    monkeypatch.setenv("WIKIGATE_WORKERS", "0")
    made: list[int] = []
    real = pdfbox.extract

    def counting(*args, **kwargs):
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(pdfbox, "extract", counting)
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
    # a whole-tree verification (no base) says of a claim the tip wrote that it never
    # verified, naming that commit (docs/ledger.md)
    never = "; the claim never verified: its text is as commit "
    assert [never in message for _, _, message in found] == [False, False, True]
    found = [(code, line, message.split(never)[0]) for code, line, message in found]
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


# ---------------------------------------------------------------- hostile PDFs (issue 23, item 2)


def repeated_pdf(refs: int, content: bytes) -> bytes:
    """One page whose /Contents names one FlateDecode stream ``refs`` times: a few KB that
    pypdf used to inflate and parse once per reference (10 references: 88 s, 277 MB)."""
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


def form_pdf(draws: int, content: bytes) -> bytes:
    """One page drawing one form XObject ``draws`` times (``/X0 Do``): pypdf parses the
    form once per draw."""
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


def serialized(objs: list[bytes]) -> bytes:
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


def verify_citing(repo, source: bytes, quote: str, config: Config | None = None, at=None):
    tail = format_tail("raw/h.pdf", 1, quote, at)
    files = {
        "wiki/index.md": "---\ntitle: Index\n---\n# Index\n\n- [[Birds]]\n",
        "wiki/log.md": "# Log\n",
        "raw/h.pdf": source,
        "wiki/birds.md": page_citing(tail),
    }
    tip = commit_files(repo, None, files)
    started = cpu_now()
    report = verify_trees(repo, tip, None, config=config or Config())
    assert not [f for f in report.findings if f.code == "verifier.error"], report.findings
    return report, cpu_now() - started


def cpu_now() -> float:
    """CPU seconds of this process and of its children waited for (the PDF box): what a
    bound on cost measures, which a loaded machine does not stretch as it does wall time."""
    try:
        import resource
    except ImportError:  # Windows: no rusage of children; this process's CPU time
        return time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def unreadable(report):
    return [(f.line, f.message) for f in report.findings if f.code == "citation.source_unreadable"]


@pytest.mark.timing
def test_a_pdf_naming_one_stream_thousands_of_times_is_refused_by_its_bytes(repo):
    """2,000 references to a stream that inflates to 1 MB ask for 2 GB: the box counts
    each stream as often as it is named, decompressing it once, and refuses past
    [limits] pdf_bytes before a byte of it is parsed."""
    source = repeated_pdf(2000, b"BT /F1 12 Tf 72 712 Td (Crows remember faces.) Tj ET\n" * 20_000)
    assert len(source) < 32_000
    report, elapsed = verify_citing(repo, source, "Crows remember faces.")
    assert elapsed < 2
    [(line, message)] = unreadable(report)
    assert line == 8 and "raw/h.pdf asks to decompress 2,120,000,000 bytes" in message
    assert "past the limit of 268,435,456 ([limits] pdf_bytes" in message
    assert "raise `[limits] pdf_bytes` in the base's wikigate.toml" in message
    assert report.verdict == "reject"


@pytest.mark.timing
def test_a_stream_named_many_times_within_the_limit_is_parsed_once_and_verifies(repo):
    """Within pdf_bytes, a stream named 1,000 times is read once, and its quote verifies."""
    source = repeated_pdf(1000, b"BT /F1 12 Tf 72 712 Td (Ravens can count to five.) Tj ET\n")
    report, elapsed = verify_citing(repo, source, "Ravens can count to five.", at=0)
    assert elapsed < 2
    assert not unreadable(report)
    assert report.summary.anchors_verified == 1, report.findings


@pytest.mark.timing
def test_a_pdf_past_its_cpu_seconds_is_refused_naming_the_limit(repo):
    source = repeated_pdf(1, b"(a) Tj\n" * 3_000_000)  # one stream, 3M operators: ~20 s
    config = Config.model_validate({"limits": {"pdf_seconds": 0.5}})
    report, elapsed = verify_citing(repo, source, "a", config)
    [(line, message)] = unreadable(report)
    assert "raw/h.pdf took more than 0.5 CPU seconds to extract its text" in message
    assert "[limits] pdf_seconds" in message
    assert elapsed < 15


def test_a_pdf_past_its_pages_limit_is_refused_naming_the_limit(repo):
    config = Config.model_validate({"limits": {"pdf_pages": 2}})
    report, _ = verify_citing(repo, pdf(PAGES), "Ravens can count to five.", config)
    [(line, message)] = unreadable(report)
    assert "raw/h.pdf has 3 pages, past the limit of 2 ([limits] pdf_pages)" in message


def test_pypdf_is_imported_only_in_the_box(tmp_path):
    """The verifier reads a PDF without importing pypdf: a hook that reads none stays light,
    and the parser of untrusted PDFs runs only in its box."""
    script = (
        "import sys, pygit2\n"
        "sys.path.insert(0, sys.argv[2])\n"
        "from support.trees import commit_files\n"
        "from test_sources import PAGES, pdf, page_citing\n"
        "from wikigate.config import Config\n"
        "from wikigate.verifier.citation import format_tail\n"
        "from support.verifying import verify_trees\n"
        "repo = pygit2.init_repository(sys.argv[1], bare=True)\n"
        "files = {'raw/p.pdf': pdf(PAGES), 'wiki/birds.md': page_citing(\n"
        "    format_tail('raw/p.pdf', 1, 'count to five', 11))}\n"
        "report = verify_trees(repo, commit_files(repo, None, files), None, config=Config())\n"
        "assert report.summary.anchors_verified == 1, report.findings\n"
        "assert 'pypdf' not in sys.modules\n"
    )
    tests = str(Path(__file__).parent)
    env = {**os.environ, "WIKIGATE_WORKERS": "0", "PYTHONPATH": tests}
    proc = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "r"), tests],
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr


@pytest.mark.timing
def test_a_stream_that_inflates_past_pdf_bytes_is_refused_naming_the_limit(repo):
    source = repeated_pdf(1, b"BT /F1 12 Tf 72 712 Td (Crows remember faces.) Tj ET\n" * 40_000)
    config = Config.model_validate({"limits": {"pdf_bytes": 2**20}})
    report, elapsed = verify_citing(repo, source, "Crows remember faces.", config)
    [(line, message)] = unreadable(report)
    assert "raw/h.pdf holds a stream that decompresses past the limit of 1,048,576 bytes" in (
        message
    )
    assert "([limits] pdf_bytes; pypdf: " in message
    assert elapsed < 2


@pytest.mark.timing
def test_a_form_drawn_thousands_of_times_is_refused_by_its_bytes(repo):
    """A form XObject is parsed once per draw: 1,000 draws of a 1 MB form ask for 1 GB, and
    the box counts each draw before any is parsed."""
    source = form_pdf(1000, b"BT /F1 12 Tf 72 712 Td (Crows remember faces.) Tj ET\n" * 20_000)
    assert len(source) < 8_000
    report, elapsed = verify_citing(repo, source, "Crows remember faces.")
    assert elapsed < 2
    [(line, message)] = unreadable(report)
    assert "raw/h.pdf asks to decompress 1,060,007,000 bytes" in message
    assert "[limits] pdf_bytes" in message


def test_a_form_drawn_a_few_times_is_read(repo):
    source = form_pdf(3, b"BT /F1 12 Tf 72 712 Td (Ravens can count to five.) Tj ET\n")
    report, _ = verify_citing(repo, source, "Ravens can count to five.", at=0)
    assert not unreadable(report)
    assert report.summary.anchors_verified == 1, report.findings


def test_a_pdf_is_parsed_once_when_its_window_is_read_too(repo, parses):
    """The semantic check reads the text around a quote (here: the claim has a number the
    quote lacks) from the same reading of the PDF the citations check made: one box."""
    tail = format_tail("raw/paper.pdf", 1, "count to five", 11)
    page = f"---\ntitle: Birds\n---\n# Birds\n\nRavens can count to 7.[^1]\n\n[^1]: {tail}\n"
    index = "---\ntitle: Index\n---\n# Index\n\n- [[Birds]]\n"
    base = commit_files(repo, None, {"wiki/index.md": index, "wiki/log.md": "# Log\n"})
    tip = commit_files(repo, base.id, {"raw/paper.pdf": pdf(PAGES), "wiki/birds.md": page})
    report = verify_trees(repo, tip, base, config=Config())
    assert report.summary.anchors_verified == 1, report.findings
    semantic = [f for f in report.findings if f.code == "citation.semantic_conflict"]
    assert semantic and "7" in semantic[0].message, report.findings  # the window was read
    assert len(parses) == 1
