"""Fixtures some test files share, imported by name where they are used (conftest.py holds
the ones every file may use)."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.helpers import wikigate


@pytest.fixture(name="repo")
def initialised_repo(tmp_path: Path) -> Path:
    """``repo`` in the CLI's tests: the root of a workspace made by ``wikigate init``.
    A module imports it (``from support.fixtures import initialised_repo``) to use it in
    place of conftest's bare repository."""
    root = tmp_path / "w"
    assert wikigate(tmp_path, "init", str(root)).returncode == 0
    return root
