"""``wikigate mcp``: the Model Context Protocol server over stdio or streamable HTTP
(wikigate/mcp_server.py, docs/mcp.md), and what a client and its agent need to use it:
the client configuration, the skill and the snippet (wikigate/agent/). The SDK is
imported when the server runs, never at the CLI's start-up."""

from __future__ import annotations

import json
from importlib import resources

import click

from .app import cli

CLIENTS = ("json", "codex")


def agent_file(name: str) -> str:
    """A file of wikigate/agent/: the skill (SKILL.md) or the snippet (AGENTS.md)."""
    return resources.files("wikigate.agent").joinpath(name).read_text(encoding="utf-8")


def codex_config(config: dict[str, object]) -> str:
    """The ``mcpServers`` map as Codex's ``~/.codex/config.toml`` spells it (JSON strings
    are valid TOML basic strings)."""
    entry = config["mcpServers"]["wikigate"]  # type: ignore[index]
    if "url" in entry:  # a server started with --http: the client connects to its URL
        return f"[mcp_servers.wikigate]\nurl = {json.dumps(entry['url'])}\n"
    args = ", ".join(json.dumps(a) for a in entry["args"])
    return f"[mcp_servers.wikigate]\ncommand = {json.dumps(entry['command'])}\nargs = [{args}]\n"


@cli.command("mcp")
@click.option(
    "--print-config",
    is_flag=True,
    help="Print the client configuration that starts this server with this install's "
    "wikigate on this workspace, and exit: an `mcpServers` JSON map (Claude Code, Claude "
    "Desktop, Cursor), or Codex's TOML with --client codex; with --http, the URL of a "
    "server started with that --http.",
)
@click.option(
    "--client",
    type=click.Choice(CLIENTS),
    default="json",
    show_default=True,
    help="The form --print-config prints.",
)
@click.option(
    "--print-skill",
    is_flag=True,
    help="Print the SKILL.md that teaches an agent the writer's loop through this server "
    "(for .claude/skills/wikigate-writer/SKILL.md), and exit.",
)
@click.option(
    "--print-snippet",
    is_flag=True,
    help="Print the same loop as a paragraph for a project's AGENTS.md or CLAUDE.md, and exit.",
)
@click.option(
    "--http",
    "http",
    metavar="HOST:PORT",
    help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio, one session "
    "per client (PORT alone: 127.0.0.1, this machine only).",
)
@click.pass_context
def mcp(
    ctx: click.Context,
    print_config: bool,
    client: str,
    print_skill: bool,
    print_snippet: bool,
    http: str | None,
) -> None:
    """Serve this workspace to an MCP client (Claude Code, Codex, Cursor…) over stdio
    (or streamable HTTP: --http).

    One session works in one workspace (the folder it starts in, or -C). Runs it started
    and left open when the client disconnects are abandoned. Needs
    `pip install 'wikigate[mcp]'`. docs/mcp.md: set-up, the tools, the trace."""
    printed = [
        f
        for f, on in (
            ("--print-config", print_config),
            ("--print-skill", print_skill),
            ("--print-snippet", print_snippet),
        )
        if on
    ]
    if len(printed) > 1:
        raise click.UsageError(f"{' and '.join(printed)}: give one of them at a time")
    if client != "json" and not print_config:
        raise click.UsageError("--client says the form of --print-config: give both")
    if print_skill or print_snippet:
        click.echo(agent_file("SKILL.md" if print_skill else "AGENTS.md"), nl=False)
        return
    repo = ctx.find_root().obj["repo"]
    if print_config:
        from wikigate.mcp_server import client_config, http_address

        config = client_config(repo)
        if http is not None:  # the server runs on its own (`mcp --http`): its URL
            host, port = http_address(http)
            shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host  # noqa: S104
            url = f"http://{shown}:{port}/mcp"
            config = {"mcpServers": {"wikigate": {"type": "http", "url": url}}}
        click.echo(
            codex_config(config) if client == "codex" else json.dumps(config, indent=2),
            nl=client != "codex",
        )
        return
    if http is not None:
        from wikigate.mcp_server import serve_http

        serve_http(repo, http)
        return
    from wikigate.mcp_server import serve

    serve(repo)
