"""``wikigate run …`` (start, stage, finalize) and ``wikigate runs …`` (list, show)."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from wikigate.errors import RunError, UsageError
from wikigate.kinds import RUN_TYPES, STATUSES
from wikigate.paths import MAX_SOURCE_BYTES
from wikigate.present import runs_table

from .app import cli
from .base import (
    TOKENS,
    USD,
    format_option,
    judge_option,
    open_workspace,
    outcome_text,
    run_id_argument,
    sync_ledger,
)


@cli.group()
def run() -> None:
    """Start, stage and finalize a run."""


@run.command("start")
@click.option(
    "--type", "run_type", required=True, type=click.Choice(RUN_TYPES), help="What the run does."
)
@click.option(
    "--triggered-by",
    required=True,
    metavar="KIND:NAME",
    help="Who started it: cli:<cmd>, daemon:<job> (mcp: runs are the MCP server's, github: "
    "runs the GitHub bot's).",
)
@click.option(
    "--budget-input-tokens",
    type=TOKENS,
    metavar="N",
    help="The writer's input-token budget.",
)
@click.option(
    "--budget-output-tokens",
    type=TOKENS,
    metavar="N",
    help="The writer's output-token budget.",
)
@click.option("--budget-usd", type=USD, metavar="X", help="The writer's budget in USD.")
@click.option(
    "--scope",
    multiple=True,
    metavar="PATH",
    help="A path the run may change (repeat; a folder ends in /). Changes elsewhere are "
    "run.scope findings. Default: no limit.",
)
@click.option(
    "--direction",
    metavar="FILE",
    type=click.File("r", encoding="utf-8"),
    help="What the run intends, in a text file (- for stdin); the LLM judge checks the "
    "change against it (run.direction).",
)
@click.pass_context
def run_start(
    ctx: click.Context,
    run_type: str,
    triggered_by: str,
    budget_input_tokens: int | None,
    budget_output_tokens: int | None,
    budget_usd: float | None,
    scope: tuple[str, ...],
    direction: Any,
) -> None:
    """Open a run; prints only its id."""
    if triggered_by.startswith("github:"):
        # the bot settles a github: run from its pull request; nothing here could abandon it
        raise click.UsageError(
            f"--triggered-by {triggered_by!r}: github: runs are the GitHub bot's, settled from "
            "their pull request; start a local run as cli:<cmd> or daemon:<job>"
        )
    ws = open_workspace(ctx)
    from wikigate.models import Budget

    budget = Budget(
        input_tokens=budget_input_tokens, output_tokens=budget_output_tokens, usd=budget_usd
    )
    declared = list(scope) if scope else None
    intent = direction.read() if direction is not None else None
    click.echo(
        ws.start_run(run_type, triggered_by, budget, scope=declared, direction=intent).run_id
    )


@run.command("write")
@run_id_argument()
@click.argument(
    "path", help="Where to write: wiki/… (raw/… in an ingest run; wikigate.toml: a rules change)."
)
@click.option(
    "--from",
    "source",
    required=True,
    type=click.File("rb"),
    metavar="FILE",
    help="File to stage, or - for standard input.",
)
@click.pass_context
def run_write(ctx: click.Context, run_id: str, path: str, source: Any) -> None:
    """Stage the whole content of PATH."""
    data = source.read(MAX_SOURCE_BYTES + 1)  # never more than any file may hold (/dev/zero)
    open_workspace(ctx).run(run_id).stage_write(path, data)


@run.command("replace")
@run_id_argument()
@click.argument("path", help="The staged wiki page to edit.")
@click.option("--old", required=True, metavar="TEXT", help="Text that must occur exactly once.")
@click.option("--new", required=True, metavar="TEXT", help="Its replacement.")
@click.pass_context
def run_replace(ctx: click.Context, run_id: str, path: str, old: str, new: str) -> None:
    """Exactly-one-match edit of the staged copy; any other count rejects the run."""
    open_workspace(ctx).run(run_id).str_replace(path, old, new)


@run.command("delete")
@run_id_argument()
@click.argument("path", help="The wiki page to delete.")
@click.pass_context
def run_delete(ctx: click.Context, run_id: str, path: str) -> None:
    """Stage the deletion of a wiki page."""
    open_workspace(ctx).run(run_id).stage_delete(path)


@run.command("usage")
@run_id_argument()
@click.option("--input-tokens", type=TOKENS, required=True, metavar="N", help="Tokens read.")
@click.option(
    "--output-tokens",
    type=TOKENS,
    required=True,
    metavar="N",
    help="Tokens written.",
)
@click.option("--usd", type=USD, required=True, metavar="X", help="Dollars spent.")
@click.pass_context
def run_usage(
    ctx: click.Context, run_id: str, input_tokens: int, output_tokens: int, usd: float
) -> None:
    """Attest what the writer spent on this run."""
    from wikigate.models import Budget

    usage = Budget(input_tokens=input_tokens, output_tokens=output_tokens, usd=usd)
    open_workspace(ctx).run(run_id).attest_usage(usage)


@run.command("finalize")
@run_id_argument()
@click.option("--no-verify", is_flag=True, help="Commit without the verifier (marked unverified).")
@click.option("--draft-only", is_flag=True, help="Leave the run pending for a person to inspect.")
@judge_option
@click.pass_context
def run_finalize(
    ctx: click.Context, run_id: str, no_verify: bool, draft_only: bool, judge: str | None
) -> None:
    """Verify the run, then commit, reject or ask for a revision."""
    if no_verify and draft_only:
        raise UsageError("--no-verify and --draft-only exclude each other")
    if judge is not None and (no_verify or draft_only):
        raise UsageError("--judge applies to a verification; not with --no-verify or --draft-only")
    ws = open_workspace(ctx)
    run = ws.run(run_id)
    if not (no_verify or draft_only):
        from wikigate.changes import finalize_judge

        finalize_judge(ws, run, judge)
    result = run.finalize(verify=not no_verify, draft_only=draft_only, judge=judge)
    click.echo(outcome_text(result))
    if result.status == "committed":
        sync_ledger(ws)
    ctx.exit(result.exit_code)


@run.command("abandon")
@run_id_argument()
@click.option("--reason", required=True, metavar="TEXT", help="Why (recorded with your name).")
@click.pass_context
def run_abandon(ctx: click.Context, run_id: str, reason: str) -> None:
    """Abandon a pending run (or one whose finalizer died or whose lease expired): recorded
    with your name and the reason; its commits are kept at refs/wikigate/failed/RUN."""
    ws = open_workspace(ctx)
    row = ws.abandon(run_id, reason)
    if row["status"] != "abandoned":  # git's facts settled it otherwise (main holds it)
        raise RunError(
            f"run {run_id} was not abandoned: it is {row['status']} "
            f"({row['reject_reason'] or 'main holds it'})"
        )
    kept = ws.run(run_id).ref()
    click.echo(f"abandoned {run_id}" + (f": its commits are kept at {kept}" if kept else ""))


# ------------------------------------------------------------------ runs


@cli.group()
def runs() -> None:
    """List and inspect runs."""


@runs.command("list")
@click.option(
    "--status",
    type=click.Choice((*STATUSES, "needs_human_review")),
    help="Only runs in this state (needs_human_review: pending runs waiting for a person).",
)
@format_option()
@click.pass_context
def runs_list(ctx: click.Context, status: str | None, fmt: str) -> None:
    """Runs, oldest first."""
    rows = open_workspace(ctx).runs(status)
    if fmt == "json":
        from wikigate.present import loops_done

        click.echo(json.dumps([{**r, "loops": loops_done(r)} for r in rows], indent=2))
        return
    click.echo(runs_table(rows))


SHOWN = (
    "run_id",
    "run_type",
    "triggered_by",
    "status",
    "verdict",
    "reject_reason",
    "loops",
    "started_at",
    "ended_at",
    "ref",
    "base_commit",
    "tip_commit",
)


@runs.command("show")
@run_id_argument()
@format_option()
@click.option(
    "--artifacts",
    is_flag=True,
    help="Also list each verification's attestation and artifacts (git blob ids, sizes).",
)
@click.option(
    "--html",
    is_flag=True,
    help="Print the run's last verification as one self-contained HTML page instead: its "
    "pages with each claim highlighted, the findings linked to them (docs/report.md).",
)
@click.pass_context
def runs_show(ctx: click.Context, run_id: str, fmt: str, artifacts: bool, html: bool) -> None:
    """One run: its record, where git keeps it, its ops, findings and overrides."""
    ws = open_workspace(ctx)
    r = ws.run(run_id)
    row = r.refresh()
    if html:
        click.echo(_html(ws, run_id))
        return
    from wikigate.plan import RunForged, RunSchemaError

    try:
        ops = r.plan().ops
        unreadable = None
    except (RunForged, RunSchemaError) as e:  # the record is what a person must see
        ops, unreadable = [], str(e)
    from wikigate.present import loops_done

    data: dict[str, Any] = {
        **row,
        "loops": loops_done(row),  # loop_count: the loop it is on, 1 before a finalize
        "ref": r.ref(),
        "ops": [op.model_dump(exclude_none=True) for op in ops],
        "findings": ws.store.findings(run_id),
        "overrides": ws.store.overrides(run_id),
    }
    if unreadable is not None:
        data["ops_unreadable"] = unreadable
    from wikigate.store import advice_of

    said = advice_of(row)  # the last verification's next actions, blind spots, questions
    data.pop("advice", None)
    data.update({k: said.get(k, []) for k in ("next_actions", "blind_spots", "questions")})
    from wikigate.gitrepo import branch_name
    from wikigate.present import answered, closed

    # once a person decided, the steps asking for that decision are gone (as finalize says)
    data["next_actions"] = closed(
        row["status"],
        row["reject_reason"],
        answered(
            data["next_actions"],
            row["verdict"],
            row["status"] == "committed",
            branch_name(ws.env.main),
        ),
    )
    if row["verdict"] == "commit_override":
        data["overridden"] = _overridden(ws, run_id)
    data["suppressed"] = _suppressed(ws, run_id)
    verifications: list[dict[str, Any]] = []
    if artifacts:
        from wikigate.attest import listing

        verifications = data["verifications"] = listing(ws.repo, _verifications(ws, run_id))
    if fmt == "json":
        click.echo(json.dumps(data, indent=2))
        return
    for key in SHOWN:
        click.echo(f"{key:14} {data[key] if data[key] is not None else '-'}")
    click.echo("ops:" if unreadable is None else f"ops: unreadable ({unreadable})")
    for op in ops:
        click.echo(f"  {op.kind:8} {op.path or ''}")
    if data["findings"]:
        click.echo("findings:")
        for f in data["findings"]:
            loc = f"{f['path']}:{f['line']}" if f["line"] else (f["path"] or "(run)")
            click.echo(f"  [loop {f['loop']}] {loc}: {f['severity']} {f['code']}: {f['message']}")
    from wikigate.present import advice_lines

    for line in advice_lines(data["next_actions"], data["blind_spots"], data["questions"]):
        click.echo(line)
    for o in data["overrides"]:
        click.echo(f"override: {o['actor']} via {o['source']} at {o['at']}: {o['reason']}")
    overridden = data.get("overridden")
    if isinstance(overridden, str):
        click.echo(f"overridden findings: unknown ({overridden})")
    elif overridden is not None:
        from wikigate.text import shown

        # read from a git blob any clone can write: printed escaped, one line each
        click.echo(f"overridden findings: {len(overridden)}")
        for f in overridden:
            path, line = f.get("path"), f.get("line")
            loc = f"{path}:{line}" if line else (path or "(run)")
            text = f"{loc}: {f.get('severity')} {f.get('code')}: {f.get('message')}"
            click.echo(f"  {shown(text)}")
    suppressed = data["suppressed"]
    if isinstance(suppressed, str):
        click.echo(f"suppressed findings: unknown ({suppressed})")
    else:
        from wikigate.present import suppressed_lines

        for line in suppressed_lines(suppressed):  # read from a git blob: printed escaped
            click.echo(line)
    if artifacts:
        click.echo("verifications:" if verifications else "verifications: none")
        for n, v in enumerate(verifications, 1):
            signed = "signed" if v["signature"] else "unsigned"
            click.echo(
                f"  {n}. loop {v['loop']} {v['result']} at {v['at']}: attestation "
                f"{v['attestation']} ({signed}), tree {v['tree']}"
            )
            for name, a in v["artifacts"].items():
                click.echo(f"     {name:24} {a['blob']} {a['size']:>9} bytes")


@runs.command("artifact")
@run_id_argument()
@click.argument(
    "name",
    help="An artifact's name as `runs show --artifacts` lists it (attestation.json, "
    "report.json, judge/requests.jsonl…), or its git blob id.",
)
@click.option(
    "--verification",
    "number",
    type=click.IntRange(min=1),
    metavar="N",
    help="Of the run's Nth verification (default: its last), numbered as "
    "`runs show --artifacts` lists them.",
)
@click.pass_context
def runs_artifact(ctx: click.Context, run_id: str, name: str, number: int | None) -> None:
    """Print one artifact of a run's verification, byte for byte."""
    from wikigate.attest import artifact

    ws = open_workspace(ctx)
    ws.run(run_id).refresh()  # an unknown run: RunError naming it
    data = artifact(ws.repo, _verifications(ws, run_id), name, number)
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def _html(ws: Any, run_id: str) -> str:
    """The run's last verification, from its stored report, as the HTML report."""
    from wikigate.attest import REPORT, files
    from wikigate.errors import GitError
    from wikigate.verifier.report import ReportError, load_report

    from .verify import html_of

    done = _verifications(ws, run_id)
    if not done:
        raise RunError(
            f"run {run_id} kept no verification to show (committed with --no-verify, or "
            "not verified yet): `wikigate verify` its branch for a report"
        )
    try:
        blob = files(ws.repo, done[-1]).get(REPORT)
    except GitError as e:
        raise RunError(f"run {run_id}: {e}") from e
    if blob is None:
        raise RunError(f"run {run_id}: its last verification kept no report.json")
    try:
        report = load_report(blob.data.decode("utf-8", errors="replace"))
    except ReportError as e:
        raise RunError(f"run {run_id}: its stored report cannot be read: {e}") from e
    return html_of(ws.repo, report)


def _overridden(ws: Any, run_id: str) -> list[dict[str, Any]] | str:
    """What an override committed despite: the findings of the run's last verification
    (the one that rejected it), from its stored report; or why they cannot be read."""
    from wikigate.attest import reported_findings
    from wikigate.errors import GitError

    done = _verifications(ws, run_id)
    if not done:
        return (
            "the run kept no verification: it was committed with --no-verify, or rejected "
            "before one was attested"
        )
    try:
        return reported_findings(ws.repo, done[-1])
    except GitError as e:
        return str(e)


def _suppressed(ws: Any, run_id: str) -> list[dict[str, Any]] | str:
    """What an inline suppression set aside in the run's last verification, from its
    stored report; or why it cannot be read."""
    from wikigate.attest import reported_findings
    from wikigate.errors import GitError

    done = _verifications(ws, run_id)
    if not done:
        return []
    try:
        return reported_findings(ws.repo, done[-1], "suppressed")
    except GitError as e:
        return str(e)


def _verifications(ws: Any, run_id: str) -> list[Any]:
    from wikigate.models import VerificationRef

    return [VerificationRef.model_validate(v) for v in ws.store.verifications(run_id)]
