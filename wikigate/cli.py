"""The ``wikigate`` command: a thin click layer over the Python API.

Each command parses arguments, calls the library and returns an exit code:
0 success / committed, 1 rejected or failed, 3 revise, 2 usage error.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from . import __version__
from .errors import UsageError, WikigateError
from .models import STATUSES, Budget, Finding
from .workspace import Workspace

pass_ws = click.make_pass_decorator(Workspace)


class DefaultGroup(click.Group):
    """A group that runs ``default_cmd`` when the first word is not a subcommand."""

    default_cmd = "check"

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        wants_help = bool(args) and args[0] in ("--help", "-h")
        if not wants_help and (not args or args[0] not in self.commands):
            args = [self.default_cmd, *args]
        return super().parse_args(ctx, args)


def _open(ctx: click.Context) -> Workspace:
    ws = Workspace.open(ctx.obj["repo"])
    ctx.call_on_close(ws.close)
    return ws


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "-C",
    "--repo",
    "repo",
    default=".",
    metavar="PATH",
    help="Run as if started in PATH (the workspace).",
)
@click.version_option(__version__, prog_name="wikigate")
@click.pass_context
def cli(ctx: click.Context, repo: str) -> None:
    """Staged runs and a hostile verifier for LLM-written wikis kept in git."""
    ctx.obj = {"repo": repo}


@cli.command()
@click.argument("path", default="wikigate-demo", type=click.Path(file_okay=False))
def demo(path: str) -> None:
    """Build a sample wiki in PATH and run three runs through the gate."""
    from .demo import run_demo

    run_demo(Path(path), click.echo)


@cli.command()
@click.argument("path", default=".", type=click.Path(file_okay=False))
def init(path: str) -> None:
    """Create a workspace at PATH, or add what is missing to an existing repo."""
    ws = Workspace.init(path)
    click.echo(f"workspace ready at {ws.root}")
    ws.close()


# ------------------------------------------------------------------ run


@cli.group()
def run() -> None:
    """Start, stage and finalize a run."""


@run.command("start")
@click.option(
    "--type",
    "run_type",
    required=True,
    type=click.Choice(["ingest", "cascade", "synthesis", "lint", "archive"]),
)
@click.option(
    "--triggered-by",
    required=True,
    metavar="KIND:NAME",
    help="mcp:<tool>, cli:<cmd>, daemon:<job> or github:<event>",
)
@click.option("--budget-input-tokens", type=click.IntRange(min=0))
@click.option("--budget-output-tokens", type=click.IntRange(min=0))
@click.option("--budget-usd", type=click.FloatRange(min=0))
@click.pass_context
def run_start(
    ctx: click.Context,
    run_type: str,
    triggered_by: str,
    budget_input_tokens: int | None,
    budget_output_tokens: int | None,
    budget_usd: float | None,
) -> None:
    """Open a run; prints only its id."""
    ws = _open(ctx)
    budget = Budget(
        input_tokens=budget_input_tokens, output_tokens=budget_output_tokens, usd=budget_usd
    )
    click.echo(ws.start_run(run_type, triggered_by, budget).run_id)


@run.command("write")
@click.argument("run_id")
@click.argument("path")
@click.option(
    "--from",
    "source",
    required=True,
    type=click.File("rb"),
    help="File to stage, or - for standard input.",
)
@click.pass_context
def run_write(ctx: click.Context, run_id: str, path: str, source: Any) -> None:
    """Stage the whole content of PATH."""
    _open(ctx).run(run_id).stage_write(path, source.read())


@run.command("replace")
@click.argument("run_id")
@click.argument("path")
@click.option("--old", required=True, help="Text that must occur exactly once.")
@click.option("--new", required=True, help="Its replacement.")
@click.pass_context
def run_replace(ctx: click.Context, run_id: str, path: str, old: str, new: str) -> None:
    """Exactly-one-match edit of the staged copy; any other count rejects the run."""
    _open(ctx).run(run_id).str_replace(path, old, new)


@run.command("delete")
@click.argument("run_id")
@click.argument("path")
@click.pass_context
def run_delete(ctx: click.Context, run_id: str, path: str) -> None:
    """Stage the deletion of a wiki page."""
    _open(ctx).run(run_id).stage_delete(path)


@run.command("usage")
@click.argument("run_id")
@click.option("--input-tokens", type=click.IntRange(min=0), required=True)
@click.option("--output-tokens", type=click.IntRange(min=0), required=True)
@click.option("--usd", type=click.FloatRange(min=0), required=True)
@click.pass_context
def run_usage(
    ctx: click.Context, run_id: str, input_tokens: int, output_tokens: int, usd: float
) -> None:
    """Attest what the writer spent on this run."""
    usage = Budget(input_tokens=input_tokens, output_tokens=output_tokens, usd=usd)
    _open(ctx).run(run_id).attest_usage(usage)


@run.command("finalize")
@click.argument("run_id")
@click.option("--no-verify", is_flag=True, help="Commit without the verifier (marked unverified).")
@click.option("--draft-only", is_flag=True, help="Leave the run pending for a person to inspect.")
@click.pass_context
def run_finalize(ctx: click.Context, run_id: str, no_verify: bool, draft_only: bool) -> None:
    """Verify the run, then commit, reject or ask for a revision."""
    if no_verify and draft_only:
        raise UsageError("--no-verify and --draft-only exclude each other")
    result = _open(ctx).run(run_id).finalize(verify=not no_verify, draft_only=draft_only)
    head = {
        "committed": f"committed {run_id}: main is at {str(result.tip)[:12]}",
        "rejected": f"rejected {run_id}: {result.reason}",
        "abandoned": f"abandoned {run_id}: {result.reason}",
    }.get(result.status)
    if head is None:
        head = (
            f"revise {run_id} (loop {result.loop} of 3): fix the findings, then finalize again"
            if result.verdict == "revise"
            else f"pending {run_id}: {result.reason}"
        )
    click.echo(head)
    for finding in result.findings:
        click.echo(format_finding(finding))
    ctx.exit(result.exit_code)


def format_finding(f: Finding) -> str:
    where = f.path or "(run)"
    if f.line:
        where += f":{f.line}"
    text = f"  {where}: {f.severity} {f.code}: {f.message}"
    return text + (f"\n      hint: {f.hint}" if f.hint else "")


# ------------------------------------------------------------------ runs


@cli.group()
def runs() -> None:
    """List and inspect runs."""


@runs.command("list")
@click.option("--status", type=click.Choice(STATUSES))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.pass_context
def runs_list(ctx: click.Context, status: str | None, fmt: str) -> None:
    """Runs, oldest first."""
    rows = _open(ctx).runs(status)
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2))
        return
    click.echo(runs_table(rows))


def runs_table(rows: list[dict[str, Any]]) -> str:
    header = ("RUN", "TYPE", "STATUS", "VERDICT", "LOOPS", "REASON")
    body = [
        (
            r["run_id"],
            r["run_type"],
            r["status"],
            r["verdict"] or "-",
            str(r["loop_count"]),
            _short(r["reject_reason"] or ""),
        )
        for r in rows
    ]
    widths = [max(len(x[i]) for x in [header, *body]) for i in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip()
        for line in [header, *body]
    )


def _short(text: str, width: int = 70) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


@runs.command("show")
@click.argument("run_id")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.pass_context
def runs_show(ctx: click.Context, run_id: str, fmt: str) -> None:
    """One run: its record, plan and findings."""
    ws = _open(ctx)
    r = ws.run(run_id)
    row = r.refresh()
    plan = r.plan()
    data = {
        **row,
        "ops": [op.model_dump(exclude_none=True) for op in plan.ops],
        "findings": ws.store.findings(run_id),
        "overrides": ws.store.overrides(run_id),
    }
    if fmt == "json":
        click.echo(json.dumps(data, indent=2))
        return
    for key in (
        "run_id",
        "run_type",
        "triggered_by",
        "status",
        "verdict",
        "reject_reason",
        "loop_count",
        "started_at",
        "ended_at",
        "branch",
        "base_commit",
        "tip_commit",
    ):
        click.echo(f"{key:14} {row[key] if row[key] is not None else '-'}")
    click.echo("ops:")
    for op in plan.ops:
        click.echo(f"  {op.kind:8} {op.path or ''}")
    if data["findings"]:
        click.echo("findings:")
        for f in data["findings"]:
            loc = f"{f['path']}:{f['line']}" if f["line"] else (f["path"] or "(run)")
            click.echo(f"  [loop {f['loop']}] {loc}: {f['severity']} {f['code']}: {f['message']}")
    for o in data["overrides"]:
        click.echo(f"override: {o['actor']} via {o['source']} at {o['at']}: {o['reason']}")


# ------------------------------------------------------------------ verify


@cli.group(cls=DefaultGroup)
def verify() -> None:
    """Verify a branch or commit, or override a rejected run."""


@verify.command("override")
@click.argument("run_id")
@click.option("--reason", required=True, help="Why the verifier is overruled (recorded).")
@click.pass_context
def verify_override(ctx: click.Context, run_id: str, reason: str) -> None:
    """Commit a rejected run anyway; actor and reason are recorded."""
    record = _open(ctx).override(run_id, reason)
    click.echo(
        f"committed {run_id} by override of {record.override_actor}: main is at "
        f"{record.tip_commit[:12]}"
    )


@verify.command("check", hidden=True)
@click.argument("ref", required=False)
@click.option("--base", help="Compare against this commit (default: merge-base with main).")
@click.option(
    "--strictness",
    type=click.Choice(["CALM", "SKEPTICAL", "PARANOID", "BOLD"], case_sensitive=False),
    help="Default: wikigate.toml's [verifier] strictness.",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json", "rdjson", "sarif"]), default="text"
)
@click.option(
    "--output",
    type=click.Path(dir_okay=False, writable=True),
    help="Write the report here instead of standard output.",
)
@click.option("--all", "lint", is_flag=True, help="Check the whole wiki at HEAD (lint mode).")
@click.pass_context
def verify_check(
    ctx: click.Context,
    ref: str | None,
    base: str | None,
    strictness: str | None,
    fmt: str,
    output: str | None,
    lint: bool,
) -> None:
    """Verify REF (default: the current branch) without committing anything."""
    from wikigate.verifier.api import verify_ref
    from wikigate.verifier.reporters import render

    if lint and base:
        raise UsageError("--all checks the whole wiki; it takes no --base")
    ws = _open(ctx)
    report = verify_ref(
        ws, ref, base, strictness=strictness.upper() if strictness else None, lint=lint
    )
    color = output is None and fmt == "text" and sys.stdout.isatty()
    text = render(report, fmt, color=color)
    if output:
        Path(output).write_text(text + "\n", encoding="utf-8")
    else:
        click.echo(text)
    ctx.exit({"commit": 0, "reject": 1, "revise": 3}[report.verdict])


@cli.command()
@click.argument("args", nargs=-1)
@click.option("--page", type=click.IntRange(min=1), help="PDF page the quote is on.")
@click.option(
    "--fix", is_flag=True, help="Add anchors to quote-only footnotes of PAGE… (all pages)."
)
@click.option(
    "--run",
    "run_id",
    metavar="RUN",
    help="Read the source from this run's staged files (a source not on main yet); "
    "with --fix: stage the anchors into this open run instead of a new one.",
)
@click.pass_context
def anchor(
    ctx: click.Context, args: tuple[str, ...], page: int | None, fix: bool, run_id: str | None
) -> None:
    """Print a correct anchor: `anchor SOURCE "QUOTE"`, or `anchor --fix [PAGE…]`."""
    from wikigate.verifier.api import anchor_fix, anchor_fix_on_main, anchor_tail

    ws = _open(ctx)
    if not fix:
        if len(args) != 2:
            raise UsageError('usage: wikigate anchor SOURCE "QUOTE" [--page N] [--run RUN]')
        run = ws.run(run_id) if run_id else None
        click.echo(anchor_tail(ws, args[0], args[1], page, run=run))
        return
    if run_id:  # stage into an open run: whatever it holds, it lands when finalized
        run = ws.run(run_id)
        fixes = anchor_fix(run, list(args))
        _echo_fixes(fixes)
        anchored = any(f.status == "anchored" for f in fixes)
        click.echo(f"staged in {run_id}; finalize it to land" if anchored else "nothing to anchor")
        return
    fixes, opened = anchor_fix_on_main(ws, list(args))
    _echo_fixes(fixes)
    if opened is None:  # no run was opened, main did not move
        click.echo("nothing to anchor")
        return
    result = opened.finalize()
    click.echo(f"{result.status} {opened.run_id}" + (f": {result.reason}" if result.reason else ""))
    for finding in result.findings:
        click.echo(format_finding(finding))
    ctx.exit(result.exit_code)


def _echo_fixes(fixes: list[Any]) -> None:
    for f in fixes:
        click.echo(f"{f.path}:{f.line}: [^{f.label}] {f.status}")


@cli.group()
def hooks() -> None:
    """Git hooks that gate main (local pre-push/reference-transaction, server pre-receive)."""


@hooks.command("install")
@click.option("--uninstall", is_flag=True, help="Remove wikigate's hooks, restoring chained ones.")
@click.option(
    "--server", metavar="BARE.git", help="Install the pre-receive gate in this bare repo."
)
@click.pass_context
def hooks_install(ctx: click.Context, uninstall: bool, server: str | None) -> None:
    """Install (or remove) wikigate's git hooks; existing hooks are kept and chained."""
    from wikigate.hooks.install import install_local, install_server

    done = (
        install_server(server, uninstall) if server else install_local(ctx.obj["repo"], uninstall)
    )
    verb = "removed" if uninstall else "installed"
    for path in done:
        click.echo(f"{verb} {path}")


# ------------------------------------------------------------------ upkeep


@cli.command()
@click.pass_context
def sweep(ctx: click.Context) -> None:
    """Abandon runs left by dead processes or older than the timeout."""
    swept = _open(ctx).sweep()
    for run_id in swept:
        click.echo(f"swept {run_id}")


@cli.group()
def telemetry() -> None:
    """The SQLite index of runs."""


@telemetry.command("rebuild")
@click.pass_context
def telemetry_rebuild(ctx: click.Context) -> None:
    """Re-create the database from the git notes and run branches."""
    ws = Workspace.open(ctx.obj["repo"])
    count = ws.rebuild_telemetry()
    click.echo(f"rebuilt {ws.telemetry_path()} with {count} runs")
    ws.close()


EXIT_UNEXPECTED = 4


def main(argv: list[str] | None = None) -> int:
    """Entry point: the only place errors become exit codes.

    0 success / committed, 1 rejected or failed, 2 usage error, 3 revise, 4 an
    unexpected error (a bug, or a repository git itself cannot read): one line on
    stderr naming the log that holds the traceback (``WIKIGATE_DEBUG=1`` prints it).
    """
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        rv = cli.main(args=args, prog_name="wikigate", standalone_mode=False)
    except click.exceptions.Exit as e:
        return int(e.exit_code or 0)
    except click.ClickException as e:
        e.show()
        return e.exit_code
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return 1
    except WikigateError as e:
        click.echo(f"error: {e}", err=True)
        return e.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `wikigate runs list | head`: the reader left, as git does
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as e:  # noqa: BLE001 - not a verdict: never exit 1 ("rejected") on a bug
        return _unexpected(e, args)
    return rv if isinstance(rv, int) else 0


def _unexpected(error: Exception, args: list[str]) -> int:
    """Report an error wikigate did not expect, as pre-commit does: one line here,
    the traceback appended to a log file."""
    import os
    import traceback

    kind = type(error)
    name = (
        kind.__qualname__
        if kind.__module__ == "builtins"
        else f"{kind.__module__}.{kind.__qualname__}"
    )
    summary = " ".join(str(error).split())
    summary = summary if len(summary) <= 300 else summary[:299] + "…"
    details = "".join(traceback.format_exception(error))
    if os.environ.get("WIKIGATE_DEBUG", "") not in ("", "0"):
        click.echo(details.rstrip("\n"), err=True)
    log = _append_crash_log(args, details)
    where = f"details in {log}" if log else "set WIKIGATE_DEBUG=1 for details (no log writable)"
    click.echo(f"wikigate: unexpected error: {name}: {summary}; {where}", err=True)
    return EXIT_UNEXPECTED


def _append_crash_log(args: list[str], details: str) -> Path | None:
    """Append ``details`` to ``<git dir>/wikigate/wikigate.log`` of the repository the
    command ran in, else to ``${XDG_CACHE_HOME:-~/.cache}/wikigate/wikigate.log``."""
    import os
    import platform
    import shlex
    from datetime import UTC, datetime

    import pygit2

    folders = []
    try:
        found = pygit2.discover_repository(_repo_option(args))
        if found:
            folders.append(Path(found) / "wikigate")
    except Exception:  # noqa: BLE001 - no repository here: use the cache folder
        pass
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folders.append(Path(cache) / "wikigate")
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    try:
        cwd = os.getcwd()
    except OSError as e:  # the folder was removed under us
        cwd = f"? ({e})"
    entry = (
        f"=== {stamp} wikigate {__version__}, python {platform.python_version()}, "
        f"pid {os.getpid()}\n"
        f"argv: {shlex.join(['wikigate', *args])}\ncwd: {cwd}\n{details}\n"
    )
    for folder in folders:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            log = folder / "wikigate.log"
            with log.open("a", encoding="utf-8", errors="backslashreplace") as fh:
                fh.write(entry)
            return log
        except OSError:
            continue
    return None


def _repo_option(args: list[str]) -> str:
    """The ``-C PATH`` given before the command (default ``.``), read without click."""
    repo, i = ".", 0
    while i < len(args):
        arg = args[i]
        if arg in ("-C", "--repo") and i + 1 < len(args):
            repo, i = args[i + 1], i + 2
            continue
        if arg.startswith("--repo="):
            repo = arg.removeprefix("--repo=")
        elif arg.startswith("-C") and len(arg) > 2:
            repo = arg[2:]
        elif not arg.startswith("-"):
            break
        i += 1
    return repo


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
