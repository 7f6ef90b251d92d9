"""Human text: findings grouped by page, colour on a TTY, one summary line."""

from __future__ import annotations

from itertools import groupby

from ..report import VerificationReport

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
        c = report.counts()
        s = report.summary
        verdict = paint(
            report.verdict.upper(),
            COLORS["critical"]
            if report.verdict == "reject"
            else COLORS["major"]
            if report.verdict == "revise"
            else "\033[32m",
        )
        part = (
            f" · shard {report.shard.index}/{report.shard.count}: per-page checks only"
            if report.shard is not None
            else ""
        )
        lines.append(
            f"{verdict}: {c['critical']} critical, {c['major']} major, {c['minor']} minor · "
            f"{s.pages_checked}/{s.pages} pages, {s.citations} citations, "
            f"{s.anchors_verified} anchors verified, {s.links} links · {report.strictness} · "
            f"{s.elapsed_ms / 1000:.2f}s{part}"
        )
        return "\n".join(lines)
