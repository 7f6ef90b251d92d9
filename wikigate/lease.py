"""A finalizer's lease on a run, and its turn to land.

The lease moves a run pending → verifying until a set time, renewed while the
finalizer works and reclaimed by ``sweep`` once it expires; it is released on
every exit path.  The landing turn (a file lock: ``oslock``) makes finalizers that lost the
race for main wait their turn instead of racing again.
"""

from __future__ import annotations

import os
import random
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

import pygit2

from . import oslock
from .config import lease_seconds
from .errors import RunError
from .runid import now_iso, parse_iso

if TYPE_CHECKING:
    from .run import Run
    from .store import RunRow


def require_pending(run: Run, row: RunRow) -> None:
    if row["status"] == "verifying":
        raise RunError(f"run {run.run_id} is being finalized by process {row['finalizer_pid']}")
    if row["status"] != "pending":
        raise RunError(f"run {run.run_id} is already {row['status']}; nothing to finalize")


@dataclass
class Lease:
    """A finalizer's hold on a run: pending → verifying, until ``lease_until``.

    ``renew`` pushes the lease on (cheaply: at most a write per third of it);
    ``release`` puts a run that is still ``verifying`` by us back to pending,
    whatever ended the finalize (an exception, a dirty working tree, Ctrl-C).
    """

    run: Run
    loop: int
    previous_loop: int
    seconds: float
    renewed: float = 0.0

    @classmethod
    def take(cls, run: Run) -> Lease:
        store = run.env.store
        seconds = lease_seconds(run.env.config)
        with store.immediate():
            row = run.refresh()
            require_pending(run, row)
            previous = int(row["loop_count"])
            loop = previous + 1 if row["verdict"] == "revise" else previous
            store.update_run(
                run.run_id,
                status="verifying",
                finalizer_pid=os.getpid(),
                finalizer_host=socket.gethostname(),
                loop_count=loop,
                lease_until=_lease_end(seconds),
            )
        run.row["loop_count"] = loop
        return cls(run, loop, previous, seconds, time.monotonic())

    def renew(self) -> None:
        if time.monotonic() - self.renewed < self.seconds / 3:
            return
        store = self.run.env.store
        with store.immediate():
            store.db.execute(
                "UPDATE runs SET lease_until = ? WHERE run_id = ? AND status = 'verifying' "
                "AND finalizer_pid = ?",
                [_lease_end(self.seconds), self.run.run_id, os.getpid()],
            )
        self.renewed = time.monotonic()

    def release(self) -> None:
        store = self.run.env.store
        with store.immediate():
            store.db.execute(
                "UPDATE runs SET status = 'pending', finalizer_pid = NULL, finalizer_host = NULL,"
                " lease_until = NULL, loop_count = ? WHERE run_id = ? AND status = 'verifying'"
                " AND finalizer_pid = ? AND finalizer_host = ?",
                [self.previous_loop, self.run.run_id, os.getpid(), socket.gethostname()],
            )


def _lease_end(seconds: float) -> str:
    return (parse_iso(now_iso()) + timedelta(seconds=seconds)).isoformat()


def _turn_path(repo: pygit2.Repository) -> str:
    folder = os.path.join(repo.path, "wikigate")
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, "landing.lock")


def turn_taken(repo: pygit2.Repository) -> bool:
    """Is someone waiting or landing in turn?  Then racing them only wastes a verify."""
    fd = os.open(_turn_path(repo), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        return not oslock.try_lock(fd)
    finally:
        os.close(fd)  # closing drops the probe's lock


@contextmanager
def landing_turn(repo: pygit2.Repository, lease: Lease | None) -> Iterator[None]:
    """Wait for the landing turn (one finalizer at a time rebases, verifies and
    lands), renewing the lease while waiting.  The kernel frees it if we die."""
    fd = os.open(_turn_path(repo), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        while not oslock.try_lock(fd):
            if lease is not None:
                lease.renew()
            time.sleep(0.01 + random.random() * 0.02)
        yield
    finally:
        os.close(fd)
