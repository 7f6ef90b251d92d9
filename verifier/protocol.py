"""The plug-in points: a Verifier votes on a staged run."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import pygit2

from wikigate.models import Plan, VerifierVerdict

if TYPE_CHECKING:
    from wikigate.workspace import Workspace


class Verifier(Protocol):
    """Review a staged write plan and vote commit / reject / revise.

    ``staged_tree`` is the run's tree in the object database: exactly what
    would land on main.  Implementations must not raise for bad input; the
    engine still turns any exception into a critical ``verifier.error``.
    """

    def verify(
        self, run_id: str, workspace: Workspace, plan: Plan, staged_tree: pygit2.Tree
    ) -> VerifierVerdict: ...
