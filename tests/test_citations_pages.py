"""A page note (``p.N``, ``pp.N-M``) names a page of a PDF source only: on a text source it
locates nothing, and verification says so (``citation.page_not_pdf``, a minor note at
the footnote's line; the quote is still verified), on real git objects."""

from __future__ import annotations

import pytest
from support.trees import at, commit_files, no_errors
from support.verifying import verify_trees
from test_sources import PAGES, pdf

from wikigate.config import Config
from wikigate.verifier.citation import format_tail

SOURCE = "A chronicle of the port.\nIn 1740 the harbour froze in winter.\n"
QUOTE = "the harbour froze in winter"


def wiki(source_path: str, source: bytes | str, tail: str) -> dict[str, bytes | str | None]:
    return {
        source_path: source,
        "wiki/index.md": "---\ntitle: Index\n---\n# Index\n\n[[P]]\n",
        "wiki/p.md": f"---\ntitle: P\n---\n# P\n\nIn 1740 the harbour froze.[^1]\n\n[^1]: {tail}\n",
    }


def report_of(repo, files):  # type: ignore[no-untyped-def]
    base = commit_files(repo, None, {})
    tip = commit_files(repo, base.id, files)
    report = verify_trees(repo, tip, base, config=Config())
    no_errors(report)
    return report


@pytest.mark.parametrize("note", ["p.2", "pp.3-4"])
def test_a_page_note_on_a_text_source_is_a_located_note(repo, note):
    tail = format_tail("raw/m.txt", None, QUOTE, SOURCE.index(QUOTE))
    tail = tail.replace("raw/m.txt", f"raw/m.txt, {note}", 1)
    report = report_of(repo, wiki("raw/m.txt", SOURCE, tail))
    (found,) = at(report, "citation.page_not_pdf")
    assert (found.path, found.line, found.severity) == ("wiki/p.md", 8, "minor")
    assert found.message == (
        f"[^1]: raw/m.txt is not a PDF: `{note}` names no page of it (pages exist only in "
        "PDF sources)"
    )
    assert found.claim == "In 1740 the harbour froze." and found.claim_line == 6
    assert "drop the page note" in (found.hint or "")
    # the quote is still verified where its anchor says, and the note blocks nothing
    assert not [f for f in report.findings if f.code != "citation.page_not_pdf"], report.findings
    assert report.verdict == "commit"


def test_a_page_note_on_a_pdf_is_no_such_note(repo):
    """A PDF by its name, and a blob that starts like a PDF whatever its name (as the
    sources are read): their page notes name pages, and draw no page_not_pdf."""
    pytest.importorskip("pypdf")
    named = wiki("raw/birds.pdf", pdf(PAGES), format_tail("raw/birds.pdf", 2, PAGES[1], 0))
    assert not at(report_of(repo, named), "citation.page_not_pdf")
    by_content = wiki("raw/birds.txt", pdf(PAGES), format_tail("raw/birds.txt", 2, PAGES[1], 0))
    report = report_of(repo, by_content)
    assert not at(report, "citation.page_not_pdf"), report.findings
    # a text source without a page note: nothing to say either
    plain = wiki("raw/m.txt", SOURCE, format_tail("raw/m.txt", None, QUOTE, SOURCE.index(QUOTE)))
    assert not report_of(repo, plain).findings


# ------------------------------------------- a quote typed with straight quotes (issue 28)

CURLY = "Minutes.\nThe chair said: “the harbour’s ice — thick as a wall — held till March.”\n"


@pytest.mark.parametrize(
    ("source", "typed", "exact", "differ"),
    [
        (
            CURLY,
            '"the harbour\'s ice - thick as a wall - held till March."',
            "“the harbour’s ice — thick as a wall — held till March.”",
            "“ where the quote has \", ’ where the quote has ', — where the quote has -, "
            '” where the quote has "',
        ),
        (  # the reverse: the source is typed straight, the quote curly
            'Minutes.\nThe chair said: "it\'s done - at last".\n',
            "“it’s done – at last”",
            '"it\'s done - at last"',
            "\" where the quote has “, ' where the quote has ’, - where the quote has –, "
            '" where the quote has ”',
        ),
    ],
    ids=["straight-quote-of-curly-source", "curly-quote-of-straight-source"],
)
def test_a_quote_typed_with_other_quotes_and_dashes_gets_the_source_s_footnote(
    repo, source, typed, exact, differ
):
    """A footnote typed straight into a page (no `wikigate anchor`) with ' " - where the
    source has ’ “ ” — (or the reverse): still critical (a quote is verbatim), but the
    finding says which characters differ and carries the footnote quoting the source as it
    is (`suggested_tail`), which verifies."""
    tail = format_tail("raw/m.txt", None, typed, None)
    report = report_of(repo, wiki("raw/m.txt", source, tail))
    (found,) = at(report, "citation.quote_not_found")
    assert (found.severity, found.line) == ("critical", 8)
    offset = source.index(exact)
    assert (
        "after using the source's own quotes, apostrophes and dashes at offset "
        f"{offset}, line 2" in found.message
    ), found.message
    assert found.suggested_tail == format_tail("raw/m.txt", None, exact, offset)
    assert found.hint is not None and f"the source has {differ}: " in found.hint, found.hint
    assert found.hint.endswith(f"use [^1]: {found.suggested_tail}")
    fixed = report_of(repo, wiki("raw/m.txt", source, found.suggested_tail))
    assert not [f for f in fixed.findings if f.severity == "critical"], fixed.findings


def test_a_quote_typed_straight_and_also_paraphrased_gets_no_suggestion(repo):
    """Straight quotes are not all that differs: no near miss, no suggested tail."""
    tail = format_tail("raw/m.txt", None, "the harbour's ice - thick as stone", None)
    report = report_of(repo, wiki("raw/m.txt", CURLY, tail))
    (found,) = at(report, "citation.quote_not_found")
    assert found.suggested_tail is None and "matches after" not in found.message
