"""The action's inputs (action.yml passes each as a ``WIKIGATE_*`` environment variable),
parsed and checked once: a bad value is a usage error that names the input."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from wikigate.errors import UsageError
from wikigate.models import MAX_LOOPS, STRICTNESSES

OVERRIDE_LABEL = "wikigate:override"
REVIEW_LABEL = "wikigate:needs-human-review"
FAIL_LEVELS = ("revise", "reject", "none")
# gate: the bot lands (fast-forwards the base), closes and deletes; check: it verifies and
# reports (the check run `wikigate`, a required status check) and GitHub or its merge queue
# merges: it never lands, closes nor deletes a branch
MODES = ("gate", "check")
PYTHONS = ("setup", "system")  # who provides the action's Python (action.yml reads it)
JUDGES = ("anthropic", "offline")
COMMIT_REVIEWS = ("COMMENT", "APPROVE")
BOT_NAME = "wikigate[bot]"
BOT_EMAIL = "wikigate[bot]@users.noreply.github.com"

# input name → the environment variable action.yml sets from it
ENV = {
    "mode": "WIKIGATE_MODE",
    "python": "WIKIGATE_PYTHON",
    "strictness": "WIKIGATE_STRICTNESS",
    "judge": "WIKIGATE_JUDGE",
    "commit-review": "WIKIGATE_COMMIT_REVIEW",
    "override-label": "WIKIGATE_OVERRIDE_LABEL",
    "merge": "WIKIGATE_MERGE",
    "close-on-reject": "WIKIGATE_CLOSE_ON_REJECT",
    "delete-branch": "WIKIGATE_DELETE_BRANCH",
    "fail-level": "WIKIGATE_FAIL_LEVEL",
    "max-loops": "WIKIGATE_MAX_LOOPS",
    "bot-name": "WIKIGATE_BOT_NAME",
    "bot-email": "WIKIGATE_BOT_EMAIL",
    "review-team": "WIKIGATE_REVIEW_TEAM",
    "html-artifact": "WIKIGATE_HTML_ARTIFACT",
}


_Get = Callable[[str], str | None]


@dataclass(frozen=True)
class Inputs:
    mode: str = "gate"
    python: str = "setup"  # action.yml's; checked here too, so a typo is named either way
    strictness: str | None = None  # None: the base branch's wikigate.toml
    judge: str | None = None  # None: the base branch's [judge] provider
    commit_review: str = "COMMENT"  # the review event of a commit (APPROVE falls back)
    override_label: str = OVERRIDE_LABEL
    merge: bool = True
    close_on_reject: bool = True
    delete_branch: bool = True
    fail_level: str = "revise"
    max_loops: int = MAX_LOOPS
    bot_name: str = BOT_NAME
    bot_email: str = BOT_EMAIL
    review_team: str | None = None  # asked when no CODEOWNERS line names the pages' owners
    # the artifact action.yml uploads the HTML report as (None: no upload, no link)
    html_artifact: str | None = None

    @classmethod
    def read(cls, environ: Mapping[str, str]) -> Inputs:
        def get(name: str) -> str | None:
            value = environ.get(ENV[name], "").strip()
            return value or None  # unset or empty: the default

        mode = _choice(get, "mode", MODES) or "gate"
        check = mode == "check"  # GitHub merges: nothing the bot would land or close
        for name in ("merge", "close-on-reject", "delete-branch"):
            if check and _flag(get, name, False):
                raise _bad(name, get(name) or "", "false (or unset) with mode: check")
        return cls(
            mode=mode,
            python=_choice(get, "python", PYTHONS) or "setup",
            strictness=_choice(get, "strictness", STRICTNESSES, upper=True),
            judge=_choice(get, "judge", JUDGES),
            commit_review=_choice(get, "commit-review", COMMIT_REVIEWS, upper=True) or "COMMENT",
            override_label=get("override-label") or OVERRIDE_LABEL,
            merge=_flag(get, "merge", not check),
            close_on_reject=_flag(get, "close-on-reject", not check),
            delete_branch=_flag(get, "delete-branch", not check),
            fail_level=_choice(get, "fail-level", FAIL_LEVELS) or "revise",
            max_loops=_count(get, "max-loops", MAX_LOOPS),
            bot_name=_one_line(get, "bot-name") or BOT_NAME,
            bot_email=_one_line(get, "bot-email") or BOT_EMAIL,
            review_team=_slug(get, "review-team"),
            html_artifact=_artifact(get, "html-artifact"),
        )


def _bad(name: str, value: str, expected: str) -> UsageError:
    return UsageError(
        f"input {name} ({ENV[name]}={value!r}): expected {expected}; fix the `with:` of the "
        "wikigate step in your workflow"
    )


def _flag(get: _Get, name: str, default: bool) -> bool:
    value = get(name)
    if value is None:
        return default
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise _bad(name, value, "true or false")


def _choice(get: _Get, name: str, choices: tuple[str, ...], *, upper: bool = False) -> str | None:
    value = get(name)
    if value is None:
        return None
    wanted = value.upper() if upper else value.lower()
    if wanted not in choices:
        raise _bad(name, value, "one of " + " | ".join(choices))
    return wanted


def _count(get: _Get, name: str, default: int) -> int:
    value = get(name)
    if value is None:
        return default
    if not value.isdigit() or not 1 <= int(value) <= 1000:
        raise _bad(name, value, "a whole number from 1 to 1000")
    return int(value)


def _one_line(get: _Get, name: str) -> str | None:
    value = get(name)
    if value is not None and (any(c in value for c in "<>\n\r\0") or not value.isprintable()):
        raise _bad(name, value, "one printable line without < or >")
    return value


ARTIFACT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def _artifact(get: _Get, name: str) -> str | None:
    """An artifact's name as actions/upload-artifact takes it (and a link can show)."""
    value = get(name)
    if value is not None and not ARTIFACT_NAME.fullmatch(value):
        raise _bad(name, value, "a name of letters, digits, '.', '_' and '-' (at most 100)")
    return value


def _slug(get: _Get, name: str) -> str | None:
    """A team's slug (``maintainers``; an ``org/`` prefix is dropped)."""
    value = get(name)
    if value is None:
        return None
    slug = value.split("/", 1)[-1]
    if not slug or not all(c.isalnum() or c in "-_." for c in slug):
        raise _bad(name, value, "a team slug such as maintainers (or org/maintainers)")
    return slug
