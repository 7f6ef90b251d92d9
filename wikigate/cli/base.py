"""Click plumbing shared by the commands: the default subcommand of ``verify`` and
opening the workspace.  Every option and argument carries a one-line ``help``
(tests/test_docs.py checks it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from wikigate.kinds import REPORT_FORMATS

if TYPE_CHECKING:  # the engine is imported when a command runs, not when the CLI starts
    from wikigate.finalize import FinalizeResult
    from wikigate.workspace import Workspace

F = TypeVar("F", bound=Callable[..., Any])


class _AsParent(click.Context):
    """The default command's context: usage, errors and ``--help`` hints name the group
    (``wikigate verify``), not the hidden command (``wikigate verify check``)."""

    @property
    def command_path(self) -> str:
        return self.parent.command_path if self.parent is not None else super().command_path


class DefaultCommand(click.Command):
    context_class = _AsParent


class DefaultGroup(click.Group):
    """A group that runs its ``default`` command when the first word is not a subcommand
    (``wikigate verify REF`` and ``wikigate verify override RUN``).  ``--help`` shows the
    default command's arguments and options, then the subcommands."""

    default = "check"

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        wants_help = bool(args) and args[0] in ctx.help_option_names
        if not wants_help and (not args or args[0] not in self.commands):
            args = [self.default, *args]
        return super().parse_args(ctx, args)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        command = self.commands[self.default]
        sub = command.context_class(command, info_name=self.default, parent=ctx)
        command.format_usage(sub, formatter)
        self.format_help_text(ctx, formatter)
        command.format_options(sub, formatter)
        self.format_commands(ctx, formatter)


def open_workspace(ctx: click.Context, reading: bool = False) -> Workspace:
    """The workspace; ``reading`` (a command that lands nothing): in a clone without the
    trunk's branch, origin's default branch stands in, and stderr says so."""
    from wikigate.workspace import Workspace

    ws = Workspace.open(ctx.find_root().obj["repo"], reading=reading)
    ctx.call_on_close(ws.close)
    if reading:
        note = stand_in(ws)
        if note:
            click.echo(note, err=True)
    return ws


def stand_in(ws: Workspace) -> str | None:
    """What to say when ``ws`` reads another branch than its configured trunk (a fresh
    clone's origin default branch, :func:`wikigate.gitrepo.reading_trunk`)."""
    from wikigate.gitrepo import stand_in_note

    return stand_in_note(ws.repo, ws.env.main)


def run_id_argument(
    help: str = "The run's id, as `wikigate run start` printed it.",  # noqa: A002
) -> Callable[[F], F]:
    return click.argument("run_id", metavar="RUN", help=help)


def format_option(
    choices: tuple[str, ...] = ("text", "json"),
    help: str = "Output format.",  # noqa: A002
) -> Callable[[F], F]:
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(choices),
        default="text",
        show_default=True,
        help=help,
    )


def output_option(what: str) -> Callable[[F], F]:
    """``--output FILE``: write ``what`` there instead of standard output."""
    return click.option(
        "--output",
        type=click.Path(dir_okay=False, writable=True),
        metavar="FILE",
        help=f"Write {what} here instead of standard output.",
    )


def report_options(what: str) -> Callable[[F], F]:
    """``--format`` (the report formats) and ``--output FILE`` of a command printing
    ``what`` (a report)."""

    def decorate(f: F) -> F:
        f = output_option(f"the {what}")(f)
        return format_option(
            REPORT_FORMATS,
            f"Format of the {what} (rdjson: reviewdog, sarif: code scanning, html: one "
            "self-contained page).",
        )(f)

    return decorate


class Amount(click.ParamType[Any, Any]):
    """A finite number ≥ 0 (tokens: an integer) within what telemetry can hold."""

    def __init__(self, integer: bool) -> None:
        self.integer = integer
        self.name = "integer" if integer else "number"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from wikigate.models import MAX_TOKENS, MAX_USD

        try:
            number = int(value) if self.integer else float(value)
        except (TypeError, ValueError):
            self.fail(
                f"{value!r} is not {'an integer' if self.integer else 'a number'}", param, ctx
            )
        top = MAX_TOKENS if self.integer else MAX_USD
        if not 0 <= number <= top:  # also false for nan
            shown = f"{top:,}" if self.integer else f"{top:g}"
            self.fail(f"{value!r} is not a finite amount between 0 and {shown}", param, ctx)
        return number


TOKENS = Amount(integer=True)
USD = Amount(integer=False)


def judge_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--judge anthropic|offline``: the semantic judge, over wikigate.toml's [judge]."""
    return click.option(
        "--judge",
        type=click.Choice(["anthropic", "offline"]),
        help="The semantic judge (default: wikigate.toml's [judge] provider); anthropic "
        "needs ANTHROPIC_API_KEY.",
    )(f)


def sync_ledger(ws: Workspace) -> None:
    """After main moved: bring the claim ledger up to it. The ledger is derived from git,
    so a failure here loses nothing: the next ``wikigate claims`` catches up."""
    from wikigate import ledger
    from wikigate.gitrepo import branch_name

    try:
        ledger.sync(ws)
    except Exception as e:  # noqa: BLE001 - main has landed; the index can wait
        behind = f"the claim ledger is behind {branch_name(ws.env.main)}"
        click.echo(f"warning: {behind} ({type(e).__name__}: {e})", err=True)


def outcome_text(result: FinalizeResult) -> str:
    """A run's outcome as text (``present.outcome``) ending with the claims it removed that
    did not verify on main and the pages it touched that are not fresh, stale or contested,
    as ``wikigate verify``'s text report says them: its ``removed_lines``, ``page_states``
    and ``state_of``, at most ``STATES_LISTED`` pages, then a count."""
    from wikigate.present import outcome
    from wikigate.verifier.report import ClaimCheck
    from wikigate.verifier.reporters.text import (
        STATES_LISTED,
        page_states,
        removed_lines,
        state_of,
    )

    states = page_states(result.findings)
    listed = [(page, state_of(stale, contested)) for page, stale, contested in states]
    checks = [ClaimCheck.model_validate(c) for c in (result.report or {}).get("claim_checks", [])]
    return outcome(
        result,
        removed=removed_lines(checks),
        not_fresh=listed[:STATES_LISTED],
        unlisted=max(0, len(listed) - STATES_LISTED),
    )
