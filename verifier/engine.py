"""Run the checks over a base → tip change and build the report. Fails closed."""

from __future__ import annotations

import gc
import os
import signal
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from wikigate.codes import finding, verdict_for
from wikigate.config import Config, config_at
from wikigate.models import Finding

from . import suppress
from .checks import CHECKS, PER_PAGE, Context, NotRun
from .checks.context import adjusted_severity
from .entries import TreeLimitError
from .judges.choose import make_judge
from .judges.protocol import HEURISTIC, Judge
from .parallel import Workers
from .protocol import Request, Verification
from .report import (
    CheckResult,
    JudgeSummary,
    SetAside,
    ShardInfo,
    SummaryMetrics,
    VerificationReport,
)
from .shard import content_digest, rules_digest, verifier_version
from .wiki import PageCache, WikiTree

if TYPE_CHECKING:
    from .verdicts import PageVerdicts


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Verifying builds millions of small objects without cycles (parsed pages,
    citations, link keys). Python's cyclic GC would rescan them over and over,
    a quarter of a full verify, to free nothing: refcounting frees them."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def run_checks(request: Request) -> Verification:
    """The default verifier's work: every check over ``request.base`` → ``request.tip``
    (or the whole wiki at the tip when there is no base), failing closed; see
    `wikigate.verifier.protocol.Request` for what each field asks.

    The semantic judge is the one the rules' ``[judge]`` names, or ``request.judge`` asks
    for. A shard runs just the per-page checks, on its slice of the pages; the report
    says which shard it is (verifier/merge.py combines them).
    """
    return checks_of(request)


@_gc_paused()
def checks_of(request: Request, judge: Judge | None = None) -> Verification:
    """:func:`run_checks`, with a judge object chosen by the caller (tests and the
    judge benchmark hand one in; the product's verifiers never do)."""
    repo, tip, base, plan = request.repo, request.tip, request.base, request.plan
    only, shard, heartbeat = request.only, request.shard, request.heartbeat
    scope = list(request.pages) if request.pages is not None else None
    if shard is not None:  # a whole-wiki slice (the request checks it has no base, no pages)
        only = PER_PAGE if only is None else only & PER_PAGE
    started = time.perf_counter()
    broken: Exception | None = None
    try:
        rules = request.rules or config_at(repo, base if base is not None else tip)
    except Exception as e:  # noqa: BLE001 - an unreadable rule file blocks, it does not crash
        rules, broken = Config(), e
    config = rules
    clock = Deadline(started + config.limits.verify_seconds, heartbeat)
    level = request.strictness or config.verifier.strictness
    cache = PageCache(request.cache_path)
    if request.walks is not None:  # the trees an earlier verification walked
        cache.trees = request.walks
    workers = Workers(repo, progress=request.progress)
    checks: list[CheckResult] = []
    findings: list[Finding] = []
    exempt: list[str] = []
    ctx: Context | None = None
    provided: dict[str, object] = {}
    pages = None
    verdicts: PageVerdicts | None = None
    fresh: dict[str, list[Finding]] = {}  # the per-page checks' findings on pages checked
    try:
        clock.arm()
        if broken is not None:
            raise broken
        # ids: libgit2 may not parse the tree; a tree past [limits] is refused unexpanded
        layout = config.wiki.layout()  # where the pages are: the base's rules, like every rule
        shelf = request.sources
        tip_tree = WikiTree(repo, tip.tree_id, cache, workers, config.limits, layout, shelf)
        base_tree = (
            None
            if base is None
            else WikiTree(repo, base.tree_id, cache, workers, config.limits, layout, shelf)
        )
        tip_tree.keep_windows = base is not None or scope is not None  # not the whole wiki's
        if judge is None:
            judge = make_judge(
                config,
                repo=repo,
                cache=cache,
                requested=request.judge,
                may_lower=request.judge_may_lower,
                dry_run=request.judge_dry_run,
                budget=plan.meta.budget if plan is not None else None,
                strictness=level,
            )
        ctx = Context(
            repo=repo,
            tip=tip_tree,
            base=base_tree,
            plan=plan,
            strictness=level,
            config=config,
            judge=judge,
            cache=cache,
            scope=shard.pages(tip_tree.pages) if shard is not None else scope,
            tip_commit=str(tip.id),
            base_commit=str(base.id) if base is not None else None,
            heartbeat=clock,
            declared_scope=request.declared_scope,
            declared_direction=request.declared_direction,
        )
        if ctx.lint and only is None:
            from .verdicts import PageVerdicts as Rows  # the per-page checks' modules

            if Rows.applies(ctx, only):
                # a whole-wiki verify: the per-page checks look only at the pages the verdict
                # cache does not answer for (verdicts.py); the whole-wiki checks at every page
                verdicts = Rows(ctx, level)
                whole = ctx.scope
                ctx.scope = verdicts.lookup(ctx.pages_in_scope())
                ctx.page_counts = {}
                if any(c.name == "links" and level in c.presets for c in CHECKS):
                    ctx.tip.load_nav(list(verdicts.hits))  # unparsed: their links in one read
        for check in CHECKS:
            t0 = time.perf_counter()
            if clock.expired():
                checks.append(
                    CheckResult(
                        name=check.name,
                        status="skipped",
                        duration_ms=0.0,
                        reason="the verification's wall-clock budget ran out",
                    )
                )
                continue
            if heartbeat is not None:
                heartbeat()
            if level not in check.presets or (only is not None and check.name not in only):
                checks.append(CheckResult(name=check.name, status="skipped", duration_ms=0.0))
                continue
            missing = [need for need in check.needs if need not in provided]
            if missing:  # never run on missing data: the check it needs was skipped or failed
                checks.append(
                    CheckResult(
                        name=check.name,
                        status="skipped",
                        duration_ms=0.0,
                        reason=f"needs {', '.join(missing)}, which no check provided",
                    )
                )
                continue
            status: Literal["passed", "failed", "error", "skipped"]
            skipped = None
            try:
                result = check.fn(ctx, **{need: provided[need] for need in check.needs})
                if check.provides is not None:
                    result, provided[check.provides] = result
                found = _adjust(result, level, config)
                if verdicts is not None and check.per_page:
                    fresh[check.name] = found
                    found = found + verdicts.cached(check.name)
                status = "failed" if found else "passed"
            except NotRun as e:  # it does not apply here, and says why
                found, status, skipped = [], "skipped", str(e)
            except BudgetSpent:
                found, status = [], "error"
            except Exception as e:  # noqa: BLE001 - fail closed, always
                found = [_error(check.name, e)]
                status = "error"
            findings += found
            checks.append(
                CheckResult(
                    name=check.name,
                    status=status,
                    findings=len(found),
                    duration_ms=round((time.perf_counter() - t0) * 1000, 2),
                    reason=skipped if skipped is not None else ctx.caveats.get(check.name),
                )
            )
        clock.disarm()
        if verdicts is not None:
            ctx.scope = whole
            verdicts.count()
        if not clock.spent:
            cache.store_anchors(ctx.new_anchors)
            ran = {c.name for c in checks if c.status in ("passed", "failed")}
            failed = {c.name for c in checks if c.status == "error"}
            if verdicts is not None and not failed & PER_PAGE:  # rows of checks that ran
                verdicts.store(fresh, ran)
        exempt = [f"{page}: {why}" for page, why in ctx.exempt().items()]
        if "verified_quotes" in provided and (verdicts is None or not verdicts.hits):
            pages = ctx.tip.parsed(ctx.pages_in_scope())  # what the per-page checks parsed
    except BudgetSpent:  # the alarm rang outside any check (reading the trees, say)
        pass
    except TreeLimitError as e:  # refused before anything is read of it: nothing else checked
        findings.append(finding("tree.limit", e.path, None, e.message))
        checks.append(CheckResult(name="tree", status="failed", duration_ms=0.0, findings=1))
    except Exception as e:  # noqa: BLE001 - even building the context must not crash the gate
        findings.append(_error("setup", e))
        checks.append(CheckResult(name="setup", status="error", duration_ms=0.0, findings=1))
    finally:
        clock.disarm()
        if clock.spent:
            workers.kill()  # what they were doing is past the budget
        workers.close()
        cache.close()
    if clock.spent:
        findings.append(clock.finding(config.limits.verify_seconds))
    suppressed: list[SetAside] = []
    if ctx is not None:
        try:
            findings, suppressed = suppress.apply(ctx, findings)
        except Exception as e:  # noqa: BLE001 - fail closed: every finding counts
            findings.append(_error("suppressions", e))
    metrics = ctx.metrics if ctx is not None else SummaryMetrics()
    quotes = provided.get("verified_quotes")
    if isinstance(quotes, dict):  # a blind spot: offsets into a PDF page's extracted text
        metrics.pdf_citations = sum(
            getattr(q, "pdf_page", None) is not None for q in quotes.values()
        )
    metrics.elapsed_ms = round((time.perf_counter() - started) * 1000, 2)
    judgment = ctx.judgment if ctx is not None else None
    summary = None
    if judgment is not None and ctx is not None and ctx.judge.name != HEURISTIC:
        summary = JudgeSummary.of(ctx.judge.name, judgment)
    report = VerificationReport(
        run_id=request.run_id,
        base=str(base.id) if base is not None else None,
        tip=str(tip.id),
        strictness=level,  # type: ignore[arg-type]
        verdict=verdict_for(findings),
        checks=checks,
        findings=sorted(findings, key=finding_order),
        summary=metrics,
        exempt=exempt,
        suppressed=suppressed,
        judge=summary,
        claim_checks=ctx.claim_checks if ctx is not None else [],
        direction=ctx.direction if ctx is not None else None,
    )
    if shard is not None:  # what its siblings must agree on, and its content's digest
        info = ShardInfo(
            index=shard.index,
            count=shard.count,
            tree=str(tip.tree_id),
            rules=rules_digest(config),
            verifier=verifier_version(judge.name if judge is not None else "none"),
            digest=content_digest(report),
        )
        report = report.model_copy(update={"shard": info})
    anchors = provided.get("verified_quotes") if pages is not None else None
    return Verification(report, judgment, anchors=anchors, pages=pages)  # type: ignore[arg-type]


def finding_order(f: Finding) -> tuple[str, int, str]:
    """The report's order of findings (a stable sort: ties keep the checks' order)."""
    return (f.path or "", f.line or 0, f.code)


def _adjust(found: list[Finding], level: str, config: Config) -> list[Finding]:
    out = []
    for f in found:
        severity = adjusted_severity(f, level, config)
        if severity == "off":
            continue
        if severity != f.severity:
            f = f.model_copy(update={"severity": severity})
        out.append(f)
    return out


class BudgetSpent(Exception):
    """The verification's wall clock (``[limits] verify_seconds``) ran out."""


class Deadline:
    """The heartbeat long work calls: it passes the beat on (finalize renews its lease)
    and, past the verification's deadline, stops the work (BudgetSpent)."""

    def __init__(self, at: float, beat: Callable[[], None] | None) -> None:
        self.at = at
        self.beat = beat
        self.spent: str | None = None  # where the budget ran out
        self._armed = False
        self._previous: Any = None

    def arm(self) -> None:
        """On the main thread of a POSIX process, an alarm at the deadline stops whatever
        runs then (a page's parse, a source's scan): no single step can outlast the budget.
        Elsewhere (a thread, Windows) the budget is checked between steps only."""
        if (
            not hasattr(signal, "setitimer")
            or threading.current_thread() is not threading.main_thread()
        ):
            return
        if signal.getitimer(signal.ITIMER_REAL)[0]:  # someone else's alarm: leave it alone
            return
        if self.expired():  # past it already: the checks see so, no alarm needed
            return
        self._previous = signal.signal(signal.SIGALRM, self._ring)
        self._armed = True
        signal.setitimer(signal.ITIMER_REAL, max(self.at - time.perf_counter(), 1e-6))

    def disarm(self) -> None:
        if self._armed:
            self._armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._previous)

    def _ring(self, signum: int, frame: Any) -> None:
        if not self._armed:
            return
        if self.spent is None:
            where = traceback.extract_stack(frame, limit=1)[0] if frame is not None else None
            self.spent = (
                f"{os.path.basename(where.filename)}:{where.lineno}" if where else "an alarm"
            )
        raise BudgetSpent(self.spent)

    def __call__(self) -> None:
        if self.beat is not None:
            self.beat()
        if self.expired(caller=3):
            raise BudgetSpent(self.spent)

    def expired(self, caller: int = 2) -> bool:
        if self.spent is None and time.perf_counter() > self.at:
            where = traceback.extract_stack(limit=caller)[0]
            self.spent = f"{os.path.basename(where.filename)}:{where.lineno}"
        return self.spent is not None

    def finding(self, seconds: float) -> Finding:
        return finding(
            "verifier.budget",
            None,
            None,
            f"the verification ran past its budget of {seconds:g} s of wall clock ([limits] "
            f"verify_seconds; stopped at {self.spent}): the checks not yet done were not done",
        )


def _error(where: str, e: Exception) -> Finding:
    frame = traceback.extract_tb(e.__traceback__)[-1] if e.__traceback__ else None
    at = f" at {Path(frame.filename).name}:{frame.lineno}" if frame else ""
    return finding(
        "verifier.error", None, None, f"check {where!r} failed: {type(e).__name__}: {e}{at}"
    )
