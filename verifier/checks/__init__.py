"""The verifier's checks, registered in CHECKS with the presets that run them.

A new check goes in one of these modules (per claim, per page, per run) and gets
a line in CHECKS, saying what it needs from earlier checks and what it provides;
its findings' codes go in wikigate/codes.py.  The engine times each check, passes
it its needs, and turns any exception into a critical ``verifier.error``.

A ``per_page`` check's findings about a page depend on that page (and the sources it
cites) alone: a shard of a whole-wiki verify (``verify --all --shard K/N``) runs these on
its slice of the pages.  Every other check looks at the wiki as a whole (links, orphans,
the tree, the run) and runs once, where ``wikigate report merge`` combines the shards.
A check may only need what a check of its own kind provides (PER_PAGE, WHOLE_WIKI).

A check names its function as ``"module:function"`` (a module of this package): the module
is imported when the check first runs, so a verification imports only the checks its
preset runs (``wikigate verify BRANCH`` and the hooks start faster: issue 25).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .context import Context, NotRun


@dataclass(frozen=True)
class Check:
    """A check: ``run(ctx, **needs)`` returns its findings, or ``(findings, value)``
    when it ``provides`` a value that later checks name in their ``needs``. ``run`` is the
    function, or where it is (``"module:function"`` in this package), imported on first use
    (``fn``).

    The engine passes each need as a keyword argument; a check whose needs were not
    provided (their check was skipped or failed) does not run on missing data.
    """

    name: str
    run: Callable[..., Any] | str
    presets: frozenset[str]
    needs: tuple[str, ...] = ()
    provides: str | None = None
    per_page: bool = False

    @property
    def fn(self) -> Callable[..., Any]:
        """The check's function (its module imported now, when ``run`` names it)."""
        if not isinstance(self.run, str):
            return self.run
        module, _, name = self.run.partition(":")
        found: Callable[..., Any] = getattr(importlib.import_module(f"{__name__}.{module}"), name)
        return found


EVERY = frozenset({"CALM", "SKEPTICAL", "PARANOID", "BOLD"})
THOROUGH = frozenset({"SKEPTICAL", "PARANOID", "BOLD"})  # not the hooks' quick CALM

CHECKS: list[Check] = [
    Check("tree", "runs:check_tree", EVERY),
    Check(
        "citations", "citations:check_citations", EVERY, provides="verified_quotes", per_page=True
    ),
    Check("invisible", "pages:check_invisible", EVERY, per_page=True),
    Check("invisible_paths", "runs:check_invisible_paths", EVERY),
    Check("portable_paths", "runs:check_portable_paths", EVERY),
    Check(
        "semantic", "semantic:check_semantic", THOROUGH, needs=("verified_quotes",), per_page=True
    ),
    Check("pages", "pages:check_pages", THOROUGH, per_page=True),
    Check("links", "pages:check_links", THOROUGH),
    Check("paths", "runs:check_paths", EVERY),
    Check("log", "runs:check_log", EVERY),
    Check("scope", "runs:check_scope", EVERY),
    Check("presentation", "presentation:check_presentation", THOROUGH),
    Check("required", "runs:check_required", THOROUGH),
    Check("convergence", "runs:check_convergence", THOROUGH),
    Check("coverage", "runs:check_coverage", THOROUGH),
    Check("consistency", "consistency:check_consistency", THOROUGH),
    Check("budget", "runs:check_budget", THOROUGH),
    Check("trace", "trace:check_trace", EVERY),
    Check("direction", "runs:check_direction", THOROUGH),
]


def _parts(checks: list[Check]) -> tuple[frozenset[str], frozenset[str]]:
    """The names of the per-page checks and of the whole-wiki ones; refuses a check that
    needs a value only the other kind provides (a shard or the merge would lack it)."""
    provider = {c.provides: c for c in checks if c.provides is not None}
    for check in checks:
        for need in check.needs:
            source = provider.get(need)
            if source is not None and source.per_page != check.per_page:
                raise ValueError(
                    f"check {check.name!r} needs {need!r} from {source.name!r}, "
                    "which runs in the other part of a sharded verify"
                )
    per_page = frozenset(c.name for c in checks if c.per_page)
    return per_page, frozenset(c.name for c in checks) - per_page


PER_PAGE, WHOLE_WIKI = _parts(CHECKS)

__all__ = ["CHECKS", "PER_PAGE", "WHOLE_WIKI", "Check", "Context", "NotRun"]
