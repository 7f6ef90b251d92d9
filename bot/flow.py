"""The decision for one pull request event: fetch, verify (``verify_ref``, the rules of
the base), review, then land (fast-forward the base), close, or ask for changes.

Exit codes as the CLI's: 0 committed (or nothing to do), 1 rejected, 3 revise or waiting
on the author (the base moved).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from wikigate.api import verify_ref
from wikigate.errors import GitError
from wikigate.gitrepo import commit_at
from wikigate.runid import now_iso
from wikigate.verifier.report import VerificationReport
from wikigate.workspace import Workspace

from .event import ActionsEnv, PullRequestEvent, load_event
from .fetch import Fetched, fetch_pull
from .github_io import WRITERS, Forbidden, NotFastForward, PullRequestIO
from .notes import Override, committed_record, publish, run_id_for, run_type_for
from .review import diff_lines, plan_review, review_body, summary_body, workflow_commands

VERDICT_EXIT = {"commit": 0, "reject": 1, "revise": 3}
REVIEW_EVENT = {"commit": "COMMENT", "reject": "COMMENT", "revise": "REQUEST_CHANGES"}


class Out:
    """Results to stdout, diagnostics to stderr; the token never leaves, even by accident."""

    def __init__(
        self, secret: str | None, stdout: TextIO = sys.stdout, stderr: TextIO = sys.stderr
    ):
        self.secret, self.stdout, self.stderr = secret, stdout, stderr

    def redact(self, text: str) -> str:
        return text.replace(self.secret, "***") if self.secret else text

    def say(self, text: str) -> None:
        print(self.redact(text), file=self.stdout, flush=True)

    def warn(self, text: str) -> None:
        print(self.redact(text), file=self.stderr, flush=True)


def run(env: ActionsEnv, workdir: Path, out: Out) -> int:
    """Handle the event ``env`` names; returns the exit code."""
    loaded = load_event(env)
    if isinstance(loaded, str):
        out.say(f"wikigate: nothing to do ({loaded})")
        return 0
    event = loaded
    started = now_iso()
    fetched = fetch_pull(workdir, event.number, event.pull_request.base.ref)
    if fetched.head != event.pull_request.head.sha:
        out.say(
            f"wikigate: nothing to do (pull request #{event.number} moved to "
            f"{fetched.head[:12]} after this event; its own event verifies it)"
        )
        return 0
    ws = Workspace.open(workdir)
    try:
        merge_base = ws.repo.merge_base(fetched.head, fetched.base_tip)
        if merge_base is None:
            raise GitError(f"pull request #{event.number} shares no history with its base")
        report = verify_ref(ws, fetched.head, str(merge_base), strictness=env.strictness)
        assert env.repository is not None and env.token is not None  # load_event checked
        gh = PullRequestIO.connect(env.api_url, env.token, env.repository, event.number)
        bot = Decision(env, event, ws, gh, out, fetched, report, started)
        return bot.decide(workdir)
    finally:
        ws.close()


@dataclass
class Decision:
    env: ActionsEnv
    event: PullRequestEvent
    ws: Workspace
    gh: PullRequestIO
    out: Out
    fetched: Fetched
    report: VerificationReport
    started: str
    forbidden: bool = False  # a write was refused: report through annotations

    def decide(self, workdir: Path) -> int:
        report = self.report
        override = self.override() if report.verdict != "commit" else None
        self.write_report()
        self.review()
        if report.verdict == "commit" or override is not None:
            code, line = self.land(workdir, override)
            verdict = "commit_override" if override is not None else "commit"
        elif report.verdict == "reject":
            code, line, verdict = 1, self.close(), "reject"
        else:
            verdict, code = "revise", 3
            line = f"revise: fix the findings and push; wikigate verifies pull request #{self.event.number} again"
        summary = summary_body(report, line)
        self.attempt(lambda: self.gh.upsert_summary(summary))
        if self.forbidden:
            self.out.warn(
                "wikigate: the token may not write to this pull request; findings follow as annotations"
            )
            for a in workflow_commands(report):
                self.out.say(a)
        self.out.say(f"wikigate: {line}")
        self.outputs(verdict, summary)
        return code

    def attempt(self, write: Callable[[], object]) -> None:
        try:
            write()
        except Forbidden as e:
            self.forbidden = True
            self.out.warn(f"wikigate: {e}")

    # ------------------------------------------------------------ steps

    def override(self) -> Override | None:
        """A writer's override label; anyone else's is removed, with a comment saying why."""
        if self.event.action != "labeled":
            return None
        user, label = self.event.sender.login, self.env.override_label
        if self.gh.permission(user) in WRITERS:
            return Override(user, f"label {label} applied by {user}", "github-label")
        self.attempt(lambda: self.gh.remove_label(label))
        self.attempt(
            lambda: self.gh.comment(
                f"@{user}: `{label}` overrides wikigate's verdict only when a person with "
                "write or admin permission applies it; the label was removed."
            )
        )
        return None

    def review(self) -> None:
        repo, report = self.ws.repo, self.report
        assert report.base is not None
        diff = diff_lines(repo, commit_at(repo, report.base).tree, commit_at(repo, report.tip).tree)
        try:
            posted = self.gh.bot_comments()
            plan = plan_review(report, diff, {p.fingerprint for p in posted})
            if plan.inline or plan.elsewhere:
                event = REVIEW_EVENT[report.verdict]
                self.gh.post_review(report.tip, review_body(report, plan), event, plan.inline)
            for comment in plan.file_level:
                self.gh.post_file_comment(report.tip, comment)
            for p in posted:
                if p.fingerprint not in plan.wanted:  # its finding is gone
                    self.gh.delete_comment(p)
        except Forbidden as e:
            self.forbidden = True
            self.out.warn(f"wikigate: {e}")

    def land(self, workdir: Path, override: Override | None) -> tuple[int, str]:
        pr, repo, head = self.event.pull_request, self.ws.repo, self.fetched.head
        base, tip = pr.base.ref, self.fetched.base_tip
        if pr.draft:
            return 0, f"verified; pull request #{self.event.number} is a draft and is not merged"
        if head != tip and not repo.descendant_of(head, tip):
            return 3, f"{base} moved: update the branch onto {base}; wikigate verifies it again"
        if override is not None and pr.state == "closed":
            self.attempt(lambda: self.gh.set_state("open"))
        try:
            self.gh.fast_forward(base, head)
        except NotFastForward:
            return 3, f"{base} moved while landing: update the branch; wikigate verifies it again"
        except Forbidden as e:
            self.out.warn(f"error: {e}")
            return 1, f"could not fast-forward {base}: the token may not write to it"
        assert self.env.repository is not None
        record = committed_record(
            workspace=self.ws.name,
            run_id=run_id_for(self.env.repository, self.event.number, head),
            run_type=run_type_for(repo, self.report.base or tip, head),
            event=self.env.event_name,
            number=self.event.number,
            report=self.report,
            started_at=self.started,
            override=override,
        )
        publish(repo, workdir, self.fetched.notes, record)
        how = f" by override of {override.actor}" if override else ""
        return 0, f"committed{how}: {base} fast-forwarded to {head[:12]}"

    def close(self) -> str:
        self.attempt(lambda: self.gh.set_state("closed"))
        return f"rejected: pull request #{self.event.number} closed; see the findings"

    # ------------------------------------------------------------ Actions files

    def write_report(self) -> None:
        if self.env.report_path:
            Path(self.env.report_path).write_text(
                self.report.model_dump_json(indent=2), encoding="utf-8"
            )

    def outputs(self, verdict: str, summary: str) -> None:
        if self.env.step_summary:
            with open(self.env.step_summary, "a", encoding="utf-8") as fh:
                fh.write(self.out.redact(summary) + "\n")
        if self.env.output:
            with open(self.env.output, "a", encoding="utf-8") as fh:
                fh.write(f"verdict={verdict}\n")
                if self.env.report_path:
                    fh.write(f"report={self.env.report_path}\n")
