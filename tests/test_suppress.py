"""Inline suppressions (issue 26): `<!-- wikigate: ignore CODE reason="…" -->` on the line
a finding applies to sets it aside, listed in the report with its reason and not counted;
found among markdown-it's tokens (a comment in a code span is text); no reason, an unknown
code or a critical finding (unless the rules allow it) is itself a finding. Real git
objects, the product's verifier."""

from __future__ import annotations

import pytest
from support.trees import commit_files
from support.verifying import verify_trees

from wikigate.config import Config, parse_config
from wikigate.verifier.citation import format_tail
from wikigate.verifier.reporters import render

NOTES = "Minutes of the meeting.\nThe committee rejected the plan by seven votes to two.\n"
QUOTE = "The committee rejected the plan by seven votes to two."
INDEX = "---\ntitle: Index\n---\n# Index\n\n- [[Notes]]\n"
LOG = "---\ntitle: Log\n---\n# Log\n\n- 2026-01-01 started\n"


def notes_page(extra: str) -> str:
    tail = format_tail("raw/notes.txt", None, QUOTE, NOTES.index(QUOTE))
    return f"---\ntitle: Notes\n---\n# Notes\n\n{QUOTE}[^1]\n\n{extra}\n\n[^1]: {tail}\n"


@pytest.fixture
def base(repo):
    files = {
        "raw/notes.txt": NOTES,
        "wiki/index.md": INDEX,
        "wiki/log.md": LOG,
        "wiki/notes.md": notes_page("Nothing else."),
    }
    return commit_files(repo, None, files)


def verify(repo, base, extra: str, config: Config | None = None, *, accepted: bool = False):
    """Verify a change writing ``extra`` into the notes page; ``accepted``: the page with
    ``extra`` is on the base already (a person landed its suppressions), and the change
    only touches it."""
    page = notes_page(extra)
    if accepted:
        base = commit_files(repo, base.id, {"wiki/notes.md": page})
        page += "\n<!-- touched -->\n"
    tip = commit_files(repo, base.id, {"wiki/notes.md": page})
    return verify_trees(repo, tip, base, config=config or Config())


def codes(report) -> list[tuple[str, int | None]]:
    return [(f.code, f.line) for f in report.findings]


def test_the_finding_without_a_suppression(repo, base):
    report = verify(repo, base, "The council met in 1962.")
    assert codes(report) == [("page.unsupported_statement", 8)]
    assert report.verdict == "revise"


def test_a_suppression_on_the_line_sets_the_finding_aside_with_its_reason(repo, base):
    why = "the page is written before its target"
    report = verify(
        repo,
        base,
        f'The council met in 1962. <!-- wikigate: ignore page.unsupported_statement reason="{why}" -->',
        accepted=True,
    )
    assert codes(report) == []
    assert report.verdict == "commit"
    [aside] = report.suppressed
    assert (aside.by, aside.reason, aside.finding.code, aside.finding.line) == (
        "suppression",
        why,
        "page.unsupported_statement",
        8,
    )
    text = render(report, "text")
    assert "suppressed (not counted): 1 finding" in text
    assert f"suppression: {why}" in text


def test_a_suppression_on_a_line_of_its_own_applies_to_the_next_line(repo, base):
    report = verify(
        repo,
        base,
        '<!-- wikigate: ignore page.unsupported_statement reason="soon" -->\nThe council met in 1962.',
        accepted=True,
    )
    assert codes(report) == [] and len(report.suppressed) == 1
    # two lines below is not the line it applies to: it applies to nothing, and says so
    report = verify(
        repo,
        base,
        '<!-- wikigate: ignore page.unsupported_statement reason="soon" -->\n\nThe council met in 1962.',
        accepted=True,
    )
    assert sorted(codes(report)) == [("page.unsupported_statement", 10), ("suppression.unused", 8)]
    assert report.suppressed == []


def test_a_suppression_sets_aside_only_the_code_it_names(repo, base):
    report = verify(
        repo,
        base,
        'The council met in 1962. <!-- wikigate: ignore page.invisible_chars reason="x" -->',
        accepted=True,
    )
    assert sorted(codes(report)) == [("page.unsupported_statement", 8), ("suppression.unused", 8)]
    assert report.suppressed == []


def test_a_comment_in_a_code_span_is_text_not_a_suppression(repo, base):
    report = verify(
        repo,
        base,
        'The council met in 1962. `<!-- wikigate: ignore page.unsupported_statement reason="x" -->`',
    )
    assert codes(report) == [("page.unsupported_statement", 8)] and report.suppressed == []


@pytest.mark.parametrize(
    ("comment", "why"),
    [
        ("<!-- wikigate: ignore page.unsupported_statement -->", "without a reason"),
        ('<!-- wikigate: ignore page.unsupported_statement reason="  " -->', "without a reason"),
        (
            '<!-- wikigate: ignore link.brokn reason="x" -->',
            "'link.brokn', which is no finding code",
        ),
        ('<!-- wikigate: ignore suppression.invalid reason="x" -->', "cannot be suppressed"),
        ('<!-- wikigate: ignore suppression.added reason="x" -->', "cannot be suppressed"),
        ("<!-- wikigate: please ignore this -->", "malformed"),
    ],
)
def test_a_suppression_without_a_reason_or_a_known_code_is_a_finding(repo, base, comment, why):
    report = verify(repo, base, f"The council met in 1962. {comment}")
    assert sorted(codes(report)) == [("page.unsupported_statement", 8), ("suppression.invalid", 8)]
    [bad] = [f for f in report.findings if f.code == "suppression.invalid"]
    assert why in bad.message and bad.severity == "major"
    assert report.suppressed == []


def test_a_critical_finding_is_suppressed_only_when_the_rules_allow_it(repo, base):
    made_up = (
        "The plan passed.[^2] "
        '<!-- wikigate: ignore citation.source_missing reason="scanned later" -->\n\n'
        '[^2]: raw/minutes-1962.txt — "The plan passed."'
    )
    report = verify(repo, base, made_up)
    assert ("citation.source_missing", 10) in codes(report)
    [refused] = [f for f in report.findings if f.code == "suppression.invalid"]
    assert "critical" in refused.message and refused.line == 8
    assert report.verdict == "reject" and report.suppressed == []

    allowed = parse_config("[verifier]\nsuppress_critical = true\n", "wikigate.toml")
    report = verify(repo, base, made_up, allowed)
    assert "citation.source_missing" not in [c for c, _ in codes(report)]
    assert [s.finding.code for s in report.suppressed] == ["citation.source_missing"]
    assert report.verdict != "reject"


def test_sarif_carries_a_suppressed_finding_as_suppressed_in_source(repo, base):
    import json

    from test_reporters import schema_errors

    report = verify(
        repo,
        base,
        'The council met in 1962. <!-- wikigate: ignore page.unsupported_statement reason="soon" -->',
        accepted=True,
    )
    sarif = json.loads(render(report, "sarif"))
    assert schema_errors("sarif-2.1.0.json", sarif) == []
    [result] = sarif["runs"][0]["results"]
    assert result["ruleId"] == "page.unsupported_statement"
    assert result["suppressions"] == [
        {"kind": "inSource", "status": "accepted", "justification": "soon"}
    ]


def test_suppressions_on_one_page_are_bounded(repo, base):
    """A page of 1,200 suppressions: the first 1,000 are read, the rest is one finding
    saying so, and a comment past the bound suppresses nothing."""
    lines = [
        f'Line {k}. <!-- wikigate: ignore page.invisible_chars reason="later" -->'
        for k in range(1199)
    ]
    lines.append(
        'The council met in 1962. <!-- wikigate: ignore page.unsupported_statement reason="x" -->'
    )
    report = verify(repo, base, "\n\n".join(lines))
    [past] = [f for f in report.findings if f.code == "suppression.invalid"]
    assert "more than 1000 suppressions on one page" in past.message
    assert [f.line for f in report.findings if f.code == "page.unsupported_statement"] == [2406]
    assert report.suppressed == []


# --- a suppression counts only once a person accepted it (the writer is untrusted) ---


def test_a_new_suppression_asks_a_person_naming_what_it_would_set_aside(repo, base):
    why = "the page is written before its target"
    report = verify(
        repo,
        base,
        f'The council met in 1962. <!-- wikigate: ignore page.unsupported_statement reason="{why}" -->',
    )
    assert codes(report) == [("suppression.added", 8)]
    assert report.verdict == "needs_human_review"
    [added] = report.findings
    assert "page.unsupported_statement" in added.message and "1962" in added.message
    assert why in added.message
    assert [s.finding.code for s in report.suppressed] == ["page.unsupported_statement"]


@pytest.mark.parametrize(
    "sentence",
    [
        "The committee approved the plan unanimously.",  # a new line under an old comment
        "See [[Elsewhere]].",
    ],
)
def test_rewording_the_line_of_an_accepted_suppression_asks_again(repo, base, sentence):
    comment = '<!-- wikigate: ignore page.unsupported_statement reason="soon" -->'
    landed = commit_files(
        repo, base.id, {"wiki/notes.md": notes_page(f"The council met in 1962. {comment}")}
    )
    tip = commit_files(repo, landed.id, {"wiki/notes.md": notes_page(f"{sentence} {comment}")})
    report = verify_trees(repo, tip, landed, config=Config())
    assert "suppression.added" in [c for c, _ in codes(report)]
    assert report.verdict != "commit"


def test_rewording_another_line_of_the_claim_under_an_accepted_suppression_asks_again(repo, base):
    """A claim's sentence may span lines: the accepted suppression is of its paragraph."""
    comment = '<!-- wikigate: ignore page.unsupported_statement reason="soon" -->'
    old = notes_page(f"The plan\nsee [[Nowhere]]. {comment}")
    landed = commit_files(repo, base.id, {"wiki/notes.md": old})
    new = notes_page(f"The plan was approved by all\nsee [[Nowhere]]. {comment}")
    tip = commit_files(repo, landed.id, {"wiki/notes.md": new})
    report = verify_trees(repo, tip, landed, config=Config())
    assert "suppression.added" in [c for c, _ in codes(report)]


def test_a_dormant_suppression_of_a_working_link_asks_a_person_and_says_it_is_unused(repo, base):
    """A suppression of link.broken on a link that works today would hide the finding a
    later run causes by deleting its target: landing it asks a person, who sees it unused."""
    index = INDEX.replace(
        "- [[Notes]]\n",
        '- [[Notes]] <!-- wikigate: ignore page.unsupported_statement reason="moving" -->\n',
    )
    tip = commit_files(repo, base.id, {"wiki/index.md": index})
    report = verify_trees(repo, tip, base, config=Config())
    assert sorted(codes(report)) == [("suppression.added", 6), ("suppression.unused", 6)]
    assert report.verdict == "needs_human_review"


def test_a_suppression_that_applies_to_nothing_is_reported(repo, base):
    """A dormant suppression (followed by a blank line, or naming a finding not there) is
    new, so a person decides, and unused, so the person sees it sets aside nothing now."""
    report = verify(
        repo,
        base,
        '<!-- wikigate: ignore page.unsupported_statement reason="later" -->\n\n- [[Index]]',
    )
    assert sorted(codes(report)) == [("suppression.added", 8), ("suppression.unused", 8)]
    assert report.verdict == "needs_human_review"
    [unused] = [f for f in report.findings if f.code == "suppression.unused"]
    assert unused.severity == "minor" and "applies to nothing" in unused.message


@pytest.mark.slow
def test_a_run_adding_a_suppression_waits_for_a_person_at_finalize_and_at_the_server(tmp_path):
    """The writer's own suppression does not land its finding: finalize asks a person,
    `verify approve` lands it (and says what was suppressed, as `runs show` does), and
    the server gate refuses the push until a listed user's override."""
    import sqlite3

    from support.helpers import gated_client, git, in_process, override_push, push
    from support.wiki_runs import QUOTE as OWLS
    from support.wiki_runs import SOURCE, SOURCE_TEXT

    def cli(*args: str):
        return in_process(["-C", str(root), *args], env={"WIKIGATE_VERIFIER": ""})

    root, bare = gated_client(tmp_path)
    before = git(root, "rev-parse", "main").stdout.strip()

    why = "the ravens source comes next"
    tail = format_tail(SOURCE, None, OWLS, SOURCE_TEXT.index(OWLS))
    page = root / "owls.md"
    page.write_text(
        f"# Owls\n\n{OWLS}[^1] Ravens nest in the same barns. "
        f'<!-- wikigate: ignore page.unsupported_statement reason="{why}" -->\n\n[^1]: {tail}\n'
    )
    run_id = cli("run", "start", "--type", "cascade", "--triggered-by", "cli:test").stdout.strip()
    wrote = cli("run", "write", run_id, "wiki/owls.md", "--from", str(page))
    assert wrote.returncode == 0, wrote.stderr

    waiting = cli("run", "finalize", run_id)
    assert waiting.returncode == 5, waiting.stdout + waiting.stderr
    assert "needs_human_review" in waiting.stdout and "suppression.added" in waiting.stdout
    assert "Ravens nest" in waiting.stdout and why in waiting.stdout
    assert "suppressed (not counted): 1" in waiting.stdout  # what it would set aside
    assert f"reason: {why}" in waiting.stdout
    assert git(root, "rev-parse", "main").stdout.strip() == before

    approved = cli("verify", "approve", run_id, "--reason", "ravens are next")
    assert approved.returncode == 0, approved.stdout + approved.stderr
    tip = git(root, "rev-parse", "main").stdout.strip()
    assert tip != before
    shown = cli("runs", "show", run_id)
    assert "suppressed (not counted): 1" in shown.stdout, shown.stdout
    assert "page.unsupported_statement" in shown.stdout and f"reason: {why}" in shown.stdout

    # the server gate decides for itself: the suppression is new against its main
    refused = push(root, "origin", "main")
    assert refused.returncode != 0
    assert "suppression.added" in refused.stderr and "wikigate-override" in refused.stderr
    assert git(bare, "rev-parse", "main").stdout.strip() == before
    alice = override_push(root, "accepted in " + run_id)
    assert alice.returncode == 0, alice.stderr
    assert git(bare, "rev-parse", "main").stdout.strip() == tip
    db = sqlite3.connect(bare / "wikigate" / "gate.db")
    rows = db.execute('SELECT "user", new FROM overrides').fetchall()
    db.close()
    assert rows == [("alice", tip)]


@pytest.mark.slow
def test_a_pull_request_adding_a_suppression_asks_and_a_maintainers_label_lands_it(world):
    from support.wiki_runs import QUOTE as OWLS
    from support.wiki_runs import SOURCE, SOURCE_TEXT

    before = world.main_sha()
    tail = format_tail(SOURCE, None, OWLS, SOURCE_TEXT.index(OWLS))
    page = (
        f"# Barn\n\n{OWLS}[^1] The council met in 1962. "
        f'<!-- wikigate: ignore page.unsupported_statement reason="written next" -->\n\n[^1]: {tail}\n'
    )
    head = world.push_pr(16, page)
    waiting = world.run(16)
    assert waiting.code == 5, waiting.out
    assert "needs_human_review" in waiting.out
    assert world.main_sha() == before
    world.gh.pulls[16].labels.append("wikigate:override")
    landed = world.run(16, "labeled", sender="maintainer", label="wikigate:override")
    assert landed.code == 0, landed.out
    assert world.main_sha() == head, landed.out


@pytest.mark.parametrize(
    ("accepted", "changed"),
    [
        (  # a literal <!-- in a code span hid the sentence slipped in before the comment
            "Editors write `<!--` to open a comment. <!-- wikigate: ignore "
            'page.unsupported_statement reason="style" -->',
            "Editors write `<!--` to open a comment. The mayor took bribes in 1970. "
            '<!-- wikigate: ignore page.unsupported_statement reason="style" -->',
        ),
        (  # the accepted comment copied onto another line of its paragraph
            'The council met in 1962. <!-- wikigate: ignore page.unsupported_statement reason="x" -->'
            "\nThe mayor resigned in 1963.",
            'The council met in 1962. <!-- wikigate: ignore page.unsupported_statement reason="x" -->'
            '\nThe mayor resigned in 1963. <!-- wikigate: ignore page.unsupported_statement reason="x" -->',
        ),
    ],
)
def test_an_accepted_suppression_covers_its_paragraph_only_as_written(
    repo, base, accepted, changed
):
    """Acceptance compares the paragraph byte for byte (hostile review: comments were
    stripped from the raw text, so a code span's `<!--` swallowed an inserted sentence)."""
    was = commit_files(repo, base.id, {"wiki/notes.md": notes_page(accepted)})
    tip = commit_files(repo, was.id, {"wiki/notes.md": notes_page(changed)})
    report = verify_trees(repo, tip, was, config=Config())
    assert "suppression.added" in [f.code for f in report.findings]
    assert report.verdict == "needs_human_review"


def test_findings_other_pages_raise_cannot_be_suppressed_inline(repo, base):
    """An accepted suppression of link.broken covered a link a later change broke by
    deleting a heading on another page, the line untouched (hostile review)."""
    report = verify(
        repo, base, 'See [[Nowhere]]. <!-- wikigate: ignore link.broken reason="soon" -->'
    )
    assert sorted(codes(report)) == [("link.broken", 8), ("suppression.invalid", 8)]
    [invalid] = [f for f in report.findings if f.code == "suppression.invalid"]
    assert "arises from other pages" in invalid.message and report.suppressed == []


def _page_citing(quote: str, line: str) -> str:
    tail = format_tail("raw/notes.txt", None, quote, NOTES.index(quote))
    return f"---\ntitle: Notes\n---\n# Notes\n\n{line}\n\n[^1]: {tail}\n"


def test_a_citations_suppression_is_new_again_when_its_footnote_changes(repo, base):
    """The paragraph was compared, not the footnote it cites: swapping the quote in the
    definition kept an accepted citation suppression covering a new conflict (review)."""
    line = (
        "The committee adopted the plan.[^1] "
        '<!-- wikigate: ignore citation.semantic_conflict reason="other records" -->'
    )
    was = commit_files(
        repo, base.id, {"wiki/notes.md": _page_citing("Minutes of the meeting.", line)}
    )
    tip = commit_files(repo, was.id, {"wiki/notes.md": _page_citing(QUOTE, line)})
    report = verify_trees(repo, tip, was, config=Config())
    assert "suppression.added" in [f.code for f in report.findings]


def test_a_second_copy_of_an_accepted_paragraph_is_new(repo, base):
    """Acceptance counted kinds, not copies: the same paragraph pasted under another
    heading was covered by the one a person accepted (review)."""
    one = 'The council met in 1962. <!-- wikigate: ignore page.unsupported_statement reason="x" -->'
    was = commit_files(repo, base.id, {"wiki/notes.md": notes_page(one)})
    tip = commit_files(repo, was.id, {"wiki/notes.md": notes_page(f"{one}\n\n## Later\n\n{one}")})
    report = verify_trees(repo, tip, was, config=Config())
    assert [f.code for f in report.findings].count("suppression.added") == 1
