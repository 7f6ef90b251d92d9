"""A merge queue's ``merge_group`` event: verify the group's head (the commit GitHub will
merge) against its base, with the base's rules, and report it as the check run
``wikigate`` on that head.  Nothing lands, closes or is recorded: GitHub merges the group
when the required check passes, and removes it from the queue when it fails.

The decision binds to the event's ``head_sha``: the group's ref is fetched and must still
point there (a group GitHub replaced gets an event of its own), and ``base_sha`` must be an
ancestor of it.  Anything else fails closed, on the check run of ``head_sha``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from wikigate.changes import change_request, ready
from wikigate.errors import GitError
from wikigate.kinds import VERDICT_EXIT
from wikigate.verifier.report import VerificationReport
from wikigate.verify import verify
from wikigate.workspace import Workspace

from .check_run import CheckRun
from .event import ActionsEnv, MergeGroup
from .fetch import fetch_from_origin, git
from .github_io import PullRequestIO
from .outcome import Out, Outcome, step_exit
from .review import every_finding, fenced, shown, summary_body, workflow_commands

GROUP_REF = "refs/wikigate/github/merge-group/head"
GROUP_BASE = "refs/wikigate/github/merge-group/base"


def run_group(env: ActionsEnv, workdir: Path, out: Out, group: MergeGroup) -> int:
    """Verify ``group`` and report it; returns the step's exit code."""
    assert env.repository is not None and env.token is not None  # load_event checked
    gh = PullRequestIO.for_repository(env.api_url, env.token, env.repository)
    check = CheckRun(gh, group.head_sha, out.warn)
    check.start()
    try:
        report = _verify(env, workdir, group)
    except BaseException as e:  # the check run never stays in progress
        check.finish("failure", "wikigate failed", f"wikigate failed:\n\n{fenced(str(e))}", None)
        raise
    outcome = _outcome(report, group)
    summary = f"{summary_body(report, outcome.line)}\n\n{every_finding(report)}"
    check.finish(outcome.conclusion, outcome.title, summary, report)
    if check.silent:  # neither a check run nor a status: the annotations carry them
        for command in workflow_commands(report):
            out.command(command)
    out.say(f"wikigate: {outcome.line}")
    if env.report_path:
        Path(env.report_path).write_text(report.model_dump_json(indent=2), encoding="utf-8")
    if env.step_summary:
        with open(env.step_summary, "a", encoding="utf-8") as fh:
            fh.write(out.redact(summary) + "\n")
    if env.output:
        with open(env.output, "a", encoding="utf-8") as fh:
            fh.write(f"verdict={report.verdict}\n")
            if env.report_path:
                fh.write(f"report={env.report_path}\n")
    return step_exit(outcome, env.inputs.fail_level, out)


def _verify(env: ActionsEnv, workdir: Path, group: MergeGroup) -> VerificationReport:
    fetch_from_origin(workdir, f"+{group.head_ref}:{GROUP_REF}", f"+{group.base_ref}:{GROUP_BASE}")
    head = git(workdir, "rev-parse", "--verify", f"{GROUP_REF}^{{commit}}").stdout.strip()
    if head != group.head_sha:
        raise GitError(
            f"the merge group {shown(group.head_ref)} is at {head[:12]}, not the event's "
            f"{group.head_sha[:12]}: GitHub replaced the group, and its new head gets an "
            "event of its own; nothing was verified"
        )
    ws = Workspace.open(workdir, main=GROUP_BASE)  # the checkout may have no branch
    try:
        base = ws.repo.get(group.base_sha)
        if base is None or ws.repo.merge_base(group.head_sha, group.base_sha) != base.id:
            raise GitError(
                f"the merge group's base {group.base_sha[:12]} is not an ancestor of its head "
                f"{group.head_sha[:12]}; nothing was verified"
            )
        inputs = env.inputs
        request = replace(
            change_request(ws, group.head_sha, group.base_sha, run_trailers=False),
            strictness=inputs.strictness,
            judge=inputs.judge,
        )
        ready(request)
        return verify(request).report
    finally:
        ws.close()


def _outcome(report: VerificationReport, group: MergeGroup) -> Outcome:
    """Only a commit passes the required check: a group holding anything a person or the
    author must act on leaves the queue."""
    verdict = report.verdict
    n = len(report.findings)
    found = f"{n} finding{'s' if n != 1 else ''}"
    where = f"merge group {group.head_sha[:12]} (base {group.base_sha[:12]})"
    if verdict == "commit":
        return Outcome(
            verdict,
            VERDICT_EXIT["commit"],
            f"commit: {where} passes; GitHub merges it",
            "success",
            "commit: the merge group passes",
        )
    return Outcome(
        verdict,
        VERDICT_EXIT[verdict],
        f"{verdict}: {where} does not pass ({found}); GitHub removes it from the queue: "
        "fix the pull request and queue it again",
        "failure",
        f"{verdict}: {found} in the merge group",
    )
