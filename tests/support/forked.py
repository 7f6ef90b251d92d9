"""``wikigate ARGS`` as a separate process that skips the interpreter's start-up.

A test of a process (the bot as a workflow step, a finalizer killed or racing others) needs
a real process: its own pid, environment, working directory, file descriptors and exit
code, killable with a signal.  It does not need a fresh interpreter importing wikigate, its
plug-ins, pydantic, pygit2 and PyGithub again each time (about a second on a busy machine:
most of what those tests cost).  So the processes here are forked from a server process that
imported all that once (``multiprocessing``'s forkserver); each child then sets its own
working directory, environment and stdio and runs ``main(argv)``, as ``python -m wikigate
ARGS`` would.  ``WIKIGATE_TESTS_FRESH_PROCESSES=1`` runs fresh interpreters instead (slower;
the same assertions).

Tests of start-up itself (imports, ``-X importtime``) keep ``subprocess`` with
``sys.executable``: a forked child has the server's modules already loaded."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import tempfile
from multiprocessing import spawn
from multiprocessing.context import ForkServerContext
from multiprocessing.process import BaseProcess
from pathlib import Path
from unittest import mock

PRELOAD = [
    "wikigate.cli",
    "wikigate.cli.app",
    "wikigate.bot.flow",
    "wikigate.workspace",
    "wikigate.verifier.default",
    "wikigate.verifier.engine",
    "wikigate.verify",
    "wikigate.finalize",
    "support.markers_verifier",
    "github",
    "pydantic",
    "pygit2",
]

_context: ForkServerContext | None = None


def fresh_processes() -> bool:
    return os.environ.get("WIKIGATE_TESTS_FRESH_PROCESSES", "") not in ("", "0")


def _ctx() -> ForkServerContext:
    global _context
    if _context is None:
        ctx = multiprocessing.get_context("forkserver")
        assert isinstance(ctx, ForkServerContext)
        ctx.set_forkserver_preload(PRELOAD)
        _context = ctx
    return _context


def _without_main(name: str) -> dict[str, object]:
    """What a child is told to prepare, less the parent's ``__main__``: a child would run
    that script again (the test runner itself, if it has no ``__main__`` guard)."""
    data: dict[str, object] = _preparation_data(name)
    data.pop("init_main_from_path", None)
    data.pop("init_main_from_name", None)
    return data


_preparation_data = spawn.get_preparation_data


def _child(argv: list[str], env: dict[str, str], cwd: str, stdio: tuple[str, str, str]) -> None:
    """In the forked process: become ``python -m wikigate ARGV`` run in ``cwd`` with
    ``env``, stdin/stdout/stderr on the given files."""
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    for fd, (name, flags) in enumerate(
        zip(stdio, (os.O_RDONLY, os.O_WRONLY | os.O_TRUNC, os.O_WRONLY | os.O_TRUNC), strict=True)
    ):
        opened = os.open(name, flags)
        os.dup2(opened, fd)
        os.close(opened)
    sys.stdin = open(0, encoding=sys.stdin.encoding if sys.stdin else None, closefd=False)  # noqa: SIM115
    sys.argv = [str(Path(sys.executable).parent / "wikigate"), *argv]
    from wikigate.cli import main

    code = main(argv)
    sys.stdout.flush()
    sys.stderr.flush()
    raise SystemExit(code)


class Forked:
    """A started ``wikigate`` process, like ``subprocess.Popen`` with captured output."""

    def __init__(
        self,
        argv: list[str],
        env: dict[str, str],
        cwd: Path | str | None = None,
        stdin: str | None = None,
        stderr: str | None = None,
    ) -> None:
        """``stderr``: a file the process writes its stderr to instead (a terminal's, e.g.
        ``os.ttyname`` of a pseudo-terminal's follower); its result's stderr is then empty."""
        self.argv = argv
        self._dir = tempfile.TemporaryDirectory(prefix="wikigate-forked-")
        folder = Path(self._dir.name)
        self._stdio = (str(folder / "in"), str(folder / "out"), stderr or str(folder / "err"))
        self._own_stderr = stderr is None
        Path(self._stdio[0]).write_text(stdin or "", encoding="utf-8")
        for name in self._stdio[1:] if self._own_stderr else self._stdio[1:2]:
            Path(name).touch()
        self._fresh: subprocess.Popen[bytes] | None = None
        self._proc: BaseProcess | None = None
        where = str(cwd or os.getcwd())
        if fresh_processes():
            with (
                open(self._stdio[0], "rb") as i,
                open(self._stdio[1], "wb") as o,
                open(self._stdio[2], "wb") as e,
            ):
                self._fresh = subprocess.Popen(
                    [sys.executable, "-m", "wikigate", *argv],
                    cwd=where,
                    env=env,
                    stdin=i,
                    stdout=o,
                    stderr=e,
                )
        else:
            self._proc = _ctx().Process(target=_child, args=(argv, dict(env), where, self._stdio))
            with mock.patch.object(spawn, "get_preparation_data", _without_main):
                self._proc.start()

    @property
    def pid(self) -> int:
        pid = self._fresh.pid if self._fresh else self._proc.pid if self._proc else None
        assert pid is not None
        return pid

    def alive(self) -> bool:
        """Whether the process is still running (it is reaped once it has ended)."""
        if self._fresh is not None:
            return self._fresh.poll() is None
        return self._proc is not None and self._proc.is_alive()

    def kill(self) -> None:
        if self._fresh is not None:
            self._fresh.kill()
        elif self._proc is not None:
            self._proc.kill()

    def wait(self, timeout: float | None = None) -> int:
        """The exit code (negative: the signal that ended it); raises TimeoutExpired after
        ``timeout`` seconds, having killed the process."""
        if self._fresh is not None:
            try:
                return self._fresh.wait(timeout)
            except subprocess.TimeoutExpired:
                self._fresh.kill()
                self._fresh.wait()
                raise
        assert self._proc is not None
        self._proc.join(timeout)
        if self._proc.exitcode is None:
            self._proc.kill()
            self._proc.join()
            raise subprocess.TimeoutExpired(self.argv, timeout or 0)
        return self._proc.exitcode

    def result(self, timeout: float | None = None) -> subprocess.CompletedProcess[str]:
        code = self.wait(timeout)
        try:
            out = Path(self._stdio[1]).read_text(encoding="utf-8")
            err = Path(self._stdio[2]).read_text(encoding="utf-8") if self._own_stderr else ""
        finally:
            self._dir.cleanup()
        return subprocess.CompletedProcess(["wikigate", *self.argv], code, out, err)


def forked(
    argv: list[str],
    env: dict[str, str],
    cwd: Path | str | None = None,
    stdin: str | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """``python -m wikigate ARGV`` in ``cwd`` with exactly ``env``; waits for it."""
    return Forked(argv, env, cwd, stdin).result(timeout)
