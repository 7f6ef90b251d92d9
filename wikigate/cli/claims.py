"""``wikigate claims``: the claim ledger, every cited claim on main (docs/ledger.md)."""

from __future__ import annotations

import csv
import io
import json
import sys
from typing import Any

import click

from wikigate.kinds import CLAIM_FILTERS
from wikigate.text import plural

from . import progress
from .app import cli
from .base import format_option, open_workspace


@cli.command("claims")
@click.option("--page", metavar="PATH", help="Only claims on this page, or under this folder/.")
@click.option(
    "--source", metavar="PATH", help="Only claims citing this source, or one under this folder/."
)
@click.option(
    "--status",
    type=click.Choice(CLAIM_FILTERS),
    help="Only claims with this anchor status, or this last vote of the LLM judge.",
)
@click.option(
    "--state",
    type=click.Choice(("fresh", "stale", "contested", "unverified", "disputed")),
    help="Only claims in this state (stale: a cited source changed and the quote no longer "
    "verifies; contested: one side of an open contradiction; disputed: kept as history in "
    "a `::: disputed` block).",
)
@click.option(
    "--states",
    "with_states",
    is_flag=True,
    help="Add each claim's state (measured as `wikigate health` measures it; --state implies it).",
)
@click.option("--gaps", is_flag=True, help="List the [gap: …] markers instead of the claims.")
@format_option(("text", "json", "csv"))
@click.pass_context
def claims(
    ctx: click.Context,
    page: str | None,
    source: str | None,
    status: str | None,
    state: str | None,
    with_states: bool,
    gaps: bool,
    fmt: str,
) -> None:
    """Every cited claim on the trunk (main): id, sentence, source, quote and its hash and offset, anchor
    status, the commits that introduced and last changed it, the judge's last vote; with
    --states its state (fresh, stale, contested, unverified, disputed; docs/health.md).

    The ledger is brought up to main's tip first (only the pages each new commit
    changed are read)."""
    from wikigate import ledger

    ws = open_workspace(ctx)
    with progress.bar() as shown:
        synced = ledger.sync(ws, progress=shown)
    if synced.commits:
        how = "rebuilt" if synced.rebuilt else "updated"
        click.echo(
            f"ledger {how} to {synced.commit[:12] if synced.commit else '-'}: "
            f"{plural(synced.commits, 'commit')}, {plural(synced.pages, 'page')} read",
            err=True,
        )
    if gaps:
        rows = ledger.gaps(ws, page)
        _emit(
            rows,
            ("page", "line", "reason"),
            fmt,
            lambda r: f"{r['page']}:{r['line']}: [gap: {r['reason']}]",
        )
        return
    rows = ledger.claims(ws, page=page, source=source, status=status)
    if not with_states and state is None:
        _emit(rows, ledger.COLUMNS, fmt, _line)
        return
    states = ledger.states(ws)
    for r in rows:
        r["state"] = states.get(r["claim_id"], "unverified")
    if state is not None:
        rows = [r for r in rows if r["state"] == state]
    _emit(rows, (*ledger.COLUMNS, "state"), fmt, _line)


def _line(r: dict[str, Any]) -> str:
    vote = f" judge:{r['judge_vote']}" if r["judge_vote"] else ""
    where = r["source"] + (f", p.{r['source_page']}" if r["source_page"] else "")
    return (
        f"{r['claim_id']}  {r['anchor_status']}{vote}  {where}  "
        f"{r['claim'][:100]!r}  (since {r['introduced_commit'][:8]}, "
        f"changed {r['changed_commit'][:8]})" + (f"  {r['state']}" if "state" in r else "")
    )


def _emit(rows: list[dict[str, Any]], columns: tuple[str, ...], fmt: str, line: Any) -> None:
    out = sys.stdout
    if fmt == "json":
        click.echo(json.dumps([{c: r[c] for c in columns} for r in rows], indent=2))
    elif fmt == "csv":
        buffer = io.StringIO()  # one write to stdout, not one per row
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([r[c] for c in columns] for r in rows)
        out.write(buffer.getvalue())
        out.flush()
    else:
        out.writelines(f"{line(r)}\n" for r in rows)
        out.flush()
        click.echo(plural(len(rows), "gap" if columns[0] == "page" else "claim"), err=True)
