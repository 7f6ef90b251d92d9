"""``wikigate mcp``: a Model Context Protocol server over stdio, or streamable HTTP
(``--http``; docs/mcp.md).

A thin surface like the CLI: each tool calls the library the CLI calls (``workspace``,
``run``, ``anchors``, ``changes``, ``ledger``, the verifier's ``staged`` tree) and its
errors are the library's, the messages the CLI prints, returned as MCP tool errors.

A session works in one workspace. The library is not thread-safe (the
telemetry store is one SQLite connection), so every call runs on one worker thread, in
order. A session has at most one open run; the reading tools read its staged tree while
it is open, else main. A run the session started and did not finish when the client
disconnects (end of input, SIGTERM) is abandoned at once, as ``wikigate run abandon``
abandons one (``Workspace.abandon``), unless it waits for a person's word (needs_human_review); if the
process is killed outright, the run stays pending until the run timeout and the next
sweep abandons it.

While a run is open, every call that succeeds is recorded in the run's trace
(``Session.traced`` → ``Run.trace``; wikigate/trace.py): the tool, its arguments' and
result's digests, the files it read, the op it staged; ``finalize`` is recorded before
the run is verified, which checks the trace (the verifier's ``checks/trace.py``).

Over stdio one process serves one session; over streamable HTTP (``serve_http``) each
MCP session (each client) has a ``Session`` of its own (``HttpSessions``), all released
when the server stops.

The ``mcp`` SDK is imported here only, when the server starts (``pip install
'wikigate[mcp]'``), never on the CLI's start-up path.
"""

import asyncio
import concurrent.futures
import dataclasses
import functools
import os
import signal
import sys
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, cast

from wikigate.kinds import MAX_LOOPS, NEEDS_HUMAN_REVIEW
from wikigate.mcp_results import (
    AbandonResult,
    AnchorResult,
    ClaimRow,
    ClaimsResult,
    FinalizeResult,
    FindingResult,
    FollowResult,
    GrepHit,
    GrepResult,
    HistoryCommit,
    HistoryResult,
    ListResult,
    ReadResult,
    StagedResult,
    StartRunResult,
    UsageResult,
)
from wikigate.trace import READS_MAX
from wikigate.verifier.staged import StagedTree
from wikigate.verifier.wiki import WikiTree

if TYPE_CHECKING:
    from wikigate.verifier.pdfbox import PdfLimits
    from wikigate.workspace import Workspace, WorkspaceRun

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

LIST_MAX = 2000  # paths `list` returns at most
CLAIMS_MAX = 500  # ledger rows `claims` returns at most
DISCONNECT_REASON = "the MCP client disconnected before the run was finalized"
STOPPED_REASON = "the MCP server stopped before the run was finalized"

INSTRUCTIONS = (
    "wikigate gates a wiki kept in git: every change is a run, verified before it lands "
    "on main. Start a run (start_run), read the source (read), anchor each quote (anchor), "
    "cite or gap-mark every statement, write the pages (write, replace), then finalize. "
    "On revise, do the result's next_actions first, act on the findings (their hint and "
    "suggested_tail) and finalize again; on needs_human_review, stop and pass its questions "
    "to the user. read gives a file's characters alone: write a page back as read. A "
    "rejection closes the run (run_open false): start a new run, read the sources and "
    "pages again and redo the change, fixing what next_actions name."
)


class Session:
    """One client's session: the workspace, its open run, the runs it started, and the
    one worker thread every library call runs on."""

    def __init__(self, repo: str) -> None:
        self.repo = repo
        self._ws: Workspace | None = None
        self._main: Any = None  # main's tip when the workspace was opened
        self.run_id: str | None = None
        self.started: list[str] = []
        # (path, blob) of what the session read with no run open, the newest last: the
        # next run's start_run event names them as read (docs/mcp.md, "The trace")
        self._unrun_reads: OrderedDict[str, str] = OrderedDict()
        self._pdfs = PdfTexts()  # the PDF sources read in this session, by blob
        self._texts = SourceTexts()  # the sources decoded in this session, by blob
        # the tree the reading tools read: (the workspace, the tree's id, its view); one
        # kept, built again when the run's tip (else main) names another tree
        self._tree: tuple[Workspace, str, SessionTree] | None = None
        self._pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="wikigate-mcp"
        )

    # -------------------------------------------------------- plumbing

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run ``fn`` on the session's worker thread; a library error becomes a tool error."""
        future = self._pool.submit(_guarded, self._fresh, fn, *args, **kwargs)
        return await asyncio.wrap_future(future)

    def _fresh(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Call ``fn`` with the workspace as a new command would open it: when main moved
        since it was opened (a landing here or elsewhere), it is opened again, so the
        rules are main's wikigate.toml now, as a CLI command would read them."""
        from wikigate.gitrepo import ref_target

        if self._ws is not None and ref_target(self._ws.repo, self._ws.env.main) != self._main:
            self._ws.close()
            self._ws = None
            self._tree = None  # read under the rules as they were
        return fn(*args, **kwargs)

    @property
    def ws(self) -> "Workspace":
        if self._ws is None:
            from wikigate.gitrepo import ref_target
            from wikigate.workspace import Workspace

            self._ws = Workspace.open(self.repo)
            self._main = ref_target(self._ws.repo, self._ws.env.main)
        return self._ws

    def open_run(self) -> "WorkspaceRun":
        if self.run_id is None:
            from wikigate.errors import RunError

            raise RunError("no run is open in this session; call start_run first")
        return self.ws.run(self.run_id)

    def staged(self) -> "SessionTree":
        """The open run's staged tree, else main's: built once per tree (a walk of every
        entry, ~9 ms on a 1k wiki) and kept while the run's tip (else main) names it, so a
        call's reads, its trace's blob ids and the next calls read one view."""
        from wikigate.gitrepo import branch_name, commit_at, ref_target

        ws = self.ws
        found = (
            ws.run(self.run_id).tip()
            if self.run_id is not None
            else ref_target(ws.repo, ws.env.main)
        )
        if found is None:
            raise LookupError(f"{branch_name(ws.env.main)} is gone; nothing to read")
        tree_id = str(commit_at(ws.repo, found).tree_id)
        kept = self._tree
        where = f"in run {self.run_id}" if self.run_id is not None else "on main"
        if kept is not None and kept[0] is ws and kept[1] == tree_id:
            kept[2].tip = str(found)  # the same files at another commit: history from it
            kept[2].where = where
            return kept[2]
        view = SessionTree(ws.repo, wiki_tree(ws, found, self._texts), str(found), self._pdfs)
        view.where = where
        self._tree = (ws, tree_id, view)
        return view

    def _settled(self, run: "WorkspaceRun") -> None:
        """Forget the open run once it is committed, rejected or abandoned, or waits for
        a person's word (needs_human_review: the writer's part is done)."""
        from wikigate.models import TERMINAL

        row = run.refresh()
        if row["status"] in TERMINAL or _waits_for_a_person(row):
            self.run_id = None

    # -------------------------------------------------------- the trace

    def traced(
        self,
        tool: str,
        args: dict[str, Any],
        fn: Callable[[], T],
        reads: Callable[[T], list[tuple[str, str]]] | None = None,
        op: Callable[[T], Any] | None = None,
    ) -> T:
        """Call ``fn`` and record the call in the open run's trace (wikigate/trace.py): its
        arguments' and result's digests, what it read (``reads`` of the result: (path,
        blob)), what it staged (``op``: a TraceOp). On the worker thread; with no run open,
        or when the call fails (it changed nothing), nothing is recorded. A call whose
        event cannot be recorded fails, naming why: the run's trace would not hold it.
        The trace is checked first: on a trace that is not the one recorded, the call
        fails before it acts (nothing staged)."""
        # start_run opens a run or fails (a run ended elsewhere is forgotten first)
        opened = self.run_id if tool != "start_run" else None
        if opened is not None:
            self._trace_intact(tool, opened)
        done = fn()
        run_id = self.run_id
        read = reads(done) if reads is not None else []
        if run_id is None:  # no run open: kept for the next run's start_run event
            self._unrun_reads.update(read)
            for path, _ in read:
                self._unrun_reads.move_to_end(path)
            while len(self._unrun_reads) > READS_MAX:
                self._unrun_reads.popitem(last=False)
            return done
        if opened is None:  # start_run: the reads this session made with no run open
            read = [*self._unrun_reads.items(), *read]
            self._unrun_reads.clear()
        self._record(
            run_id,
            tool,
            args,
            _result_text(done),
            reads=read,
            op=op(done) if op is not None else None,
        )
        return done

    def _trace_intact(self, tool: str, run_id: str) -> None:
        """TraceTampered (as a RunError naming the call) when the run's trace ref does not
        end at the event wikigate pinned last: a call on it could not be recorded."""
        from wikigate.errors import RunError
        from wikigate.trace import TraceTampered, pinned_tip

        try:
            pinned_tip(self.ws.repo, run_id, self.ws.run(run_id).refresh())
        except TraceTampered as e:
            raise RunError(f"{tool} was refused, nothing was done: {e}") from e

    def _record(self, run_id: str, tool: str, args: dict[str, Any], result: str, **kw: Any) -> None:
        from wikigate.errors import RunError, WikigateError

        try:
            self.ws.run(run_id).trace(tool, args, result, **kw)
        except WikigateError as e:
            raise RunError(f"{tool} was done, but its call could not be traced: {e}") from e

    def reads_of(self, paths: list[str]) -> list[tuple[str, str]]:
        """(path, blob) of each of ``paths`` in the staged tree (else main's): the tree
        the call read, as ``staged()`` is kept while the tip names it."""
        entries = self.staged().tree.entries
        found = (entries.get(p) for p in dict.fromkeys(paths))
        return [(p, str(e.oid)) for p, e in zip(dict.fromkeys(paths), found, strict=True) if e]

    def grep_reads(self, text: str) -> list[tuple[str, str]]:
        """The files a grep's hits are in (``path:line: …``, ``path p.N:line: …``)."""
        import re

        hit = re.compile(r"(.+?)(?: p\.\d+)?:\d+: ")
        return self.reads_of([m[1] for line in text.splitlines() if (m := hit.match(line))])

    def follow_reads(self, page: str, text: str) -> list[tuple[str, str]]:
        """The page and the file a ``follow`` showed the start of."""
        import re

        shown = re.match(r".*? (?:leads to|is a source reference to) (.+?):\n", text)
        return self.reads_of([page, *([shown[1]] if shown else [])])

    def staging_op(self, kind: str, path: str, commit: str) -> Any:
        """The TraceOp of a staging call: the blob its commit left at ``path``."""
        from wikigate.gitrepo import commit_at
        from wikigate.trace import TraceOp

        tree = commit_at(self.ws.repo, commit).tree
        blob = str(tree[path].id) if kind != "delete" and path in tree else None
        return TraceOp(kind=kind, path=path, blob=blob)

    def finalize_traced(self, judge: str | None) -> Any:
        """``finalize``, recorded in the trace before the run is verified (with the ops the
        run holds: the trace check compares them with the session's writes)."""
        from wikigate.errors import RunError
        from wikigate.plan import op_count
        from wikigate.trace import TraceTampered

        run = self.open_run()
        try:  # None: commits made outside wikigate; finalize rejects the run (run.forged)
            ops = op_count(self.ws.repo, run.tip(), run.run_id)
        except RunError:  # a malformed op: the same
            ops = None
        try:
            self._record(run.run_id, "finalize", {"judge": judge}, "", ops=ops)
        except RunError as e:
            if not isinstance(e.__cause__, TraceTampered):
                raise
            # the trace is not the one recorded: verification says so (run.trace_tampered)
        return self.finalize(judge)

    # -------------------------------------------------------- reading

    def list_paths(self, under: str) -> ListResult:
        tree = self.staged().tree
        paths = sorted(
            p for p in tree.entries if p.startswith(("raw/", "wiki/")) and p.startswith(under)
        )
        return {"where": self.where(), "paths": paths[:LIST_MAX], "total": len(paths)}

    def where(self) -> str:
        return f"run {self.run_id}" if self.run_id is not None else "main"

    def claims(self, page: str | None, source: str | None, status: str | None) -> ClaimsResult:
        from wikigate import ledger

        rows = ledger.claims(self.ws, page=page, source=source, status=status)
        shown: list[ClaimRow] = rows[:CLAIMS_MAX]  # type: ignore[assignment] # the table's columns
        return {"claims": shown, "total": len(rows)}

    def anchor(self, source: str, quote: str, page: int | None) -> str:
        """``anchor`` in the tree the reading tools read (its sources decoded once a
        session: ``SourceTexts``)."""
        from wikigate.anchors import anchor_tail

        run = self.ws.run(self.run_id) if self.run_id is not None else None
        return anchor_tail(self.ws, source, quote, page, self.staged().tree, run=run)

    def anchor_traced(self, source: str, quote: str, page: int | None) -> str:
        """The ``anchor`` tool's call: ``anchor``, traced with the source it read."""
        return self.traced(
            "anchor",
            {"source": source, "quote": quote, "page": page},
            lambda: self.anchor(source, quote, page),
            lambda _: self.reads_of(self.staged().tree.find_source(source)[0][:1]),
        )

    # -------------------------------------------------------- writing

    def start_run(
        self,
        run_type: str,
        triggered_by: str,
        budget: dict[str, Any],
        scope: list[str] | None,
        direction: str | None,
    ) -> str:
        from wikigate.errors import RunError, UsageError
        from wikigate.models import TERMINAL, Budget

        if not triggered_by.startswith("mcp:"):
            # a session's runs are the MCP trigger's (sweep leaves github: runs to the bot)
            raise UsageError(
                f"triggered_by {triggered_by!r}: an MCP session starts mcp:<tool> runs"
            )
        if self.run_id is not None and self.ws.run(self.run_id).status in TERMINAL:
            self.run_id = None  # ended elsewhere (a sweep, a person)
        if self.run_id is not None:
            raise RunError(
                f"run {self.run_id} is open in this session; finalize or abandon it first"
            )
        run = self.ws.start_run(
            run_type, triggered_by, Budget(**budget), scope=scope, direction=direction
        )
        self.run_id = run.run_id
        self.started.append(run.run_id)
        return run.run_id

    def replace(self, path: str, old: str, new: str) -> str:
        from wikigate.run import NoSingleMatch, Run

        run = self.open_run()
        if not old:  # an argument error: the call fails, the run stays open
            raise LookupError(
                "`old` is empty: pass the text to replace, exactly as the page holds it "
                "(read the page first); nothing was staged"
            )
        self.check_scope(path)
        if normalized(path) == self.ws.config.wiki.layout().log:
            staged = run.read(normalized(path))
            text = staged.decode("utf-8", "replace") if staged is not None else ""
            if text.count(old) == 1:  # else str_replace says why it stages nothing
                self.check_log(path, text.replace(old, new, 1).encode())
        try:
            # the run's own check (the page, the count) before it stages: a call with no
            # single match stages nothing and leaves the run open (the CLI's `run
            # replace`, through the Python API's run, rejects the whole run)
            return str(Run.str_replace(run, path, old, new))
        except NoSingleMatch as e:
            raise LookupError(
                f"{str(e).replace('--old', '`old`')}: nothing was staged and the run stays "
                "open; read the page and pass `old` exactly as it holds it, once"
            ) from e

    def write(self, path: str, content: str) -> str:
        run = self.open_run()
        self.check_scope(path)
        self.check_log(path, content.encode())
        return str(run.stage_write(path, content))

    def delete(self, path: str) -> str:
        run = self.open_run()
        self.check_scope(path)
        self.check_log(path, None)
        return str(run.stage_delete(path))

    def check_log(self, path: str, content: bytes | None) -> None:
        """A staging call that would leave the log not an append of the run's base's log
        (``content``: the log it would stage; None: deleted) is refused before it stages:
        finalize would reject the whole run (run.log_rewrite, critical; trial 28b N7)."""
        from wikigate.gitrepo import blob_at, commit_at
        from wikigate.verifier.checks.runs import log_continued

        log = self.ws.config.wiki.layout().log
        if normalized(path) != log:
            return
        base = commit_at(self.ws.repo, self.open_run().refresh()["base_commit"])
        try:
            before = blob_at(self.ws.repo, base.tree[log].id).data
        except KeyError:
            return  # no log on the base: a new one is the run's to write
        if content is not None and content.startswith(before):
            # bytes kept, but an entry changed as it renders (trial 28c M2): finalize
            # rejects it as a rewrite
            continued = log_continued(log, before, content)
            if continued is None:
                return
            raise LookupError(
                f"{continued[1]} (finalize rejects that: run.log_rewrite); nothing was staged "
                "and the run stays open"
            )
        what = "delete" if content is None else "change what is already in"
        raise LookupError(
            f"{log} is append-only: this call would {what} it (finalize rejects that: "
            "run.log_rewrite): nothing was staged and the run stays open; add lines to its "
            "end only"
        )

    def over_budget(self, spent: Any) -> list[str]:
        """What ``spent`` exceeds of the open run's declared budget: ``usd: used 0.5,
        budget 0.1`` each (the ``run.budget`` finding finalize will make)."""
        from wikigate.plan import read_meta

        run = self.open_run()
        budget = read_meta(self.ws.repo, run.tip(), run.run_id).budget
        out = []
        for name in ("input_tokens", "output_tokens", "usd"):
            cap, used = getattr(budget, name), getattr(spent, name)
            if cap is not None and used is not None and used > cap:
                out.append(f"{name.replace('_', ' ')}: used {used:g}, budget {cap:g}")
        return out

    def check_scope(self, path: str) -> None:
        """A staging call on a path outside the scope the open run declared (``start_run``
        ``scope``) is refused before it stages: finalize would reject the whole run
        (``run.scope``). Appending to the log is always in scope (finalize checks that it
        is an append)."""
        from wikigate.paths import in_scope
        from wikigate.plan import read_meta

        run = self.open_run()
        scope = read_meta(self.ws.repo, run.tip(), run.run_id).scope
        target = normalized(path)
        if scope is None or in_scope(target, scope) or target == self.ws.config.wiki.layout().log:
            return
        raise LookupError(
            f"{target} is outside the scope this run declared ({', '.join(scope) or 'no path'}): "
            "nothing was staged and the run stays open; change only paths in the scope, or "
            "finalize or abandon this run and start one whose scope holds it"
        )

    def finalize(self, judge: str | None) -> Any:
        from wikigate.changes import finalize_judge

        ws, run = self.ws, self.open_run()
        finalize_judge(ws, run, judge)
        result = run.finalize(judge=judge, sources=self._texts)  # what read and anchor decoded
        findings = findings_data(ws, result.findings, result.tip)
        # the claim ledger catches up when it is read (the claims tool: ledger.claims syncs),
        # with every run landed since at once (a finalize spent ~35 ms on it, issue 28)
        self._settled(run)
        return result, findings

    def abandon(self, why: str) -> AbandonResult:
        run = self.open_run()
        try:
            row = self.ws.abandon(run.run_id, why)  # as `wikigate run abandon`
        finally:
            self._settled(run)
        return {"run_id": run.run_id, "status": row["status"], "reason": row["reject_reason"]}

    # -------------------------------------------------------- the end

    def release(self, why: str = DISCONNECT_REASON) -> list[str]:
        """On disconnect: wait for the call in progress, then abandon every run this
        session started that is still pending, but for one waiting for a person's word (on
        the worker thread, as every call). Returns the runs abandoned."""
        try:
            return self._pool.submit(self._release, why).result()
        finally:
            self._pool.shutdown(wait=True)

    def _release(self, why: str) -> list[str]:
        from wikigate.errors import WikigateError

        done = []
        try:
            for run_id in self.started:  # the workspace reopened if a call closed it
                row = self.ws.store.get(run_id)
                if row is None or row["status"] != "pending" or _waits_for_a_person(row):
                    continue
                try:
                    self.ws.abandon(run_id, why)
                except WikigateError:
                    continue  # finalized elsewhere meanwhile: the finalizer settles it
                done.append(run_id)
        finally:
            if self._ws is not None:
                self._ws.close()
                self._ws = None
        return done


PDF_CHARS_KEPT = 4_000_000  # characters of PDF text a session keeps, at most
SOURCE_BYTES_KEPT = 256 * 2**20  # bytes of decoded source text a session keeps, at most


class SourceTexts:
    """The source texts a session decoded (``WikiTree.source_text``: a 10 MB source is
    ~55 ms to inflate and decode), by how the source is read (its blob, name, markup, a
    PDF's box; sources.reading_of) and page (``WikiTree.shelf_key``: never by path), so a
    run's next tree (every write makes one) and the verification ``finalize`` runs (a
    ``protocol.SourceShelf``: ``Request.sources``) do not read them again. Kept while
    within SOURCE_BYTES_KEPT bytes (the strings' size in memory), the least recently read
    dropped first; a text larger than the budget is not kept."""

    def __init__(self, budget: int = SOURCE_BYTES_KEPT) -> None:
        from collections import OrderedDict

        self.budget = budget
        self._kept: OrderedDict[tuple[Any, ...], str] = OrderedDict()
        self.size = 0

    def get(self, key: tuple[Any, ...]) -> str | None:
        found = self._kept.get(key)
        if found is not None:
            self._kept.move_to_end(key)
        return found

    def put(self, key: tuple[Any, ...], text: str) -> None:
        size = sys.getsizeof(text)
        if key in self._kept or size > self.budget:
            return
        self._kept[key] = text
        self.size += size
        while self.size > self.budget:
            _, dropped = self._kept.popitem(last=False)
            self.size -= sys.getsizeof(dropped)


class PdfTexts:
    """The PDF sources a session read: each blob parsed once, all its pages, in the box
    verification reads it in (``pdfbox.extract`` under the rules' ``[limits]``); kept
    while within PDF_CHARS_KEPT characters, the oldest dropped first."""

    def __init__(self) -> None:
        from collections import OrderedDict

        self._kept: OrderedDict[tuple[str, str], dict[int, str]] = OrderedDict()
        self._chars = 0
        self._starts: dict[str, bool] = {}  # a blob → whether it starts as a PDF does

    def starts_as_pdf(self, repo: Any, oid: Any) -> bool:
        """Whether the blob starts like a PDF: read once a session (libgit2 inflates a
        whole blob to give its first bytes: ~0.3 s for a 10 MB source, at every ``read``
        of a span of it before; trial 28b N2). Bounded: one bool a source blob."""
        from wikigate.gitrepo import blob_at

        key = str(oid)
        found = self._starts.get(key)
        if found is None:
            if len(self._starts) >= 100_000:
                self._starts.clear()
            found = self._starts[key] = bytes(blob_at(repo, oid).data[:5]) == b"%PDF-"
        return found

    def pages(self, repo: Any, path: str, oid: Any, limits: "PdfLimits") -> dict[int, str]:
        """The text of every page of the PDF at ``path`` (pages counted from 1; a page
        pypdf cannot read is empty). LookupError: the PDF cannot be read, and why."""
        from wikigate.extras import require
        from wikigate.gitrepo import blob_at
        from wikigate.verifier import pdfbox

        key = (str(oid), repr(limits))
        found = self._kept.get(key)
        if found is not None:
            self._kept.move_to_end(key)
            return found
        require("pypdf", f"reading {path} (a PDF)")  # MissingExtra names the extra
        try:
            read = pdfbox.extract(
                bytes(blob_at(repo, oid).data), list(range(1, limits.pages + 1)), limits
            )
        except (pdfbox.PdfLimit, pdfbox.PdfUnreadable) as e:
            raise LookupError(f"{path} {e}") from e
        texts = {p: read.texts.get(p, "") for p in range(1, read.pages + 1)}
        self._kept[key] = texts
        self._chars += sum(map(len, texts.values()))
        while self._chars > PDF_CHARS_KEPT and len(self._kept) > 1:
            _, dropped = self._kept.popitem(last=False)
            self._chars -= sum(map(len, dropped.values()))
        return texts


class SessionTree(StagedTree):
    """The staged tree as a session's reading tools see it: the judge's views
    (verifier/staged.py), and a PDF source read page by page, as a citation cites it
    (``read`` with ``page``; ``grep`` answers ``path p.N:line: text``), and ``follow``
    resolving a ``[[name]]`` as the link checker does (a name that resolves to no page
    but to a raw/ source is a source reference)."""

    def __init__(self, repo: Any, tree: Any, tip: str | None, pdfs: PdfTexts) -> None:
        super().__init__(repo, tree, tip)
        self._pdfs = pdfs

    def is_pdf(self, path: str) -> bool:
        """A raw source read as a PDF: named so, or a blob that starts like one (as
        verifier/sources.py decides)."""
        from wikigate.verifier.sources import is_pdf_name

        entry = self.tree.entries.get(path)
        if entry is None or not path.startswith("raw/") or entry.is_link or entry.is_submodule:
            return False
        return is_pdf_name(path) or self._pdfs.starts_as_pdf(self.repo, entry.oid)

    def pdf_pages(self, path: str) -> dict[int, str]:
        return self._pdfs.pages(self.repo, path, self.tree.entries[path].oid, self.tree.pdf_limits)

    def read_page(self, path: str, page: int | None, start: int, length: int) -> str:
        """``read``: a page or source; a PDF one page at a time (``page``, from 1), its
        characters counted as an anchor's offset on that page counts them."""
        from wikigate.verifier.staged import READ_MAX

        if start < 0 or length < 0:
            said = f"start {start}" if start < 0 else f"length {length}"
            raise LookupError(f"{said}: characters are counted from 0; pass 0 or more")
        if not self.is_pdf(path):
            if page is not None:
                self._text(path)  # no such file: that error first
                raise LookupError(f"{path} is not a PDF; read it without page")
            return self.read(path, start, length)
        pages = self.pdf_pages(path)
        if page is None or not 1 <= page <= len(pages):
            said = "no page" if page is None else f"page {page}"
            raise LookupError(
                f"{path} is a PDF of {len(pages)} pages; {said}: pass page (1 to "
                f"{len(pages)}), as a citation names it (SOURCE, p.N)"
            )
        text = pages[page]
        start = max(0, min(int(start), len(text)))
        end = min(len(text), start + max(0, min(int(length), READ_MAX)))
        return f"{path} p.{page} characters {start}-{end} of {len(text)}:\n{text[start:end]}"

    def _bodies(self, path: str) -> list[tuple[str, str]]:
        """As the judge's ``grep`` reads a file, and a PDF's pages: ``path p.N``; a PDF
        that cannot be read is named after the hits, with why."""
        from wikigate.errors import WikigateError
        from wikigate.verifier.sources import is_pdf_name
        from wikigate.verifier.staged import Unsearched

        if not is_pdf_name(path):
            try:
                return super()._bodies(path)
            except LookupError:
                if not self.is_pdf(path):
                    raise  # a source that is no text is skipped, as the judge's
        try:
            return [(f"{path} p.{n}", t) for n, t in self.pdf_pages(path).items()]
        except LookupError as e:
            raise Unsearched(f"({e}: not searched)") from e
        except WikigateError as e:  # the pdf extra is missing
            raise Unsearched(f"({path} not searched: {e})") from e

    def follow(self, page: str, target: str) -> str:
        """As the judge's ``follow``, the link taken from the page when it is there (its
        kind, ``[[name]]`` or a path, as written), and a ``[[name]]`` that resolves to no
        page but names a raw/ source is a source reference, as the link checker says."""
        from wikigate.verifier.links import FileNames
        from wikigate.verifier.staged import FOLLOW_MAX

        link = self._link(page, target)
        if link is None:
            return super().follow(page, target)
        found = self.tree.resolve(page, link)
        if found is None and link.kind == "wiki":
            source = FileNames(self.tree.pages, self.tree.raw).source_named(link.target)
            if source is not None:
                if self.is_pdf(source):
                    return (
                        f"{target!r} on {page} is a source reference to {source}, a PDF: "
                        "read it with page"
                    )
                return (
                    f"{target!r} on {page} is a source reference to {source}:\n"
                    f"{self._text(source)[:FOLLOW_MAX]}"
                )
        if found is None:
            return f"{target!r} on {page} leads nowhere"
        if self.is_pdf(found):
            return f"{target!r} on {page} leads to {found}, a PDF: read it with page"
        return f"{target!r} on {page} leads to {found}:\n{self._text(found)[:FOLLOW_MAX]}"

    def _link(self, page: str, target: str) -> Any:
        """The link on ``page`` that ``target`` names (``Name``, ``[[Name]]``, a path),
        or None when the page has none such."""
        said = target.strip()
        wiki = said.startswith("[[")
        name, _, anchor = said.strip("[]").partition("|")[0].partition("#")
        if not page.startswith("wiki/") or page not in self.tree.entries:
            return None
        parsed = self.tree.nav_page(page)
        for link in parsed.links if parsed is not None else ():
            if link.target.strip().lower() != name.strip().lower():
                continue
            if (anchor or None) != link.anchor or (wiki and link.kind != "wiki"):
                continue
            return link
        return None


# the header line the reading views start a read with (verifier/staged.py, read_page)
_SPAN = (
    r"(?P<path>.*?)(?: p\.(?P<page>\d+))? "
    r"characters (?P<start>\d+)-(?P<end>\d+) of (?P<total>\d+):"
)


def read_span(said: str, path: str, page: int | None) -> tuple[str, ReadResult]:
    """A read's answer as the tool gives it: the characters alone as its text (what an
    agent writes back), its header line as structured content (the span read)."""
    import re

    head, _, text = said.partition("\n")
    m = re.fullmatch(_SPAN, head)
    if m is None:  # not a span (the reading views always start with one): all of it
        return said, {
            "path": path,
            "page": page,
            "start": 0,
            "end": len(said),
            "total": len(said),
            "text": said,
        }
    data: ReadResult = {
        "path": m["path"],
        "page": int(m["page"]) if m["page"] else None,
        "start": int(m["start"]),
        "end": int(m["end"]),
        "total": int(m["total"]),
        "text": text,
    }
    return text, data


def grep_data(said: str, entries: Mapping[str, Any]) -> GrepResult:
    """grep's text as structured content: each ``path:line: text`` (``path p.N:line:
    text``) a hit, its path one the tree holds; any other line a note."""
    import re

    hits: list[GrepHit] = []
    notes: list[str] = []
    for line in said.split("\n") if said != "no match" else ():
        for m in re.finditer(r"(?: p\.(\d+))?:(\d+): ", line):
            if line[: m.start()] in entries:
                page = int(m[1]) if m[1] else None
                hits.append(
                    {
                        "path": line[: m.start()],
                        "page": page,
                        "line": int(m[2]),
                        "text": line[m.end() :],
                    }
                )
                break
        else:
            notes.append(line)
    return {"hits": hits, "notes": notes}


_FOLLOWED = r"^.* (leads to|is a source reference to) (.+?)(, a PDF: read it with page|:)$"


def follow_data(said: str) -> FollowResult:
    """follow's text as structured content (its head line: where it leads)."""
    import re

    head, _, text = said.partition("\n")
    m = re.match(_FOLLOWED, head)
    if m is None:  # "… leads nowhere"
        return {"leads_to": None, "source_reference": False, "pdf": False, "text": ""}
    return {
        "leads_to": m[2],
        "source_reference": m[1] != "leads to",
        "pdf": m[3] != ":",
        "text": text,
    }


_COMMIT = r"([0-9a-f]{12}) (\d{4}-\d\d-\d\d \d\d:\d\d UTC) (.*)"


def history_data(said: str) -> HistoryResult:
    """history's text as structured content: each ``sha12 date subject (run ID)`` line a
    commit; any other line a note."""
    import re

    commits: list[HistoryCommit] = []
    notes: list[str] = []
    for line in said.split("\n"):
        m = re.fullmatch(_COMMIT, line)
        if m is None:
            notes.append(line)
            continue
        subject, run = m[3], None
        if subject.endswith(")") and " (run " in subject:
            subject, _, run = subject[:-1].rpartition(" (run ")
        commits.append({"commit": m[1], "date": m[2], "subject": subject, "run": run})
    return {"commits": commits, "notes": notes}


def normalized(path: str) -> str:
    from wikigate.paths import normalize

    return normalize(path)


def usage_op() -> Any:
    from wikigate.trace import TraceOp

    return TraceOp(kind="usage")


def _result_text(done: Any) -> str:
    """A call's result as the trace digests it: its text, or its data as JSON."""
    import json

    if isinstance(done, str):
        return done
    try:
        return json.dumps(done, sort_keys=True, default=str)
    except ValueError:  # a circular structure: its repr
        return repr(done)


def _waits_for_a_person(row: Any) -> bool:
    """A pending run whose last verification asked a person (``verify approve|reject``)."""
    from wikigate.kinds import NEEDS_HUMAN_REVIEW

    return bool(row["status"] == "pending" and row["verdict"] == NEEDS_HUMAN_REVIEW)


# the library's hints name CLI commands and options; an agent calls tools: each hint it
# can act on, said in the session's words (a person's steps, `wikigate verify approve`
# and the like, are kept: they are for the person the agent reports to)
FOR_AGENTS: tuple[tuple[str, str], ...] = (
    (
        r" \(a source staged in a run: pass --run RUN\)",
        " (no run is open: a run's staged source is read while the run is open; "
        "`start_run` and `write` it first)",
    ),
    (
        r'`wikigate anchor SOURCE "QUOTE"` prints the footnote to add',
        "call `anchor` with the source and the quote: it returns the footnote's text",
    ),
    (r"`wikigate run write\|replace\|delete`", "the `write`, `replace` and `delete` tools"),
    (
        r"`wikigate run usage [^`]*`",
        "the `usage` tool (input_tokens, output_tokens, usd)",
    ),
    (r"`wikigate run finalize [^`]*`", "the `finalize` tool"),
    (r"run `wikigate anchor --fix`", "call `anchor` with the source and the quote"),
    (r"`wikigate run start`", "`start_run`"),
    (r" \(see `wikigate runs list`\)", " (`start_run` returns this session's run id)"),
)


# a tool error that starts with a CLI option the tool takes as an argument (`--type 'x':
# …`, `run R rejected: --old text found 0 times …`)
OPTIONS = r"(^|: )--(type|old|reason|triggered-by|scope|direction)\b"


def for_agents(message: str, options: bool = False) -> str:
    """A library message with the CLI commands it names turned into the session's tools;
    ``options``: a tool's error, whose leading CLI option is the tool's argument."""
    import re

    for cli, tool in FOR_AGENTS:
        message = re.sub(cli, tool, message)
    if options:
        message = re.sub(OPTIONS, lambda m: f"{m[1]}`{m[2].replace('-', '_')}`", message)
    return message


CONFLICT = (
    "main changed the same lines since the run started, so this run cannot land: start a "
    "new run (`start_run`), read the pages again (they now hold main's change) and redo "
    "your change on them"
)


CLOSED = (
    "the run is closed: start a new run (`start_run`), read the sources again and redo "
    "the change, fixing: "
)
NO_PROGRESS = "; if you cannot fix them, do not redo it: tell the user what fails and why instead"


def _after(done: Any) -> list[str]:
    """The next actions an agent is given: the verification's, with a person's command
    naming the run (``RUN`` in a code's hint); once the run is closed (rejected,
    abandoned), one step that says so and to redo the change on a new run, fixing what
    failed: the closed run takes no more calls. A conflict with main (finalize.py's
    ``conflict: main changed …``) is redone on a new run, the pages read again."""
    import re

    actions = [
        re.sub(r"(`wikigate verify (?:approve|reject)) RUN\b", rf"\1 {done.run_id}", a)
        for a in done.next_actions
    ]
    if done.status not in ("rejected", "abandoned"):
        return actions
    reason = done.reason or ""
    if reason.startswith("conflict:"):
        return [CONFLICT]
    from wikigate.present import fixing

    stuck = NO_PROGRESS if reason.startswith("no progress") else ""
    return [CLOSED + fixing(actions, reason) + stuck]


class _ToolFailure(Exception):
    """A library error, raised on the worker thread, carried to the tool as its message."""


def _guarded(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    from pydantic import ValidationError

    from wikigate.errors import WikigateError
    from wikigate.verifier.entries import TreeLimitError

    try:
        return fn(*args, **kwargs)
    except (WikigateError, LookupError, TreeLimitError) as e:
        raise _ToolFailure(for_agents(str(e), options=True)) from e
    except ValidationError as e:
        errors = "; ".join(
            f"{'.'.join(str(x) for x in err['loc'])}: {err['msg']}" for err in e.errors()
        )
        raise _ToolFailure(errors) from e


def wiki_tree(ws: "Workspace", tip: Any, texts: "SourceTexts | None" = None) -> Any:
    """The wiki at commit ``tip`` as main's rules read it (its limits, its ``[wiki]``);
    its sources' texts kept in ``texts`` (a session's) when given."""
    from wikigate.gitrepo import commit_at
    from wikigate.verifier.wiki import PageCache

    at = commit_at(ws.repo, tip).tree
    limits, layout = ws.config.limits, ws.config.wiki.layout()
    return WikiTree(ws.repo, at, PageCache(None), limits=limits, layout=layout, shelf=texts)


def findings_data(ws: "Workspace", findings: list[Any], tip: str | None) -> list[FindingResult]:
    """The findings as structured content: the report's Finding fields (``signature``
    among them: what failed, equal across loops when it fails again), plus ``claim_id``
    (``<page>#^<label>``, the ledger's and the report's ``claim_checks`` id) of the claim a
    finding is about, read from the page at the verified tip; None when it names none."""
    from wikigate.verifier.checks.consistency import claimed
    from wikigate.verifier.claims import page_claims

    tree = None
    if tip is not None and any(f.path and f.claim_line for f in findings):
        tree = wiki_tree(ws, tip)
    out = []
    for f in findings:
        data: dict[str, Any] = f.model_dump(mode="json")
        for said in ("message", "hint"):
            if isinstance(data.get(said), str):
                data[said] = for_agents(data[said])
        data["claim_id"] = None
        if tree is not None and f.path and f.claim_line and f.path.startswith("wiki/"):
            try:
                claims = [c for c in page_claims(tree.page(f.path)) if c.line == f.claim_line]
            except Exception:  # noqa: BLE001 - the finding stands without its claim's id
                claims = []
            said = " ".join((f.claim or "").split())
            # a consistency finding shows the claim without its [conflict: …] marker
            same = (
                [c for c in claims if said in (c.sentence, claimed(c))]
                if len(claims) > 1
                else claims
            )
            if len(same) == 1:
                data["claim_id"] = same[0].id
        out.append(cast(FindingResult, data))
    return out


def build_server(sessions: Callable[[Any], Session]) -> Any:
    """The MCP server, its tools calling the session ``sessions`` gives for a request's
    context (its client's)."""
    from wikigate.extras import require

    require("mcp", "wikigate mcp")  # not installed: MissingExtra, naming the extra
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.types import CallToolResult, TextContent, ToolAnnotations

    from wikigate import __version__

    server = MCPServer(
        "wikigate", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )

    READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)
    STAGE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True)
    ADD = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False)
    DROP = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False)

    def tool(annotations: ToolAnnotations, name: str | None = None) -> Callable[[F], F]:
        """Register a tool; a library error is its result, ``isError``, the text the
        library's message, as the CLI prints it after ``error:`` (the SDK's own errors, bad
        arguments, keep its wording)."""

        def register(fn: F) -> F:
            @functools.wraps(fn)
            async def guarded(*args: Any, **kwargs: Any) -> Any:
                try:
                    return await fn(*args, **kwargs)
                except _ToolFailure as e:
                    return CallToolResult(
                        content=[TextContent(type="text", text=str(e))], is_error=True
                    )

            server.tool(name=name, annotations=annotations)(guarded)
            return fn

        return register

    def result(text: str, data: Mapping[str, Any]) -> CallToolResult:
        return CallToolResult(
            content=[TextContent(type="text", text=text)], structured_content=dict(data)
        )

    async def traced(
        ctx: Context,
        tool: str,
        args: dict[str, Any],
        fn: Callable[[Session], T],
        reads: Callable[[Session, T], list[tuple[str, str]]] | None = None,
        op: Callable[[Session, T], Any] | None = None,
    ) -> T:
        """One tool call: ``fn`` on the client's session, on its worker thread, recorded
        in the open run's trace (``Session.traced``) with ``args``, what it read and what
        it staged (each given the session and the call's result)."""
        session = sessions(ctx)
        return await session.call(
            session.traced,
            tool,
            args,
            lambda: fn(session),
            (lambda done: reads(session, done)) if reads is not None else None,
            (lambda done: op(session, done)) if op is not None else None,
        )

    # ------------------------------------------------------------ reading

    @tool(READ, name="list")
    async def list_(ctx: Context, under: str = "wiki/") -> Annotated[CallToolResult, ListResult]:
        """The files under raw/ and wiki/ starting with `under` (the open run's staged
        tree, else main)."""
        data = await traced(ctx, "list", {"under": under}, lambda s: s.list_paths(under))
        return result("\n".join(data["paths"]) or "nothing under " + repr(under), data)

    @tool(READ)
    async def read(
        ctx: Context, path: str, start: int = 0, length: int = 4000, page: int | None = None
    ) -> Annotated[CallToolResult, ReadResult]:
        """Characters start … start+length (at most 8000) of a page or raw source, from the
        open run's staged tree, else main; a PDF one page at a time (`page`, from 1: the
        characters an anchor on that page counts). The text is the file's characters
        only (write them back as they are); the structured content says which: path,
        page, start, end, total and the text."""
        said = await traced(
            ctx,
            "read",
            {"path": path, "start": start, "length": length, "page": page},
            lambda s: s.staged().read_page(path, page, start, length),
            lambda s, _: s.reads_of([path]),
        )
        return result(*read_span(said, path, page))

    @tool(READ)
    async def grep(
        ctx: Context, text: str, under: str = ""
    ) -> Annotated[CallToolResult, GrepResult]:
        """Lines holding `text` (literal, case-insensitive) in raw/ and wiki/ (or under
        `under`): path:line: text (a PDF's: path p.N:line: text), at most 30; structured:
        hits (path, page, line, text) and notes."""
        args = {"text": text, "under": under}
        parsed: list[GrepResult] = []  # the hits, read against the tree grep searched

        def found(s: Session) -> str:
            view = s.staged()
            said = view.grep(text, under)
            parsed.append(grep_data(said, view.tree.entries))
            return said  # traced as its text, as every reading tool's

        said = await traced(ctx, "grep", args, found, Session.grep_reads)
        return result(said, parsed[0])

    @tool(READ)
    async def follow(
        ctx: Context, page: str, target: str
    ) -> Annotated[CallToolResult, FollowResult]:
        """Where a link on `page` leads ([[Name]] or a relative path) and that page's start;
        a [[name]] of a raw/ source is a source reference, as the link checker says;
        structured: leads_to, source_reference, pdf, text."""
        said = await traced(
            ctx,
            "follow",
            {"page": page, "target": target},
            lambda s: s.staged().follow(page, target),
            lambda s, shown: s.follow_reads(page, shown),
        )
        return result(said, follow_data(said))

    @tool(READ)
    async def history(ctx: Context, path: str) -> Annotated[CallToolResult, HistoryResult]:
        """The commits that changed `path`, newest first (behind the open run's tip, else
        main); structured: commits (commit, date, subject, run) and notes."""
        said = await traced(ctx, "history", {"path": path}, lambda s: s.staged().history(path))
        return result(said, history_data(said))

    @tool(READ)
    async def claims(
        ctx: Context, page: str | None = None, source: str | None = None, status: str | None = None
    ) -> Annotated[CallToolResult, ClaimsResult]:
        """The claim ledger: every cited claim on main, filtered by page or folder/,
        source or folder/, anchor status or the judge's last vote (`wikigate claims`)."""
        data = await traced(
            ctx,
            "claims",
            {"page": page, "source": source, "status": status},
            lambda s: s.claims(page, source, status),
        )
        lines = [f"{r['claim_id']}  {r['anchor_status']}  {r['source']}" for r in data["claims"]]
        return result("\n".join(lines) or "no claims", data)

    @tool(READ)
    async def anchor(
        ctx: Context, source: str, quote: str, page: int | None = None
    ) -> Annotated[CallToolResult, AnchorResult]:
        """The footnote text after `[^n]: ` with a correct anchor for a verbatim, unique
        quote of a source (`page`: a PDF's page), read from the open run's staged tree,
        else main."""
        session = sessions(ctx)
        tail = await session.call(session.anchor_traced, source, quote, page)
        return result(tail, {"tail": tail})

    # ------------------------------------------------------------ writing

    @tool(ADD)
    async def start_run(
        ctx: Context,
        type: str,  # noqa: A002 - the CLI's --type
        triggered_by: str = "mcp:start_run",
        budget_input_tokens: int | None = None,
        budget_output_tokens: int | None = None,
        budget_usd: float | None = None,
        scope: list[str] | None = None,
        direction: str | None = None,
    ) -> Annotated[CallToolResult, StartRunResult]:
        """Open a run (type: ingest, cascade, synthesis, lint or archive, as `run start --type`);
        the session's writing tools act on it until it is finalized or abandoned."""
        budget = {
            "input_tokens": budget_input_tokens,
            "output_tokens": budget_output_tokens,
            "usd": budget_usd,
        }
        run_id = await traced(
            ctx,
            "start_run",
            {
                "type": type,
                "triggered_by": triggered_by,
                "budget": budget,
                "scope": scope,
                "direction": direction,
            },
            lambda s: s.start_run(type, triggered_by, budget, scope, direction),
        )
        return result(run_id, {"run_id": run_id})

    @tool(STAGE)
    async def write(
        ctx: Context, path: str, content: str
    ) -> Annotated[CallToolResult, StagedResult]:
        """Stage the whole content of a wiki page (or a raw source in an ingest run)."""

        def staged(_: Session, __: str) -> Any:
            import pygit2

            from wikigate.trace import TraceOp

            # the blob of the content the tool was given, hashed here, not read back
            blob = pygit2.hash(content.encode("utf-8"))
            return TraceOp(kind="write", path=normalized(path), blob=str(blob))

        commit = await traced(
            ctx,
            "write",
            {"path": path, "content": content},
            lambda s: s.write(path, content),
            op=staged,
        )
        return result(f"staged {path}", {"path": path, "commit": commit})

    @tool(DROP)  # a mismatch rejects the whole run
    async def replace(
        ctx: Context, path: str, old: str, new: str
    ) -> Annotated[CallToolResult, StagedResult]:
        """Replace the one occurrence of `old` in the staged page; zero or several
        matches reject the whole run."""
        commit = await traced(
            ctx,
            "replace",
            {"path": path, "old": old, "new": new},
            lambda s: s.replace(path, old, new),
            op=lambda s, done: s.staging_op("replace", normalized(path), done),
        )
        return result(f"replaced in {path}", {"path": path, "commit": commit})

    @tool(DROP)
    async def delete(ctx: Context, path: str) -> Annotated[CallToolResult, StagedResult]:
        """Stage the deletion of a wiki page."""
        commit = await traced(
            ctx,
            "delete",
            {"path": path},
            lambda s: s.delete(path),
            op=lambda s, done: s.staging_op("delete", normalized(path), done),
        )
        return result(f"deleted {path}", {"path": path, "commit": commit})

    @tool(ADD)
    async def usage(
        ctx: Context, input_tokens: int, output_tokens: int, usd: float
    ) -> Annotated[CallToolResult, UsageResult]:
        """Attest what the writer spent on this run."""

        def attest(session: Session) -> UsageResult:
            from wikigate.models import Budget

            spent = Budget(input_tokens=input_tokens, output_tokens=output_tokens, usd=usd)
            run = session.open_run()
            commit = str(run.attest_usage(spent))
            return {"commit": commit, "over_budget": session.over_budget(spent)}

        data = await traced(
            ctx,
            "usage",
            {"input_tokens": input_tokens, "output_tokens": output_tokens, "usd": usd},
            attest,
            op=lambda s, _: usage_op(),
        )
        over = data["over_budget"]
        warning = (
            "\nwarning: over the run's declared budget ("
            + "; ".join(over)
            + "): finalize will reject the run (run.budget)"
        )
        return result("usage attested" + (warning if over else ""), data)

    @tool(DROP)
    async def finalize(
        ctx: Context, judge: str | None = None
    ) -> Annotated[CallToolResult, FinalizeResult]:
        """Verify the open run, then commit it to main, reject it, or ask for a revision.
        The verdict and every finding (code, severity, path, line, claim_id, claim,
        message, hint, suggested_tail, signature) come back as structured content, with
        next_actions (one to three steps: do them first), blind_spots (what it could not
        rule out) and questions (what a person must answer); a loop that fails on the last
        loop's signatures stops: "no progress"."""
        session = sessions(ctx)
        from wikigate.present import outcome

        if judge not in (None, "offline", "anthropic"):
            raise _ToolFailure(f"judge {judge!r}: expected offline or anthropic")
        done, findings = await session.call(session.finalize_traced, judge)
        done = dataclasses.replace(done, next_actions=_after(done))
        run_open = done.status == "pending" and done.verdict != NEEDS_HUMAN_REVIEW
        data: FinalizeResult = {
            "run_id": done.run_id,
            "status": done.status,
            "verdict": done.verdict,
            "reason": done.reason,
            # whether the run still takes calls: False once it is committed, rejected,
            # abandoned or waits for a person (a new change is a new run)
            "run_open": run_open,
            "loop": done.loop,
            "loops_max": MAX_LOOPS,
            "loops_left": max(0, MAX_LOOPS - done.loop) if run_open else 0,
            "tip": done.tip,
            "findings": findings,
            # what to do next (one to three steps from the findings), what this
            # verification could not rule out, what a person must answer (verifier/advice.py)
            "next_actions": [for_agents(a) for a in done.next_actions],
            "blind_spots": [for_agents(b) for b in done.blind_spots],
            "questions": [for_agents(q) for q in done.questions],
        }
        return result(for_agents(outcome(done)), data)

    @tool(DROP)
    async def abandon(
        ctx: Context, reason: str = "the writer gave the run up"
    ) -> Annotated[CallToolResult, AbandonResult]:
        """Abandon the open run (`wikigate run abandon`): nothing reaches main; its branch
        is kept as its failed ref; the reason is recorded with the actor."""
        session = sessions(ctx)
        data = await session.call(session.abandon, reason)
        return result(f"{data['status']} {data['run_id']}: {data['reason']}", data)

    return server


def client_config(repo: str) -> dict[str, Any]:
    """The ``mcpServers`` map (Claude Code's ``.mcp.json``, Claude Desktop's
    ``claude_desktop_config.json``, Cursor's ``.cursor/mcp.json``) that starts this
    server on the workspace at ``repo`` with this install: the ``wikigate`` script beside
    this interpreter, else this interpreter with ``-m wikigate`` (a client starts it
    without this shell's PATH or virtual environment)."""
    from pathlib import Path

    script = Path(sys.executable).parent / ("wikigate.exe" if os.name == "nt" else "wikigate")
    if script.is_file() and os.access(script, os.X_OK):
        command, start = str(script), []
    else:
        command, start = sys.executable, ["-m", "wikigate"]
    args = [*start, "-C", os.path.abspath(repo), "mcp"]
    return {"mcpServers": {"wikigate": {"command": command, "args": args}}}


class HttpSessions:
    """The sessions of a streamable HTTP server, one per MCP session (each client's own
    open run and worker thread), made at its first tool call. Every one is released (its
    open runs abandoned, as on a stdio disconnect) when the server stops, and only then:
    the SDK tells a server no session's end, so a client that goes away leaves its open
    run to the run timeout (the next sweep abandons it) or to the server's stop, whichever
    comes first. (Releasing a session once the SDK's connection object is collected
    would release it at a time no one can tell: not at all.)"""

    def __init__(self, repo: str) -> None:
        import threading
        import weakref

        self.repo = repo
        self._lock = threading.Lock()
        # by the SDK's connection; a collected one's session stays live till the stop
        self._by: weakref.WeakKeyDictionary[Any, Session] = weakref.WeakKeyDictionary()
        self._live: list[Session] = []

    def __call__(self, ctx: Any) -> Session:
        # the SDK's Connection: one per MCP session (its ServerSession is one per request;
        # the SDK gives a tool no public handle on the connection)
        key = ctx.session._connection
        with self._lock:
            found = self._by.get(key)
            if found is None:
                found = self._by[key] = Session(self.repo)
                self._live.append(found)
        return found

    def release(self) -> list[str]:
        with self._lock:
            live, self._live = self._live, []
        return [run_id for session in live for run_id in session.release(STOPPED_REASON)]


def http_address(value: str) -> tuple[str, int]:
    """``HOST:PORT``, or ``PORT`` alone (127.0.0.1: this machine only)."""
    from wikigate.errors import UsageError

    host, _, port = value.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f"--http {value!r}: expected HOST:PORT or PORT, as 127.0.0.1:8765")
    return host, int(port)


def _until_stopped(
    run: Callable[[], object], release: Callable[[], list[str]]
) -> tuple[list[str], bool]:
    """``run()`` (the SDK's server) until it returns, SIGINT or SIGTERM; then ``release()``,
    which the signal cannot cut short. Returns what was released and whether SIGTERM
    stopped it. (uvicorn shuts down on SIGTERM, then raises it again for the handler it
    found: this one, so that the sessions are released before the process ends.)"""
    terminated = False

    def stop(signum: int, frame: Any) -> None:
        nonlocal terminated
        terminated = True
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        run()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        try:
            released = release()
        finally:
            signal.signal(signal.SIGTERM, previous)
    return released, terminated


def serve_http(repo: str, address: str) -> list[str]:
    """Serve streamable HTTP at ``address`` (``http://HOST:PORT/mcp``) until the server
    is stopped (SIGINT, SIGTERM); then release every session's open runs."""
    from wikigate.extras import require

    require("mcp", "wikigate mcp --http")
    import anyio

    host, port = http_address(address)
    probe = Session(repo)  # a folder that is no workspace fails here, before serving
    try:
        probe._pool.submit(lambda: probe.ws).result()
    finally:
        probe.release()
    sessions = HttpSessions(repo)
    server = build_server(sessions)
    serving = functools.partial(server.run_streamable_http_async, host=host, port=port)
    released, _ = _until_stopped(lambda: anyio.run(serving), sessions.release)
    return released


def serve(repo: str) -> list[str]:
    """Serve one session over stdio until the client disconnects; then release the runs
    it left open. Returns the runs abandoned."""
    from wikigate.extras import require

    require("mcp", "wikigate mcp")  # before anyio, which comes with the mcp extra
    import anyio

    session = Session(repo)
    server = build_server(lambda ctx: session)
    # the workspace opens in the worker thread (its SQLite connection lives there); a
    # folder that is no workspace fails here, before the client is served
    try:
        session._pool.submit(lambda: session.ws).result()
    except BaseException:
        session.release()
        raise
    released, terminated = _until_stopped(
        lambda: anyio.run(server.run_stdio_async), session.release
    )
    if terminated:
        # the SDK's thread reading stdin blocks until the client closes it, and the
        # interpreter would wait for it at exit: a terminated server exits now
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(128 + signal.SIGTERM)
    return released
