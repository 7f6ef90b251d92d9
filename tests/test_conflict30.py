"""Trial 40's findings on contradictions (issue 30, conflict30): the source conflict's
routes that pass as printed, both sides of a contradiction as fields, the writer's side
of a run's own pair, and the [conflict: …] marker's wrong figure."""

from __future__ import annotations

import json

from support.trees import commit_files, no_errors
from support.verifying import plan_for, verify_trees
from test_consistency import (  # noqa: F401 - the fixture base
    CODES,
    SOURCES,
    base,
    cite,
    page,
    run,
)
from test_reporters import schema_errors

from wikigate.codes import CODES as REGISTERED
from wikigate.config import Config
from wikigate.verifier.checks import consistency
from wikigate.verifier.citation import format_tail
from wikigate.verifier.claims import PageClaim
from wikigate.verifier.judges.offline import conflicts
from wikigate.verifier.report import VerificationReport
from wikigate.verifier.reporters import render

GUIDE_QUOTE = "The bandstand was built in 1901."
TOWN_QUOTE = "The bandstand was built in 1899."


def both_cited(sentence: str) -> str:
    """A page whose one sentence cites the guide (1901) and the town (1899)."""
    return (
        f"---\ntitle: Music\n---\n# Music\n\n{sentence}[^1][^2]\n\n"
        f"[^1]: {cite('raw/guide.txt', GUIDE_QUOTE)}\n"
        f"[^2]: {cite('raw/town.txt', TOWN_QUOTE)}\n"
    )


def linked(files: dict[str, str]) -> dict[str, str]:
    """``files`` and the index linking every page (no page.orphan)."""
    pages = ["town", *(p[5:-3] for p in files if p.startswith("wiki/"))]
    index = "---\ntitle: Index\n---\n# Index\n\n" + "".join(f"- [[{p}]]\n" for p in pages)
    return {**files, "wiki/index.md": index}


def verified(repo, base, files):  # noqa: F811 - the fixture base
    tip = commit_files(repo, base.id, linked(files))
    report = verify_trees(repo, tip, base, config=Config(), plan=plan_for(base, tip, "ingest"))
    no_errors(report)
    return report


def test_a_claim_giving_both_figures_and_citing_both_sources_passes(repo, base):  # noqa: F811
    """Trial 40 #2: the hint's "cite both sources" route never passed the offline judge:
    each footnote was held to the whole claim ("claim has [1899], quote has [1894])."""
    for sentence in (
        "The bandstand was built in 1901 or in 1899.",
        "The bandstand was built in 1899 or 1901 (the sources differ).",
    ):
        report = verified(repo, base, {"wiki/music.md": both_cited(sentence)})
        assert report.findings == [], (sentence, report.findings)
        assert report.verdict == "commit"


def test_one_figure_citing_both_sources_states_no_conflict(repo, base):  # noqa: F811
    """Trial 40 #2: "The pier opened in 1899.[^1][^2]" passed the consistency check as a
    stated conflict; it states none (the quote of [^2] says 1899 of nothing it claims)."""
    report = verified(repo, base, {"wiki/music.md": both_cited("The bandstand was built in 1901.")})
    codes = {(f.code, f.claim_line) for f in report.findings}
    assert ("citation.semantic_conflict", 6) in codes, report.findings
    assert ("claim.source_conflict", 6) in codes, report.findings
    assert report.verdict == "revise"


def test_a_figure_no_quote_gives_is_still_flagged(repo, base):  # noqa: F811
    """The trust boundary: citing two sources buys no figure neither gives."""
    report = verified(
        repo, base, {"wiki/music.md": both_cited("The bandstand was built in 1901 or in 1905.")}
    )
    semantic = [f for f in report.findings if f.code == "citation.semantic_conflict"]
    assert semantic and all("1905" in f.message for f in semantic), report.findings
    assert report.verdict == "revise"


def test_the_source_conflict_hint_s_examples_pass_as_printed(repo, base):  # noqa: F811
    """Each route the hint gives lands, as printed (with this wiki's sources)."""
    hint = REGISTERED["claim.source_conflict"].hint
    assert "`The pier opened in 1894 or in 1899.[^1][^2]`" in hint
    assert "`The pier opened in 1899 [conflict: raw/town.txt says 1894].[^1]`" in hint
    pier = "The pier opened in 1899."
    files = {"raw/gazette.txt": f"{pier}\n"}
    tip = commit_files(repo, base.id, files)
    gazette = format_tail("raw/gazette.txt", None, pier, 0)
    both = (
        "---\ntitle: Opening\n---\n# Opening\n\nThe pier opened in 1894 or in 1899.[^1][^2]\n\n"
        f"[^1]: {cite('raw/town.txt', 'The pier opened in 1894.')}\n"
        f"[^2]: {gazette}\n"
    )
    marked = (
        "---\ntitle: Opening\n---\n# Opening\n\n"
        "The pier opened in 1899 [conflict: raw/town.txt says 1894].[^1]\n\n"
        f"[^1]: {gazette}\n"
    )
    unmarked = marked.replace(" [conflict: raw/town.txt says 1894]", "")
    for text, codes in ((unmarked, ["claim.source_conflict"]), (both, []), (marked, [])):
        after = commit_files(repo, tip.id, linked({"wiki/opening.md": text}))
        report = verify_trees(
            repo, after, base, config=Config(), plan=plan_for(base, after, "ingest")
        )
        no_errors(report)
        assert [f.code for f in report.findings if f.severity != "minor"] == codes, (
            text,
            report.findings,
        )


def test_a_contradiction_names_the_other_claim_and_both_sources_as_fields(repo, base):  # noqa: F811
    """Trial 40 #6: the other side was only in the message."""
    claim = ("The bandstand was built in 1901.", "raw/guide.txt", GUIDE_QUOTE)
    found = run(repo, base, {"wiki/music.md": page("Music", [claim])})
    assert [f.code for f in found] == ["claim.source_conflict"]
    f = found[0]
    assert f.source == "raw/guide.txt"
    assert f.other is not None
    assert (f.other.page, f.other.line, f.other.claim_id, f.other.source) == (
        "wiki/town.md",
        6,
        "wiki/town.md#^5",
        "raw/town.txt",
    )
    assert f.other.claim == "The bandstand was built in 1899."
    # in the JSON report, and read back
    tip = commit_files(repo, base.id, {"wiki/music.md": page("Music", [claim])})
    report = verify_trees(repo, tip, base, config=Config(), plan=plan_for(base, tip, "ingest"))
    data = json.loads(report.model_dump_json())
    (shown,) = [x for x in data["findings"] if x["code"] == "claim.source_conflict"]
    assert shown["source"] == "raw/guide.txt"
    assert shown["other"]["claim_id"] == "wiki/town.md#^5"
    again = VerificationReport.model_validate_json(report.model_dump_json())
    assert [x.other for x in again.findings] == [x.other for x in report.findings]


def test_a_gap_contradiction_names_its_sentence_s_line_and_the_other_claim(repo, base):  # noqa: F811
    """Trial 40 #6, #9: a gap-marked statement's finding gave no claim_start_line."""
    text = (
        "---\ntitle: Walks\n---\n# Walks\n\n"
        "The pier opened in 1897 [gap: no source on the opening].\n"
    )
    tip = commit_files(repo, base.id, {"wiki/walks.md": text})
    report = verify_trees(repo, tip, base, config=Config(), plan=plan_for(base, tip, "ingest"))
    (f,) = [f for f in report.findings if f.code == "claim.gap_contradiction"]
    assert (f.line, f.claim_line, f.claim_start_line, f.source) == (6, None, 6, None)
    assert f.other is not None and f.other.claim_id == "wiki/town.md#^1"


def test_a_runs_own_contradiction_sits_on_the_claim_its_quote_does_not_back(repo, base):  # noqa: F811
    """Trial 40 #8: two new pages, one's quote says its figure, the other's does not:
    the finding and its next step sat on the correct claim."""
    depot = "The tram depot was built in 1880. It was repainted in 1905.\n"
    sources = {"raw/depot.txt": depot}
    built, painted = (
        format_tail("raw/depot.txt", None, q, depot.find(q))
        for q in ("The tram depot was built in 1880.", "It was repainted in 1905.")
    )
    tip0 = commit_files(repo, base.id, sources)
    right = (
        "---\ntitle: Depot\n---\n# Depot\n\nThe tram depot was built in 1880.[^1]\n\n"
        f"[^1]: {built}\n"
    )
    wrong = (
        "---\ntitle: Yard\n---\n# Yard\n\nThe tram depot was built in 1905.[^1]\n\n"
        f"[^1]: {painted}\n"
    )
    # either page may be compared first: both orders of names put it on the yard
    for first, second in (("wiki/a.md", "wiki/b.md"), ("wiki/b.md", "wiki/a.md")):
        tip = commit_files(repo, tip0.id, {first: right, second: wrong})
        report = verify_trees(repo, tip, base, config=Config(), plan=plan_for(base, tip, "ingest"))
        no_errors(report)
        found = [f for f in report.findings if f.code in CODES]
        assert [(f.code, f.path) for f in found] == [("claim.contradiction", second)], found
        assert found[0].other is not None and found[0].other.page == first
        assert any(second in step for step in report.next_actions), report.next_actions


def test_a_marker_s_wrong_figure_is_told_as_a_wrong_figure(repo, base):  # noqa: F811
    """Trial 40 #10: the marker named the right source; only its figure was wrong."""
    sentence = "The bandstand was built in 1901 [conflict: raw/town.txt says 1850]."
    found = run(
        repo, base, {"wiki/music.md": page("Music", [(sentence, "raw/guide.txt", GUIDE_QUOTE)])}
    )
    assert [f.code for f in found] == ["claim.source_conflict"], found
    message = found[0].message
    assert "gives 1850 for raw/town.txt, which says 1899" in message
    assert "correct the figure" in message
    assert "not the other claim's source" not in message


def _claim(i: int, sentence: str, page: str) -> PageClaim:
    return PageClaim(page, str(i), 6, sentence, "raw/s.txt", None, sentence, 0, None, False)


def test_numbers_in_words_are_read_as_figures():
    """Trial 40 #7: "thirty/forty/ninety minutes" was a possible contradiction ("“takes
    forty” may be another thing than “takes”"), "half an hour" and "a quarter of an hour"
    were not read, "one and a half thousand" was read as 1 and 50,000."""
    crossing = _claim(1, "The crossing takes 20 minutes.", "wiki/ferry.md")
    for said in (
        "thirty minutes",
        "forty minutes",
        "ninety minutes",
        "five minutes",
        "half an hour",
        "a quarter of an hour",
        "an hour and a half",
    ):
        f = consistency.pair_finding(
            _claim(2, f"The crossing takes {said}.", "wiki/w.md"), crossing
        )
        assert f is not None and f.code == "claim.contradiction", (said, f)
        assert "a different number" in f.message, (said, f.message)
    same = _claim(2, "The crossing takes twenty minutes.", "wiki/w.md")
    assert consistency.pair_finding(same, crossing) is None
    objects = _claim(1, "The museum holds 1,500 objects.", "wiki/museum.md")
    one_and_a_half = _claim(2, "The museum holds one and a half thousand objects.", "wiki/w.md")
    assert consistency.pair_finding(one_and_a_half, objects) is None
    more = _claim(2, "The museum holds two and a half thousand objects.", "wiki/w.md")
    assert consistency.pair_finding(more, objects) is not None
    # a longer number and a name keep their words
    span = _claim(1, "The bridge is 400 metres long.", "wiki/bridge.md")
    longer = _claim(2, "The bridge is four hundred and twenty metres long.", "wiki/w.md")
    assert consistency.pair_finding(longer, span) is not None
    # and the offline judge reads them as the consistency check does
    assert conflicts(one_and_a_half.sentence, objects.sentence) == []
    assert conflicts("The crossing takes half an hour.", "The crossing takes 30 minutes.") == []
    assert [k.kind for k in conflicts("The crossing takes half an hour.", "takes 20 minutes")] == [
        "number"
    ]


def test_sarif_and_rdjson_give_the_other_claim_as_a_related_location(repo, base):  # noqa: F811
    """Trial 40 #6: a code scanning alert or a reviewdog comment points at both claims."""
    claim = ("The bandstand was built in 1901.", "raw/guide.txt", GUIDE_QUOTE)
    report = verified(repo, base, {"wiki/music.md": page("Music", [claim])})
    assert [f.code for f in report.findings] == ["claim.source_conflict"]
    sarif = json.loads(render(report, "sarif"))
    assert schema_errors("sarif-2.1.0.json", sarif) == []
    (result,) = sarif["runs"][0]["results"]
    (related,) = result["relatedLocations"]
    assert related["physicalLocation"] == {
        "artifactLocation": {"uri": "wiki/town.md"},
        "region": {"startLine": 6},
    }
    assert "wiki/town.md#^5" in related["message"]["text"]
    rd = json.loads(render(report, "rdjson"))
    assert schema_errors("rdjson.json", rd, strict=True) == []
    (diagnostic,) = rd["diagnostics"]
    assert diagnostic["related_locations"] == [
        {
            "message": "the other claim, wiki/town.md#^5, citing raw/town.txt",
            "location": {"path": "wiki/town.md", "range": {"start": {"line": 6}}},
        }
    ]


def test_where_a_conflict_marker_goes_is_as_format_md_says(repo, base):  # noqa: F811
    """Trial 40 #10: inside the sentence before its footnote (before the stop, or at the
    start) it states the conflict; after the footnote it is no part of the claim, and
    between the stop and the footnote the claim loses its footnote."""
    pier = "The pier opened in 1899."
    tip = commit_files(repo, base.id, {"raw/gazette.txt": f"{pier}\n"})
    note = f"[^1]: {format_tail('raw/gazette.txt', None, pier, 0)}\n"
    marker = "[conflict: raw/town.txt says 1894]"
    head = "---\ntitle: Opening\n---\n# Opening\n\n"
    cases = {
        f"The pier opened in 1899 {marker}.[^1]": set(),
        f"{marker} The pier opened in 1899.[^1]": set(),
        f"The pier opened in 1899.[^1] {marker}": {"claim.source_conflict"},
        f"The pier opened in 1899. {marker}[^1]": {"page.unsupported_statement"},
    }
    for sentence, codes in cases.items():
        after = commit_files(
            repo, tip.id, linked({"wiki/opening.md": f"{head}{sentence}\n\n{note}"})
        )
        report = verify_trees(
            repo, after, base, config=Config(), plan=plan_for(base, after, "ingest")
        )
        no_errors(report)
        got = {f.code for f in report.findings if f.severity != "minor"}
        assert got == codes, (sentence, report.findings)
