"""Quotes against a source as a reader sees it: a markdown, MediaWiki or HTML source's text
view (textview.py) verifies a faithful quote of its rendered text, anchored where the raw
text it maps to starts, with a note saying only the view matched; an unfaithful quote
still fails, and a quote found nowhere is told why (markup, case and whitespace, ellipsis
pieces) and what to run. Hostile markup costs linear time."""

from __future__ import annotations

import tracemalloc

import pytest
from support.cost import assert_linear
from support.trees import commit_files
from support.verifying import verify_trees

from wikigate.config import Config
from wikigate.verifier.citation import format_tail, quote_hash
from wikigate.verifier.sources import locate_quotes
from wikigate.verifier.textview import find, occurrences, text_view

MOTZKIN = (
    "The '''Motzkin numbers''' <math>M_n</math> count [[Lattice path|paths]] from "
    "(0, 0) to (''n'', 0) &amp; never dip below the axis.<ref>{{cite book|title=X}}</ref> "
    "They were named after [[Theodore Motzkin]].<!-- check the year --> "
    "The claim that <s>every</s> path is counted is disputed.\n"
)
RENDERED = (
    "The Motzkin numbers M_n count paths from (0, 0) to (n, 0) & never dip below the axis. "
    "They were named after Theodore Motzkin."
)
INDEX = "---\ntitle: Index\n---\n# Index\n\n- [[Numbers]]\n"


def page(*tails: str) -> str:
    body = " ".join(f"Motzkin numbers count paths.[^{i}]" for i in range(1, len(tails) + 1))
    defs = "\n".join(f"[^{i}]: {tail}" for i, tail in enumerate(tails, 1))
    return f"---\ntitle: Numbers\n---\n# Numbers\n\n{body}\n\n{defs}\n"


def verify_citing(repo, source_path: str, source: str, *tails: str):
    files = {
        "wiki/index.md": INDEX,
        "wiki/log.md": "# Log\n",
        source_path: source,
        "wiki/numbers.md": page(*tails),
    }
    tip = commit_files(repo, None, files)
    report = verify_trees(repo, tip, None, config=Config())
    assert not [f for f in report.findings if f.code == "verifier.error"], report.findings
    quotes = [f for f in report.findings if f.code.startswith("citation.")]
    return [f for f in quotes if f.code != "citation.semantic_conflict"], report


# ---------------------------------------------------------------- the view itself


def test_the_view_removes_mediawiki_markup_and_maps_back_to_the_raw_text():
    view = text_view(MOTZKIN, "mediawiki")
    assert view is not None
    assert view.text.startswith(RENDERED)
    assert "<s>every</s>" in view.text  # struck words stay struck: a reader sees the strike
    # a match may not cross the <ref> note, removed with its text (a reader never sees the
    # two sentences joined by what it says)
    assert find(view, MOTZKIN, RENDERED) is None
    first = RENDERED[: RENDERED.index(" They")]
    found = find(view, MOTZKIN, first)
    assert found is not None
    assert found.offset == 0
    assert MOTZKIN[found.offset : found.end].endswith("below the axis.")
    inner = find(view, MOTZKIN, "Motzkin numbers M_n count")
    assert inner is not None and MOTZKIN[inner.offset :].startswith("Motzkin numbers'''")
    assert view.view_offset(MOTZKIN.index("<math>")) is None  # markup is no view offset


def test_markdown_and_html_views():
    md = "Some **bold** and _it_ text with [a link](http://x.y/z), snake_case, 2 * 3 and `x`."
    view = text_view(md, "markdown")
    assert view is not None
    assert view.text == "Some bold and it text with a link, snake_case, 2 * 3 and x."
    page_html = "<p>Caf&eacute; <em>opens</em> at&nbsp;8.<br/>Closed on Mondays.</p>"
    view = text_view(page_html, "html")
    assert view is not None and view.text == "Café opens at\xa08.\nClosed on Mondays."
    assert view.raw_span(view.text.index("\n"), 1) == (40, 45)
    assert text_view("plain text, no markup", "markdown") is None
    assert text_view("<b>x</b>", None) is None  # plain text has no view


# ---------------------------------------------------------------- through the gate


MARKDOWN = (
    "The **Motzkin numbers** count [lattice paths](https://x.org/paths) that *never* dip "
    "below the axis.\n"
)
HTML = "<p>The <b>Motzkin numbers</b> count lattice paths &amp; never dip below the axis.</p>"
FAITHFUL = [
    ("raw/motzkin.wiki", MOTZKIN, "count paths from (0, 0) to (n, 0) & never dip", "count [["),
    ("raw/motzkin.mediawiki", MOTZKIN, "Motzkin numbers M_n count paths", "Motzkin"),
    ("raw/motzkin.md", MARKDOWN, "Motzkin numbers count lattice paths that never dip", "Motz"),
    ("raw/motzkin.html", HTML, "Motzkin numbers count lattice paths & never dip", "Motz"),
]


@pytest.mark.parametrize(("path", "source", "quote", "start"), FAITHFUL)
def test_a_faithful_quote_of_the_rendered_text_verifies_with_a_note(
    repo, path, source, quote, start
):
    assert quote not in source
    at = source.index(start)
    found, report = verify_citing(repo, path, source, format_tail(path, None, quote, at))
    assert [f.code for f in found] == ["citation.text_view"], found
    assert found[0].severity == "minor"
    assert f"offset {at}," in found[0].message and "markup removed" in found[0].message
    assert report.summary.anchors_verified == 1


def test_the_same_quote_of_a_plain_text_source_is_not_found(repo):
    quote = "Motzkin numbers count lattice paths that never dip"
    found, _ = verify_citing(
        repo, "raw/motzkin.txt", MARKDOWN, format_tail("raw/motzkin.txt", None, quote, 4)
    )
    assert [f.code for f in found] == ["citation.quote_not_found"]


def test_the_anchor_records_the_raw_span_start_and_the_quote_hash(repo):
    quote = "They were named after Theodore Motzkin."
    tail = format_tail("raw/motzkin.wiki", None, quote, None)  # no anchor yet
    found, _ = verify_citing(repo, "raw/motzkin.wiki", MOTZKIN, tail)
    assert [f.code for f in found] == ["citation.anchor_missing"]
    at = MOTZKIN.index("They were")
    assert f"offset {at}," in found[0].message and "as a reader sees it" in found[0].message
    assert found[0].suggested_tail == format_tail("raw/motzkin.wiki", None, quote, at)
    assert quote_hash(quote) in found[0].suggested_tail


def test_a_wrong_anchor_on_a_view_match_is_a_mismatch_naming_the_right_one(repo):
    quote = "They were named after Theodore Motzkin."
    tail = format_tail("raw/motzkin.wiki", None, quote, 3)
    found, _ = verify_citing(repo, "raw/motzkin.wiki", MOTZKIN, tail)
    assert [f.code for f in found] == ["citation.anchor_mismatch"]
    assert f"offset {MOTZKIN.index('They were')}," in found[0].message


@pytest.mark.parametrize(
    "quote",
    [
        "The claim that every path is counted is disputed.",  # a struck word, unstruck
        "They were named after Theodore Motzkin in 1948.",  # words added
        "count paths from (0, 0) to (n, 0) and never dip below the axis",  # & reworded
    ],
)
def test_an_unfaithful_quote_still_fails(repo, quote):
    found, report = verify_citing(
        repo, "raw/motzkin.wiki", MOTZKIN, format_tail("raw/motzkin.wiki", None, quote, 0)
    )
    assert [f.code for f in found] == ["citation.quote_not_found"], found
    assert report.verdict == "reject"


def test_an_anchor_inside_markup_is_no_view_match(repo):
    quote = "Motzkin numbers"
    # the quote is in the raw text only after ''', at offset 7; an anchor on the ''' is wrong
    found, _ = verify_citing(
        repo, "raw/motzkin.wiki", MOTZKIN, format_tail("raw/motzkin.wiki", None, quote, 4)
    )
    assert [f.code for f in found] == ["citation.anchor_mismatch"]
    assert "offset 7," in found[0].message


def test_a_plain_text_source_is_read_as_it_is(repo):
    """A .txt holding markup shows its markup to a reader: no view match, but the hint
    says the quote matches after removing it, where."""
    quote = "Motzkin numbers count lattice paths that never dip"
    found, _ = verify_citing(
        repo, "raw/motzkin.txt", MARKDOWN, format_tail("raw/motzkin.txt", None, quote, 0)
    )
    assert [f.code for f in found] == ["citation.quote_not_found"]
    assert "after removing markup at offset 6, line 1" in found[0].message
    assert "plain text" in (found[0].hint or "")


# ---------------------------------------------------------------- quote_not_found hints


NOTE = (
    "Ravens can count to five.\nCrows remember human faces for years, "
    "and magpies recognise themselves in mirrors.\n"
)


@pytest.mark.parametrize(
    ("quote", "said", "offset"),
    [
        (
            "crows  REMEMBER human\nfaces",
            "after ignoring case and collapsing whitespace",
            NOTE.index("Crows"),
        ),
    ],
)
def test_quote_not_found_says_how_it_nearly_matches_and_what_to_run(repo, quote, said, offset):
    found, _ = verify_citing(
        repo, "raw/birds.txt", NOTE, format_tail("raw/birds.txt", None, quote, 0)
    )
    assert [f.code for f in found] == ["citation.quote_not_found"]
    assert f"{said} at offset {offset}, line 2" in found[0].message
    assert "wikigate anchor --fix" in (found[0].hint or "")


@pytest.mark.parametrize(
    "quote",
    [
        "Crows remember human faces … recognise themselves in mirrors",
        "Crows remember human faces... themselves in mirrors",
    ],
)
def test_an_ellipsis_quote_in_order_is_the_ellipsis_dialect_anchored_where_it_starts(repo, quote):
    """Pieces in order within the span verify as an ellipsis quote (docs/format.md): a
    wrong anchor names where the pieces start, not a near miss."""
    found, _ = verify_citing(
        repo, "raw/birds.txt", NOTE, format_tail("raw/birds.txt", None, quote, 0)
    )
    assert [f.code for f in found] == ["citation.anchor_mismatch"]
    assert f"at offset {NOTE.index('Crows')}, line 2" in found[0].message


def test_ellipsis_pieces_out_of_order_get_no_ellipsis_hint(repo):
    quote = "themselves in mirrors … Crows remember"
    found, _ = verify_citing(
        repo, "raw/birds.txt", NOTE, format_tail("raw/birds.txt", None, quote, 0)
    )
    assert [f.code for f in found] == ["citation.quote_not_found"]
    assert "each in the source, in order" not in found[0].message


def test_markup_and_a_fold_together_are_named(repo):
    quote = "THE MOTZKIN NUMBERS M_n count"
    found, _ = verify_citing(
        repo, "raw/motzkin.wiki", MOTZKIN, format_tail("raw/motzkin.wiki", None, quote, 0)
    )
    assert [f.code for f in found] == ["citation.quote_not_found"]
    assert "after removing markup and ignoring case at offset 0, line 1" in found[0].message
    assert "markup is not in the quote" in (found[0].hint or "")


# ---------------------------------------------------------------- hostile markup


HOSTILE = {  # name: (how the source is read, its text of about n characters)
    "angle brackets": ("html", lambda n: "<" * n),
    "nested tags": ("html", lambda n: "<b>" * (n // 7) + "x" + "</b>" * (n // 7)),
    "unclosed tags": ("html", lambda n: ("<a href=" + "x" * 50) * (n // 58)),
    "unclosed [[": ("markdown", lambda n: ("[[" + "y" * 40) * (n // 42)),
    "unclosed refs": ("mediawiki", lambda n: "<ref>" * (n // 5)),
    "unclosed comments": ("markdown", lambda n: "<!--" * (n // 4)),
    "link openings": ("markdown", lambda n: ("[a](" + "x[" * 20) * (n // 44)),
    "external link openings": ("mediawiki", lambda n: ("[http://" + "x" * 30) * (n // 38)),
    "emphasis runs": ("markdown", lambda n: "*_` " * (n // 4)),
    "entities": ("html", lambda n: "&amp" * (n // 4)),
}


@pytest.mark.timing
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_markup_costs_linear_time(name):
    kind, make = HOSTILE[name]
    assert_linear(lambda n: text_view(make(n), kind), 1 << 18, name)


@pytest.mark.timing
def test_hostile_markup_in_a_quote_search_costs_linear_time():
    def run(n: int) -> None:
        text = "<b>" * (n // 3)
        locate_quotes(text, [(0, "never there"), (None, "nor this … or that")], 4, "mediawiki")

    assert_linear(run, 1 << 18, "a quote search in hostile markup")


@pytest.mark.timing
def test_a_megabyte_of_markup_takes_bounded_memory():
    raw = "<b>x</b>" * (1 << 17)  # 1 MB, 262k tags: past MAX_EDITS, so no view is made
    tracemalloc.start()
    try:
        assert text_view(raw, "mediawiki") is None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20, f"{peak / 2**20:.0f} MB"


# ---------------------------------------------------------------- wikigate anchor


def anchor(repo, path: str, source: str, quote: str) -> str:
    from wikigate.anchors import anchor_tail
    from wikigate.verifier.wiki import PageCache, WikiTree

    tip = commit_files(repo, None, {path: source})
    tree = WikiTree(repo, tip.tree, PageCache(None))
    return anchor_tail(None, path, quote, None, tree)  # type: ignore[arg-type]


def test_anchor_places_a_view_quote_at_the_raw_span_it_maps_to(repo):
    quote = "They were named after Theodore Motzkin."
    at = MOTZKIN.index("They were")
    assert anchor(repo, "raw/m.wiki", MOTZKIN, quote) == format_tail("raw/m.wiki", None, quote, at)


def test_anchor_says_how_a_quote_nearly_matches(repo):
    from wikigate.errors import WikigateError

    # an ellipsis quote in order is anchored where its pieces start (the dialect)
    assert f"{{@{NOTE.index('Crows')} " in anchor(
        repo, "raw/b.txt", NOTE, "Crows remember … in mirrors"
    )
    with pytest.raises(WikigateError, match="after removing markup and ignoring case at offset 7"):
        anchor(repo, "raw/m.wiki", MOTZKIN, "motzkin numbers m_n")
    with pytest.raises(WikigateError, match=r"occurs 2 times in raw/m.md as a reader sees it"):
        anchor(repo, "raw/m.md", "**a b** c *a b* c\n", "a b c")


def test_a_warm_verify_says_what_a_cold_one_said(repo, tmp_path):
    """A view match is never a cached anchor (the anchor cache vouches for raw matches):
    the note comes back on every verify, from a cold cache or a warm one."""
    quote = "They were named after Theodore Motzkin."
    files = {
        "wiki/index.md": INDEX,
        "wiki/log.md": "# Log\n",
        "raw/m.wiki": MOTZKIN,
        "wiki/numbers.md": page(format_tail("raw/m.wiki", None, quote, MOTZKIN.index("They"))),
    }
    tip = commit_files(repo, None, files)
    cache = tmp_path / "cache.db"

    def codes():
        report = verify_trees(repo, tip, None, config=Config(), cache_path=cache)
        return sorted(
            (f.code, f.message) for f in report.findings if f.code == "citation.text_view"
        )

    cold = codes()
    assert [c for c, _ in cold] == ["citation.text_view"]
    assert codes() == cold


@pytest.mark.parametrize(
    ("kind", "source", "quote"),
    [
        ("html", "<p>The drug B is <script>not </script>safe.</p>", "The drug B is not safe."),
        ("html", "<p>The drug B is <span hidden>not </span>safe.</p>", "The drug B is not safe."),
        ("html", '<p>It is <b style="display:none">not </b>safe.</p>', "It is not safe."),
        ("html", "<p>The limit is 10<sup>6</sup> requests.</p>", "The limit is 106 requests."),
        ("markdown", "The limit is `10**6` requests.", "The limit is 106 requests."),
        ("markdown", "Safe <template>not </template>for all.", "Safe not for all."),
        (
            "mediawiki",
            "Aspirin is safe<ref>only in mice, not in humans</ref> for humans.",
            "Aspirin is safe for humans.",
        ),
        ("markdown", "It is ![not](x.png) safe.", "It is not safe."),
        ("markdown", "It is <!-- not --> safe.", "It is  safe."),
    ],
)
def test_a_view_match_may_not_cross_markup_that_hides_or_changes_text(kind, source, quote):
    """Found by review: the view kept hidden text (a script, a hidden element) and read
    10<sup>6</sup> as 106, so a quote a reader never sees verified. Such a match is no
    match; the text a reader does see still matches around it."""
    view = text_view(source, kind)
    assert view is not None and quote in view.text  # the view reads the words together…
    assert find(view, source, quote) is None  # …but no quote may stand on that
    assert occurrences(view, quote) == []


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "<style>b{display:none}</style><p>The drug B is <b>not</b> safe for children.</p>",
            "The drug B is not safe for children.",
        ),
        (
            '<p>The drug B is safe.</p><div style="display:none"><p>The drug B is <b>not</b> '
            "safe for children.</p></div>",
            "The drug B is not safe for children.",
        ),
        (
            "<p>x</p><script>var s='The drug B is <b>not</b> safe for children.';</script>",
            "The drug B is not safe for children.",
        ),
    ],
)
def test_a_view_match_inside_a_hidden_element_or_under_a_stylesheet_is_none(source, quote):
    """Found by the second review: a match inside a hidden element (not crossing its
    tags) or through tags a stylesheet can hide still verified."""
    view = text_view(source, "html")
    assert view is not None and quote in view.text
    assert find(view, source, quote) is None
