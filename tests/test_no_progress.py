"""Failure signatures and no progress (issue 28): each finding carries a stable id of what
failed (``models.signature``), the same across loops when the same thing fails again,
wherever unrelated text moved it; a revise loop that ends with the last loop's failures
stops looping (rejected, or waiting for a person by ``[runs] on_no_progress``). Real
repositories, the product's verifier, the CLI in process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.fixtures import initialised_repo  # noqa: F401  (the `repo` fixture)
from support.helpers import git, start, wikigate
from support.wiki_runs import SOURCE, SOURCE_TEXT, cited_page

from wikigate.models import Finding

PRODUCT = {"WIKIGATE_VERIFIER": ""}  # the product's own verifier
LINKS = "\nRelated: [[Ghost]], [[Phantom]].\n"  # two failures: link.broken, twice


def write(repo: Path, run: str, path: str, text: str) -> None:
    proc = wikigate(repo, "run", "write", run, path, "--from", "-", stdin=text)
    assert proc.returncode == 0, proc.stderr


def broken_links_run(repo: Path) -> str:
    """A run whose page links two pages that do not exist (two major findings: revise)."""
    run = start(repo)
    write(repo, run, SOURCE, SOURCE_TEXT)
    write(repo, run, "wiki/owls.md", cited_page("owls") + LINKS)
    write(repo, run, "wiki/index.md", (repo / "wiki" / "index.md").read_text() + "\n- [[Owls]]\n")
    return run


def finalize(repo: Path, run: str):
    return wikigate(repo, "run", "finalize", run, env=PRODUCT)


def note_of(repo: Path, ref: str) -> dict:
    """The run's record: the JSON note on the commit ``ref`` names."""
    return json.loads(git(repo, "notes", "--ref=wikigate", "show", ref).stdout)


def shown(repo: Path, run: str) -> dict:
    return json.loads(wikigate(repo, "runs", "show", run, "--format", "json").stdout)


def test_a_writer_resubmitting_the_same_failures_stops_after_the_second_loop(repo):
    run = broken_links_run(repo)
    main = git(repo, "rev-parse", "main").stdout.strip()
    first = finalize(repo, run)
    assert first.returncode == 3, first.stdout + first.stderr  # revise: loop 1 of 3
    assert "wiki/owls.md:7: major link.broken: [[Ghost]]" in first.stdout
    sigs = {f["signature"] for f in shown(repo, run)["findings"]}
    assert len(sigs) == 2 and None not in sigs
    # the verification's report.json (kept in git with its attestation) carries them too
    (loop1,) = note_of(repo, f"refs/heads/wikigate/runs/{run}")["verifications"]
    report = json.loads(git(repo, "show", f"{loop1['tree']}:report.json").stdout)
    assert {f["signature"] for f in report["findings"]} == sigs
    # the writer moves the failing line down (a heading above it) but fixes nothing
    write(repo, run, "wiki/owls.md", cited_page("owls") + "\n## See also\n" + LINKS)
    second = finalize(repo, run)
    assert second.returncode == 1, second.stdout + second.stderr  # rejected, not loop 3
    assert second.stdout.startswith(
        f"rejected {run}: no progress: the same 2 failures as loop 1: wiki/owls.md:9: link.broken"
    )
    record = shown(repo, run)
    assert record["status"] == "rejected" and record["loop_count"] == 2
    assert record["reject_reason"].startswith("no progress: the same 2 failures as loop 1")
    # the run's record keeps each loop's findings with their signatures: lines moved,
    # signatures did not
    assert {(f["loop"], f["line"], f["signature"]) for f in record["findings"]} == {
        (loop, line, s) for loop, line in ((1, 7), (2, 9)) for s in sigs
    }
    # and so does its note in git, which the database is rebuilt from
    note = note_of(repo, f"refs/wikigate/failed/{run}")
    assert {(f["loop"], f["signature"]) for f in note["findings"]} == {
        (loop, s) for loop in (1, 2) for s in sigs
    }
    assert git(repo, "rev-parse", "main").stdout.strip() == main


def test_a_writer_who_fixes_one_of_two_failures_keeps_looping(repo):
    run = broken_links_run(repo)
    assert finalize(repo, run).returncode == 3
    write(repo, run, "wiki/owls.md", cited_page("owls") + "\nRelated: [[Ghost]].\n")
    second = finalize(repo, run)
    assert second.returncode == 3, second.stdout + second.stderr
    assert second.stdout.startswith(f"revise {run} (loop 2 of 3)")
    # then fixes the other, and the run lands
    write(repo, run, "wiki/owls.md", cited_page("owls"))
    assert finalize(repo, run).returncode == 0


def test_no_progress_can_wait_for_a_person_instead(repo):
    rules = repo / "wikigate.toml"
    default = rules.read_text()
    assert 'on_no_progress = "reject"' in default  # `wikigate init` writes the default
    rules.write_text(default.replace('on_no_progress = "reject"', 'on_no_progress = "ask"'))
    git(repo, "commit", "-qam", "ask a person when a run makes no progress")
    run = broken_links_run(repo)
    assert finalize(repo, run).returncode == 3
    second = finalize(repo, run)
    assert second.returncode == 5, second.stdout + second.stderr
    assert second.stdout.startswith(
        f"needs_human_review {run}: no progress: the same 2 failures as loop 1; a person decides"
    )
    record = shown(repo, run)
    assert (record["status"], record["verdict"]) == ("pending", "needs_human_review")


def test_a_signature_names_what_failed_never_where():
    here = Finding(code="link.broken", severity="major", path="wiki/a.md", line=3,
                   message="[[Ghost]] resolves to no page (the first on line 3)")  # fmt: skip
    there = Finding(code="link.broken", severity="major", path="wiki/a.md", line=9,
                    message="[[Ghost]] resolves to no page (the first on line 9)")  # fmt: skip
    other = Finding(code="link.broken", severity="major", path="wiki/a.md", line=3,
                    message="[[Phantom]] resolves to no page (the first on line 3)")  # fmt: skip
    assert here.signature == there.signature != other.signature
    # computed, never taken from input: a report read back cannot claim another's
    forged = Finding.model_validate({**other.model_dump(), "signature": here.signature})
    assert forged.signature == other.signature


def test_fixing_one_of_two_identical_failures_is_progress_and_a_minor_one_is_not(repo):
    """Signatures were compared as sets: fixing one of two `[[Nowhere]]` links was "no
    progress", and a new unreferenced footnote (minor) each loop dodged the rule (review)."""
    run = start(repo)
    write(repo, run, SOURCE, SOURCE_TEXT)
    twice = cited_page("owls") + "\nSee [[Nowhere]].\n\nAnd [[Nowhere]] again.\n"
    write(repo, run, "wiki/owls.md", twice)
    write(repo, run, "wiki/index.md", (repo / "wiki" / "index.md").read_text() + "\n- [[Owls]]\n")
    assert finalize(repo, run).returncode == 3
    write(repo, run, "wiki/owls.md", cited_page("owls") + "\nSee [[Nowhere]].\n")
    second = finalize(repo, run)
    assert second.stdout.startswith(f"revise {run} (loop 2 of 3)"), second.stdout
    from support.wiki_runs import QUOTE

    from wikigate.verifier.citation import format_tail

    unused = format_tail(SOURCE, None, QUOTE, SOURCE_TEXT.index(QUOTE))  # referenced nowhere
    dodge = cited_page("owls") + f"\nSee [[Nowhere]].\n\n[^u3]: {unused}\n"
    write(repo, run, "wiki/owls.md", dodge)
    third = finalize(repo, run)
    assert third.returncode == 1 and "no progress: the same 1 failure as loop 2" in third.stdout
    assert "minor" in third.stdout  # the unreferenced footnote: listed, not a failure


# ---------------------------------------------------------------- a pull request's loops


def _pr_summary(world) -> str:
    [summary] = world.gh.issue_comments.values()
    return summary["body"]


@pytest.mark.slow  # a server process (or two bot events) per test
def test_a_pull_request_resubmitting_the_same_failures_is_rejected_for_no_progress(world):
    """The bot's loops stop on no progress as `run finalize`'s do: the loop before's
    signatures come from the bot's own note on origin, never from the pull request."""
    from support.github_world import quote_only_page

    page = quote_only_page("barn")
    first_head = world.push_pr(2, page)
    first = world.run(2, "opened")
    assert first.code == 3, first.out  # revise: loop 1 of 3
    loop1 = world.note(first_head)
    sigs = {f["signature"] for f in loop1["findings"]}
    assert sigs and None not in sigs  # the note keeps what failed
    # the author pushes a new head that moves the failing lines but fixes nothing, and
    # writes in the description that it was all fixed (the bot never reads that for this)
    world.gh.pulls[2].body = "Fixed every finding; signatures: none"
    head = world.push_pr(2, page.replace("\n\n", "\n\n## Facts\n\n", 1))
    second = world.run(2, "synchronize")
    assert second.code == 1, second.out  # rejected, not loop 3
    n = len(sigs)
    stuck = f"no progress: the same {n} failure{'s' if n != 1 else ''} as loop 1"
    assert stuck in second.out
    note = world.note(head)
    assert (note["status"], note["verdict"], note["loop_count"]) == ("rejected", "reject", 2)
    assert note["reject_reason"] == f"{stuck}: ` wiki/barn.md `: citation.anchor_missing"
    assert {f["signature"] for f in note["findings"] if f["loop"] == 2} == sigs
    assert world.gh.pulls[2].state == "closed"
    check = list(world.gh.check_runs.values())[-1]
    assert check["output"]["title"].startswith(f"rejected: {stuck}")
    assert stuck in _pr_summary(world)


@pytest.mark.slow  # a server process (or two bot events) per test
def test_a_pull_request_that_makes_no_progress_can_wait_for_a_person(world):
    from support.github_world import quote_only_page

    rules = (world.seed / "wikigate.toml").read_text()
    assert 'on_no_progress = "reject"' in rules
    world.land_on_main(
        {"wikigate.toml": rules.replace('on_no_progress = "reject"', 'on_no_progress = "ask"')},
        "ask a person when a pull request makes no progress",
    )
    page = quote_only_page("barn")
    world.push_pr(4, page)
    assert world.run(4, "opened").code == 3
    head = world.push_pr(4, page.replace("\n\n", "\n\n## Facts\n\n", 1))
    second = world.run(4, "synchronize")
    assert second.code == 5, second.out
    assert "needs_human_review: no progress: the same" in second.out
    note = world.note(head)
    assert (note["status"], note["verdict"]) == ("pending", "needs_human_review")
    assert note["reject_reason"].startswith("no progress: the same")
    question = (
        "the writer's last loop failed on exactly what loop 1 failed on (1 failure): land "
        "the change as it is, or reject it?"
    )
    assert note["questions"] == [question]
    [summary] = world.gh.issue_comments.values()
    assert f"**A person must answer:**\n\n- {question}" in summary["body"]
    assert "wikigate:needs-human-review" in world.gh.pulls[4].labels
    assert world.gh.pulls[4].state == "open"


@pytest.mark.slow  # a server process (or two bot events) per test
def test_a_pull_request_that_fixes_something_keeps_looping(world):
    from support.github_world import quote_only_page

    world.push_pr(6, quote_only_page("barn"))
    assert world.run(6, "opened").code == 3
    # a different failure now (the quote is anchored, but a link goes nowhere)
    world.push_pr(6, cited_page("barn") + "\nSee [[Nowhere]].\n")
    second = world.run(6, "synchronize")
    assert second.code == 3, second.out
    assert "loop 2 of 3" in second.out


def test_a_changed_anchor_or_line_note_is_the_same_failure():
    """Found by review: a writer moved a wrong location note (L3, then L1) or anchor each
    loop, and each loop counted as progress. Numbers are where, not what."""
    from wikigate.codes import finding
    from wikigate.models import signature

    def failed(message: str) -> str:
        return signature(finding("citation.location", "wiki/a.md", 4, message))

    assert failed("[^1]: the quote is not in L3 of raw/t.txt (offset 36)") == failed(
        "[^1]: the quote is not in L1 of raw/t.txt (offset 12)"
    )
    assert failed("[^1]: the quote is not in L3 of raw/t.txt") != failed(
        "[^1]: the section 'Results' of raw/t.txt does not exist"
    )
