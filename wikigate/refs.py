"""Ref updates: compare-and-swap transactions through ``git update-ref --stdin``.

Why git's own transaction and not libgit2's:

- **No lock wikigate would have to delete.**  The transaction lives in a child
  ``git`` process.  If wikigate is killed before it sent ``commit``, git reads
  end-of-file and aborts, removing its ``.lock`` files itself; once ``commit``
  is in the pipe, git finishes it.  Either way the refs are all old or all new,
  and no lock is left behind.  A git that finishes after wikigate died still
  holds wikigate's process lock (it inherits the lock's descriptor), so whoever
  takes the lock next reads the refs as that git left them: a dead finalizer's
  landing is never settled from a main that is about to move.  libgit2's transaction holds its ``.lock`` files
  in our own process, so a SIGKILL leaves them, and nothing can prove later
  that such a file is not held by a live ``git``.
- **The same gate for everyone.**  git runs the ``reference-transaction`` hook
  for these updates, so the local hook judges wikigate's own moves of main as
  it judges ``git merge`` and ``git update-ref``.
- **Compare-and-swap.**  Every update names the value it expects; git checks
  them all under its locks, or changes nothing.

wikigate's own read-check-write sequences are serialized with :func:`process_lock`
(``oslock``: ``flock``, or ``msvcrt`` on Windows; the OS drops it when its holder dies).
"""

from __future__ import annotations

import os
import random
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import pygit2

from . import oslock
from .errors import GitError
from .gitrepo import ref_target

T = TypeVar("T")
ZERO = "0" * 40
LOCK_WAIT_SECONDS = 30.0

_held: dict[tuple[str, int], int] = {}  # (lock file, thread) → depth: the lock is re-entrant
_fds: dict[tuple[str, int], int] = {}  # (lock file, thread) → the descriptor holding it


class RefMoved(GitError):
    """A ref was not at the value the transaction expected (someone else moved it)."""

    def __init__(self, ref: str, detail: str) -> None:
        super().__init__(f"{ref} moved: {detail}")
        self.ref = ref


@contextmanager
def process_lock(repo: pygit2.Repository, name: str = "refs.lock") -> Iterator[None]:
    """Serialize wikigate's ref and working-tree updates across processes.

    Re-entrant within a thread.  A journal or lock file of wikigate's that the
    holder of this lock finds was left by a dead process: nobody else writes
    them without holding it.  The ``git`` that applies a ref transaction holds
    the lock with its holder (:func:`inherited_locks`), so the lock is free only
    once no process acting under it can still move a ref.
    """
    key = (os.path.join(repo.path, name), threading.get_ident())
    if _held.get(key):
        _held[key] += 1
        try:
            yield
        finally:
            _held[key] -= 1
        return
    folder = os.path.join(repo.path, "wikigate")
    os.makedirs(folder, exist_ok=True)
    fd = os.open(os.path.join(folder, name), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        oslock.lock(fd)
        _held[key] = 1
        _fds[key] = fd
        try:
            yield
        finally:
            del _held[key], _fds[key]
    finally:
        os.close(fd)


def inherited_locks(repo: pygit2.Repository) -> tuple[int, ...]:
    """The descriptors of the process locks this thread holds on ``repo``, for a child
    git to inherit: ``flock`` belongs to the open file, so the lock stays held while
    the child lives, also when this process is killed meanwhile.  None on Windows
    (``msvcrt`` locks are not inherited; ``pass_fds`` is POSIX only)."""
    if os.name == "nt":
        return ()
    here = os.path.dirname(os.path.join(repo.path, "refs.lock"))  # as process_lock's keys
    me = threading.get_ident()
    return tuple(
        fd for (path, tid), fd in _fds.items() if tid == me and os.path.dirname(path) == here
    )


class RefTransaction:
    """Updates queued by a ``with_ref_lock`` body, each expecting the ref's value
    at the moment it was queued; applied together, or not at all."""

    def __init__(self, repo: pygit2.Repository) -> None:
        self.repo = repo
        self.lines: list[str] = []
        self.refs: list[str] = []
        self.message: str | None = None

    def _current(self, ref: str) -> str:
        oid = ref_target(self.repo, ref)
        return str(oid) if oid is not None else ZERO

    def set_target(self, ref: str, target: pygit2.Oid | str, message: str | None = None) -> None:
        self.message = self.message or message  # git takes one reflog message per transaction
        self.lines.append(f"update {ref} {target} {self._current(ref)}")
        self.refs.append(ref)

    def expect(self, ref: str, target: pygit2.Oid | str | None) -> None:
        """Fail the whole transaction unless ``ref`` is at ``target`` (None: absent)."""
        self.lines.append(f"verify {ref} {target if target is not None else ZERO}")
        self.refs.append(ref)

    def remove(self, ref: str, expected: pygit2.Oid | None = None) -> None:
        """Delete ``ref`` if it exists (it must still be at ``expected`` when given)."""
        old = str(expected) if expected is not None else self._current(ref)
        if old != ZERO:
            self.lines.append(f"delete {ref} {old}")
            self.refs.append(ref)

    def commit(self, message: str) -> None:
        if not self.lines:
            return
        script = "start\n" + "\n".join(self.lines) + "\nprepare\ncommit\n"
        env = {**os.environ, "GIT_DIR": self.repo.path}
        cwd = self.repo.workdir or self.repo.path
        proc = run_git_waiting(
            ["git", "update-ref", "--stdin", "-m", message],
            input=script,
            env=env,
            cwd=cwd,
            pass_fds=inherited_locks(self.repo),
        )
        if proc.returncode != 0:
            raise _error(self.refs, proc.stderr.strip())


def run_git_waiting(
    args: list[str],
    *,
    input: str,  # noqa: A002
    env: dict[str, str],
    cwd: str | None = None,
    pass_fds: tuple[int, ...] = (),
) -> subprocess.CompletedProcess[str]:
    """Run a git command that writes refs; while it fails because a lock file exists,
    run it again (backing off) for up to LOCK_WAIT_SECONDS.  The last run's result.
    ``pass_fds``: descriptors git inherits (the process locks it acts under)."""
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    delay = 0.005
    while True:
        proc = subprocess.run(
            args,
            input=input,
            capture_output=True,
            text=True,
            env=env,
            cwd=cwd,
            check=False,
            pass_fds=pass_fds,
        )
        if proc.returncode == 0 or "File exists" not in proc.stderr:
            return proc
        if time.monotonic() >= deadline:
            return proc  # a killed git may have left the lock: git's message says so
        # a live git holds one of the locks; wait our turn
        time.sleep(delay * (1 + random.random()))
        delay = min(delay * 2, 0.2)


def _error(refs: list[str], error: str) -> GitError:
    lines = [ln.removeprefix("fatal: ").removeprefix("error: ") for ln in error.splitlines()]
    for line in lines:
        for ref in refs:
            if f"'{ref}'" not in line:
                continue
            if "is at" in line or "but expected" in line or "already exists" in line:
                return RefMoved(ref, line)
            if "unable to resolve reference" in line or "reference is missing" in line:
                return RefMoved(ref, line)
    if "reference-transaction hook" in error:
        return GitError(
            "the reference-transaction hook refused the update:\n  " + "\n  ".join(lines)
        )
    return GitError(f"cannot update {', '.join(dict.fromkeys(refs))}: " + "; ".join(lines))


def with_ref_lock(
    repo: pygit2.Repository,
    refs: list[str],
    body: Callable[[RefTransaction], T],
    message: str = "wikigate",
) -> T:
    """Run ``body`` under :func:`process_lock`; apply the updates it queued atomically.

    ``body`` reads and compares what it needs; each queued update expects the
    value the ref had when it was queued, so a ref moved by anyone else (a
    user's git, a fetch) fails the transaction with :class:`RefMoved`.
    """
    del refs  # git locks exactly the refs the transaction names
    with process_lock(repo):
        txn = RefTransaction(repo)
        result = body(txn)
        txn.commit(txn.message or message)
        return result
