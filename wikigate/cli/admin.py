"""Workspace upkeep: ``init``, ``demo``, ``hooks install``, ``sweep``, ``telemetry rebuild``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from wikigate.errors import UsageError
from wikigate.workspace import Workspace

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
def init(path: str) -> None:
    """Create a workspace at PATH, or add what is missing to an existing repo."""
    try:
        ws = Workspace.init(path)
    except OSError as e:
        raise UsageError(f"{path}: cannot create a workspace there ({e.strerror})") from e
    click.echo(f"workspace ready at {ws.root}")
    ws.close()


@cli.group()
def hooks() -> None:
    """Git hooks that gate main (local pre-push/reference-transaction, server pre-receive)."""


@hooks.command("install")
@click.option("--uninstall", is_flag=True, help="Remove wikigate's hooks, restoring chained ones.")
@click.option(
    "--server", metavar="BARE.git", help="Install the pre-receive gate in this bare repo."
)
@click.pass_context
def hooks_install(ctx: click.Context, uninstall: bool, server: str | None) -> None:
    """Install (or remove) wikigate's git hooks; existing hooks are kept and chained."""
    from wikigate.hooks.install import install_local, install_server

    repo = ctx.find_root().obj["repo"]
    done = install_server(server, uninstall) if server else install_local(repo, uninstall)
    verb = "removed" if uninstall else "installed"
    for path in done:
        click.echo(f"{verb} {path}")


@cli.command()
@click.pass_context
def sweep(ctx: click.Context) -> None:
    """Settle runs left by dead finalizers, expired leases or the run timeout."""
    swept = open_workspace(ctx).sweep()
    for run_id in swept:
        click.echo(f"swept {run_id}")


@cli.group()
def telemetry() -> None:
    """The SQLite index of runs."""


@telemetry.command("rebuild")
@click.option(
    "--no-fetch",
    is_flag=True,
    help="Use the local notes only (by default origin's refs/notes/wikigate is fetched "
    "first when origin has it: the GitHub bot's runs live there).",
)
@click.pass_context
def telemetry_rebuild(ctx: click.Context, no_fetch: bool) -> None:
    """Re-fill the database from the git notes and run branches."""
    ws = Workspace.open(ctx.find_root().obj["repo"])
    if not no_fetch:
        said = fetch_origin_notes(ws.root)
        if said:
            click.echo(said, err=True)
    with progress.bar() as shown:
        count = ws.rebuild_telemetry(shown)
    click.echo(f"rebuilt {ws.telemetry_path()} with {count} runs")
    ws.close()


def fetch_origin_notes(path: Path) -> str | None:
    """Fetch origin's ``refs/notes/wikigate`` into the local one when that is a
    fast-forward (a fresh clone has none); says what it did, or why it did not.
    Never fails the rebuild: an unreachable origin or diverged notes leave the local
    notes as they are."""
    import os
    import subprocess

    from wikigate.gitrepo import NOTES_REF

    def git(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", "-C", str(path), *args],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "GIT_TERMINAL_PROMPT": "0"},
        )

    if "origin" not in git("remote").stdout.split():
        return None
    listed = git("ls-remote", "origin", NOTES_REF)
    if listed.returncode != 0:
        why = (listed.stderr.strip().splitlines() or ["no answer"])[-1]
        return f"could not read origin's notes ({why}); rebuilding from the local notes"
    if not listed.stdout.strip():
        return None
    fetched = git("fetch", "--quiet", "--no-tags", "origin", f"{NOTES_REF}:{NOTES_REF}")
    if fetched.returncode == 0:
        return f"fetched origin's {NOTES_REF}"
    if "rejected" not in fetched.stderr and "non-fast-forward" not in fetched.stderr:
        why = (fetched.stderr.strip().splitlines() or ["no answer"])[-1]
        return f"could not fetch origin's notes ({why}); rebuilding from the local notes"
    return (
        f"the local {NOTES_REF} and origin's have diverged; rebuilding from the local notes "
        f"(merge them: `git fetch origin {NOTES_REF}:refs/notes/wikigate-origin && "
        "git notes --ref wikigate merge -s theirs refs/notes/wikigate-origin`)"
    )
