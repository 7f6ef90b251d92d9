"""Finalize: pending → verifying → the verifier votes → commit | reject | revise.

Commit is a compare-and-swap fast-forward of main.  If main moved, the run is
rebased in memory and verified again (bors' "not rocket science" rule).
"""

from __future__ import annotations

import os
import socket
import traceback
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pygit2

from . import gitrepo, records
from .errors import DirtyWorktreeError, RunError
from .gitrepo import MAIN
from .models import MAX_LOOPS, Finding, LoggedFinding, Plan, RunRecord, VerifierVerdict
from .records import MainMoved
from .runid import now_iso

if TYPE_CHECKING:
    from .run import Run


@dataclass
class FinalizeResult:
    """What finalize did; ``exit_code`` follows the CLI contract."""

    run_id: str
    status: str
    verdict: str | None
    reason: str | None = None
    findings: list[Finding] = field(default_factory=list)
    tip: str | None = None
    loop: int = 1
    report: dict[str, Any] | None = None

    @property
    def exit_code(self) -> int:
        if self.status == "committed":
            return 0
        if self.status == "rejected" or self.status == "abandoned":
            return 1
        return 3 if self.verdict == "revise" else 0


def finalize(run: Run, *, verify: bool, draft_only: bool, verifier: Any) -> FinalizeResult:
    ws = run.ws
    ws.sweep()
    if draft_only:
        row = run.refresh()
        _require_pending(run, row)
        return FinalizeResult(
            run.run_id,
            "pending",
            row["verdict"],
            "draft: left for inspection",
            tip=str(run.tip()),
            loop=row["loop_count"],
        )
    loop = _claim(run)
    try:
        return _finalize_claimed(run, loop, verify, verifier)
    except DirtyWorktreeError:
        with ws.store.immediate():
            revised = run.row.get("verdict") == "revise"
            ws.store.update_run(
                run.run_id,
                status="pending",
                finalizer_pid=None,
                finalizer_host=None,
                loop_count=loop - 1 if revised else loop,
            )
        raise


def _require_pending(run: Run, row: dict[str, Any]) -> None:
    if row["status"] == "verifying":
        raise RunError(f"run {run.run_id} is being finalized by process {row['finalizer_pid']}")
    if row["status"] != "pending":
        raise RunError(f"run {run.run_id} is already {row['status']}; nothing to finalize")


def _claim(run: Run) -> int:
    """Atomically move pending → verifying, recording who holds the run."""
    store = run.ws.store
    with store.immediate():
        row = run.refresh()
        _require_pending(run, row)
        loop = row["loop_count"] if row["verdict"] != "revise" else row["loop_count"] + 1
        store.update_run(
            run.run_id,
            status="verifying",
            finalizer_pid=os.getpid(),
            finalizer_host=socket.gethostname(),
            loop_count=loop,
        )
    run.row["loop_count"] = loop
    return int(loop)


def _finalize_claimed(run: Run, loop: int, verify: bool, verifier: Any) -> FinalizeResult:
    ws = run.ws
    plan = run.plan()
    if not verify:
        landed = land(run, plan, None, loop, unverified=True)
        if landed is None:  # main moved: no verification to redo, just rebase and land
            rebased = _rebase(run, plan, None, loop)
            if isinstance(rebased, FinalizeResult):
                return rebased
            landed = land(run, rebased, None, loop, unverified=True)
        if landed is None:
            return reject(run, plan, None, loop, "stale: main kept moving")
        return landed
    for _attempt in range(ws.config.runs.max_rebases + 1):
        verdict = _vote(run, plan, verifier)
        if verdict.verdict == "reject":
            return reject(run, plan, verdict, loop, _reason(verdict))
        if verdict.verdict == "revise":
            if loop >= MAX_LOOPS:
                return reject(
                    run,
                    plan,
                    verdict,
                    loop,
                    f"revise limit reached ({MAX_LOOPS} loops): {_reason(verdict)}",
                )
            return revise(run, plan, verdict, loop)
        result = land(run, plan, verdict, loop)
        if result is not None:
            return result
        plan_or_result = _rebase(run, plan, verdict, loop)
        if isinstance(plan_or_result, FinalizeResult):
            return plan_or_result
        plan = plan_or_result
    return reject(
        run,
        plan,
        None,
        loop,
        f"stale: main kept moving; gave up after {ws.config.runs.max_rebases} rebases",
    )


def _vote(run: Run, plan: Plan, verifier: Any) -> VerifierVerdict:
    ws = run.ws
    if _log_append_only(run, plan):
        return VerifierVerdict(
            verdict="commit", reasoning="append to wiki/log.md only: verifier skipped"
        )
    try:
        v = verifier or ws.verifier
        tree = ws.repo[pygit2.Oid(hex=plan.tip)].tree
        return v.verify(run.run_id, ws, plan, tree)  # type: ignore[no-any-return]
    except Exception as e:  # noqa: BLE001 - fail closed, always
        where = traceback.extract_tb(e.__traceback__)[-1]
        return VerifierVerdict(
            verdict="reject",
            reasoning="the verifier failed; failing closed",
            per_page_findings=[
                Finding(
                    code="verifier.error",
                    severity="critical",
                    message=f"{type(e).__name__}: {e} (at {os.path.basename(where.filename)}:{where.lineno})",
                    hint="this is a wikigate or verifier bug; the run cannot land until it verifies",
                )
            ],
        )


def _log_append_only(run: Run, plan: Plan) -> bool:
    repo = run.ws.repo
    base = repo[pygit2.Oid(hex=plan.meta.base)].tree
    tip = repo[pygit2.Oid(hex=plan.tip)].tree
    if gitrepo.changed_paths(repo, base, tip) != ["wiki/log.md"]:
        return False
    old = gitrepo.read_blob(repo, base, "wiki/log.md")
    new = gitrepo.read_blob(repo, tip, "wiki/log.md")
    return old is not None and new is not None and len(new) > len(old) and new.startswith(old)


def _reason(verdict: VerifierVerdict) -> str:
    worst = [f for f in verdict.findings if f.severity == "critical"] or verdict.findings
    if not worst:
        return verdict.reasoning or verdict.verdict
    first = worst[0]
    where = (
        f"{first.path}:{first.line}: "
        if first.path and first.line
        else (f"{first.path}: " if first.path else "")
    )
    more = f" (+{len(worst) - 1} more)" if len(worst) > 1 else ""
    return f"{where}{first.code}: {first.message}{more}"


def _record(
    run: Run, plan: Plan, vote: VerifierVerdict | None, loop: int, **update: Any
) -> RunRecord:
    base = records.record_from_db(run.ws, run.run_id)
    findings = [f for f in base.findings if f.loop != loop]
    if vote is not None:
        findings += [
            LoggedFinding(
                loop=loop,
                code=f.code,
                severity=f.severity,
                path=f.path,
                line=f.line,
                message=f.message,
            )
            for f in vote.findings
        ]
        update.setdefault("verifier_preset", vote.preset)
        update.setdefault("verifier_usage", vote.tokens_used)
    values: dict[str, Any] = {
        "tip_commit": plan.tip,
        "loop_count": loop,
        "findings": findings,
        "base_commit": plan.meta.base,
        "usage": plan.meta.usage,
        "budget": plan.meta.budget,
        "recorded_at": now_iso(),
    }
    values.update(update)
    return base.model_copy(update=values)


def _result(record: RunRecord, verdict: VerifierVerdict | None) -> FinalizeResult:
    return FinalizeResult(
        record.run_id,
        record.status,
        record.verdict,
        record.reject_reason,
        findings=verdict.findings if verdict else [],
        tip=record.tip_commit,
        loop=record.loop_count,
        report=verdict.report if verdict else None,
    )


# ---------------------------------------------------------------- outcomes


def land(
    run: Run,
    plan: Plan,
    verdict: VerifierVerdict | None,
    loop: int,
    *,
    unverified: bool = False,
    override: dict[str, Any] | None = None,
) -> FinalizeResult | None:
    """Fast-forward main to the run's tip; None when main moved (caller rebases)."""
    ws = run.ws
    update: dict[str, Any] = {
        "status": "committed",
        "ended_at": now_iso(),
        "unverified": unverified,
        "verdict": verdict.verdict if verdict else None,
        "reject_reason": None,
    }
    update.update(override or {})
    record = _record(run, plan, verdict, loop, **update)
    base = pygit2.Oid(hex=plan.meta.base)
    tip_tree = ws.repo[pygit2.Oid(hex=plan.tip)].tree
    checkout = (
        (lambda: gitrepo.checkout_fast_forward(ws.repo, tip_tree))
        if (gitrepo.main_checked_out(ws.repo))
        else None
    )
    try:
        records.publish_terminal(
            ws,
            record,
            delete_branch=True,
            keep_failed=False,
            move_main_from=base,
            before_commit=checkout,
        )
    except MainMoved:
        return None
    if override:
        failed = ws.failed_ref(run.run_id)
        gitrepo.with_ref_lock(ws.repo, [failed], lambda txn: txn.remove(failed))
    return _result(record, verdict)


def _rebase(
    run: Run, plan: Plan, verdict: VerifierVerdict | None, loop: int
) -> Plan | FinalizeResult:
    """Replay the run onto main's new tip and point the run branch there."""
    ws = run.ws
    repo = ws.repo
    main, new_tip, conflicts = _replay_onto_main(repo, plan)
    if new_tip is None:
        return reject(
            run,
            plan,
            verdict,
            loop,
            f"conflict: main changed {', '.join(conflicts)} since the run started",
        )
    old_tip = pygit2.Oid(hex=plan.tip)
    branch = run.branch
    if gitrepo.ref_target(repo, branch) is not None:

        def body(txn: pygit2.ReferenceTransaction) -> None:
            if gitrepo.ref_target(repo, branch) != old_tip:
                raise RunError(f"run {run.run_id} changed while it was being finalized")
            txn.set_target(branch, new_tip, message="wikigate: rebase onto main")

        gitrepo.with_ref_lock(repo, [branch], body)
    with ws.store.immediate():
        ws.store.update_run(run.run_id, tip_commit=str(new_tip), base_commit=str(main))
    return run.plan(new_tip)


def reject(
    run: Run, plan: Plan, verdict: VerifierVerdict | None, loop: int, reason: str
) -> FinalizeResult:
    record = _record(
        run,
        plan,
        verdict,
        loop,
        status="rejected",
        ended_at=now_iso(),
        verdict="reject",
        reject_reason=reason,
    )
    records.publish_terminal(run.ws, record, delete_branch=True, keep_failed=True)
    return _result(record, verdict)


def revise(run: Run, plan: Plan, verdict: VerifierVerdict, loop: int) -> FinalizeResult:
    record = _record(
        run, plan, verdict, loop, status="pending", verdict="revise", reject_reason=None
    )
    records.publish_note(run.ws, record)
    return _result(record, verdict)


def abort(run: Run, finding: Finding) -> FinalizeResult:
    """Reject a run at once (a failed str_replace): nothing reaches main."""
    loop = int(run.refresh()["loop_count"])
    verdict = VerifierVerdict(
        verdict="reject", reasoning="run aborted", per_page_findings=[finding]
    )
    return reject(run, run.plan(), verdict, loop, _reason(verdict))


def override(run: Run, reason: str, source: str) -> RunRecord:
    """Commit a rejected run anyway: no re-verification, actor and reason recorded."""
    ws = run.ws
    row = run.refresh()
    if row["status"] != "rejected":
        raise RunError(f"run {run.run_id} is {row['status']}; only rejected runs can be overridden")
    plan = run.plan()
    details = {
        "verdict": "commit_override",
        "override_actor": gitrepo.actor(ws.repo),
        "override_reason": reason,
        "override_source": source,
        "override_at": now_iso(),
    }
    for _attempt in range(ws.config.runs.max_rebases + 1):
        result = land(run, plan, None, int(row["loop_count"]), override=details)
        if result is not None:
            return records.record_from_db(ws, run.run_id)
        _main, new_tip, conflicts = _replay_onto_main(ws.repo, plan)
        if new_tip is None:
            raise RunError(f"cannot override: main changed {', '.join(conflicts)} since the run")
        failed = ws.failed_ref(run.run_id)
        _point(ws.repo, failed, new_tip)
        plan = run.plan(new_tip)
    raise RunError("cannot override: main kept moving; try again")


def _replay_onto_main(
    repo: pygit2.Repository, plan: Plan
) -> tuple[pygit2.Oid, pygit2.Oid | None, list[str]]:
    """Rebase the run's commits onto main's current tip in memory: (main, new tip, conflicts)."""
    main = gitrepo.ref_target(repo, MAIN)
    assert main is not None
    commits = [gitrepo.commit_at(repo, op.commit) for op in plan.ops]
    new_tip, conflicts = gitrepo.rebase_commits(repo, commits, gitrepo.commit_at(repo, main))
    return main, new_tip, conflicts


def _point(repo: pygit2.Repository, ref: str, target: pygit2.Oid) -> None:
    def body(txn: pygit2.ReferenceTransaction) -> None:
        txn.set_target(ref, target, message="wikigate: rebase onto main")

    gitrepo.with_ref_lock(repo, [ref], body)
