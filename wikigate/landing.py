"""The gate's one way to land: main moves to the commit decided on, by compare-and-swap
from the main it was decided against, and by fast-forward only.

The commit is named once, when the decision is made (``decided``); nothing here reads
a run branch or a pull request's head again.  When main moved meanwhile, the decided
commit's changes are replayed onto main's new tip (and verified again, unless a person's
word lands them as they are): that replayed commit is what moves main, from the tip it
was replayed onto.

Where main lives is a :class:`Way`: the workspace's refs (``finalize``: one ref
transaction with the run's record) or a GitHub base branch (``bot/landing.py``: the
refs API's fast-forward-only update).  :func:`land` is the rule; a way is the transport.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

R = TypeVar("R")  # how a way says it stopped, or landed (its own result; never a str)
R_co = TypeVar("R_co", covariant=True)


class Way(Protocol[R_co]):
    """Where main lives, and how it moves."""

    def fast_forward(self, base: str, tip: str) -> bool:
        """Whether ``tip`` is ``base`` or descends from it."""
        ...

    def move(self, base: str, tip: str) -> R_co | None:
        """Compare-and-swap main from ``base`` to ``tip``; None when main is no longer at
        ``base`` (the race is lost: nothing changed), else what happened."""
        ...

    def lost(self, times: int) -> R_co | None:
        """Called after each lost race: a result to stop with, or None to go on (e.g.
        after waiting for this landing's turn)."""
        ...

    def main(self) -> str:
        """Main's tip now (read only after a lost race, to replay onto)."""
        ...

    def replay(self, decided: str, onto: str) -> str | R_co:
        """The decided commit's changes replayed onto ``onto`` (and verified again where
        that is the rule), or a result to stop with (a conflict, a failing verdict)."""
        ...


def land(decided: str, base: str, way: Way[R]) -> R:
    """Land ``decided``, decided against main at ``base``: main moves from ``base`` to
    it, or, when it does not fast-forward from there, to it replayed onto ``base``, by
    compare-and-swap; after a lost race, the same from main's new tip.  What the way's
    ``move`` returns is the result."""
    times = 0
    while True:
        tip = decided
        if not way.fast_forward(base, decided):
            replayed = way.replay(decided, base)
            if not isinstance(replayed, str):
                return replayed
            tip = replayed
        moved = way.move(base, tip)
        if moved is not None:
            return moved
        times += 1
        stop = way.lost(times)
        if stop is not None:
            return stop
        base = way.main()
