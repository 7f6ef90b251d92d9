"""Progress bars for long commands, on a terminal only.

Shown on stderr when stderr is a TTY and the output is the human one: never in
hooks (they call the library, not this), CI logs, pipes or ``--format json``.
rich (the ``progress`` extra) is imported only then; without it, no bar.  No refresh thread: worker processes fork only from a
single-threaded process, so the bar is redrawn as the work advances.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

Progress = Callable[[str, int, int], None]


def wanted(human_output: bool = True) -> bool:
    if not human_output or not sys.stderr.isatty():
        return False
    if os.environ.get("CI") or os.environ.get("TERM") == "dumb":
        return False
    from wikigate.extras import installed

    return installed("rich")  # the progress extra; without it, no bar


@contextmanager
def bar(human_output: bool = True) -> Iterator[Progress | None]:
    """A ``progress(label, done, total)`` callback drawing bars, or None when not wanted."""
    if not wanted(human_output):
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    board = Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
        auto_refresh=False,
    )
    tasks: dict[str, Any] = {}

    def advance(label: str, done: int, total: int) -> None:
        if label not in tasks:
            tasks[label] = board.add_task(label, total=total)
        board.update(tasks[label], completed=done, total=total)
        board.refresh()

    with board:
        yield advance
