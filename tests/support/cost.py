"""Cost bounds measured the one way the timing tier measures them: CPU time of this process
(``time.process_time``: other load on a busy machine is not counted), the best of a few
runs with the garbage collector off, and a ratio of two sizes (4x the input may cost at
most 8x the time: linear is ~4x, quadratic ~16x), never over less than 5 ms.

The sizes are calibrated: the small input starts at a quarter of the test's size and
doubles until one run costs ``enough`` CPU time (or reaches the test's size). A slow
pattern is measured on a smaller input; a fast one on the full size, as before."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

FLOOR = 5e-3  # a measurement of a millisecond or two is mostly the clock's noise


def cpu_seconds(fn: Callable[[], object], tries: int = 3) -> float:
    """The best of ``tries`` CPU times of ``fn()``, the garbage collector off (a collection
    in one run and not the other is not what is measured)."""
    best = float("inf")
    gc.collect()
    gc.disable()
    try:
        for _ in range(tries):
            t0 = time.process_time()
            fn()
            best = min(best, time.process_time() - t0)
    finally:
        gc.enable()
    return best


def calibrated(run: Callable[[int], object], size: int, enough: float = 0.02) -> int:
    """The smallest of ``size/4``, ``size/2``, ``size`` whose one run costs ``enough``
    CPU seconds (``size`` if none does)."""
    n = max(size // 4, 1)
    while n < size:
        t0 = time.process_time()
        run(n)
        if time.process_time() - t0 >= enough:
            break
        n = min(2 * n, size)
    return n


def assert_linear(run: Callable[[int], object], size: int, label: str, tries: int = 3) -> None:
    """``run(n)`` (the work on an input of ``n`` characters) costs linear CPU time: at
    most 8x for 4x the input, over a calibrated size at most ``size``, and under 3 s."""
    n = calibrated(run, size)
    small = cpu_seconds(lambda: run(n), tries)
    assert small < 3, f"{label}: {n // 1000} KB took {small:.2f} s"
    large = cpu_seconds(lambda: run(4 * n), tries)
    assert large < 8 * max(small, FLOOR), (
        f"{label}: {small:.3f} s -> {large:.3f} s for 4x the input ({n} -> {4 * n} characters)"
    )
