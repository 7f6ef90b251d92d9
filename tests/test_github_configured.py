"""GitHub as it is really configured (issue 26), against the emulator: an anchor fix as a
one-click suggestion (and the same fix in rdjson and SARIF), a fork's read-only token
(every finding in the job summary and as annotations), and the required-check mode
(``merge_group`` included), where GitHub, not the bot, merges."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.github_world import World, cited_page, fabricated_page, quote_only_page
from support.helpers import git
from support.wiki_runs import QUOTE, SOURCE, SOURCE_TEXT
from test_reporters import schema_errors

from wikigate.bot.inputs import Inputs
from wikigate.bot.review import Footnote, comment_body, suggestion
from wikigate.errors import UsageError
from wikigate.models import Finding
from wikigate.verifier.citation import format_tail
from wikigate.verifier.report import load_report
from wikigate.verifier.reporters import render
from wikigate.verifier.reporters.fixes import fixed_line

ANCHORED = format_tail(SOURCE, None, QUOTE, SOURCE_TEXT.find(QUOTE))
_SUGGESTION = re.compile(r"```suggestion\n(.*)\n```", re.DOTALL)


def _line_of(page: str, start: str) -> int:
    return next(i for i, line in enumerate(page.split("\n"), 1) if line.startswith(start))


def _report(world: World):
    """The JSON report the bot wrote (the action's ``report`` output)."""
    return load_report((world.tmp / "wikigate-report.json").read_text(encoding="utf-8"))


# ---------------------------------------------------------------- 1. suggestions


def _suggested(world: World, number: int) -> tuple[str, int, str]:
    """A pull request citing a quote without its anchor, verified: (page, footnote line,
    the line its one review comment suggests)."""
    page = quote_only_page("barn")
    world.push_pr(number, page)
    first = world.run(number, "opened")
    assert first.code == 3, first.out  # revise: the quote is there, unanchored
    [comment] = world.comments()
    footnote = _line_of(page, "[^1]:")
    # on the footnote's definition line alone: GitHub's suggestion replaces exactly it
    assert (comment["path"], comment["line"]) == ("wiki/barn.md", footnote)
    assert comment.get("start_line") is None
    [fix] = _SUGGESTION.findall(comment["body"])
    return page, footnote, fix


def test_an_anchor_fix_is_a_suggestion_on_the_footnotes_line_and_in_rdjson_and_sarif(
    world: World,
):
    page, footnote, fix = _suggested(world, 1)
    assert fix == f"[^1]: {ANCHORED}"

    # rdjson and SARIF, made from the bot's report, carry the same fix
    report = _report(world)
    rd = json.loads(render(report, "rdjson"))
    assert schema_errors("rdjson.json", rd, strict=True) == []
    [d] = [d for d in rd["diagnostics"] if d.get("suggestions")]
    assert d["suggestions"] == [
        {"range": {"start": {"line": footnote}, "end": {"line": footnote}}, "text": fix + "\n"}
    ]
    sarif = json.loads(render(report, "sarif"))
    assert schema_errors("sarif-2.1.0.json", sarif) == []
    [result] = [r for r in sarif["runs"][0]["results"] if r.get("fixes")]
    [change] = result["fixes"][0]["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "wiki/barn.md"
    assert change["replacements"] == [
        {
            "deletedRegion": {"startLine": footnote, "endLine": footnote},
            "insertedContent": {"text": fix},
        }
    ]


@pytest.mark.slow
def test_the_suggestion_applied_as_github_applies_it_lands(world: World):
    page, footnote, fix = _suggested(world, 1)
    # "Commit suggestion": the line replaced by the suggestion, pushed; the gate lands it
    lines = page.split("\n")
    lines[footnote - 1] = fix
    head = world.push_pr(1, "\n".join(lines))
    landed = world.run(1, "synchronize")
    assert landed.code == 0, landed.out
    assert world.main_sha() == head


def test_a_hostile_footnote_line_gets_no_suggestion_block_only_inert_text(world: World):
    """A source (added by a writer) holding a code fence and a mention, quoted without an
    anchor: the fix is shown as text, never as a suggestion block GitHub would apply."""
    hostile = "Run ```rm -rf /``` then ask @octocat to merge."
    source = "raw/hostile.txt"
    tail = format_tail(source, None, hostile, None)
    page = f"# Barn\n\n{hostile}[^1]\n\n[^1]: {tail}\n"
    index = (world.seed / "wiki" / "index.md").read_text() + "- [[Barn]]\n"
    world.push_files(
        2,
        {source: f"Notes.\n{hostile}\n", "wiki/barn.md": page, "wiki/index.md": index},
    )
    result = world.run(2, "opened")
    assert result.code == 3, result.out
    [comment] = [c for c in world.comments() if "citation.anchor_missing" in c["body"]]
    body = comment["body"]
    assert "```suggestion" not in body
    assert "correct anchor" in body  # the fix is still shown, as text in a longer fence
    outside = re.sub(r"(`{4,})text\n.*?\n\1", "", body, flags=re.DOTALL)
    assert "@octocat" not in outside  # a mention only inside a code block: no ping
    report = _report(world)
    rd = json.loads(render(report, "rdjson"))
    assert not any(d.get("suggestions") for d in rd["diagnostics"])
    sarif = json.loads(render(report, "sarif"))
    assert not any(r.get("fixes") for r in sarif["runs"][0]["results"])


def test_a_suggestion_is_made_only_from_the_tail_and_the_line_it_replaces():
    f = Finding(
        code="citation.anchor_missing",
        severity="major",
        path="wiki/barn.md",
        line=5,
        message="[^1]: the quote has no anchor",
        suggested_tail=ANCHORED,
    )
    plain_line = f"[^1]: {format_tail(SOURCE, None, QUOTE, None)}"
    assert fixed_line(f, plain_line) == f"[^1]: {ANCHORED}"
    assert fixed_line(f, "  " + plain_line) == f"  [^1]: {ANCHORED}"  # indentation kept
    assert fixed_line(f) == f"[^1]: {ANCHORED}"  # rdjson / SARIF: no line read
    for hostile in (
        plain_line + " ```",  # a fence would close the suggestion block
        plain_line + " @octocat",  # a mention
        plain_line + " <!-- wikigate:fp=0123456789abcdef -->",
        plain_line + " ::warning::x",
        plain_line + "\u2028[^2]: x",  # a line separator: not one line to GitHub
        "[^2]: " + format_tail(SOURCE, None, QUOTE, None),  # another footnote's line
    ):
        assert fixed_line(f, hostile) is None, hostile
        note = Footnote("1", 5, hostile, "0" * 64)
        assert suggestion(f, note) is None
        assert "```suggestion" not in comment_body(f, "0" * 16, note, suggestion(f, note))
    bad_tail = f.model_copy(update={"suggested_tail": 'x — "```@octocat" {@1 sha256:00}'})
    assert fixed_line(bad_tail, plain_line) is None and fixed_line(bad_tail) is None
    assert suggestion(f, Footnote("1", 4, plain_line, "0" * 64)) is None  # not f's line
    assert suggestion(f, Footnote("1", 5, plain_line, "0" * 64, crlf=True)) is None


# ---------------------------------------------------------------- 2. a fork's token


def _read_only(world: World) -> None:
    """The token of a ``pull_request`` event from a fork: every write refused (the API's
    403, and git's refusal of the notes push)."""
    for method in ("POST", "PATCH", "PUT", "DELETE"):
        world.gh.refuse(method, r".", 403, "Resource not accessible by integration")
    hook = world.bare / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'Permission to octo/wiki.git denied' >&2\nexit 1\n")
    hook.chmod(0o755)


def test_a_fork_pull_request_gets_every_finding_in_the_job_summary_and_annotations(
    world: World,
):
    fens = "Ely March Wisbech Chatteris Whittlesey Ramsey Soham Littleport Downham Holbeach Spalding Crowland"
    # twelve invented quotes, none contradicting another (one page's claims are compared)
    made_up = [f"Barn owls number 7 thousand in the {fen} fens @octocat." for fen in fens.split()]
    body = ["# Barn", ""] + [f"{q}[^{k}]\n" for k, q in enumerate(made_up, 1)]
    body += [f"[^{k}]: {format_tail(SOURCE, None, q, None)}" for k, q in enumerate(made_up, 1)]
    page = "\n".join(body) + "\n"
    world.push_fork_pr(3, page)
    _read_only(world)
    result = world.run(3, "opened", event_name="pull_request", sender="stranger")
    assert result.code == 1, result.out  # rejected: the exit follows the verdict
    assert world.comments() == [] and world.gh.reviews == []  # nothing could be posted
    summary = (world.tmp / "summary.md").read_text(encoding="utf-8")
    assert "### wikigate: reject" in summary
    assert "#### Findings (12)" in summary
    for k in range(1, 13):
        line = _line_of(page, f"[^{k}]:")
        where = f"` wiki/barn.md:{line} `: ` citation.quote_not_found ` (critical)"
        assert where in summary, (k, summary)
        assert (
            f"::error file=wiki/barn.md,line={line},title=wikigate citation.quote_not_found::"
            in result.out
        )
    assert "@octocat" not in summary  # writer text in the summary mentions nobody
    assert "::" not in summary  # no workflow command can start from the summary


# ---------------------------------------------------------------- 3. required check mode

CHECK = {"WIKIGATE_MODE": "check"}


def _checks(world: World, sha: str) -> list[dict]:
    return [r for r in world.gh.check_runs.values() if r["head_sha"] == sha]


def _merge_group(world: World, head: str, *, number: int = 1) -> dict:
    """GitHub's merge queue: the group's branch pushed, and its ``merge_group`` payload."""
    base = world.main_sha()
    ref = f"refs/heads/gh-readonly-queue/main/pr-{number}-{base}"
    git(world.bare, "update-ref", ref, head)
    return {
        "action": "checks_requested",
        "merge_group": {
            "head_sha": head,
            "head_ref": ref,
            "base_sha": base,
            "base_ref": "refs/heads/main",
            "head_commit": {"id": head, "message": "Merge pull request"},
        },
        "sender": {"login": "github-merge-queue[bot]"},
    }


def test_check_mode_reports_the_required_check_and_github_merges(world: World):
    main = world.main_sha()
    head = world.push_pr(1, cited_page("barn"))
    result = world.step("pull_request_target", world.pr_event(1, "opened"), env=CHECK)
    assert result.code == 0, result.out
    assert "GitHub merges it once the required check `wikigate` passes" in result.out
    [run] = _checks(world, head)
    assert (run["name"], run["status"], run["conclusion"]) == ("wikigate", "completed", "success")
    assert world.main_sha() == main  # the bot never lands in check mode
    assert world.gh._pull(world.gh.pulls[1])["merged"] is False

    # the merge queue: the group's head verified against its base, reported on that head
    group = world.step("merge_group", _merge_group(world, head), env=CHECK)
    assert group.code == 0, group.out
    assert "passes; GitHub merges it" in group.out
    [first, queued] = _checks(world, head)
    assert queued["conclusion"] == "success" and queued["name"] == "wikigate"
    assert world.main_sha() == main  # GitHub merges the group, not the bot
    assert (world.tmp / "output.txt").read_text().startswith("verdict=commit")


def test_check_mode_never_closes_and_a_failing_group_leaves_the_queue(world: World):
    page = fabricated_page("barn")
    head = world.push_pr(2, page)
    result = world.step("pull_request_target", world.pr_event(2, "opened"), env=CHECK)
    assert result.code == 1, result.out
    pull = world.gh._pull(world.gh.pulls[2])
    assert pull["state"] == "open"  # never closed in check mode
    assert world.branch("feature") == head  # nor its branch deleted
    [run] = _checks(world, head)
    assert run["conclusion"] == "failure"

    group = world.step("merge_group", _merge_group(world, head, number=2), env=CHECK)
    assert group.code == 1, group.out
    queued = _checks(world, head)[-1]
    assert queued["conclusion"] == "failure"
    assert "reject" in queued["output"]["title"]
    line = _line_of(page, "[^1]:")
    assert [(a["path"], a["annotation_level"]) for a in queued["annotations"]] == [
        ("wiki/barn.md", "failure")
    ]
    assert queued["annotations"][0]["end_line"] in (line, _line_of(page, "A barn owl"))
    summary = (world.tmp / "summary.md").read_text(encoding="utf-8")
    assert "` citation.quote_not_found ` (critical)" in summary


def test_a_merge_group_whose_branch_moved_fails_closed_on_the_events_head(world: World):
    head = world.push_pr(3, cited_page("barn"))
    payload = _merge_group(world, head, number=3)
    other = world.push_pr(3, fabricated_page("barn"))  # the queue's branch moves
    git(world.bare, "update-ref", payload["merge_group"]["head_ref"], other)
    result = world.step("merge_group", payload, env=CHECK)
    assert result.code != 0
    assert "GitHub replaced the group" in result.out
    [run] = _checks(world, head)
    assert (run["conclusion"], run["output"]["title"]) == ("failure", "wikigate failed")
    assert _checks(world, other) == []


def test_check_mode_refuses_inputs_that_would_land_or_close():
    for name in ("MERGE", "CLOSE_ON_REJECT", "DELETE_BRANCH"):
        with pytest.raises(UsageError, match="with mode: check"):
            Inputs.read({"WIKIGATE_MODE": "check", f"WIKIGATE_{name}": "true"})
    got = Inputs.read({"WIKIGATE_MODE": "check"})
    assert (got.merge, got.close_on_reject, got.delete_branch) == (False, False, False)
    assert Inputs.read({}).merge is True


# ---------------------------------------------------------------- 4. the action's Python

ROOT = Path(__file__).resolve().parents[1]


def _action() -> dict:
    import yaml

    return yaml.safe_load((ROOT / "action.yml").read_text())


def _interp(tmp_path: Path, python: str) -> subprocess.CompletedProcess[str]:
    """The action's interpreter check, run as its step runs it (``python: system``)."""
    [step] = [s for s in _action()["runs"]["steps"] if s.get("id") == "interp"]
    env = {k: v for k, v in step["env"].items() if "${{" not in v}
    output = tmp_path / "output.txt"
    env.update(
        PATH=os.environ["PATH"],
        WANT="system",
        WIKIGATE_PY=python,
        GITHUB_OUTPUT=str(output),
        GITHUB_ACTION_PATH=str(ROOT),
        RUNNER_OS="Linux",
        RUNNER_ARCH="X64",
    )
    return subprocess.run(
        ["bash", "-e", "-c", step["run"]], env=env, capture_output=True, text=True, cwd=tmp_path
    )


def test_the_action_refuses_a_python_below_3_11_saying_what_to_do(tmp_path: Path):
    old = tmp_path / "python3"  # ubuntu-22.04's system python3
    old.write_text('#!/bin/sh\n[ "$2" = "-V" ] && { echo "Python 3.10.12"; exit 0; }\nexit 1\n')
    old.chmod(0o755)
    refused = _interp(tmp_path, str(old))
    assert refused.returncode == 1
    assert refused.stdout.strip() == (
        "::error title=wikigate::wikigate needs Python 3.11 or newer; this runner's is "
        "Python 3.10.12: use the input python: setup (the default), or set up Python 3.11+ "
        "before this step"
    )
    ok = _interp(tmp_path, sys.executable)
    assert ok.returncode == 0, ok.stderr
    written = dict(
        line.split("=", 1) for line in (tmp_path / "output.txt").read_text().splitlines()
    )
    assert written["py"] == sys.executable
    version = ".".join(map(str, sys.version_info[:3]))
    assert re.fullmatch(rf"wikigate-Linux-X64-py{version}-[0-9a-f]{{32}}", written["key"])
    assert _interp(tmp_path, sys.executable).returncode == 0  # the same key: a cache hit
    assert (tmp_path / "output.txt").read_text().count(written["key"]) == 2


def test_the_action_sets_up_its_own_python_pinned_and_caches_its_install():
    steps = _action()["runs"]["steps"]
    uses = [s["uses"] for s in steps if "uses" in s]
    assert [u.split("@")[0] for u in uses] == [
        "actions/setup-python",
        "actions/cache",
        "actions/upload-artifact",
    ]
    assert all(re.fullmatch(r"[\w/-]+@[0-9a-f]{40}", u) for u in uses), uses  # by commit
    [setup] = [s for s in steps if s.get("id") == "python"]
    assert setup["with"]["update-environment"] is False  # the job's own python3 untouched
    assert setup["if"] == "inputs.python != 'system'"
    [install] = [s for s in steps if "-m venv" in s.get("run", "")]
    assert install["if"] == "steps.cache.outputs.cache-hit != 'true'"
    with pytest.raises(UsageError, match="input python"):
        Inputs.read({"WIKIGATE_PYTHON": "conda"})


def test_a_merge_group_payload_names_commits_and_branches_or_is_refused(tmp_path: Path):
    from wikigate.bot.event import ActionsEnv, MergeGroup, load_event

    head, base = "a" * 40, "b" * 40

    def loaded(**group: str) -> MergeGroup | str:
        payload = {
            "action": group.pop("action", "checks_requested"),
            "merge_group": {
                "head_sha": head,
                "head_ref": "refs/heads/gh-readonly-queue/main/pr-1-" + base,
                "base_sha": base,
                "base_ref": "refs/heads/main",
                **group,
            },
        }
        event = tmp_path / "event.json"
        event.write_text(json.dumps(payload))
        environ = {
            "GITHUB_EVENT_NAME": "merge_group",
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_REPOSITORY": "octo/wiki",
            "GITHUB_TOKEN": "t",
        }
        return load_event(ActionsEnv.read(environ))

    assert loaded() == MergeGroup(
        head, "refs/heads/gh-readonly-queue/main/pr-1-" + base, base, "refs/heads/main"
    )
    assert loaded(action="destroyed") == (
        "merge_group destroyed: wikigate acts on checks_requested"
    )
    for bad in (
        {"head_sha": "HEAD"},
        {"base_sha": "main"},
        {"head_ref": "refs/heads/--upload-pack=touch x"},
        {"head_ref": "refs/heads/a..b"},
        {"base_ref": "refs/tags/v1"},
        {"base_ref": "refs/heads/main:refs/heads/evil"},
    ):
        with pytest.raises(UsageError, match="GITHUB_EVENT_PATH: merge_group"):
            loaded(**bad)


# ---------------------------------------------------------------- check mode, as GitHub merges (review)

BEHIND = {"WIKIGATE_MODE": "check"}


def _check_runs(world: World, sha: str) -> list[dict]:
    return [r for r in world.gh.check_runs.values() if r["head_sha"] == sha]


def test_check_mode_is_no_green_check_for_a_branch_behind_its_base(world: World):
    """Found by review: a branch forked where the rules were laxer got a green required
    check, though GitHub merges it into main's tip, whose rules refuse it. A head that
    does not hold the base's tip is no green check: update the branch."""
    rules = (world.seed / "wikigate.toml").read_text()
    lax = world.land_on_main(
        {"wikigate.toml": rules.replace('# "page.orphan" = "minor"', '"page.orphan" = "minor"')},
        "rules: orphans minor while adopting",
    )
    world.land_on_main({"wikigate.toml": rules}, "rules: orphans major again")
    git(world.seed, "checkout", "-q", "-B", "feature", lax)
    head = world.push_files(1, {"wiki/stray.md": cited_page("stray")}, checked_out=True)
    result = world.step("pull_request_target", world.pr_event(1, "opened"), env=BEHIND)
    [run] = _check_runs(world, head)
    assert run["conclusion"] == "failure", result.out
    assert "does not hold main's tip" in result.out and "update the branch" in result.out


def test_check_mode_is_no_green_check_for_a_pull_request_into_another_branch(world: World):
    """Found by review: the same head, in a pull request into an ungated branch that
    already holds an unverified page, turned the head's `wikigate` check green for the
    pull request into main. Only pull requests into the default branch pass."""
    from support.github_emulator import Pull

    git(world.seed, "checkout", "-q", "-B", "stage", "main")
    index = (world.seed / "wiki" / "index.md").read_text()
    (world.seed / "wiki" / "fake.md").write_text(fabricated_page("fake"))
    (world.seed / "wiki" / "index.md").write_text(index + "- [[Fake]]\n")
    git(world.seed, "add", "wiki")
    git(world.seed, "commit", "-q", "-m", "unverified")
    git(world.seed, "push", "-q", str(world.bare), "stage:refs/heads/stage")
    git(world.seed, "checkout", "-q", "-B", "feature", "stage")
    index = (world.seed / "wiki" / "index.md").read_text()
    head = world.push_files(
        2,
        {"wiki/barn.md": cited_page("barn"), "wiki/index.md": index + "- [[Barn]]\n"},
        branch="feature",
        checked_out=True,
    )
    world.gh.pulls[2] = Pull(2, "feature", base_ref="main")
    world.step("pull_request_target", world.pr_event(2, "opened"), env=BEHIND)
    git(world.bare, "update-ref", "refs/pull/3/head", head)
    world.gh.pulls[3] = Pull(3, "feature", base_ref="stage")
    into_stage = world.step("pull_request_target", world.pr_event(3, "opened"), env=BEHIND)
    runs = _check_runs(world, head)
    assert [r["conclusion"] for r in runs] == ["failure", "failure"], into_stage.out
    assert "is into stage, not main" in into_stage.out


# ---------------------------------------------------------------- the HTML report's link

RUN = {"GITHUB_RUN_ID": "4242", "WIKIGATE_HTML_ARTIFACT": "wikigate-report"}
RUN_PAGE = "https://github.com/octo/wiki/actions/runs/4242"


def _summary_comment(world: World) -> str:
    [body] = [
        c["body"] for c in world.gh.issue_comments.values() if "wikigate:summary" in c["body"]
    ]
    return body


@pytest.mark.slow
def test_the_pull_requests_summary_links_the_html_report_once_it_is_uploaded(world: World):
    world.push_pr(1, quote_only_page("Barn"))
    assert world.step("pull_request", world.pr_event(1), env=RUN).code == 3  # revise
    before = _summary_comment(world)
    assert (
        f"- the HTML report: the `wikigate-report` artifact of [this workflow run]({RUN_PAGE})"
        in before
    )

    # action.yml's last step, after actions/upload-artifact gave the artifact's URL
    url = f"{RUN_PAGE}/artifacts/987"
    linked = world.step(
        "pull_request",
        world.pr_event(1),
        env={**RUN, "WIKIGATE_REPORT_URL": url},
        args=("--link-report",),
        keep_summary=True,
    )
    assert linked.code == 0, linked.out
    after = _summary_comment(world)
    assert f"- the HTML report: [wikigate-report]({url})" in after
    assert "this workflow run" not in after
    assert after.replace(
        f"[wikigate-report]({url}) (download it and open the page inside in a browser)", ""
    ) == before.replace(f"the `wikigate-report` artifact of [this workflow run]({RUN_PAGE})", "")
    job = (world.tmp / "summary.md").read_text(encoding="utf-8")
    assert "### wikigate: revise" in job and f"[wikigate-report]({url})" in job

    # the next loop's summary names the run again, until its own upload is linked
    world.push_pr(1, cited_page("Barn"))
    assert (
        world.step("pull_request", world.pr_event(1), env={**RUN, "GITHUB_RUN_ID": "4243"}).code
        == 0
    )
    assert f"[this workflow run]({RUN_PAGE[:-4]}4243)" in _summary_comment(world)


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "https://evil.example/octo/wiki/actions/runs/4242/artifacts/1",
        f"{RUN_PAGE}/artifacts/1) [click](https://evil.example",
        f"{RUN_PAGE[:-4]}1/artifacts/1",  # another run's
        "",
    ],
)
def test_a_report_link_that_is_not_this_runs_artifact_is_refused(world: World, url: str):
    world.push_pr(1, quote_only_page("Barn"))
    world.step("pull_request", world.pr_event(1), env=RUN)
    before = _summary_comment(world)
    refused = world.step(
        "pull_request",
        world.pr_event(1),
        env={**RUN, "WIKIGATE_REPORT_URL": url},
        args=("--link-report",),
    )
    assert refused.code == 2, refused.out
    assert (
        "WIKIGATE_REPORT_URL" in refused.out
        and "expected an artifact of this workflow run" in refused.out
    )
    assert _summary_comment(world) == before


def test_a_fork_pull_requests_report_link_lands_in_the_job_summary(world: World):
    world.push_fork_pr(3, quote_only_page("Barn"))
    _read_only(world)
    url = f"{RUN_PAGE}/artifacts/5"
    linked = world.step(
        "pull_request",
        world.pr_event(3),
        env={**RUN, "WIKIGATE_REPORT_URL": url},
        args=("--link-report",),
    )
    assert linked.code == 0, linked.out  # a link never fails the step
    assert "the summary comment was not linked" in linked.out or "no summary comment" in linked.out
    assert f"[wikigate-report]({url})" in (world.tmp / "summary.md").read_text(encoding="utf-8")


def test_the_action_uploads_the_html_report_pinned_and_links_it_best_effort():
    steps = _action()["runs"]["steps"]
    [upload] = [s for s in steps if s.get("id") == "upload"]
    assert re.fullmatch(r"actions/upload-artifact@[0-9a-f]{40}", upload["uses"])
    assert upload["with"] == {
        "name": "${{ inputs.html-artifact }}",
        "path": "${{ steps.html.outputs.html }}",
    }
    assert upload["continue-on-error"] is True and "always()" in upload["if"]
    [link] = [s for s in steps if "--link-report" in s.get("run", "")]
    assert link["continue-on-error"] is True
    assert link["env"]["WIKIGATE_REPORT_URL"] == "${{ steps.upload.outputs.artifact-url }}"
    assert "${{" not in link["run"]  # the URL reaches the program through env only
    assert steps.index(link) == len(steps) - 1 and steps.index(upload) == len(steps) - 2
    with pytest.raises(UsageError, match="input html-artifact"):
        Inputs.read({"WIKIGATE_HTML_ARTIFACT": "a/b"})
