"""What the bot shows on a pull request: comments on the claims' lines (``start_line`` for
a sentence over several lines), the 30-per-review batch, GitHub's 422 on a line, outdated
comments a person answered, APPROVE refused, the check run and its commit-status fallback,
and GitHub's rate limits and 5xx answers.  The real PyGithub against the emulator."""

from __future__ import annotations

import time

from support.github_world import World, fabricated_page
from support.wiki_runs import SOURCE

from wikigate.verifier.citation import format_tail


def _line_of(page: str, text: str) -> int:
    return next(i for i, line in enumerate(page.split("\n"), 1) if text in line)


def many_fabrications(n: int) -> str:
    """A page of ``n`` fabricated quotes, one claim per paragraph: ``n`` critical findings."""
    body = ["# Barn", ""]
    for k in range(1, n + 1):
        made_up = f"Barn owls number {k} thousand in the fens."
        body += [f"{made_up}[^{k}]", ""]
    for k in range(1, n + 1):
        made_up = f"Barn owls number {k} thousand in the fens."
        body.append(f"[^{k}]: {format_tail(SOURCE, None, made_up, None)}")
    return "\n".join(body) + "\n"


def test_a_claim_over_two_lines_is_commented_from_its_first_line(world: World):
    made_up = "A barn owl can hear a cat under ice."
    page = (
        "# Barn\n\nBarn owls hunt at night. A barn owl can\nhear a cat under ice.[^1]\n\n"
        f"[^1]: {format_tail(SOURCE, None, made_up, None)}\n"
    )
    world.push_pr(11, page)
    assert world.run(11, "opened").code == 1
    [comment] = world.comments()
    assert (comment["start_line"], comment["line"]) == (3, 4)
    assert "> A barn owl can hear a cat under ice." in comment["body"]


def test_thirty_comments_per_review_the_rest_in_its_body(world: World):
    world.push_pr(12, many_fabrications(34))
    assert world.run(12, "opened").code == 1
    assert len(world.comments()) == 30
    [review] = world.gh.reviews
    assert "4 more" in review["body"] or review["body"].count("citation.quote_not_found") >= 4
    check = world.gh.check_run()
    assert len(check["annotations"]) == 34 and check["updates"] >= 1  # 50 per request at most


def test_a_line_github_refuses_becomes_a_file_level_comment(world: World):
    page = fabricated_page("barn")
    world.push_pr(13, page)
    world.gh.refuse_lines.add(("wiki/barn.md", _line_of(page, "[^1]")))
    assert world.run(13, "opened").code == 1
    [comment] = world.comments()
    assert comment["subject_type"] == "file" and comment["line"] is None
    assert "GitHub would not take" in comment["body"]
    assert "citation.quote_not_found" in comment["body"]
    assert len(world.gh.reviews) == 1  # the review itself still came out


def test_a_fixed_finding_someone_answered_is_marked_resolved_not_deleted(world: World):
    from support.github_world import cited_page, quote_only_page

    world.push_pr(14, quote_only_page("barn"))
    assert world.run(14, "opened").code == 3
    [mine] = world.comments()
    world.gh._review_comment(
        14,
        mine["commit_id"],
        {"body": "Why?", "path": mine["path"], "in_reply_to": mine["id"]},
        "alice",
    )
    world.push_pr(14, cited_page("barn"))
    assert world.run(14, "synchronize").code == 0
    kept = world.gh.review_comments[mine["id"]]
    assert kept["body"].startswith("**Resolved**") and "wikigate:fp=" not in kept["body"]
    assert any(c["body"] == "Why?" for c in world.comments())


def test_approve_refused_falls_back_to_comment(world: World):
    from support.github_world import cited_page

    world.push_pr(15, cited_page("barn"))
    result = world.step(
        "pull_request_target",
        world.pr_event(15, "opened"),
        env={"WIKIGATE_COMMIT_REVIEW": "APPROVE"},
    )
    assert result.code == 0, result.out
    assert [r["state"] for r in world.gh.reviews] == ["COMMENTED"]
    assert "reviewing with COMMENT instead" in result.out
    assert world.gh.check_run()["conclusion"] == "success"


def test_without_checks_write_a_commit_status_instead(world: World):
    world.push_pr(16, fabricated_page("barn"))
    world.gh.refuse("POST", r"/check-runs$", 403, "Resource not accessible by integration")
    assert world.run(16, "opened").code == 1
    assert world.gh.check_runs == {}
    states = [(s["context"], s["state"]) for s in world.gh.statuses]
    assert states == [("wikigate", "pending"), ("wikigate", "failure")]


def test_a_rate_limit_with_retry_after_is_waited_out(world: World):
    world.push_pr(17, fabricated_page("barn"))
    world.gh.refuse(
        "POST",
        r"/reviews$",
        403,
        "You have exceeded a secondary rate limit",
        times=1,
        headers={"Retry-After": "1"},
    )
    started = time.monotonic()
    assert world.run(17, "opened").code == 1
    assert time.monotonic() - started >= 1  # it waited as GitHub asked
    assert len(world.gh.reviews) == 1 and len(world.comments()) == 1


def test_github_down_fails_closed_with_a_clear_message(world: World):
    from support.github_world import cited_page

    world.push_pr(18, cited_page("barn"))
    main_before = world.main_sha()
    world.gh.refuse("PATCH", r"/git/refs/heads/main$", 502, "Bad Gateway")
    result = world.run(18, "opened")
    assert result.code == 1
    assert "GitHub failed to fast-forward main to " in result.out
    assert "502 Bad Gateway, still after retries" in result.out
    assert world.gh.check_run()["conclusion"] == "failure"  # never left in progress
    assert "Traceback" not in result.out
    assert world.main_sha() == main_before


def test_a_persons_copy_of_the_bots_markers_is_never_edited_or_deleted(world: World):
    from support.github_world import cited_page, quote_only_page

    world.push_pr(19, quote_only_page("barn"))
    assert world.run(19, "opened").code == 3
    [mine] = world.comments()
    forged = world.gh._review_comment(
        19, mine["commit_id"], {"body": mine["body"], "path": mine["path"], "line": 3}, "mallory"
    )
    world.gh._create_issue_comment({"body": "<!-- wikigate:summary -->\nlooks good"}, "19")
    [theirs] = [c for c in world.gh.issue_comments.values() if "looks good" in c["body"]]
    theirs["user"] = world.gh._user("mallory")
    world.push_pr(19, cited_page("barn"))
    assert world.run(19, "synchronize").code == 0
    assert world.gh.review_comments[forged["id"]]["body"] == mine["body"]  # left alone
    assert mine["id"] not in world.gh.review_comments  # the bot's own: deleted
    assert theirs["body"].endswith("looks good")


def test_text_from_the_pull_request_is_inert_in_the_bots_voice():
    from wikigate.bot.review import inert

    shown = inert("@everyone <img src=x> [link](https://evil.example) <!-- wikigate:summary -->")
    assert "@" not in shown and "<" not in shown.replace("\\<", "")
    assert "](" not in shown.replace("\\](", "")
