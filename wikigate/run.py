"""A run: a branch ``wikigate/runs/<id>`` whose commits are the staged ops.

Every op is one commit built in memory (blobs and trees, no checkout), its
message carrying the run's record as trailers (see plan.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pygit2

from . import gitrepo
from .codes import finding
from .config import CONFIG_FILE
from .errors import GitError, RunError, UsageError
from .gitrepo import RUN_PREFIX
from .models import TERMINAL, Budget, EarlierTrace, Plan, RunMeta, TracePin
from .paths import (
    ATTACHMENT_SUFFIXES,
    MAX_PAGE_BYTES,
    MAX_SOURCE_BYTES,
    attachment_problem,
    is_attachment,
    normalize,
)
from .plan import check_pinned, op_text, read_meta, read_plan, trailers_for
from .records import pending_record
from .refs import RefTransaction, with_ref_lock
from .runid import now_iso
from .text import first_unprintable, occurrences, shown
from .trace import (
    EARLIER_RUNS,
    GENESIS,
    READS_MAX,
    TRACE_MAX,
    TraceEvent,
    TraceOp,
    TraceRead,
    TraceUnreadable,
    chain_problem,
    digest,
    event_message,
    link,
    read_trace,
    staged_blobs,
    trace_ref,
    trace_tip,
)

if TYPE_CHECKING:
    from .env import Env
    from .models import Finding
    from .store import RunRow, Store


class NoSingleMatch(RunError):
    """``str_replace``'s old text is not in the page exactly once: ``finding`` says so.

    The Python API's run (``workspace.WorkspaceRun``) rejects the whole run then and
    raises ``ReplaceFailed``."""

    def __init__(self, message: str, finding: Finding) -> None:
        super().__init__(message)
        self.finding = finding


class ReplaceFailed(RunError):
    """``str_replace`` found zero or several matches; the whole run was rejected."""


class Run:
    def __init__(self, env: Env, run_id: str, row: RunRow) -> None:
        self.env = env
        # where the wiki's pages are (the rules' [wiki]); the verifier checks the same
        # paths under the base's rules (run.path_acl)
        self.layout = env.config.wiki.layout()
        self.run_id = run_id
        self.row = row
        self.branch = RUN_PREFIX + run_id

    # ------------------------------------------------------------ creation

    @classmethod
    def create(
        cls,
        env: Env,
        run_id: str,
        run_type: str,
        triggered_by: str,
        base: pygit2.Oid,
        budget: Budget,
        scope: tuple[str, ...] | None = None,
        direction: str | None = None,
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
            scope=scope,
            direction=direction,
        )
        repo = env.repo
        sig = gitrepo.signature(repo)
        message = gitrepo.format_message(
            f"wikigate: start {run_type} run {run_id}", trailers_for(meta, op_text("start"))
        )
        commit = repo.create_commit(None, sig, sig, message, repo[base].tree.id, [base])
        branch = RUN_PREFIX + run_id

        def publish(txn: RefTransaction) -> None:
            if gitrepo.ref_target(repo, branch) is not None:
                raise GitError(f"branch {branch} already exists")
            txn.set_target(branch, commit, message=f"wikigate: start run {run_id}")

        with_ref_lock(repo, [branch], publish)
        record = pending_record(env.name, meta, str(commit))
        with env.store.immediate():
            env.store.apply_record(record)
        row = env.store.get(run_id)
        assert row is not None  # just written, in this process
        return cls(env, run_id, row)

    # ------------------------------------------------------------ reading

    def refresh(self) -> RunRow:
        row = self.env.store.get(self.run_id)
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
        for ref in (self.branch, self.env.failed_ref(self.run_id)):
            if gitrepo.ref_target(self.env.repo, ref) is not None:
                return ref
        return None

    def tip(self) -> pygit2.Oid:
        oid = gitrepo.ref_target(self.env.repo, self.branch)
        if oid is None:
            oid = gitrepo.ref_target(self.env.repo, self.env.failed_ref(self.run_id))
        recorded = self.row["tip_commit"]
        if oid is None and recorded:
            oid = pygit2.Oid(hex=recorded)
        if oid is None:
            raise RunError(f"run {self.run_id}: its branch {self.branch} is gone")
        return oid

    def plan(self, tip: pygit2.Oid | None = None) -> Plan:
        """The run's plan read from its commits at ``tip`` (default: where git keeps it),
        checked against what ``run start`` recorded (RunForged when it differs)."""
        plan = read_plan(self.env.repo, tip or self.tip(), self.run_id)
        row = self.refresh()
        check_pinned(plan.meta, row.get("meta_digest"))
        return with_trace(self.env.store, row, plan)

    def staged_tree(self) -> pygit2.Tree:
        return gitrepo.commit_at(self.env.repo, self.tip()).tree

    def read(self, path: str) -> bytes | None:
        return gitrepo.read_blob(self.env.repo, self.staged_tree(), normalize(path))

    # ------------------------------------------------------------ staging

    def _require_open(self) -> None:
        from .reconcile import sweep  # publishing and attesting: not on a reading path

        sweep(self.env)
        status = self.refresh()["status"]
        if status in TERMINAL:
            raise RunError(f"run {self.run_id} is {status}; start a new run")
        if status == "verifying":
            raise RunError(f"run {self.run_id} is being finalized; wait for it")

    def _check_target(self, path: str) -> str:
        path = normalize(path)
        where = self.layout.area(path)
        run_type = self.row["run_type"]
        if where == "raw":
            if run_type != "ingest":
                raise RunError(f"{path}: only ingest runs may add raw sources")
            if gitrepo.read_blob(self.env.repo, self.staged_tree(), path) is not None:
                raise RunError(f"{path}: raw sources are immutable; it exists already")
            base_tree = gitrepo.commit_at(self.env.repo, self.row["base_commit"]).tree
            if path in base_tree:
                raise RunError(f"{path}: raw sources are immutable; it exists on main")
        elif path == CONFIG_FILE:
            pass  # a rules change: verified as run.rules_change, a person decides
        elif where != "wiki":
            pass  # a repository file: verified as run.repository_file, a person decides
        elif not path.endswith(".md") and not is_attachment(path, self.layout):
            raise RunError(
                f"{path}: the wiki ({self.layout.shown}) holds markdown pages (*.md) and "
                f"their attachments ({' '.join(ATTACHMENT_SUFFIXES)}) only; a file of another "
                "kind (an Obsidian .canvas or .base) is a repository file once [wiki] exclude "
                'takes it out of the wiki (e.g. exclude = ["*.canvas"]), written by a run '
                "that a person approves"
            )
        return path

    def stage_write(self, path: str, content: str | bytes) -> pygit2.Oid:
        """Stage a whole file; wiki pages must be UTF-8 text."""
        self._require_open()
        path = self._check_target(path)
        data = content.encode("utf-8") if isinstance(content, str) else content
        where = self.layout.area(path)
        page = where == "wiki" and not is_attachment(path, self.layout)
        self._within_limit(
            path, data, MAX_PAGE_BYTES if page or where == "other" else MAX_SOURCE_BYTES
        )
        if page or path == CONFIG_FILE:
            _check_text(path, data)
        elif self.layout.area(path) == "wiki":
            problem = attachment_problem(path, data)
            if problem is not None:
                raise RunError(f"{path}: {problem}; an attachment must be what its name says")
        blob = self.env.repo.create_blob(data)
        return self._commit("write", path, blob)

    def _within_limit(self, path: str, data: bytes, limit: int) -> None:
        """RunError when ``data`` is past ``limit``, naming the kind of file."""
        if len(data) > limit:
            where = self.layout.area(path)
            what = "repository" if where == "other" else where
            raise RunError(f"{path}: over {limit // 2**20} MB, the limit for {what} files")

    def str_replace(self, path: str, old: str, new: str) -> pygit2.Oid:
        """Replace the one occurrence of ``old`` in the staged copy of ``path``.

        Zero or several matches raise ``NoSingleMatch`` (with the finding); through
        the Python API (``Workspace``) they abort the whole run: it is rejected at
        once, with the reason recorded, and nothing reaches main.
        """
        self._require_open()
        path = self._check_target(path)
        if path != CONFIG_FILE and (
            self.layout.area(path) != "wiki" or is_attachment(path, self.layout)
        ):
            raise RunError(f"{path}: only wiki pages and {CONFIG_FILE} can be edited")
        current = self.read(path)
        if current is None:
            problem = f"{path} does not exist in the run"
        else:
            text = _check_text(path, current)
            found = occurrences(text, old) if old else []
            if len(found) == 1:
                at = found[0]
                data = (text[:at] + new + text[at + len(old) :]).encode("utf-8")
                # what a write of it would be refused for (trial 28c M1: a NUL byte or a
                # page past the limit was staged, and finalize rejected the whole run)
                self._within_limit(path, data, MAX_PAGE_BYTES)
                _check_text(path, data)
                blob = self.env.repo.create_blob(data)
                return self._commit("replace", path, blob)
            overlap = any(b - a < len(old) for a, b in zip(found, found[1:], strict=False))
            problem = (
                f"--old text found {len(found)} times in {path}"
                + (" (matches overlap)" if overlap else "")
                + "; it must match exactly once"
                if old
                else "--old text is empty"
            )
        raise NoSingleMatch(problem, finding("run.replace_failed", path, None, problem))

    def stage_delete(self, path: str) -> pygit2.Oid:
        self._require_open()
        path = normalize(path)
        if self.layout.area(path) == "raw":
            raise RunError(f"{path}: raw sources are immutable; runs never delete them")
        if self.read(path) is None:
            raise RunError(f"{path}: no such file in the run")
        return self._commit("delete", path, None)

    def attest_usage(self, usage: Budget) -> pygit2.Oid:
        """The writer attests what it spent; the verifier checks it against the budget.
        Spend only grows: an attestation below one already made is refused (it would
        erase an overspend)."""
        self._require_open()
        before = read_meta(self.env.repo, self.tip(), self.run_id).usage
        for name in ("input_tokens", "output_tokens", "usd"):
            was, now = getattr(before, name), getattr(usage, name)
            if was is not None and (now is None or now < was):
                raise UsageError(
                    f"{self.run_id}: usage only grows: {name} was attested as {was}, "
                    f"not {now if now is not None else 'nothing'}; attest the run's whole "
                    "spend so far"
                )
        return self._commit("usage", None, None, usage=usage)

    # ------------------------------------------------------------ the trace

    def trace(
        self,
        tool: str,
        args: dict[str, Any],
        result: str,
        *,
        reads: Sequence[tuple[str, str]] = (),
        op: TraceOp | None = None,
        ops: int | None = None,
    ) -> TraceEvent:
        """Record one tool call of a ``wikigate mcp`` session in the run's trace
        (wikigate/trace.py): a commit on ``refs/wikigate/trace/<run>`` after the last
        event wikigate recorded, and the chain's new head pinned in the database.
        ``reads``: (path, blob) of each file the call read."""
        row = self.refresh()
        if row["status"] == "verifying":  # its verification reads the trace as pinned now
            raise RunError(f"run {self.run_id} is being finalized; wait for it")
        return self._append_trace(row, tool, args, result, reads=reads, op=op, ops=ops)

    def trace_rebase(
        self, old_tip: pygit2.Oid, new_tip: pygit2.Oid, main: pygit2.Oid, staged: set[str]
    ) -> None:
        """Record in a traced run's trace that its finalizer replayed it onto ``main``
        (docs/mcp.md, "The trace"): a ``rebase`` event naming, as its reads, each path the
        run staged whose blob the replay changed (a three-way merge with main's change),
        and the blob it holds now; the trace check holds the run to those. Only a path
        that held, before the replay, the blob the trace says the session staged there is
        named: a change made outside the session is not vouched for by merging it. Called
        by the finalizer while it verifies the run (no session call can interleave)."""
        row = self.refresh()
        count = int(row.get("trace_count") or 0)
        if not count:
            return  # no trace: a CLI run
        repo = self.env.repo
        try:
            events = read_trace(repo, self.run_id, count)
        except TraceUnreadable:
            events = None
        if events is None or chain_problem(events, row.get("trace_head") or "", count):
            return  # the trace check rejects the run (run.trace_tampered)
        expected = staged_blobs(events)
        old, new = (gitrepo.commit_at(repo, c).tree for c in (old_tip, new_tip))
        merged = []
        for path in sorted(staged):
            was, now = (_blob_id(t, path) for t in (old, new))
            if now is not None and was != now and path in expected and expected[path] == was:
                merged.append((path, now))
        args = {"from": str(old_tip), "onto": str(main)}
        self._append_trace(row, "rebase", args, str(new_tip), reads=merged)

    def _append_trace(
        self,
        row: RunRow,
        tool: str,
        args: dict[str, Any],
        result: str,
        *,
        reads: Sequence[tuple[str, str]] = (),
        op: TraceOp | None = None,
        ops: int | None = None,
    ) -> TraceEvent:
        repo = self.env.repo
        prev = row.get("trace_head") or GENESIS
        count = int(row.get("trace_count") or 0)
        if count >= TRACE_MAX:
            raise RunError(
                f"run {self.run_id}: its trace holds {TRACE_MAX} calls, the most a run may "
                "make; finalize or abandon it"
            )
        event = TraceEvent(
            seq=count + 1,
            tool=tool,
            args=digest(args),
            result=digest(result),
            reads=tuple(TraceRead(path=p, blob=b) for p, b in reads[:READS_MAX]),
            op=op,
            ops=ops,
            prev=prev,
        )
        ref = trace_ref(self.run_id)
        parent = trace_tip(repo, self.run_id, prev, count)
        sig = gitrepo.signature(repo)
        empty = repo.TreeBuilder().write()
        commit = repo.create_commit(
            None, sig, sig, event_message(event), empty, [parent] if parent else []
        )

        def publish(txn: RefTransaction) -> None:
            if gitrepo.ref_target(repo, ref) != parent:
                raise RunError(f"run {self.run_id}: its trace changed while recording; retry")
            txn.set_target(ref, commit, message=f"wikigate: trace {event.seq}")

        with_ref_lock(repo, [ref], publish)
        with self.env.store.immediate():
            self.env.store.pin_trace(self.run_id, link(prev, event), event.seq)
        return event

    # ------------------------------------------------------------ internals

    def _commit(
        self, kind: str, path: str | None, blob: pygit2.Oid | None, usage: Budget | None = None
    ) -> pygit2.Oid:
        repo = self.env.repo
        parent = self.tip()
        meta = read_meta(repo, parent, self.run_id)
        check_pinned(meta, self.row.get("meta_digest"))
        if usage is not None:
            meta = meta.model_copy(update={"usage": usage})
        tree = repo[parent].tree
        try:
            tree_id = tree.id if path is None else gitrepo.tree_with(repo, tree, path, blob)
        except GitError as e:
            raise RunError(f"{path}: {e}") from e
        op = op_text(kind, path, blob)
        sig = gitrepo.signature(repo)
        subject = f"wikigate: {kind} {path or ''}".rstrip()
        commit = repo.create_commit(
            None,
            sig,
            sig,
            gitrepo.format_message(subject, trailers_for(meta, op)),
            tree_id,
            [parent],
        )

        def publish(txn: RefTransaction) -> None:
            if gitrepo.ref_target(repo, self.branch) != parent:
                raise RunError(f"run {self.run_id} changed while staging; retry the op")
            txn.set_target(self.branch, commit, message=f"wikigate: {kind}")

        with_ref_lock(repo, [self.branch], publish)
        with self.env.store.immediate():
            values: dict[str, Any] = {"tip_commit": str(commit)}
            if usage is not None:
                values.update(
                    budget_input_tokens_used=usage.input_tokens or 0,
                    budget_output_tokens_used=usage.output_tokens or 0,
                    budget_usd_used=usage.usd or 0.0,
                )
            self.env.store.update_run(self.run_id, **values)
        return commit


def with_trace(store: Store, row: RunRow, plan: Plan) -> Plan:
    """``plan`` with the pin of the run's trace, as the database (``row``) records it,
    never as git says: None when it records none (a CLI run)."""
    head, count = row.get("trace_head"), row.get("trace_count")
    if not head or not count:
        return plan
    rows = store.traced_runs(row["run_id"], row["started_at"], EARLIER_RUNS)
    earlier = tuple(EarlierTrace(run_id=r, head=h, count=n) for r, h, n in rows[:EARLIER_RUNS])
    pin = TracePin(head=head, count=count, earlier=earlier, earlier_more=len(rows) > EARLIER_RUNS)
    return plan.model_copy(update={"trace": pin})


def _check_text(path: str, data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise RunError(f"{path}: content is not UTF-8 (byte {e.start}); wiki pages are text") from e
    if "\x00" in text:
        raise RunError(f"{path}: content holds NUL bytes; wiki pages are text")
    return text


def _blob_id(tree: pygit2.Tree, path: str) -> str | None:
    try:
        obj = tree[path]
    except (KeyError, ValueError, pygit2.GitError):
        return None
    return str(obj.id) if obj.type_str == "blob" else None
