"""Finalize: pending → verifying → the verifier votes → commit | reject | revise.

Commit is a compare-and-swap fast-forward of main.  If main moved, the run is
rebased in memory and verified again (bors' "not rocket science" rule); after
``runs.max_rebases`` lost races the finalizer waits its turn for landing
instead of giving up, so a run that does not conflict always commits.

The lease on a run (pending → verifying, lease.py) is renewed by the finalizer
while it works and reclaimed by ``sweep`` once it expires; it is released on
every exit path, so a long-lived process never leaves a run stuck in
``verifying``.

Finalize takes the engine's ``Run`` (its ``Env``: repository, rules, telemetry
store), never the Python API's ``Workspace``: the verifier a workspace chose comes in
as ``verifier``.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pygit2

from . import attest, decision, gitrepo, landing, records, worktree
from .codes import finding
from .decision import Decision, Word
from .errors import RunError
from .gitrepo import branch_name
from .kinds import VERDICT_EXIT
from .lease import Lease, landing_turn, require_pending, turn_taken
from .models import (
    MAX_LOOPS,
    NEEDS_HUMAN_REVIEW,
    RUN_TYPES,
    Finding,
    LoggedFinding,
    Plan,
    RunMeta,
    RunRecord,
    VerificationRef,
    VerifierVerdict,
)
from .plan import RunForged, RunSchemaError
from .publish import MainMoved, publish_note, publish_terminal
from .reconcile import landed_tip, reconcile, sweep
from .refs import process_lock, with_ref_lock
from .runid import now_iso
from .verify import Request, cache_path, verdict_of, verify

if TYPE_CHECKING:
    from wikigate.verifier import Verifier
    from wikigate.verifier.protocol import SourceShelf

    from .run import Run
    from .store import RunRow


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
    untouched: list[str] = field(default_factory=list)  # a person's edits, left as they were
    # the verification's feedback (verifier/advice.py), as the run's record keeps it
    next_actions: list[str] = field(default_factory=list)
    blind_spots: list[str] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)  # what a person must answer
    trunk: str = "main"  # the branch it lands on, by name (git config wikigate.mainBranch)

    @property
    def exit_code(self) -> int:
        """The CLI's exit code (kinds.VERDICT_EXIT): what happened to the run, else its
        verdict (a pending run: revise, needs_human_review, or a draft, 0)."""
        if self.status == "committed":
            return VERDICT_EXIT["commit"]
        if self.status in ("rejected", "abandoned"):
            return VERDICT_EXIT["reject"]
        waits = self.verdict in ("revise", NEEDS_HUMAN_REVIEW)  # else a draft: 0
        return VERDICT_EXIT[self.verdict] if waits and self.verdict else 0


def finalize(
    run: Run,
    *,
    verify: bool,
    draft_only: bool,
    verifier: Verifier | None = None,
    judge: str | None = None,
    sources: SourceShelf | None = None,
) -> FinalizeResult:
    """``verifier``: the one to use (None: the one the rules name, `wikigate.verify`);
    ``judge``: ``--judge`` (anthropic | offline), which may raise the rules' judge only;
    ``sources``: source texts the caller decoded already (``Request.sources``)."""
    env = run.env
    sweep(env)
    if draft_only:
        row = run.refresh()
        require_pending(run, row)
        return FinalizeResult(
            run.run_id,
            "pending",
            row["verdict"],
            "draft: left for inspection",
            tip=str(run.tip()),
            # the loops verified, 0 before a verdict: `runs list`'s (present.loops_done)
            loop=row["loop_count"] if row["verdict"] is not None else 0,
        )
    key = None
    if verify:  # a key that cannot sign stops us before the run is leased
        key = attest.signing_key(env.repo)
        attest.check_key(env.repo)
    lease = Lease.take(run)
    try:
        asked = Asked(verifier, judge, lease.renew, sources) if verify else None
        return _finalize_leased(run, lease, asked, key)
    finally:
        lease.release()


@dataclass(frozen=True)
class Asked:
    """How finalize verifies: the verifier chosen (None: the rules'), ``--judge``, the
    lease renewal the verification calls between steps, and the source texts decoded
    already (an MCP session's)."""

    verifier: Verifier | None
    judge: str | None
    heartbeat: Callable[[], None]
    sources: SourceShelf | None = None


def _finalize_leased(
    run: Run, lease: Lease, asked: Asked | None, key: str | None
) -> FinalizeResult:
    env = run.env
    loop = lease.loop
    try:
        plan = run.plan()
    except (RunSchemaError, RunForged) as e:
        return _reject_unreadable(run, loop, e)
    if _changes_nothing(run, plan) and _trace_as_pinned(run):
        return _abandon_empty(run, loop)
    with ExitStack() as turn:
        way = _Landing(run, plan, loop, turn, lease, unverified=asked is None)
        if turn_taken(env.repo):  # others are queued for main: join them, don't race
            way.queue()
            caught_up = _rebase_if_behind(run, plan, lease.loop)
            if isinstance(caught_up, FinalizeResult):
                return caught_up
            way.plan = caught_up

        def check(plan: Plan) -> FinalizeResult | None:
            """Verify ``plan`` and decide: a result unless the decision is to land it."""
            lease.renew()
            verdict = way.verdict = _vote(run, plan, asked) if asked is not None else None
            if verdict is not None:
                way.verified.append(_attest(run, plan, verdict, loop, key))
            chosen = _decide(verdict, loop, _repeat(run, verdict, loop))
            if chosen.action == "reject":
                why = chosen.reason or chosen.action
                return reject(run, plan, verdict, loop, why, verified=way.verified)
            if verdict is not None and chosen.action in ("revise", "ask_person"):
                return keep_pending(run, plan, verdict, loop, chosen, verified=way.verified)
            return None

        way.check = check  # a replay onto a moved main is verified and decided again
        stopped = check(way.plan)
        if stopped is not None:
            return stopped
        return landing.land(way.plan.tip, way.plan.meta.base, way)


def _decide(
    verdict: VerifierVerdict | None, loop: int, repeat: decision.Repeat | None = None
) -> Decision:
    """The one decision (decision.py) on this verification; None: not verified, lands."""
    if verdict is None:
        return decision.decide(None, loop=loop, limit=MAX_LOOPS)
    return decision.decide(
        verdict.verdict, loop=loop, limit=MAX_LOOPS, why=_reason(verdict), repeat=repeat
    )


def _repeat(run: Run, verdict: VerifierVerdict | None, loop: int) -> decision.Repeat | None:
    """Whether this verification fails on exactly what the loop before failed on: the same
    failure signatures (``models.signature``; counted, critical and major only) as the
    run's record keeps for that loop. None: the first loop, nothing failed, or a record
    from before signatures."""
    if verdict is None or loop <= 1 or not verdict.findings:
        return None
    from collections import Counter

    failing = ("critical", "major")  # what sent it back; a minor finding is no failure
    before = records.record_from_db(run.env.store, run.run_id).findings
    last = Counter(f.signature for f in before if f.loop == loop - 1 and f.severity in failing)
    if not last or None in last:
        return None
    # counted, not a set: fixing one of two identical broken links is progress (review)
    now = Counter(f.signature for f in verdict.findings if f.severity in failing)
    if now != last:
        return None
    return decision.Repeat(loop - 1, now.total(), run.env.config.runs.on_no_progress)


EMPTY = (
    "the run changes nothing (its staged tree is its base's: no write, replace or delete "
    "staged, or every one refused); nothing to land"
)


def _changes_nothing(run: Run, plan: Plan) -> bool:
    """The run's tip holds its base's tree: landing it would put only empty commits on
    main."""
    repo = run.env.repo
    tip = gitrepo.commit_at(repo, plan.tip)
    return tip.tree_id == gitrepo.commit_at(repo, plan.meta.base).tree_id


def _trace_as_pinned(run: Run) -> bool:
    """The run's trace ref ends where wikigate pinned it (or there is none, and none was
    pinned). An empty run whose trace is not is verified, not abandoned: the trace check
    rejects it, run.trace_tampered on record (trial 28b N4: "abandoned: the run changes
    nothing" said nothing of the tampering the server had just refused a call for)."""
    from .trace import TraceTampered, pinned_tip

    try:
        pinned_tip(run.env.repo, run.run_id, run.refresh())
    except TraceTampered:
        return False
    return True


def _abandon_empty(run: Run, loop: int) -> FinalizeResult:
    """An empty run ends abandoned (recorded as ``run abandon`` records it: its note, its
    commits kept at ``refs/wikigate/failed/<id>``), landing nothing."""
    reconcile(run.env, run.refresh(), EMPTY, abandon=True)
    row = run.refresh()
    return FinalizeResult(
        run.run_id, str(row["status"]), row["verdict"], row["reject_reason"], loop=loop
    )


def _reject_unreadable(run: Run, loop: int, error: RunSchemaError | RunForged) -> FinalizeResult:
    """A run whose metadata a newer wikigate wrote (run.schema), or that commits made
    outside wikigate rewrote (run.forged): rejected, recorded from what this clone's
    database says of it (never from its trailers)."""
    row = run.refresh()
    meta = RunMeta(
        run_id=run.run_id,
        run_type=row["run_type"] if row["run_type"] in RUN_TYPES else "lint",  # type: ignore[arg-type]
        triggered_by=row["triggered_by"],
        base=row["base_commit"],
        started_at=row["started_at"],
    )
    plan = Plan(meta=meta, ops=[], tip=str(run.tip()))
    code, why = (
        ("run.schema", "the run's metadata is of an unknown schema version")
        if isinstance(error, RunSchemaError)
        else ("run.forged", "the run's metadata is not what `run start` recorded")
    )
    verdict = VerifierVerdict(
        verdict="reject", reasoning=why, per_page_findings=[finding(code, None, None, str(error))]
    )
    return reject(run, plan, verdict, loop, _reason(verdict))


def _vote(run: Run, plan: Plan, asked: Asked) -> VerifierVerdict:
    """The verifier's vote on the plan's tip against its base (`wikigate.verify`)."""
    repo = run.env.repo
    done = verify(
        Request(
            repo,
            gitrepo.commit_at(repo, plan.tip),
            gitrepo.commit_at(repo, plan.meta.base),
            plan=plan,
            judge=asked.judge,
            judge_may_lower=False,
            cache_path=cache_path(repo),
            heartbeat=asked.heartbeat,
            sources=asked.sources,
        ),
        verifier=asked.verifier,
    )
    return verdict_of(done)


def _attest(
    run: Run, plan: Plan, verdict: VerifierVerdict, loop: int, key: str | None
) -> VerificationRef:
    """The verification's artifacts and attestation as git objects (attest.py)."""
    repo = run.env.repo
    return attest.attest(
        repo,
        verdict,
        base=gitrepo.commit_at(repo, plan.meta.base),
        tip=gitrepo.commit_at(repo, plan.tip),
        # what ran, named by what was loaded (wikigate.verify sets it, not the
        # verifier): the server takes only its own (hooks/attested.py)
        verifier=verdict.verifier or "",
        run_id=run.run_id,
        loop=loop,
        key=key,
    )


def _reason(verdict: VerifierVerdict) -> str:
    """The first of the worst findings, and how many more there are of every severity:
    the count covers every finding the outcome lists under it."""
    findings = verdict.findings
    worst = [f for f in findings if f.severity == "critical"] or findings
    if not worst:
        return verdict.reasoning or verdict.verdict
    first = worst[0]
    where = (
        f"{first.path}:{first.line}: "
        if first.path and first.line
        else (f"{first.path}: " if first.path else "")
    )
    rest = [f for f in findings if f is not first]
    by_severity: dict[str, int] = {}
    for f in rest:
        by_severity[f.severity] = by_severity.get(f.severity, 0) + 1
    counts = ", ".join(
        f"{by_severity[s]} {s}" for s in ("critical", "major", "minor") if s in by_severity
    )
    more = f" (+{len(rest)} more: {counts})" if rest else ""
    return f"{where}{first.code}: {first.message}{more}"


def _record(
    run: Run,
    plan: Plan,
    vote: VerifierVerdict | None,
    loop: int,
    verified: Sequence[VerificationRef] = (),
    **update: Any,
) -> RunRecord:
    base = records.record_from_db(run.env.store, run.run_id)
    # a new vote replaces its loop's findings; without one (an override, an approval) they
    # stay: the record keeps what a person's word landed (wikigate.baseline reads them)
    findings = [f for f in base.findings if vote is None or f.loop != loop]
    if verified:
        update.setdefault("verifications", [*base.verifications, *verified])
    if vote is not None:
        prints = records.finding_fingerprints(run.env.repo, plan.tip, vote.findings)
        findings += [
            LoggedFinding(
                loop=loop,
                code=f.code,
                severity=f.severity,
                path=f.path,
                line=f.line,
                message=f.message,
                fingerprint=fp,
                signature=f.signature,
            )
            for f, fp in zip(vote.findings, prints, strict=True)
        ]
        update.setdefault("verifier_preset", vote.preset)
        update.setdefault("verifier_usage", vote.tokens_used)
        exempt = (vote.report or {}).get("exempt")
        update.setdefault("exempt", list(exempt) if isinstance(exempt, list) else [])
        for said in ("next_actions", "blind_spots"):  # the report derived them (advice.py)
            given = (vote.report or {}).get(said)
            update.setdefault(
                said, [x for x in given if isinstance(x, str)] if isinstance(given, list) else []
            )
    values: dict[str, Any] = {
        "tip_commit": plan.tip,
        "loop_count": loop,
        "findings": findings,
        "base_commit": plan.meta.base,
        "usage": plan.meta.usage,
        "budget": plan.meta.budget,
        "recorded_at": now_iso(),
        "questions": [],  # only a run waiting for a person has them (keep_pending)
    }
    values.update(update)
    return base.model_copy(update=values)


def _result(run: Run, record: RunRecord, verdict: VerifierVerdict | None) -> FinalizeResult:
    return FinalizeResult(
        record.run_id,
        record.status,
        record.verdict,
        record.reject_reason,
        findings=verdict.findings if verdict else [],
        tip=record.tip_commit,
        loop=record.loop_count,
        report=verdict.report if verdict else None,
        next_actions=list(record.next_actions),
        blind_spots=list(record.blind_spots),
        questions=list(record.questions),
        trunk=branch_name(run.env.main),
    )


# ---------------------------------------------------------------- outcomes


@dataclass
class _Landing:
    """finalize's way to land (``wikigate.landing.Way``): main is this repository's ref,
    moved in one transaction with the run's record (``land``); after ``max_rebases``
    lost races the landing waits for its turn instead of racing."""

    run: Run
    plan: Plan  # the commit to land (the decided one, or it replayed) and its base
    loop: int
    turn: ExitStack
    lease: Lease | None = None  # None: an override (no lease on a rejected run)
    verdict: VerifierVerdict | None = None
    unverified: bool = False
    override: dict[str, Any] | None = None
    verified: list[VerificationRef] = field(default_factory=list)
    fence: tuple[str, pygit2.Oid] | None = None  # (ref, commit decided on); None: run branch
    in_place: bool = True  # a replay moves the run branch; False: in memory (an override)
    check: Callable[[Plan], FinalizeResult | None] | None = None  # a replay verified again
    queued: bool = False

    def queue(self) -> None:
        self.turn.enter_context(landing_turn(self.run.env.repo, self.lease))
        self.queued = True

    def fast_forward(self, base: str, tip: str) -> bool:
        return tip == self.plan.tip and base == self.plan.meta.base

    def move(self, base: str, tip: str) -> FinalizeResult | None:
        if (base, tip) != (self.plan.meta.base, self.plan.tip):
            raise RunError(
                f"run {self.run.run_id}: landing {tip[:12]} from {base[:12]}, but the plan is "
                f"{self.plan.tip[:12]} on {self.plan.meta.base[:12]}; nothing was committed"
            )
        return land(
            self.run,
            self.plan,
            self.verdict,
            self.loop,
            unverified=self.unverified,
            override=self.override,
            verified=self.verified,
            decided=self.fence,
        )

    def lost(self, times: int) -> FinalizeResult | None:
        if not self.queued and times == self.run.env.config.runs.max_rebases + 1:
            self.queue()  # stop racing: wait for our turn
        return None

    def main(self) -> str:
        now = gitrepo.ref_target(self.run.env.repo, self.run.env.main)
        if now is None:
            raise RunError(f"{branch_name(self.run.env.main)} is gone; nothing was committed")
        return str(now)

    def replay(self, decided: str, onto: str) -> str | FinalizeResult:
        """The run's commits (the decided commit's changes) replayed onto ``onto``."""
        run, base = self.run, pygit2.Oid(hex=onto)
        if self.in_place:
            rebased = _rebase(run, self.plan, self.verdict, self.loop, self.verified, base)
            if isinstance(rebased, FinalizeResult):
                return rebased
            self.plan = rebased
        else:
            _main, new_tip, conflicts = _replay_onto_main(run.env.repo, self.plan, base)
            if new_tip is None:
                raise RunError(
                    f"cannot override: {branch_name(run.env.main)} changed {', '.join(conflicts)} "
                    "since the run"
                )
            self.plan = run.plan(new_tip)
        stop = self.check(self.plan) if self.check is not None else None
        return self.plan.tip if stop is None else stop


def land(
    run: Run,
    plan: Plan,
    verdict: VerifierVerdict | None,
    loop: int,
    *,
    unverified: bool = False,
    override: dict[str, Any] | None = None,
    verified: Sequence[VerificationRef] = (),
    decided: tuple[str, pygit2.Oid] | None = None,
) -> FinalizeResult | None:
    """Fast-forward main to the run's tip; None when main moved (caller rebases).

    ``decided`` is the commit the decision was about and the ref it was found at
    (default: ``plan.tip`` on the run branch): the landing is fenced on it, so a ref
    moved after deciding changes nothing (RunError). A checked-out main's index and
    files follow (DirtyWorktreeError, with nothing changed, when a person's edits sit
    on a path the run changes).
    """
    env = run.env
    repo = env.repo
    update: dict[str, Any] = {
        "status": "committed",
        "ended_at": now_iso(),
        "unverified": unverified,
        "verdict": verdict.verdict if verdict else None,
        "reject_reason": None,
    }
    update.update(override or {})
    record = _record(run, plan, verdict, loop, verified, **update)
    base = pygit2.Oid(hex=plan.meta.base)
    tip = pygit2.Oid(hex=plan.tip)
    fence_ref, fence = decided or (run.branch, tip)
    with process_lock(repo):
        worktree.recover(repo)  # a dead finalizer's half-done landing comes first
        if gitrepo.ref_target(repo, env.main) != base:
            return None
        landing = worktree.Landing.prepare(repo, run.run_id, base, tip)
        try:
            left = publish_terminal(
                env,
                record,
                delete_branch=True,
                keep_failed=False,
                move_main_from=base,
                landing=landing,
                fence=fence,
                fence_ref=fence_ref,
                drop_failed=fence_ref == env.failed_ref(run.run_id),
                verified=verified,
            )
        except MainMoved:
            return None
    result = _result(run, record, verdict)
    result.untouched = left
    return result


def _rebase_if_behind(run: Run, plan: Plan, loop: int) -> Plan | FinalizeResult:
    """Before verifying in turn: onto main's tip, if main moved since the run's base."""
    if gitrepo.ref_target(run.env.repo, run.env.main) == pygit2.Oid(hex=plan.meta.base):
        return plan
    return _rebase(run, plan, None, loop)


def _rebase(
    run: Run,
    plan: Plan,
    verdict: VerifierVerdict | None,
    loop: int,
    verified: Sequence[VerificationRef] = (),
    onto: pygit2.Oid | None = None,
) -> Plan | FinalizeResult:
    """Replay the run onto main's new tip (or ``onto``) and point the run branch there."""
    env = run.env
    repo = env.repo
    main, new_tip, conflicts = _replay_onto_main(repo, plan, onto)
    if new_tip is None:
        return reject(
            run,
            plan,
            verdict,
            loop,
            f"conflict: {branch_name(run.env.main)} changed {', '.join(conflicts)} since the run "
            "started",
            verified=verified,
        )
    old_tip = pygit2.Oid(hex=plan.tip)
    branch = run.branch

    def body(txn: Any) -> None:
        if gitrepo.ref_target(repo, branch) != old_tip:
            raise RunError(
                f"run {run.run_id} changed or was reclaimed by `wikigate sweep` "
                "while it was being finalized"
            )
        txn.set_target(branch, new_tip, message=f"wikigate: rebase onto {branch_name(env.main)}")

    with_ref_lock(repo, [branch], body)
    with env.store.immediate():
        env.store.update_run(run.run_id, tip_commit=str(new_tip), base_commit=str(main))
    if plan.trace is not None:  # the merge is wikigate's: the trace says so (checks/trace.py)
        staged = {op.path for op in plan.ops if op.path is not None}
        run.trace_rebase(old_tip, new_tip, main, staged)
    return run.plan(new_tip)


def reject(
    run: Run,
    plan: Plan,
    verdict: VerifierVerdict | None,
    loop: int,
    reason: str,
    *,
    verified: Sequence[VerificationRef] = (),
    decided: dict[str, Any] | None = None,
) -> FinalizeResult:
    """Close the run (its tip kept at refs/wikigate/failed/<id>). ``decided``: a person's
    decision (actor, reason, source, verdict) recorded with it."""
    update: dict[str, Any] = {
        "status": "rejected",
        "ended_at": now_iso(),
        "verdict": "reject",
        "reject_reason": reason,
        **(decided or {}),
    }
    record = _record(run, plan, verdict, loop, verified, **update)
    fence = pygit2.Oid(hex=plan.tip) if gitrepo.ref_target(run.env.repo, run.branch) else None
    publish_terminal(
        run.env, record, delete_branch=True, keep_failed=True, fence=fence, verified=verified
    )
    return _result(run, record, verdict)


def keep_pending(
    run: Run,
    plan: Plan,
    verdict: VerifierVerdict,
    loop: int,
    decided: Decision,
    *,
    verified: Sequence[VerificationRef] = (),
) -> FinalizeResult:
    """The run stays pending: ``revise`` sends the writer round another loop;
    ``needs_human_review`` is a judgment call that waits for a person (``verify approve``
    / ``verify reject``)."""
    record = _record(
        run,
        plan,
        verdict,
        loop,
        verified,
        status="pending",
        verdict=decided.verdict,
        reject_reason=None,
        questions=_questions(verdict, decided),
    )
    publish_note(run.env, record, verified)
    result = _result(run, record, verdict)
    if decided.action == "ask_person" and decided.reason != decision.A_PERSON:
        result.reason = decided.reason  # why it waits (e.g. no progress), for the writer
    return result


def _questions(verdict: VerifierVerdict, decided: Decision) -> list[str]:
    """What the person must answer when the run waits for one (verifier/advice.py)."""
    if decided.action != "ask_person":
        return []
    return decision.questions(verdict.findings, stuck=decided.reason)


def decide(run: Run, reason: str, *, approve: bool, source: str = "cli") -> FinalizeResult:
    """A person's decision on a run that waits for one (needs_human_review): approve lands
    it as verified (verdict ``commit_approved``), reject closes it (``reject_reviewed``).
    Actor and reason are recorded like an override's. The run must still be what was
    verified: a write since sends it back to ``run finalize``."""
    env = run.env
    row = run.refresh()
    if row["status"] != "pending" or row["verdict"] != NEEDS_HUMAN_REVIEW:
        raise RunError(
            f"run {run.run_id} is {row['status']}"
            + (f" ({row['verdict']})" if row["verdict"] else "")
            + "; only a pending run whose verdict is needs_human_review waits for a person"
        )
    reviewed = _verified_tip(run)  # what the person was shown
    if reviewed is None or run.tip() != reviewed:
        raise RunError(
            f"run {run.run_id} changed since it was verified; finalize it again "
            "(`wikigate run finalize RUN`) before deciding"
        )
    actor = gitrepo.actor(env.repo)
    details: dict[str, str | None] = {
        "override_actor": actor,
        "override_reason": reason,
        "override_source": source,
        "override_at": now_iso(),
    }
    word = Word("approve" if approve else "reject", actor, reason)
    lease = Lease.take(run)  # may wait for the database: the decision stays on `reviewed`
    try:
        plan = run.plan(reviewed)  # landed fenced on the branch still being `reviewed`
        loop = lease.loop
        chosen = decision.decide(NEEDS_HUMAN_REVIEW, loop=loop, limit=MAX_LOOPS, word=word)
        details["verdict"] = chosen.verdict
        if chosen.action == "reject":
            return reject(run, plan, None, loop, chosen.reason or reason, decided=details)
        with ExitStack() as turn:
            way = _Landing(run, plan, loop, turn, lease, override=details)
            return landing.land(plan.tip, plan.meta.base, way)
    finally:
        lease.release()


def _verified_tip(run: Run) -> pygit2.Oid | None:
    """The tip the run's last verification was of: its attestation's, a git blob the
    database names (a staging op since moves the branch, not this)."""
    done = run.env.store.verifications(run.run_id)
    if not done:
        return None
    try:
        blob = gitrepo.blob_at(run.env.repo, done[-1]["attestation"])
        return pygit2.Oid(hex=attest.parse(blob.data).tip_commit)
    except Exception:  # noqa: BLE001 - no readable record of it: nothing was verified
        return None


def abort(run: Run, finding: Finding) -> FinalizeResult:
    """Reject a run at once (a failed str_replace): nothing reaches main."""
    loop = int(run.refresh()["loop_count"])
    verdict = VerifierVerdict(
        verdict="reject", reasoning="run aborted", per_page_findings=[finding]
    )
    return reject(run, run.plan(), verdict, loop, _reason(verdict))


def override(run: Run, reason: str, source: str) -> RunRecord:
    """Commit a rejected run anyway, or vouch for one committed with ``--no-verify``:
    no re-verification, actor and reason recorded in the run's note.

    What lands is the tip recorded when the run was rejected (the database and the
    rejection's note agree on it), rebased onto main if main moved, and only while
    ``refs/wikigate/failed/<id>`` still points at it: the landing is fenced on that
    ref. A run lands once: a run main already holds is settled from git's facts and
    refused.
    """
    env = run.env
    repo = env.repo
    row = run.refresh()
    actor = gitrepo.actor(repo)
    chosen = decision.decide(
        "reject", loop=1, limit=MAX_LOOPS, word=Word("override", actor, reason)
    )  # a person's override lands what the gate rejected
    details = {
        "verdict": chosen.verdict,
        "override_actor": actor,
        "override_reason": reason,
        "override_source": source,
        "override_at": now_iso(),
    }
    if row["status"] == "committed" and row["unverified"] and row["verdict"] is None:
        record = records.record_from_db(env.store, run.run_id).model_copy(update=details)
        publish_terminal(env, record, delete_branch=False, keep_failed=False)
        return records.record_from_db(env.store, run.run_id)
    if row["status"] == "rejected" and landed_tip(repo, run.run_id, row["started_at"]):
        reconcile(env, row, "main holds it", abandon=False)  # e.g. a killed override
        row = run.refresh()
    if row["status"] != "rejected":
        state: str = row["status"]
        if state == "committed":
            state += " by override" if row["verdict"] == "commit_override" else " and verified"
        raise RunError(
            f"run {run.run_id} is {state}; only rejected runs and runs committed with "
            "--no-verify can be overridden"
        )
    rejected = _rejected_tip(run, row)
    failed = env.failed_ref(run.run_id)
    plan = run.plan(rejected)
    loop = int(row["loop_count"])
    _overriding(run, True)  # sweep settles a run whose override died after main moved
    try:
        with ExitStack() as turn:
            fence = (failed, rejected)
            way = _Landing(run, plan, loop, turn, override=details, fence=fence, in_place=False)
            landing.land(plan.tip, plan.meta.base, way)
    finally:
        _overriding(run, False)
    return records.record_from_db(env.store, run.run_id)


def _overriding(run: Run, on: bool) -> None:
    """Mark a rejected run as being overridden by this process (the finalizer columns of a
    rejected row), or clear the mark; a landed record clears it too."""
    pid, host = (os.getpid(), socket.gethostname()) if on else (None, None)
    with run.env.store.immediate():
        run.env.store.db.execute(
            "UPDATE runs SET finalizer_pid = ?, finalizer_host = ? WHERE run_id = ? "
            "AND status = 'rejected'",
            [pid, host, run.run_id],
        )


def _rejected_tip(run: Run, row: RunRow) -> pygit2.Oid:
    """The tip the run was rejected at: recorded in the database and in the rejection's
    note on it, and still where ``refs/wikigate/failed/<id>`` points."""
    repo = run.env.repo
    if not row["tip_commit"]:
        raise RunError(
            f"run {run.run_id}: the database records no tip for it, so nothing can be "
            "overridden (`wikigate telemetry rebuild` re-reads the notes)"
        )
    recorded = pygit2.Oid(hex=row["tip_commit"])
    note = records.parse_record(gitrepo.read_note(repo, recorded) or {})
    if note is None or note.run_id != run.run_id or note.status != "rejected":
        raise RunError(
            f"run {run.run_id}: no rejection note on its recorded tip {str(recorded)[:12]}; "
            "the record of what was rejected is gone, so nothing can be overridden "
            "(`wikigate telemetry rebuild` re-reads the notes)"
        )
    failed = run.env.failed_ref(run.run_id)
    now = gitrepo.ref_target(repo, failed)
    if now != recorded:
        raise RunError(
            f"{failed} moved since run {run.run_id} was rejected: it was rejected at "
            f"{str(recorded)[:12]}, the ref now points at "
            f"{str(now)[:12] if now else '(nothing)'}. An override lands only what was "
            f"rejected: point the ref back (`git update-ref {failed} {recorded}`) or start a "
            "new run"
        )
    return recorded


def _replay_onto_main(
    repo: pygit2.Repository, plan: Plan, onto: pygit2.Oid | None = None
) -> tuple[pygit2.Oid, pygit2.Oid | None, list[str]]:
    """Rebase the run's commits onto ``onto`` (default: main's current tip) in memory:
    (what they were replayed onto, new tip, conflicts)."""
    main = onto or gitrepo.ref_target(repo, gitrepo.main_ref(repo))
    assert main is not None
    commits = [gitrepo.commit_at(repo, op.commit) for op in plan.ops]
    new_tip, conflicts = gitrepo.rebase_commits(repo, commits, gitrepo.commit_at(repo, main))
    return main, new_tip, conflicts
