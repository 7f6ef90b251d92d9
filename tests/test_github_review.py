"""What the bot shows on a pull request: comments on the claims' lines (``start_line`` for
a sentence over several lines), the 30-per-review batch, GitHub's 422 on a line, outdated
comments a person answered, APPROVE refused, the check run and its commit-status fallback,
and GitHub's rate limits and 5xx answers.  The real PyGithub against the emulator."""

from __future__ import annotations

import time

import pygit2
import pytest
from support.github_emulator import Pull
from support.github_world import World, fabricated_page
from support.helpers import git
from support.trees import commit_files
from support.wiki_runs import SOURCE

from wikigate.bot.notes import run_type_for
from wikigate.bot.review import diff_lines
from wikigate.verifier.citation import format_tail


def _line_of(page: str, text: str) -> int:
    return next(i for i, line in enumerate(page.split("\n"), 1) if text in line)


def many_fabrications(n: int) -> str:
    """A page of ``n`` fabricated quotes, one claim per paragraph: ``n`` critical findings."""
    # one subject each (a name of its own, no number): no claim contradicts another
    names = [f"{a}{b}ham".capitalize() for a in "bcdfghjklmnpr" for b in "aeiou"]
    body = ["# Barn", ""]
    for k in range(1, n + 1):
        made_up = f"The {names[k]} barn owls roost in the fens."
        body += [f"{made_up}[^{k}]", ""]
    for k in range(1, n + 1):
        made_up = f"The {names[k]} barn owls roost in the fens."
        body.append(f"[^{k}]: {format_tail(SOURCE, None, made_up, None)}")
    return "\n".join(body) + "\n"


@pytest.mark.slow
def test_a_claim_over_two_lines_is_commented_from_its_first_line(world: World):
    made_up = "A barn owl can hear a cat under ice."
    page = (
        "# Barn\n\nOwls hunt. A barn owl can\nhear a cat under ice.[^1]\n\n"
        f"[^1]: {format_tail(SOURCE, None, made_up, None)}\n"
    )
    world.push_pr(11, page)
    assert world.run(11, "opened").code == 1
    [comment] = world.comments()
    assert (comment["start_line"], comment["line"]) == (3, 4)
    assert "> A barn owl can hear a cat under ice." in comment["body"]


@pytest.mark.slow
def test_a_page_whose_name_has_a_space_gets_its_line_comments(world: World):
    """Obsidian notes are named with spaces; git writes ``+++ b/Barn owls.md<TAB>`` for
    them, and GitHub takes the path without it (trial 26d): the comment sits on its line."""
    made_up = "A barn owl can hear a cat under ice."
    page = f"# Barn owls\n\n{made_up}[^1]\n\n[^1]: {format_tail(SOURCE, None, made_up, None)}\n"
    index = (world.seed / "wiki" / "index.md").read_text() + "- [[Barn owls]]\n"
    world.push_files(15, {"wiki/Barn owls.md": page, "wiki/index.md": index})
    assert world.run(15, "opened").code == 1
    [comment] = world.comments()
    assert comment["path"] == "wiki/Barn owls.md" and comment["line"] == 3, comment
    assert comment.get("subject_type") != "file"


def raise_max_comments(world: World, limit: int) -> None:
    rules = (world.seed / "wikigate.toml").read_text() + f"\n[github]\nmax_comments = {limit}\n"
    world.land_on_main({"wikigate.toml": rules}, "more review comments")


@pytest.mark.slow
def test_thirty_comments_per_review_the_rest_in_its_body(world: World):
    raise_max_comments(world, 100)
    world.push_pr(12, many_fabrications(34))
    assert world.run(12, "opened").code == 1
    assert len(world.comments()) == 30
    [review] = world.gh.reviews
    assert "4 more" in review["body"] or review["body"].count("citation.quote_not_found") >= 4
    check = world.gh.check_run()
    assert len(check["annotations"]) == 34 and check["updates"] >= 1  # 50 per request at most


@pytest.mark.slow
def test_at_most_25_comments_on_a_pull_request_the_rest_folded_into_the_summary(world: World):
    """reviewdog's limit: past `[github] max_comments` (default 25) no more review
    comments, on this run or the next; the rest is listed in the summary comment."""
    world.push_pr(13, many_fabrications(34))
    assert world.run(13, "opened").code == 1
    assert len(world.comments()) == 25
    [summary] = world.gh.issue_comments.values()
    assert "9 more findings, not posted as review comments" in summary["body"]
    assert "at most 25 on a pull request" in summary["body"]
    folded = summary["body"].split("<details>", 1)[1]
    assert [
        line.split("[^")[1].split("\\]")[0] for line in folded.splitlines() if "[^" in line
    ] == [str(k) for k in range(26, 35)]


def test_the_comments_still_standing_count_towards_max_comments():
    """A later verification posts no more comments while the pull request holds the limit:
    the bot's standing comments of findings still found count."""
    from wikigate.bot.review import fingerprint, plan_review
    from wikigate.models import Finding
    from wikigate.verifier.report import SummaryMetrics, VerificationReport

    findings = [
        Finding(code="link.broken", severity="major", path="wiki/a.md", line=k, message=f"x{k}")
        for k in range(1, 6)
    ]
    report = VerificationReport(
        base="b" * 40,
        tip="a" * 40,
        strictness="SKEPTICAL",
        verdict="revise",
        checks=[],
        findings=findings,
        summary=SummaryMetrics(),
    )
    diff = {"wiki/a.md": set(range(1, 6))}
    first = plan_review(report, diff, set(), max_comments=3)
    assert (len(first.inline), len(first.folded)) == (3, 2)
    standing = {c.fingerprint for c in first.inline}
    again = plan_review(report, diff, standing, max_comments=3)
    assert (again.inline, again.folded) == ([], findings[3:])
    # one of them fixed: its place is free for the next
    fixed = standing - {fingerprint(findings[0])}
    later = plan_review(
        report.model_copy(update={"findings": findings[1:]}), diff, fixed, max_comments=3
    )
    assert [c.line for c in later.inline] == [4] and later.folded == findings[4:]


@pytest.mark.slow
def test_the_base_rules_set_max_comments_never_the_pull_requests(world: World):
    rules = (world.seed / "wikigate.toml").read_text()
    world.land_on_main({"wikigate.toml": rules + "\n[github]\nmax_comments = 2\n"}, "two")
    proposed = rules + "\n[github]\nmax_comments = 500\n"
    world.push_files(14, {"wiki/barn.md": many_fabrications(5), "wikigate.toml": proposed})
    assert world.run(14, "opened").code == 1
    assert len(world.comments()) == 2
    [summary] = world.gh.issue_comments.values()
    assert "more findings, not posted as review comments" in summary["body"]
    assert "at most 2 on a pull request" in summary["body"]


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_without_checks_write_a_commit_status_instead(world: World):
    world.push_pr(16, fabricated_page("barn"))
    world.gh.refuse("POST", r"/check-runs$", 403, "Resource not accessible by integration")
    assert world.run(16, "opened").code == 1
    assert world.gh.check_runs == {}
    states = [(s["context"], s["state"]) for s in world.gh.statuses]
    assert states == [("wikigate", "pending"), ("wikigate", "failure")]


@pytest.mark.timing
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


@pytest.mark.slow
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


@pytest.mark.slow
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


# ---------------------------------------------------------------- a tree bomb (issue 23)


def bomb_tree(repo: pygit2.Repository, levels: int) -> pygit2.Oid:
    """``levels`` tree objects, each naming the one below ten times: 10**levels files."""
    blob = repo.create_blob(b"x\n")
    tree = None
    for _ in range(levels):
        builder = repo.TreeBuilder()
        for k in range(10):
            if tree is None:
                builder.insert(f"f{k}.txt", blob, pygit2.GIT_FILEMODE_BLOB)
            else:
                builder.insert(f"d{k}", tree, pygit2.GIT_FILEMODE_TREE)
        tree = builder.write()
    assert tree is not None
    return tree


def with_bomb(repo: pygit2.Repository, parent: pygit2.Commit, levels: int) -> pygit2.Commit:
    raw = repo.TreeBuilder(repo[parent.tree["raw"].id])
    raw.insert("bomb", bomb_tree(repo, levels), pygit2.GIT_FILEMODE_TREE)
    root = repo.TreeBuilder(parent.tree)
    root.insert("raw", raw.write(), pygit2.GIT_FILEMODE_TREE)
    sig = pygit2.Signature("t", "t@example.invalid")
    return repo[repo.create_commit(None, sig, sig, "bomb\n", root.write(), [parent.id])]


@pytest.mark.timing
def test_the_bots_diffs_of_a_tree_bomb_cost_its_trees_not_its_paths(tmp_path):
    """After the verifier refuses a tree bomb, the bot still records the run's type and
    places its comments: both read the trees by id and the findings' paths only (a diff of
    the whole tree spelled 10^6 files in 12 s and 566 MB, 10^7 in minutes and gigabytes)."""
    repo = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    files = {"raw/notes.txt": "Notes.\n", "wiki/index.md": "# Index\n\nLine two.\n"}
    base = commit_files(repo, None, files)
    tip = commit_files(repo, with_bomb(repo, base, 7).id, {"wiki/index.md": "# Index\n\nNew.\n"})
    started = time.process_time()  # CPU time: the load of a busy machine is not counted
    assert run_type_for(repo, str(base.id), str(tip.id)) == "ingest"
    lines = diff_lines(repo, base.tree, tip.tree, ["raw/bomb", "wiki/index.md", "raw/notes.txt"])
    assert time.process_time() - started < 1
    assert lines == {
        "wiki/index.md": {1, 2, 3}
    }  # the changed page; a folder, an unchanged file: none
    nothing_added = commit_files(repo, base.id, {"raw/notes.txt": "Notes, edited.\n"})
    assert run_type_for(repo, str(base.id), str(nothing_added.id)) == "cascade"


@pytest.mark.slow
def test_a_pull_request_holding_a_tree_bomb_is_rejected_naming_the_limit(world: World):
    repo = pygit2.Repository(str(world.seed))
    git(world.seed, "fetch", "-q", str(world.bare), "+refs/heads/main:refs/remotes/origin/main")
    head = with_bomb(repo, repo.revparse_single("origin/main"), 6)
    repo.references.create("refs/heads/bomb", head.id, force=True)
    git(
        world.seed,
        "push",
        "-q",
        "-f",
        str(world.bare),
        "bomb:refs/heads/bomb",
        "bomb:refs/pull/1/head",
    )
    world.gh.pulls.setdefault(1, Pull(1, "bomb"))
    main_before = world.main_sha()
    result = world.run(1, "opened")
    assert result.code == 1, result.out
    [summary] = world.gh.issue_comments.values()
    assert "wikigate: reject" in summary["body"]
    [review] = world.gh.reviews
    assert "raw/bomb" in review["body"] and "tree.limit" in review["body"], review["body"]
    assert "raise \\`\\[limits\\] tree\\_paths\\`" in review["body"]  # markdown-escaped
    assert world.main_sha() == main_before
    assert world.note(str(head.id))["run_type"] == "ingest"


def test_findings_suppressed_inline_are_listed_in_the_summary_inert(world: World):
    page = (
        "# Barn\n\nThe barn\u200b stands. "
        '<!-- wikigate: ignore page.invisible_chars reason="@octocat will write it" -->\n'
    )
    world.push_pr(15, page)
    world.run(15, "opened")
    [summary] = world.gh.issue_comments.values()
    assert "1 findings suppressed inline (not counted):" in summary["body"]
    assert "reason: &#64;octocat will write it" in summary["body"]  # no mention
    bodies = [c["body"] for c in world.comments()]
    assert not any("` page.invisible_chars `" in body for body in bodies)  # not counted
    # the pull request added the suppression: a person accepts it (issue 26's review)
    [added] = [body for body in bodies if "` suppression.added `" in body]
    assert "sets aside line 3" in added and "a person accepts it" in added
