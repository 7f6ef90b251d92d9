"""Each deterministic check, passing and failing, on real git objects."""

from __future__ import annotations

import json

import pytest
from support.trees import LINK, commit_files
from support.verifying import verify_trees

from wikigate.config import Config, parse_config
from wikigate.models import Budget, Plan, RunMeta
from wikigate.verifier.citation import CitationSyntaxError, format_tail, parse_definition
from wikigate.verifier.report import SCHEMA_VERSION, json_schema, load_report

SOURCE = (
    "Cats sleep for sixteen hours a day.\n"
    "Dogs may bark at night.\n"
    "Owls are not the fastest birds.\n"
)
INDEX = "---\ntitle: Index\n---\n# Index\n\n- [[Cats]]\n"


def tail(quote, source="raw/animals.txt", anchored=True):
    return format_tail(source, None, quote, SOURCE.find(quote) if anchored else None)


def cats(body_and_defs: str, title: str = "Cats") -> str:
    return f"---\ntitle: {title}\n---\n# {title}\n\n{body_and_defs}\n"


GOOD = cats(
    f"Cats sleep for sixteen hours a day.[^1]\n\n[^1]: {tail('Cats sleep for sixteen hours a day.')}"
)


@pytest.fixture
def base(repo):
    return commit_files(
        repo,
        None,
        {
            "raw/animals.txt": SOURCE,
            "wiki/index.md": INDEX,
            "wiki/log.md": "# Log\n",
            "wiki/cats.md": GOOD,
        },
    )


def verify(
    repo,
    base,
    files,
    *,
    config=None,
    plan_type=None,
    budget=None,
    usage=None,
    strictness=None,
    judge=None,
    lint=False,
):
    tip = commit_files(repo, base.id, files)
    plan = None
    if plan_type:
        meta = RunMeta(
            run_id="r",
            run_type=plan_type,
            triggered_by="cli:t",
            base=str(base.id),
            started_at="2026-01-01T00:00:00Z",
            budget=budget or Budget(),
            usage=usage or Budget(),
        )
        plan = Plan(meta=meta, ops=[], tip=str(tip.id))
    return verify_trees(
        repo,
        tip,
        None if lint else base,
        config=config or Config(),
        plan=plan,
        strictness=strictness,
        judge=judge,
    )


def codes(report):
    return sorted({(f.code, f.severity) for f in report.findings})


def test_anchored_citation_commits(repo, base):
    report = verify(repo, base, {}, lint=True)
    assert report.verdict == "commit", report.findings
    assert report.summary.anchors_verified == 1 and report.summary.citations == 1


@pytest.mark.parametrize(
    ("definition", "code", "message"),
    [
        (
            tail("Cats sleep for sixteen hours a day.")[:-65] + "0" * 64 + "}",
            "citation.hash_mismatch",
            "footnote records 000000000000",
        ),
        (
            'raw/animals.txt — "Cats sleep all day long."',
            "citation.quote_not_found",
            "does not occur",
        ),
        ('raw/nope.txt — "x"', "citation.source_missing", "does not exist"),
        ('raw/../etc/passwd — "x"', "citation.source_outside_raw", "escapes raw/"),
        ('/etc/passwd — "x"', "citation.source_outside_raw", "escapes raw/"),
        ('wiki/index.md — "Index"', "citation.source_outside_raw", "not under raw/"),
        ('raw/animals.txt "no separator"', "citation.syntax", "' — ' or ' -- '"),
        ('raw/animals.txt — "unterminated', "citation.syntax", "not a valid JSON string"),
        ('raw/animals.txt — "Cats" {@x sha256:abc}', "citation.syntax", "{@OFFSET sha256:HEX}"),
    ],
)
def test_citation_findings_are_critical_and_located(repo, base, definition, code, message):
    page = cats(f"A claim.[^1]\n\n[^1]: {definition}")
    report = verify(repo, base, {"wiki/cats.md": page})
    hits = [f for f in report.findings if f.code == code]
    assert hits, report.findings
    assert hits[0].severity == "critical" and hits[0].path == "wiki/cats.md" and hits[0].line == 8
    assert message in hits[0].message
    assert report.verdict == "reject"


def test_quote_only_footnote_is_major_and_critical_under_paranoid(repo, base):
    page = cats('Dogs may bark at night.[^1]\n\n[^1]: animals.txt -- "Dogs may bark at night."')
    report = verify(repo, base, {"wiki/cats.md": page}, lint=True)
    assert codes(report) == [("citation.anchor_missing", "major")]
    assert report.verdict == "revise" and "{@36 sha256:" in report.findings[0].hint
    paranoid = verify(repo, base, {"wiki/cats.md": page}, strictness="PARANOID", lint=True)
    assert ("citation.anchor_missing", "critical") in codes(paranoid)


def test_a_stale_offset_is_major_with_its_fix_and_critical_under_paranoid(repo, base):
    """The quote is verbatim in the source, at another offset: a mechanical fix (revise,
    the fix names the offset), not a rejection that closes a pull request."""
    stale = format_tail("raw/animals.txt", None, "Dogs may bark at night.", 3)
    page = cats(f"Dogs may bark at night.[^1]\n\n[^1]: {stale}")
    report = verify(repo, base, {"wiki/cats.md": page}, lint=True)
    assert codes(report) == [("citation.anchor_mismatch", "major")]
    [f] = report.findings
    assert (f.path, f.line) == ("wiki/cats.md", 8)
    assert "the quote is at offset 36, line 2" in f.message and "{@36 sha256:" in f.hint
    assert report.verdict == "revise"
    paranoid = verify(repo, base, {"wiki/cats.md": page}, strictness="PARANOID", lint=True)
    assert ("citation.anchor_mismatch", "critical") in codes(paranoid)


def test_reference_definition_pairing_and_code_spans(repo, base):
    page = cats(
        f"Cats sleep for sixteen hours a day.[^1] Also [^9] here. Code `[^2]` is not a ref.\n\n"
        "```\n[^3]: not a definition\n```\n\n"
        f"[^1]: {tail('Cats sleep for sixteen hours a day.')}\n"
        f"[^7]: {tail('Dogs may bark at night.')}"
    )
    report = verify(repo, base, {"wiki/cats.md": page})
    found = {(f.code, f.severity, f.message.split(" ")[0]) for f in report.findings}
    assert ("citation.syntax", "critical", "reference") in found  # [^9] undefined
    assert ("citation.syntax", "minor", "[^7]") in found  # defined, never referenced
    cited = [f for f in report.findings if f.code.startswith("citation.")]
    assert not any("[^2]" in f.message or "[^3]" in f.message for f in cited)


def test_ambiguous_bare_source_and_symlink_source(repo, base):
    with_dupe = commit_files(
        repo, base.id, {"raw/other/animals.txt": SOURCE, "raw/link.txt": (LINK, "/etc/passwd")}
    )
    page = cats(
        f"Dogs may bark at night.[^1] Link.[^2]\n\n[^1]: {tail('Dogs may bark at night.', 'animals.txt')}\n"
        '[^2]: raw/link.txt — "root"'
    )
    report = verify(repo, with_dupe, {"wiki/cats.md": page})
    assert ("citation.source_ambiguous", "major") in codes(report)
    outside = [f for f in report.findings if f.code == "citation.source_outside_raw"]
    assert outside and "symlink" in outside[0].message


@pytest.mark.parametrize(
    ("claim", "quote", "words"),
    [
        ("Cats sleep for 20 hours a day.", "Cats sleep for sixteen hours a day.", "number"),
        ("Dogs must bark at night.", "Dogs may bark at night.", "modal: claim has [must]"),
        ("Owls are the fastest birds.", "Owls are not the fastest birds.", "negation"),
        (
            "Cats sleep the most, sixteen hours a day.",
            "Cats sleep for sixteen hours a day.",
            "superlative: claim has [most]",
        ),
    ],
)
def test_semantic_judge_flags_conflicts_with_words(repo, base, claim, quote, words):
    page = cats(f"{claim}[^1]\n\n[^1]: {tail(quote)}")
    report = verify(repo, base, {"wiki/cats.md": page})
    conflicts = [f for f in report.findings if f.code == "citation.semantic_conflict"]
    assert (
        len(conflicts) == 1 and words in conflicts[0].message and conflicts[0].severity == "major"
    )
    assert conflicts[0].claim == claim


def test_semantic_judge_accepts_faithful_claim(repo, base):
    page = cats(
        f"As the source says, cats sleep for sixteen hours a day.[^1]\n\n"
        f"[^1]: {tail('Cats sleep for sixteen hours a day.')}"
    )
    assert verify(repo, base, {"wiki/cats.md": page}, lint=True).verdict == "commit"


def test_page_checks(repo, base):
    files = {
        "wiki/cats.md": "---\n- a list\n---\nno title here, no citation, [[Nowhere]] and [x](cats.md#nope)\n",
        "wiki/lonely.md": GOOD.replace("title: Cats", "title: Lonely"),
        "wiki/bad-yaml.md": "---\ntitle: [unclosed\n---\n# T\n",
    }
    report = verify(repo, base, files)
    found = {(f.code, f.path) for f in report.findings}
    assert ("page.frontmatter", "wiki/cats.md") in found
    assert ("page.frontmatter", "wiki/bad-yaml.md") in found
    assert ("page.no_title", "wiki/cats.md") in found
    assert ("page.uncited", "wiki/cats.md") in found
    assert ("page.orphan", "wiki/lonely.md") in found
    broken = sorted(f.message for f in report.findings if f.code == "link.broken")
    assert broken == [
        "(cats.md#nope): wiki/cats.md has no heading #nope",
        "[[Nowhere]] resolves to no page",
    ]


def test_links_resolve_by_stem_path_title_alias_and_heading(repo, base):
    other = (
        "---\ntitle: Felines Overview\naliases: [Moggies]\n---\n# Felines Overview\n\n"
        "## Sleep Habits\n\n"
        + f"Cats sleep for sixteen hours a day.[^1]\n\n[^1]: {tail('Cats sleep for sixteen hours a day.')}\n"
    )
    index = INDEX + (
        "- [[felines]] [[sub/felines]] [[Felines Overview]] [[moggies]] "
        "[[Felines#Sleep Habits]] [s](sub/felines.md#sleep-habits) [w](https://x.example)\n"
    )
    report = verify(repo, base, {"wiki/sub/felines.md": other, "wiki/index.md": index})
    assert report.verdict == "commit", report.findings


def test_required_frontmatter_fields_from_config(repo, base):
    config = parse_config('[frontmatter.required]\nstatus = "str"\nreviewed = "bool"\n', "t")
    page = GOOD.replace("title: Cats", "title: Cats\nstatus: 3")
    report = verify(repo, base, {"wiki/cats.md": page}, config=config)
    messages = sorted(f.message for f in report.findings if f.code == "page.frontmatter")
    assert messages == [
        "front matter field 'status' should be str, not int",
        "front matter lacks the required field 'reviewed' (bool)",
    ]


def test_run_path_and_raw_checks(repo, base):
    report = verify(
        repo,
        base,
        {"raw/animals.txt": SOURCE + "more\n", "README.md": "hi", "raw/new.txt": "new"},
        plan_type="cascade",
    )
    found = {(f.code, f.path) for f in report.findings}
    assert ("run.raw_write", "raw/animals.txt") in found  # modified
    assert ("run.raw_write", "raw/new.txt") in found  # added outside ingest
    assert ("run.repository_file", "README.md") in found
    ingest = verify(repo, base, {"raw/new.txt": "new"}, plan_type="ingest")
    assert not [f for f in ingest.findings if f.code.startswith("run.raw")]
    deleted = verify(repo, base, {"raw/animals.txt": None}, plan_type="ingest")
    assert (
        "deletes or renames"
        in [f for f in deleted.findings if f.code == "run.raw_write"][0].message
    )


def test_convergence(repo, base):
    altered = GOOD.replace("Cats sleep for sixteen hours a day.[^1]", "Cats nap.[^1]")
    report = verify(repo, base, {"wiki/cats.md": altered})
    conv = [f for f in report.findings if f.code == "run.convergence"]
    assert conv and conv[0].severity == "critical" and conv[0].line == 6
    hedged = (
        GOOD.replace(
            "Cats sleep for sixteen hours a day.[^1]\n",
            "::: disputed\nCats sleep for sixteen hours a day.[^1]\n\n"
            "**Updated 2026-11-21 per raw/animals.txt:** Dogs may bark at night.[^2]\n:::\n",
        )
        + f"[^2]: {tail('Dogs may bark at night.')}\n"
    )
    assert not [
        f
        for f in verify(repo, base, {"wiki/cats.md": hedged}).findings
        if f.code == "run.convergence"
    ]
    index = INDEX.replace("- [[Cats]]\n", "")
    removed = verify(
        repo, base, {"wiki/cats.md": None, "wiki/index.md": index}, plan_type="cascade"
    )
    assert ("run.convergence", "critical") in codes(removed)
    archived = verify(
        repo, base, {"wiki/cats.md": None, "wiki/index.md": index}, plan_type="archive"
    )
    assert ("run.convergence", "critical") not in codes(archived)


def test_coverage_and_budget(repo, base):
    source = "Felines slumber extensively. Felines slumber extensively while canines patrol.\n"
    report = verify(
        repo, base, {"raw/felines.txt": source, "wiki/log.md": "# Log\n\nx\n"}, plan_type="ingest"
    )
    assert codes(report) == []  # cats.md mentions none of felines/slumber/extensively
    page = GOOD.replace("# Cats\n", "# Cats\n\nFelines slumber extensively.\n")
    base2 = commit_files(repo, base.id, {"wiki/cats.md": page})
    report = verify(repo, base2, {"raw/felines.txt": source}, plan_type="ingest")
    assert ("run.coverage", "minor") in codes(report) and report.verdict == "commit"
    bold = verify(repo, base2, {"raw/felines.txt": source}, plan_type="ingest", strictness="BOLD")
    assert ("run.coverage", "major") in codes(bold)
    over = verify(
        repo,
        base,
        {},
        plan_type="cascade",
        budget=Budget(usd=1.0),
        usage=Budget(input_tokens=5, output_tokens=5, usd=1.5),
    )
    assert [f.message for f in over.findings] == ["usd: used 1.5, budget 1"]
    silent = verify(repo, base, {}, plan_type="cascade", budget=Budget(usd=1.0))
    assert [(f.code, f.severity) for f in silent.findings] == [("run.usage_missing", "major")]
    assert "attested no usage" in silent.findings[0].message and silent.verdict == "revise"


def test_any_exception_in_a_check_becomes_verifier_error(repo, base):
    class Exploding:
        name = "exploding"

        def judge(self, claims, staged):
            raise RuntimeError("judge down")

    report = verify(repo, base, {"wiki/cats.md": GOOD + "\n"}, judge=Exploding())
    err = [f for f in report.findings if f.code == "verifier.error"]
    assert err and "judge down" in err[0].message and report.verdict == "reject"
    assert {c.name: c.status for c in report.checks}["semantic"] == "error"


@pytest.mark.slow
def test_bad_pages_and_sources_give_clear_findings(repo, base):
    huge = b"a" * (50 * 1024 * 1024 + 1)
    base2 = commit_files(
        repo,
        base.id,
        {
            "raw/latin1.txt": "caf\xe9".encode("latin-1"),
            "raw/bin.dat": b"\x00\x01\x02binary",
            "raw/empty.txt": b"",
            "raw/huge.txt": huge,
        },
    )
    page = cats(
        "One.[^1] Two.[^2] Three.[^3] Four.[^4]\n\n"
        + "\n".join(
            f'[^{i}]: raw/{n} — "caf"'
            for i, n in enumerate(["latin1.txt", "bin.dat", "empty.txt", "huge.txt"], 1)
        )
    )
    files = {
        "wiki/cats.md": page,
        "wiki/latin.md": "caf\xe9".encode("latin-1"),
        "wiki/nul.md": b"# T\x00\x00",
    }
    report = verify(repo, base2, files)
    msgs = {f.message for f in report.findings if f.code == "citation.source_unreadable"}
    assert any("latin1.txt is not UTF-8 text (invalid byte at offset 3)" in m for m in msgs)
    assert any("bin.dat is binary" in m for m in msgs)
    assert any("empty.txt is empty" in m for m in msgs)
    assert any("huge.txt is 50 MB; sources over 50 MB are not read" in m for m in msgs)
    pages = {f.path: f.message for f in report.findings if f.code == "page.unreadable"}
    assert "not UTF-8" in pages["wiki/latin.md"] and "binary" in pages["wiki/nul.md"]
    assert not [f for f in report.findings if f.code == "verifier.error"]


def minimal_pdf(text: str) -> bytes:
    stream = f"BT /F1 12 Tf 72 712 Td ({text}) Tj ET".encode()
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
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


@pytest.mark.slow
def test_pdf_sources_anchor_into_page_text(repo, base):
    base2 = commit_files(repo, base.id, {"raw/paper.pdf": minimal_pdf("Ravens can count to five.")})
    quote = "count to five"
    ok = cats(
        f"Ravens can count to five.[^1]\n\n[^1]: {format_tail('raw/paper.pdf', 1, quote, 11)}"
    )
    report = verify(repo, base2, {"wiki/cats.md": ok})
    assert report.summary.anchors_verified == 1, report.findings
    no_page = cats(f'Ravens can count to five.[^1]\n\n[^1]: raw/paper.pdf — "{quote}"')
    msgs = [f.message for f in verify(repo, base2, {"wiki/cats.md": no_page}).findings]
    assert any("paper.pdf is a PDF; the citation must name a page (SOURCE, p.N)" in m for m in msgs)
    bad_page = no_page.replace("raw/paper.pdf —", "raw/paper.pdf, p.4 —")
    msgs = [f.message for f in verify(repo, base2, {"wiki/cats.md": bad_page}).findings]
    assert any("has 1 pages; p.4 does not exist" in m for m in msgs)


def test_severity_override_from_config(repo, base):
    config = parse_config(
        '[verifier.severity]\n"page.orphan" = "off"\n"page.uncited" = "minor"\n', "t"
    )
    report = verify(
        repo, base, {"wiki/lonely.md": "# Lonely\n\nOwls hunt at night.\n"}, config=config
    )
    assert codes(report) == [("page.uncited", "minor")]


def test_report_schema_is_published_and_versions_are_checked(repo, base):
    from pathlib import Path

    published = json.loads((Path(__file__).parents[1] / "docs" / "report.schema.json").read_text())
    assert published == json_schema()
    report = verify(repo, base, {"wiki/cats.md": cats("x")})
    again = load_report(report.model_dump_json())
    assert again == report
    data = json.loads(report.model_dump_json())
    data["schema_version"] = SCHEMA_VERSION + 1
    with pytest.raises(Exception, match="unknown report schema_version"):
        load_report(json.dumps(data))


def test_rdjson_and_sarif_renderers(repo, base):
    from wikigate.verifier.reporters import render

    report = verify(repo, base, {"wiki/cats.md": cats('x[^1]\n\n[^1]: raw/animals.txt — "nope"')})
    rd = json.loads(render(report, "rdjson"))
    d = [x for x in rd["diagnostics"] if x["code"]["value"] == "citation.quote_not_found"][0]
    assert d["severity"] == "ERROR" and d["location"] == {
        "path": "wiki/cats.md",
        "range": {"start": {"line": 8}},
    }
    sarif = json.loads(render(report, "sarif"))
    assert sarif["version"] == "2.1.0"
    result = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "citation.quote_not_found"][
        0
    ]
    assert result["level"] == "error"
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": 8}
    text = render(report, "text")
    assert text.splitlines()[0] == "wiki/cats.md" and text.splitlines()[-1].startswith("REJECT")


def test_a_check_never_runs_on_missing_inputs(repo, base, monkeypatch):
    """The semantic judge needs the quotes the citations check verified: when that check
    fails, the judge does not run on empty data and says why; the change still fails."""
    from wikigate.verifier import checks

    def broken(ctx):
        raise RuntimeError("boom")

    table = [
        c if c.name != "citations" else checks.Check(c.name, broken, c.presets, provides=c.provides)
        for c in checks.CHECKS
    ]
    monkeypatch.setattr("wikigate.verifier.engine.CHECKS", table)
    report = verify_trees(repo, base, None)
    by_name = {c.name: c for c in report.checks}
    assert by_name["citations"].status == "error"
    assert by_name["semantic"].status == "skipped"
    assert by_name["semantic"].reason == "needs verified_quotes, which no check provided"
    assert report.verdict == "reject"


@pytest.mark.parametrize(
    ("tail", "says"),
    [
        # text that is no location note, wherever it stands (it said "expected ' — '")
        ('raw/x.md — see also "quote"', "text between the dash and the quote: 'see also' is not a "
         "location note (L3, L3-L7, p. 12, pp. 33-35 or §\"Section\")"),
        ('raw/x.md, accessed today — "quote"', "text between the source and the dash: "
         "'accessed today' is not a location note"),
        ('raw/x.md - "quote"', "' — ' or ' -- ' between the source and the quote, not a hyphen"),
        ('raw/x.md – "quote"', "between the source and the quote, not an en dash"),
        ('raw/x.md "quote"', "expected ' — ' or ' -- ' between the source and the quote"),
        ('raw/x.md — "quote" trailing', "unexpected text after the quote: 'trailing'"),
    ],
)  # fmt: skip
def test_a_citation_syntax_error_names_what_stands_where_the_dash_should(tail, says):
    with pytest.raises(CitationSyntaxError) as e:
        parse_definition(tail)
    assert says in str(e.value)


@pytest.mark.parametrize(
    ("tail", "notes"),
    [
        # issue 27: location notes before the dash, between dash and quote, after the quote
        ('raw/motzkin.wiki §"Motzkin Numbers" L3 — "quote"', ((3, 3), "Motzkin Numbers", None)),
        ('raw/x.md — p. 12 "quote"', (None, None, 12)),
        ('raw/x.md -- L3 "quote"', ((3, 3), None, None)),
        ('raw/x.md — "quote" L3-L7', ((3, 7), None, None)),
        ('raw/x.md, L3-L7, §"A, b" — "quote"', ((3, 7), "A, b", None)),
    ],
)  # fmt: skip
def test_a_location_note_is_read_wherever_it_stands(tail, notes):
    c = parse_definition(tail)
    assert (c.lines, c.section, c.page) == notes and c.quote == "quote"


def test_a_link_naming_a_source_is_no_broken_link_and_a_wrong_path_says_where_it_went(repo, base):
    """Obsidian resolves ``[[issue-7342]]`` to raw/github/issue-7342.md: a source reference,
    not a broken link (it was `link.broken`: 379 of 1,015 links on a real agent-written
    wiki). A file other than a note needs its extension (``[[scheduling.pdf]]``). A path
    link written relative to the wrong folder names the path it resolved to and the page of
    that file name (issue 27)."""
    files = {
        "raw/github/issue-7342.md": "# Issue 7342\n\nThe scheduler drops pods.\n",
        "raw/papers/scheduling.pdf": "%PDF-1.4\n",
        "wiki/pages/felines.md": GOOD.replace("title: Cats", "title: Felines"),
        "wiki/pages/cats.md": cats(
            "See [[issue-7342]], [[scheduling.pdf]], [[raw/github/issue-7342]], [[issue-9999]], "
            "[[Scheduling]], [f](pages/felines.md) and [g](felines.md).\n\n"
            f"Cats sleep for sixteen hours a day.[^1]\n\n[^1]: {tail('Cats sleep for sixteen hours a day.')}"
        ),
        "wiki/index.md": INDEX + "- [[pages/cats]] [[Felines]]\n",
    }
    report = verify(repo, base, files)
    broken = sorted(f.message for f in report.findings if f.code == "link.broken")
    assert broken == [
        "(pages/felines.md) resolves to no page (wiki/pages/pages/felines.md does not exist; "
        "a page of that name: wiki/pages/felines.md)",
        "[[Scheduling]] resolves to no page (the nearest source: raw/papers/scheduling.pdf)",
        "[[issue-9999]] resolves to no page",
    ]


def test_a_link_to_a_deleted_page_is_broken_though_a_source_has_its_name(repo, base):
    """A summary page named after its source (wiki/notes.md beside raw/notes.md): deleting
    the page leaves ``[[Notes]]`` naming the source; that is the deletion's broken link, not
    a source reference (hostile review)."""
    notes = GOOD.replace("title: Cats", "title: Notes").replace("# Cats", "# Notes")
    with_notes = commit_files(
        repo,
        base.id,
        {
            "raw/notes.md": "# Notes\n\nRaw notes.\n",
            "wiki/notes.md": notes,
            "wiki/index.md": INDEX + "- [[Notes]]\n",
        },
    )
    tip = commit_files(repo, with_notes.id, {"wiki/notes.md": None})
    report = verify_trees(repo, tip, with_notes, config=Config())
    broken = [(f.path, f.line, f.message) for f in report.findings if f.code == "link.broken"]
    assert broken == [
        (
            "wiki/index.md",
            7,
            "[[Notes]] named wiki/notes.md, which is gone; it names only the source raw/notes.md",
        )
    ]


def test_a_link_whose_page_lost_the_name_is_broken_though_a_source_has_it(repo, base):
    """``[[minutes]]`` named wiki/summary.md by its alias; a change dropping the alias leaves
    it naming raw/minutes.md: the link the change broke, not a source reference (hostile
    review)."""
    summary = GOOD.replace("title: Cats", "title: Summary\naliases: [minutes]")
    before = commit_files(
        repo,
        base.id,
        {
            "raw/minutes.md": "# Minutes\n\nRaw minutes.\n",
            "wiki/summary.md": summary,
            "wiki/index.md": INDEX + "- [[minutes]]\n",
        },
    )
    tip = commit_files(
        repo, before.id, {"wiki/summary.md": summary.replace("aliases: [minutes]", "aliases: []")}
    )
    report = verify_trees(repo, tip, before, config=Config())
    broken = [(f.path, f.message) for f in report.findings if f.code == "link.broken"]
    assert broken == [
        (
            "wiki/index.md",
            "[[minutes]] named wiki/summary.md, which no longer answers to it; it names only "
            "the source raw/minutes.md",
        )
    ]


def test_a_one_letter_quote_is_too_short_and_a_faithful_one_passes(repo, base):
    """A quote found in its source but shorter than [citations] min_quote_chars proves
    nothing: citation.quote_too_short on its definition; a sentence quoted passes."""
    faithful = verify(repo, base, {"wiki/cats.md": GOOD})
    assert "citation.quote_too_short" not in {f.code for f in faithful.findings}
    assert faithful.verdict == "commit", faithful.findings
    page = cats(f"Cats sleep for sixteen hours a day.[^1]\n\n[^1]: {tail('a')}")
    report = verify(repo, base, {"wiki/cats.md": page})
    short = [f for f in report.findings if f.code == "citation.quote_too_short"]
    assert [(f.path, f.line, f.severity) for f in short] == [("wiki/cats.md", 8, "major")]
    assert "is 1 characters; [citations] min_quote_chars is 6" in short[0].message
    assert short[0].claim and "sixteen hours" in short[0].claim
    assert "quote the words of the source that support the claim" in (short[0].hint or "")
    assert report.verdict == "revise"
    off = parse_config("[citations]\nmin_quote_chars = 0\n", "t")
    report = verify(repo, base, {"wiki/cats.md": page}, config=off)
    assert "citation.quote_too_short" not in {f.code for f in report.findings}
