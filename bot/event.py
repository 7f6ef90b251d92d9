"""The Actions environment and the pull request event payload: what the bot acts on."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from wikigate.errors import UsageError
from wikigate.models import STRICTNESSES

PR_EVENTS = ("pull_request", "pull_request_target")
PR_ACTIONS = ("opened", "synchronize", "reopened", "ready_for_review", "labeled", "unlabeled")
DEFAULT_API_URL = "https://api.github.com"
OVERRIDE_LABEL = "wikigate:override"


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
    override_label: str
    strictness: str | None  # the action's input; default: the base's wikigate.toml

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
            override_label=get("WIKIGATE_OVERRIDE_LABEL") or OVERRIDE_LABEL,
            strictness=_strictness(get("WIKIGATE_STRICTNESS")),
        )


def _strictness(value: str | None) -> str | None:
    if value is None:
        return None
    if value.upper() not in STRICTNESSES:
        raise UsageError(f"WIKIGATE_STRICTNESS={value!r}: use one of {', '.join(STRICTNESSES)}")
    return value.upper()


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class RepoRef(_Model):
    full_name: str


class Branch(_Model):
    ref: str
    sha: str
    repo: RepoRef | None = None  # None: the fork was deleted


class PullRequest(_Model):
    number: int
    state: str = "open"
    draft: bool = False
    head: Branch
    base: Branch


class Label(_Model):
    name: str


class User(_Model):
    login: str


class PullRequestEvent(_Model):
    """A ``pull_request`` / ``pull_request_target`` webhook payload (the fields we use)."""

    action: str
    number: int
    pull_request: PullRequest
    label: Label | None = None
    sender: User


def load_event(env: ActionsEnv) -> PullRequestEvent | str:
    """The event to act on, or why there is nothing to do."""
    if env.event_name not in PR_EVENTS:
        shown = env.event_name or "(GITHUB_EVENT_NAME unset)"
        return f"event {shown}: wikigate acts on {' and '.join(PR_EVENTS)}"
    if env.event_path is None:
        raise UsageError("GITHUB_EVENT_PATH is not set: run `wikigate github` inside Actions")
    try:
        data = json.loads(Path(env.event_path).read_text(encoding="utf-8"))
        event = PullRequestEvent.model_validate(data)
    except (OSError, ValueError, ValidationError) as e:
        raise UsageError(f"GITHUB_EVENT_PATH: not a pull request event payload ({e})") from e
    if event.action not in PR_ACTIONS:
        return f"{env.event_name} {event.action}: wikigate acts on {', '.join(PR_ACTIONS)}"
    if event.action == "unlabeled" or (
        event.action == "labeled"
        and (event.label is None or event.label.name != env.override_label)
    ):
        return f"{env.event_name} {event.action}: not the override label {env.override_label!r}"
    if env.repository is None or env.token is None:
        raise UsageError("GITHUB_REPOSITORY and GITHUB_TOKEN must be set")
    return event
