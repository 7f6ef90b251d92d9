"""The run's trace (wikigate/trace.py), checked: the events on ``refs/wikigate/trace/<run>``
are the ones wikigate pinned in the telemetry database (the plan's ``trace``: its chain
recomputed here), in order, their writes the run's ops and the verified content, and
every source a new or changed claim cites was read, by this run or, as its trace in git
shows, an earlier one (docs/mcp.md, "The trace"). The pins are only as safe as the
database: the check's caveat (a blind spot) says so on every traced run."""

from __future__ import annotations

from wikigate.codes import finding
from wikigate.models import Finding, Plan, TracePin
from wikigate.text import escaped, shown
from wikigate.trace import (
    EARLIER_EVENTS,
    EARLIER_RUNS,
    REBASE,
    TraceEvent,
    TraceOp,
    TraceUnreadable,
    chain_problem,
    read_trace,
    staged_blobs,
    trace_ref,
)

from ..claims import page_claims
from ..markdown import Ref
from .context import Context, NotRun
from .runs import _resolver

ABSENT = (
    "the run has no trace (it was not written through `wikigate mcp`): which sources the "
    "writer read, and in what order it called what, is not known"
)
# a run with a trace in git and no pin: the database lost it (replaced, or rebuilt while the
# run was open by a wikigate from before rebuilds kept pins); held to nothing, it proves
# nothing (trial 28b N1: its checks were off, and a claim citing a source never read landed)
LOST = (
    "wikigate's record of its head and length is gone (the telemetry database was replaced "
    "while the run was open): it cannot be held to anything; start a new run"
)
# events whose reads are no reading of a source: a grep hit shows one line of it (its
# blob is traced, it reads no more), a rebase is wikigate's own merge (docs/mcp.md)
NOT_READING = frozenset({"grep", REBASE})
MAX_UNREAD = 50  # trace.unread_source findings, at most (one per claim)
PINNED = (
    "the trace is held to the head and length pinned in the telemetry database, which "
    "the account running wikigate can write: it is evidence against the writer only if "
    "the writer runs under another account (docs/mcp.md, Trust model); otherwise it is "
    "a record of a cooperative session"
)


def check_trace(ctx: Context) -> list[Finding]:
    plan = ctx.plan
    if plan is None:
        return []  # not a run: a pull request or a push has no session
    rules = ctx.config.trace
    if not rules.enabled:
        raise NotRun("[trace] enabled = false: the run's trace is not checked")
    if plan.trace is None:
        ref = trace_ref(plan.meta.run_id)
        if ref in ctx.repo.references:  # written through the server, its pin lost
            return [_tampered(f"{ref} holds a trace, but {LOST}")]
        if rules.absent == "allow":
            raise NotRun(ABSENT)
        said = finding("trace.absent", None, None, ABSENT)
        return [said.model_copy(update={"severity": rules.absent})]
    pin = plan.trace
    ctx.caveats["trace"] = PINNED
    ref = trace_ref(plan.meta.run_id)
    try:
        events = read_trace(ctx.repo, plan.meta.run_id, pin.count)
    except TraceUnreadable as e:
        return [_tampered(str(e))]
    if events is None:
        return [_tampered(f"{ref} is gone; wikigate recorded {pin.count} events on it")]
    problem = chain_problem(events, pin.head, pin.count)
    if problem is not None:
        return [_tampered(f"{ref}: {problem}")]
    return [*_order(events), *_writes(ctx, plan, events), *_unread(ctx, plan, events)]


def _tampered(why: str) -> Finding:
    return finding(
        "run.trace_tampered",
        None,
        None,
        f"the run's trace is not what wikigate recorded: {escaped(why, 300)}",
    )


def _staged(events: list[TraceEvent]) -> list[tuple[int, TraceOp]]:
    return [(e.seq, e.op) for e in events if e.op is not None]


def _order(events: list[TraceEvent]) -> list[Finding]:
    """Sequence numbers 1…n; start_run first and once; each finalize called on exactly the
    ops the session staged before it."""
    out: list[Finding] = []

    def bad(message: str) -> None:
        out.append(finding("trace.order", None, None, message))

    for i, e in enumerate(events, 1):
        if e.seq != i:
            bad(f"event {i} of the trace is numbered {e.seq}")
            return out
    starts = [e.seq for e in events if e.tool == "start_run"]
    if starts != [1]:
        bad(f"the trace's start_run calls are events {starts or 'none'}; it must be event 1 only")
    staged = 0
    for e in events:
        if e.op is not None:
            staged += 1
        elif e.tool == "finalize" and e.ops is not None and e.ops != staged:
            bad(
                f"finalize (event {e.seq}) was called on a run of {e.ops} ops; the session "
                f"had staged {staged}: a change was staged outside the session"
            )
    return out


def _writes(ctx: Context, plan: Plan, events: list[TraceEvent]) -> list[Finding]:
    """The run's ops are the session's staging calls, one for one, and each path the
    session staged holds in the verified tree the blob its last call staged there."""
    ops = [op for op in plan.ops if op.kind != "start"]
    staged = _staged(events)
    out: list[Finding] = []
    for n, (op, (seq, done)) in enumerate(zip(ops, staged, strict=False), 1):
        if (op.kind, op.path, op.blob) != (done.kind, done.path, done.blob):
            out.append(
                finding(
                    "trace.write_mismatch",
                    op.path,
                    None,
                    f"op {n} of the run ({_op(op.kind, op.path, op.blob)}) is not what the "
                    f"session's call {seq} staged ({_op(done.kind, done.path, done.blob)})",
                )
            )
            return out
    if len(ops) != len(staged):
        more, fewer = ("run", "session") if len(ops) > len(staged) else ("session", "run")
        first = ops[len(staged)] if len(ops) > len(staged) else None
        where = first.path if first is not None else staged[len(ops)][1].path
        out.append(
            finding(
                "trace.write_mismatch",
                where,
                None,
                f"the {more} has {max(len(ops), len(staged))} ops, the {fewer} "
                f"{min(len(ops), len(staged))}: "
                + (
                    f"op {len(staged) + 1} ({_op(first.kind, first.path, first.blob)}) was "
                    "staged outside the session"
                    if first is not None
                    else "a write the session made is missing from the run"
                ),
            )
        )
        return out
    last = staged_blobs(events)  # with wikigate's own merges onto main (finalize.py)
    for path, blob in sorted(last.items()):
        entry = ctx.tip.entries.get(path)
        held = str(entry.oid) if entry is not None else None
        if held != blob:
            out.append(
                finding(
                    "trace.write_mismatch",
                    path,
                    None,
                    f"{shown(path)} holds {_blob(held)} in the verified tree; the session's "
                    f"last call staged {_blob(blob)} there",
                )
            )
    return out


def _op(kind: str, path: str | None, blob: str | None) -> str:
    return " ".join(x for x in (kind, shown(path) if path else None, _blob(blob)) if x)


def _blob(blob: str | None) -> str:
    return f"blob {blob[:12]}" if blob else "nothing"


def _unread(ctx: Context, plan: Plan, events: list[TraceEvent]) -> list[Finding]:
    """Each claim the run adds or changes cites a source the session read (or an earlier
    run's trace, read back from git and held to its pin, read the same blob of it; or the
    run wrote it)."""
    if ctx.base is None or plan.trace is None:
        return []
    read = {r.path for e in events if e.tool not in NOT_READING for r in e.reads}
    read |= {op.path for op in plan.ops if op.path}
    earlier: set[tuple[str, str]] | None = None  # read back only when a claim needs it
    base, tip = ctx.base, ctx.tip
    changed = set(ctx.changed())
    pages = [p for p in tip.pages if p in changed]
    base.load([p for p in pages if p in base.entries])
    out: list[Finding] = []
    for path in pages:
        before = (
            {
                (c.sentence, c.source, c.quote)
                for c in page_claims(base.page(path), _resolver(base, path))
            }
            if path in base.entries
            else set()
        )
        page = tip.page(path)
        starts = _start_lines(page.refs if page is not None else [])
        for c in page_claims(page, _resolver(tip, path)):
            start = starts.get((c.label, c.line), [])  # each reference's, in order
            start_line = start.pop(0) if start else None
            if (c.sentence, c.source, c.quote) in before or c.source in read:
                continue
            entry = tip.entries.get(c.source)
            if entry is None:  # no source it names: the citation check says so
                continue
            if ctx.config.trace.earlier_runs:
                if earlier is None:
                    earlier = _earlier_reads(ctx, plan.trace)
                if (c.source, str(entry.oid)) in earlier:
                    continue
            out.append(
                finding(
                    "trace.unread_source",
                    path,
                    c.line,
                    f"the claim cites {shown(c.source)}, which the session that wrote the run "
                    "never read (no read, anchor or follow of it in its trace; a grep hit "
                    "is one line of it, not a read)",
                    hint=f"read {shown(c.source)} (or anchor the quote in it), then finalize again",
                    claim=c.sentence,
                ).model_copy(update={"claim_line": c.line, "claim_start_line": start_line})
            )
            if len(out) >= MAX_UNREAD:
                return out
    return out


def _start_lines(refs: list[Ref]) -> dict[tuple[str, int], list[int]]:
    """Where each reference's sentence starts, by its label and line, in the page's order
    (page_claims' order: a label's references are all claims, or none is)."""
    out: dict[tuple[str, int], list[int]] = {}
    for ref in refs:
        out.setdefault((ref.label, ref.at_line), []).append(ref.start_line)
    return out


def _earlier_reads(ctx: Context, pin: TracePin) -> set[tuple[str, str]]:
    """(path, blob) of every file the traces of earlier runs read: each trace read back
    from git, newest first, and counted only when it is the one its pin names (a trace
    rewritten, cut or gone counts for nothing); at most EARLIER_RUNS runs and
    EARLIER_EVENTS events in all. A run past those bounds is not read: a source only it
    read counts as unread, and the check's caveat (a blind spot) says so."""
    seen: set[tuple[str, str]] = set()
    left = EARLIER_EVENTS
    skipped = 1 if pin.earlier_more else 0
    for i, run in enumerate(pin.earlier):
        if run.count > left:
            skipped += len(pin.earlier) - i
            break
        left -= run.count
        try:
            events = read_trace(ctx.repo, run.run_id, run.count)
        except TraceUnreadable:
            continue
        if events is None or chain_problem(events, run.head, run.count) is not None:
            continue
        seen |= {(r.path, r.blob) for e in events if e.tool not in NOT_READING for r in e.reads}
    if skipped:
        more = "more" if pin.earlier_more else str(skipped)
        ctx.caveats["trace"] = (
            f"{PINNED}; the traces of {more} earlier runs were not read (past the newest "
            f"{EARLIER_RUNS} runs or {EARLIER_EVENTS} events): a source only they read "
            "counts as unread"
        )
    return seen
