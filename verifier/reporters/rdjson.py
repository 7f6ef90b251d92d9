"""reviewdog's Diagnostic Format (rdjson), for `reviewdog -f=rdjson`."""

from __future__ import annotations

import json

from ..report import VerificationReport

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
            diagnostics.append(
                {
                    "message": f.message + (f"\nhint: {f.hint}" if f.hint else ""),
                    "severity": SEVERITY[f.severity],
                    "code": {"value": f.code},
                    "location": location,
                }
            )
        return json.dumps(
            {
                "source": {"name": "wikigate"},
                "severity": "ERROR" if report.verdict == "reject" else "WARNING",
                "diagnostics": diagnostics,
            },
            indent=2,
        )
