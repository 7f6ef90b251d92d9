"""``wikigate report merge``: the shards of a whole-wiki verify as one report."""

from __future__ import annotations

from pathlib import Path

import click

from wikigate.kinds import VERDICT_EXIT

from . import progress
from .app import cli
from .base import open_workspace, output_option, report_options
from .verify import emit, emit_text


@cli.group()
def report() -> None:
    """Verification reports (JSON, as `wikigate verify --format json` writes them)."""


@report.command("merge")
@click.argument(
    "files",
    nargs=-1,
    required=True,
    metavar="SHARD.json...",
    help="The JSON reports of `wikigate verify --all --shard K/N`, one for each K of 1..N.",
)
@report_options("merged report")
@click.option(
    "--allowed-signers",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Merge only shard reports signed by a key this ssh-keygen allowed_signers file "
    "lists (signed where `verify --all --shard` runs with git config wikigate.signingKey).",
)
@click.pass_context
def report_merge(
    ctx: click.Context,
    files: tuple[str, ...],
    fmt: str,
    output: str | None,
    allowed_signers: Path | None,
) -> None:
    """Merge the shards of `verify --all --shard K/N` and run the whole-wiki checks (links,
    orphans, the tree) here: one report and verdict, as `verify --all` would give.  Run it
    in a checkout holding the shards' commit.  Exit 0 commit, 1 reject, 3 revise; 2 when
    the shards do not belong together (another commit, rules, verifier or strictness, or a
    shard missing or given twice), when a shard's content does not match its digest, or,
    with --allowed-signers, when a shard is unsigned or signed by another key."""
    from wikigate.changes import merge_reports

    ws = open_workspace(ctx)
    with progress.bar(human_output=fmt == "text" and output is None) as shown:
        merged = merge_reports(ws, list(files), progress=shown, allowed_signers=allowed_signers)
    emit(merged, fmt, output, ws=ws)
    ctx.exit(VERDICT_EXIT[merged.verdict])


@report.command("html")
@click.argument(
    "report_file",
    required=False,
    metavar="[REPORT.json]",
    type=click.Path(dir_okay=False, exists=True),
    help="A JSON report (`verify --format json`, the action's `report` output) to render "
    "with the pages it is about, read from this repository; default: the whole ledger.",
)
@output_option("the page")
@click.pass_context
def report_html(ctx: click.Context, report_file: str | None, output: str | None) -> None:
    """The whole claim ledger (every cited claim on main, each gap marker) as one
    self-contained HTML page: each claim by status (anchored, its quote, the judge's
    vote), filters by status and page.  With REPORT.json: that verification, its pages
    read from this repository (the report alone when its commits are not here).  Also:
    `wikigate verify --format html`, `wikigate runs show RUN --html`."""
    from wikigate import ledger
    from wikigate.ledgerview import ledger_page

    if report_file is not None:  # a saved report: the repository alone (no trunk needed)
        from wikigate.errors import UsageError
        from wikigate.gitrepo import open_repo
        from wikigate.verifier.report import ReportError, load_report

        from .verify import html_of

        try:
            loaded = load_report(Path(report_file).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ReportError) as e:
            raise UsageError(f"{report_file}: {e}") from e
        emit_text(html_of(open_repo(ctx.find_root().obj["repo"]), loaded), output)
        return
    ws = open_workspace(ctx)
    with progress.bar(human_output=output is not None) as shown:
        ledger.sync(ws, progress=shown)
    text = ledger_page(ws, title=f"wikigate · claim ledger of {ws.root.name}")
    emit_text(text, output)
