"""The verifier's checks.  Each is ``check(ctx) -> list[Finding]``, registered in CHECKS.

A new check goes in one of these modules (per claim, per page, per run) and
gets a line in CHECKS; the engine times it and turns any exception into a
critical ``verifier.error``.
"""

from __future__ import annotations

from collections.abc import Callable

from wikigate.models import Finding

from . import citations, pages, runs
from .context import Context

Check = Callable[[Context], list[Finding]]

# name, function, the presets that run it
CHECKS: list[tuple[str, Check, frozenset[str]]] = [
    ("citations", citations.check_citations, frozenset({"CALM", "SKEPTICAL", "PARANOID", "BOLD"})),
    ("semantic", citations.check_semantic, frozenset({"SKEPTICAL", "PARANOID", "BOLD"})),
    ("pages", pages.check_pages, frozenset({"SKEPTICAL", "PARANOID", "BOLD"})),
    ("links", pages.check_links, frozenset({"SKEPTICAL", "PARANOID", "BOLD"})),
    ("paths", runs.check_paths, frozenset({"CALM", "SKEPTICAL", "PARANOID", "BOLD"})),
    ("convergence", runs.check_convergence, frozenset({"SKEPTICAL", "PARANOID", "BOLD"})),
    ("coverage", runs.check_coverage, frozenset({"SKEPTICAL", "PARANOID", "BOLD"})),
    ("budget", runs.check_budget, frozenset({"SKEPTICAL", "PARANOID", "BOLD"})),
]

__all__ = ["CHECKS", "Check", "Context"]
