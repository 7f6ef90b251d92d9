"""The verifier's checks, registered in CHECKS with the presets that run them.

A new check goes in one of these modules (per claim, per page, per run) and gets
a line in CHECKS, saying what it needs from earlier checks and what it provides;
its findings' codes go in wikigate/codes.py.  The engine times each check, passes
it its needs, and turns any exception into a critical ``verifier.error``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import citations, pages, runs, semantic
from .context import Context


@dataclass(frozen=True)
class Check:
    """A check: ``run(ctx, **needs)`` returns its findings, or ``(findings, value)``
    when it ``provides`` a value that later checks name in their ``needs``.

    The engine passes each need as a keyword argument; a check whose needs were not
    provided (their check was skipped or failed) does not run on missing data.
    """

    name: str
    run: Callable[..., Any]
    presets: frozenset[str]
    needs: tuple[str, ...] = ()
    provides: str | None = None


EVERY = frozenset({"CALM", "SKEPTICAL", "PARANOID", "BOLD"})
THOROUGH = frozenset({"SKEPTICAL", "PARANOID", "BOLD"})  # not the hooks' quick CALM

CHECKS: list[Check] = [
    Check("tree", runs.check_tree, EVERY),
    Check("citations", citations.check_citations, EVERY, provides="verified_quotes"),
    Check("semantic", semantic.check_semantic, THOROUGH, needs=("verified_quotes",)),
    Check("pages", pages.check_pages, THOROUGH),
    Check("links", pages.check_links, THOROUGH),
    Check("paths", runs.check_paths, EVERY),
    Check("log", runs.check_log, EVERY),
    Check("convergence", runs.check_convergence, THOROUGH),
    Check("coverage", runs.check_coverage, THOROUGH),
    Check("budget", runs.check_budget, THOROUGH),
]

__all__ = ["CHECKS", "Check", "Context"]
