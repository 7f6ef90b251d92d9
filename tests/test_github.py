"""``wikigate github`` end to end: a real bare origin, the GitHub emulator on 127.0.0.1,
the real PyGithub client, and the command run as a user's workflow runs it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from support.github_world import World, cited_page, fabricated_page, quote_only_page
from support.helpers import git, in_process

from wikigate.bot.inputs import Inputs
from wikigate.errors import UsageError
from wikigate.workspace import Workspace

NO_IDENTITY = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")


def fresh_clone_runs(world: World) -> list[dict]:
    """``wikigate telemetry rebuild`` on a plain clone of origin (it fetches the notes):
    the runs table, each run with its findings and last override."""
    clone = world.tmp / "fresh"
    subprocess.run(["git", "clone", "-q", str(world.bare), str(clone)], check=True)
    rebuilt = in_process(["--repo", str(clone), "telemetry", "rebuild"])
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert "fetched refs/notes/wikigate from origin" in rebuilt.stderr
    ws = Workspace.open(clone)
    try:
        runs = ws.store.runs()
        for run in runs:
            run["findings"] = ws.store.findings(run["run_id"])
            run["override"] = (ws.store.overrides(run["run_id"]) or [None])[-1]
        return runs
    finally:
        ws.close()


def _claim_line(page: str) -> int:
    return next(i for i, line in enumerate(page.split("\n"), 1) if line.endswith("[^1]"))


def _definition_line(page: str) -> int:
    return next(i for i, line in enumerate(page.split("\n"), 1) if line.startswith("[^1]:"))


@pytest.mark.slow
def test_a_fabricated_quote_gets_a_comment_on_its_line_and_the_pr_is_closed(world: World):
    page = fabricated_page("barn")
    world.push_pr(1, page)
    main_before = world.main_sha()
    result = world.run(1, "opened")
    assert result.code == 1, result.out
    [comment] = world.comments()
    assert comment["path"] == "wiki/barn.md"
    assert comment["line"] == _claim_line(page)  # on the claim, naming the footnote's line
    assert f"The footnote, line {_definition_line(page)}:" in comment["body"]
    assert "A barn owl can hear a cat under ice." in comment["body"]
    assert "citation.quote_not_found" in comment["body"]
    assert "<!-- wikigate:fp=" in comment["body"]
    assert [r["state"] for r in world.gh.reviews] == ["COMMENTED"]
    [check] = world.gh.check_runs.values()  # the check run on the head: failure, annotated
    assert (check["name"], check["head_sha"]) == ("wikigate", world.gh.sha("refs/pull/1/head"))
    assert (check["status"], check["conclusion"]) == ("completed", "failure")
    [annotation] = check["annotations"]
    assert annotation["annotation_level"] == "failure"
    assert (annotation["path"], annotation["start_line"]) == ("wiki/barn.md", _claim_line(page))
    assert world.gh.pulls[1].state == "closed"
    assert world.branch("feature") is None  # delete-branch (default true): same-repo branch gone
    assert world.main_sha() == main_before
    note = world.note(world.gh.sha("refs/pull/1/head"))
    assert (note["status"], note["verdict"], note["loop_count"]) == ("rejected", "reject", 1)
    # the reason names the finding, as `run finalize`'s does (one decision: wikigate.decision)
    assert "wiki/barn.md" in note["reject_reason"]
    assert "citation.quote_not_found" in note["reject_reason"]
    assert check["output"]["title"].startswith("rejected: ")
    assert "citation.quote_not_found" in check["output"]["title"]
    [summary] = world.gh.issue_comments.values()
    assert "wikigate: reject" in summary["body"] and "1 critical" in summary["body"]
    assert "verdict=reject" in (world.tmp / "output.txt").read_text()


@pytest.mark.slow
def test_revise_then_rerun_then_fix_lands_and_cleans_up(world: World):
    first_head = world.push_pr(2, quote_only_page("barn"))
    first = world.run(2, "opened")
    assert first.code == 3, first.out
    assert "loop 1 of 3" in first.out
    assert [r["state"] for r in world.gh.reviews] == ["CHANGES_REQUESTED"]
    [comment] = world.comments()
    assert "citation.anchor_missing" in comment["body"]

    again = world.run(2, "synchronize")  # the same head again: nothing new to say
    assert again.code == 3
    assert [c["id"] for c in world.comments()] == [comment["id"]]
    assert len(world.gh.reviews) == 1
    assert len(world.gh.issue_comments) == 1  # the summary, edited in place
    revised = world.note(first_head)  # every verification leaves a note; the same head: loop 1
    assert (revised["status"], revised["verdict"], revised["loop_count"]) == (
        "pending",
        "revise",
        1,
    )

    head = world.push_pr(2, cited_page("barn"))  # the fix: anchored
    fixed = world.run(2, "synchronize")
    assert fixed.code == 0, fixed.out
    assert world.comments() == []  # the finding is gone, so is its comment
    assert world.main_sha() == head  # fast-forwarded: the head is on the base
    assert world.gh._pull(world.gh.pulls[2])["merged"] is True
    note = world.note(head)
    assert note["status"] == "committed" and note["verdict"] == "commit"
    assert note["triggered_by"] == "github:pull_request_target"
    assert (note["run_id"], note["loop_count"]) == (revised["run_id"], 2)  # one run, loop 2
    assert {f["loop"] for f in note["findings"]} == {1}  # loop 1's findings kept, loop 2 clean
    [summary] = world.gh.issue_comments.values()
    assert "wikigate: commit" in summary["body"]


@pytest.mark.slow
def test_override_label_by_a_writer_lands_and_is_recorded(world: World):
    head = world.push_pr(3, fabricated_page("barn"))
    world.gh.pulls[3].labels.append("wikigate:override")
    result = world.run(3, "labeled", sender="maintainer", label="wikigate:override")
    assert result.code == 0, result.out
    assert world.main_sha() == head
    note = json.loads(git(world.bare, "notes", "--ref", "wikigate", "show", head).stdout)
    assert note["verdict"] == "commit_override"
    assert (note["override_actor"], note["override_source"]) == ("maintainer", "github-label")
    assert note["override_reason"].endswith(f"(given for head {head})")
    # telemetry rebuild on a fresh clone fetches origin's notes and shows the override
    [run] = fresh_clone_runs(world)
    assert (run["run_id"], run["verdict"], run["status"]) == (
        note["run_id"],
        "commit_override",
        "committed",
    )
    assert (run["override"]["actor"], run["override"]["source"]) == ("maintainer", "github-label")


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
    hook = world.bare / "hooks" / "pre-receive"  # git pushes refused too, as a read token's
    hook.write_text("#!/bin/sh\necho 'Permission to octo/wiki.git denied' >&2\nexit 1\n")
    hook.chmod(0o755)
    result = world.run(5, "opened", event_name="pull_request")
    assert result.code == 1, result.out  # the verdict's exit, not a crash on the note
    assert "the verdict note was not pushed" in result.out
    line = _definition_line(page)
    assert (
        f"::error file=wiki/barn.md,line={line},title=wikigate citation.quote_not_found::"
        in result.out
    )
    assert world.comments() == []


def test_main_moved_while_landing_rebases_and_lands(world: World):
    head = world.push_pr(6, cited_page("barn"))
    moved: list[str] = []

    def someone_lands_first() -> None:  # main moves between the bot's check and its PATCH
        world.gh.before_ref_patch = None
        moved.append(world.advance_main())

    world.gh.before_ref_patch = someone_lands_first
    result = world.run(6, "opened")
    assert result.code == 0, result.out
    tip = world.main_sha()
    assert tip != head and git(world.bare, "rev-parse", f"{tip}^").stdout.strip() == moved[0]
    assert world.branch("feature") == tip  # the PR branch updated to what landed
    assert world.gh._pull(world.gh.pulls[6])["merged"] is True
    assert world.note(tip)["status"] == "committed"
    assert not any(m == "PUT" for m, _path, _b in world.gh.requests)  # never PUT …/merge


def test_other_events_are_nothing_to_do(world: World):
    world.push_pr(7, cited_page("barn"))
    result = world.run(7, "opened", event_name="issues")
    assert result.code == 0 and "nothing to do" in result.out
    chat = world.comment(7, "looks good to me", sender="maintainer")
    assert chat.code == 0 and "not a command" in chat.out
    on_issue = world.step(
        "issue_comment",
        {
            "action": "created",
            "issue": {"number": 70},
            "comment": {"body": "/wikigate verify", "user": {"login": "maintainer"}},
        },
    )
    assert on_issue.code == 0 and "not on a pull request" in on_issue.out
    assert "verdict=none" in (world.tmp / "output.txt").read_text()
    assert world.gh.requests == []  # decided from the payload alone


# ---------------------------------------------------------------- loops


@pytest.mark.slow
def test_past_max_loops_the_run_is_rejected_and_a_fresh_clone_shows_its_loops(world: World):
    inputs = {"WIKIGATE_MAX_LOOPS": "2", "WIKIGATE_DELETE_BRANCH": "false"}
    first = world.push_pr(8, quote_only_page("barn"))
    assert world.step("pull_request_target", world.pr_event(8, "opened"), env=inputs).code == 3
    # another failure (the same one again would be "no progress"): revise again
    second = world.push_pr(8, cited_page("barn") + "\nSee [[Nowhere]].\n")
    result = world.step("pull_request_target", world.pr_event(8), env=inputs)
    assert result.code == 1, result.out
    assert "revise limit reached (2 loops)" in result.out
    assert world.gh.pulls[8].state == "closed"
    assert world.branch("feature") == second  # delete-branch false: the branch stays
    assert world.note(first)["loop_count"] == 1
    rejected = world.note(second)
    assert (rejected["status"], rejected["loop_count"]) == ("rejected", 2)
    [run] = fresh_clone_runs(world)
    assert run["run_id"] == f"gh-octo-wiki-p8-{first[:12]}"  # repository, PR, first head
    assert (run["status"], run["verdict"], run["loop_count"]) == ("rejected", "reject", 2)
    assert run["triggered_by"] == "github:pull_request_target"
    assert run["reject_reason"].startswith("revise limit reached (2 loops)")
    assert sorted({f["loop"] for f in run["findings"]}) == [1, 2]


# ---------------------------------------------------------------- comments


def test_verify_comment_from_the_author_or_a_writer_only(world: World):
    head = world.push_pr(9, quote_only_page("barn"))
    stranger = world.comment(9, "/wikigate verify", sender="visitor")
    assert stranger.code == 0 and "nothing to do" in stranger.out
    [reply] = world.gh.issue_comments.values()
    assert reply["body"].startswith("@visitor:") and "nothing was done" in reply["body"]
    assert world.gh.reviews == [] and world.note(head) is None

    author = world.comment(9, "/wikigate verify", sender="author")
    assert author.code == 3, author.out
    assert [r["state"] for r in world.gh.reviews] == ["CHANGES_REQUESTED"]
    note = world.note(head)
    assert (note["verdict"], note["triggered_by"]) == ("revise", "github:issue_comment")


def test_override_comment_by_a_reader_or_without_a_reason_changes_nothing(world: World):
    world.push_pr(10, fabricated_page("barn"))
    main_before = world.main_sha()
    reader = world.comment(10, "/wikigate override the quote is fine", sender="visitor")
    writer = world.comment(10, "/wikigate override", sender="maintainer")
    assert (reader.code, writer.code) == (0, 0)
    bodies = [c["body"] for c in world.gh.issue_comments.values()]
    assert bodies[0].startswith("@visitor:") and "write or admin" in bodies[0]
    assert bodies[1].startswith("@maintainer:") and "needs a reason" in bodies[1]
    assert world.main_sha() == main_before and world.gh.reviews == []
    assert git(
        world.bare, "rev-parse", "-q", "--verify", "refs/notes/wikigate", check=False
    ).returncode


@pytest.mark.slow
def test_override_comment_reopens_a_rejected_pr_restores_its_branch_and_lands(world: World):
    head = world.push_pr(11, fabricated_page("barn"))
    assert world.run(11, "opened").code == 1
    assert world.gh.pulls[11].state == "closed" and world.branch("feature") is None
    result = world.comment(
        11, "/wikigate override  the source is on paper,\nchecked by hand", sender="owner"
    )
    assert result.code == 0, result.out
    assert world.branch("feature") == head  # restored, so GitHub can reopen the PR
    assert world.main_sha() == head
    pull = world.gh._pull(world.gh.pulls[11])
    assert (pull["state"], pull["merged"]) == ("closed", True)  # reopened, then merged
    note = world.note(head)
    assert (note["verdict"], note["status"]) == ("commit_override", "committed")
    assert (note["override_actor"], note["override_source"]) == ("owner", "github-comment")
    assert note["override_reason"] == (
        f"the source is on paper, checked by hand (given for head {head})"
    )
    assert note["loop_count"] == 1  # the same head: the same loop as the rejection


def test_a_push_after_the_override_label_voids_it(world: World):
    world.push_pr(12, quote_only_page("barn"))
    world.gh.pulls[12].labels.append("wikigate:override")  # given for the first head
    main_before = world.main_sha()
    head = world.push_pr(12, quote_only_page("barns"))  # a push after the label
    result = world.run(12, "synchronize")
    assert result.code == 3, result.out  # verified afresh: revise, no override
    assert world.gh.pulls[12].labels == []
    assert any("voids the override" in c["body"] for c in world.gh.issue_comments.values())
    assert world.main_sha() == main_before
    note = world.note(head)
    assert (note["verdict"], note["override_actor"]) == ("revise", None)


# ---------------------------------------------------------------- main moved


def test_main_moved_same_repo_pr_is_rebased_by_the_bot_from_a_shallow_checkout(world: World):
    head = world.push_pr(13, cited_page("barn"))
    moved = world.advance_main()
    shallow = world.tmp / "shallow"  # actions/checkout's default: depth 1
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{world.bare}", str(shallow)])
    assert git(shallow, "rev-parse", "--is-shallow-repository").stdout.strip() == "true"
    result = world.step(
        "pull_request_target", world.pr_event(13, "opened"), unset=NO_IDENTITY, checkout=shallow
    )
    assert result.code == 0, result.out
    tip = world.main_sha()
    # trial 26d N5: the line says what landed; the summary, what was verified
    assert f"the head {head[:12]} rebased onto {moved[:12]} and verified again" in result.out
    assert tip != head and git(world.bare, "rev-parse", f"{tip}^").stdout.strip() == moved
    assert world.branch("feature") == tip  # pushed with --force-with-lease, then main PATCHed
    assert world.gh._pull(world.gh.pulls[13])["merged"] is True
    who = git(world.bare, "log", "-1", "--format=%an <%ae>|%cn <%ce>", tip).stdout.strip()
    assert who == (
        "Test Author <author@example.invalid>|wikigate[bot] <wikigate[bot]@users.noreply.github.com>"
    )
    notes_by = git(world.bare, "log", "-1", "--format=%an|%cn", "refs/notes/wikigate").stdout
    assert notes_by.strip() == "wikigate[bot]|wikigate[bot]"
    note = world.note(tip)
    assert (note["status"], note["base_commit"], note["tip_commit"]) == ("committed", moved, tip)


def test_main_moved_under_a_fork_asks_its_author_to_update(world: World):
    head = world.push_fork_pr(14, cited_page("barn"))
    main = world.advance_main()
    result = world.run(14, "opened")
    assert result.code == 3, result.out
    assert "main moved" in result.out and "update the branch" in result.out
    assert world.main_sha() == main and world.gh.sha("refs/pull/14/head") == head
    [summary] = world.gh.issue_comments.values()
    assert "fork" in summary["body"] and "update the branch" in summary["body"]
    note = world.note(head)  # verified, waiting on the author: a loop that may come again
    assert (note["status"], note["verdict"], note["loop_count"]) == ("pending", "commit", 1)


# ---------------------------------------------------------------- inputs


def test_merge_false_verifies_and_reports_but_never_merges(world: World):
    head = world.push_pr(15, cited_page("barn"))
    main_before = world.main_sha()
    result = world.step("pull_request_target", world.pr_event(15), env={"WIKIGATE_MERGE": "false"})
    assert result.code == 0, result.out
    assert "merge: false" in result.out
    assert world.main_sha() == main_before and world.gh.pulls[15].state == "open"
    assert (world.note(head)["status"], world.note(head)["verdict"]) == ("pending", "commit")
    assert "verdict=commit" in (world.tmp / "output.txt").read_text()


def test_close_on_reject_false_and_fail_level_none(world: World):
    world.push_pr(16, fabricated_page("barn"))
    inputs = {"WIKIGATE_CLOSE_ON_REJECT": "false", "WIKIGATE_FAIL_LEVEL": "none"}
    result = world.step("pull_request_target", world.pr_event(16), env=inputs)
    assert result.code == 0, result.out  # fail-level none: the step passes...
    assert "exit 1 (rejected) would fail this step" in result.out  # ...and says so
    assert world.gh.pulls[16].state == "open" and world.branch("feature") is not None
    assert "verdict=reject" in (world.tmp / "output.txt").read_text()


def test_fail_level_reject_lets_a_revise_pass(world: World):
    world.push_pr(17, quote_only_page("barn"))
    result = world.step(
        "pull_request_target", world.pr_event(17), env={"WIKIGATE_FAIL_LEVEL": "reject"}
    )
    assert result.code == 0, result.out
    assert "exit 3 (revise" in result.out
    assert [r["state"] for r in world.gh.reviews] == ["CHANGES_REQUESTED"]


def test_a_refused_merge_fails_the_step_whatever_the_fail_level(world: World):
    world.push_pr(18, cited_page("barn"))
    main_before = world.main_sha()
    world.gh.refuse(
        "PATCH", r"/git/refs/heads/main$", 403, "Resource not accessible by integration"
    )
    result = world.step(
        "pull_request_target", world.pr_event(18), env={"WIKIGATE_FAIL_LEVEL": "none"}
    )
    assert result.code == 1, result.out
    assert "could not fast-forward main" in result.out and "contents: write" in result.out
    assert world.main_sha() == main_before


def test_a_bad_input_is_a_usage_error_naming_it(world: World):
    world.push_pr(19, cited_page("barn"))
    result = world.step(
        "pull_request_target", world.pr_event(19), env={"WIKIGATE_FAIL_LEVEL": "sometimes"}
    )
    assert result.code == 2
    assert "input fail-level (WIKIGATE_FAIL_LEVEL='sometimes')" in result.out
    assert world.gh.requests == []


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("MERGE", "yes", "input merge"),
        ("CLOSE_ON_REJECT", "1", "input close-on-reject"),
        ("DELETE_BRANCH", "maybe", "input delete-branch"),
        ("MAX_LOOPS", "0", "input max-loops"),
        ("MAX_LOOPS", "three", "input max-loops"),
        ("STRICTNESS", "lenient", "input strictness"),
        ("BOT_EMAIL", "a>b", "input bot-email"),
    ],
)
def test_every_input_is_checked(name: str, value: str, expected: str):
    with pytest.raises(UsageError, match=expected):
        Inputs.read({f"WIKIGATE_{name}": value})


def test_inputs_default_as_action_yml_says():
    assert Inputs.read({}) == Inputs.read({"WIKIGATE_MERGE": "", "WIKIGATE_FAIL_LEVEL": ""})
    got = Inputs.read({"WIKIGATE_MERGE": "False", "WIKIGATE_MAX_LOOPS": "5"})
    assert (got.merge, got.max_loops, got.fail_level, got.close_on_reject) == (
        False,
        5,
        "revise",
        True,
    )


def test_the_report_is_never_written_inside_the_checkout(tmp_path):
    from wikigate.bot.event import ActionsEnv
    from wikigate.bot.flow import Out, run

    env = ActionsEnv.read({"GITHUB_EVENT_NAME": "issues", "WIKIGATE_REPORT": "out/r.json"})
    with pytest.raises(UsageError, match="input report .* is inside the checkout"):
        run(env, Path.cwd(), Out(None))
    elsewhere = ActionsEnv.read({"GITHUB_EVENT_NAME": "issues", "RUNNER_TEMP": str(tmp_path)})
    assert run(elsewhere, Path.cwd(), Out(None)) == 0  # nothing to do, and no complaint


def test_sweep_leaves_a_pull_requests_run_to_the_bot(tmp_path, monkeypatch):
    from wikigate.models import RunRecord

    ws = Workspace.init(tmp_path / "clone")
    try:
        main = str(ws.repo.references["refs/heads/main"].target)
        pr_run = RunRecord(
            run_id="gh-octo-wiki-p1-0123456789ab",
            workspace="octo/wiki",
            run_type="cascade",
            triggered_by="github:pull_request_target",
            status="pending",
            started_at="2020-01-01T00:00:00Z",
            recorded_at="2020-01-01T00:00:00Z",
            base_commit=main,
            tip_commit=main,
            branch="pull/1/head",
            verdict="revise",
        )
        with ws.store.immediate():
            ws.store.apply_record(pr_run)
        monkeypatch.setenv("WIKIGATE_RUN_TIMEOUT_MINUTES", "1")  # long past it
        assert ws.sweep() == []
        assert ws.store.get(pr_run.run_id)["status"] == "pending"
    finally:
        ws.close()


def test_override_sources_agree_with_the_telemetry_schema():
    import re

    from wikigate.models import OVERRIDE_SOURCES
    from wikigate.store import SCHEMA

    [check] = re.findall(r"CHECK \(source IN \(([^)]*)\)\)", SCHEMA)
    assert tuple(s.strip("'") for s in check.split(",")) == OVERRIDE_SOURCES
    docs = Path(__file__).parents[1] / "docs" / "telemetry.md"
    assert check in docs.read_text()


@pytest.mark.slow
def test_the_judge_input_runs_the_anthropic_judge_and_its_key_never_shows(world: World):
    from support.anthropic_emulator import AnthropicEmulator

    key = "sk-ant-bot-SECRET-7"
    world.push_pr(41, cited_page("barn"))
    main_before = world.main_sha()
    emu = AnthropicEmulator()
    try:
        emu.default_vote = "contradicts"
        judged = world.step(
            "pull_request_target",
            world.pr_event(41, "opened"),
            env={
                "WIKIGATE_JUDGE": "anthropic",
                "ANTHROPIC_API_KEY": key,
                "ANTHROPIC_BASE_URL": emu.url,
            },
        )
        assert judged.code == 3, judged.out  # a contradiction: revise, never merged
        assert len(emu.received) == 1
    finally:
        emu.close()
    assert world.main_sha() == main_before
    assert any("citation.contradicted" in c["body"] for c in world.comments())
    report = (world.tmp / "wikigate-report.json").read_text()
    notes = git(world.bare, "log", "-p", "refs/notes/wikigate", check=False).stdout
    posted = json.dumps([world.comments(), list(world.gh.issue_comments.values())])
    assert key not in judged.out + report + notes + posted

    keyless = world.step(
        "pull_request_target",
        world.pr_event(41, "synchronize"),
        env={"WIKIGATE_JUDGE": "anthropic"},
        unset=("ANTHROPIC_API_KEY",),
    )
    assert keyless.code == 1 and "set ANTHROPIC_API_KEY" in keyless.out
    assert "Traceback" not in keyless.out


@pytest.mark.slow
def test_a_pull_request_cannot_weaken_the_rules_it_is_judged_by(world: World):
    """The PR's own wikigate.toml switches the failing check off and names a plug-in: the
    bot judges by the base's rules and never loads the plug-in."""
    git(world.seed, "checkout", "-q", "-B", "feature", "main")
    toml = world.seed / "wikigate.toml"
    toml.write_text(
        toml.read_text().replace("[verifier]", '[verifier]\nplugin = "os:system"', 1)
        + '\n[verifier.severity]\n"citation.quote_not_found" = "off"\n'
    )
    git(world.seed, "add", "wikigate.toml")
    git(world.seed, "commit", "-q", "-m", "relax the rules")
    git(world.seed, "push", "-q", str(world.bare), "feature:refs/heads/feature")
    git(
        world.seed,
        "fetch",
        "-q",
        str(world.bare),
        "+refs/heads/feature:refs/remotes/origin/feature",
    )
    head = world.push_pr(21, fabricated_page("barn"))
    assert 'plugin = "os:system"' in git(world.seed, "show", f"{head}:wikigate.toml").stdout
    main_before = world.main_sha()
    result = world.run(21, "opened")
    assert result.code == 1, result.out  # rejected by the base's rules
    assert any("citation.quote_not_found" in c["body"] for c in world.comments())
    assert world.main_sha() == main_before
