"""``wikigate health``: the wiki's figures a CI job can hold (docs/health.md)."""

from __future__ import annotations

import json

import click

from wikigate.text import shown

from .app import cli
from .base import format_option, open_workspace

EXIT_UNDER = 1  # a figure under its --fail-under floor, or over its --fail-over ceiling
EXIT_REGRESSED = 3  # --fail-on-regression: a figure worse than at --baseline


@cli.command("health")
@click.option("--at", "ref", metavar="REF", help="Measure this commit (default: the trunk's tip).")
@click.option("--baseline", metavar="REF", help="Show each figure's change since this commit.")
@click.option(
    "--fail-under",
    metavar="NAME=VALUE,...",
    multiple=True,
    help="Exit 1 when a ratio is under its floor: coverage, anchored, supported (0 to 1), "
    "e.g. coverage=0.9,anchored=0.95 (may be repeated; each figure given once).",
)
@click.option(
    "--fail-over",
    metavar="NAME=N,...",
    multiple=True,
    help="Exit 1 when a count is over its ceiling: contradictions, possible_contradictions, "
    "stale, orphans (whole numbers), e.g. contradictions=0,stale=0 (may be repeated).",
)
@click.option(
    "--fail-on-regression",
    is_flag=True,
    help="Exit 3 when a figure is worse than at --baseline (a ratio lower; contradictions, "
    "possible contradictions, stale claims or orphans more).",
)
@click.option("--pages", "per_page", is_flag=True, help="List each page's figures too (text).")
@format_option(help="Output format (json: docs/health.schema.json).")
@click.pass_context
def health(
    ctx: click.Context,
    ref: str | None,
    baseline: str | None,
    fail_under: tuple[str, ...],
    fail_over: tuple[str, ...],
    fail_on_regression: bool,
    per_page: bool,
    fmt: str,
) -> None:
    """The wiki's health: statements cited or gap-marked (coverage), claims anchored, claims
    the LLM judge found supported (where it voted), open contradictions (and possible ones,
    apart), stale claims and orphan pages; per page with --pages or --format json. Exit 0; 1 when a --fail-under
    floor is missed or a --fail-over ceiling passed; 3 when --fail-on-regression and a figure got worse since --baseline
    (1 when both); 2 on a usage error."""
    from wikigate import health as health_module
    from wikigate import ledger
    from wikigate.errors import UsageError

    # repeated, the options are one list (review 37b: the last silently won)
    floors = health_module.parse_floors(*fail_under)
    ceilings = health_module.parse_ceilings(*fail_over)
    if fail_on_regression and baseline is None:
        raise UsageError("--fail-on-regression compares with --baseline REF: give one")
    ws = open_workspace(ctx)
    now = ledger.health(ws, ref)
    before = ledger.health(ws, baseline) if baseline is not None else None
    under = health_module.below(now, floors)
    over = health_module.above(now, ceilings)
    worse = health_module.regressions(now, before) if before is not None else []
    if fmt == "json":
        data = now.to_json(before)
        data["failures"] = {
            "under": under,
            "over": over,
            "regressed": worse if fail_on_regression else [],
        }
        click.echo(json.dumps(data, indent=2))
    else:
        _text(now, before, per_page)
        for line in under:
            click.echo(f"under its floor: {line}", err=True)
        for line in over:
            click.echo(f"over its ceiling: {line}", err=True)
        if fail_on_regression:
            for name in worse:
                click.echo(f"worse than at {baseline}: {name}", err=True)
    if under or over:
        ctx.exit(EXIT_UNDER)
    if fail_on_regression and worse:
        ctx.exit(EXIT_REGRESSED)


def _text(now: object, before: object, per_page: bool) -> None:
    from wikigate.health import Health, deltas

    assert isinstance(now, Health)
    figures = now.figures()
    change = deltas(now, before) if isinstance(before, Health) else {}
    click.echo(f"health of {now.commit[:12]}")
    for name, value in figures.items():
        shown_value = (
            "-" if value is None else (f"{value:.1%}" if isinstance(value, float) else value)
        )
        delta = change.get(name)
        since = "" if delta is None or not change else f"  ({_change(delta, value)})"
        click.echo(f"  {name:<23} {shown_value}{since}")
    if per_page:
        for p in now.pages:
            click.echo(
                f"{shown(p.page)}  {p.state}  statements {p.accounted}/{p.statements} "
                f"({p.gaps} gap-marked), "
                f"anchored {p.anchored}/{p.claims}, stale {p.stale}, "
                f"contradictions {p.contradictions}, "
                f"possible contradictions {p.possible_contradictions}"
                f"{', orphan' if p.orphan else ''}"
            )


def _change(delta: float | int, value: object) -> str:
    """A figure's change as its value reads: a ratio's in percentage points ("-5.9 pts"
    beside "94.1%": trial 40 read "-0.0588" as 0.06 points), a count's as a number."""
    if isinstance(value, float):
        return f"{delta * 100:+.1f} pts"
    return f"{delta:+}"
