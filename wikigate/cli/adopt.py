"""``wikigate adopt``: the citation dialects a wiki writes, and their rewrite into the
canonical form (dry run by default; ``--write`` applies it as a run through the gate)."""

from __future__ import annotations

import click

from . import progress
from .app import cli
from .base import open_workspace, outcome_text

RULES = '[verifier.severity]\n"citation.unquoted" = "minor"'


@cli.command()
@click.option(
    "--write",
    is_flag=True,
    help="Apply the rewrites as a run and finalize it: the gate verifies them.",
)
@click.pass_context
def adopt(ctx: click.Context, write: bool) -> None:
    """Report the citation forms the wiki on the trunk (main) writes (counts, examples) and what can
    be rewritten into the canonical form; with --write, rewrite it through a run."""
    from wikigate.adopt import FORMS, adopt_on_main

    ws = open_workspace(ctx)
    with progress.bar() as shown:
        plan, run = adopt_on_main(ws, write, progress=shown)
    sources_lines = plan.forms["sources line"].count
    also = f" and {sources_lines} Sources lines or fields" if sources_lines else ""
    click.echo(f"{plan.definitions} footnote definitions{also} on {plan.pages_read} pages:")
    for key, what in FORMS.items():
        form = plan.forms[key]
        if form.count:
            click.echo(f"  {form.count:6}  {what}")
            for example in form.examples:
                click.echo(f"            {example}")
    verb = "rewritten" if write else "to rewrite (--write applies them)"
    click.echo(f"{plan.rewrites_total} definitions {verb}:")
    for r in plan.rewrites:
        click.echo(f"  {r.path}:{r.line}: [^{r.label}] {r.why}: {r.tail}")
    if plan.person_total:
        click.echo(
            f"{plan.person_total} references need a person (a passage shares the claim's "
            "words but may not support it; left unquoted):"
        )
        for why in plan.person:
            click.echo(f"  {why}")
    if plan.left_total:
        click.echo(f"{plan.left_total} references left unquoted (citation.unquoted):")
        for why in plan.left:
            click.echo(f"  {why}")
    if plan.left_total or plan.person_total:
        click.echo(
            f"to let them through as warnings while you quote them, set in wikigate.toml:\n{RULES}"
        )
    if run is None:
        return
    result = run.finalize()
    click.echo(outcome_text(result))
    ctx.exit(result.exit_code)
