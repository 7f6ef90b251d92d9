"""How a finding, a run's outcome and a table of runs read as text: one place for the
CLI, the demo and the hooks (the report formats live in wikigate.verifier.reporters)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .kinds import MAX_LOOPS

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .finalize import FinalizeResult
    from .models import Finding
    from .store import RunRow


def finding_line(f: Finding, *, severity: bool = True, hint: bool = True, indent: str = "") -> str:
    """``path:line: [severity] code: message``, the hint on a second line."""
    where = (f.path or "(run)") + (f":{f.line}" if f.line else "")
    level = f"{f.severity} " if severity else ""
    text = f"{indent}{where}: {level}{f.code}: {f.message}"
    return text + (f"\n{indent}    hint: {f.hint}" if hint and f.hint else "")


def outcome_line(result: FinalizeResult) -> str:
    """What finalize did to the run, in one line."""
    run_id = result.run_id
    if result.status == "committed":
        return f"committed {run_id}: {result.trunk} is at {str(result.tip)[:12]}"
    if result.status in ("rejected", "abandoned"):
        return f"{result.status} {run_id}: {result.reason}"
    if result.verdict == "revise":
        return (
            f"revise {run_id} (loop {result.loop} of {MAX_LOOPS}): fix the findings, "
            "then finalize again"
        )
    if result.verdict == "needs_human_review":
        why = f"{result.reason}; " if result.reason else ""
        return (
            f"needs_human_review {run_id}: {why}a person decides: `wikigate verify approve "
            f"{run_id} --reason ...` or `wikigate verify reject {run_id} --reason ...`"
        )
    return f"pending {run_id}: {result.reason}"


def outcome(
    result: FinalizeResult,
    *,
    removed: Sequence[str] = (),
    not_fresh: Sequence[tuple[str, str]] = (),
    unlisted: int = 0,
) -> str:
    """The outcome line and every finding, indented under it; then what an inline
    suppression set aside, with its reason; the claims the run removed that did not verify
    on main (``removed``: lines); the feedback; then the pages the run touched that are not
    fresh (``not_fresh``: each page and its state, ``unlisted`` more), as ``wikigate
    verify``'s text report ends. The surfaces give them from the text reporter's
    ``removed_lines``, ``page_states`` and ``state_of`` (``cli.base.outcome_text``): the
    engine knows the verifier only by its protocol."""
    lines = [outcome_line(result)]
    lines += [finding_line(f, indent="  ") for f in result.findings]
    lines += suppressed_lines((result.report or {}).get("suppressed"))
    lines += removed
    lines += advice_lines(after_a_decision(result), result.blind_spots, result.questions)
    lines += not_fresh_lines(not_fresh, unlisted)
    return "\n".join(lines)


def not_fresh_lines(pages: Sequence[tuple[str, str]], unlisted: int = 0) -> list[str]:
    """``pages not fresh:``, each page with its state (the page escaped: a writer named
    it), then how many more were not listed; none when every page is fresh."""
    from .text import shown

    if not pages and not unlisted:
        return []
    lines = ["pages not fresh:", *(f"  {shown(page)}: {state}" for page, state in pages)]
    return lines + ([f"  … and {unlisted} more"] if unlisted else [])


DECIDED = ("commit_approved", "commit_override", "reject_reviewed")  # a person's word


def after_a_decision(result: FinalizeResult) -> list[str]:
    """The run's next actions, less those asking for the decision a person just gave
    (``verify approve``, ``verify reject``, an override): a finding that asks a person
    (``asks``) is answered. The pages ``run.rules_followup`` names still fail the rules
    that landed: that step stays, as a follow-up run."""
    return answered(result.next_actions, result.verdict, result.status == "committed", result.trunk)


def closed(status: str, reason: str | None, next_actions: Sequence[str]) -> list[str]:
    """A rejected or abandoned run's next actions: it takes no more changes, so one step,
    to redo the change on a new run, fixing what failed (trial 28b N8: `runs show` of a
    rejected run said "then finalize again"); another status's, as they are."""
    if status not in ("rejected", "abandoned"):
        return list(next_actions)
    return [
        f"the run is {status}: redo the change on a new run (`wikigate run start`), fixing: "
        + fixing(next_actions, reason)
    ]


def fixing(next_actions: Sequence[str], reason: str | None) -> str:
    """What a closed run's redo must fix: its steps, each without its "then finalize again"
    (the closed run takes no finalize; trial 28c), else the reason."""
    steps = [_AGAIN.sub("", a.rstrip(".")) for a in next_actions]
    return "; ".join(steps) or reason or "what the findings say"


_AGAIN = re.compile(r",?\s*(?:and |then )+finalize again$")


def answered(
    next_actions: Sequence[str],
    verdict: str | None,
    committed: bool,
    trunk: str,
    pull_request: bool = False,
) -> list[str]:
    """``next_actions`` as they stand after ``verdict``: once a person decided (DECIDED),
    a step asking for that decision is gone (the ``run.rules_followup`` pages stay, as a
    follow-up); on a pull request (``pull_request``) a step that asks a person speaks of
    the pull request (a writer's review, the override), not of CLI commands."""
    from .codes import CODES

    asked = [name for name, code in CODES.items() if code.asks]
    out = []
    for action in next_actions:
        code = next((c for c in asked if action.startswith((f"{c} on ", f"{c}:"))), None)
        if code is None:
            out.append(action)
        elif verdict in DECIDED:
            if code == "run.rules_followup" and committed:
                out.append(
                    f"fix the pages run.rules_followup names in a follow-up run: they fail the "
                    f"rules now on {trunk}"
                )
        elif pull_request and code != "run.rules_followup":
            where = action.split(":", 1)[0]
            out.append(
                f"{where}: a person with write access decides on this pull request: an "
                "approving review lands it, a review requesting changes rejects it (or the "
                "override label, or a `/wikigate override` comment with a reason)"
            )
        else:
            out.append(action)
    return out


def advice_lines(
    next_actions: Sequence[str], blind_spots: Sequence[str], questions: Sequence[str] = ()
) -> list[str]:
    """A verification's feedback (verifier/advice.py) as text: what to do next, numbered;
    what it could not rule out; what a person must answer. Escaped: a record any clone can
    write may hold them."""
    from .text import shown

    lines: list[str] = []
    for title, said, mark in (
        ("next:", next_actions, None),
        ("not ruled out:", blind_spots, "-"),
        ("a person must answer:", questions, "?"),
    ):
        if said:
            lines.append(title)
            lines += [f"  {mark or f'{n}.'} {shown(s)}" for n, s in enumerate(said, 1)]
    return lines


def suppressed_lines(suppressed: object) -> list[str]:
    """``suppressed`` (a report's, as JSON) as text: a heading and one line per finding
    set aside, with the suppression's reason (escaped: page text wrote it)."""
    from .text import shown

    if not isinstance(suppressed, list) or not suppressed:
        return []
    lines = [f"suppressed (not counted): {len(suppressed)}"]
    for one in suppressed:
        f = one.get("finding") if isinstance(one, dict) else None
        if not isinstance(f, dict):
            continue
        path, line = f.get("path"), f.get("line")
        loc = f"{path}:{line}" if line else (path or "(run)")
        text = f"{loc}: {f.get('severity')} {f.get('code')}: {f.get('message')}"
        lines.append(f"  {shown(text)}")
        lines.append(f"      reason: {shown(str(one.get('reason')))}")
    return lines


def loops_done(row: RunRow) -> int:
    """The loops a run was verified in (LOOPS in ``runs list``, ``loops`` in ``runs
    show``): its ``loop_count`` once a finalize decided on it (a verdict), else 0. The
    column holds the loop a run is on, 1 before its first finalize: a run never
    finalized has had no loop. As ``wikigate stats`` counts a run's loops."""
    return int(row["loop_count"]) if row["verdict"] is not None else 0


def runs_table(rows: Sequence[RunRow]) -> str:
    header = ("RUN", "TYPE", "STATUS", "VERDICT", "LOOPS", "REASON")
    body = [
        (
            r["run_id"],
            r["run_type"],
            r["status"],
            r["verdict"] or "-",
            str(loops_done(r)),
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
