"""Any OS: importing wikigate needs no POSIX-only module, and its file locks work through
Windows' ``msvcrt`` where ``fcntl`` does not exist. Here (POSIX) Windows is approached as
Python sees it: ``sys.modules["fcntl"] = None`` makes ``import fcntl`` fail, and a stand-in
``msvcrt`` offers ``locking`` with Windows' contract (a second lock on a locked file raises
``OSError``; closing the file releases it), built on the real ``flock`` kept aside. The
project's workflow runs the suite on Windows and macOS themselves
(.github/workflows/tests.yml)."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from wikigate import oslock

NO_FCNTL = "import sys\nsys.modules['fcntl'] = None\n"
WINDOWS_LOCKS = """import sys, fcntl as _posix, types
sys.modules['fcntl'] = None
msvcrt = types.ModuleType('msvcrt')
msvcrt.LK_NBLCK, msvcrt.LK_UNLCK = 2, 0
used = []
def locking(fd, mode, nbytes):
    assert nbytes == 1 and mode == msvcrt.LK_NBLCK, (mode, nbytes)
    used.append(fd)
    _posix.flock(fd, _posix.LOCK_EX | _posix.LOCK_NB)  # OSError when held, as on Windows
msvcrt.locking = locking
from wikigate import oslock  # not sys.modules: the standard library probes for msvcrt
oslock._backends = lambda: (None, msvcrt)
"""
CLI = """import contextlib, io
from wikigate.cli.main import main
def cli(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    assert code == 0, (argv, code, out.getvalue())
    return out.getvalue()
"""


def _python(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "WIKIGATE_WORKERS": "0"}
    env.pop("WIKIGATE_VERIFIER", None)
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=cwd, env=env
    )


@pytest.mark.slow
def test_runs_land_through_windows_locks_without_fcntl(tmp_path):
    """The demo's three runs (start, stage, finalize: commit, reject, revise then commit),
    every lock taken through msvcrt."""
    script = (
        WINDOWS_LOCKS
        + CLI
        + f"out = cli('demo', {str(tmp_path / 'demo')!r})\n"
        + "assert out.count('committed 20') == 2 and 'rejected 20' in out, out\n"
        + "assert used, 'no lock was taken through msvcrt'\n"
        + "assert sys.modules['fcntl'] is None\n"
    )
    proc = _python(script, tmp_path)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow
def test_the_package_imports_and_verifies_without_fcntl(tmp_path):
    """Neither fcntl nor msvcrt: every module imports, and a verify of a wiki runs."""
    made = _python(CLI + f"cli('demo', {str(tmp_path / 'demo')!r})\n", tmp_path)
    assert made.returncode == 0, made.stderr
    script = (
        NO_FCNTL
        + CLI
        + "import importlib, pkgutil, wikigate\n"
        + "for m in pkgutil.walk_packages(wikigate.__path__, 'wikigate.'):\n"
        + "    if '.demo.corpus' not in m.name and not m.name.endswith('__main__'):\n"
        + "        importlib.import_module(m.name)\n"
        + f"out = cli('-C', {str(tmp_path / 'demo')!r}, 'verify', '--all')\n"
        + "assert 'PASS' in out, out\n"
    )
    proc = _python(script, tmp_path)
    assert proc.returncode == 0, proc.stderr


def test_a_lock_is_exclusive_and_released_by_closing(tmp_path):
    path = tmp_path / "l.lock"
    first = os.open(path, os.O_RDWR | os.O_CREAT)
    second = os.open(path, os.O_RDWR)
    try:
        assert oslock.try_lock(first)
        assert not oslock.try_lock(second)
    finally:
        os.close(first)
    try:
        assert oslock.try_lock(second)
    finally:
        os.close(second)


def test_without_fcntl_the_locks_are_msvcrts(monkeypatch):
    windows = types.ModuleType("msvcrt")
    monkeypatch.setitem(sys.modules, "fcntl", None)
    monkeypatch.setitem(sys.modules, "msvcrt", windows)
    assert oslock._backends() == (None, windows)


def test_no_lock_backend_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "fcntl", None)
    monkeypatch.setitem(sys.modules, "msvcrt", None)
    fd = os.open(tmp_path / "l.lock", os.O_RDWR | os.O_CREAT)
    try:
        with pytest.raises(oslock.NoLocks, match="neither fcntl .* nor msvcrt"):
            oslock.lock(fd)
    finally:
        os.close(fd)


def test_on_windows_a_finalizer_is_asked_whether_it_lives_never_signalled(monkeypatch):
    """On Windows ``os.kill(pid, 0)`` terminates the process: ``sweep`` and ``run abandon``
    would kill the live finalizer they meant to look at. There the process is queried
    (OpenProcess, GetExitCodeProcess); here kernel32 is a stand-in with its contract."""
    import ctypes

    from wikigate import reconcile

    signalled: list[tuple[int, int]] = []
    closed: list[int] = []

    class Kernel32:
        def OpenProcess(self, access, inherit, pid):  # noqa: N802 - Windows' names
            return {1234: 7, 5678: 8}.get(pid, 0)

        def GetExitCodeProcess(self, handle, code):  # noqa: N802
            code._obj.value = 259 if handle == 7 else 0  # STILL_ACTIVE, or exited with 0
            return 1

        def CloseHandle(self, handle):  # noqa: N802
            closed.append(handle)

    monkeypatch.setattr(ctypes, "WinDLL", lambda name, use_last_error: Kernel32(), raising=False)
    monkeypatch.setattr(ctypes, "get_last_error", lambda: 87, raising=False)  # no such pid
    monkeypatch.setattr(os, "kill", lambda pid, sig: signalled.append((pid, sig)))
    monkeypatch.setattr(os, "name", "nt")
    alive, exited, unknown = (reconcile.pid_alive(p) for p in (1234, 5678, 4242))
    monkeypatch.undo()
    assert (alive, exited, unknown) == (True, False, False)
    assert signalled == []
    assert closed == [7, 8]
