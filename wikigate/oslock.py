"""Whole-file advisory locks that the operating system drops when their holder dies, on
any OS: ``flock`` on POSIX, ``msvcrt.locking`` of the file's first byte on Windows. Chosen
at the first lock, never at import: importing wikigate needs neither ``fcntl`` nor
``msvcrt``.

Both are exclusive, held by an open file descriptor, and released when it is closed
(or its process exits); neither is re-entrant (``refs.process_lock`` counts its own
depth).
"""

from __future__ import annotations

import os
import random
import time
from types import ModuleType

from .errors import WikigateError


class NoLocks(WikigateError):
    """This Python has neither ``fcntl`` nor ``msvcrt``: no lock can be taken."""


def try_lock(fd: int) -> bool:
    """Take the exclusive lock on the open file ``fd`` if nobody holds it; False if
    another descriptor (this process's or another's) holds it."""
    posix, windows = _backends()
    if posix is not None:
        try:
            posix.flock(fd, posix.LOCK_EX | posix.LOCK_NB)
        except BlockingIOError:
            return False
        return True
    assert windows is not None
    os.lseek(fd, 0, os.SEEK_SET)  # msvcrt locks bytes from the file position
    try:
        windows.locking(fd, windows.LK_NBLCK, 1)
    except OSError:
        return False
    return True


def lock(fd: int) -> None:
    """Wait for the exclusive lock on the open file ``fd``."""
    posix, _ = _backends()
    if posix is not None:
        posix.flock(fd, posix.LOCK_EX)
        return
    while not try_lock(fd):  # msvcrt's blocking mode gives up after 10 s
        time.sleep(0.01 + random.random() * 0.02)


def _backends() -> tuple[ModuleType | None, ModuleType | None]:
    try:
        import fcntl

        return fcntl, None
    except ImportError:
        pass
    try:
        import msvcrt

        return None, msvcrt
    except ImportError:
        raise NoLocks(
            "this Python has neither fcntl (POSIX) nor msvcrt (Windows): wikigate cannot "
            "lock its files here"
        ) from None
