"""Cold work spread over the machine's cores.

The first verify of a fresh clone parses every page and reads every cited
source. Both are pure functions of git blobs, so worker processes open the
repository themselves, each does a share of the work and sends back small
results. Callers keep small jobs in-process: starting a worker costs ~0.2 s.

``WIKIGATE_WORKERS`` sets the number of workers (default: the usable cores;
0 or 1 keeps all work in-process).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from functools import partial
from typing import TYPE_CHECKING, TypeVar

import pygit2

from wikigate.gitrepo import repository

if TYPE_CHECKING:  # multiprocessing is imported when a pool starts: not on a hook's start-up
    import multiprocessing.context
    from concurrent.futures import ProcessPoolExecutor

T = TypeVar("T")
R = TypeVar("R")

# ``progress(label, done, total)``: how far a long job is (a terminal shows a bar)
Progress = Callable[[str, int, int], None]
LABELS = {  # the jobs worth a progress bar, by the task function's name
    "parse_entries": "parsing pages",
    "_locate_task": "reading sources",
    "_mentions_task": "scanning pages",
    "_conflicts_task": "judging claims (offline)",
}


def worker_count() -> int:
    value = os.environ.get("WIKIGATE_WORKERS", "").strip()
    if value.isdigit():
        return int(value)
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


class Workers:
    """A process pool for one verification, started on first use."""

    def __init__(
        self, repo: pygit2.Repository, count: int | None = None, progress: Progress | None = None
    ) -> None:
        self.repo = repo
        self.count = worker_count() if count is None else count
        self.progress = progress
        self._pool: ProcessPoolExecutor | None = None

    @property
    def enabled(self) -> bool:
        return self.count > 1

    def map(
        self, fn: Callable[[pygit2.Repository, T], R], tasks: list[T], *, parallel: bool = True
    ) -> Iterator[R]:
        """``fn(repo, task)`` for each task, in order, as the workers finish them;
        in this process when ``parallel`` is false (a job too small to pay for
        starting workers) or there are no workers.

        ``fn`` must be a module-level function, so that workers can import it. If
        the pool breaks (a worker was killed), the rest is done in this process.
        """
        label = LABELS.get(getattr(fn, "__name__", ""))
        if self.progress is None or label is None or len(tasks) < 2:
            yield from self._map(fn, tasks, parallel)
            return
        for done, result in enumerate(self._map(fn, tasks, parallel), 1):
            self.progress(label, done, len(tasks))
            yield result

    def _map(
        self, fn: Callable[[pygit2.Repository, T], R], tasks: list[T], parallel: bool
    ) -> Iterator[R]:
        if not parallel:
            yield from (fn(self.repo, task) for task in tasks)
            return
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool

        if self._pool is None and self.enabled:
            self._pool = ProcessPoolExecutor(self.count, mp_context=_context())
        done = 0
        if self._pool is not None:
            try:
                for result in self._pool.map(partial(_in_worker, fn, self.repo.path), tasks):
                    yield result
                    done += 1
            except (BrokenProcessPool, OSError):
                self.close()
                self.count = 0
        for task in tasks[done:]:
            yield fn(self.repo, task)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None

    def kill(self) -> None:
        """Stop the workers now, whatever they are doing (the verification's budget ran
        out); ``close`` then has nothing left to wait for."""
        if self._pool is None:
            return
        for process in list(getattr(self._pool, "_processes", {}).values()):
            process.kill()
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = None


def _context() -> multiprocessing.context.BaseContext:
    """fork when this process has one thread (no lock can be held across the fork,
    and the caller's script is not re-imported); else spawn, which needs the
    caller's ``if __name__ == "__main__":`` guard like all of multiprocessing."""
    import multiprocessing

    if threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


_REPOS: dict[str, pygit2.Repository] = {}  # a worker's own handles, never the parent's


def _in_worker(fn: Callable[[pygit2.Repository, T], R], repo_path: str, task: T) -> R:
    if repo_path not in _REPOS:
        _REPOS[repo_path] = repository(repo_path)  # a push's quarantine too, like the parent
    return fn(_REPOS[repo_path], task)
