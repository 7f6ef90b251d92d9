"""Citation dialects real agent-written wikis use (issue 27): path-only, wikilink and link
footnotes, Sources lines, line ranges, location notes and ellipsis-joined quotes. Each is
read and verified as far as it can be: a faithful example passes what it proves, an
unfaithful one still fails, and hostile ones cost linear time and give a located finding."""

from __future__ import annotations

import pytest
from support.cost import assert_linear
from support.trees import commit_files, no_errors
from support.verifying import verify_trees

from wikigate.anchors import anchor_tail
from wikigate.config import Config
from wikigate.verifier.citation import (
    CitationSyntaxError,
    SourceIndex,
    ellipsis_pieces,
    find_pieces,
    parse_definition,
    quote_hash,
)
from wikigate.verifier.wiki import PageCache, WikiTree

MOTZKIN = (
    "'''Motzkin numbers''' count paths.\n"  # line 1
    "== Motzkin Numbers ==\n"  # line 2
    "The nth Motzkin number is the number of ways of drawing chords.\n"  # line 3
    "They are named after Theodore Motzkin.\n"  # line 4
    "== Properties ==\n"  # line 5
    "The numbers grow exponentially.\n"  # line 6
)
ISSUE = (
    "# Scheduler drops pods\n"  # line 1
    "\n"
    "The scheduler drops pods when the queue is full.\n"  # line 3
    "A retry with backoff was proposed by the maintainers.\n"  # line 4
    "The fix landed in release 1.29 after review.\n"  # line 5
)
INDEX = "---\ntitle: Index\n---\n# Index\n\n- [[pages/sched]]\n"
HEAD = "---\ntitle: Scheduler\n---\n# Scheduler\n\n"
CLAIM = "The scheduler drops pods when its queue is full.[^1]\n\n"  # line 6; definition line 8


@pytest.fixture
def base(repo):
    return commit_files(
        repo,
        None,
        {
            "raw/motzkin.wiki": MOTZKIN,
            "raw/kube/issue-7342.md": ISSUE,
            "wiki/index.md": INDEX,
            "wiki/log.md": "# Log\n",
        },
    )


def verify(repo, base, files, config=None):
    tip = commit_files(repo, base.id, files)
    report = verify_trees(repo, tip, base, config=config or Config())
    no_errors(report)
    return report


def codes(report, path="wiki/pages/sched.md"):
    return sorted({f.code for f in report.findings if f.path == path})


def page(definition: str, body: str = CLAIM) -> dict[str, str]:
    return {"wiki/pages/sched.md": HEAD + body + f"[^1]: {definition}\n"}


def anchored(text: str, quote: str) -> str:
    return f"{{@{text.index(quote)} sha256:{quote_hash(quote)}}}"


Q = "The scheduler drops pods when the queue is full."
MQ = "The nth Motzkin number is the number of ways of drawing chords."

# (dialect, faithful definition, the codes it draws, unfaithful definition, the codes it draws)
DIALECTS = [
    ("path", "raw/kube/issue-7342.md, 2026-04-21", ["citation.unquoted"],
     "raw/kube/issue-9999.md, 2026-04-21", ["citation.source_missing"]),
    ("wikilink path", "[[raw/kube/issue-7342]]", ["citation.unquoted"],
     "[[raw/kube/issue-9999]]", ["citation.source_missing"]),
    ("wikilink name", "[[issue-7342|the issue]]", ["citation.unquoted"],
     "[[issue-9999]]", ["citation.source_missing"]),
    ("wikilink, another case", "[[Issue-7342]]", ["citation.unquoted"],
     "[[Issue-7343]]", ["citation.source_missing"]),
    ("wikilink path, another case", "[[RAW/Kube/Issue-7342.md]]", ["citation.unquoted"],
     "[[raw/kube/issue-7342.txt]]", ["citation.source_missing"]),
    ("link", "[issue 7342](../../raw/kube/issue-7342.md)", ["citation.unquoted"],
     "[issue 7342](../raw/kube/issue-7342.md)", ["citation.source_outside_raw"]),
    ("line range", "raw/kube/issue-7342.md L3-L4", ["citation.unquoted"],
     "raw/kube/issue-7342.md L3-L9", ["citation.location"]),
    ("line range #", "raw/kube/issue-7342.md#L3-L5", ["citation.unquoted"],
     "raw/kube/issue-7342.md#L6", ["citation.location"]),
    ("line range :", "raw/kube/issue-7342.md:3-5", ["citation.unquoted"],
     "raw/kube/issue-7342.md:42-58", ["citation.location"]),
    ("section", 'raw/motzkin.wiki §"Motzkin Numbers"', ["citation.unquoted"],
     'raw/motzkin.wiki §"Catalan Numbers"', ["citation.location"]),
    ("notes before the dash", f'raw/motzkin.wiki §"Motzkin Numbers" L3 — "{MQ}"',
     ["citation.anchor_missing"],
     f'raw/motzkin.wiki §"Properties" L3 — "{MQ}" {anchored(MOTZKIN, MQ)}',
     ["citation.location"]),
    ("notes after the quote", f'raw/kube/issue-7342.md — "{Q}" L3 {anchored(ISSUE, Q)}', [],
     f'raw/kube/issue-7342.md — "{Q}" L4 {anchored(ISSUE, Q)}', ["citation.location"]),
    # a page note on a text source names no page: a minor note (the quote is verified)
    ("page note on a text source", f'raw/kube/issue-7342.md — p. 12 "{Q}" {anchored(ISSUE, Q)}',
     ["citation.page_not_pdf"], 'raw/kube/issue-7342.md — p. 12 "The scheduler never drops pods."',
     ["citation.page_not_pdf", "citation.quote_not_found"]),
    ("wikilink with a quote", f'[[issue-7342]] — "{Q}" {anchored(ISSUE, Q)}', [],
     '[[issue-7342]] — "The scheduler never drops pods."', ["citation.quote_not_found"]),
    ("ellipsis", 'raw/kube/issue-7342.md — "The scheduler drops pods … the queue is full"'
     f' {{@{ISSUE.index("The scheduler")} sha256:'
     f'{quote_hash("The scheduler drops pods … the queue is full")}}}', [],
     'raw/kube/issue-7342.md — "the queue is full ... The scheduler drops pods"',
     ["citation.quote_not_found"]),
    ("ellipsis, short pieces", 'raw/kube/issue-7342.md — "drops pods...the queue is full"',
     ["citation.anchor_missing"],
     'raw/kube/issue-7342.md — "The scheduler … pods … the"', ["citation.quote_not_found"]),
    ("ellipsis, three dots", 'raw/kube/issue-7342.md — "drops pods...the queue is full"',
     ["citation.anchor_missing"],
     'raw/kube/issue-7342.md — "drops pods...the queue is empty"', ["citation.quote_not_found"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("faithful", "good", "unfaithful", "bad"),
    [d[1:] for d in DIALECTS],
    ids=[d[0] for d in DIALECTS],
)
def test_each_dialect_verifies_what_it_can_and_an_unfaithful_one_still_fails(
    repo, base, faithful, good, unfaithful, bad
):
    report = verify(repo, base, page(faithful))
    assert codes(report) == good, [f.message for f in report.findings]
    report = verify(repo, base, page(unfaithful))
    assert codes(report) == bad, [f.message for f in report.findings]
    assert report.verdict != "commit"
    wrong = [f for f in report.findings if f.code == bad[-1]]  # the failure (after a note)
    assert [(f.line, f.severity in ("critical", "major")) for f in wrong] == [(8, True)]


def test_an_unquoted_reference_says_what_it_proves_and_the_rules_set_its_severity(repo, base):
    """Not page.uncited (the page cites its source), not a syntax error: citation.unquoted,
    major by default, a warning where the rules say so (a wiki adopting the format)."""
    files = page("raw/kube/issue-7342.md L3-L4")
    report = verify(repo, base, files)
    [f] = report.findings
    assert (f.code, f.severity, f.line) == ("citation.unquoted", "major", 8)
    assert "cites raw/kube/issue-7342.md, L3-L4 without a quote" in f.message
    assert "proves those lines exist, not what the claim says" in f.message
    assert f.hint.endswith('[^1]: raw/kube/issue-7342.md, L3-L4 — "QUOTE"'), f.hint
    assert report.verdict != "commit"
    lenient = Config.model_validate({"verifier": {"severity": {"citation.unquoted": "minor"}}})
    report = verify(repo, base, files, lenient)
    assert [(f.code, f.severity) for f in report.findings] == [("citation.unquoted", "minor")]
    assert report.verdict == "commit"


def test_a_location_note_names_what_does_not_hold(repo, base):
    report = verify(repo, base, page("raw/kube/issue-7342.md L3-L9"))
    [f] = report.findings
    assert f.message == "[^1]: L3-L9: raw/kube/issue-7342.md has 5 lines"
    report = verify(repo, base, page(f'raw/motzkin.wiki §"Properties" — "{MQ}"'))
    [f] = [f for f in report.findings if f.code == "citation.location"]
    assert f.message == '[^1]: the quote is on line 3 of raw/motzkin.wiki, not in §"Properties"'
    report = verify(repo, base, page('raw/motzkin.wiki §"Catalan"'))
    [f] = report.findings
    assert "raw/motzkin.wiki has no section 'Catalan' (its sections: 'Motzkin Numbers'" in f.message
    # a line note in a wikilink's fragment is read too (found by review: it was dropped)
    report = verify(repo, base, page("[[issue-7342#L99]]"))
    assert "L99: raw/kube/issue-7342.md has 5 lines" in report.findings[0].message
    report = verify(repo, base, page(f'[[motzkin.wiki#L1]] — "{MQ}"'))
    [f] = [f for f in report.findings if f.code == "citation.location"]
    assert "the quote is on line 3 of raw/motzkin.wiki, not in L1" in f.message


def test_a_sources_line_cites_the_page_unquoted(repo, base):
    """A page citing by a `**Sources**:` line (or a "Sources" section) of links to raw/ is
    not page.uncited: one citation.unquoted per line says what it proves. Links that name
    no source cite nothing: that page is page.uncited still."""
    body = "The scheduler drops pods when its queue is full.\n\n**Sources**: [[issue-7342]]\n"
    report = verify(repo, base, {"wiki/pages/sched.md": HEAD + body})
    found = [(f.code, f.line) for f in report.findings if f.path == "wiki/pages/sched.md"]
    assert found == [("citation.unquoted", 8)]
    assert (
        "the Sources line cites raw/kube/issue-7342.md without a quote"
        in report.findings[0].message
    )
    section = "The scheduler drops pods.\n\n## Sources\n\n- [issue](../../raw/kube/issue-7342.md)\n"
    report = verify(repo, base, {"wiki/pages/sched.md": HEAD + section})
    assert codes(report) == ["citation.unquoted"]
    nothing = "The scheduler drops pods when its queue is full.\n\nSources: [[raw/kube/gone]]\n"
    report = verify(repo, base, {"wiki/pages/sched.md": HEAD + nothing})
    assert "page.uncited" in codes(report) and "citation.unquoted" not in codes(report)


def test_a_front_matter_sources_field_cites_the_page_unquoted(repo, base):
    """Agent-maintained Obsidian vaults name a page's sources in its front matter
    (`sources: [raw/x.md]`, as the vaults measured in docs/checks.md do): that is the page's
    Sources line, one citation.unquoted at the field's line, not page.uncited. Names that
    are no file under raw/ (`kb:…`, a URL, words) cite nothing: that page is uncited."""
    body = "# Scheduler\n\nThe scheduler drops pods when its queue is full.\n"
    field = "---\ntitle: Scheduler\nsources: [raw/kube/issue-7342.md]\n---\n"
    report = verify(repo, base, {"wiki/pages/sched.md": field + body})
    found = [(f.code, f.line) for f in report.findings if f.path == "wiki/pages/sched.md"]
    assert found == [("citation.unquoted", 3)]
    assert report.findings[0].message.startswith(
        "the front matter's sources field cites raw/kube/issue-7342.md without a quote"
    )
    listed = '---\ntitle: Scheduler\nsources:\n  - "[[issue-7342]]"\n---\n'
    report = verify(repo, base, {"wiki/pages/sched.md": listed + body})
    assert codes(report) == ["citation.unquoted"]
    assert "the front matter's sources field cites raw/kube/issue" in report.findings[0].message
    elsewhere = (
        "---\ntitle: Scheduler\nsources:\n  - kb:issue-7342\n  - web:https://x.org/a b\n---\n"
    )
    report = verify(repo, base, {"wiki/pages/sched.md": elsewhere + body})
    assert codes(report) == ["page.uncited"]


def test_anchor_fix_anchors_a_quote_with_location_notes_in_the_canonical_form(repo, base):
    """It said "nothing to anchor": now the occurrence in the named lines is anchored and
    the notes are kept, written after the source, comma apart."""
    twice = ISSUE + "The scheduler drops pods when the queue is full.\n"  # line 6 too
    tip = commit_files(repo, base.id, {"raw/kube/issue-7342.md": twice})
    tree = WikiTree(repo, tip.tree, PageCache(None))

    class Ws:
        def __init__(self, repo):
            self.repo = repo

    c = parse_definition(f'raw/kube/issue-7342.md §"Scheduler drops pods" L6 — "{Q}"')
    tail = anchor_tail(Ws(repo), "raw/kube/issue-7342.md", Q, None, tree, notes=c)
    at = twice.rindex(Q)
    assert tail == (
        f'raw/kube/issue-7342.md, L6, §"Scheduler drops pods" — "{Q}" {{@{at} sha256:{quote_hash(Q)}}}'
    )
    assert parse_definition(tail)._replace(form="quote") == c._replace(
        offset=at, sha256=quote_hash(Q)
    )


@pytest.mark.parametrize(
    ("tail", "says"),
    [
        (
            "raw/x.md L999999999999",
            "location note 'L999999999999': lines count from 1, with at most 10",
        ),
        ("raw/x.md L0", "lines count from 1"),
        ("raw/x.md L9-L3", "the range ends before it starts"),
        ("raw/x.md " + "L1 " * 50, "more than 6 location notes"),
        ('raw/x.md §"' + "s" * 5000 + '" — "q"', "section note '§\"sssss"),
        ('raw/x.md, pp. 9-3 — "q"', "the range ends before it starts"),
        ("This footnote is an aside, not a citation.", "no quote: expected SOURCE"),
    ],
)
def test_a_hostile_location_note_is_a_located_syntax_error(tail, says):
    with pytest.raises(CitationSyntaxError) as e:
        parse_definition(tail)
    assert says in str(e.value)


@pytest.mark.timing
def test_hostile_dialects_cost_linear_time_and_give_located_findings(repo, base):
    """A line range past the source, an ellipsis quote of 100,000 pieces and one whose
    first piece occurs everywhere: located findings, linear time."""
    many = "a … " * 100_000
    report = verify(
        repo,
        base,
        {
            "wiki/pages/sched.md": HEAD
            + "The scheduler drops pods.[^1] It retries.[^2] It waits.[^3]\n\n"
            + "[^1]: raw/kube/issue-7342.md L1-L9999999999\n"
            + f'[^2]: raw/kube/issue-7342.md — "{many}"\n'
            + '[^3]: raw/motzkin.wiki L999999999 — "Motzkin"\n'
        },
    )
    found = sorted((f.code, f.line) for f in report.findings if f.path == "wiki/pages/sched.md")
    assert found == [
        ("citation.anchor_missing", 10),
        ("citation.location", 8),
        ("citation.location", 10),
        ("citation.quote_not_found", 9),
    ]
    [pieces] = [f for f in report.findings if f.code == "citation.quote_not_found"]
    assert "it has 100000 pieces joined by an ellipsis; at most 20 are searched" in pieces.message
    short = verify(repo, base, page('raw/kube/issue-7342.md — "The scheduler … pods … the"'))
    [f] = [f for f in short.findings if f.code == "citation.quote_not_found"]
    assert "its piece 'the' is too short to search for" in f.message

    def pieces_in(n: int) -> object:
        return find_pieces("abcdefgh " * (n // 9), ["abcdefgh", "zzzzzzzz"])

    assert_linear(pieces_in, 400_000, "an ellipsis quote whose first piece is everywhere")

    def parse(n: int) -> object:
        try:
            return parse_definition("raw/x.md " + "§x " * n + '— "q"')
        except CitationSyntaxError as e:
            return e

    assert_linear(parse, 200_000, "a definition of many notes")
    assert_linear(lambda n: SourceIndex("= a =\n" * n), 400_000, "a source of headings")
    assert_linear(lambda n: ellipsis_pieces("x..." * n), 400_000, "an ellipsis quote's pieces")


def test_a_location_note_is_checked_when_the_anchor_comes_from_the_cache(repo, base, tmp_path):
    """The anchor cache vouches for the quote at its offset, not for the note: a second
    verification that finds the anchor cached still says the note is wrong."""
    cache = tmp_path / "cache.sqlite"
    wrong = page(f'raw/kube/issue-7342.md — "{Q}" L4 {anchored(ISSUE, Q)}')
    right = page(f'raw/kube/issue-7342.md — "{Q}" L3 {anchored(ISSUE, Q)}')
    tip = commit_files(repo, base.id, right)
    assert verify_trees(repo, tip, base, config=Config(), cache_path=cache).findings == []
    for _ in range(2):  # the anchor cached by the first verification, then by this one
        tip = commit_files(repo, base.id, wrong)
        report = verify_trees(repo, tip, base, config=Config(), cache_path=cache)
        assert [(f.code, f.line) for f in report.findings] == [("citation.location", 8)]


def test_each_source_is_indexed_once_however_its_notes_interleave(repo, base, monkeypatch):
    """Line and section notes are checked against an index of the source, built once a
    verification per source: 300 notes alternating between two sources cost two passes
    over them, not 300."""
    from wikigate.verifier.checks import citations

    built = []

    class Counted(SourceIndex):
        def __init__(self, text: str) -> None:
            built.append(len(text))
            super().__init__(text)

    monkeypatch.setattr(citations, "SourceIndex", Counted)
    sources = ["raw/kube/issue-7342.md L3", f'raw/motzkin.wiki L3 — "{MQ}"']
    body = " ".join(
        f"The nth Motzkin number counts ways of drawing chords.[^{i}]" for i in range(300)
    )
    body += "\n\n"
    defs = "".join(f"[^{i}]: {sources[i % 2]}\n" for i in range(300))
    report = verify(repo, base, {"wiki/pages/sched.md": HEAD + body + defs})
    found = {f.code for f in report.findings}
    assert {"citation.unquoted", "citation.anchor_missing"} <= found
    assert "citation.location" not in found and "citation.syntax" not in found
    assert sorted(built) == sorted([len(ISSUE), len(MOTZKIN)])


@pytest.mark.parametrize(
    "cite", ["[[Issue-7342]]", "[[issue-7342]]", "[i](../../raw/kube/issue-7342.md)"]
)
def test_a_warm_verify_all_sees_a_wikilinked_source_go(repo, base, tmp_path, cite):
    """The per-page verdict cache keys a page's row on its sources as the citations check
    resolves them (a wikilink ignoring case, a link against the page): a source deleted
    around the gate is source_missing on the next whole-wiki verify, not a cached pass."""
    cache = tmp_path / "cache.sqlite"
    files = page(f'{cite} — "{Q}" {anchored(ISSUE, Q)}')
    files["wiki/index.md"] = INDEX
    tip = commit_files(repo, base.id, files)
    first = verify_trees(repo, tip, None, config=Config(), cache_path=cache)
    assert codes(first) == []
    gone = commit_files(repo, tip.id, {"raw/kube/issue-7342.md": None})
    again = verify_trees(repo, gone, None, config=Config(), cache_path=cache)
    assert codes(again) == ["citation.source_missing"]


@pytest.mark.parametrize(
    "quote",
    [
        "Our review found the treatment reduced mortality in … patients at all.",
        "the treatment reduced mortality … in children.",
        "The bridge was … opened in 1901.",
        "The drug is … safe for children under five.",  # "un|safe": inside a word
        "Vaccines … to cause autism in 1998.",  # "wrongly thought"
        "The drug is safe … for all children under five.",  # across a CRLF paragraph
        "The ferry runs … in the summer months.",  # across an HTML heading
    ],
)
def test_an_ellipsis_may_not_leave_out_a_negation_or_cross_a_heading(quote):
    """Found by review: an ellipsis dropped "no" ("…mortality in no patients at all") or
    joined a Results sentence to a Safety one, and the claim landed with no finding."""
    from wikigate.verifier.citation import ellipsis_pieces, find_pieces

    source = (
        "## Results\n\nOur review found the treatment reduced mortality in no patients at "
        "all.\n\n## Safety\n\nNo benefit was seen in children.\n\n"
        "The bridge was never opened in 1901.\n"
        "The drug is unsafe for children under five.\n"
        "Vaccines were wrongly thought to cause autism in 1998.\n"
        "Results\r\n\r\nThe drug is safe for adults.\r\n\r\nIt is toxic for all children under "
        "five.\n<p>The ferry runs daily.</p><h2>Myths</h2><p>It runs in the summer months.</p>\n"
    )
    assert find_pieces(source, ellipsis_pieces(quote)) is None
    faithful = "Our review found the treatment … in no patients at all."
    assert find_pieces(source, ellipsis_pieces(faithful)) is not None


def test_a_warm_verify_all_sees_a_linked_source_come_and_go(repo, tmp_path):
    """Whether `[[issue-7342]]` in a sentence names a source depends on the rest of the
    tree, not on the page's blob: the verdict cache keys a page's row on what its links
    resolved to, so a source added in a later commit makes the unchanged page cited (its
    sentence citation.unquoted) on a warm cache, and removing it makes it uncited again."""
    cache = tmp_path / "cache.sqlite"
    body = "The scheduler drops pods when its queue is full, see [[issue-7342]].\n"
    files = {"wiki/index.md": INDEX, "wiki/log.md": "# Log\n", "wiki/pages/sched.md": HEAD + body}
    without = commit_files(repo, None, {"raw/motzkin.wiki": MOTZKIN, **files})
    first = verify_trees(repo, without, None, config=Config(), cache_path=cache)
    assert codes(first) == ["link.broken", "page.uncited"]
    added = commit_files(repo, without.id, {"raw/kube/issue-7342.md": ISSUE})
    again = verify_trees(repo, added, None, config=Config(), cache_path=cache)
    assert codes(again) == ["citation.unquoted"]
    assert "links raw/kube/issue-7342.md without a quote" in again.findings[0].message
    removed = commit_files(repo, added.id, {"raw/kube/issue-7342.md": None})
    last = verify_trees(repo, removed, None, config=Config(), cache_path=cache)
    assert codes(last) == ["link.broken", "page.uncited"]
    rerun = verify_trees(repo, added, None, config=Config(), cache_path=cache)  # all rows warm
    assert codes(rerun) == ["citation.unquoted"]
