"""The Actions environment and the event payload: what the bot acts on.

Pull request events (``pull_request``, ``pull_request_target``) and ``issue_comment``
commands (``/wikigate verify``, ``/wikigate override <reason>``) become one
:class:`Trigger`; a merge queue's ``merge_group`` event a :class:`MergeGroup` (its head
verified against its base, reported, never landed: GitHub merges); anything else is a
sentence saying why there is nothing to do.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from wikigate.errors import UsageError

from .inputs import Inputs

PR_EVENTS = ("pull_request", "pull_request_target")
PR_ACTIONS = ("opened", "synchronize", "reopened", "ready_for_review", "labeled", "unlabeled")
COMMENT_EVENT = "issue_comment"
REVIEW_EVENT = "pull_request_review"
REVIEW_STATES = ("approved", "changes_requested")  # a person's decision; comments are not
# the one action of a comment or review event that wikigate reads, and what that is
READS = {
    COMMENT_EVENT: ("created", "new comments"),
    REVIEW_EVENT: ("submitted", "submitted reviews"),
}
MERGE_GROUP_EVENT = "merge_group"
MERGE_GROUP_ACTION = "checks_requested"
COMMANDS = ("verify", "override")
_SHA = re.compile(r"\A[0-9a-f]{40}\Z")
DEFAULT_API_URL = "https://api.github.com"
MAX_REASON = 500  # characters of an override's reason kept in the note
_COMMAND = re.compile(r"\A\s*/wikigate[ \t]+(\S+)(.*)\Z", re.DOTALL)


@dataclass(frozen=True)
class ActionsEnv:
    """What GitHub Actions (and action.yml's inputs) tell the bot through the environment."""

    event_name: str
    event_path: str | None
    repository: str | None
    token: str | None
    api_url: str
    step_summary: str | None
    output: str | None
    report_path: str | None
    inputs: Inputs = Inputs()
    run_url: str | None = None  # this workflow run's page (its artifacts are listed there)

    @classmethod
    def read(cls, environ: Mapping[str, str] = os.environ) -> ActionsEnv:
        def get(name: str) -> str | None:
            return environ.get(name) or None

        report = get("WIKIGATE_REPORT")
        if report is None and get("RUNNER_TEMP"):
            report = str(Path(environ["RUNNER_TEMP"]) / "wikigate-report.json")
        return cls(
            event_name=environ.get("GITHUB_EVENT_NAME", ""),
            event_path=get("GITHUB_EVENT_PATH"),
            repository=get("GITHUB_REPOSITORY"),
            token=get("GITHUB_TOKEN"),
            api_url=(get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/"),
            step_summary=get("GITHUB_STEP_SUMMARY"),
            output=get("GITHUB_OUTPUT"),
            report_path=report,
            inputs=Inputs.read(environ),
            run_url=run_url(environ),
        )


_SERVER = re.compile(r"\Ahttps?://[A-Za-z0-9.-]+(:[0-9]{1,5})?\Z")
_REPOSITORY = re.compile(r"\A[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}\Z")
_RUN_ID = re.compile(r"\A[0-9]{1,20}\Z")


def run_url(environ: Mapping[str, str]) -> str | None:
    """``$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID``, or None when
    Actions did not say (or said something that is not a server, a repository and a
    number: the link goes into a comment, so it is built only from what it can be)."""
    server = (environ.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
    repository, run_id = environ.get("GITHUB_REPOSITORY", ""), environ.get("GITHUB_RUN_ID", "")
    if not (_SERVER.match(server) and _REPOSITORY.match(repository) and _RUN_ID.match(run_id)):
        return None
    return f"{server}/{repository}/actions/runs/{int(run_id)}"


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


_M = TypeVar("_M", bound=_Model)


class Label(_Model):
    name: str


class User(_Model):
    login: str


class PullHead(_Model):
    sha: str


class PullRequestPayload(_Model):
    number: int
    head: PullHead


class PullRequestEvent(_Model):
    """A ``pull_request`` / ``pull_request_target`` webhook payload (the fields we use)."""

    action: str
    number: int
    pull_request: PullRequestPayload
    label: Label | None = None
    sender: User


class CommentBody(_Model):
    body: str = ""
    user: User
    created_at: str | None = None  # when it was written: an override binds to what it saw


class Issue(_Model):
    number: int
    pull_request: dict[str, object] | None = None  # present: the issue is a pull request


class ReviewBody(_Model):
    state: str
    body: str | None = None
    user: User
    commit_id: str


class PullRequestReviewEvent(_Model):
    """A ``pull_request_review`` webhook payload (the fields we use)."""

    action: str
    review: ReviewBody
    pull_request: PullRequestPayload


class IssueCommentEvent(_Model):
    """An ``issue_comment`` webhook payload (the fields we use)."""

    action: str
    issue: Issue
    comment: CommentBody


class GroupBody(_Model):
    head_sha: str
    head_ref: str
    base_sha: str
    base_ref: str


class MergeGroupEvent(_Model):
    """A ``merge_group`` webhook payload (the fields we use)."""

    action: str
    merge_group: GroupBody


@dataclass(frozen=True)
class MergeGroup:
    """A merge queue's group to verify: its head (the commit GitHub will merge) against
    its base."""

    head_sha: str
    head_ref: str  # refs/heads/gh-readonly-queue/<base>/pr-<n>-<sha>
    base_sha: str
    base_ref: str  # refs/heads/<base>


@dataclass(frozen=True)
class Command:
    """``/wikigate verify`` or ``/wikigate override <reason>`` from a comment."""

    name: str  # one of COMMANDS
    reason: str  # the override's reason ("" for verify)


@dataclass(frozen=True)
class Review:
    """A submitted review that decides a run waiting for a person (needs_human_review)."""

    state: str  # "approved" | "changes_requested"
    body: str  # the reviewer's words: the decision's reason
    commit: str  # the head it was given for


@dataclass(frozen=True)
class Trigger:
    """One event the bot acts on, whatever its kind.  The pull request itself is read
    through the API (its head, base, labels, author): payloads can be stale."""

    event_name: str
    action: str
    number: int
    sender: str  # who applied the label / wrote the comment / pushed
    label: str | None = None  # the override label (``labeled`` only)
    head_sha: str | None = None  # the head a pull request event was sent for
    command: Command | None = None
    review: Review | None = None
    written_at: str | None = None  # a comment's created_at (GitHub's clock)


def load_event(env: ActionsEnv) -> Trigger | MergeGroup | str:
    """The event to act on, or why there is nothing to do."""
    if env.event_name not in (*PR_EVENTS, COMMENT_EVENT, REVIEW_EVENT, MERGE_GROUP_EVENT):
        shown = env.event_name or "(GITHUB_EVENT_NAME unset)"
        return (
            f"event {shown}: wikigate acts on {', '.join(PR_EVENTS)}, {COMMENT_EVENT}, "
            f"{REVIEW_EVENT} and {MERGE_GROUP_EVENT}"
        )
    if env.event_path is None:
        raise UsageError("GITHUB_EVENT_PATH is not set: run `wikigate github` inside Actions")
    try:
        data = json.loads(Path(env.event_path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise UsageError(f"GITHUB_EVENT_PATH: cannot read the event payload ({e})") from e
    found: Trigger | MergeGroup | str = (
        _merge_group(data)
        if env.event_name == MERGE_GROUP_EVENT
        else _comment(env, data)
        if env.event_name == COMMENT_EVENT
        else _review(data)
        if env.event_name == REVIEW_EVENT
        else _pull(env, data)
    )
    if not isinstance(found, str) and (env.repository is None or env.token is None):
        raise UsageError("GITHUB_REPOSITORY and GITHUB_TOKEN must be set")
    return found


def _merge_group(data: object) -> MergeGroup | str:
    event = _parse(MergeGroupEvent, data, "a merge_group event")
    if event.action != MERGE_GROUP_ACTION:
        return f"{MERGE_GROUP_EVENT} {event.action}: wikigate acts on {MERGE_GROUP_ACTION}"
    group = event.merge_group
    for name, sha in (("head_sha", group.head_sha), ("base_sha", group.base_sha)):
        if not _SHA.match(sha):
            raise UsageError(f"GITHUB_EVENT_PATH: merge_group.{name} {sha!r} is not a commit id")
    for name, ref in (("head_ref", group.head_ref), ("base_ref", group.base_ref)):
        if not ref.startswith("refs/heads/") or not _REF.match(ref):
            raise UsageError(f"GITHUB_EVENT_PATH: merge_group.{name} {ref!r} is not a branch")
    return MergeGroup(group.head_sha, group.head_ref, group.base_sha, group.base_ref)


# a branch's full name as git accepts it (no option, no revision syntax): check-ref-format's
# rules, for the characters a merge queue's refs hold
_REF = re.compile(
    r"\Arefs/heads/(?!.*(?:\.\.|//|@\{|\.lock(?:/|\Z)|/\.|\.\Z|/\Z))[A-Za-z0-9._/-]+\Z"
)


def _pull(env: ActionsEnv, data: object) -> Trigger | str:
    event = _parse(PullRequestEvent, data, "a pull request event")
    if event.action not in PR_ACTIONS:
        return f"{env.event_name} {event.action}: wikigate acts on {', '.join(PR_ACTIONS)}"
    label = env.inputs.override_label
    if event.action == "unlabeled" or (
        event.action == "labeled" and (event.label is None or event.label.name != label)
    ):
        return f"{env.event_name} {event.action}: not the override label {label!r}"
    return Trigger(
        env.event_name,
        event.action,
        event.number,
        event.sender.login,
        label=label if event.action == "labeled" else None,
        head_sha=event.pull_request.head.sha,
    )


def _comment(env: ActionsEnv, data: object) -> Trigger | str:
    event = _parse(IssueCommentEvent, data, "an issue_comment event")
    if (unread := _unread(COMMENT_EVENT, event.action)) is not None:
        return unread
    if event.issue.pull_request is None:
        return f"a comment on issue #{event.issue.number}, not on a pull request"
    command = parse_command(event.comment.body)
    if command is None:
        return f"the comment is not a command ({' or '.join('/wikigate ' + c for c in COMMANDS)})"
    said = _said(COMMENT_EVENT, event.action, event.issue, event.comment)
    return replace(said, command=command, written_at=event.comment.created_at)


def _review(data: object) -> Trigger | str:
    event = _parse(PullRequestReviewEvent, data, "a pull_request_review event")
    state = event.review.state.lower()
    if (unread := _unread(REVIEW_EVENT, event.action)) is not None:
        return unread
    if state not in REVIEW_STATES:
        return f"a {state} review decides nothing (approved or changes_requested do)"
    said = _said(REVIEW_EVENT, event.action, event.pull_request, event.review)
    reason = (event.review.body or "").strip()[:MAX_REASON]
    return replace(
        said,
        head_sha=event.pull_request.head.sha,
        review=Review(state, reason, event.review.commit_id),
    )


def _said(
    kind: str, action: str, on: Issue | PullRequestPayload, by: CommentBody | ReviewBody
) -> Trigger:
    """A person's comment or review (``by``: who wrote it) on a pull request (``on``), as
    a Trigger: who and where, read alike for both; the caller adds what was said."""
    return Trigger(kind, action, on.number, by.user.login)


def _unread(kind: str, action: str) -> str | None:
    """Why an event of ``kind`` (a comment or a review) with ``action`` is not read."""
    wanted, what = READS[kind]
    return None if action == wanted else f"{kind} {action}: wikigate reads {what} only"


def parse_command(body: str) -> Command | None:
    """A comment that starts with ``/wikigate verify`` or ``/wikigate override <reason>``."""
    found = _COMMAND.match(body)
    if found is None or found.group(1) not in COMMANDS:
        return None
    reason = " ".join(found.group(2).split())[:MAX_REASON]
    return Command(found.group(1), reason if found.group(1) == "override" else "")


def _parse(model: type[_M], data: object, what: str) -> _M:
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise UsageError(f"GITHUB_EVENT_PATH: not {what} payload ({e})") from e
