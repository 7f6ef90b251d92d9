"""The check run ``wikigate`` on the pull request's head: ``in_progress`` while verifying,
then its conclusion, a title, the summary and one annotation per finding.  A token
without ``checks: write`` gets a commit status (context ``wikigate``) instead.

GitHub takes at most 50 annotations per request (the rest go in further updates) and a
summary of at most 65,535 characters.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from wikigate.models import Finding
from wikigate.verifier.report import VerificationReport

from .github_io import Forbidden, GitHubError, PullRequestIO

NAME = "wikigate"
ANNOTATIONS_PER_REQUEST = 50
SUMMARY_LIMIT = 65_535
TITLE_LIMIT = 255
STATUS_DESCRIPTION_LIMIT = 140
ANNOTATION_LEVEL = {"critical": "failure", "major": "warning", "minor": "notice"}
# a commit status has no neutral nor action_required: the nearest of its four states
STATUS_STATE = {
    "success": "success",
    "neutral": "success",
    "failure": "failure",
    "action_required": "failure",
}
TRUNCATED = "\n\n… (truncated: the whole report is the job's `report` output)"


class CheckRun:
    """The head's check run, or its commit status when the token may not create one."""

    def __init__(self, io: PullRequestIO, head: str, warn: Any = print) -> None:
        self.io, self.head, self.warn = io, head, warn
        self.run: Any = None  # PyGithub's CheckRun, once created
        self.status_only = False  # no checks: write: a commit status instead
        self.silent = False  # neither could be written

    def start(self) -> None:
        try:
            self.run = self.io.create_check_run(NAME, self.head)
            return
        except Forbidden:
            self.status_only = True
        except GitHubError as e:
            self.warn(f"wikigate: no check run: {e}")
            self.silent = True
            return
        self._status("pending", "verifying")

    def finish(
        self, conclusion: str, title: str, summary: str, report: VerificationReport | None
    ) -> None:
        if self.silent:
            return
        if self.run is None:
            self._status(STATUS_STATE[conclusion], title)
            return
        notes = annotations_of(report.findings) if report is not None else []
        output = {"title": title[:TITLE_LIMIT], "summary": clip(summary)}
        try:
            self.io.update_check_run(
                self.run,
                status="completed",
                conclusion=conclusion,
                completed_at=datetime.now(UTC),
                output={**output, "annotations": notes[:ANNOTATIONS_PER_REQUEST]},
            )
            for at in range(ANNOTATIONS_PER_REQUEST, len(notes), ANNOTATIONS_PER_REQUEST):
                batch = notes[at : at + ANNOTATIONS_PER_REQUEST]
                self.io.update_check_run(self.run, output={**output, "annotations": batch})
        except GitHubError as e:
            self.warn(f"wikigate: the check run was not completed: {e}")

    def _status(self, state: str, description: str) -> None:
        try:
            self.io.create_status(self.head, state, description[:STATUS_DESCRIPTION_LIMIT], NAME)
        except GitHubError as e:  # a read-only token: annotations carry the findings
            self.warn(f"wikigate: no commit status either: {e}")
            self.silent = True


def annotations_of(findings: list[Finding]) -> list[dict[str, Any]]:
    """One annotation per finding that names a file: on its claim's lines when it has
    them, else its own line (a finding about a whole file: line 1)."""
    out = []
    for f in findings:
        if f.path is None:
            continue
        end = f.claim_line or f.line or 1
        start = f.claim_start_line if f.claim_line and f.claim_start_line else end
        out.append(
            {
                "path": f.path,
                "start_line": min(start, end),
                "end_line": end,
                "annotation_level": ANNOTATION_LEVEL[f.severity],
                "title": f"wikigate {f.code}",
                "message": f.message + (f"\nhint: {f.hint}" if f.hint else ""),
            }
        )
    return out


def clip(summary: str) -> str:
    if len(summary) <= SUMMARY_LIMIT:
        return summary
    return summary[: SUMMARY_LIMIT - len(TRUNCATED)] + TRUNCATED
