"""``wikigate mcp``: the Model Context Protocol server over stdio or streamable HTTP
(wikigate/mcp_server.py, docs/mcp.md). The SDK is imported when the command runs, never at the CLI's start-up."""

from __future__ import annotations

import json

import click

from .app import cli


@cli.command("mcp")
@click.option(
    "--print-config",
    is_flag=True,
    help="Print the client configuration (an `mcpServers` JSON map, as Claude Code, "
    "Claude Desktop and Cursor read it) that starts this server with this install's "
    "wikigate on this workspace, and exit.",
)
@click.option(
    "--http",
    "http",
    metavar="HOST:PORT",
    help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio, one session "
    "per client (PORT alone: 127.0.0.1, this machine only).",
)
@click.pass_context
def mcp(ctx: click.Context, print_config: bool, http: str | None) -> None:
    """Serve this workspace to an MCP client (Claude Code, Codex, Cursor…) over stdio
    (or streamable HTTP: --http).

    One session works in one workspace (the folder it starts in, or -C). Runs it started
    and left open when the client disconnects are abandoned. Needs
    `pip install 'wikigate[mcp]'`."""
    repo = ctx.find_root().obj["repo"]
    if print_config:
        from wikigate.mcp_server import client_config

        click.echo(json.dumps(client_config(repo), indent=2))
        return
    if http is not None:
        from wikigate.mcp_server import serve_http

        serve_http(repo, http)
        return
    from wikigate.mcp_server import serve

    serve(repo)
