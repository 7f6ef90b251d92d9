"""Links to sources and links to nothing (issue 27): a link to a file under raw/ (a
``[[wikilink]]`` by file name or path, a markdown link relative to the page, from the
repository's root or by bare file name, as Obsidian writes them) is a source reference,
never ``link.broken``; a name two sources share is ``link.ambiguous``; ``link.broken``
names where a path link went and the nearest existing page or source, at a bounded cost."""

from __future__ import annotations

import time

import pytest
from support.trees import commit_files
from support.verifying import verify_trees

from wikigate.config import Config, parse_config
from wikigate.verifier.citation import format_tail
from wikigate.verifier.links import NEAREST_SEARCHES, FileNames, SourceLink, source_link
from wikigate.verifier.markdown import Link
from wikigate.verifier.wiki import PageCache, WikiTree

SOURCE = "Cats sleep for sixteen hours a day.\n"
INDEX = "---\ntitle: Index\n---\n# Index\n\n- [[Cats]]\n"


def cats(links: str) -> str:
    quote = "Cats sleep for sixteen hours a day."
    tail = format_tail("raw/animals.txt", None, quote, 0)
    return f"---\ntitle: Cats\n---\n# Cats\n\n{links}\n\n{quote}[^1]\n\n[^1]: {tail}\n"


def base_files() -> dict[str, str]:
    return {
        "raw/animals.txt": SOURCE,
        "raw/github/kubernetes/issue-7342.md": "# Issue 7342\n\nThe scheduler drops pods.\n",
        "raw/github/kubernetes/issue-8001.md": "# Issue 8001\n",
        "raw/github/forks/issue-8001.md": "# Issue 8001, a fork's\n",
        "wiki/index.md": INDEX,
        "wiki/log.md": "# Log\n",
    }


def link_findings(repo, links: str, **more: str):
    files = {**base_files(), "wiki/pages/cats.md": cats(links), **more}
    files["wiki/index.md"] = INDEX + "".join(f"- [[{p[5:-3]}]]\n" for p in more)
    tip = commit_files(repo, None, files)
    report = verify_trees(repo, tip, None, config=Config())
    found = [
        (f.code, f.line, f.message, f.severity)
        for f in report.findings
        if f.code.startswith("link.")
    ]
    return sorted(found), report


@pytest.mark.parametrize(
    "link",
    [
        "[[issue-7342]]",  # Obsidian: by file name, without .md
        "[[issue-7342.md]]",
        "[[raw/github/kubernetes/issue-7342]]",
        "[the issue](../../raw/github/kubernetes/issue-7342.md)",  # relative to the page
        "[the issue](raw/github/kubernetes/issue-7342.md)",  # from the repository's root
        "[the issue](/raw/github/kubernetes/issue-7342.md)",
        "[the issue](issue-7342.md)",  # Obsidian's shortest path: the bare file name
        "[the issue](<raw/github/kubernetes/issue-7342.md>)",
    ],
)
def test_a_link_to_a_source_is_a_source_reference_not_a_broken_link(repo, link):
    found, report = link_findings(repo, f"See {link}.")
    assert found == [], found
    assert report.verdict == "commit"


def test_a_name_two_sources_share_is_ambiguous_and_says_which(repo):
    found, _ = link_findings(repo, "See [[issue-8001]] and [fork](issue-8001.md).")
    assert found == [
        (
            "link.ambiguous",
            6,
            "(issue-8001.md) names 2 sources: raw/github/forks/issue-8001.md, "
            "raw/github/kubernetes/issue-8001.md; which one it means is a guess",
            "minor",
        ),
        (
            "link.ambiguous",
            6,
            "[[issue-8001]] names 2 sources: raw/github/forks/issue-8001.md, "
            "raw/github/kubernetes/issue-8001.md; which one it means is a guess",
            "minor",
        ),
    ]


@pytest.mark.parametrize(
    "link", ["[[issue-7342]]", "[the issue](../raw/github/kubernetes/issue-7342.md)"]
)
def test_a_sentence_linking_a_source_cites_it_unquoted(repo, link):
    """A link in a sentence to a source under raw/ cites that source: the page is not
    page.uncited, the sentence is citation.unquoted (what it proves: the source exists),
    and the page's other statements still need a citation of their own."""
    page = f"---\ntitle: Dogs\n---\n# Dogs\n\nDogs bark at night, see {link}.\n\nDogs dig deep holes in the garden every spring.\n"
    tip = commit_files(
        repo,
        None,
        {**base_files(), "wiki/dogs.md": page, "wiki/index.md": INDEX + "- [[Dogs]]\n"},
    )
    tip = commit_files(repo, tip.id, {"wiki/cats.md": cats("")})
    report = verify_trees(repo, tip, None, config=Config())
    found = [(f.code, f.line, f.severity) for f in report.findings if f.path == "wiki/dogs.md"]
    assert found == [
        ("citation.unquoted", 6, "major"),
        ("page.unsupported_statement", 8, "major"),
    ]
    unquoted = next(f for f in report.findings if f.code == "citation.unquoted")
    assert unquoted.message == (
        f'"Dogs bark at night, see {"issue-7342" if "[[" in link else "the issue"}." links '
        "raw/github/kubernetes/issue-7342.md without a quote: that proves the source exists, "
        "not what the sentence says"
    )
    assert "[^1]: SOURCE" in (unquoted.hint or "")
    assert unquoted.claim and unquoted.claim.startswith("Dogs bark at night, see")
    severe = parse_config('[verifier.severity]\n"citation.unquoted" = "minor"\n', "t")
    report = verify_trees(repo, tip, None, config=severe)
    assert ("citation.unquoted", "minor") in [(f.code, f.severity) for f in report.findings]


def test_a_link_to_no_source_cites_nothing(repo):
    """A link that names no source (a page, or nothing) leaves a page page.uncited."""
    page = "---\ntitle: Dogs\n---\n# Dogs\n\nDogs bark at night, see [[Cats]] and [[issue-9]].\n"
    tip = commit_files(
        repo,
        None,
        {**base_files(), "wiki/dogs.md": page, "wiki/index.md": INDEX + "- [[Dogs]]\n"},
    )
    tip = commit_files(repo, tip.id, {"wiki/cats.md": cats("")})
    report = verify_trees(repo, tip, None, config=Config())
    found = sorted((f.code, f.path) for f in report.findings if f.path == "wiki/dogs.md")
    assert found == [("link.broken", "wiki/dogs.md"), ("page.uncited", "wiki/dogs.md")]


def test_broken_links_name_where_they_went_and_the_nearest_page_or_source(repo):
    found, _ = link_findings(
        repo,
        "See [[Sleep habits]], [[Sleep Habitz]], [s](sleep.md), [z](pages/sleep-habits.md), "
        "[[issue-7432]], [[zzz-unrelated]] and [i](../../raw/github/issue-7342.md).",
        **{"wiki/pages/sleep-habits.md": "---\ntitle: Sleep\n---\n# Sleep\n"},
    )
    messages = sorted(m for code, _, m, _ in found if code == "link.broken")
    assert messages == [
        "(../../raw/github/issue-7342.md) resolves to no page (raw/github/issue-7342.md does "
        "not exist; the nearest source: raw/github/kubernetes/issue-7342.md)",
        "(pages/sleep-habits.md) resolves to no page (wiki/pages/pages/sleep-habits.md does "
        "not exist; a page of that name: wiki/pages/sleep-habits.md)",
        "(sleep.md) resolves to no page (wiki/pages/sleep.md does not exist)",
        "[[Sleep Habitz]] resolves to no page (the nearest page: wiki/pages/sleep-habits.md)",
        "[[Sleep habits]] resolves to no page (the nearest page: wiki/pages/sleep-habits.md)",
        "[[issue-7432]] resolves to no page (the nearest source: "
        "raw/github/kubernetes/issue-7342.md)",
        "[[zzz-unrelated]] resolves to no page",
    ], found


def tree_of(repo, files: dict[str, str]) -> WikiTree:
    return WikiTree(repo, commit_files(repo, None, files).tree, PageCache(None))


def test_the_helper_says_which_source_a_link_resolves_to(repo):
    tree = tree_of(
        repo, {**base_files(), "wiki/pages/cats.md": cats(""), "raw/index.md": "# An index\n"}
    )
    names = FileNames(tree.pages, tree.raw, tree.entries, tree.layout)

    def of(kind: str, target: str) -> SourceLink | None:
        link = Link(kind=kind, target=target, anchor=None, line=1)  # type: ignore[arg-type]
        return names.source_link(
            "wiki/pages/cats.md", link, tree.resolve("wiki/pages/cats.md", link)
        )

    issue = "raw/github/kubernetes/issue-7342.md"
    assert of("wiki", "issue-7342") == SourceLink(issue, (issue,))
    assert of("md", "../../" + issue) == SourceLink(issue, (issue,))
    assert of("md", issue) == SourceLink(issue, (issue,))
    assert of("wiki", "issue-8001") == SourceLink(
        None, ("raw/github/forks/issue-8001.md", "raw/github/kubernetes/issue-8001.md")
    )
    assert of("wiki", "index") is None  # a page
    assert of("md", "index.md") is None  # a bare name a page has too: not a source's
    assert of("wiki", "nothing") is None
    assert of("md", "raw/../wiki/index.md") is None  # not under raw/ once normalized
    link = Link(kind="wiki", target="issue-7342", anchor=None, line=1)
    assert source_link(tree, "wiki/pages/cats.md", link) == SourceLink(issue, (issue,))


def test_nearest_names_cost_a_bounded_search(repo):
    """10,000 pages sharing a prefix, and more broken links than the search budget: each
    lookup compares at most CANDIDATES names, and past NEAREST_SEARCHES it looks up exact
    names only."""
    pages = [f"wiki/topics/topic-{i:05d}.md" for i in range(10_000)]
    names = FileNames(pages, [])
    started = time.process_time()
    said = [names.nearest(f"topic-{i:05d}x") for i in range(NEAREST_SEARCHES + 500)]
    spent = time.process_time() - started
    assert said[0] is not None and said[-1] is None
    assert names.nearest("Topic 00042") == "wiki/topics/topic-00042.md"  # exact: always
    assert spent < 2, f"{spent:.2f} s"
