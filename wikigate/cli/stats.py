"""``wikigate stats``: the wiki's health over time (wikigate/stats.py)."""

from __future__ import annotations

import click

from .app import cli
from .base import format_option, open_workspace, output_option


@cli.command()
@click.option(
    "--by",
    type=click.Choice(("day", "week", "month")),
    default="week",
    show_default=True,
    help="The period each row counts.",
)
@format_option(
    ("text", "csv", "json"), "A table for people, or csv / json for a spreadsheet or a script."
)
@click.option(
    "--html",
    is_flag=True,
    help="One self-contained HTML page with charts (inline SVG, nothing fetched) instead.",
)
@output_option("it")
@click.pass_context
def stats(ctx: click.Context, by: str, fmt: str, html: bool, output: str | None) -> None:
    """Runs by verdict, overrides (and who), unverified runs, loops per run, citation
    fidelity (claims anchored, judged supported, flagged, gap markers), the writer's and
    the verifier's spend, per day, week or month; and overrides against the fidelity of
    the period after (docs/telemetry.md)."""
    from wikigate import stats as health

    from .verify import emit_text

    ws = open_workspace(ctx)
    figures = health.stats(ws, by)
    if html:
        text = health.as_html(figures, title=f"wikigate stats · {ws.root.name}")
    elif fmt == "csv":
        text = health.as_csv(figures)
    elif fmt == "json":
        text = health.as_json(figures)
    else:
        text = health.as_text(figures)
    emit_text(text, output)
