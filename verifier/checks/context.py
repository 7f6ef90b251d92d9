"""What every check sees: the base and tip trees, the run's plan, the scope."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

import pygit2

from wikigate.codes import severity_at
from wikigate.config import Config
from wikigate.gitrepo import blob_at
from wikigate.models import Finding, Plan

from ..citation import SourceIndex
from ..judges.protocol import Judge, Judgment
from ..report import ClaimCheck, DirectionReport, SummaryMetrics
from ..wiki import PageCache, WikiTree

LOG = "wiki/log.md"  # the default layout's; a change's own: ``Context.log``
REGULAR = (pygit2.GIT_FILEMODE_BLOB, pygit2.GIT_FILEMODE_BLOB_EXECUTABLE)
PROMOTE_MINOR = {"PARANOID"}


class NotRun(Exception):  # noqa: N818 - a check's answer, not an error
    """A check that does not apply to this change says why (the report's skipped check,
    its reason a blind spot)."""


def adjusted_severity(f: Finding, level: str, config: Config) -> str:
    """A finding's severity under a preset and ``[verifier.severity]`` (or "off")."""
    severity: str = config.verifier.severity.get(f.code, severity_at(f, level))
    if level in PROMOTE_MINOR and severity == "minor":
        return "major"
    return severity


@dataclass
class Context:
    repo: pygit2.Repository
    tip: WikiTree
    base: WikiTree | None  # None in lint mode (--all)
    plan: Plan | None  # None for a branch that is not a wikigate run
    strictness: str
    config: Config
    judge: Judge
    metrics: SummaryMetrics = field(default_factory=SummaryMetrics)
    cache: PageCache = field(default_factory=lambda: PageCache(None))
    new_anchors: set[str] = field(default_factory=set)
    scope: list[str] | None = None  # restrict per-page checks to these pages
    tip_commit: str | None = None  # the tip's commit id (the judge's history tool)
    base_commit: str | None = None  # the base's (whether a claim is stale: its history)
    judgment: Judgment | None = None  # the semantic judge's, once it has run
    claim_checks: list[ClaimCheck] = field(default_factory=list)  # the convergence check's
    declared_scope: tuple[str, ...] | None = None  # a pull request's Wikigate-Scope line
    declared_direction: str | None = None  # a pull request's description
    direction: DirectionReport | None = None  # the direction check's
    heartbeat: Callable[[], None] | None = None  # called by long work (finalize's lease)
    # the per-page verdict cache's (verdicts.py): what the citations check counted of each
    # page (claims, citations, anchors verified), when it asks; the pages with a quote
    # not at its anchor (their findings depend on the source's scans, shared by pages)
    page_counts: dict[str, list[int]] | None = None
    unsettled: set[str] = field(default_factory=set)
    # the citations check's line and section indexes of sources (checks/citations.py)
    source_indexes: OrderedDict[tuple[str, int | None], SourceIndex] = field(
        default_factory=OrderedDict
    )
    # what a check that ran could not rule out, by check (its report entry's reason: a
    # blind spot), e.g. the trace check's trust in the database that pins the trace
    caveats: dict[str, str] = field(default_factory=dict)
    _changed: list[str] | None = None

    @property
    def lint(self) -> bool:
        return self.base is None

    @property
    def run_type(self) -> str | None:
        return self.plan.meta.run_type if self.plan else None

    def count(self, path: str, claims: int = 0, citations: int = 0, anchors: int = 0) -> None:
        """Count a page's claims, citations and anchors verified in the summary."""
        self.metrics.claims += claims
        self.metrics.citations += citations
        self.metrics.anchors_verified += anchors
        if self.page_counts is not None:
            counts = self.page_counts.setdefault(path, [0, 0, 0])
            counts[0] += claims
            counts[1] += citations
            counts[2] += anchors

    def severity(self, f: Finding) -> str:
        return adjusted_severity(f, self.strictness, self.config)

    def changed(self) -> list[str]:
        """Paths whose blob differs between base and tip (all files in lint mode)."""
        if self._changed is None:
            if self.base is None:
                self._changed = sorted(self.tip.entries)
            else:
                self._changed = list(self.tip.changed_since(self.base))
        return self._changed

    def pages_in_scope(self) -> list[str]:
        wanted = set(self.changed()) if self.scope is None else set(self.scope)
        return [p for p in self.tip.pages if p in wanted]

    @property
    def log(self) -> str:
        """The append-only log: ``log.md`` in the wiki's root (``[wiki] root``)."""
        return self.tip.layout.log

    def log_appended(self) -> bool:
        """The change only appends to an existing ``wiki/log.md`` (regular files both)."""
        log = self.log
        if self.base is None or log not in self.changed():
            return False
        old, new = self.base.entries.get(log), self.tip.entries.get(log)
        if old is None or new is None or old.mode not in REGULAR or new.mode not in REGULAR:
            return False
        before = blob_at(self.repo, old.oid).data
        after = blob_at(self.repo, new.oid).data
        return len(after) > len(before) and after.startswith(before)

    def exempt(self) -> dict[str, str]:
        """Pages spared the page checks (front matter, title, citations present), and
        why: ``wiki/log.md`` when the change only appends to it.  Its citations and
        links are still checked, and so are paths, raw/ and budget."""
        if self.log_appended():
            return {self.log: "append-only change to the log"}
        return {}
