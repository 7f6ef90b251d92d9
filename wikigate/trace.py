"""A run's trace: every tool call a ``wikigate mcp`` session made in the run, in git,
tamper-evident (docs/mcp.md, "The trace").

Each call is one event (``TraceEvent``: its sequence number, the tool, a digest of its
arguments, the sources and pages it read by blob, a digest of its result, the op it
staged) and one commit on ``refs/wikigate/trace/<run>``: an empty tree, the event as one
line of JSON in the message, the previous event's commit as parent. The events form a
hash chain: each names the chain's head before it (``prev``), and the head after it is
``link(prev, event)``. After every call wikigate pins the new head and the count in the
telemetry database (``runs.trace_head``, ``runs.trace_count``); verification reads the
events back from the ref, recomputes the chain and refuses a trace whose head or length is
not the pinned one (``run.trace_tampered``). That holds against a writer that cannot write
the database (docs/mcp.md, "Trust model": the server under another account); a writer that
can is trusted to be cooperative, and every report of a traced run says so.

This module is pure: the event, the chain, reading a trace back from git. Recording an
event is ``Run.trace`` (run.py); the checks are the verifier's (checks/trace.py).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import pygit2

from .errors import RunError
from .plain import Plain, plain, rule

TRACE_PREFIX = "refs/wikigate/trace/"
GENESIS = "0" * 64  # the chain's head before its first event
TRACE_MAX = 100_000  # events a run's trace may hold (a session's calls, at most)
EVENT_MAX = 64 * 2**10  # bytes of one event's commit message
READS_MAX = 200  # files one event names as read (a grep's hits past it are cut)
EARLIER_RUNS = 50  # earlier runs' traces a verification reads back ([trace] earlier_runs)
EARLIER_EVENTS = 20_000  # their events, at most, in all


@plain(frozen=True, validate=True)
class TraceRead(Plain):
    """A file a call read: its path and the blob it read there."""

    path: str
    blob: str


@plain(frozen=True, validate=True)
class TraceOp(Plain):
    """What a staging call staged: the op's kind, its path and the blob of the content
    the tool was given (a write: its content hashed by the server; a replace: the page
    it left), None for a delete or usage."""

    kind: str
    path: str | None = None
    blob: str | None = None


@plain(frozen=True, validate=True)
class TraceEvent(Plain):
    """One tool call of a session, in its run."""

    seq: int
    tool: str
    args: str  # sha256 of the arguments, as canonical JSON
    result: str  # sha256 of the result's text
    reads: tuple[TraceRead, ...] = ()
    op: TraceOp | None = None
    ops: int | None = rule(default=None, description="finalize: the run's ops when called")
    prev: str = GENESIS


class TraceUnreadable(Exception):
    """The trace in git cannot be read as wikigate writes it."""


class TraceTampered(RunError):
    """A call cannot be recorded: the run's trace ref is not the trace wikigate pinned
    (rewritten, pointed at something that is not a commit); the run's verification
    rejects it (``run.trace_tampered``)."""


def trace_ref(run_id: str) -> str:
    return TRACE_PREFIX + run_id


def canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, ensure_ascii=True, separators=(",", ":")).encode(
        "ascii"
    )


def digest(value: Any) -> str:
    """sha256 of a value as canonical JSON (a call's arguments, its result)."""
    return hashlib.sha256(canonical(value)).hexdigest()


def event_line(event: TraceEvent) -> str:
    return canonical(event.model_dump(mode="json")).decode("ascii")


def link(prev: str, event: TraceEvent) -> str:
    """The chain's head after ``event`` (whose ``prev`` is the head before it)."""
    return hashlib.sha256(prev.encode("ascii") + b"\n" + event_line(event).encode()).hexdigest()


def event_message(event: TraceEvent) -> str:
    return f"wikigate: trace {event.seq} {event.tool}\n\n{event_line(event)}\n"


def read_trace(repo: pygit2.Repository, run_id: str, most: int) -> list[TraceEvent] | None:
    """The events on the run's trace ref, oldest first; None: no such ref. Reads at most
    ``most`` + 1 commits (a longer chain is refused: TraceUnreadable), each message at most
    EVENT_MAX bytes, so a rewritten ref costs what the pinned trace costs."""
    ref = trace_ref(run_id)
    try:
        found = repo.references.get(ref)
    except (pygit2.GitError, ValueError) as e:
        raise TraceUnreadable(f"{ref} cannot be read ({e})") from e
    if found is None:
        return None
    events: list[TraceEvent] = []
    try:
        commit = repo[found.resolve().target]
        while True:
            if not isinstance(commit, pygit2.Commit):
                raise TraceUnreadable(f"{ref} leads to a {type(commit).__name__}, not a commit")
            if len(events) > min(most, TRACE_MAX):
                raise TraceUnreadable(f"{ref} holds more than the {most} events recorded")
            events.append(_event_of(commit))
            if not commit.parents:
                break
            if len(commit.parents) != 1:
                raise TraceUnreadable(f"commit {commit.short_id} of {ref} is a merge")
            commit = commit.parents[0]
    except (pygit2.GitError, KeyError, ValueError) as e:
        raise TraceUnreadable(f"{ref} cannot be read ({e})") from e
    events.reverse()
    return events


def pinned_tip(repo: pygit2.Repository, run_id: str, row: Mapping[str, Any]) -> pygit2.Oid | None:
    """``trace_tip`` of the pin the run's telemetry ``row`` holds (none yet: no event)."""
    return trace_tip(
        repo, run_id, row.get("trace_head") or GENESIS, int(row.get("trace_count") or 0)
    )


def trace_tip(repo: pygit2.Repository, run_id: str, head: str, count: int) -> pygit2.Oid | None:
    """The commit the run's next event goes on: the last event wikigate recorded, as its
    pin (``head`` after ``count`` events) names it; None: none yet. TraceTampered when the
    ref holds something else (a blob, a tree, another event, an event when none was
    recorded): a call cannot be added to a trace that is no longer the one recorded."""
    ref = trace_ref(run_id)

    def tampered(why: str) -> TraceTampered:
        return TraceTampered(
            f"run {run_id}: its trace is not what wikigate recorded ({why}); finalize "
            "rejects the run (run.trace_tampered): abandon it and start a new run"
        )

    try:
        found = repo.references.get(ref)
        target = found.resolve().target if found is not None else None
        obj = repo.get(target) if isinstance(target, pygit2.Oid) else None
    except (pygit2.GitError, ValueError) as e:
        raise tampered(f"{ref} cannot be read: {e}") from e
    if found is None and count == 0:
        return None
    if found is None:
        raise tampered(f"{ref} is gone; wikigate recorded {count} events on it")
    if not isinstance(obj, pygit2.Commit):
        kind = type(obj).__name__ if obj is not None else "missing object"
        raise tampered(f"{ref} leads to a {kind}, not a commit")
    try:
        last = _event_of(obj)
    except TraceUnreadable as e:
        raise tampered(str(e)) from e
    if count == 0 or last.seq != count or link(last.prev, last) != head:
        raise tampered(f"{ref}'s last event is not the one wikigate recorded")
    return obj.id


def _event_of(commit: pygit2.Commit) -> TraceEvent:
    raw = commit.raw_message
    if len(raw) > EVENT_MAX:
        raise TraceUnreadable(f"commit {commit.short_id}: an event of over {EVENT_MAX} bytes")
    _, _, body = raw.decode("utf-8", "replace").partition("\n\n")
    try:
        return TraceEvent.model_validate_json(body.strip())
    except ValueError as e:  # pydantic's ValidationError is a ValueError
        raise TraceUnreadable(f"commit {commit.short_id} holds no trace event ({e})") from e


def chain_problem(events: list[TraceEvent], head: str, count: int) -> str | None:
    """Why ``events`` are not the trace whose head and length wikigate pinned; None: they
    are (every ``prev`` the head before it, the last head the pinned one)."""
    if len(events) != count:
        return f"the trace holds {len(events)} events; wikigate recorded {count}"
    now = GENESIS
    for event in events:
        if event.prev != now:
            return f"event {event.seq} ({event.tool}) does not follow the one before it"
        now = link(now, event)
    if now != head:
        return "the events are not the ones wikigate recorded (their chain's head differs)"
    return None


REBASE = "rebase"  # the event the finalizer records when it replays a run onto main
STAGING = ("write", "replace", "delete")


def staged_blobs(events: list[TraceEvent]) -> dict[str, str | None]:
    """Each path the session staged and the blob it must hold now (None: deleted): its
    last staging call's, or, when wikigate replayed the run onto main after it, the blob
    that ``rebase`` event names (its three-way merge with main's change)."""
    last: dict[str, str | None] = {}
    for e in events:
        done = e.op
        if done is not None and done.path is not None and done.kind in STAGING:
            last[done.path] = done.blob
        elif e.tool == REBASE:
            last.update({r.path: r.blob for r in e.reads if r.path in last})
    return last
