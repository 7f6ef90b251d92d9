"""Every GitHub REST call the bot makes, through PyGithub (imported here only, lazily:
``wikigate --version`` and the git hooks never load it).

GitHub's errors enter here and leave as :class:`GitHubError`: ``Forbidden`` (403/404 on
a write: a read-only or fork token), ``NotFastForward`` (422 from the refs PATCH: the
base moved), ``Unprocessable`` (another 422: a line outside the diff, an event GitHub
refuses).  5xx answers and rate limits are retried within bounds first (``retry``).
Messages name the call and GitHub's answer, never the token.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, cast

from wikigate.errors import WikigateError

from .review import REPLY_MARKER, REVIEW_MARKER, SUMMARY_MARKER, Comment, fingerprint_in, plain

if TYPE_CHECKING:
    from github.PullRequest import PullRequest
    from github.Repository import Repository

WRITERS = ("admin", "write")  # the legacy `permission` field: admin, write, read, none
# GitHub asks integrations to space their writes (secondary rate limits); reads are serial
WRITE_SPACING = 0.25  # seconds between two writes


class GitHubError(WikigateError):
    """A GitHub API call failed; ``status`` is the HTTP status (None: no answer)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class Forbidden(GitHubError):
    """403/404 on a write: the token may read the pull request but not write to it."""


class NotFastForward(GitHubError):
    """422 from the refs PATCH: the base branch moved; the head no longer descends from it."""


class Unprocessable(GitHubError):
    """422: GitHub understood the request and refused it (a comment's line is not part of
    the diff; an event the token may not give)."""


def _answer(data: Any) -> str:
    """GitHub's message and its ``errors`` (strings, or objects with a message), in one line."""
    if not isinstance(data, dict):
        return ""
    parts = [str(data.get("message") or "")]
    for e in data.get("errors") or []:
        parts.append(
            str(e.get("message") or e.get("code") or "") if isinstance(e, dict) else str(e)
        )
    return "; ".join(p for p in parts if p)[:500]


@contextmanager
def _calling(what: str) -> Iterator[None]:
    from github import GithubException, RateLimitExceededException

    from .retry import WAIT_BOUND

    what = plain(what)  # it may name a path, a branch or a label: writer text
    try:
        yield
    except GithubException as e:
        answer = _answer(e.data)
        text = f"GitHub refused to {what}: {e.status} {answer}".rstrip()
        headers = {k.lower(): v for k, v in (e.headers or {}).items()}
        if isinstance(e, RateLimitExceededException) or e.status == 429 or "retry-after" in headers:
            raise GitHubError(
                f"GitHub's rate limit held: could not {what} within the {WAIT_BOUND:.0f} s "
                f"the bot waits ({e.status} {answer}); run the job again later",
                e.status,
            ) from None
        if e.status >= 500:
            raise GitHubError(
                f"GitHub failed to {what}: {e.status} {answer or 'server error'}, still "
                "after retries; run the job again",
                e.status,
            ) from None
        if e.status in (403, 404):
            raise Forbidden(text, e.status) from None
        if e.status == 422 and "fast forward" in answer.lower():
            raise NotFastForward(text, e.status) from None
        if e.status == 422:
            raise Unprocessable(text, e.status) from None
        raise GitHubError(text, e.status) from None
    except OSError as e:  # connection refused, DNS, TLS; retries exhausted
        raise GitHubError(
            f"could not reach GitHub to {what}: {type(e).__name__}, still after retries"
        ) from None


@dataclass(frozen=True)
class Posted:
    """A comment of the bot on the pull request, found by its fingerprint."""

    id: int
    fingerprint: str
    obj: Any  # PyGithub's PullRequestComment
    replied: bool = False  # someone other than its author answered it


@dataclass(frozen=True)
class PullFacts:
    """The pull request as the API shows it now (event payloads can be stale)."""

    number: int
    state: str  # open | closed
    draft: bool
    merged: bool
    author: str
    head_sha: str
    head_ref: str
    head_repo: str | None  # owner/name; None: the fork was deleted
    base_ref: str
    labels: tuple[str, ...]
    body: str = ""  # the description (its Wikigate-Scope line)


class PullRequestIO:
    """One pull request of one repository, as the bot reads and writes it."""

    def __init__(self, repo: Repository, pr: PullRequest) -> None:
        self.repo, self.pr = repo, pr

    @classmethod
    def connect(cls, api_url: str, token: str, repository: str, number: int) -> PullRequestIO:
        from github import Auth, Github

        from .retry import github_retry

        client = Github(
            auth=Auth.Token(token),
            base_url=api_url,
            retry=github_retry(),  # bounded: 5xx, and rate limits within one wait budget
            timeout=30,
            per_page=100,  # fewer pages of comments to list
            seconds_between_requests=None,  # the bot's requests are serial already
            seconds_between_writes=WRITE_SPACING,
        )
        with _calling(f"read pull request #{number} of {repository}"):
            repo = client.get_repo(repository)
            return cls(repo, repo.get_pull(number))

    @classmethod
    def for_repository(cls, api_url: str, token: str, repository: str) -> PullRequestIO:
        """The repository without a pull request (a merge queue's group): only its check
        runs and commit statuses are written."""
        from github import Auth, Github

        from .retry import github_retry

        client = Github(
            auth=Auth.Token(token),
            base_url=api_url,
            retry=github_retry(),
            timeout=30,
            seconds_between_requests=None,
            seconds_between_writes=WRITE_SPACING,
        )
        with _calling(f"read the repository {repository}"):
            return cls(client.get_repo(repository), cast(Any, None))

    # ------------------------------------------------------------ review comments

    def bot_comments(self) -> list[Posted]:
        """The review comments carrying a wikigate fingerprint (not found by ``/user``:
        an Actions token cannot call it), each told whether someone replied to it."""
        found: list[tuple[int, str, Any]] = []
        repliers: dict[int, set[str]] = {}
        with _calling("list review comments"):
            for c in self.pr.get_review_comments():
                if c.in_reply_to_id is not None:
                    repliers.setdefault(c.in_reply_to_id, set()).add(_login(c))
                    continue
                fp = fingerprint_in(c.body or "")
                if fp is not None and _by_a_bot(c):  # a person's copy of a marker is theirs
                    found.append((c.id, fp, c))
        return [
            Posted(cid, fp, c, bool(repliers.get(cid, set()) - {_login(c)})) for cid, fp, c in found
        ]

    def post_review(self, head: str, body: str, event: str, comments: list[Comment]) -> None:
        """One batched review: ``event``, ``body`` and the inline ``comments``."""
        inline = [_inline(c) for c in comments]
        with _calling("post the review"):
            commit = self.repo.get_commit(head)
            self.pr.create_review(commit=commit, body=body, event=event, comments=cast(Any, inline))

    def post_line_comment(self, head: str, comment: Comment) -> None:
        """One inline comment on its own (``Unprocessable`` when its line is not in the diff)."""
        assert comment.line is not None
        start: dict[str, Any] = (
            {"start_line": comment.start_line, "start_side": "RIGHT"} if comment.start_line else {}
        )
        with _calling(f"comment on {comment.path} line {comment.line}"):
            self.pr.create_review_comment(
                comment.body, head, comment.path, line=comment.line, side="RIGHT", **start
            )

    def post_file_comment(self, head: str, comment: Comment) -> None:
        with _calling(f"comment on {comment.path}"):
            self.pr.create_review_comment(comment.body, head, comment.path, subject_type="file")

    def delete_comment(self, posted: Posted) -> None:
        with _calling("delete an outdated comment"):
            posted.obj.delete()

    def edit_comment(self, posted: Posted, body: str) -> None:
        with _calling("mark an outdated comment resolved"):
            posted.obj.edit(body)

    def last_review_state(self) -> str | None:
        """The state of the bot's latest review (found by its marker), or None."""
        state = None
        with _calling("list reviews"):
            for r in self.pr.get_reviews():
                if REVIEW_MARKER in (r.body or ""):
                    state = r.state
        return state

    # ------------------------------------------------------------ check runs and statuses

    def create_check_run(self, name: str, head: str) -> Any:
        """``POST /check-runs``, in progress; ``Forbidden`` without ``checks: write``."""
        from datetime import datetime

        with _calling(f"create the check run {name}"):
            return self.repo.create_check_run(
                name, head, status="in_progress", started_at=datetime.now(UTC)
            )

    def update_check_run(self, run: Any, **fields: Any) -> None:
        """``PATCH /check-runs/{id}`` with ``fields`` (status, conclusion, output…)."""
        with _calling(f"update the check run {run.name}"):
            run.edit(**fields)

    def create_status(self, head: str, state: str, description: str, context: str) -> None:
        """``POST /statuses/{sha}``: the fallback of a token without ``checks: write``."""
        with _calling(f"set the commit status {context}"):
            self.repo.get_commit(head).create_status(
                state, description=description, context=context
            )

    # ------------------------------------------------------------ the conversation

    def upsert_summary(self, body: str) -> None:
        with _calling("write the summary comment"):
            for c in self.pr.get_issue_comments():
                if SUMMARY_MARKER in (c.body or "") and _by_a_bot(c):
                    if c.body != body:
                        c.edit(body)
                    return
            self.pr.create_issue_comment(body)

    def edit_summary(self, change: Callable[[str], str]) -> bool:
        """Edit the bot's summary comment to ``change(body)``; False when there is none."""
        with _calling("edit the summary comment"):
            for c in self.pr.get_issue_comments():
                if SUMMARY_MARKER in (c.body or "") and _by_a_bot(c):
                    body = change(c.body)
                    if body != c.body:
                        c.edit(body)
                    return True
        return False

    def comment(self, body: str) -> None:
        with _calling("comment on the pull request"):
            self.pr.create_issue_comment(body)

    def reply(self, body: str, per_hour: int) -> bool:
        """Post ``body`` as a reply (marked) unless the bot posted ``per_hour`` replies on
        this pull request within the last hour (GitHub's record, read back); returns
        whether it posted."""
        since = datetime.now(UTC) - timedelta(hours=1)
        recent = 0
        with _calling("list the comments"):
            for c in self.pr.get_issue_comments():
                if REPLY_MARKER in (c.body or "") and _by_a_bot(c) and _at(c.created_at) >= since:
                    recent += 1
        if recent >= per_hour:
            return False
        self.comment(f"{body}\n\n{REPLY_MARKER}")
        return True

    def set_state(self, state: str) -> None:
        with _calling(f"set the pull request {state}"):
            self.pr.edit(state=state)

    def remove_label(self, name: str) -> None:
        """Take the label off; one already gone (removed by hand, or by an earlier run of
        this job: GitHub answers 404 "Label does not exist") is done, not a refusal."""
        from github import GithubException

        with _calling(f"remove the label {name}"):
            try:
                self.pr.remove_from_labels(name)
            except GithubException as e:
                if e.status != 404:
                    raise

    def add_label(self, name: str) -> None:
        with _calling(f"add the label {name}"):
            self.pr.add_to_labels(name)

    def request_reviewers(self, users: list[str], teams: list[str]) -> None:
        """``POST /pulls/{n}/requested_reviewers``."""
        with _calling(f"request a review from {', '.join([*users, *teams])}"):
            self.pr.create_review_request(reviewers=users, team_reviewers=teams)

    def permission(self, user: str) -> str:
        with _calling(f"read {user}'s permission"):
            return self.repo.get_collaborator_permission(user)

    # ------------------------------------------------------------ the pull request

    def default_branch(self) -> str:
        """The repository's default branch: what a required check in ``mode: check``
        guards merges into."""
        with _calling("read the repository's default branch"):
            return str(self.repo.default_branch)

    def facts(self) -> PullFacts:
        pr = self.pr
        with _calling(f"read pull request #{pr.number}"):
            head_repo = pr.head.repo.full_name if pr.head.repo is not None else None
            return PullFacts(
                number=pr.number,
                state=pr.state,
                draft=bool(pr.draft),
                merged=bool(pr.merged),
                author=pr.user.login,
                head_sha=pr.head.sha,
                head_ref=pr.head.ref,
                head_repo=head_repo,
                base_ref=pr.base.ref,
                labels=tuple(label.name for label in pr.labels),
                body=pr.body or "",
            )

    def delete_branch(self, branch: str) -> None:
        """``DELETE /repos/{o}/{r}/git/refs/heads/{branch}``."""
        with _calling(f"delete the branch {branch}"):
            self.repo.get_git_ref(f"heads/{branch}").delete()

    # ------------------------------------------------------------ landing

    def fast_forward(self, base: str, sha: str) -> None:
        """``PATCH /repos/{o}/{r}/git/refs/heads/{base}`` ``{sha, force: false}``."""
        with _calling(f"fast-forward {base} to {sha[:12]}"):
            self.repo.get_git_ref(f"heads/{base}").edit(sha, force=False)


def _by_a_bot(c: Any) -> bool:
    """Written by an app or bot account (``github-actions[bot]``, ``wikigate[bot]``): only
    those comments are the bot's to edit or delete, whatever markers a person copies."""
    user = c.user
    return user is not None and (user.type == "Bot" or user.login.endswith("[bot]"))


def _at(when: datetime | None) -> datetime:
    """GitHub's time (PyGithub gives it aware, in UTC; naive is taken as UTC)."""
    if when is None:
        return datetime.min.replace(tzinfo=UTC)
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def _login(c: Any) -> str:
    return c.user.login if c.user is not None else ""


def _inline(c: Comment) -> dict[str, Any]:
    """A review's inline comment: on ``line``; from ``start_line`` when it spans lines."""
    out: dict[str, Any] = {"path": c.path, "line": c.line, "side": "RIGHT", "body": c.body}
    if c.start_line is not None:
        out.update(start_line=c.start_line, start_side="RIGHT")
    return out
