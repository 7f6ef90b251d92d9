"""What the engine works in: a repository, its rules and its telemetry store.

The engine's modules (run, lease, finalize, publish, reconcile, ...) take an ``Env``, not
the Python API's ``Workspace``: they read git, the rules of main and the database, and
nothing else of it.  ``Workspace`` builds one and holds it (``Workspace.env``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pygit2

from . import gitrepo
from .config import Config, config_at, load_config
from .errors import TelemetryError
from .gitrepo import FAILED_PREFIX

if TYPE_CHECKING:
    from .store import Store


class Env:
    """A repository (pygit2), its rules (``config``) and its telemetry ``store``."""

    def __init__(self, repo: pygit2.Repository, main: str | None = None) -> None:
        self.repo = repo
        self.root = Path(repo.workdir or repo.path).resolve()
        self.git_dir = Path(repo.path).resolve()
        # the trunk runs start from and land on: the repository's own setting (git config
        # wikigate.mainBranch, else main), read once here and threaded through the engine;
        # ``main``: a caller's own (the GitHub bot's: the base branch as fetched)
        self.main: str = main or gitrepo.main_ref(repo)
        # Rules come from main's committed wikigate.toml, never the working tree's;
        # a bare (server) repository keeps its operator's own file in the git dir.
        self.config: Config = (
            load_config(self.root)
            if repo.is_bare
            else config_at(repo, gitrepo.ref_target(repo, self.main))
        )
        self.name = self.config.workspace.name or self.root.name.removesuffix(".git")
        self._store: Store | None = None

    @property
    def store(self) -> Store:
        """The telemetry database, opened on first use (filled from git when missing)."""
        if self._store is None:
            from .store import Store  # sqlite-utils stays off the hook paths

            path = self.telemetry_path()
            missing = not path.exists()
            self._store = Store(path)
            if missing:
                from .rebuild import rebuild  # the records' readers: only to fill it

                rebuild(self.repo, self.name, self._store)
        return self._store

    def telemetry_path(self) -> Path:
        env = os.environ.get("WIKIGATE_TELEMETRY_DB")
        configured = env or self.config.telemetry.path
        if configured:
            p = Path(configured)
            return p if p.is_absolute() else self.root / p
        return self.git_dir / "wikigate" / "telemetry.db"

    def rebuild_telemetry(self, progress: Callable[[str, int, int], None] | None = None) -> int:
        """Re-fill the database from git notes and run branches; return runs indexed.

        In place, in one transaction: processes that have it open keep working.
        Only a database that cannot be opened is moved aside (``*.corrupt-PID``).
        """
        from .store import Store

        self.close()
        path = self.telemetry_path()
        try:
            store = Store(path)
        except TelemetryError:
            moved = path.with_name(f"{path.name}.corrupt-{os.getpid()}")
            for suffix in ("", "-wal", "-shm"):
                side = Path(f"{path}{suffix}")
                if side.exists():
                    side.rename(Path(f"{moved}{suffix}"))
            store = Store(path)
        self._store = store
        from .rebuild import rebuild

        return rebuild(self.repo, self.name, store, progress)

    def failed_ref(self, run_id: str) -> str:
        """Where a rejected or abandoned run's tip is kept."""
        return FAILED_PREFIX + run_id

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
