"""The plug-in point: what a verifier is asked (a `Request`), what it answers (a
`Verification`), and the `Verifier` protocol between them.

Every gate builds a `Request` and hands it to `wikigate.verify.verify`, the one way into
verification; that function chooses the verifier (the default, or the plug-in the rules
name) and calls its ``verify``. A verifier sees the request only: the repository to read,
the two commits, the run's plan, the options. It never sees a workspace, a telemetry
store or a run it could move.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import pygit2

from .sources import SourceShelf as SourceShelf  # the engine names it from here

if TYPE_CHECKING:
    from wikigate.config import Config
    from wikigate.models import Finding, Plan

    from .entries import WalkMemo
    from .judges.protocol import JudgeArtifacts, Judgment
    from .markdown import ParsedPage
    from .parallel import Progress
    from .report import VerificationReport
    from .shard import Shard


@dataclass(frozen=True)
class Request:
    """One verification: ``tip`` against ``base`` (None: the whole wiki at ``tip``).

    The rules are the base commit's ``wikigate.toml`` (the tip's when there is no base)
    unless ``rules`` is given (the ledger reads with the defaults): never the working
    tree's, never the change's own.

    - ``plan``: the run's record, when the change is a run (its type, budget, scope,
      direction and ops); None for a plain change (a pull request, a push).
    - ``strictness``: CALM | SKEPTICAL | PARANOID; None: the rules'.
    - ``judge``: anthropic | offline asked for (``--judge``); None: the rules' ``[judge]``.
      ``judge_may_lower``: may it be the offline judge where the rules say anthropic
      (finalize: no). ``judge_dry_run``: build the LLM judge's requests, send none.
    - ``only``: the checks to run, by name (the pre-commit hooks run one); ``pages``: the
      pages the per-page checks look at (the files pre-commit passes); ``shard``: one slice
      of a whole-wiki verify (no base, no pages).
    - ``declared_scope`` and ``declared_direction``: a pull request's (a run's are in its
      plan).
    - ``cache_path``: the verifier's cache (``.git/wikigate/cache.db``); None: no cache.
    - ``walks``: tree objects an earlier verification in this process walked (a claim
      ledger's sync verifies each commit of a run, whose trees share all but a few
      subtrees); None: this verification's own.
    - ``sources``: source texts a longer-lived reader decoded (an MCP session's: what its
      ``read`` and ``anchor`` decoded), by blob and how it is read, never by path
      (SourceShelf): read before git, and what this verification decodes is kept
      there; the results are the same. None: each text read from git.
    - ``heartbeat``: called between steps (finalize renews its lease there); ``progress``
      hears how far the long jobs are.
    """

    repo: pygit2.Repository
    tip: pygit2.Commit
    base: pygit2.Commit | None
    plan: Plan | None = None
    strictness: str | None = None
    judge: str | None = None
    judge_may_lower: bool = True
    judge_dry_run: bool = False
    only: frozenset[str] | None = None
    pages: tuple[str, ...] | None = None
    shard: Shard | None = None
    declared_scope: tuple[str, ...] | None = None
    declared_direction: str | None = None
    rules: Config | None = None
    cache_path: Path | None = None
    walks: WalkMemo | None = None
    sources: SourceShelf | None = None
    heartbeat: Callable[[], None] | None = None
    progress: Progress | None = None

    def __post_init__(self) -> None:
        if self.shard is not None and (self.base is not None or self.pages is not None):
            from wikigate.errors import UsageError

            raise UsageError(
                "--shard K/N splits a whole-wiki verify (no base, no pages): use it with --all"
            )

    @property
    def run_id(self) -> str | None:
        return self.plan.meta.run_id if self.plan is not None else None


@dataclass
class Verification:
    """A verification's report, and beside it what must never enter the report: the
    judge's raw artifacts (requests, responses, votes as bytes) and its full judgment.

    ``verifier`` names what ran by what was loaded (the plug-in's spec and a digest of its
    source, or the default's version); the one entry point (`wikigate.verify.verify`) sets
    it, never the verifier: attestations carry it, and a plug-in cannot pass for the
    default verifier by its own words.
    ``anchors``: the citations check's result per cited claim ((page, label) → what it
    found), when it ran; the claim ledger reads it.
    ``pages``: the pages the per-page checks read, as they parsed them (path → page; an
    unreadable page is absent), when those checks ran on every page in scope (not when a
    whole-wiki verify took some pages' findings from its verdict cache: then ``pages`` and
    ``anchors`` are None): the claim ledger reads each page's claims and gaps from them
    instead of walking the tree and parsing it again.
    """

    report: VerificationReport
    judgment: Judgment | None = None
    verifier: str = ""
    anchors: dict[tuple[str, str], object] | None = None
    pages: dict[str, ParsedPage] | None = None

    @property
    def artifacts(self) -> JudgeArtifacts:
        from .judges.protocol import JudgeArtifacts

        return self.judgment.artifacts if self.judgment is not None else JudgeArtifacts()


class Verifier(Protocol):
    """Verify a request and answer with a report (`Verification`).

    Implementations should not raise for bad input: the entry point still turns any
    exception into a critical ``verifier.error`` (fail closed), and a report about another
    commit than the request's tip into one too. A plug-in builds its report with
    `report_of` when it has findings of its own to give.
    """

    def verify(self, request: Request) -> Verification: ...


def report_of(request: Request, findings: Iterable[Finding], *, check: str) -> Verification:
    """A plug-in's verification from its findings: the verdict the severities give, one
    check named ``check``, the request's commits and the rules' strictness."""
    from wikigate.codes import verdict_for
    from wikigate.config import config_at

    from .report import CheckResult, SummaryMetrics, VerificationReport

    found = list(findings)
    level = request.strictness
    if level is None:
        rules = request.rules or config_at(request.repo, request.base or request.tip)
        level = rules.verifier.strictness
    report = VerificationReport(
        run_id=request.run_id,
        base=str(request.base.id) if request.base is not None else None,
        tip=str(request.tip.id),
        strictness=level,  # type: ignore[arg-type]
        verdict=verdict_for(found),
        checks=[
            CheckResult(
                name=check,
                status="failed" if found else "passed",
                findings=len(found),
                duration_ms=0.0,
            )
        ],
        findings=found,
        summary=SummaryMetrics(),
    )
    return Verification(report)
