"""``wikigate github``: the GitHub Action's entry (the library is ``wikigate.bot``)."""

from __future__ import annotations

from pathlib import Path

import click

from .app import cli


@cli.command()
@click.option(
    "--link-report",
    is_flag=True,
    help="Only link the uploaded HTML report (its URL in WIKIGATE_REPORT_URL) from the pull "
    "request's summary comment and the job summary (action.yml's last step).",
)
@click.pass_context
def github(ctx: click.Context, link_report: bool) -> None:
    """Gate a pull request inside GitHub Actions: verify it, review it, then fast-forward
    the base, close it, request changes or ask a person (exit 0 commit, 1 reject, 3 revise,
    5 waiting for a person).  Reads
    GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_REPOSITORY, GITHUB_TOKEN, GITHUB_API_URL
    (docs/github.md)."""
    import os

    from wikigate.extras import require

    require("github", "wikigate github")
    require("pathspec", "wikigate github")
    from wikigate.bot.event import ActionsEnv
    from wikigate.bot.flow import run
    from wikigate.bot.outcome import Out

    env = ActionsEnv.read()
    out = Out(env.token, os.environ.get("ANTHROPIC_API_KEY"))
    if link_report:
        from wikigate.bot.report_link import URL_VARIABLE
        from wikigate.bot.report_link import link_report as link

        ctx.exit(link(env, os.environ.get(URL_VARIABLE), out))
    ctx.exit(run(env, Path(ctx.find_root().obj["repo"]), out))
