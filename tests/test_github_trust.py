"""What the bot trusts (docs/github.md, "What each gate trusts"): a decision lands exactly
the commit it was made about, and nothing a writer controls (the pull request's commits,
its paths and labels, its branch) is authority.  The GitHub emulator on 127.0.0.1, the real
PyGithub client, `wikigate github` as a workflow runs it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from support.github_emulator import Pull
from support.github_world import World, cited_page, fabricated_page, quote_only_page
from support.helpers import git

from wikigate.runid import now_iso
from wikigate.verifier.citation import format_tail


def replies(world: World) -> list[str]:
    return [c["body"] for c in world.gh.issue_comments.values()]


# ---------------------------------------------------------------- an override names its head


@pytest.mark.slow
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
    assert world.main_sha() == main_before  # the fabricated head never lands
    [reply] = [b for b in replies(world) if b.startswith("@maintainer:")]
    assert "nothing was done" in reply and seen[:12] in reply and pushed[:12] in reply
    if sync_first:
        assert result.code == 0 and "was verified on its own event" in result.out
    else:  # the push's own job may have been cancelled: the head is verified now, plainly
        assert result.code == 1 and "verifying it" in result.out
    assert world.gh.pulls[30].state == "closed"  # rejected, never reopened
    note = world.note(pushed)
    assert (note["verdict"], note["override_actor"]) == ("reject", None)


def test_an_override_comment_written_before_any_report_lands_nothing(world: World):
    written = now_iso()
    head = world.push_pr(31, fabricated_page("barn"))
    main_before = world.main_sha()
    result = world.comment(31, "/wikigate override trust me", sender="owner", created_at=written)
    assert result.code == 1, result.out  # verified plainly: rejected, not overridden
    assert world.main_sha() == main_before
    assert (world.note(head)["verdict"], world.note(head)["override_actor"]) == ("reject", None)
    assert any("none was; nothing was done" in b for b in replies(world))


@pytest.mark.slow
def test_an_override_comment_on_the_head_it_saw_lands_that_head(world: World):
    head = world.push_pr(32, fabricated_page("barn"))
    assert world.run(32, "opened").code == 1
    result = world.comment(32, "/wikigate override the paper source says so", sender="owner")
    assert result.code == 0, result.out
    assert world.main_sha() == head
    assert world.note(head)["override_reason"].endswith(f"(given for head {head})")


# ---------------------------------------------------------------- who may add a source

POLICY = "raw/policy.md"
POLICY_TEXT = "Staff may approve their own expenses up to any amount.\n"


def self_sourced(world: World, number: int, *, fork: bool) -> str:
    """A pull request adding its own "source" and a page quoting it exactly (offset and
    hash right): verified against the file it brought itself."""
    quote = POLICY_TEXT.strip()
    files = {
        POLICY: POLICY_TEXT,
        "wiki/barn.md": cited_page("barn", source=POLICY, quote=quote).replace(
            format_tail(POLICY, None, quote, None), format_tail(POLICY, None, quote, 0)
        ),
    }
    git(world.seed, "checkout", "-q", "main")
    files["wiki/index.md"] = (world.seed / "wiki" / "index.md").read_text() + "- [[Barn]]\n"
    branch = f"fork-{number}" if fork else "sources"
    head = world.push_files(number, files, branch=branch)
    if fork:
        git(world.bare, "update-ref", "-d", f"refs/heads/{branch}")
        world.gh.pulls[number].fork = "stranger/wiki"
        world.gh.pulls[number].author = "stranger"
    return head


def test_a_pull_request_adding_its_own_source_waits_for_a_writer(world: World):
    head = self_sourced(world, 40, fork=True)
    main_before = world.main_sha()
    waiting = world.run(40, "opened", sender="stranger")
    assert waiting.code == 5, waiting.out  # needs_human_review, not landed
    assert "raw source ` raw/policy.md `" in waiting.out
    assert world.main_sha() == main_before
    assert "wikigate:needs-human-review" in world.gh.pulls[40].labels
    note = world.note(head)
    assert (note["status"], note["verdict"]) == ("pending", "needs_human_review")
    assert "may not add sources" in note["reject_reason"]

    approved = world.review(40, "approved", sender="maintainer", body="policy checked on paper")
    assert approved.code == 0, approved.out
    assert world.main_sha() == head
    note = world.note(head)
    assert (note["verdict"], note["override_actor"]) == ("commit_approved", "maintainer")
    assert note["override_source"] == "github-review"


def test_a_writer_may_add_a_source_by_pull_request(world: World):
    head = self_sourced(world, 41, fork=False)  # by "author", who has write permission
    result = world.run(41, "opened")
    assert result.code == 0, result.out
    assert world.main_sha() == head
    assert world.note(head)["run_type"] == "ingest"


# ---------------------------------------------------------------- the bot decides the run type

FORGED = """Archive the owls page

Wikigate-Run: 20260101T000000Z-forged
Wikigate-Schema: 1
Wikigate-Type: archive
Wikigate-Triggered-By: cli:forged
Wikigate-Started: 2026-01-01T00:00:00.000000Z
Wikigate-Op: {"kind":"start"}
"""


def test_forged_run_trailers_on_a_pull_request_choose_nothing(world: World):
    """A pull request deleting a page with cited claims, its tip dressed as an archive run
    (which may delete such pages): the bot verifies it as a pull request, and rejects it."""
    git(world.seed, "checkout", "-q", "-B", "archive", "main")
    git(world.seed, "rm", "-q", "wiki/owls.md")
    index = world.seed / "wiki" / "index.md"
    index.write_text("".join(ln for ln in index.read_text().splitlines(True) if "Owls" not in ln))
    git(world.seed, "add", "wiki/index.md")
    git(world.seed, "commit", "-q", "-m", FORGED)
    git(
        world.seed,
        "push",
        "-q",
        str(world.bare),
        "archive:refs/heads/archive",
        "archive:refs/pull/42/head",
    )
    world.gh.pulls[42] = Pull(42, "archive")
    head = git(world.seed, "rev-parse", "archive").stdout.strip()
    main_before = world.main_sha()
    result = world.run(42, "opened")
    assert result.code == 1, result.out
    assert world.main_sha() == main_before
    note = world.note(head)
    assert (note["verdict"], note["run_type"]) == ("reject", "cascade")
    assert "run.convergence" in {f["code"] for f in note["findings"]}


# ---------------------------------------------------------------- someone else's branch


def test_a_rejected_pull_request_from_someone_elses_branch_leaves_the_branch(world: World):
    head = world.push_pr(43, fabricated_page("barn"), branch="release")
    world.gh.pulls[43].author = "visitor"  # read permission: may open, may not push
    result = world.run(43, "opened", sender="visitor")
    assert result.code == 1, result.out
    assert world.gh.pulls[43].state == "closed"
    assert world.branch("release") == head  # not the visitor's to delete, nor ours


def test_a_pull_request_from_someone_elses_branch_is_not_rebased_when_main_moved(world: World):
    head = world.push_pr(44, cited_page("barn"), branch="alice/wip")
    world.gh.pulls[44].author = "visitor"
    moved = world.advance_main()
    result = world.run(44, "opened", sender="visitor")
    assert result.code == 3, result.out
    assert "no write permission" in result.out and "update the branch" in result.out
    assert world.branch("alice/wip") == head  # never force-pushed
    assert world.main_sha() == moved
    assert world.gh.check_run()["conclusion"] == "action_required"


# ---------------------------------------------------------------- writer text in the bot's voice

HOSTILE = "wiki/x ::warning title=pwned::@maint see www.evil.example and https:x.md"
NEWLINE = "wiki/x\n::warning title=pwned::@maint see www.evil.example and https:x.md"


def _outputs(world: World, result) -> dict[str, str]:
    [check] = world.gh.check_runs.values()
    return {
        "log": result.out,
        "step summary": (world.tmp / "summary.md").read_text(),
        "summary comment": replies(world)[-1],
        "check title": check["output"]["title"],
        "check summary": check["output"]["summary"],
    }


def _inert(world: World, outputs: dict[str, str]) -> None:
    for where, text in outputs.items():
        assert not any(line.lstrip().startswith("::") for line in text.splitlines()), where
        assert "::" not in text, where
        assert "@maint" not in text, where  # no mention
        assert "www.evil" not in text, where  # no autolink
    posted = [c["body"] for c in world.comments()] + [r["body"] for r in world.gh.reviews]
    assert posted and not any("@maint" in b or "www.evil" in b for b in posted)


@pytest.mark.slow
def test_a_hostile_path_reaches_no_output_as_markup_a_mention_or_a_command(world: World):
    """A page path holding a workflow command, a mention and a link (rejected: a Windows
    checkout cannot hold its `:`, tree.unportable): every output that names it shows it
    inert, on one line."""
    world.push_files(45, {HOSTILE: quote_only_page("x")})
    result = world.step("pull_request_target", world.pr_event(45, "opened"))
    assert result.code == 1, result.out
    outputs = _outputs(world, result)
    for where, text in outputs.items():
        assert "wiki/x" in text, where  # the path reaches every output, shown inert
    _inert(world, outputs)


def test_a_path_with_a_newline_is_a_malformed_tree_shown_inert(world: World):
    """The same path with a newline in it: no tree holding it is verified (tree.malformed),
    and the outputs that name it show it on one line, inert."""
    world.push_files(46, {NEWLINE: quote_only_page("x")})
    result = world.step("pull_request_target", world.pr_event(46, "opened"))
    assert result.code == 1, result.out
    outputs = _outputs(world, result)
    [review] = world.gh.reviews
    assert "tree.malformed" in review["body"]
    _inert(world, {**outputs, "review": review["body"]})


@pytest.mark.parametrize(
    "text",
    [
        ":::add-mask::x",
        "a\\u2028::stop-commands::t",
        "@team/maint",
        "HTTPS://evil.example",
        "Www.x.y",
    ],
)
def test_shown_writer_text_is_one_inert_line(text: str):
    from wikigate.bot.review import shown

    out = shown(text.encode().decode("unicode_escape"))
    assert "\n" not in out and "\u2028" not in out and "::" not in out
    assert "@t" not in out and "://" not in out and "www." not in out.lower()
    assert out.startswith("`") and out.endswith("`")


# ---------------------------------------------------------------- the check run always ends


@pytest.mark.slow
def test_the_check_run_is_finished_when_the_summary_comment_fails_after_landing(world: World):
    head = world.push_pr(46, cited_page("barn"))
    world.gh.refuse("POST", r"/issues/46/comments$", 422, "Validation Failed")
    result = world.run(46, "opened")
    assert world.main_sha() == head  # landed before the comment was tried
    check = world.gh.check_run()
    assert (check["status"], check["conclusion"]) == ("completed", "success")
    assert check["output"]["title"] == "committed"
    assert result.code == 0, result.out
    assert "the summary comment was not written" in result.out
    assert "verdict=commit" in (world.tmp / "output.txt").read_text()


# ---------------------------------------------------------------- a cancelled job is recovered


@pytest.mark.slow
def test_a_stale_event_verifies_a_head_whose_own_job_never_ran(world: World):
    """The push's `synchronize` job was cancelled (a newer job in the concurrency group
    replaces a pending one); the label job queued for the older head runs: it verifies
    the current head, and overrides nothing."""
    world.push_pr(47, quote_only_page("barn"))
    assert world.run(47, "opened").code == 3
    labeled = world.pr_event(47, "labeled", label={"name": "wikigate:override"})
    labeled["sender"] = {"login": "maintainer"}
    world.gh.pulls[47].labels.append("wikigate:override")
    main_before = world.main_sha()
    pushed = world.push_pr(47, fabricated_page("barn"))  # its job: cancelled, never ran
    result = world.step("pull_request_target", labeled)
    assert result.code == 1, result.out
    assert world.main_sha() == main_before
    note = world.note(pushed)
    assert (note["verdict"], note["override_actor"]) == ("reject", None)
    assert "wikigate:override" not in world.gh.pulls[47].labels  # given for the older head


def test_the_documented_workflow_lets_no_strangers_comment_queue_a_job():
    """Any queued job cancels the pending one of its group: the gate's `if:` admits
    comments and reviews by collaborators only (and `verify` by the pull request's author)."""
    import re
    from pathlib import Path

    import yaml

    docs = (Path(__file__).parents[1] / "docs" / "github.md").read_text()
    [gate] = [
        yaml.safe_load(b)["jobs"]["gate"]
        for b in re.findall(r"```yaml\n(.*?)```", docs, re.S)
        if "gate:" in b
    ]
    condition = gate["if"]
    assert condition.count("author_association") == 3  # override, verify, review
    assert "github.event.comment.user.login == github.event.issue.user.login" in condition
    assert "startsWith(github.event.comment.body, '/wikigate')" not in condition
    assert "none cancelled" not in docs


# ---------------------------------------------------------------- the action's own install

ROOT = Path(__file__).parents[1]


def _action_steps() -> list[dict]:
    import yaml

    return yaml.safe_load((ROOT / "action.yml").read_text())["runs"]["steps"]


def test_the_actions_python_imports_nothing_from_the_checkout(tmp_path: Path):
    """A pull request's `venv.py` in the working directory (a `pull_request_review` job
    checks out the merge ref) never runs: the action's Python is isolated (-I)."""
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    pwned = tmp_path / "pwned"
    for module in ("venv", "ensurepip", "wikigate", "pip"):
        (checkout / f"{module}.py").write_text(f"open({str(pwned)!r}, 'w').write('{module}')\n")
    install = next(s for s in _action_steps() if "venv" in s.get("run", ""))
    [make_venv] = [ln for ln in install["run"].splitlines() if " -m venv " in ln]
    action = tmp_path / "action"
    subprocess.run(
        ["bash", "-c", make_venv + " --without-pip"],
        cwd=checkout,
        env={"PATH": os.environ["PATH"], "GITHUB_ACTION_PATH": str(action)},
        check=True,
    )
    assert (action / ".venv" / "bin" / "python").exists()
    assert not pwned.exists(), pwned.read_text()
    for step in _action_steps():  # every Python the action starts is isolated
        for line in step.get("run", "").splitlines():
            if "python" in line:
                assert " -I " in line, line


def test_the_action_installs_pinned_versions_of_every_dependency():
    import re

    from packaging.requirements import Requirement

    pinned = {}
    for line in (ROOT / "action-constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"not pinned: {line}"
            pinned[name.lower().replace("_", "-")] = version
    from importlib.metadata import distribution

    install = next(s for s in _action_steps() if "venv" in s.get("run", ""))
    [extras] = re.findall(r'"\$GITHUB_ACTION_PATH\[([a-z,]+)\]"', install["run"])
    extras = extras.split(",")
    assert {"github", "anthropic", "pdf"} <= set(extras)  # the bot, the LLM judge, PDFs
    for requirement in distribution("wikigate").requires or []:
        req = Requirement(requirement)
        # the runtime dependencies and those of the extras the action installs
        if req.marker is None or any(req.marker.evaluate({"extra": e}) for e in extras):
            assert req.name.lower().replace("_", "-") in pinned, req.name
    assert "setuptools" in pinned  # the build backend as well
    assert install["env"]["PIP_CONSTRAINT"].endswith("/action-constraints.txt")


# ---------------------------------------------------------------- what a command may cost


@pytest.mark.slow
def test_verify_on_an_unchanged_head_re_reports_and_never_judges_again(world: World):
    from support.anthropic_emulator import AnthropicEmulator

    head = world.push_pr(48, cited_page("barn"))
    emu = AnthropicEmulator()
    judge = {"WIKIGATE_JUDGE": "anthropic", "ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": ""}
    try:
        emu.default_vote = "contradicts"
        judge["ANTHROPIC_BASE_URL"] = emu.url
        assert world.step("pull_request_target", world.pr_event(48), env=judge).code == 3
        assert len(emu.received) == 1
        for _ in range(3):  # its author asks again and again
            again = world.comment(48, "/wikigate verify", sender="author", env=judge)
            assert again.code == 0, again.out
        assert len(emu.received) == 1  # judged once: the maintainers' key paid once
    finally:
        emu.close()
    answer = replies(world)[-1]
    assert answer.startswith("@author:") and f"head `{head[:12]}` was verified" in answer
    assert "**revise**, 1 finding" in answer and "not verified again" in answer
    assert len(world.gh.check_runs) == 1


def test_a_strangers_commands_get_a_few_replies_an_hour(world: World):
    world.push_pr(49, quote_only_page("barn"))
    for _ in range(8):
        refused = world.comment(49, "/wikigate override because", sender="visitor")
        assert refused.code == 0, refused.out
    answered = [b for b in replies(world) if b.startswith("@visitor:")]
    assert len(answered) == 5  # then only the log says it
    assert "5 replies on this pull request within the hour already" in refused.out


@pytest.mark.timing
def test_a_notes_tree_bomb_on_origin_costs_its_trees_not_its_paths(tmp_path):
    """Origin's notes fast-forwarded to a tree naming one folder ten times per level (10^10
    paths in a few KB): the bot reads each tree object once."""
    import time

    import pygit2

    from wikigate.bot.notes import pull_records

    repo = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    blob = repo.create_blob(b'{"kind": "wikigate.run"}')
    tree = None
    for _ in range(10):
        builder = repo.TreeBuilder()
        for k in range(10):
            if tree is None:
                builder.insert(f"{k:02x}" + "0" * 36, blob, pygit2.GIT_FILEMODE_BLOB)
            else:
                builder.insert(f"{k:02x}", tree, pygit2.GIT_FILEMODE_TREE)
        tree = builder.write()
    sig = pygit2.Signature("x", "x@example.invalid")
    notes = repo.create_commit(None, sig, sig, "bomb", tree, [])
    started = time.process_time()
    assert pull_records(repo, str(notes), "octo/wiki", 1) == []
    assert time.process_time() - started < 2


# ---------------------------------------------------------------- a word that lands nothing


def _on_master(world: World, number: int) -> None:
    """The repository's trunk is master (renamed on origin); pull request ``number``'s base."""
    git(world.bare, "branch", "-m", "main", "master")
    git(world.bare, "symbolic-ref", "HEAD", "refs/heads/master")
    world.gh.pulls[number].base_ref = "master"


@pytest.mark.slow
def test_an_approval_that_lands_nothing_because_the_trunk_moved_says_so(world: World):
    """Trial 26b N5: a writer approved a reader's new source after the trunk moved; the
    fork could not be rebased, so nothing landed, yet the output said `verdict=commit`,
    the summary `### wikigate: commit`, the label was gone and the check title said "main
    moved" on a master repository. Nobody was told the approval must be given again."""
    head = self_sourced(world, 60, fork=True)
    assert world.run(60, "opened", sender="stranger").code == 5
    world.advance_main()
    _on_master(world, 60)
    master = git(world.bare, "rev-parse", "master").stdout.strip()
    approved = world.review(60, "approved", sender="maintainer", body="checked on paper")
    assert approved.code == 3, approved.out  # waiting on the author, as before
    assert git(world.bare, "rev-parse", "master").stdout.strip() == master  # nothing landed
    output = (world.tmp / "output.txt").read_text()
    assert "verdict=needs_human_review" in output and "verdict=commit" not in output
    answer = [b for b in replies(world) if b.startswith("@maintainer:")]
    assert answer, replies(world)
    assert "master moved" in answer[-1]
    assert "The approving review of maintainer landed nothing" in answer[-1]
    assert f"(it names {head[:12]})" in answer[-1] and "approve again then" in answer[-1]
    [summary] = [b for b in replies(world) if "wikigate:summary" in b]
    assert "### wikigate: needs_human_review" in summary
    assert "wikigate:needs-human-review" in world.gh.pulls[60].labels  # it waits again
    check = list(world.gh.check_runs.values())[-1]
    assert check["output"]["title"] == "master moved: update the branch"
    assert "main moved" not in approved.out


@pytest.mark.slow
def test_an_override_on_a_branch_that_conflicts_with_the_moved_trunk_is_answered(world: World):
    """Trial 26b N8: `/wikigate override REASON` on a pull request that conflicts with the
    moved trunk got no reply: the maintainer could not tell it was not honoured."""
    head = world.push_files(61, {"wiki/index.md": "# Index\n\nOurs.\n"}, branch="clash")
    world.gh.pulls[61].author = "visitor"  # may not be pushed to for them: they update it
    assert world.run(61, "opened", sender="visitor").code in (1, 3)
    world.land_on_main({"wiki/index.md": "# Index\n\nTheirs.\n"}, "the index changed")
    result = world.comment(61, "/wikigate override the index is fine", sender="maintainer")
    assert result.code == 3, result.out
    answer = [b for b in replies(world) if b.startswith("@maintainer:")]
    assert answer, replies(world)
    assert "main moved and" in answer[-1]
    assert "The override of maintainer landed nothing" in answer[-1]
    assert f"(it names {head[:12]})" in answer[-1] and "override again" in answer[-1]
