"""``wikigate mcp``: a Model Context Protocol server over stdio (docs/mcp.md).

A thin surface like the CLI: each tool calls the library the CLI calls (``workspace``,
``run``, ``anchors``, ``changes``, ``ledger``, the verifier's ``staged`` tree) and its
errors are the library's, the messages the CLI prints, returned as MCP tool errors.

One process serves one session in one workspace. The library is not thread-safe (the
telemetry store is one SQLite connection), so every call runs on one worker thread, in
order. A session has at most one open run; the reading tools read its staged tree while
it is open, else main. A run the session started and did not finish when the client
disconnects (end of input, SIGTERM) is abandoned at once, as ``wikigate run abandon``
abandons one (``Workspace.abandon``), unless it waits for a person's word (needs_human_review); if the
process is killed outright, the run stays pending until the run timeout and the next
sweep abandons it.

The ``mcp`` SDK is imported here only, when the server starts (``pip install
'wikigate[mcp]'``), never on the CLI's start-up path.
"""

import asyncio
import concurrent.futures
import functools
import os
import signal
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from wikigate.verifier.staged import StagedTree
    from wikigate.workspace import Workspace, WorkspaceRun

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

LIST_MAX = 2000  # paths `list` returns at most
CLAIMS_MAX = 500  # ledger rows `claims` returns at most
DISCONNECT_REASON = "the MCP client disconnected before the run was finalized"

INSTRUCTIONS = (
    "wikigate gates a wiki kept in git: every change is a run, verified before it lands "
    "on main. Start a run (start_run), read the source (read), anchor each quote (anchor), "
    "cite or gap-mark every statement, write the pages (write, replace), then finalize. "
    "On revise, act on the findings (their hint and suggested_tail) and finalize again."
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

    def staged(self) -> "StagedTree":
        """The open run's staged tree, else main's."""
        from wikigate.gitrepo import commit_at, ref_target
        from wikigate.verifier.staged import StagedTree
        from wikigate.verifier.wiki import PageCache, WikiTree

        ws = self.ws
        found = (
            ws.run(self.run_id).tip()
            if self.run_id is not None
            else ref_target(ws.repo, ws.env.main)
        )
        if found is None:
            raise LookupError("main is gone; nothing to read")
        tip = found
        tree = WikiTree(
            ws.repo, commit_at(ws.repo, tip).tree, PageCache(None), limits=ws.config.limits
        )
        return StagedTree(ws.repo, tree, str(tip))

    def _settled(self, run: "WorkspaceRun") -> None:
        """Forget the open run once it is committed, rejected or abandoned, or waits for
        a person's word (needs_human_review: the writer's part is done)."""
        from wikigate.models import TERMINAL

        row = run.refresh()
        if row["status"] in TERMINAL or _waits_for_a_person(row):
            self.run_id = None

    # -------------------------------------------------------- reading

    def list_paths(self, under: str) -> dict[str, Any]:
        tree = self.staged().tree
        paths = sorted(
            p for p in tree.entries if p.startswith(("raw/", "wiki/")) and p.startswith(under)
        )
        return {"where": self.where(), "paths": paths[:LIST_MAX], "total": len(paths)}

    def where(self) -> str:
        return f"run {self.run_id}" if self.run_id is not None else "main"

    def claims(self, page: str | None, source: str | None, status: str | None) -> dict[str, Any]:
        from wikigate import ledger

        rows = ledger.claims(self.ws, page=page, source=source, status=status)
        return {"claims": rows[:CLAIMS_MAX], "total": len(rows)}

    def anchor(self, source: str, quote: str, page: int | None) -> str:
        from wikigate.anchors import anchor_tail

        run = self.ws.run(self.run_id) if self.run_id is not None else None
        return anchor_tail(self.ws, source, quote, page, run=run)

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
        from wikigate.run import ReplaceFailed

        run = self.open_run()
        try:
            return str(run.str_replace(path, old, new))
        except ReplaceFailed:
            self.run_id = None  # the whole run was rejected
            raise

    def finalize(self, judge: str | None) -> Any:
        from wikigate.changes import finalize_judge

        ws, run = self.ws, self.open_run()
        finalize_judge(ws, run, judge)
        result = run.finalize(judge=judge)
        findings = findings_data(ws, result.findings, result.tip)
        if result.status == "committed":
            _sync_ledger(ws)
        self._settled(run)
        return result, findings

    def abandon(self, why: str) -> dict[str, Any]:
        run = self.open_run()
        try:
            row = self.ws.abandon(run.run_id, why)  # as `wikigate run abandon`
        finally:
            self._settled(run)
        return {"run_id": run.run_id, "status": row["status"], "reason": row["reject_reason"]}

    # -------------------------------------------------------- the end

    def release(self) -> list[str]:
        """On disconnect: wait for the call in progress, then abandon every run this
        session started that is still pending, but for one waiting for a person's word (on
        the worker thread, as every call). Returns the runs abandoned."""
        try:
            return self._pool.submit(self._release).result()
        finally:
            self._pool.shutdown(wait=True)

    def _release(self) -> list[str]:
        from wikigate.errors import WikigateError

        done = []
        try:
            for run_id in self.started:  # the workspace reopened if a call closed it
                row = self.ws.store.get(run_id)
                if row is None or row["status"] != "pending" or _waits_for_a_person(row):
                    continue
                try:
                    self.ws.abandon(run_id, DISCONNECT_REASON)
                except WikigateError:
                    continue  # finalized elsewhere meanwhile: the finalizer settles it
                done.append(run_id)
        finally:
            if self._ws is not None:
                self._ws.close()
                self._ws = None
        return done


def _waits_for_a_person(row: Any) -> bool:
    """A pending run whose last verification asked a person (``verify approve|reject``)."""
    from wikigate.kinds import NEEDS_HUMAN_REVIEW

    return bool(row["status"] == "pending" and row["verdict"] == NEEDS_HUMAN_REVIEW)


def _sync_ledger(ws: "Workspace") -> None:
    """After main moved: the claim ledger follows (as the CLI's ``run finalize``); it is
    derived from git, so a failure here loses nothing."""
    import contextlib

    from wikigate import ledger

    with contextlib.suppress(Exception):  # main has landed; the next `claims` catches up
        ledger.sync(ws)


class _ToolFailure(Exception):
    """A library error, raised on the worker thread, carried to the tool as its message."""


def _guarded(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    from pydantic import ValidationError

    from wikigate.errors import WikigateError
    from wikigate.verifier.entries import TreeLimitError

    try:
        return fn(*args, **kwargs)
    except (WikigateError, LookupError, TreeLimitError) as e:
        raise _ToolFailure(str(e)) from e
    except ValidationError as e:
        errors = "; ".join(
            f"{'.'.join(str(x) for x in err['loc'])}: {err['msg']}" for err in e.errors()
        )
        raise _ToolFailure(errors) from e


def findings_data(ws: "Workspace", findings: list[Any], tip: str | None) -> list[dict[str, Any]]:
    """The findings as structured content: the report's Finding fields, plus ``claim_id``
    (``<page>#^<label>``, the ledger's and the report's ``claim_checks`` id) of the claim a
    finding is about, read from the page at the verified tip; None when it names none."""
    from wikigate.gitrepo import commit_at
    from wikigate.verifier.claims import page_claims
    from wikigate.verifier.wiki import PageCache, WikiTree

    tree = None
    if tip is not None and any(f.path and f.claim_line for f in findings):
        tree = WikiTree(
            ws.repo, commit_at(ws.repo, tip).tree, PageCache(None), limits=ws.config.limits
        )
    out = []
    for f in findings:
        data: dict[str, Any] = f.model_dump(mode="json")
        data["claim_id"] = None
        if tree is not None and f.path and f.claim_line and f.path.startswith("wiki/"):
            try:
                claims = [c for c in page_claims(tree.page(f.path)) if c.line == f.claim_line]
            except Exception:  # noqa: BLE001 - the finding stands without its claim's id
                claims = []
            said = " ".join((f.claim or "").split())
            same = [c for c in claims if c.sentence == said] if len(claims) > 1 else claims
            if len(same) == 1:
                data["claim_id"] = same[0].id
        out.append(data)
    return out


def build_server(session: Session) -> Any:
    """The MCP server, its tools registered on ``session``."""
    from wikigate.extras import require

    require("mcp", "wikigate mcp")  # not installed: MissingExtra, naming the extra
    from mcp.server.mcpserver import MCPServer
    from mcp.types import CallToolResult, TextContent, ToolAnnotations

    from wikigate import __version__

    server = MCPServer(
        "wikigate", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )

    READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)
    STAGE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True)
    ADD = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False)
    DROP = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False)

    async def call(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await session.call(fn, *args, **kwargs)

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

    def result(text: str, data: dict[str, Any]) -> CallToolResult:
        return CallToolResult(
            content=[TextContent(type="text", text=text)], structured_content=data
        )

    # ------------------------------------------------------------ reading

    @tool(READ, name="list")
    async def list_(under: str = "wiki/") -> CallToolResult:
        """The files under raw/ and wiki/ starting with `under` (the open run's staged
        tree, else main)."""
        data = await call(session.list_paths, under)
        return result("\n".join(data["paths"]) or "nothing under " + repr(under), data)

    @tool(READ)
    async def read(path: str, start: int = 0, length: int = 4000) -> str:
        """Characters start … start+length (at most 8000) of a page or raw source, from the
        open run's staged tree, else main."""
        return await call(lambda: session.staged().read(path, start, length))

    @tool(READ)
    async def grep(text: str, under: str = "") -> str:
        """Lines holding `text` (literal, case-insensitive) in raw/ and wiki/ (or under
        `under`): path:line: text, at most 30."""
        return await call(lambda: session.staged().grep(text, under))

    @tool(READ)
    async def follow(page: str, target: str) -> str:
        """Where a link on `page` leads ([[Name]] or a relative path) and that page's start."""
        return await call(lambda: session.staged().follow(page, target))

    @tool(READ)
    async def history(path: str) -> str:
        """The commits that changed `path`, newest first (behind the open run's tip, else
        main)."""
        return await call(lambda: session.staged().history(path))

    @tool(READ)
    async def claims(
        page: str | None = None, source: str | None = None, status: str | None = None
    ) -> CallToolResult:
        """The claim ledger: every cited claim on main, filtered by page or folder/,
        source or folder/, anchor status or the judge's last vote (`wikigate claims`)."""
        data = await call(session.claims, page, source, status)
        lines = [f"{r['claim_id']}  {r['anchor_status']}  {r['source']}" for r in data["claims"]]
        return result("\n".join(lines) or "no claims", data)

    @tool(READ)
    async def anchor(source: str, quote: str, page: int | None = None) -> CallToolResult:
        """The footnote text after `[^n]: ` with a correct anchor for a verbatim, unique
        quote of a source (`page`: a PDF's page), read from the open run's staged tree,
        else main."""
        tail = await call(session.anchor, source, quote, page)
        return result(tail, {"tail": tail})

    # ------------------------------------------------------------ writing

    @tool(ADD)
    async def start_run(
        type: str,  # noqa: A002 - the CLI's --type
        triggered_by: str = "mcp:start_run",
        budget_input_tokens: int | None = None,
        budget_output_tokens: int | None = None,
        budget_usd: float | None = None,
        scope: list[str] | None = None,
        direction: str | None = None,
    ) -> CallToolResult:
        """Open a run (type: ingest, cascade, synthesis, lint or archive, as `run start --type`);
        the session's writing tools act on it until it is finalized or abandoned."""
        budget = {
            "input_tokens": budget_input_tokens,
            "output_tokens": budget_output_tokens,
            "usd": budget_usd,
        }
        run_id = await call(session.start_run, type, triggered_by, budget, scope, direction)
        return result(run_id, {"run_id": run_id})

    @tool(STAGE)
    async def write(path: str, content: str) -> CallToolResult:
        """Stage the whole content of a wiki page (or a raw source in an ingest run)."""
        commit = await call(lambda: str(session.open_run().stage_write(path, content)))
        return result(f"staged {path}", {"path": path, "commit": commit})

    @tool(DROP)  # a mismatch rejects the whole run
    async def replace(path: str, old: str, new: str) -> CallToolResult:
        """Replace the one occurrence of `old` in the staged page; zero or several
        matches reject the whole run."""
        commit = await call(session.replace, path, old, new)
        return result(f"replaced in {path}", {"path": path, "commit": commit})

    @tool(DROP)
    async def delete(path: str) -> CallToolResult:
        """Stage the deletion of a wiki page."""
        commit = await call(lambda: str(session.open_run().stage_delete(path)))
        return result(f"deleted {path}", {"path": path, "commit": commit})

    @tool(ADD)
    async def usage(input_tokens: int, output_tokens: int, usd: float) -> CallToolResult:
        """Attest what the writer spent on this run."""

        def attest() -> str:
            from wikigate.models import Budget

            spent = Budget(input_tokens=input_tokens, output_tokens=output_tokens, usd=usd)
            return str(session.open_run().attest_usage(spent))

        commit = await call(attest)
        return result("usage attested", {"commit": commit})

    @tool(DROP)
    async def finalize(judge: str | None = None) -> CallToolResult:
        """Verify the open run, then commit it to main, reject it, or ask for a revision.
        The verdict and every finding (code, severity, path, line, claim_id, claim,
        message, hint, suggested_tail) come back as structured content."""
        from wikigate.present import outcome

        if judge not in (None, "offline", "anthropic"):
            raise _ToolFailure(f"judge {judge!r}: expected offline or anthropic")
        done, findings = await call(session.finalize, judge)
        data = {
            "run_id": done.run_id,
            "status": done.status,
            "verdict": done.verdict,
            "reason": done.reason,
            "loop": done.loop,
            "tip": done.tip,
            "findings": findings,
        }
        return result(outcome(done), data)

    @tool(DROP)
    async def abandon(reason: str = "the writer gave the run up") -> CallToolResult:
        """Abandon the open run (`wikigate run abandon`): nothing reaches main; its branch
        is kept as its failed ref; the reason is recorded with the actor."""
        data = await call(session.abandon, reason)
        return result(f"{data['status']} {data['run_id']}: {data['reason']}", data)

    return server


def serve(repo: str) -> list[str]:
    """Serve one session over stdio until the client disconnects; then release the runs
    it left open. Returns the runs abandoned."""
    from wikigate.extras import require

    require("mcp", "wikigate mcp")  # before anyio, which comes with the mcp extra
    import anyio

    session = Session(repo)
    server = build_server(session)
    # the workspace opens in the worker thread (its SQLite connection lives there); a
    # folder that is no workspace fails here, before the client is served
    try:
        session._pool.submit(lambda: session.ws).result()
    except BaseException:
        session.release()
        raise

    terminated = False

    def stop(signum: int, frame: Any) -> None:
        nonlocal terminated
        terminated = True
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        anyio.run(server.run_stdio_async)
    except KeyboardInterrupt:
        pass
    finally:
        # the release must not be cut short by the client's SIGTERM
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        try:
            released = session.release()
        finally:
            signal.signal(signal.SIGTERM, previous)
    if terminated:
        # the SDK's thread reading stdin blocks until the client closes it, and the
        # interpreter would wait for it at exit: a terminated server exits now
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(128 + signal.SIGTERM)
    return released
