"""``wikigate github`` end to end: a real bare origin, the GitHub emulator on 127.0.0.1,
the real PyGithub client, and the command run as a user's workflow runs it."""

from __future__ import annotations

import json
import subprocess

from support.github_world import World, cited_page, fabricated_page, quote_only_page
from support.helpers import git

from wikigate.workspace import Workspace


def _definition_line(page: str) -> int:
    return next(i for i, line in enumerate(page.split("\n"), 1) if line.startswith("[^1]:"))


def test_a_fabricated_quote_gets_a_comment_on_its_line_and_the_pr_is_closed(world: World):
    page = fabricated_page("barn")
    world.push_pr(1, page)
    main_before = world.main_sha()
    result = world.run(1, "opened")
    assert result.code == 1, result.out
    [comment] = world.comments()
    assert comment["path"] == "wiki/barn.md"
    assert comment["line"] == _definition_line(page)
    assert "citation.quote_not_found" in comment["body"]
    assert "<!-- wikigate:fp=" in comment["body"]
    assert [r["state"] for r in world.gh.reviews] == ["COMMENTED"]
    assert world.gh.pulls[1].state == "closed"
    assert world.main_sha() == main_before
    [summary] = world.gh.issue_comments.values()
    assert "wikigate: reject" in summary["body"] and "1 critical" in summary["body"]
    assert "verdict=reject" in (world.tmp / "output.txt").read_text()


def test_revise_then_rerun_then_fix_lands_and_cleans_up(world: World):
    world.push_pr(2, quote_only_page("barn"))
    first = world.run(2, "opened")
    assert first.code == 3, first.out
    assert [r["state"] for r in world.gh.reviews] == ["CHANGES_REQUESTED"]
    [comment] = world.comments()
    assert "citation.anchor_missing" in comment["body"]

    again = world.run(2, "synchronize")  # the same head again: nothing new to say
    assert again.code == 3
    assert [c["id"] for c in world.comments()] == [comment["id"]]
    assert len(world.gh.reviews) == 1
    assert len(world.gh.issue_comments) == 1  # the summary, edited in place

    head = world.push_pr(2, cited_page("barn"))  # the fix: anchored
    fixed = world.run(2, "synchronize")
    assert fixed.code == 0, fixed.out
    assert world.comments() == []  # the finding is gone, so is its comment
    assert world.main_sha() == head  # fast-forwarded: the head is on the base
    assert world.gh._pull(world.gh.pulls[2])["merged"] is True
    note = json.loads(git(world.bare, "notes", "--ref", "wikigate", "show", head).stdout)
    assert note["status"] == "committed" and note["verdict"] == "commit"
    assert note["triggered_by"] == "github:pull_request_target"
    [summary] = world.gh.issue_comments.values()
    assert "wikigate: commit" in summary["body"]


def test_override_label_by_a_writer_lands_and_is_recorded(world: World):
    head = world.push_pr(3, fabricated_page("barn"))
    world.gh.pulls[3].labels.append("wikigate:override")
    result = world.run(3, "labeled", sender="maintainer", label="wikigate:override")
    assert result.code == 0, result.out
    assert world.main_sha() == head
    note = json.loads(git(world.bare, "notes", "--ref", "wikigate", "show", head).stdout)
    assert note["verdict"] == "commit_override"
    assert (note["override_actor"], note["override_source"]) == ("maintainer", "github-label")
    # telemetry rebuild on a fresh clone reproduces the pull request's run and override
    clone = world.tmp / "fresh"
    subprocess.run(["git", "clone", "-q", str(world.bare), str(clone)], check=True)
    git(clone, "fetch", "-q", "origin", "refs/notes/wikigate:refs/notes/wikigate")
    ws = Workspace.open(clone)
    try:
        ws.rebuild_telemetry()
        [override] = ws.store.overrides(note["run_id"])
        assert (override["actor"], override["source"]) == ("maintainer", "github-label")
    finally:
        ws.close()


def test_override_label_by_a_reader_is_removed_and_nothing_lands(world: World):
    world.push_pr(4, fabricated_page("barn"))
    world.gh.pulls[4].labels.append("wikigate:override")
    main_before = world.main_sha()
    result = world.run(4, "labeled", sender="visitor", label="wikigate:override")
    assert result.code == 1, result.out
    assert world.main_sha() == main_before
    assert world.gh.pulls[4].labels == []
    assert any("@visitor" in c["body"] for c in world.gh.issue_comments.values())
    assert world.gh.pulls[4].state == "closed"


def test_a_read_only_token_reports_through_workflow_commands(world: World):
    page = fabricated_page("barn")
    world.push_pr(5, page)
    world.gh.refuse("POST", r"/pulls/\d+/reviews$", 403, "Resource not accessible by integration")
    result = world.run(5, "opened", event_name="pull_request")
    assert result.code == 1, result.out
    line = _definition_line(page)
    assert (
        f"::error file=wiki/barn.md,line={line},title=wikigate citation.quote_not_found::"
        in result.out
    )
    assert world.comments() == []


def test_main_moved_while_landing_says_so(world: World):
    head = world.push_pr(6, cited_page("barn"))

    def someone_lands_first() -> None:  # main moves between the bot's check and its PATCH
        git(world.seed, "checkout", "-q", "-B", "other", "main")
        (world.seed / "wiki" / "note.txt").write_text("x\n")
        git(world.seed, "add", "wiki")
        git(world.seed, "commit", "-q", "-m", "elsewhere")
        git(world.seed, "push", "-q", str(world.bare), "other:refs/heads/main")
        world.gh.before_ref_patch = None

    world.gh.before_ref_patch = someone_lands_first
    result = world.run(6, "opened")
    assert result.code == 3, result.out
    assert "main moved" in result.out
    assert git(world.bare, "notes", "--ref", "wikigate", "show", head, check=False).returncode != 0


def test_other_events_are_nothing_to_do(world: World):
    world.push_pr(7, cited_page("barn"))
    result = world.run(7, "opened", event_name="issues")
    assert result.code == 0 and "nothing to do" in result.out
    assert world.gh.requests == []
