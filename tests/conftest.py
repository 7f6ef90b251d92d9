from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pygit2
import pytest

from wikigate.workspace import Workspace

TESTS = Path(__file__).parent
sys.path.insert(0, str(TESTS))

from support.github_world import World, make_world  # noqa: E402
from support.markers_verifier import MarkersVerifier  # noqa: E402


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Pin git identity, keep $HOME and system git config out of every test."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    tools = tmp_path_factory.getbasetemp() / "tool-homes"
    monkeypatch.setenv("RUSTUP_HOME", str(tools / "rustup"))
    monkeypatch.setenv("CARGO_HOME", str(tools / "cargo"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    for var, value in {
        "GIT_AUTHOR_NAME": "Test Author",
        "GIT_AUTHOR_EMAIL": "author@example.invalid",
        "GIT_COMMITTER_NAME": "Test Committer",
        "GIT_COMMITTER_EMAIL": "committer@example.invalid",
    }.items():
        monkeypatch.setenv(var, value)
    monkeypatch.delenv("WIKIGATE_VERIFIER", raising=False)
    monkeypatch.delenv("WIKIGATE_TELEMETRY_DB", raising=False)
    monkeypatch.delenv("WIKIGATE_RUN_TIMEOUT_MINUTES", raising=False)
    # pythonpath for subprocesses that load the test verifier plug-in
    # (no empty entry: that would put each subprocess's working directory on sys.path)
    paths = [str(TESTS), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths))
    yield
    leaked = [p.name for p in home.iterdir()] if home.exists() else []
    assert not [p for p in leaked if p not in (".config", ".cache")], (
        f"test wrote to $HOME: {leaked}"
    )


@pytest.fixture
def repo(tmp_path: Path) -> pygit2.Repository:
    """A bare repository for tests of the verifier on git objects (build trees with
    support/trees.py: ``commit_files``).  The CLI's tests use support/fixtures.py's
    ``repo`` (a workspace made by ``wikigate init``) in its place."""
    return pygit2.init_repository(str(tmp_path / "r"), bare=True)


@pytest.fixture
def ws(tmp_path: Path):
    w = Workspace.init(tmp_path / "wiki-repo")
    w.verifier = MarkersVerifier()
    yield w
    w.close()


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    """The GitHub bot's world (tests/support/github_world.py)."""
    yield from make_world(tmp_path)
