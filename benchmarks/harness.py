"""Timing whole commands as a user runs them: a fresh process each time, a fresh packed
clone for cold figures, the median and range of several runs, and the machine's load.

Used by the other scripts in benchmarks/ (not a benchmark itself).
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

BIN = Path(sys.executable).parent


def command(name: str) -> str:
    """An installed console script (``wikigate``, ``wikigate-citations``…)."""
    return shutil.which(name, path=str(BIN)) or shutil.which(name) or name


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(cwd), *args], check=True, capture_output=True, text=True
    ).stdout


def load() -> float:
    return os.getloadavg()[0]


@dataclass
class Figure:
    """Several timings of one thing, with the load average seen while taking them: wall
    time, and the CPU time (user + system) of the processes it ran, which is what stays
    comparable on a shared, loaded machine."""

    what: str
    times: list[float] = field(default_factory=list)
    loads: list[float] = field(default_factory=list)
    note: str = ""
    cpus: list[float] = field(default_factory=list)

    def add(self, seconds: float, cpu: float | None = None) -> None:
        self.times.append(seconds)
        self.loads.append(load())
        if cpu is not None:
            self.cpus.append(cpu)
        used = "" if cpu is None else f", CPU {fmt(cpu)}"
        print(
            f"  {self.what}: run {len(self.times)}: {fmt(seconds)}{used}, load {self.loads[-1]:.1f}"
        )

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    def __str__(self) -> str:
        lo, hi = min(self.times), max(self.times)
        note = f"; {self.note}" if self.note else ""
        cpu = ""
        if self.cpus:
            c = statistics.median(self.cpus)
            cpu = f"; CPU {fmt(c)} median ({fmt(min(self.cpus))}–{fmt(max(self.cpus))})"
        return (
            f"{self.what}: {fmt(self.median)} median ({fmt(lo)}–{fmt(hi)}, "
            f"n={len(self.times)}, load {min(self.loads):.1f}–{max(self.loads):.1f}{cpu}{note})"
        )


def fmt(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def children_cpu() -> float:
    """User + system CPU seconds of every finished child process (and theirs) so far."""
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def run(
    argv: Sequence[str],
    cwd: Path,
    *,
    ok: Sequence[int] = (0,),
    env: dict[str, str] | None = None,
) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Run one command to completion; its wall time and result (checked against ``ok``)."""
    return timed(argv, cwd, ok=ok, env=env)[::2]  # type: ignore[return-value]


def timed(
    argv: Sequence[str],
    cwd: Path,
    *,
    ok: Sequence[int] = (0,),
    env: dict[str, str] | None = None,
) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Run one command to completion: its wall time, its CPU time (user + system of it and
    every process it started and waited for) and its result (checked against ``ok``)."""
    cpu0 = children_cpu()
    t0 = time.perf_counter()
    proc = subprocess.run(list(argv), cwd=cwd, capture_output=True, text=True, env=user_env(env))
    took = time.perf_counter() - t0
    cpu = children_cpu() - cpu0
    if proc.returncode not in ok:
        raise SystemExit(
            f"{' '.join(argv)} exited {proc.returncode} in {cwd}:\n{proc.stderr[-2000:]}"
        )
    return took, cpu, proc


def user_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a user's command runs in: bytecode caching on (a sandbox that sets
    PYTHONDONTWRITEBYTECODE makes every start recompile every module, ~70 ms)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, **(extra or {})}


@contextmanager
def fresh_clone(wiki: Path) -> Iterator[Path]:
    """A ``git clone --no-local`` of ``wiki``: objects packed as a user's clone has them,
    no wikigate cache or telemetry; removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="wikigate-bench-") as tmp:
        clone = Path(tmp) / "wiki"
        subprocess.run(
            ["git", "clone", "-q", "--no-local", str(wiki), str(clone)],
            check=True,
            capture_output=True,
        )
        yield clone


def repeat(what: str, n: int, once: Callable[[], float], note: str = "") -> Figure:
    """``once`` run ``n`` times: the wall time it returns, and the CPU time of the
    processes it ran (every child started and waited for during the call)."""
    figure = Figure(what, note=note)
    for _ in range(n):
        cpu0 = children_cpu()
        took = once()
        figure.add(took, children_cpu() - cpu0)
    print(figure, flush=True)
    return figure


def _tree(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo += [int(c) for c in f.read().split()]
        except OSError:
            continue
    return out


def _pss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def peak_memory(argv: Sequence[str], cwd: Path, *, ok: Sequence[int] = (0,)) -> float:
    """The command's peak memory in MiB: the largest sum of PSS over it and every process
    it started, sampled every 20 ms (Linux /proc)."""
    proc = subprocess.Popen(
        list(argv), cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=user_env()
    )
    peak = 0
    while proc.poll() is None:
        peak = max(peak, sum(_pss_kib(p) for p in _tree(proc.pid)))
        time.sleep(0.02)
    if proc.returncode not in ok:
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}")
    return peak / 1024
