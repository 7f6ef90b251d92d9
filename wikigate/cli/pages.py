"""``wikigate pages``: each page of the wiki on main and its state (docs/health.md)."""

from __future__ import annotations

import json
from dataclasses import asdict

import click

from wikigate.text import plural, shown

from .app import cli
from .base import format_option, open_workspace

STATES = ("fresh", "stale", "contested", "unverified")


@cli.command("pages")
@click.option("--state", type=click.Choice(STATES), help="Only pages in this state.")
@format_option()
@click.pass_context
def pages(ctx: click.Context, state: str | None, fmt: str) -> None:
    """Every page on the trunk (main) with its state: stale (a claim's source changed and its quote no
    longer verifies), contested (a claim is one side of an open contradiction), unverified
    (a claim's quote is not at its anchor, or the judge did not find it supported), or
    fresh; and its claims, stale claims and open contradictions."""
    from wikigate import ledger

    ws = open_workspace(ctx)
    found = ledger.health(ws)
    rows = [p for p in found.pages if state is None or p.state == state]
    if fmt == "json":
        click.echo(json.dumps([asdict(p) for p in rows], indent=2))
        return
    for p in rows:
        orphan = "  orphan" if p.orphan else ""
        click.echo(
            f"{shown(p.page)}  {p.state}  {plural(p.claims, 'claim')}, {p.stale} stale, "
            f"{plural(p.contradictions, 'open contradiction')}{orphan}"
        )
    click.echo(plural(len(rows), "page"), err=True)
