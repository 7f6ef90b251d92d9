"""How one event ends: the :class:`Outcome` the decision comes to, the check run it is
reported to (a :class:`Check`), the step's exit code under ``fail-level``, and the output
streams (the token never leaves)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Protocol, TextIO

from wikigate.kinds import NEEDS_HUMAN_REVIEW, VERDICT_EXIT
from wikigate.verifier.report import VerificationReport

from .review import defused

# an exit code (kinds.VERDICT_EXIT) → what it says of the pull request
STATE = {
    VERDICT_EXIT["commit"]: "committed",
    VERDICT_EXIT["reject"]: "rejected",
    VERDICT_EXIT["revise"]: "revise / waiting on the author",
    VERDICT_EXIT[NEEDS_HUMAN_REVIEW]: "waiting for a person",
}
# fail-level → the exits that fail the step (waiting for a person: nothing landed)
FAILING = {
    "revise": tuple(VERDICT_EXIT[v] for v in ("reject", "revise", NEEDS_HUMAN_REVIEW)),
    "reject": (VERDICT_EXIT["reject"],),
    "none": (),
}


@dataclass(frozen=True)
class Outcome:
    """How one event ends: the single value the summary, the outputs, the exit code and
    the check run are made from."""

    verdict: str | None  # commit | commit_override | reject | revise; None: nothing verified
    exit_code: int  # kinds.VERDICT_EXIT: committed or nothing to do, rejected, revise/waiting…
    line: str  # one sentence: what happened and what to do next
    conclusion: str  # the check run's: success | failure | neutral | action_required
    title: str  # the check run's title
    error: bool = False  # a GitHub write the verdict needed failed: fail-level never softens it


def nothing(why: str) -> Outcome:
    return Outcome(
        None, VERDICT_EXIT["commit"], f"nothing to do ({why})", "neutral", "nothing to do"
    )


class Check(Protocol):
    """The check run on the head (bot/check_run.py's ``CheckRun`` fits)."""

    def start(self) -> None: ...

    def finish(
        self, conclusion: str, title: str, summary: str, report: VerificationReport | None
    ) -> None: ...


class NoCheck:
    def start(self) -> None:
        pass

    def finish(
        self, conclusion: str, title: str, summary: str, report: VerificationReport | None
    ) -> None:
        pass


class Out:
    """Results to stdout, diagnostics to stderr; the secrets (the GitHub token, the
    Anthropic key) never leave, even by accident."""

    def __init__(
        self,
        *secrets: str | None,
        stdout: TextIO = sys.stdout,
        stderr: TextIO = sys.stderr,
    ):
        self.secrets = [s for s in secrets if s]
        self.stdout, self.stderr = stdout, stderr

    def redact(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, "***")
        return text

    def say(self, text: str) -> None:
        """A line of results: no ``::`` in it survives (writer text can hold a newline
        followed by ``::warning``: it starts no workflow command here)."""
        print(defused(self.redact(text)), file=self.stdout, flush=True)

    def warn(self, text: str) -> None:
        print(defused(self.redact(text)), file=self.stderr, flush=True)

    def command(self, text: str) -> None:
        """A workflow command the bot means (``::error file=…::…``, escaped by its maker)."""
        print(self.redact(text), file=self.stdout, flush=True)


def step_exit(outcome: Outcome, fail_level: str, out: Out) -> int:
    """The step's exit code: the outcome's, unless ``fail-level`` lets that verdict pass
    (a GitHub write that failed always fails the step)."""
    code = outcome.exit_code
    if code == VERDICT_EXIT["commit"] or outcome.error or code in FAILING[fail_level]:
        return code
    out.say(
        f"wikigate: exit {code} ({STATE[code]}) would fail this step; fail-level "
        f"{fail_level} lets it pass (exit 0)"
    )
    return 0
