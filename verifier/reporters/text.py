"""Human text: findings grouped by page, colour on a TTY, one summary line."""

from __future__ import annotations

import collections
from collections.abc import Sequence
from itertools import groupby

from wikigate.models import Finding
from wikigate.text import plural, shown

from ..report import ClaimCheck, VerificationReport

# the findings that make a page the run touches other than fresh (docs/health.md)
STALE = frozenset({"citation.stale"})
CONTESTED = frozenset(
    {
        "claim.contradiction",
        "claim.source_conflict",
        "claim.gap_contradiction",
        "claim.possible_contradiction",
    }
)
STATES_LISTED = 20  # pages listed by state; the rest are counted
COLORS = {"critical": "\033[31m", "major": "\033[33m", "minor": "\033[36m"}
RESET, BOLD = "\033[0m", "\033[1m"


class TextReporter:
    name = "text"
    description = "for people: findings grouped by page, colour on a terminal, one summary line"

    def render(self, report: VerificationReport, *, color: bool = False) -> str:
        def paint(text: str, code: str) -> str:
            return f"{code}{text}{RESET}" if color else text

        lines: list[str] = []
        for path, group in groupby(report.findings, key=lambda f: f.path or "(run)"):
            lines.append(paint(path, BOLD))
            for f in group:
                where = f"{f.line}" if f.line else "-"
                lines.append(
                    f"  {where:>5}  {paint(f.severity, COLORS[f.severity])} {f.code}: {f.message}"
                )
                if f.hint:
                    lines.append(f"         hint: {f.hint}")
        for title, aside in (
            ("suppressed", report.suppressed),
            ("overridden", report.overridden),
        ):
            if aside:
                lines.append(f"{title} (not counted): {plural(len(aside), 'finding')}")
            for one in aside:
                f = one.finding
                who = f" in {one.run_id}" if one.run_id else ""
                who += f" by {one.actor}" if one.actor else ""
                lines.append(
                    f"  {f.path or '(run)'}:{f.line or '-'} {f.severity} {f.code}: {f.message}"
                )
                lines.append(f"         {one.by}{shown(who)}: {shown(one.reason)}")
        if report.judge is not None:
            lines.append(_judge_line(report))
        c = report.counts()
        s = report.summary
        verdict = paint(
            _headline(report),
            COLORS["critical"]
            if report.verdict == "reject"
            else COLORS["major"]
            if report.verdict in ("revise", "needs_human_review")
            else "\033[32m",
        )
        checks = collections.Counter(c.result for c in report.claim_checks)
        removed = _removed(report.claim_checks)
        if checks:
            lines.append(
                f"claims on changed pages: {checks['pass']} kept, "
                f"{checks['warn'] - len(removed)} reworded, {checks['fail']} removed or altered"
            )
        lines += removed_lines(report.claim_checks)
        if s.gaps:
            lines.append(f"gap markers: {s.gaps}")
        part = (
            f" · shard {report.shard.index}/{report.shard.count}: per-page checks only"
            if report.shard is not None
            else ""
        )
        if report.filtered is not None:
            h = report.filtered.hidden
            lines.append(
                f"not shown (--filter {report.filtered.mode}): {h.get('critical', 0)} critical, "
                f"{h.get('major', 0)} major, {h.get('minor', 0)} minor; the verdict counts them"
            )
        if report.next_actions:
            lines.append("next:")
            lines += [f"  {n}. {step}" for n, step in enumerate(report.next_actions, 1)]
        if report.blind_spots:
            lines.append("not ruled out:")
            lines += [f"  - {spot}" for spot in report.blind_spots]
        states = page_states(report.findings)
        if states:
            lines.append("pages not fresh:")
            lines += [
                f"  {shown(page)}: {state_of(st, co)}" for page, st, co in states[:STATES_LISTED]
            ]
            if len(states) > STATES_LISTED:
                lines.append(f"  … and {len(states) - STATES_LISTED} more")
        lines.append(
            f"{verdict}: {c['critical']} critical, {c['major']} major, {c['minor']} minor · "
            f"{s.pages_checked}/{s.pages} pages, {s.citations} citations, "
            f"{s.anchors_verified} anchors verified, {s.links} links · {report.strictness} · "
            f"{s.elapsed_ms / 1000:.2f}s{part}"
        )
        return "\n".join(lines)


def _removed(checks: Sequence[ClaimCheck]) -> list[ClaimCheck]:
    """The claims a change removed that did not verify on main: a warn with nothing
    standing for it (checks/runs.py)."""
    return [c for c in checks if c.result == "warn" and c.now is None]


def removed_lines(checks: Sequence[ClaimCheck]) -> list[str]:
    """``removed, not verifying on main: wiki/pier.md#^2 '…' (stale); …``: the claims a
    change removed that failed on main (docs/ledger.md), one line; none when there are
    none. `wikigate verify`'s text report and `run finalize`'s text (cli/base.py:
    ``outcome_text``) both end their claims so."""
    removed = _removed(checks)
    if not removed:
        return []
    said = "; ".join(f"{c.claim_id} {c.claim[:60]!r} ({_failed(c.reason)})" for c in removed)
    return [f"removed, not verifying on main: {said}"]


def _failed(reason: str) -> str:
    """Why main's claim did not verify, from its claim check's reason (checks/runs.py)."""
    if "shares its sentence" in reason:
        return "its sentence's other quote did not verify"
    return "stale" if "stale on main" in reason else "never verified"


def page_states(findings: list[Finding]) -> list[tuple[str, int, int]]:
    """Each page the findings name that they make other than fresh, worst first (stale,
    then contested; by path): (page, its stale claims: ``citation.stale``, its open
    contradictions: ``claim.contradiction`` and the like).  Decided from the findings
    alone (a verification's own), never from what a writer says of a page."""
    stale: collections.Counter[str] = collections.Counter()
    contested: collections.Counter[str] = collections.Counter()
    for f in findings:
        if f.path is None:
            continue
        if f.code in STALE:
            stale[f.path] += 1
        elif f.code in CONTESTED:
            contested[f.path] += 1
    pages = sorted(set(stale) | set(contested), key=lambda p: (not stale[p], p))
    return [(p, stale[p], contested[p]) for p in pages]


def state_of(stale: int, contested: int) -> str:
    """``stale (2 claims whose source changed)``, ``contested (1 open contradiction)``, or
    both: a page's state as :func:`page_states` counts it."""
    parts = []
    if stale:
        parts.append(f"stale ({plural(stale, 'claim')} whose source changed)")
    if contested:
        parts.append(f"contested ({plural(contested, 'open contradiction')})")
    return ", ".join(parts)


def _headline(report: VerificationReport) -> str:
    """The verdict, or in lint mode (no base: ``verify --all``, a shard, a merge) whether
    the wiki passes, with the verdict a run would get: nothing is committed there."""
    if report.base is not None:
        return report.verdict.upper()
    if report.verdict == "commit":
        return "PASS"
    return f"FAIL ({report.verdict}, no run)"


def _judge_line(report: VerificationReport) -> str:
    j = report.judge
    assert j is not None
    u = j.usage
    cached = sum(1 for v in j.votes if v.cached)
    total = u.input_tokens + u.cache_write_tokens + u.cache_read_tokens
    return (
        f"judge: {j.name} {j.model} · {plural(len(j.votes), 'claim')} ({cached} from the judgment "
        f"cache) · {plural(u.requests, 'request')} · {total:,} input tokens ({u.cache_read_tokens:,} cache reads) · "
        f"{u.output_tokens:,} output tokens · ${u.usd:.4f}"
    )
