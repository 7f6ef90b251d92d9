"""Frozen pages at the server gate: a push to main that grows a frozen page with uncited
text, or deletes it, is refused (issue 21, item 7). A real bare repository with the
server hooks installed, real `git push`."""

from __future__ import annotations

import pytest
from support.helpers import git, in_process, push
from support.wiki_runs import page_run

from wikigate.workspace import Workspace


def main_of(path) -> str:
    return git(path, "rev-parse", "main").stdout.strip()


@pytest.fixture
def server(tmp_path):
    """A client whose main froze wiki/owls.md, and a bare server with the wikigate gate."""
    ws = Workspace.init(tmp_path / "client")
    assert page_run(ws, "owls").status == "committed"
    toml = ws.root / "wikigate.toml"
    toml.write_text(toml.read_text() + '\n[ledger]\nfrozen = ["wiki/owls.md"]\n')
    git(ws.root, "-c", "core.hooksPath=/dev/null", "commit", "-qam", "freeze the owls page")
    bare = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(ws.root), str(bare))
    git(ws.root, "remote", "add", "origin", str(bare))
    proc = in_process(["-C", str(ws.root), "hooks", "install", "--server", str(bare)])
    assert proc.returncode == 0, proc.stderr
    yield ws, bare
    ws.close()


def commit(root, message: str) -> str:
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-qam", message)
    return main_of(root)


def test_the_server_refuses_a_frozen_page_grown_with_uncited_text(server):
    ws, bare = server
    before = main_of(bare)
    page = ws.root / "wiki" / "owls.md"
    page.write_text(page.read_text() + "\nOwls are the wisest birds, everyone agrees.\n")
    grown = commit(ws.root, "grow the frozen page")
    proc = push(ws.root, "origin", f"{grown}:refs/heads/main")
    assert proc.returncode != 0, proc.stderr
    assert "wiki/owls.md" in proc.stderr and "claim.frozen" in proc.stderr
    assert main_of(bare) == before


def test_the_server_refuses_a_frozen_page_deleted(server):
    ws, bare = server
    before = main_of(bare)
    (ws.root / "wiki" / "owls.md").unlink()
    index = ws.root / "wiki" / "index.md"
    index.write_text(index.read_text().replace("- [[owls]]\n", ""))
    git(ws.root, "add", "-A")
    deleted = commit(ws.root, "delete the frozen page")
    proc = push(ws.root, "origin", f"{deleted}:refs/heads/main")
    assert proc.returncode != 0, proc.stderr
    assert "claim.frozen" in proc.stderr and "deletes the frozen wiki/owls.md" in proc.stderr
    assert main_of(bare) == before
