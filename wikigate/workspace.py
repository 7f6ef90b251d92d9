"""A workspace: a git repository holding ``raw/``, ``wiki/`` and ``wikigate.toml``."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pygit2

from . import gitrepo, records, worktree
from .config import (
    CONFIG_FILE,
    DEFAULT_TOML,
    Config,
    config_at,
    env_timeout_override,
    load_config,
)
from .errors import GitError, RunError, TelemetryError, UsageError
from .gitrepo import FAILED_PREFIX, MAIN, RUN_PREFIX
from .models import MAX_DIRECTION, RUN_TYPES, Budget, RunRecord
from .runid import new_run_id, now_iso, parse_iso

if TYPE_CHECKING:
    from wikigate.verifier import Verifier

    from .finalize import FinalizeResult
    from .run import Run
    from .store import Store

INDEX_MD = "---\ntitle: Index\n---\n# Index\n\nThe root of this wiki. Link every page from here.\n"
LOG_MD = "---\ntitle: Log\n---\n# Log\n\nAppend-only record of changes to this wiki.\n"
TRIGGER_KINDS = ("mcp", "cli", "daemon", "github")


def check_triggered_by(value: str) -> str:
    kind, sep, name = value.partition(":")
    if not sep or kind not in TRIGGER_KINDS or not name:
        raise UsageError(
            f"--triggered-by {value!r}: expected mcp:<tool>, cli:<cmd>, daemon:<job> or github:<event>"
        )
    return value


class Workspace:
    """The Python API.  ``Workspace.open(path).start_run(...)`` and friends."""

    def __init__(self, repo: pygit2.Repository) -> None:
        self.repo = repo
        self.root = Path(repo.workdir or repo.path).resolve()
        self.git_dir = Path(repo.path).resolve()
        # Rules come from main's committed wikigate.toml, never the working tree's;
        # a bare (server) repository keeps its operator's own file in the git dir.
        self.config: Config = (
            load_config(self.root)
            if repo.is_bare
            else config_at(repo, gitrepo.ref_target(repo, MAIN))
        )
        self.name = self.config.workspace.name or self.root.name.removesuffix(".git")
        self._store: Store | None = None
        self._verifier: Verifier | None = None

    # ------------------------------------------------------------ opening

    @classmethod
    def open(cls, path: str | os.PathLike[str] = ".") -> Workspace:
        repo = gitrepo.open_repo(path)
        if gitrepo.ref_target(repo, MAIN) is None:
            raise GitError(
                f"{repo.workdir or repo.path}: no branch 'main'; wikigate gates main "
                "(run `wikigate init` or `git branch -m main`)"
            )
        return cls(repo)

    @classmethod
    def init(cls, path: str | os.PathLike[str] = ".") -> Workspace:
        """Create a workspace, or add what is missing to an existing repository."""
        root = Path(path)
        root.mkdir(parents=True, exist_ok=True)
        found = pygit2.discover_repository(str(root))
        repo = pygit2.Repository(found) if found else None
        if repo is not None and Path(repo.workdir or "").resolve() != root.resolve():
            repo = None  # a repository further up: make a new one here
        if repo is None:
            repo = pygit2.init_repository(str(root), initial_head="main")
        if repo.is_bare:
            raise GitError(f"{root}: is a bare repository; init needs a working tree")
        if repo.head_is_detached:
            raise GitError(f"{root}: HEAD is detached; check out main first (`git switch main`)")
        has_main = gitrepo.ref_target(repo, MAIN) is not None
        if not has_main and not repo.head_is_unborn:
            raise GitError(
                f"{root}: the current branch is not main; run `git branch -m main` or "
                "`git switch main` first"
            )
        if has_main and not gitrepo.main_checked_out(repo):
            raise GitError(f"{root}: check out main first (`git switch main`)")
        # Files go through git's own porcelain so hooks, attributes and
        # line endings behave as the user's git would.
        wanted = {
            "raw/.gitkeep": "",
            "wiki/index.md": INDEX_MD,
            "wiki/log.md": LOG_MD,
            CONFIG_FILE: DEFAULT_TOML,
        }
        added = []
        for rel, text in wanted.items():
            target = root / rel
            if rel == "raw/.gitkeep" and (root / "raw").is_dir() and any((root / "raw").iterdir()):
                continue
            if target.exists():
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            added.append(rel)
        if added:
            # Committed in memory (no hooks: wikigate's own gate would refuse an
            # unverified commit on main, and this one holds no wiki content).
            parents = [] if repo.head_is_unborn else [repo.head.target]
            tree = gitrepo.commit_at(repo, parents[0]).tree if parents else None
            tree_id = repo.TreeBuilder().write()
            for rel in added:
                blob = repo.create_blob((root / rel).read_bytes())
                tree_id = gitrepo.tree_with(repo, tree, rel, blob)
                tree = gitrepo.tree_at(repo, tree_id)
            sig = gitrepo.signature(repo)
            message = (
                "wikigate: init workspace\n" if not parents else "wikigate: add workspace files\n"
            )
            repo.create_commit("HEAD", sig, sig, message, tree_id, parents)
            index = repo.index  # stage exactly the added files; keep the user's other staging
            index.read()
            for rel in added:
                index.add(rel)
            index.write()
        return cls.open(root)

    # ------------------------------------------------------------ services

    @property
    def store(self) -> Store:
        if self._store is None:
            from .store import Store  # sqlite-utils stays off the hook paths

            path = self.telemetry_path()
            missing = not path.exists()
            self._store = Store(path)
            if missing:
                records.rebuild(self, self._store)
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

        if self._store is not None:
            self._store.close()
            self._store = None
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
        return records.rebuild(self, store, progress)

    @property
    def verifier(self) -> Verifier | None:
        """The verifier this workspace's runs are finalized with, when one is set here
        (the Python API's choice); None: the one the rules name (`wikigate.verify`)."""
        return self._verifier

    @verifier.setter
    def verifier(self, value: Verifier | None) -> None:
        self._verifier = value

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    # ------------------------------------------------------------ runs

    def start_run(
        self,
        run_type: str,
        triggered_by: str,
        budget: Budget | None = None,
        *,
        scope: list[str] | None = None,
        direction: str | None = None,
    ) -> Run:
        """Open a run. ``scope``: the paths (a folder ends in "/") it may change; a change
        outside them is ``run.scope``. None: any path a run may write. ``direction``: what
        the run intends, in the writer's words (the LLM judge checks the change against it)."""
        from .paths import check_scope
        from .run import Run

        if run_type not in RUN_TYPES:
            raise UsageError(f"--type {run_type!r}: expected one of {', '.join(RUN_TYPES)}")
        check_triggered_by(triggered_by)
        declared = tuple(sorted({check_scope(p) for p in scope})) if scope is not None else None
        if declared == ():
            raise UsageError("--scope: name at least one path")
        if direction is not None:
            direction = direction.strip()
            if not direction or len(direction) > MAX_DIRECTION:
                raise UsageError(
                    f"--direction: {len(direction)} characters; say what the run intends in "
                    f"1 to {MAX_DIRECTION} characters"
                )
        self.sweep()
        base = gitrepo.ref_target(self.repo, MAIN)
        assert base is not None  # open() checked
        run_id = new_run_id()
        branch = RUN_PREFIX + run_id
        if "refs/heads/wikigate" in self.repo.references:
            raise GitError(
                "a branch named 'wikigate' exists and blocks the run branches "
                "'wikigate/runs/...'; rename it (`git branch -m wikigate OTHER`)"
            )
        if branch in self.repo.references:
            raise GitError(f"branch {branch} already exists; run ids must be unique")
        return Run.create(
            self, run_id, run_type, triggered_by, base, budget or Budget(), declared, direction
        )

    def run(self, run_id: str) -> Run:
        from .run import Run

        row = self.store.get(run_id)
        if row is None:
            raise RunError(f"unknown run {run_id!r} (see `wikigate runs list`)")
        return Run(self, run_id, row)

    def runs(self, status: str | None = None) -> list[dict[str, Any]]:
        return self.store.runs(status)

    # ------------------------------------------------------------ sweep

    def sweep(self) -> list[str]:
        """Settle runs left behind, from git's facts; return the runs it changed.

        - a half-done landing of a dead finalizer is finished (worktree.recover);
        - a ``verifying`` run whose finalizer died (same host) or whose lease
          expired is settled: committed if main holds it, rejected or
          abandoned if its note says so, else back to pending;
        - a run older than the run timeout is abandoned;
        - a rejected run whose override died is settled as committed if main holds it
          (the override moved main before it died), else left rejected.
        Only open runs are looked at, and not a pull request's (``github:`` runs, from
        the notes the GitHub bot pushed): those are settled by the bot.
        """
        worktree.recover(self.repo)
        timeout = env_timeout_override(self.config) * 60
        now = parse_iso(now_iso())
        host = socket.gethostname()
        swept = []
        for row in self.store.open_runs():
            if row["triggered_by"].startswith("github:"):
                continue  # a pull request's run: the bot on GitHub settles it, not this clone
            old = (now - parse_iso(row["started_at"])).total_seconds() >= timeout
            why = f"older than the run timeout ({timeout / 60:g} min)"
            if row["status"] == "verifying":
                lease = row.get("lease_until")
                if row["finalizer_host"] == host and not pid_alive(row["finalizer_pid"]):
                    why = f"finalizer process {row['finalizer_pid']} died"
                elif lease and parse_iso(lease) < now:
                    why = f"the finalizer's lease expired at {lease}"
                elif lease or not old:
                    continue  # a live finalizer owns it
            elif not old:
                continue
            if records.reconcile(self, row, why, abandon=old):
                swept.append(row["run_id"])
        for row in self.store.overriding():  # an override that died (after main moved?)
            if row["finalizer_host"] == host and pid_alive(row["finalizer_pid"]):
                continue
            if records.landed_tip(self.repo, row["run_id"], row["started_at"]) is not None:
                records.reconcile(self, row, "main holds it", abandon=False)
            else:
                with self.store.immediate():
                    self.store.update_run(row["run_id"], finalizer_pid=None, finalizer_host=None)
            swept.append(row["run_id"])
        return swept

    # ------------------------------------------------------------ override

    def override(self, run_id: str, reason: str, source: str = "cli") -> RunRecord:
        from .finalize import override

        if not reason.strip():
            raise UsageError("--reason must say why the verifier is overruled")
        self.sweep()
        return override(self.run(run_id), reason, source)

    def decide(
        self, run_id: str, reason: str, *, approve: bool, source: str = "cli"
    ) -> FinalizeResult:
        """A person's verdict on a run that waits for one (``wikigate verify approve`` /
        ``verify reject``): approve commits it, reject closes it; actor and reason recorded."""
        from .finalize import decide

        if not reason.strip():
            raise UsageError("--reason must say why (it is recorded with your name)")
        self.sweep()
        return decide(self.run(run_id), reason, approve=approve, source=source)

    def failed_ref(self, run_id: str) -> str:
        return FAILED_PREFIX + run_id


def pid_alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (killed child not yet reaped) is dead for our purposes.
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True
