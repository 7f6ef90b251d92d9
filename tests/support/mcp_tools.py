"""The library side of the MCP server's tools, called as the tools call it (a ``Session``
on the current directory's workspace), without the MCP SDK: what tests/test_startup_imports.py
runs to see what the tools themselves import (the SDK, loaded once per session, brings
pydantic, ssl and multiprocessing of its own)."""

from __future__ import annotations

from wikigate.mcp_server import Session


def main() -> int:
    session = Session(".")
    assert session.list_paths("wiki/")["total"] >= 1
    assert session.claims("wiki/owls.md", None, None)["total"] >= 1
    assert "raw/birds.txt" in session.anchor("raw/birds.txt", "Owls hunt at night.", None)
    return 0
