"""reviewdog's Diagnostic Format (rdjson), for `reviewdog -f=rdjson`."""

from __future__ import annotations

import json

from ..report import VerificationReport

SEVERITY = {"critical": "ERROR", "major": "WARNING", "minor": "INFO"}


def render(report: VerificationReport, color: bool = False) -> str:
    diagnostics = []
    for f in report.findings:
        d: dict[str, object] = {
            "message": f.message + (f"\nhint: {f.hint}" if f.hint else ""),
            "severity": SEVERITY[f.severity],
            "code": {"value": f.code},
            "location": {"path": f.path or "."},
        }
        if f.line:
            d["location"] = {"path": f.path, "range": {"start": {"line": f.line}}}
        diagnostics.append(d)
    return json.dumps(
        {
            "source": {"name": "wikigate"},
            "severity": "ERROR" if report.verdict == "reject" else "WARNING",
            "diagnostics": diagnostics,
        },
        indent=2,
    )
