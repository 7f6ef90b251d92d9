"""One base exception; subclasses say where the trouble came from.

Only the CLI's ``main()`` turns these into exit codes.  Findings are results,
never exceptions.
"""

from __future__ import annotations


class WikigateError(Exception):
    """A failure the user can act on; the message says what to do."""

    exit_code = 1


class UsageError(WikigateError):
    """The command was called wrongly (exit 2)."""

    exit_code = 2


class ConfigError(WikigateError):
    """wikigate.toml is missing a value or holds a bad one."""


class GitError(WikigateError):
    """The repository is not in a state wikigate can work with."""


class NoTrunk(GitError):
    """The repository has no branch wikigate gates (exit 2: a setup to fix, not a finding)."""

    exit_code = 2


class RunError(WikigateError):
    """A run operation was refused (bad path, terminal run, unknown id...)."""


class JudgeError(WikigateError):
    """The LLM judge cannot run as configured (no API key, no price for its model)."""


class AttestError(WikigateError):
    """An attestation cannot be signed as configured (no ssh-keygen, an unreadable key)."""


class TelemetryError(WikigateError):
    """The telemetry database cannot be opened or written."""


class DirtyWorktreeError(GitError):
    """Local changes would be overwritten by the fast-forward of main."""
