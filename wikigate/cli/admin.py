"""Workspace upkeep: ``init``, ``demo``, ``hooks install``, ``sweep``, ``telemetry rebuild``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from wikigate.errors import UsageError
from wikigate.text import plural

from . import progress
from .app import cli
from .base import F, open_workspace


def folder(default: str, help: str) -> Callable[[F], F]:  # noqa: A002
    return click.argument("path", default=default, type=click.Path(file_okay=False), help=help)


@cli.command()
@folder("wikigate-demo", "A new, empty folder for the sample wiki (default: wikigate-demo).")
def demo(path: str) -> None:
    """Build a sample wiki in PATH and run three runs through the gate."""
    from wikigate.demo import run_demo

    run_demo(Path(path), click.echo)


@cli.command()
@folder(".", "Where the workspace goes (default: here).")
@click.option(
    "--main-branch",
    metavar="BRANCH",
    help="The trunk runs land on (default: the configured one, main, else the branch "
    "checked out); recorded in git config wikigate.mainBranch.",
)
@click.option(
    "--wiki-root",
    metavar="FOLDER",
    help="Where the pages are (default: wiki; '.': the repository's root, a vault's); "
    "written as [wiki] root in the new wikigate.toml.",
)
@click.option(
    "--exclude",
    multiple=True,
    metavar="PATH",
    help="A folder (ending in /), file or glob that is not the wiki's, e.g. .obsidian/, "
    "templates/ or '*.canvas' (repeatable; [wiki] exclude).",
)
def init(
    path: str, main_branch: str | None, wiki_root: str | None, exclude: tuple[str, ...]
) -> None:
    """Create a workspace at PATH, or add what is missing to an existing repo."""
    try:
        from wikigate.workspace import Workspace

        ws = Workspace.init(
            path, main_branch=main_branch, wiki_root=wiki_root, exclude=exclude, say=click.echo
        )
    except OSError as e:
        raise UsageError(f"{path}: cannot create a workspace there ({e.strerror})") from e
    click.echo(f"workspace ready at {ws.root}")
    ws.close()


@cli.group()
def hooks() -> None:
    """Git hooks that gate the trunk (main; local pre-push/reference-transaction, server pre-receive)."""


@hooks.command("install")
@click.option("--uninstall", is_flag=True, help="Remove wikigate's hooks, restoring chained ones.")
@click.option(
    "--server", metavar="BARE.git", help="Install the pre-receive gate in this bare repo."
)
@click.option(
    "--main-branch",
    metavar="BRANCH",
    help="The trunk the hooks gate (git config wikigate.mainBranch; default: the one set, "
    "else, on a server, the branch its HEAD names when main is not there, else main).",
)
@click.pass_context
def hooks_install(
    ctx: click.Context, uninstall: bool, server: str | None, main_branch: str | None
) -> None:
    """Install (or remove) wikigate's git hooks; existing hooks are kept and chained."""
    from wikigate.hooks.install import install_local, install_server

    repo = ctx.find_root().obj["repo"]
    done = (
        install_server(server, uninstall, main_branch)
        if server
        else install_local(repo, uninstall, main_branch)
    )
    verb = "removed" if uninstall else "installed"
    for path in done:
        click.echo(path if path.startswith(("warning:", "note:")) else f"{verb} {path}")


@cli.command()
@click.pass_context
def sweep(ctx: click.Context) -> None:
    """Settle runs left by dead finalizers, expired leases or the run timeout: one line
    per run, what was done and why; nothing when nothing was left behind."""
    for swept in open_workspace(ctx).sweep_runs():
        click.echo(f"{swept.run_id}: {swept.said}")


@cli.group()
def telemetry() -> None:
    """The SQLite index of runs."""


@telemetry.command("rebuild")
@click.option(
    "--no-fetch",
    is_flag=True,
    help="Do not fetch refs/notes/wikigate from origin first; use the notes this clone has.",
)
@click.pass_context
def telemetry_rebuild(ctx: click.Context, no_fetch: bool) -> None:
    """Re-fill the database from the git notes and run branches, after fetching origin's
    notes (the runs other clones and the GitHub bot pushed) into a private ref."""
    from wikigate.notes_fetch import fetch_origin_notes, without_fetch

    ws = open_workspace(ctx)
    fetched = without_fetch(ws.repo) if no_fetch else fetch_origin_notes(ws.repo)
    click.echo(fetched.message, err=True)
    with progress.bar() as shown:
        count = ws.rebuild_telemetry(shown)
        from wikigate import ledger

        built = ledger.rebuild(ws, progress=shown)
    claims = ws.store.db["claims"].count
    click.echo(
        f"rebuilt {ws.telemetry_path()} with {plural(count, 'run')} and the ledger of "
        f"{plural(claims, 'claim')} ({plural(built.commits, 'commit')} of "
        f"{ws.env.main.removeprefix('refs/heads/')})"
    )
