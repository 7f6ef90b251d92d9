"""Every GitHub REST call the bot makes, through PyGithub (imported here only, lazily:
``wikigate --version`` and the git hooks never load it).

GitHub's errors enter here and leave as :class:`GitHubError`: ``Forbidden`` (403/404 on
a write: a read-only or fork token), ``NotFastForward`` (422 from the refs PATCH: the
base moved).  Messages name the call and GitHub's answer, never the token.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from wikigate.errors import WikigateError

from .review import SUMMARY_MARKER, Comment, fingerprint_in

if TYPE_CHECKING:
    from github.PullRequest import PullRequest
    from github.Repository import Repository

WRITERS = ("admin", "write")  # the legacy `permission` field: admin, write, read, none


class GitHubError(WikigateError):
    """A GitHub API call failed; ``status`` is the HTTP status (None: no answer)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class Forbidden(GitHubError):
    """403/404 on a write: the token may read the pull request but not write to it."""


class NotFastForward(GitHubError):
    """422 from the refs PATCH: the base branch moved; the head no longer descends from it."""


@contextmanager
def _calling(what: str) -> Iterator[None]:
    from github import GithubException

    try:
        yield
    except GithubException as e:
        message = e.data.get("message") if isinstance(e.data, dict) else None
        text = f"GitHub refused to {what}: {e.status} {message or ''}".rstrip()
        if e.status in (403, 404):
            raise Forbidden(text, e.status) from None
        if e.status == 422 and "fast forward" in (message or "").lower():
            raise NotFastForward(text, e.status) from None
        raise GitHubError(text, e.status) from None
    except OSError as e:  # connection refused, DNS, TLS
        raise GitHubError(f"could not reach GitHub to {what}: {type(e).__name__}") from None


@dataclass(frozen=True)
class Posted:
    """A comment of the bot on the pull request, found by its fingerprint."""

    id: int
    fingerprint: str
    obj: Any  # PyGithub's PullRequestComment


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


class PullRequestIO:
    """One pull request of one repository, as the bot reads and writes it."""

    def __init__(self, repo: Repository, pr: PullRequest) -> None:
        self.repo, self.pr = repo, pr

    @classmethod
    def connect(cls, api_url: str, token: str, repository: str, number: int) -> PullRequestIO:
        from github import Auth, Github, GithubRetry

        # bounded retries: 5xx and rate limits that say when to come back
        retry = GithubRetry(total=3, secondary_rate_wait=20, max_rate_limit_wait=60)
        client = Github(auth=Auth.Token(token), base_url=api_url, retry=retry, timeout=30)
        with _calling(f"read pull request #{number} of {repository}"):
            repo = client.get_repo(repository)
            return cls(repo, repo.get_pull(number))

    # ------------------------------------------------------------ review comments

    def bot_comments(self) -> list[Posted]:
        """The review comments carrying a wikigate fingerprint (not found by ``/user``:
        an Actions token cannot call it)."""
        out = []
        with _calling("list review comments"):
            for c in self.pr.get_review_comments():
                fp = fingerprint_in(c.body or "")
                if fp is not None:
                    out.append(Posted(c.id, fp, c))
        return out

    def post_review(self, head: str, body: str, event: str, comments: list[Comment]) -> None:
        inline = [
            {"path": c.path, "line": c.line, "side": "RIGHT", "body": c.body} for c in comments
        ]
        with _calling("post the review"):
            commit = self.repo.get_commit(head)
            self.pr.create_review(commit=commit, body=body, event=event, comments=cast(Any, inline))

    def post_file_comment(self, head: str, comment: Comment) -> None:
        with _calling(f"comment on {comment.path}"):
            self.pr.create_review_comment(comment.body, head, comment.path, subject_type="file")

    def delete_comment(self, posted: Posted) -> None:
        with _calling("delete an outdated comment"):
            posted.obj.delete()

    # ------------------------------------------------------------ the conversation

    def upsert_summary(self, body: str) -> None:
        with _calling("write the summary comment"):
            for c in self.pr.get_issue_comments():
                if SUMMARY_MARKER in (c.body or ""):
                    if c.body != body:
                        c.edit(body)
                    return
            self.pr.create_issue_comment(body)

    def comment(self, body: str) -> None:
        with _calling("comment on the pull request"):
            self.pr.create_issue_comment(body)

    def set_state(self, state: str) -> None:
        with _calling(f"set the pull request {state}"):
            self.pr.edit(state=state)

    def remove_label(self, name: str) -> None:
        with _calling(f"remove the label {name}"):
            self.pr.remove_from_labels(name)

    def permission(self, user: str) -> str:
        with _calling(f"read {user}'s permission"):
            return self.repo.get_collaborator_permission(user)

    # ------------------------------------------------------------ the pull request

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
