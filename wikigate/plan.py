"""A run's record in git: the trailers of its commits, written and read back.

Every op of a run is one commit whose message carries the run's metadata and the
op as trailers, so the branch alone describes the run: a fresh clone can
re-verify it without the database.  Ops are one line of JSON
(``Wikigate-Op: {"kind":"write","path":...}``), so no path can add a trailer or
change an op's meaning; branches written by earlier versions
(``Wikigate-Op: write wiki/a.md <blob>``) are still read.
"""

from __future__ import annotations

import hashlib
import json

import pygit2

from . import gitrepo
from .errors import RunError, WikigateError
from .models import Budget, Op, Plan, RunMeta
from .paths import check_scope, normalize
from .text import shown

T_RUN = "Wikigate-Run"
T_OP = "Wikigate-Op"
T_TYPE = "Wikigate-Type"
T_TRIGGER = "Wikigate-Triggered-By"
T_STARTED = "Wikigate-Started"
T_BUDGET = "Wikigate-Budget"
T_USAGE = "Wikigate-Usage"
T_SCOPE = "Wikigate-Scope"
T_SCHEMA = "Wikigate-Schema"
T_DIRECTION = "Wikigate-Direction"
# Each of these appears at most once per commit; a repeat makes the run corrupt.
SINGLE_VALUED = (
    T_RUN,
    T_OP,
    T_TYPE,
    T_TRIGGER,
    T_STARTED,
    T_BUDGET,
    T_USAGE,
    T_SCOPE,
    T_SCHEMA,
    T_DIRECTION,
)
# The version of the metadata these trailers carry. A run written by a newer wikigate (a
# higher Wikigate-Schema) is refused whole (RunSchemaError), never half-read; branches
# from before the trailer existed are version 1.
SCHEMA_VERSION = 1


class RunSchemaError(RunError):
    """The run's metadata is of a schema version this wikigate does not know."""


class RunForged(RunError):
    """The run's commits say something other than what ``run start`` recorded: a
    commit made outside wikigate changed its type, scope, budget or direction, or is no
    op of the run at all (finalize rejects the run: ``run.forged``)."""


# What ``run start`` decides once and no later commit may change: every op commit
# repeats these trailers, and the database keeps their digest (``meta_digest``).
PINNED = ("run_type", "triggered_by", "started_at", "budget", "scope", "direction")


def meta_digest(meta: RunMeta) -> str:
    """A digest of the run's pinned metadata (not its usage, which ops attest)."""
    pinned = meta.model_dump(mode="json", include=set(PINNED))
    text = json.dumps(pinned, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("ascii")).hexdigest()


OP_KINDS = ("start", "write", "replace", "delete", "usage")


def op_text(kind: str, path: str | None = None, blob: pygit2.Oid | None = None) -> str:
    """The op as one line of ASCII JSON: no path can break the line or shift a field."""
    op: dict[str, str] = {"kind": kind}
    if path is not None:
        op["path"] = path
    if blob is not None:
        op["blob"] = str(blob)
    return json.dumps(op, ensure_ascii=True, separators=(",", ":"))


def trailers_for(meta: RunMeta, op: str) -> dict[str, str]:
    out = {
        T_RUN: meta.run_id,
        T_SCHEMA: str(SCHEMA_VERSION),
        T_TYPE: meta.run_type,
        T_TRIGGER: meta.triggered_by,
        T_STARTED: meta.started_at,
        T_OP: op,
    }
    if not meta.budget.is_empty():
        out[T_BUDGET] = meta.budget.model_dump_json(exclude_none=True)
    if not meta.usage.is_empty():
        out[T_USAGE] = meta.usage.model_dump_json(exclude_none=True)
    if meta.scope is not None:
        out[T_SCOPE] = json.dumps(list(meta.scope), ensure_ascii=True, separators=(",", ":"))
    if meta.direction is not None:  # one line of ASCII JSON, whatever the text holds
        out[T_DIRECTION] = json.dumps(meta.direction, ensure_ascii=True)
    return out


def read_plan(repo: pygit2.Repository, tip: pygit2.Oid, run_id: str | None = None) -> Plan:
    """Read a run's metadata and ops back from its commits (tip back to the start commit)."""
    ops: list[Op] = []
    meta: RunMeta | None = None
    read: dict[str, str] | None = None  # the tip's trailers but its op: its metadata's
    commit = gitrepo.commit_at(repo, tip)
    while True:
        trailers = run_trailers(commit)
        rid = trailers.get(T_RUN) or None
        if rid is None or (run_id is not None and rid != run_id):
            raise RunForged(
                f"commit {commit.short_id} is not part of run {run_id or '?'}: it carries "
                "no op of the run (made outside wikigate)"
            )
        run_id = rid
        said = {k: v for k, v in trailers.items() if k != T_OP}
        if meta is None:
            meta, read = _meta_from(trailers, rid, commit), said
        elif said != read:  # the same trailers read as the same metadata: no need to ask
            _same_pins(meta, _meta_from(trailers, rid, commit), tip, commit)
        kind, path, blob = _parse_op(trailers.get(T_OP, ""), commit)
        if kind == "start":
            if not commit.parents:
                raise RunError(f"run {rid}: start commit has no base")
            meta = meta.model_copy(update={"base": str(commit.parents[0].id)})
            ops.append(Op(kind="start", commit=str(commit.id)))
            break
        ops.append(Op(kind=kind, path=path, blob=blob, commit=str(commit.id)))  # type: ignore[arg-type]
        if len(commit.parents) != 1:
            raise RunError(f"run {rid}: commit {commit.short_id} is a merge; runs are linear")
        commit = commit.parents[0]
    ops.reverse()
    return Plan(meta=meta, ops=ops, tip=str(tip))


def op_count(repo: pygit2.Repository, tip: pygit2.Oid, run_id: str) -> int | None:
    """How many ops but the start the run's commits at ``tip`` hold, as ``read_plan``
    lists them, counted without reading their metadata (``read_plan`` checks it); None:
    a commit is no op of this run, or a merge (``read_plan`` refuses the run)."""
    count = 0
    commit = gitrepo.commit_at(repo, tip)
    while True:
        trailers = run_trailers(commit)
        if trailers.get(T_RUN) != run_id:
            return None
        if _parse_op(trailers.get(T_OP, ""), commit)[0] == "start":
            return count
        count += 1
        if len(commit.parents) != 1:
            return None
        commit = commit.parents[0]


def _same_pins(at_tip: RunMeta, here: RunMeta, tip: pygit2.Oid, commit: pygit2.Commit) -> None:
    """Every commit of a run carries the metadata its start commit recorded."""
    for name in PINNED:
        a, b = getattr(at_tip, name), getattr(here, name)
        if a != b:
            raise RunForged(
                f"run {at_tip.run_id}: its tip {str(tip)[:7]} says {name} is "
                f"'{shown(_pin_text(a))}' but commit {commit.short_id} of the same run says "
                f"'{shown(_pin_text(b))}'; a commit made outside wikigate changed the run's "
                "metadata (start a new run)"
            )


def check_pinned(meta: RunMeta, digest: str | None) -> None:
    """The run's metadata is what ``run start`` recorded (its digest, kept where the
    writer's commits cannot reach: the database and the run's notes)."""
    if digest and meta_digest(meta) != digest:
        raise RunForged(
            f"run {meta.run_id}: its commits say it is a {meta.run_type} run with "
            f"{_pins_text(meta)}, which is not what `wikigate run start` recorded; a "
            "commit made outside wikigate rewrote the run (start a new run)"
        )


def _pin_text(value: object) -> str:
    if isinstance(value, Budget):
        return value.model_dump_json(exclude_none=True)
    return "(none)" if value is None else str(value)


def _pins_text(meta: RunMeta) -> str:
    return ", ".join(
        f"{name} {_pin_text(getattr(meta, name))}" for name in ("budget", "scope", "direction")
    )


def read_meta(repo: pygit2.Repository, tip: pygit2.Oid, run_id: str) -> RunMeta:
    """The run's metadata from its tip's trailers alone (``base`` left empty)."""
    commit = gitrepo.commit_at(repo, tip)
    trailers = run_trailers(commit)
    if trailers.get(T_RUN) != run_id:
        raise RunError(f"the tip of run {run_id} is not one of its commits")
    return _meta_from(trailers, run_id, commit)


def run_trailers(commit: pygit2.Commit) -> dict[str, str]:
    """wikigate's trailers of ``commit``, each at most once (keys compared as git does,
    ignoring case): a repeated one would let the first or the last copy win."""
    parsed = gitrepo.parse_trailers(commit.message)
    out: dict[str, str] = {}
    for key in SINGLE_VALUED:
        values = [v for k, vs in parsed.items() if k.lower() == key.lower() for v in vs]
        if len(values) > 1:
            rid = (parsed.get(T_RUN) or ["?"])[0]
            raise RunError(
                f"run {shown(rid)}: commit {commit.short_id} holds the trailer {key} "
                f"{len(values)} times; the run is corrupt (start a new run)"
            )
        if values:
            out[key] = values[0]
    return out


def _parse_op(text: str, commit: pygit2.Commit) -> tuple[str, str | None, str | None]:
    """(kind, path, blob) from a ``Wikigate-Op`` value: JSON, or the legacy
    space-separated ``kind [path [blob]]`` of branches written by earlier versions."""
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError as e:
            raise RunError(f"commit {commit.short_id}: op '{shown(text)}' is not JSON ({e})") from e
        fields = {"kind", "path", "blob"}
        if (
            not isinstance(data, dict)
            or not set(data) <= fields
            or not all(isinstance(v, str) for v in data.values())
            or data.get("kind") not in OP_KINDS
        ):
            raise RunError(f"commit {commit.short_id}: unknown op '{shown(text)}'")
        path = data.get("path")
        if path is not None and not _is_normalized(path):
            raise RunError(f"commit {commit.short_id}: op path '{shown(path)}' is not a clean path")
        return data["kind"], path, data.get("blob")
    kind, _, rest = text.partition(" ")
    if kind not in OP_KINDS:
        raise RunError(f"commit {commit.short_id}: unknown op '{shown(text)}'")
    path, _, blob = rest.partition(" ")
    return kind, path or None, blob or None


def _is_normalized(path: str) -> bool:
    try:
        return normalize(path) == path
    except RunError:
        return False


def _meta_from(trailers: dict[str, str], run_id: str, commit: pygit2.Commit) -> RunMeta:
    check_schema(trailers.get(T_SCHEMA), run_id, commit.short_id)

    def one(key: str) -> str:
        value = trailers.get(key)
        if not value:
            raise RunError(f"run {run_id}: commit {commit.short_id} lacks the trailer {key}")
        return value

    def budget(key: str) -> Budget:
        raw = trailers.get(key)
        try:
            return Budget.model_validate(json.loads(raw)) if raw else Budget()
        except ValueError as e:
            raise RunError(
                f"run {run_id}: commit {commit.short_id}: {key} '{shown(raw or '')}' is not "
                "a valid budget; the run is corrupt (start a new run)"
            ) from e

    from pydantic import ValidationError  # trailers are data entering: RunMeta validates

    try:
        return RunMeta(
            run_id=run_id,
            run_type=one(T_TYPE),  # type: ignore[arg-type]
            triggered_by=one(T_TRIGGER),
            base="",
            started_at=one(T_STARTED),
            budget=budget(T_BUDGET),
            usage=budget(T_USAGE),
            scope=_scope(trailers.get(T_SCOPE), run_id, commit),
            direction=_direction(trailers.get(T_DIRECTION), run_id, commit),
        )
    except ValidationError as e:  # e.g. an unknown run type
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise RunError(
            f"run {run_id}: commit {commit.short_id}: {where}: {first['msg']}; the run is corrupt"
        ) from e


def check_schema(value: str | None, run_id: str, where: str) -> None:
    """Refuse metadata of a schema version this wikigate does not know (RunSchemaError)."""
    if value is None or value.strip() == str(SCHEMA_VERSION):
        return
    raise RunSchemaError(
        f"run {shown(run_id)}: commit {where} records its metadata in schema version "
        f"'{shown(value)}'; this wikigate reads version {SCHEMA_VERSION}. A newer wikigate "
        "wrote it: finalize it with that version (the run is not read any further)"
    )


def _scope(raw: str | None, run_id: str, commit: pygit2.Commit) -> tuple[str, ...] | None:
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        if not isinstance(data, list) or not data or not all(isinstance(p, str) for p in data):
            raise ValueError("not a list of paths")
        return tuple(check_scope(p) for p in data)
    except (ValueError, WikigateError) as e:
        raise RunError(
            f"run {run_id}: commit {commit.short_id}: {T_SCOPE} '{shown(raw)}' is not a list "
            f"of paths ({e}); the run is corrupt (start a new run)"
        ) from e


def _direction(raw: str | None, run_id: str, commit: pygit2.Commit) -> str | None:
    if raw is None:
        return None
    try:
        text = json.loads(raw)
        if not isinstance(text, str):
            raise ValueError("not a JSON string")
        return text
    except ValueError as e:
        raise RunError(
            f"run {run_id}: commit {commit.short_id}: {T_DIRECTION} is not a JSON string "
            f"({e}); the run is corrupt (start a new run)"
        ) from e
