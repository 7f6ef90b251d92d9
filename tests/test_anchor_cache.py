"""The anchor cache answers per citation: a page edited around its footnotes reads no
source again, and a cached anchor never vouches for a citation whose source, offset or
reading of the source changed (a warm verify says what a cold one says)."""

from __future__ import annotations

import sqlite3

import pytest
from support.trees import commit_files
from support.verifying import verify_trees
from test_sources import PAGES, pdf

from wikigate.config import Config
from wikigate.verifier.citation import format_tail
from wikigate.verifier.sources import watching_reads

# the quotes' words: the claims name a year the quote leaves out (the offline judge reads
# the window around the quote for it) and quote from inside a sentence (it reads what
# comes before the quote)
SOURCE = (
    "A chronicle of the port.\n"
    "In 1740 the harbour froze in winter, and the mill stopped.\n"
    "Later the mill burned, they say, though the chronicle is not sure.\n"
)
QUOTES = ("the harbour froze in winter", "the mill burned")


def tails(source: str = SOURCE, name: str = "raw/m.txt", shift: int = 0) -> str:
    return "\n".join(
        f"[^{n}]: {format_tail(name, None, q, source.find(q) + (shift if n == 2 else 0))}"
        for n, q in enumerate(QUOTES, 1)
    )


def page(prose: str, footnotes: str) -> str:
    return f"---\ntitle: P\n---\n# P\n\n{prose}\n\n{footnotes}\n"


PROSE = "In 1740 the harbour froze in winter.[^1] Then the mill burned.[^2]"
EDITED = (
    "A new opening paragraph, uncited.\n\n"
    "In 1740, so the records say, the harbour froze in winter.[^1] "
    "In 1741 the mill burned down.[^2]"
)


def files(prose: str = PROSE, footnotes: str | None = None, source: str = SOURCE) -> dict:
    return {
        "raw/m.txt": source,
        "wiki/index.md": "---\ntitle: Index\n---\n# Index\n\n[[P]]\n",
        "wiki/p.md": page(prose, tails(source) if footnotes is None else footnotes),
    }


def verified(repo, commit, cache, base=None):
    """The report (findings as tuples) and the source blobs it read."""
    reads: list[str] = []
    with watching_reads(lambda path, blob: reads.append(path)):
        report = verify_trees(repo, commit, base, config=Config(), cache_path=cache)
    return sorted((f.code, f.path, f.line, f.message) for f in report.findings), reads


def test_an_edit_around_the_footnotes_reads_no_source_again(repo, tmp_path):
    """As the commit hook and the push verify a change: once a page's citations were
    checked, an edit of its prose and claims that leaves its footnotes alone reads no source
    (the anchors and the source text the offline judge reads around each quote are cached
    per citation); nor does a whole-wiki verify after it."""
    cache = tmp_path / "cache.db"
    empty = commit_files(repo, None, {k: v for k, v in files().items() if k != "wiki/p.md"})
    first = commit_files(repo, empty.id, files())
    cold, reads = verified(repo, first, cache, base=empty)
    assert reads  # the cold verify read the source (its quotes, the judge's windows)
    assert verified(repo, first, cache, base=empty) == (cold, [])
    edited = commit_files(repo, first.id, files(EDITED))
    warm, reads = verified(repo, edited, cache, base=first)
    assert reads == []
    assert warm == verified(repo, edited, None, base=first)[0]  # what an uncached one says
    assert any("1741" in message for _, _, _, message in warm)  # the judge saw the edit
    whole, reads = verified(repo, edited, cache)
    assert reads == [] and whole == verified(repo, edited, None)[0]


def test_a_changed_source_or_offset_is_checked_again(repo, tmp_path):
    cache = tmp_path / "cache.db"
    first = commit_files(repo, None, files())
    verified(repo, first, cache)
    # the source's blob changes: its quotes are looked up again, and one is gone
    gone = SOURCE.replace("the mill burned", "the mill stood")
    moved = commit_files(repo, first.id, {"raw/m.txt": gone})
    found, reads = verified(repo, moved, cache)
    assert reads and set(reads) == {"raw/m.txt"}
    assert [code for code, *_ in found if code.startswith("citation.")] == [
        "citation.stale"  # the quote held before the source changed
    ]
    assert found == verified(repo, moved, None)[0]
    # a footnote's offset moves by one: that anchor is checked again, and is wrong
    shifted = commit_files(repo, first.id, {"wiki/p.md": page(PROSE, tails(shift=1))})
    found, reads = verified(repo, shifted, cache)
    assert reads and set(reads) == {"raw/m.txt"}
    (wrong,) = [f for f in found if f[0] == "citation.anchor_mismatch"]
    assert wrong[3].startswith("[^2]: the text at offset")
    assert found == verified(repo, shifted, None)[0]


def test_the_same_blob_named_a_pdf_is_not_vouched_for_by_its_text_reading(repo, tmp_path):
    """One blob, two names: read as text under ``.txt``, as a PDF (which then needs a page)
    under ``.pdf``. The anchor verified as text must not pass the PDF's citation."""
    cache = tmp_path / "cache.db"
    text = commit_files(repo, None, files())
    assert verified(repo, text, cache)[0] == verified(repo, text, None)[0]
    as_pdf = commit_files(
        repo, text.id, {"raw/m.pdf": SOURCE, "wiki/p.md": page(PROSE, tails(name="raw/m.pdf"))}
    )
    cold = verified(repo, as_pdf, None)[0]
    assert [code for code, *_ in cold if code.startswith("citation.")] == [
        "citation.source_unreadable"
    ] * 2
    assert verified(repo, as_pdf, cache)[0] == cold


@pytest.mark.parametrize("limit", [{"pdf_pages": 2}])
def test_a_pdf_anchor_verified_under_looser_limits_is_checked_again(repo, tmp_path, limit):
    """A PDF's text depends on the box it is read in: tighter ``[limits]`` refuse it
    though its anchors verified under the defaults."""
    cache = tmp_path / "cache.db"
    quote = "Ravens can count to five."
    tail = format_tail("raw/h.pdf", 1, quote, 0)
    ok = commit_files(
        repo,
        None,
        {
            "raw/h.pdf": pdf(PAGES),
            "wiki/index.md": "---\ntitle: Index\n---\n# Index\n\n[[P]]\n",
            "wiki/p.md": page("Ravens count.[^1]", f"[^1]: {tail}"),
        },
    )
    default = verify_trees(repo, ok, None, config=Config(), cache_path=cache)
    assert not [f for f in default.findings if f.code.startswith("citation.")]
    tight = Config.model_validate({"limits": limit})
    for path in (None, cache):
        report = verify_trees(repo, ok, None, config=tight, cache_path=path)
        (unreadable,) = [f for f in report.findings if f.code.startswith("citation.")]
        assert unreadable.code == "citation.source_unreadable"
        assert "past the limit of 2 ([limits] pdf_pages)" in unreadable.message


def test_garbage_in_the_windows_table_is_a_cache_miss(repo, tmp_path):
    cache = tmp_path / "cache.db"
    empty = commit_files(repo, None, {k: v for k, v in files().items() if k != "wiki/p.md"})
    first = commit_files(repo, empty.id, files())
    verified(repo, first, cache, base=empty)
    with sqlite3.connect(cache) as db:
        assert db.execute("SELECT count(*) FROM windows").fetchone()[0] >= 1
        db.execute("UPDATE windows SET data = x'00ff10'")
    edited = commit_files(repo, first.id, files(EDITED))
    warm, reads = verified(repo, edited, cache, base=first)
    assert reads == ["raw/m.txt"]  # read again, not trusted
    assert warm == verified(repo, edited, None, base=first)[0]


def test_a_whole_wiki_verify_keeps_no_windows(repo, tmp_path):
    """Windows of every quote would be most of the cache; a whole-wiki verify has the
    per-page verdict cache instead."""
    cache = tmp_path / "cache.db"
    verified(repo, commit_files(repo, None, files()), cache)
    with sqlite3.connect(cache) as db:
        assert db.execute("SELECT count(*) FROM windows").fetchone()[0] == 0


def test_the_judges_source_reads_stay_within_the_memory_budget_read_once_each(
    repo, tmp_path, monkeypatch
):
    """The offline judge reads the words around quotes source by source, keeping at most
    SOURCE_CHARS_KEPT characters of source text (a cold 10k-page verify kept every source:
    2.5 GiB). Pages citing sources in interleaved order read each source once for the
    windows, however small the budget (once in all when the budget holds the text the
    anchors were checked in); the findings are those of an unbounded budget."""
    import wikigate.verifier.wiki as wiki

    names = [f"raw/s{k}.txt" for k in range(6)]
    texts = {
        n: f"Chronicle {n}.\n"
        + "Filler words here. " * 100
        + "the harbour froze in winter, and more.\n"
        for n in names
    }
    quote = "the harbour froze in winter"
    pages = {}
    for i in range(6):
        cited = [names[i], names[(i + 3) % 6]]
        notes = "\n".join(
            f"[^{n}]: {format_tail(src, None, quote, texts[src].find(quote))}"
            for n, src in enumerate(cited, 1)
        )
        pages[f"wiki/p{i}.md"] = page(
            f"In 174{i} the harbour froze in winter.[^1] In 175{i} the harbour froze in winter.[^2]",
            notes,
        )
    index = "---\ntitle: Index\n---\n# Index\n\n" + " ".join(f"[[p{i}]]" for i in range(6)) + "\n"
    commit = commit_files(repo, None, {**texts, **pages, "wiki/index.md": index})
    wide, wide_reads = verified(repo, commit, tmp_path / "wide.db")
    monkeypatch.setattr(wiki, "SOURCE_CHARS_KEPT", len(texts[names[0]]) + 10)  # one source
    narrow, narrow_reads = verified(repo, commit, tmp_path / "narrow.db")
    assert narrow == wide
    assert sorted(wide_reads) == names  # each read once: the anchors' read serves the windows
    # a budget of one source: read once for the anchors, once more for its windows, no more
    assert sorted(narrow_reads) == sorted(names * 2)
    assert any(f[0] == "citation.semantic_conflict" for f in narrow)  # the windows were read


def test_sources_past_the_memory_budget_are_read_again_only_once_each(repo, tmp_path, monkeypatch):
    """A budget of half the cited sources' text: the sources the anchors' pass kept serve
    the judge's windows, and only the others are read again (least-recently-read dropping
    dropped each text just before the windows' pass asked for it: every source read twice,
    the commit hook's case on the benchmark wiki, whose 5 pages cite 10 sources of 10 MB)."""
    import wikigate.verifier.wiki as wiki

    names = [f"raw/s{k}.txt" for k in range(6)]
    texts = {n: f"Chronicle {n}.\n" + "Filler words here. " * 100 + SOURCE for n in names}
    quote = QUOTES[0]
    pages = {}
    for i in range(6):
        cited = [names[i], names[(i + 3) % 6]]
        notes = "\n".join(
            f"[^{n}]: {format_tail(src, None, quote, texts[src].find(quote))}"
            for n, src in enumerate(cited, 1)
        )
        pages[f"wiki/p{i}.md"] = page(
            f"In 174{i} the harbour froze in winter.[^1] In 175{i} the harbour froze in winter.[^2]",
            notes,
        )
    index = "---\ntitle: Index\n---\n# Index\n\n" + " ".join(f"[[p{i}]]" for i in range(6)) + "\n"
    commit = commit_files(repo, None, {**texts, **pages, "wiki/index.md": index})
    wide, _ = verified(repo, commit, tmp_path / "wide.db")
    monkeypatch.setattr(wiki, "SOURCE_CHARS_KEPT", 3 * len(texts[names[0]]) + 10)
    narrow, reads = verified(repo, commit, tmp_path / "narrow.db")
    assert narrow == wide
    assert sorted(set(reads)) == names
    assert len(reads) == 9  # each once for the anchors, 3 of the 6 once more for windows
