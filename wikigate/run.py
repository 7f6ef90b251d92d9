"""A run: a branch ``wikigate/runs/<id>`` whose commits are the staged ops.

Every op is one commit built in memory (blobs and trees, no checkout).  Its
message carries trailers with the run's metadata and the op itself, so the
branch alone describes the run: a fresh clone can re-verify it without the
database.

Ops are stored as one line of JSON (``Wikigate-Op: {"kind":"write","path":...}``)
so no path can add a trailer or change an op's meaning; branches written by
earlier versions (``Wikigate-Op: write wiki/a.md <blob>``) are still read.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pygit2
from pydantic import ValidationError

from . import gitrepo, records
from .errors import GitError, RunError, UsageError
from .gitrepo import RUN_PREFIX
from .models import TERMINAL, Budget, Finding, Op, Plan, RunMeta
from .paths import area, normalize
from .runid import now_iso
from .text import first_unprintable, occurrences, shown

if TYPE_CHECKING:
    from .finalize import FinalizeResult
    from .workspace import Workspace

T_RUN = "Wikigate-Run"
T_OP = "Wikigate-Op"
T_TYPE = "Wikigate-Type"
T_TRIGGER = "Wikigate-Triggered-By"
T_STARTED = "Wikigate-Started"
T_BUDGET = "Wikigate-Budget"
T_USAGE = "Wikigate-Usage"
# Each of these appears at most once per commit; a repeat makes the run corrupt.
SINGLE_VALUED = (T_RUN, T_OP, T_TYPE, T_TRIGGER, T_STARTED, T_BUDGET, T_USAGE)
OP_KINDS = ("start", "write", "replace", "delete", "usage")


class ReplaceFailed(RunError):
    """``str_replace`` found zero or several matches; the whole run was rejected."""


class Run:
    def __init__(self, ws: Workspace, run_id: str, row: dict[str, Any]) -> None:
        self.ws = ws
        self.run_id = run_id
        self.row = row
        self.branch = RUN_PREFIX + run_id

    # ------------------------------------------------------------ creation

    @classmethod
    def create(
        cls,
        ws: Workspace,
        run_id: str,
        run_type: str,
        triggered_by: str,
        base: pygit2.Oid,
        budget: Budget,
    ) -> Run:
        bad = first_unprintable(triggered_by)
        if bad is not None:
            raise UsageError(
                f"--triggered-by '{shown(triggered_by)}' holds {bad.describe()}; "
                "it must be printable"
            )
        meta = RunMeta(
            run_id=run_id,
            run_type=run_type,  # type: ignore[arg-type]
            triggered_by=triggered_by,
            base=str(base),
            started_at=now_iso(),
            budget=budget,
        )
        repo = ws.repo
        sig = gitrepo.signature(repo)
        message = gitrepo.format_message(
            f"wikigate: start {run_type} run {run_id}", _trailers(meta, _op_text("start"))
        )
        commit = repo.create_commit(None, sig, sig, message, repo[base].tree.id, [base])
        branch = RUN_PREFIX + run_id

        def publish(txn: pygit2.ReferenceTransaction) -> None:
            if gitrepo.ref_target(repo, branch) is not None:
                raise GitError(f"branch {branch} already exists")
            txn.set_target(branch, commit, message=f"wikigate: start run {run_id}")

        gitrepo.with_ref_lock(repo, [branch], publish)
        record = records.pending_record(ws, meta, str(commit))
        with ws.store.immediate():
            ws.store.apply_record(record)
        return cls(ws, run_id, ws.store.get(run_id) or {})

    # ------------------------------------------------------------ reading

    def refresh(self) -> dict[str, Any]:
        row = self.ws.store.get(self.run_id)
        if row is None:
            raise RunError(f"unknown run {self.run_id!r}")
        self.row = row
        return row

    @property
    def status(self) -> str:
        return str(self.refresh()["status"])

    def ref(self) -> str | None:
        """Where git keeps the run now: its branch while open, ``refs/wikigate/failed/<id>``
        once rejected or abandoned; None once committed (main holds it)."""
        for ref in (self.branch, self.ws.failed_ref(self.run_id)):
            if gitrepo.ref_target(self.ws.repo, ref) is not None:
                return ref
        return None

    def tip(self) -> pygit2.Oid:
        oid = gitrepo.ref_target(self.ws.repo, self.branch)
        if oid is None:
            oid = gitrepo.ref_target(self.ws.repo, self.ws.failed_ref(self.run_id))
        if oid is None and self.row.get("tip_commit"):
            oid = pygit2.Oid(hex=self.row["tip_commit"])
        if oid is None:
            raise RunError(f"run {self.run_id}: its branch {self.branch} is gone")
        return oid

    def plan(self, tip: pygit2.Oid | None = None) -> Plan:
        return read_plan(self.ws.repo, tip or self.tip(), self.run_id)

    def staged_tree(self) -> pygit2.Tree:
        return gitrepo.commit_at(self.ws.repo, self.tip()).tree

    def read(self, path: str) -> bytes | None:
        return gitrepo.read_blob(self.ws.repo, self.staged_tree(), normalize(path))

    # ------------------------------------------------------------ staging

    def _require_open(self) -> None:
        self.ws.sweep()
        status = self.refresh()["status"]
        if status in TERMINAL:
            raise RunError(f"run {self.run_id} is {status}; start a new run")
        if status == "verifying":
            raise RunError(f"run {self.run_id} is being finalized; wait for it")

    def _check_target(self, path: str) -> str:
        path = normalize(path)
        where = area(path)
        run_type = self.row["run_type"]
        if where == "raw":
            if run_type != "ingest":
                raise RunError(f"{path}: only ingest runs may add raw sources")
            if gitrepo.read_blob(self.ws.repo, self.staged_tree(), path) is not None:
                raise RunError(f"{path}: raw sources are immutable; it exists already")
            base_tree = gitrepo.commit_at(self.ws.repo, self.row["base_commit"]).tree
            if path in base_tree:
                raise RunError(f"{path}: raw sources are immutable; it exists on main")
        elif where != "wiki":
            raise RunError(f"{path}: runs may only write under wiki/ (and raw/ in ingest runs)")
        return path

    def stage_write(self, path: str, content: str | bytes) -> pygit2.Oid:
        """Stage a whole file; wiki pages must be UTF-8 text."""
        self._require_open()
        path = self._check_target(path)
        data = content.encode("utf-8") if isinstance(content, str) else content
        if area(path) == "wiki":
            _check_text(path, data)
        blob = self.ws.repo.create_blob(data)
        return self._commit("write", path, blob)

    def str_replace(self, path: str, old: str, new: str) -> pygit2.Oid:
        """Replace the one occurrence of ``old`` in the staged copy of ``path``.

        Zero or several matches abort the whole run: it is rejected at once,
        with the reason recorded, and nothing reaches main.
        """
        self._require_open()
        path = self._check_target(path)
        if area(path) != "wiki":
            raise RunError(f"{path}: only wiki pages can be edited")
        current = self.read(path)
        if current is None:
            problem = f"{path} does not exist in the run"
        else:
            text = _check_text(path, current)
            found = occurrences(text, old) if old else []
            if len(found) == 1:
                at = found[0]
                edited = text[:at] + new + text[at + len(old) :]
                blob = self.ws.repo.create_blob(edited.encode("utf-8"))
                return self._commit("replace", path, blob)
            overlap = any(b - a < len(old) for a, b in zip(found, found[1:], strict=False))
            problem = (
                f"--old text found {len(found)} times in {path}"
                + (" (matches overlap)" if overlap else "")
                + "; it must match exactly once"
                if old
                else "--old text is empty"
            )
        from .finalize import abort

        abort(
            self,
            Finding(
                code="run.replace_failed",
                severity="critical",
                path=path,
                message=problem,
                hint="re-read the staged page and quote a unique span",
            ),
        )
        raise ReplaceFailed(f"run {self.run_id} rejected: {problem}")

    def stage_delete(self, path: str) -> pygit2.Oid:
        self._require_open()
        path = normalize(path)
        if area(path) != "wiki":
            raise RunError(f"{path}: runs may only delete wiki pages")
        if self.read(path) is None:
            raise RunError(f"{path}: no such file in the run")
        return self._commit("delete", path, None)

    def attest_usage(self, usage: Budget) -> pygit2.Oid:
        """The writer attests what it spent; the verifier checks it against the budget."""
        self._require_open()
        return self._commit("usage", None, None, usage=usage)

    def finalize(
        self, *, verify: bool = True, draft_only: bool = False, verifier: Any = None
    ) -> FinalizeResult:
        from .finalize import finalize

        return finalize(self, verify=verify, draft_only=draft_only, verifier=verifier)

    # ------------------------------------------------------------ internals

    def _commit(
        self, kind: str, path: str | None, blob: pygit2.Oid | None, usage: Budget | None = None
    ) -> pygit2.Oid:
        repo = self.ws.repo
        parent = self.tip()
        meta = read_meta(repo, parent, self.run_id)
        if usage is not None:
            meta = meta.model_copy(update={"usage": usage})
        tree = repo[parent].tree
        tree_id = tree.id if path is None else gitrepo.tree_with(repo, tree, path, blob)
        op = _op_text(kind, path, blob)
        sig = gitrepo.signature(repo)
        subject = f"wikigate: {kind} {path or ''}".rstrip()
        commit = repo.create_commit(
            None, sig, sig, gitrepo.format_message(subject, _trailers(meta, op)), tree_id, [parent]
        )

        def publish(txn: pygit2.ReferenceTransaction) -> None:
            if gitrepo.ref_target(repo, self.branch) != parent:
                raise RunError(f"run {self.run_id} changed while staging; retry the op")
            txn.set_target(self.branch, commit, message=f"wikigate: {kind}")

        gitrepo.with_ref_lock(repo, [self.branch], publish)
        with self.ws.store.immediate():
            values: dict[str, Any] = {"tip_commit": str(commit)}
            if usage is not None:
                values.update(
                    budget_input_tokens_used=usage.input_tokens or 0,
                    budget_output_tokens_used=usage.output_tokens or 0,
                    budget_usd_used=usage.usd or 0.0,
                )
            self.ws.store.update_run(self.run_id, **values)
        return commit


def _check_text(path: str, data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise RunError(f"{path}: content is not UTF-8 (byte {e.start}); wiki pages are text") from e
    if "\x00" in text:
        raise RunError(f"{path}: content holds NUL bytes; wiki pages are text")
    return text


def _op_text(kind: str, path: str | None = None, blob: pygit2.Oid | None = None) -> str:
    """The op as one line of ASCII JSON: no path can break the line or shift a field."""
    op: dict[str, str] = {"kind": kind}
    if path is not None:
        op["path"] = path
    if blob is not None:
        op["blob"] = str(blob)
    return json.dumps(op, ensure_ascii=True, separators=(",", ":"))


def _trailers(meta: RunMeta, op: str) -> dict[str, str]:
    out = {
        T_RUN: meta.run_id,
        T_TYPE: meta.run_type,
        T_TRIGGER: meta.triggered_by,
        T_STARTED: meta.started_at,
        T_OP: op,
    }
    if not meta.budget.is_empty():
        out[T_BUDGET] = meta.budget.model_dump_json(exclude_none=True)
    if not meta.usage.is_empty():
        out[T_USAGE] = meta.usage.model_dump_json(exclude_none=True)
    return out


def read_plan(repo: pygit2.Repository, tip: pygit2.Oid, run_id: str | None = None) -> Plan:
    """Read a run's metadata and ops back from its commits (tip back to the start commit)."""
    ops: list[Op] = []
    meta: RunMeta | None = None
    commit = gitrepo.commit_at(repo, tip)
    while True:
        trailers = _run_trailers(commit)
        rid = trailers.get(T_RUN) or None
        if rid is None or (run_id is not None and rid != run_id):
            raise RunError(f"commit {commit.short_id} is not part of run {run_id or '?'}")
        run_id = rid
        if meta is None:
            meta = _meta_from(trailers, rid, commit)
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


def read_meta(repo: pygit2.Repository, tip: pygit2.Oid, run_id: str) -> RunMeta:
    """The run's metadata from its tip's trailers alone (``base`` left empty)."""
    commit = gitrepo.commit_at(repo, tip)
    trailers = _run_trailers(commit)
    if trailers.get(T_RUN) != run_id:
        raise RunError(f"the tip of run {run_id} is not one of its commits")
    return _meta_from(trailers, run_id, commit)


def _run_trailers(commit: pygit2.Commit) -> dict[str, str]:
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

    try:
        return RunMeta(
            run_id=run_id,
            run_type=one(T_TYPE),  # type: ignore[arg-type]
            triggered_by=one(T_TRIGGER),
            base="",
            started_at=one(T_STARTED),
            budget=budget(T_BUDGET),
            usage=budget(T_USAGE),
        )
    except ValidationError as e:  # e.g. an unknown run type
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise RunError(
            f"run {run_id}: commit {commit.short_id}: {where}: {first['msg']}; the run is corrupt"
        ) from e
