"""Every statement accounted for (issue 24, item 1): on a page that cites, a sentence that
asserts something is cited, gap-marked, or allowed by a documented rule
(page.unsupported_statement, ``[statements] granularity``). The verifier on real git
objects, as a push or a run is verified."""

from __future__ import annotations

import time

import pygit2
import pytest
from support.helpers import gated_server, git, push
from support.trees import at, commit_files, no_errors
from support.verifying import verify_trees
from support.wiki_runs import page_run

from wikigate.config import Config, parse_config
from wikigate.verifier.cache import decode_page, encode_page
from wikigate.verifier.citation import format_tail
from wikigate.verifier.claims import page_claims
from wikigate.verifier.markdown import parse_page
from wikigate.workspace import Workspace

SOURCE = "The council met on 4 May 1921 and approved the harbour plan.\n"
QUOTE = "approved the harbour plan"
DEF = f"[^1]: {format_tail('raw/minutes.txt', None, QUOTE, SOURCE.find(QUOTE))}"
CITED = "The council approved the harbour plan.[^1]"
INDEX = "---\ntitle: Index\n---\n# Index\n\n- [[Council]]\n"


def council(body: str) -> str:
    return f"---\ntitle: Council\n---\n# Council\n\n{body}\n\n{DEF}\n"


@pytest.fixture
def repo(tmp_path):
    return pygit2.init_repository(str(tmp_path / "r"), bare=True)


@pytest.fixture
def base(repo):
    return commit_files(
        repo,
        None,
        {
            "raw/minutes.txt": SOURCE,
            "wiki/index.md": INDEX,
            "wiki/log.md": "# Log\n",
            "wiki/council.md": council(CITED),
        },
    )


def verify(repo, base, body: str, *, toml: str = "", extra=None):
    tip = commit_files(repo, base.id, {"wiki/council.md": council(body), **(extra or {})})
    config = parse_config(toml, "wikigate.toml") if toml else Config()
    report = verify_trees(repo, tip, base, config=config)
    no_errors(report)
    return report


def flagged(report) -> list[tuple[int | None, str]]:
    return [(f.line, f.message) for f in at(report, "page.unsupported_statement")]


def test_invented_statements_beside_one_good_citation_are_flagged(repo, base):
    """The issue's example: they committed at SKEPTICAL, since page.uncited fired only
    on a page that cites nothing. Each is named, with its line, and the run revises."""
    body = f"{CITED}\n\nThe council declared war on Canada. Three members were arrested for fraud."
    report = verify(repo, base, body)
    assert flagged(report) == [
        (
            8,
            '"The council declared war on Canada." carries neither a citation nor a '
            "[gap: …] marker ([statements] granularity = 'sentence')",
        ),
        (
            8,
            '"Three members were arrested for fraud." carries neither a citation nor a '
            "[gap: …] marker ([statements] granularity = 'sentence')",
        ),
    ]
    assert report.verdict == "revise"
    assert not at(report, "page.uncited")
    (first, _) = at(report, "page.unsupported_statement")
    assert "wikigate anchor" in (first.hint or "") and "[gap: …]" in (first.hint or "")


def test_an_uncited_sentence_in_a_cited_paragraph_is_flagged_at_sentence_granularity(repo, base):
    report = verify(repo, base, f"{CITED} Its members then declared war on Canada.")
    assert [line for line, _ in flagged(report)] == [6]


def test_cited_gap_marked_and_structural_sentences_pass(repo, base):
    body = (
        f"{CITED} The vote count is unknown [gap: the minutes give no count].\n\n"
        "## Background\n\n"
        "Who drafted the plan first?\n\n"
        "The plan had three parts:\n\n"
        "- [[Index]]\n\n"
        "See [[Index]] for the other pages of this wiki.\n\n"
        "> The harbour is the heart of the town and always will be.\n\n"
        "```\nThe council declared war on Canada in this code block.\n```\n\n"
        "`git commit -m msg` and `make all` here.\n\n"
        "Sources: raw/minutes.txt, raw/letters.txt, raw/deeds.txt\n\n"
        "**Last updated**: 2026-11-26 by the ingest agent\n\n"
        "## See also\n\n"
        "- The index lists every page of the wiki.\n\n"
        "## Notes\n\n"
        "Short line."
    )
    report = verify(repo, base, body)
    assert flagged(report) == []
    assert report.verdict == "commit", report.findings


def test_a_section_after_see_also_is_checked_again(repo, base):
    body = (
        f"{CITED}\n\n## See also\n\n- [[Index]]\n\n## History\n\nThe harbour was dredged in 1930."
    )
    report = verify(repo, base, body)
    assert [line for line, _ in flagged(report)] == [14]


def test_paragraph_granularity_lets_a_cited_paragraph_cover_its_sentences(repo, base):
    body = f"{CITED} It was a long meeting.\n\nThe council declared war on Canada."
    toml = '[statements]\ngranularity = "paragraph"\n'
    report = verify(repo, base, body, toml=toml)
    assert flagged(report) == [
        (
            8,
            '"The council declared war on Canada." carries neither a citation nor a '
            "[gap: …] marker ([statements] granularity = 'paragraph')",
        )
    ]


def test_page_granularity_is_the_old_rule(repo, base):
    body = f"{CITED}\n\nThe council declared war on Canada."
    report = verify(repo, base, body, toml='[statements]\ngranularity = "page"\n')
    assert flagged(report) == []
    assert report.verdict == "commit", report.findings


def test_a_page_citing_nothing_is_page_uncited_not_one_finding_per_sentence(repo, base):
    uncited = "---\ntitle: Harbour\n---\n# Harbour\n\nThe harbour was dredged in 1930.\n"
    tip = commit_files(
        repo,
        base.id,
        {"wiki/harbour.md": uncited, "wiki/index.md": INDEX + "- [[Harbour]]\n"},
    )
    report = verify_trees(repo, tip, base)
    assert [f.path for f in at(report, "page.uncited")] == ["wiki/harbour.md"]
    assert flagged(report) == []


def test_structural_pages_are_exempt(repo, base):
    index = INDEX + "\nThis wiki collects what the council minutes say.[^1]\n\n" + DEF + "\n"
    index += "\nThe council declared war on Canada.\n"
    tip = commit_files(repo, base.id, {"wiki/index.md": index})
    report = verify_trees(repo, tip, base)
    no_errors(report)
    assert flagged(report) == []


def test_many_statements_are_summed_up_after_twenty(repo, base):
    body = (
        CITED + "\n\n" + "\n\n".join(f"The harbour had {n} new boats that year." for n in range(30))
    )
    found = at(verify(repo, base, body), "page.unsupported_statement")
    assert len(found) == 21
    assert found[-1].message.startswith("10 more statements carry neither")


def test_a_cached_parse_keeps_the_statements():
    page = parse_page("wiki/p.md", council(f"{CITED} The council declared war on Canada."))
    data, _ = encode_page(page)
    assert decode_page(data).statements == page.statements
    assert [s.text for s in page.statements] == ["The council declared war on Canada."]


# --- at the server gate: a real bare repository with the hooks installed, real `git push`


@pytest.mark.parametrize(
    "invented",
    ["The owls declared war on Canada.", "<p>The owls declared war on Canada.</p>"],
    ids=["markdown", "html"],
)
def test_the_server_refuses_an_invented_statement_beside_a_good_citation(tmp_path, invented):
    ws = Workspace.init(tmp_path / "client")
    assert page_run(ws, "owls").status == "committed"
    bare = gated_server(ws.root, tmp_path)
    git(ws.root, "remote", "add", "origin", str(bare))
    before = git(bare, "rev-parse", "main").stdout.strip()
    page = ws.root / "wiki" / "owls.md"
    page.write_text(page.read_text() + f"\n{invented}\n")
    git(ws.root, "-c", "core.hooksPath=/dev/null", "commit", "-qam", "invent")
    proc = push(ws.root, "origin", "main:refs/heads/main")
    assert proc.returncode != 0, proc.stderr
    assert "page.unsupported_statement" in proc.stderr
    assert '"The owls declared war on Canada."' in proc.stderr
    assert git(bare, "rev-parse", "main").stdout.strip() == before
    ws.close()


# --- found by the hostile review of issue 24: invented text the rule did not read


def statement_lines(report) -> list[tuple[int | None, str]]:
    """(line, the statement's text) of each page.unsupported_statement."""
    return [(line, message.split('" carries')[0].lstrip('"')) for line, message in flagged(report)]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            f"{CITED}\n\n<p>The council declared war on Canada.</p>",
            (8, "The council declared war on Canada."),
        ),
        (
            f"{CITED}\n\n<table>\n<tr><td>1921</td>\n<td>Three members were arrested for fraud.</td></tr>\n</table>",
            (10, "Three members were arrested for fraud."),
        ),
        (
            f"{CITED}\n\n<div>\n\nThe council declared war on Canada.\n\n</div>",
            (10, "The council declared war on Canada."),
        ),
        (
            f"{CITED}\n\n![The council declared war on Canada](war.png)",
            (8, "The council declared war on Canada"),
        ),
        (
            f'{CITED}\n\n<div><img src="w.png" alt="The council declared war on Canada"></div>',
            (8, "The council declared war on Canada"),
        ),
    ],
)
def test_html_blocks_and_image_alt_text_are_held_to_the_rule(repo, base, body, expected):
    assert statement_lines(verify(repo, base, body)) == [expected]


def test_code_in_html_states_nothing(repo, base):
    """(A comment that asserts is hidden text since the fifth review: see below.)"""
    body = (
        f"{CITED}\n\n"
        "<pre>The council declared war on Canada in code.</pre>\n\n"
        "<p><code>the council declared war on Canada</code></p>"
    )
    assert flagged(verify(repo, base, body)) == []


def test_hostile_html_costs_linear_time():
    from wikigate.verifier.markdown import html_text

    for unit in ("<a ", "<!--", '<a b="', '<a b=">', "<![CDATA[>", "</"):
        t = time.process_time()
        html_text("<div>" + unit * (100_000 // len(unit)))
        assert time.process_time() - t < 2.0, unit  # html.parser alone: minutes on "<a "


def test_html_past_the_limit_is_not_let_through_unread():
    from wikigate.verifier.markdown import HTML_CHARS

    page = parse_page("wiki/p.md", council(f"{CITED}\n\n<div>{'x ' * HTML_CHARS}</div>"))
    assert any("not read" in s.text for s in page.statements)


@pytest.mark.parametrize(
    ("body", "expected"),
    [  # a clause of its own after the sentence's last reference is not what it cites
        (
            "The council approved the harbour plan[^1]; the council declared war on Canada.",
            (6, "the council declared war on Canada."),
        ),
        (
            "The council approved the harbour plan[^1], but the council declared war on Canada.",
            (6, "the council declared war on Canada."),
        ),
        # a reference ends its sentence, whatever case the next word starts with
        (
            "The council approved the harbour plan.[^1] the council declared war on Canada.",
            (6, "the council declared war on Canada."),
        ),
    ],
)
def test_text_after_the_last_reference_is_not_covered_by_it(repo, base, body, expected):
    report = verify(repo, base, body)
    assert statement_lines(report) == [expected]


def test_the_claim_ends_at_the_reference_that_ends_its_sentence():
    page = parse_page(
        "wiki/p.md", council("The council approved the harbour plan.[^1] the rest is mine.")
    )
    assert [r.claim for r in page.refs] == ["The council approved the harbour plan."]


def test_a_list_continued_after_a_reference_is_no_new_clause(repo, base):
    body = "The plan was backed by the mayor[^1] and by the bishop of the diocese."
    assert flagged(verify(repo, base, body)) == []


@pytest.mark.parametrize(
    ("body", "expected"),
    [  # exemptions too wide to carry an assertion, narrowed
        (
            f"{CITED}\n\n## The council declared war on Canada in 1921.",
            (8, "The council declared war on Canada in 1921."),
        ),
        (
            f"{CITED}\n\nThe council has declared war on Canada\n---",
            (8, "The council has declared war on Canada"),
        ),
        (
            f"{CITED}\n\n## References\n\nThe council declared war on Canada in the spring.",
            (10, "The council declared war on Canada in the spring."),
        ),
        (
            f"{CITED}\n\nSources: raw/minutes.txt, and the council declared war on Canada.",
            (8, "Sources: raw/minutes.txt, and the council declared war on Canada."),
        ),
        (
            f"{CITED}\n\nSee the minutes, where the council declared war on Canada.",
            (8, "See the minutes, where the council declared war on Canada."),
        ),
        (f"{CITED}\n\nWar was declared.", (8, "War was declared.")),
        (
            f"{CITED}\n\nThe council declared war on Canada in 1921?",
            (8, "The council declared war on Canada in 1921?"),
        ),
        (
            f"{CITED}\n\nThe `council declared war on Canada` today.",
            (8, "The council declared war on Canada today."),
        ),
    ],
)
def test_a_heading_label_pointer_or_short_sentence_that_asserts_is_a_statement(
    repo, base, body, expected
):
    assert statement_lines(verify(repo, base, body)) == [expected]


def test_navigation_and_structure_stay_exempt(repo, base):
    body = (
        "This article is about the harbour council of Fife.\n\n"
        "For the council of the village in Kent, see [[Index]].\n\n"
        f"{CITED}\n\n"
        "The table below summarises the votes of the council.\n\n"
        "Did the council ever vote on the harbour plan, and was it recorded?\n\n"
        "## Votes cast by the council members in each year\n\n"
        "| Year | Votes |\n|---|---|\n| 1921 | 4 |\n\n"
        "## References\n\n"
        "- [[Index]] and the minutes of the council in 1921\n\n"
        "[[Index]] — the other pages of this wiki\n"
        "[[Index]] — the same pages again, as a list\n\n"
        "Short label here."
    )
    report = verify(repo, base, body)
    assert flagged(report) == []
    assert report.verdict == "commit", report.findings


# --- the third hostile review of issue 24: labels and page-about-itself sentences state
# nothing; any clause after a sentence's last reference is its own


@pytest.mark.parametrize(
    "body",
    [
        "![Diagram of a first-order Fresnel lens](lens.png)",
        "![Map of the harbour in 1921](map.png)",
        "| Year the decision was taken | First keeper of the light |\n|---|---|\n| 1921 | Smith |",
        "| Minutes of the Harbour Board, 1921 | 4 |\n|---|---|\n| a | b |",
        "<details><summary>Details of the 1999 listing</summary>\n\nx</details>",
        "<figure><img src=a.png><figcaption>Map of the harbour in 1921</figcaption></figure>",
        "- Light first lit with the lens\n- Lens replaced by a rotating beacon",
        "This page lists the resident keepers of the light in order of service.",
        "This page summarises what the minutes say about the harbour.",
        "This section covers the years from 1921 to 1930 of the board.",
        "Below is a list of the keepers of the light.",
        "The following sections describe the changes to the light.",
        "The sections below follow the changes in the order they happened.",
        "The photograph below shows the light in 1921 from the sea.",
        '"Harbour Light" redirects here. For the song, see [[Index]].',
        "For its keepers, see Keepers of St. Andrews Point.",
        "Dates are given as in the minutes.",
        "All figures are from the harbour board minutes.",
        "*Last reviewed: 2026-11-01 by the editor*",
        "TODO: add the keepers after 1950 to the list.",
    ],
)
def test_a_label_or_a_sentence_about_the_page_itself_is_no_statement(repo, base, body):
    report = verify(repo, base, f"{CITED}\n\n{body}")
    assert flagged(report) == []
    assert report.verdict == "commit", report.findings


@pytest.mark.parametrize(
    ("body", "expected"),
    [  # a label or a pointer that asserts is still a statement
        (
            "The table below shows that the council declared war on Canada in 1921.",
            "The table below shows that the council declared war on Canada in 1921.",
        ),
        (
            "- Revokes the harbour licence of every fishing boat",
            "Revokes the harbour licence of every fishing boat",
        ),
        (
            "| The mayor was arrested for fraud | 1922 |\n|---|---|\n| a | b |",
            "The mayor was arrested for fraud",
        ),
        (
            "See [[Index]]: the council declared war on Canada in 1921.",
            "See Index: the council declared war on Canada in 1921.",
        ),
        (
            "See [[Index]] (the council declared war on Canada in 1921).",
            "See Index (the council declared war on Canada in 1921).",
        ),
        ("The mayor fled.", "The mayor fled."),
        ("Smith lied.", "Smith lied."),
        ("Canada fell.", "Canada fell."),
    ],
)
def test_a_label_pointer_or_short_sentence_with_a_verb_still_asserts(repo, base, body, expected):
    found = statement_lines(verify(repo, base, f"{CITED}\n\n{body}"))
    assert [text for _, text in found] == [expected]


@pytest.mark.parametrize(
    ("joint", "expected"),
    [
        (" — the council then declared war on Canada.", "the council then declared war on Canada."),
        (
            " because the council declared war on Canada.",
            "because the council declared war on Canada.",
        ),
        (
            ", after which the council declared war on Canada.",
            "after which the council declared war on Canada.",
        ),
        (
            ", which led to war with Canada in the spring.",
            "which led to war with Canada in the spring.",
        ),
        (", when the council declared war on Canada.", "when the council declared war on Canada."),
        (" and the council declared war on Canada.", "the council declared war on Canada."),
        (": the council declared war on Canada.", "the council declared war on Canada."),
        (", the council declared war on Canada.", "the council declared war on Canada."),
    ],
)
def test_any_clause_after_the_last_reference_is_not_covered_by_it(repo, base, joint, expected):
    """Before, only ", and" / ", but" / ";" (and a few more) opened a clause of its own."""
    report = verify(repo, base, f"The council approved the harbour plan[^1]{joint}")
    assert statement_lines(report) == [(6, expected)]


def test_a_reference_before_the_stop_ends_the_claim_too(repo, base):
    """ "…in full[^1]. the council declared…" was one claim: the invented half rode along."""
    body = "The council approved the harbour plan in full[^1]. the council declared war on Canada."
    page = parse_page("wiki/council.md", council(body))
    assert [r.claim for r in page.refs] == ["The council approved the harbour plan in full."]
    assert statement_lines(verify(repo, base, body)) == [(6, "the council declared war on Canada.")]


@pytest.mark.parametrize(
    ("body", "expected"),
    [  # headings in raw HTML and headlines are held to the heading rule
        (
            "<h2>The council declared war on Canada in 1921.</h2>",
            "The council declared war on Canada in 1921.",
        ),
        (
            "<textarea>The council declared war on Canada in 1921.</textarea>",
            "The council declared war on Canada in 1921.",
        ),
        ("## Council declares war on Canada in 1921", "Council declares war on Canada in 1921"),
        ("## Mayor fled to Canada in 1922", "Mayor fled to Canada in 1922"),
    ],
)
def test_an_html_heading_or_a_headline_that_asserts_is_a_statement(repo, base, body, expected):
    found = statement_lines(verify(repo, base, f"{CITED}\n\n{body}"))
    assert [text for _, text in found] == [expected]


def test_a_heading_of_a_topic_stays_exempt_in_html_and_with_numbers(repo, base):
    body = (
        "<h2>Keepers of the light</h2>\n\n"
        "## Manual approval (recommended, documented from 26.6)\n\n"
        "## Votes cast by the council members in 1921\n\n"
        '<p title="Votes of 1921">1921</p>'  # a title that asserts: hidden text (below)
    )
    report = verify(repo, base, f"{CITED}\n\n{body}")
    assert flagged(report) == []


@pytest.mark.parametrize(
    ("body", "expected"),
    [  # exemptions that carried assertions
        (
            "> [!summary]\n> The harbour board was dissolved by royal decree in 1922.",
            "The harbour board was dissolved by royal decree in 1922.",
        ),
        (
            "Did you know that the council declared war on Canada in 1921?",
            "Did you know that the council declared war on Canada in 1921?",
        ),
        (
            "The mayor fled to Canada in 1921, didn't he?",
            "The mayor fled to Canada in 1921, didn't he?",
        ),
        (
            "## See also\n\n- [[Index]] — the council declared war on Canada and the mayor fled.",
            "Index — the council declared war on Canada and the mayor fled.",
        ),
        (
            "## See also\n\n[[Index]] — the council declared war on Canada and the mayor fled.",
            "Index — the council declared war on Canada and the mayor fled.",
        ),
        (
            "Sources: raw/minutes.txt; council declared war on Canada.",
            "Sources: raw/minutes.txt; council declared war on Canada.",
        ),
    ],
)
def test_a_callout_an_asserting_question_or_an_annotated_link_is_a_statement(
    repo, base, body, expected
):
    found = statement_lines(verify(repo, base, f"{CITED}\n\n{body}"))
    assert [text for _, text in found] == [expected]


def test_quotes_questions_and_described_links_stay_exempt(repo, base):
    body = (
        "> The harbour board was dissolved by royal decree in 1922.\n\n"
        "Did the council ever vote on the harbour plan?\n\n"
        "## See also\n\n"
        "- [[Index]] — the dredging of the harbour in 1930 and after\n"
        "- [[Index]] — storage patterns affected by the dredging of the harbour\n"
        "- [[Index]] — the rules that apply to every keeper of the light\n"
    )
    report = verify(repo, base, f"{CITED}\n\n{body}")
    assert flagged(report) == []


def test_a_related_pages_item_naming_its_link_with_a_noun_after_an_article_is_exempt(repo, base):
    """A word ending in s right after an article is a noun, never a verb in the third
    person: "the types the importer knows how to wrap" describes its link (a false flag
    on the Karpathy-pattern wiki measured in docs/checks.md); "the mutating webhook
    stamps the gate" still asserts."""
    body = (
        "## Related pages\n\n"
        "- [[Index]] — the types the importer knows how to wrap.\n"
        "- [[Index]] — the mutating webhook stamps the gate.\n"
    )
    report = verify(repo, base, f"{CITED}\n\n{body}")
    assert [line for line, _ in flagged(report)] == [11]
    assert "the mutating webhook stamps the gate." in flagged(report)[0][1]


def test_a_lead_in_that_states_a_dated_event_is_a_statement(repo, base):
    body = "The council declared war on Canada in 1921 for three reasons:\n\n- a\n- b\n- c"
    found = statement_lines(verify(repo, base, f"{CITED}\n\n{body}"))
    assert found == [(8, "The council declared war on Canada in 1921 for three reasons:")]


def test_a_gap_marker_without_a_reason_accounts_for_nothing(repo, base):
    """`[gap: ]` carried an invented sentence past the rule (hostile review): a gap marker
    says what the sources do not say; an empty one marks nothing."""
    body = f"{CITED} The bridge collapsed in 2024 [gap: ]. The tower fell in 1930 [gap: no record]."
    [(line, message)] = flagged(verify(repo, base, body))  # the empty one only
    assert "The bridge collapsed in 2024" in message


# --- found by the fourth review of issue 24


@pytest.mark.parametrize(
    ("body", "expected"),
    [  # invented text the rule let through
        ("Why did the bridge collapse in 2024?", "Why did the bridge collapse in 2024?"),
        ("## Why did the bridge collapse in 2024?", "Why did the bridge collapse in 2024?"),
        (
            "- What caused the bridge to collapse in 2024, killing 12 people?",
            "What caused the bridge to collapse in 2024, killing 12 people?",
        ),
        (
            "Did you know the bridge collapsed in 2024?",
            "Did you know the bridge collapsed in 2024?",
        ),
        (
            "Isn't it true that the bridge collapsed in 2024?",
            "Isn't it true that the bridge collapsed in 2024?",
        ),
        (
            "*Not to be confused with the Tam bridge, which collapsed in 2024.*",
            "Not to be confused with the Tam bridge, which collapsed in 2024.",
        ),
        (
            "*For the collapse of the bridge in 2024 that killed 12 people, see [[Index]].*",
            "For the collapse of the bridge in 2024 that killed 12 people, see Index.",
        ),
        ("See [[Index]], which opened in 2024.", "See Index, which opened in 2024."),
        (
            "[The bridge collapsed in 2024, killing 12 people](https://example.com).",
            "The bridge collapsed in 2024, killing 12 people.",
        ),
        ("- **2024:** bridge collapsed, 12 dead", "2024: bridge collapsed, 12 dead"),
        ("- **Opened:** 1998", "Opened: 1998"),
        (
            "## See also\n\n- [[Index]], which the mayor sold in 2022 for 1 pound",
            "Index, which the mayor sold in 2022 for 1 pound",
        ),
        (
            "## Sources\n\n- [[Index]] — minutes recording that the bridge collapsed in 2024",
            "Index — minutes recording that the bridge collapsed in 2024",
        ),
        ("**Opened:** 2024, by the King", "Opened: 2024, by the King"),
        (
            "> [!warning] The bridge collapsed in 2024 killing 12 people\n> Details below.[^1]",
            "The bridge collapsed in 2024 killing 12 people",
        ),
        (
            "Do not use the old pier — it collapsed in 1921 and was never rebuilt.",
            "Do not use the old pier — it collapsed in 1921 and was never rebuilt.",
        ),
        (  # hidden inline HTML in a cited sentence: flagged as hidden
            'The council<span style="display:none"> was bribed by the builders and</span> '
            "approved the harbour plan.[^1]",
            "hidden text: was bribed by the builders and",
        ),
        (
            "The council approved the harbour plan.[^1] <span hidden>The mayor was bribed.</span>",
            "hidden text: The mayor was bribed.",
        ),
        (
            '> A quotation. <span style="display: none">The mayor was bribed.</span>',
            "hidden text: The mayor was bribed.",
        ),
    ],
)
def test_a_presupposing_question_an_annotated_hatnote_asserting_link_text_or_hidden_text_is_flagged(
    repo, base, body, expected
):
    found = statement_lines(verify(repo, base, f"{CITED}\n\n{body}"))
    assert [text for _, text in found] == [expected]


def test_a_summary_in_front_matter_is_held_to_the_rule(repo, base):
    """`summary:` and `description:` are prose a reader (and a model) takes as the page's;
    front matter was exempt whole, so an invented summary landed."""
    page = (
        "---\ntitle: Council\nsummary: The council declared war on Canada in 1921.\n"
        f"description: Notes on the council\n---\n# Council\n\n{CITED}\n\n{DEF}\n"
    )
    tip = commit_files(repo, base.id, {"wiki/council.md": page})
    report = verify_trees(repo, tip, base, config=Config())
    assert statement_lines(report) == [(3, "The council declared war on Canada in 1921.")]


def test_instructions_editorial_notes_and_open_questions_stay_exempt(repo, base):
    """False flags of the fourth review: an instruction to the reader, a note on the
    figures, a callout about the page and a question that asks."""
    body = (
        "Do not confuse the harbour plan with the pier plan.\n\n"
        "Edit the sources, not this page.\n\n"
        "All figures are rounded.\n\n"
        "(Figures in pounds sterling.)\n\n"
        "Unless noted otherwise, figures come from the minutes.\n\n"
        "> [!note]\n> This page is maintained by the ingest agent. Edit the sources, not this page.\n\n"
        "> [!info] Status\n> Proposal only; see the sources below.\n\n"
        "When was the harbour plan formally approved?\n\n"
        'The council approved the harbour plan <span aria-hidden="true">(icon)</span> '
        'in full<input type="hidden" name="x">.[^1]\n\n'
        "## Open questions\n\n- Who chaired the meeting, if anyone?\n\n"
        "- **Status:** draft\n- Created: 2024-01-01\n\n"
        "## Glossary\n\n- **Quorum:** the minimum number of members needed for a vote.\n\n"
        "## Changelog\n\n- 2026-11-26: page created from raw/minutes.txt.\n"
    )
    assert flagged(verify(repo, base, f"{CITED}\n\n{body}")) == []


HOSTILE_PROSE = [
    '<span style="display:none">a ',
    "<span hidden><span hidden>a</span> ",
    "Why did the 2024 collapse happen ",
    "See [[a]], which opened ",
    "[the bridge was built in 1901](x.md) ",
    "Do not use the pier; ",
    "- **2024:** bridge collapsed\n",
    "> [!note] a\n",
    "<!-- The mayor stole the funds. --> ",
    "<!-- ",
    "[//]: # (The mayor stole the funds.)\n",
    "| took the funds | a |\n",
]


@pytest.mark.parametrize("unit", HOSTILE_PROSE)
@pytest.mark.timing
def test_the_fourth_reviews_rules_take_linear_time_on_hostile_pages(unit):
    _linear(unit)


# --- found by the fifth review of issue 24


def test_the_month_may_is_no_modal_and_a_front_matter_label_may_end_in_a_stop(repo, base):
    """False flags: "May" the month was read as the auxiliary "may" (a References item, a
    See-also item, a list item), and a `description:` label ending in a full stop was
    held to be a sentence. Each is a label, as with "June" or without the stop."""
    body = (
        "- Harbour Board meeting of 3 May 1921\n\n"
        "## See also\n\n- [[Index|Minutes]], the record of the meeting held in May\n\n"
        "## References\n\n- Minutes of the Harbour Board, 3 May 1921\n"
    )
    assert flagged(verify(repo, base, f"{CITED}\n\n{body}")) == []
    page = (
        "---\ntitle: Council\ndescription: Notes on the harbour and the council.\n"
        "summary: Tamford's harbour board and its 1921 plan.\n"
        f"---\n# Council\n\n{CITED}\n\n{DEF}\n"
    )
    tip = commit_files(repo, base.id, {"wiki/council.md": page})
    assert statement_lines(verify_trees(repo, tip, base, config=Config())) == []


def test_the_modal_may_and_a_front_matter_sentence_still_assert(repo, base):
    """The fix reads the month, not every "may": a sentence with the modal, a summary
    with a verb and a stop, are still statements."""
    body = "- The harbour may close in May"
    assert statement_lines(verify(repo, base, f"{CITED}\n\n{body}")) == [
        (8, "The harbour may close in May")
    ]
    page = (
        "---\ntitle: Council\ndescription: The council declared war on Canada.\n"
        f"---\n# Council\n\n{CITED}\n\n{DEF}\n"
    )
    tip = commit_files(repo, base.id, {"wiki/council.md": page})
    report = verify_trees(repo, tip, base, config=Config())
    assert statement_lines(report) == [(3, "The council declared war on Canada.")]


@pytest.mark.parametrize(
    ("body", "expected"),
    [  # an irregular past ("stole", "took") read as a finite verb
        (
            "Read [the mayor stole the harbour funds](index.md).",
            "Read the mayor stole the harbour funds.",
        ),
        (
            "| The mayor stole the harbour funds | Year |\n|---|---|\n| a | 1921 |",
            "The mayor stole the harbour funds",
        ),
        (
            "| Name | Deed |\n|---|---|\n| Jane Hill | took bribes from the board |",
            "took bribes from the board",
        ),
        ("- **1921:** mayor stole funds", "1921: mayor stole funds"),
        ("Hill stole millions.", "Hill stole millions."),
        ("Hill forgave debts.", "Hill forgave debts."),
        # a presupposing question with its year or count in words
        (
            "Why did the mayor flee to Canada in nineteen twenty-two?",
            "Why did the mayor flee to Canada in nineteen twenty-two?",
        ),
        (
            "What caused the bridge to collapse, killing twelve people?",
            "What caused the bridge to collapse, killing twelve people?",
        ),
        # a comment: hidden from a reader, read by a model
        (
            "<!-- The mayor stole the harbour funds in 1922. -->",
            "hidden text: The mayor stole the harbour funds in 1922.",
        ),
        (
            "The council approved the harbour plan.[^1] <!-- The mayor was bribed by the builders. -->",
            "hidden text: The mayor was bribed by the builders.",
        ),
        (
            "[//]: # (The mayor stole the harbour funds in 1922.)",
            "hidden text: The mayor stole the harbour funds in 1922.",
        ),
    ],
)
def test_an_irregular_past_a_question_in_words_or_a_comment_is_flagged(repo, base, body, expected):
    found = statement_lines(verify(repo, base, f"{CITED}\n\n{body}"))
    assert [text for _, text in found] == [expected]


def test_comments_that_assert_nothing_and_suppressions_stay_exempt(repo, base):
    """A note to the writer, a comment of a word or two, wikigate's own suppression
    comment and a comment inside code are no hidden statement."""
    body = (
        "<!-- TODO: add the 1922 accounts -->\n\n<!-- end of the lead -->\n\n"
        "The council approved the harbour plan.[^1] "
        '<!-- wikigate: ignore page.unsupported_statement reason="the minutes are lost" -->\n\n'
        "[//]: # (section break)\n\n"
        "```\n<!-- The mayor stole the harbour funds in 1922. -->\n"
        "[//]: # (The mayor stole the harbour funds in 1922.)\n```\n\n"
        "When was the harbour plan formally approved?\n\n"
        "| Name | Role |\n|---|---|\n| Jane Hill | Mayor of the borough |\n"
    )
    assert flagged(verify(repo, base, f"{CITED}\n\n{body}")) == []


def test_may_the_modal_first_in_an_item_still_asserts(repo, base):
    """Found measuring the month rule on real wikis: "May" first and a verb after it is the
    modal ("May attack or call guards"), not the month."""
    body = "- May attack the guards\n- May 1921 and June 1921"
    assert statement_lines(verify(repo, base, f"{CITED}\n\n{body}")) == [
        (8, "May attack the guards")
    ]


# --- found by the sixth review of issue 24


@pytest.mark.parametrize(
    ("body", "expected"),
    [  # split by code spans or links: read as the sentence a reader sees
        ("`Mayor Jane Hill` `embezzled` `the funds`.", "Mayor Jane Hill embezzled the funds."),
        (
            "[Mayor Hill](index.md) [stole the](index.md) harbour funds.",
            "Mayor Hill stole the harbour funds.",
        ),
        # a pointer or an instruction with "that" left out and a clause after it
        (
            "The table below shows the mayor stole the harbour funds.",
            "The table below shows the mayor stole the harbour funds.",
        ),
        (
            "Remember the mayor stole the harbour funds.",
            "Remember the mayor stole the harbour funds.",
        ),
        (
            "Thank the mayor, who stole the harbour funds.",
            "Thank the mayor, who stole the harbour funds.",
        ),
        # a clause after a reference with a gerund, "having", or an interjection
        (
            "The council approved the harbour plan[^1], with the mayor stealing the harbour funds.",
            "with the mayor stealing the harbour funds.",
        ),
        (
            "The council approved the harbour plan[^1] and, in 1922, the mayor stole the funds.",
            "and, in 1922, the mayor stole the funds.",
        ),
        (
            "The council approved the harbour plan[^1], despite the mayor having stolen the funds.",
            "despite the mayor having stolen the funds.",
        ),
        # a subordinate clause opening a cited sentence states its own event
        (
            "After the mayor fled to Canada in 1922, the council approved the harbour plan.[^1]",
            "After the mayor fled to Canada in 1922",
        ),
        # a hatnote with an aside that asserts
        (
            "Not to be confused with the Tam bridge (collapsed in 2024, killing 12 people).",
            "Not to be confused with the Tam bridge (collapsed in 2024, killing 12 people).",
        ),
        (
            "This article is about the harbour board (dissolved after the mayor's fraud).",
            "This article is about the harbour board (dissolved after the mayor's fraud).",
        ),
        # a title: a tooltip at most, read by a model
        (
            'Read [the minutes](index.md "The mayor stole the harbour funds").',
            "hidden text: The mayor stole the harbour funds",
        ),
        (
            '[src]: https://example.org/minutes "The mayor stole the harbour funds"',
            "hidden text: The mayor stole the harbour funds",
        ),
        # a callout's title that asserts without a number
        (
            "> [!warning] Jane Hill stole the harbour funds\n> Read the minutes first.",
            "Jane Hill stole the harbour funds",
        ),
    ],
)
def test_split_pointed_subordinate_and_hidden_assertions_are_flagged(repo, base, body, expected):
    found = statement_lines(verify(repo, base, f"{CITED}\n\n{body}"))
    assert [text for _, text in found] == [expected]


def test_what_the_sixth_reviews_rules_leave_alone(repo, base):
    """Their faithful twins: commands and link lists, a pointer to a table of participles,
    hatnote asides of dates or labels, a phrase after a reference, a subordinate clause
    with its own reference or without a verb, a title that labels, a callout titled by a
    label."""
    body = (
        "Run `pip install wikigate` first.\n\n"
        "[Home](index.md) [About](index.md) [Contact](index.md) [Minutes](index.md)\n\n"
        "The table below lists the stations opened between 1850 and 1900.\n\n"
        "Not to be confused with the Tam bridge (disambiguation).\n\n"
        "This article is about the harbour board (1921–1950).\n\n"
        "The council approved the harbour plan[^1], despite opposition from the board.\n\n"
        "When the council met in 1921,[^1] it approved the harbour plan.[^1]\n\n"
        "After the vote, the council approved the harbour plan.[^1]\n\n"
        'Read [the minutes](index.md "Minutes of the council, 1921").\n\n'
        '[minutes]: https://example.org/minutes "Minutes of the council"\n\n'
        "> [!note] Sources and dates\n> Read the minutes first.\n"
    )
    assert flagged(verify(repo, base, f"{CITED}\n\n{body}")) == []


def test_subtitle_lead_and_a_summary_list_in_front_matter_are_held_to_the_rule(repo, base):
    page = (
        "---\ntitle: Council\n"
        "subtitle: The mayor embezzled the harbour funds and fled to Canada.\n"
        "lead: The harbour board was dissolved after the fraud.\n"
        "summary:\n  - Notes on the harbour.\n  - The mayor fled to Canada in 1922.\n"
        f"---\n# Council\n\n{CITED}\n\n{DEF}\n"
    )
    tip = commit_files(repo, base.id, {"wiki/council.md": page})
    assert statement_lines(verify_trees(repo, tip, base, config=Config())) == [
        (3, "The mayor embezzled the harbour funds and fled to Canada."),
        (4, "The harbour board was dissolved after the fraud."),
        (7, "The mayor fled to Canada in 1922."),
    ]


SIXTH_HOSTILE = [
    "`a` `b` ",
    "[a](x) [b](x) ",
    "The table below shows the a ",
    "Not to be confused with (a ",
    "x[^1], with the a b ",
    "After a b c d, ",
    '[a](x "the mayor stole") ',
]


@pytest.mark.parametrize("unit", SIXTH_HOSTILE)
@pytest.mark.timing
def test_the_sixth_reviews_rules_take_linear_time_on_hostile_pages(unit):
    _linear(unit)


def _linear(unit: str) -> None:
    import gc

    def cpu(n: int) -> float:
        text = council(CITED + "\n\n" + unit * (n // len(unit)))
        best = float("inf")
        gc.disable()
        try:
            for _ in range(2):
                t0 = time.process_time()
                parse_page("wiki/council.md", text)
                best = min(best, time.process_time() - t0)
        finally:
            gc.enable()
        return best

    a, b = cpu(20_000), cpu(80_000)
    assert b < 8 * a + 0.05, f"{unit!r}: {a:.3f} s -> {b:.3f} s for 4x the input"


def test_may_before_a_year_and_a_path_is_the_month(repo, base):
    """A careful page's References item "Minutes of the Harbour Board, 3 May 1921
    (raw/minutes.txt)" was flagged: the path after the year was read as a verb after the
    modal "May" (found re-running the fifth review's faithful page)."""
    body = "## References\n\n- Minutes of the Harbour Board, 3 May 1921 (raw/minutes.txt)\n"
    assert flagged(verify(repo, base, f"{CITED}\n\n{body}")) == []


def test_a_reference_inside_an_element_that_hides_it_cites_nothing(repo, base):
    """The review's hidden reference (s36a, finding 7): the sentence shows no footnote
    marker, so it is no cited claim: the reference is flagged where it stands and the
    sentence is an uncited statement, not a claim of the ledger."""
    body = f"{CITED}\n\nThe council rejected the plan outright.<span hidden>[^1]</span>"
    report = verify(repo, base, body)
    (found,) = at(report, "citation.in_html")
    assert found.line == 8 and "[^1]" in found.message and "no footnote" in found.message
    assert statement_lines(report) == [(8, "The council rejected the plan outright.")]
    assert report.verdict == "revise"
    claims = page_claims(parse_page("wiki/council.md", council(body)))
    assert [c.sentence for c in claims] == ["The council approved the harbour plan."]


@pytest.mark.parametrize(
    "body",
    [
        '<p title="The council rejected the plan outright.">x</p>',
        'See <span title="The council rejected the plan outright.">the vote</span>.',
        "<div>\n<abbr title='The council rejected the plan outright.'>x</abbr>\n</div>",
    ],
)
def test_a_title_attribute_that_asserts_is_hidden_text(repo, base, body):
    """A tooltip is not prose a reader reads, and a model reads it: a statement in an HTML
    title attribute is flagged as hidden text, as a markdown link's title is."""
    found = statement_lines(verify(repo, base, f"{CITED}\n\n{body}"))
    assert [text for _, text in found] == ["hidden text: The council rejected the plan outright."]


def test_a_reference_in_an_attribute_cites_nothing_and_a_label_title_is_no_statement(repo, base):
    body = (
        'The council rejected the plan outright.<span title="[^1]"></span>\n\n'
        '<abbr title="Harbour Board of Tam">HBT</abbr> minutes are kept.[^1]'
    )
    found = statement_lines(verify(repo, base, f"{CITED}\n\n{body}"))
    assert found == [(8, "The council rejected the plan outright.")]


@pytest.mark.parametrize(
    "unit",
    [
        '<span title="a b">x</span> ',
        "<a title title title ",
        '<p title="The mayor stole.">x ',
        "<span hidden>[^1] ",
    ],
)
@pytest.mark.timing
def test_title_attributes_and_hidden_references_take_linear_time(unit):
    _linear(unit)


def test_a_link_into_the_same_page_keeps_its_words_in_the_quoted_statement(repo, base):
    """Trial 26b (#12): ``[[#^built]]`` vanished from the statement a finding quotes
    ("Block ref: and …"); a reader reads its block or heading."""
    body = f"{CITED}\n\nThe council met again after [[#^built]] and [[#Council|the vote]] passed."
    (message,) = [m for _, m in flagged(verify(repo, base, body))]
    assert '"The council met again after ^built and the vote passed."' in message, message
