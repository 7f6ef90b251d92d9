"""``wikigate verify [REF]``, ``wikigate verify override`` and ``wikigate anchor``."""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from wikigate.errors import UsageError
from wikigate.kinds import FILTER_MODES, STRICTNESSES, VERDICT_EXIT

from . import progress
from .app import cli
from .base import (
    DefaultCommand,
    DefaultGroup,
    judge_option,
    open_workspace,
    outcome_text,
    report_options,
    run_id_argument,
    stand_in,
    sync_ledger,
)

if TYPE_CHECKING:
    from wikigate.anchors import AnchorFix
    from wikigate.verifier.protocol import Request
    from wikigate.verifier.report import VerificationReport
    from wikigate.verifier.shard import Shard


class ShardType(click.ParamType[Any, Any]):
    """``K/N``: shard K (1-based) of N."""

    name = "K/N"

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> Shard:
        from wikigate.verifier.shard import Shard

        if isinstance(value, Shard):
            return value
        try:
            return Shard.parse(str(value))
        except ValueError as e:
            self.fail(str(e), param, ctx)


SHARD = ShardType()


@cli.group(cls=DefaultGroup)
def verify() -> None:
    """Verify REF (default: the current branch) against the trunk (main) without committing
    anything (a REF already on the trunk: its commit's own change, against its parent);
    exit 0 commit, 1 reject, 3 revise, 5 needs_human_review.  Or override, approve or
    reject a run (below)."""


@verify.command("check", cls=DefaultCommand, hidden=True)
@click.argument(
    "ref",
    required=False,
    help="Branch or commit to verify (default: the current branch).",
)
@click.option(
    "--base",
    metavar="REF",
    help="Compare against this commit (default: the merge-base with the trunk; for a REF "
    "already on the trunk, its parent).",
)
@click.option(
    "--strictness",
    type=click.Choice(STRICTNESSES, case_sensitive=False),
    help="Preset of checks and severities (default: wikigate.toml's [verifier] strictness).",
)
@report_options("report")
@click.option(
    "--all",
    "lint",
    is_flag=True,
    help="Check the whole wiki at REF (default HEAD): lint mode. Findings a recorded "
    "override or approval landed (same fingerprint) are shown as overridden, not counted.",
)
@click.option(
    "--shard",
    type=SHARD,
    metavar="K/N",
    help="With --all: run the per-page checks on shard K (1-based) of N only, for "
    "`wikigate report merge` (a page's shard is a hash of its path mod N).",
)
@click.option(
    "--filter",
    "filter_mode",
    type=click.Choice(FILTER_MODES),
    default="nofilter",
    show_default=True,
    help="Which findings of a branch verify are reported, as reviewdog's filter mode: on "
    "added lines, on the diff's lines with context, in changed files, or all. Reporting "
    "only: the verdict and exit code count every finding.",
)
@judge_option
@click.option(
    "--judge-dry-run",
    is_flag=True,
    help="Print what the anthropic judge would send, with estimated tokens and cost; send nothing.",
)
@click.pass_context
def verify_check(
    ctx: click.Context,
    ref: str | None,
    base: str | None,
    strictness: str | None,
    fmt: str,
    output: str | None,
    lint: bool,
    shard: Shard | None,
    filter_mode: str,
    judge: str | None,
    judge_dry_run: bool,
) -> None:
    """Verify REF without committing anything."""
    from dataclasses import replace

    from wikigate.changes import change_request, describe_dry_run, ready, sign_shard
    from wikigate.verify import verify

    if lint and base:
        raise UsageError("--all checks the whole wiki; it takes no --base")
    if lint and filter_mode != "nofilter":
        raise UsageError(
            "--filter reports the findings of a change; --all checks the whole wiki (no diff)"
        )
    if shard is not None and not lint:
        raise UsageError("--shard K/N splits a whole-wiki verify: use it with --all")
    if judge_dry_run and judge == "offline":
        raise UsageError(
            "--judge-dry-run shows the anthropic judge's requests; not with --judge offline"
        )
    ws = open_workspace(ctx, reading=True)
    request = change_request(ws, ref, base, whole=lint)
    if base is None and not lint:
        request = own_change(request, ref or "HEAD", ws.env.main)
    request = replace(
        request,
        strictness=strictness.upper() if strictness else None,
        shard=shard,
        judge=judge,
        judge_dry_run=judge_dry_run,
    )
    ready(request)
    with progress.bar(human_output=fmt == "text" and output is None) as shown:
        done = verify(replace(request, progress=shown))
    if shard is not None and not judge_dry_run:
        done = sign_shard(ws.repo, done)
    if judge_dry_run:
        emit(
            done.report,
            fmt,
            output,
            text=describe_dry_run(done, "json" if fmt == "json" else "text"),
        )
        ctx.exit(0)
    report = done.report
    if lint and shard is None and report.findings:  # the baseline: what a person's word
        # already landed (no finding: nothing to set aside, and no telemetry store to open)
        from wikigate.baseline import honour_overrides

        report = honour_overrides(report, ws.store.overridden(), ws.repo)
    if filter_mode != "nofilter" and report.base is not None:
        from wikigate.reportfilter import apply_filter

        report = apply_filter(report, ws.repo, filter_mode)
    emit(report, fmt, output, ws=ws)
    ctx.exit(VERDICT_EXIT[report.verdict])


def own_change(request: Request, ref: str, main: str) -> Request:
    """A REF already on the trunk (main, or a past commit of it: its merge-base with the
    trunk is itself) has no change against it: its commit's own change is verified, against
    its first parent, said on stderr with what to pass for another comparison. The trunk's
    first commit, which has no parent, is a usage error naming ``--all``."""
    from dataclasses import replace

    from wikigate.gitrepo import branch_name

    tip = request.tip
    if request.base is None or request.base.id != tip.id:
        return request
    trunk = branch_name(main)
    if not tip.parents:
        raise UsageError(
            f"{ref} is the first commit of {trunk}: it has no parent to compare it with; "
            f"`wikigate verify --all {ref}` checks the whole wiki at it"
        )
    parent = tip.parents[0]
    click.echo(
        f"wikigate verify: {ref} is already on {trunk}: verifying its commit's own change, "
        f"against its parent {ref}~1 ({str(parent.id)[:12]}); `--base REF` compares with "
        "another commit, `--all` checks the whole wiki",
        err=True,
    )
    return replace(request, base=parent)


def emit(
    report: VerificationReport,
    fmt: str,
    output: str | None,
    *,
    text: str | None = None,
    ws: Any = None,
) -> None:
    """The report in ``fmt`` (or ``text``, already made) on standard output, or in the
    file ``output``; html with the pages it is about when ``ws`` (the workspace) is given."""
    from wikigate.verifier.reporters import render

    if text is None and fmt == "html" and ws is not None:
        text = html_of(ws.repo, report)
    if text is None:
        color = output is None and fmt == "text" and sys.stdout.isatty()
        text = render(report, fmt, color=color)
    emit_text(text, output)


def emit_text(text: str, output: str | None) -> None:
    """``text`` on standard output, or in the file ``output``."""
    if output:
        try:
            Path(output).write_text(text + "\n", encoding="utf-8")
        except OSError as e:
            raise UsageError(f"--output {output}: cannot write the report ({e.strerror})") from e
    else:
        click.echo(text)


def html_of(repo: Any, report: VerificationReport) -> str:
    """The HTML report with the pages it is about, read from ``repo`` (the pages by the
    rules of the report's base; no trunk needed: a CI checkout of a commit has none)."""
    from wikigate.config import config_at
    from wikigate.errors import WikigateError
    from wikigate.verifier.reporters.html import HtmlReporter, report_pages

    try:
        config = config_at(repo, report.base) if report.base and report.base in repo else None
    except (WikigateError, ValueError):
        config = None  # the report alone tells what it can
    if config is None:
        from wikigate.config import Config

        config = Config()
    pages = report_pages(repo, report, config.wiki.layout().is_page)
    return HtmlReporter(pages).render(report)


@verify.command("override")
@run_id_argument("A rejected run, or one committed with --no-verify.")
@click.option(
    "--reason", required=True, metavar="TEXT", help="Why the verifier is overruled (recorded)."
)
@click.pass_context
def verify_override(ctx: click.Context, run_id: str, reason: str) -> None:
    """Commit a rejected run anyway, or vouch for an unverified one; actor and reason
    are recorded."""
    from wikigate.gitrepo import branch_name

    ws = open_workspace(ctx)
    record = ws.override(run_id, reason)
    sync_ledger(ws)
    click.echo(
        f"committed {run_id} by override of {record.override_actor}: "
        f"{branch_name(ws.env.main)} is at {record.tip_commit[:12]}"
    )


@verify.command("approve")
@run_id_argument("A pending run whose verdict is needs_human_review.")
@click.option("--reason", required=True, metavar="TEXT", help="Why it may land (recorded).")
@click.pass_context
def verify_approve(ctx: click.Context, run_id: str, reason: str) -> None:
    """Commit a run that waits for a person (verdict needs_human_review); recorded with
    your name and reason, verdict commit_approved."""
    ws = open_workspace(ctx)
    result = ws.decide(run_id, reason, approve=True)
    if result.status == "committed":
        sync_ledger(ws)
    click.echo(outcome_text(result))
    ctx.exit(result.exit_code)


@verify.command("reject")
@run_id_argument("A pending run whose verdict is needs_human_review.")
@click.option("--reason", required=True, metavar="TEXT", help="Why it may not land (recorded).")
@click.pass_context
def verify_reject(ctx: click.Context, run_id: str, reason: str) -> None:
    """Reject a run that waits for a person; its tip is kept at refs/wikigate/failed/<id>
    and your name and reason are recorded (verdict reject_reviewed). Exit 1."""
    result = open_workspace(ctx).decide(run_id, reason, approve=False)
    click.echo(outcome_text(result))
    ctx.exit(result.exit_code)


@cli.command()
@click.argument(
    "args",
    nargs=-1,
    metavar="SOURCE QUOTE | --fix [PAGE]...",
    help="The raw source and the exact quote to anchor; with --fix, the pages to fix "
    "(default: every page).",
)
@click.option("--page", type=click.IntRange(min=1), metavar="N", help="PDF page the quote is on.")
@click.option("--fix", is_flag=True, help="Add anchors to the quote-only footnotes of pages.")
@click.option(
    "--run",
    "run_id",
    metavar="RUN",
    help="Read the source from this run's staged files (a source not on the trunk yet); "
    "with --fix: stage the anchors into this open run instead of a new one.",
)
@click.pass_context
def anchor(
    ctx: click.Context, args: tuple[str, ...], page: int | None, fix: bool, run_id: str | None
) -> None:
    """Print a footnote's tail with a correct anchor, or add the missing anchors."""
    from wikigate.anchors import (
        anchor_fix,
        anchor_fix_in_worktree,
        anchor_fix_on_main,
        anchor_tail,
        checkout,
    )

    ws = open_workspace(ctx, reading=True)
    if not fix:
        if len(args) != 2:
            raise UsageError('usage: wikigate anchor SOURCE "QUOTE" [--page N] [--run RUN]')
        run = ws.run(run_id) if run_id else None
        say = partial(click.echo, err=True)
        click.echo(anchor_tail(ws, args[0], args[1], page, run=run, at_head=True, say=say))
        return
    if run_id:  # stage into an open run: whatever it holds, it lands when finalized
        run = ws.run(run_id)
        with progress.bar() as shown:
            fixes = anchor_fix(run, list(args), progress=shown)
        _echo_fixes(fixes)
        anchored = any(f.status == "anchored" for f in fixes)
        click.echo(f"staged in {run_id}; finalize it to land" if anchored else "nothing to anchor")
        return
    head = checkout(ws)
    if head is not None:  # a branch: fix the author's working tree, the trunk stays
        with progress.bar() as shown:
            fixes = anchor_fix_in_worktree(ws, head, list(args), progress=shown)
        _echo_fixes(fixes)
        anchored = any(f.status == "anchored" for f in fixes)
        click.echo(
            f"read {head.label}; rewrote the pages in the working tree: review and commit them"
            if anchored
            else f"read {head.label}; nothing to anchor"
        )
        return
    standing = stand_in(ws)
    if standing is not None:  # fixing the trunk lands a run: on the trunk git config names
        raise UsageError(
            f"{standing.removeprefix('note: ')}; `anchor --fix` on the trunk lands a run, "
            "so name the trunk first (or fix the pages on a branch of your own)"
        )
    with progress.bar() as shown:
        fixes, opened = anchor_fix_on_main(ws, list(args), progress=shown)
    _echo_fixes(fixes)
    if opened is None:  # no run was opened, main did not move
        click.echo("nothing to anchor")
        return
    result = opened.finalize()
    click.echo(outcome_text(result))
    ctx.exit(result.exit_code)


def _echo_fixes(fixes: list[AnchorFix]) -> None:
    for f in fixes:
        click.echo(f"{f.path}:{f.line}: [^{f.label}] {f.status}")
