"""The ``wikigate`` group itself; the commands register on it from their modules."""

from __future__ import annotations

import click

from wikigate import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "-C",
    "--repo",
    "repo",
    default=".",
    metavar="PATH",
    help="Run as if started in PATH (the workspace).",
)
@click.version_option(__version__, prog_name="wikigate", help="Print the version and exit.")
@click.pass_context
def cli(ctx: click.Context, repo: str) -> None:
    """Staged runs and a hostile verifier for LLM-written wikis kept in git.

    Exit codes: 0 committed / success, 1 rejected or failed, 2 usage error,
    3 revise, 4 unexpected error (details in .git/wikigate/wikigate.log),
    5 needs_human_review (a person decides: verify approve / verify reject).
    """
    ctx.obj = {"repo": repo}
