"""Property and fuzz tests: anchors round-trip, mutations are caught, parsing never crashes."""

from __future__ import annotations

import dataclasses
import hashlib

import pygit2
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from support.trees import commit_files
from support.verifying import verify_trees

from wikigate.anchors import anchor_tail
from wikigate.config import Config
from wikigate.errors import WikigateError
from wikigate.verifier.citation import parse_definition
from wikigate.verifier.markdown import parse_page, parse_whole
from wikigate.verifier.wiki import PageCache, WikiTree, decode_page, encode_page

alphabet = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r")
source_text = st.text(alphabet=alphabet, min_size=5, max_size=300)


class FakeWs:  # only .repo is read by anchor_tail when a tree is given
    def __init__(self, repo):
        self.repo = repo


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return pygit2.init_repository(str(tmp_path_factory.mktemp("prop") / "r"), bare=True)


def citation_findings(repo, source, definition):
    page = f"# P\n\nClaim.[^1]\n\n[^1]: {definition}\n"
    tip = commit_files(repo, None, {"raw/src.txt": source.encode(), "wiki/p.md": page})
    # any span anchors, however short: [citations] min_quote_chars is another rule's
    rules = Config.model_validate({"citations": {"min_quote_chars": 0}})
    report = verify_trees(repo, tip, None, config=rules, strictness="CALM")
    return [f for f in report.findings if f.code.startswith(("citation.", "verifier."))]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data(), source=source_text)
def test_anchor_always_verifies_and_any_mutation_is_caught(repo, data, source):
    start = data.draw(st.integers(0, len(source) - 1))
    end = data.draw(st.integers(start + 1, min(len(source), start + 40)))
    quote = source[start:end]
    # exactly one occurrence, overlapping ones counted (str.count skips overlaps)
    assume(quote and source.find(quote) == source.rfind(quote) and quote.strip() == quote)
    tree = WikiTree(
        repo, commit_files(repo, None, {"raw/src.txt": source.encode()}).tree, PageCache(None)
    )
    tail = anchor_tail(FakeWs(repo), "raw/src.txt", quote, None, tree)
    c = parse_definition(tail)
    assert (c.quote, c.offset) == (quote, source.index(quote))
    assert citation_findings(repo, source, tail) == []

    mutation = data.draw(st.sampled_from(["quote", "offset", "hash", "source"]))
    if mutation == "quote":
        i = data.draw(st.integers(0, len(quote) - 1))
        new_char = data.draw(alphabet.filter(lambda ch: ch != quote[i]))
        bad = tail.replace(_json(quote), _json(quote[:i] + new_char + quote[i + 1 :]), 1)
    elif mutation == "offset":
        delta = data.draw(st.integers(-5, 5).filter(lambda d: d != 0 and c.offset + d >= 0))
        bad = tail.replace(f"{{@{c.offset} ", f"{{@{c.offset + delta} ", 1)
    elif mutation == "hash":
        digest = hashlib.sha256(quote.encode()).hexdigest()
        flipped = ("0" if digest[0] != "0" else "1") + digest[1:]
        bad = tail.replace(digest, flipped)
    else:
        bad = tail.replace("raw/src.txt", "raw/src2.txt", 1)
    assert bad != tail
    found = citation_findings(repo, source, bad)
    if mutation == "offset":  # the quote is verbatim elsewhere: a stale anchor, revised
        assert [(f.code, f.severity) for f in found] == [("citation.anchor_mismatch", "major")]
    else:
        assert any(f.severity == "critical" for f in found), (mutation, bad, found)


def _json(s):
    import json

    return json.dumps(s, ensure_ascii=False)


md_atoms = st.sampled_from(
    [
        "# Title\n",
        "## Sub heading\n",
        "---\n",
        "title: x\n",
        "aliases: [a, b]\n",
        "- item[^1]\n",
        '[^1]: raw/a.txt — "q" {@0 sha256:' + "a" * 64 + "}\n",
        "[^2]: ",
        '"',
        "{@",
        "}",
        "[^",
        "]",
        "[[",
        "]]",
        "[[Page|label]]",
        "[[#Heading]]",
        "[t](x.md#h)",
        "`[^1]`",
        "```\n",
        "::: disputed\n",
        ":::\n",
        "| a | b[^1] |\n|---|---|\n| c | d |\n",
        "Sentence. ",
        "\n\n",
        "—",
        "--",
        "p.3",
        ", ",
        "\\",
        "\t",
        "> quote\n",
        "<div>",
        "*",
        "_",
        "\u00e9",
        "\U0001f600",
    ]
)
pages = st.lists(st.one_of(md_atoms, st.text(alphabet=alphabet, max_size=12)), max_size=40).map(
    "".join
)


@pytest.mark.parametrize("text", [">>::: disputed\n>>", ">::: disputed\n>", "> ::: disputed\n> x"])
def test_a_disputed_block_in_a_quote_on_a_page_without_a_final_newline_parses(text):
    """mdit-py-plugins' container rule read past the end of such a page (IndexError)."""
    page = parse_page("wiki/x.md", text)
    assert page == dataclasses.replace(parse_page("wiki/x.md", text + "\n"), text=text)


# new random examples on every run: a run samples, the runs together explore
@settings(max_examples=500, deadline=None)
@given(text=pages)
@pytest.mark.slow
def test_parser_never_crashes_on_generated_pages(text):
    page = parse_page("wiki/x.md", text)
    for d in page.definitions:
        assert (d.citation is None) != (d.error is None)  # parsed, or says why not
    # the cache gives back exactly what a fresh parse gives
    cached = decode_page(encode_page(page)[0])
    assert cached == dataclasses.replace(page, text="")
    for ref in page.refs:
        assert "\x00" not in ref.claim and ref.line >= 1
    assert page == parse_whole("wiki/x.md", text)  # the definition pre-pass changes nothing


# the end of a page: definitions, some of which no block rule reads as one paragraph, and
# lines that would carry an open block on into them
tail_lines = st.sampled_from(
    [
        '[^1]: raw/a.txt — "q" {@0 sha256:' + "a" * 64 + "}",
        '[^2]: raw/b.txt, p.3 — "a quote"',
        "[^x\ty]: label with a tab",
        "[^3]:no space",
        "[^4]:    four spaces",
        "[^5]:        eight spaces: code",
        "[^6]:\ttab",
        "[^7]: - a list",
        "[^8]: 1. ordered",
        "[^8]: 1.5 not a list",
        "[^9]: ```",
        "[^9]: ~~~",
        "[^9]: > quote",
        "[^9]: # heading",
        "[^9]: <div>",
        "[^9]: [ref]: /url",
        "[^9]: ::: disputed",
        "[^9]: | a | b |",
        "[^9]: ***",
        "[^a b]: space in label",
        "[^]: empty label",
        "[^1]:",
        "[^1]: ",
        "   [^1]: indented",
        "    [^1]: code",
        "[^1]: two ",
        "continued lazily",
        "    indented continuation",
        "|---|---|",
        "===",
        "",
        "",
        " \t",
        "```",
        ":::",
        "<!-- open comment",
        "-->",
        "- item",
        "> quote",
        "    code",
        "1. one",
        "---",
    ]
)


# what a page usually ends with: one-line definitions and blank lines
plain_ends = st.lists(
    st.sampled_from(["", '[^1]: raw/a.txt — "q"', "[^2]: raw/b.txt — 'r' {@3}", "[^1]: again"]),
    min_size=1,
    max_size=6,
)


@settings(max_examples=500, deadline=None)
@given(head=pages, tail=st.lists(tail_lines, max_size=12), ends=plain_ends, crlf=st.booleans())
@pytest.mark.slow
def test_the_definition_pre_pass_parses_exactly_as_markdown_it(head, tail, ends, crlf):
    text = head + "\n" + "\n".join(tail + ends)
    if crlf:
        text = text.replace("\n", "\r\n")
    assert parse_page("wiki/x.md", text) == parse_whole("wiki/x.md", text)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=pages, index=pages)
def test_full_verify_of_generated_pages_yields_only_findings(repo, text, index):
    tip = commit_files(
        repo, None, {"raw/a.txt": "q and more", "wiki/x.md": text, "wiki/index.md": index}
    )
    base = commit_files(repo, None, {"raw/a.txt": "q and more", "wiki/index.md": "# I\n"})
    report = verify_trees(repo, tip, base, config=Config())
    assert not [f for f in report.findings if f.code == "verifier.error"], report.findings


def test_anchor_refuses_repeated_and_missing_quotes(repo):
    tree = WikiTree(
        repo, commit_files(repo, None, {"raw/src.txt": b"ab ab ab"}).tree, PageCache(None)
    )
    with pytest.raises(WikigateError, match=r"occurs 3 times .*offset 0 \(line 1\), offset 3"):
        anchor_tail(FakeWs(repo), "raw/src.txt", "ab", None, tree)
    with pytest.raises(WikigateError, match="does not occur"):
        anchor_tail(FakeWs(repo), "raw/src.txt", "zz", None, tree)


DEFS = '[^1]: raw/a.txt — "q"\n[^2]: raw/b.txt — "r"\n'


@pytest.mark.parametrize(
    ("head", "taken", "definitions"),
    [
        ("# P\n\nA claim.[^1] Another.[^2]\n", True, ["1", "2"]),
        ("# P\n\n- a list item[^1]\n\n", True, ["1", "2"]),
        ("# P\n\n```\nan unclosed fence\n", False, []),
        ("# P\n\n> a quote[^1]\n\n", True, ["1", "2"]),
        ("# P\n\n    indented code\n\n", True, ["1", "2"]),
        ("# P\n\n::: disputed\nA claim.[^1]\n", False, ["1", "2"]),  # inside the container
        ("# P\n\n<!-- an unclosed comment\n", False, []),
        ("---\ntitle: x\n---\n", True, ["1", "2"]),
        ("# P\n\n<div>\nhtml\n", True, ["1", "2"]),  # an HTML block of kind 6 ends at a blank
    ],
)
def test_the_pre_pass_takes_a_tail_only_when_nothing_runs_into_it(head, taken, definitions):
    """The trailing definitions are read line by line only after a parse of the rest
    shows no block running on into them; else markdown-it reads the whole page."""
    from wikigate.verifier.markdown import _definition_tail, _reaches, markdown

    text = f"{head}\n{DEFS}"
    rest, start, tail = _definition_tail(text)
    assert [d.label for d in tail] == ["1", "2"]
    refs = {":" + d.label: -1 for d in tail}
    assert (not _reaches(markdown().parse(rest, {"footnotes": {"refs": refs}}), start)) is taken
    page = parse_page("wiki/x.md", text)
    assert page == parse_whole("wiki/x.md", text)
    assert [d.label for d in page.definitions] == definitions
