"""What the bot trusts (docs/github.md, "What each gate trusts"): a decision lands exactly
the commit it was made about, and nothing a writer controls (the pull request's commits,
its paths and labels, its branch) is authority.  The GitHub emulator on 127.0.0.1, the real
PyGithub client, `wikigate github` as a workflow runs it."""

from __future__ import annotations

import pytest
from support.github_world import World, fabricated_page, quote_only_page

from wikigate.runid import now_iso


def replies(world: World) -> list[str]:
    return [c["body"] for c in world.gh.issue_comments.values()]


# ---------------------------------------------------------------- an override names its head


@pytest.mark.parametrize("sync_first", [False, True], ids=["comment-job-first", "sync-job-first"])
def test_an_override_comment_lands_only_the_head_its_writer_saw(world: World, sync_first: bool):
    seen = world.push_pr(30, quote_only_page("barn"))
    assert world.run(30, "opened").code == 3  # revise, reported on `seen`
    written = now_iso()  # the maintainer reads that report and comments
    main_before = world.main_sha()
    pushed = world.push_pr(30, fabricated_page("barn"))  # a push before the comment's job runs
    if sync_first:  # the push's own job: rejected, closed, branch deleted
        assert world.run(30, "synchronize").code == 1
        assert world.gh.pulls[30].state == "closed"
    result = world.comment(
        30, "/wikigate override checked by hand", sender="maintainer", created_at=written
    )
    assert result.code == 0, result.out
    assert "nothing to do" in result.out
    assert world.main_sha() == main_before  # the fabricated head never lands
    reply = replies(world)[-1]
    assert reply.startswith("@maintainer:") and "nothing was done" in reply
    assert seen[:12] in reply and pushed[:12] in reply
    if sync_first:
        assert world.gh.pulls[30].state == "closed"  # not reopened
        assert world.note(pushed)["verdict"] == "reject"
    else:
        assert world.note(pushed) is None  # nothing verified or recorded for it


def test_an_override_comment_written_before_any_report_lands_nothing(world: World):
    written = now_iso()
    head = world.push_pr(31, fabricated_page("barn"))
    main_before = world.main_sha()
    result = world.comment(31, "/wikigate override trust me", sender="owner", created_at=written)
    assert result.code == 0, result.out
    assert world.main_sha() == main_before and world.note(head) is None
    assert "none was; nothing was done" in replies(world)[-1]


def test_an_override_comment_on_the_head_it_saw_lands_that_head(world: World):
    head = world.push_pr(32, fabricated_page("barn"))
    assert world.run(32, "opened").code == 1
    result = world.comment(32, "/wikigate override the paper source says so", sender="owner")
    assert result.code == 0, result.out
    assert world.main_sha() == head
    assert world.note(head)["override_reason"].endswith(f"(given for head {head})")
