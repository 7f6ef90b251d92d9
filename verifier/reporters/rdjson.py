"""reviewdog's Diagnostic Format (rdjson), for `reviewdog -f=rdjson`; an anchor finding
carries its fix as a ``suggestion`` replacing the footnote's line (fixes.py)."""

from __future__ import annotations

import json

from ..report import VerificationReport
from .fixes import fixed_line

SEVERITY = {"critical": "ERROR", "major": "WARNING", "minor": "INFO"}


class RdjsonReporter:
    name = "rdjson"
    description = "reviewdog's Diagnostic Format: pipe into reviewdog -f=rdjson"

    def render(self, report: VerificationReport, *, color: bool = False) -> str:
        diagnostics = []
        for f in report.findings:
            location: dict[str, object] = {"path": f.path or "."}  # "." : the whole run
            if f.line is not None and f.line >= 1:
                location["range"] = {"start": {"line": f.line}}
            diagnostic: dict[str, object] = {
                "message": f.message + (f"\nhint: {f.hint}" if f.hint else ""),
                "severity": SEVERITY[f.severity],
                "code": {"value": f.code},
                "location": location,
            }
            if f.other is not None:  # a contradiction's other claim (trial 40 #6)
                o = f.other
                diagnostic["related_locations"] = [
                    {
                        "message": f"the other claim, {o.claim_id}, citing {o.source}",
                        "location": {"path": o.page, "range": {"start": {"line": o.line}}},
                    }
                ]
            fixed = fixed_line(f)
            if fixed is not None and f.line is not None:
                # linewise (no columns): the footnote's line, its line end included
                at = {"line": f.line}
                diagnostic["suggestions"] = [
                    {"range": {"start": at, "end": at}, "text": fixed + "\n"}
                ]
            diagnostics.append(diagnostic)
        return json.dumps(
            {
                "source": {"name": "wikigate"},
                "severity": "ERROR" if report.verdict == "reject" else "WARNING",
                "diagnostics": diagnostics,
            },
            indent=2,
        )
