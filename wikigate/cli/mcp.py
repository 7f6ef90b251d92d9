"""``wikigate mcp``: the Model Context Protocol server over stdio (wikigate/mcp_server.py,
docs/mcp.md). The SDK is imported when the command runs, never at the CLI's start-up."""

from __future__ import annotations

import click

from .app import cli


@cli.command("mcp")
@click.pass_context
def mcp(ctx: click.Context) -> None:
    """Serve this workspace to an MCP client (Claude Code, Codex, Cursor…) over stdio.

    One session works in one workspace (the folder it starts in, or -C). Runs it started
    and left open when the client disconnects are abandoned. Needs
    `pip install 'wikigate[mcp]'`."""
    from wikigate.mcp_server import serve

    serve(ctx.find_root().obj["repo"])
