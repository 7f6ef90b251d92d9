"""Send the review of one verification: the plan (bot/review.py) as one batched review,
with GitHub's refusals handled as reviewdog and pr-agent do.

- A batch refused with 422 (a line GitHub will not take: "must be part of the diff") is
  posted again without its inline comments, then each comment on its own; the ones
  refused again become file-level comments, so no finding is lost.
- APPROVE refused (an Actions token may not approve) falls back to COMMENT.
- The bot's comments whose finding is gone are deleted, or, where a person replied,
  edited to say they are resolved.
"""

from __future__ import annotations

from collections.abc import Callable

import pygit2

from wikigate.gitrepo import commit_at
from wikigate.verifier.report import VerificationReport

from .github_io import GitHubError, PullRequestIO, Unprocessable
from .review import (
    MAX_COMMENTS,
    Comment,
    ReviewPlan,
    diff_lines,
    footnotes,
    plan_review,
    resolved_body,
    review_body,
)

# commit: the input decides; a run waiting for a person is not the bot's to approve
EVENT = {"reject": "COMMENT", "revise": "REQUEST_CHANGES", "needs_human_review": "COMMENT"}


def send_review(
    gh: PullRequestIO,
    repo: pygit2.Repository,
    report: VerificationReport,
    verdict: str,
    *,
    on_commit: str = "COMMENT",
    warn: Callable[[str], None] = print,
    max_comments: int = MAX_COMMENTS,
) -> ReviewPlan:
    """Post what ``report`` adds to the pull request's conversation (``verdict``: the
    decision's, which may differ from the report's when the loop limit rejects), at most
    ``max_comments`` review comments on it; the plan says what was folded."""
    assert report.base is not None
    tip_tree = commit_at(repo, report.tip).tree
    paths = [f.path for f in report.findings if f.path is not None]
    diff = diff_lines(repo, commit_at(repo, report.base).tree, tip_tree, paths)
    posted = gh.bot_comments()
    plan = plan_review(
        report,
        diff,
        {p.fingerprint for p in posted},
        footnotes(repo, tip_tree, report.findings),
        max_comments,
    )
    event = EVENT.get(verdict, on_commit)
    if not plan.empty or event == "APPROVE":
        _post(gh, report, review_body(report, plan), event, plan.inline, warn)
    for comment in plan.file_level:
        _file_level(gh, report.tip, comment, warn)
    for p in posted:
        if p.fingerprint in plan.wanted:
            continue
        if p.replied:  # a person answered it: keep the thread, say it is resolved
            gh.edit_comment(p, resolved_body(p.obj.body or "", report.tip))
        else:
            gh.delete_comment(p)
    return plan


def _post(
    gh: PullRequestIO,
    report: VerificationReport,
    body: str,
    event: str,
    inline: list[Comment],
    warn: Callable[[str], None],
) -> None:
    try:
        gh.post_review(report.tip, body, event, inline)
        return
    except Unprocessable as e:
        if event == "APPROVE":  # GitHub Actions is not permitted to approve pull requests
            warn(f"wikigate: {e}; reviewing with COMMENT instead")
            _post(gh, report, body, "COMMENT", inline, warn)
            return
        if not inline:
            raise
        warn(f"wikigate: {e}; posting the comments one by one")
    gh.post_review(report.tip, body, event, [])
    for comment in inline:
        try:
            gh.post_line_comment(report.tip, comment)
        except Unprocessable:
            where = (
                f"line {comment.start_line}–{comment.line}"
                if comment.start_line
                else f"line {comment.line}"
            )
            _file_level(
                gh,
                report.tip,
                comment.to_file(f"(for {where}, which GitHub would not take as part of the diff)"),
                warn,
            )


def _file_level(gh: PullRequestIO, tip: str, comment: Comment, warn: Callable[[str], None]) -> None:
    try:
        gh.post_file_comment(tip, comment)
    except GitHubError as e:
        if isinstance(e, Unprocessable):  # the summary and annotations still carry it
            warn(f"wikigate: {e}")
            return
        raise
