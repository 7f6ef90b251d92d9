"""SARIF 2.1.0, for GitHub code scanning."""

from __future__ import annotations

import json

from wikigate import __version__

from ..report import VerificationReport

LEVEL = {"critical": "error", "major": "warning", "minor": "note"}
SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def render(report: VerificationReport, color: bool = False) -> str:
    rules = sorted({f.code for f in report.findings})
    results = []
    for f in report.findings:
        location: dict[str, object] = {"artifactLocation": {"uri": f.path or "."}}
        if f.line:
            location["region"] = {"startLine": f.line}
        results.append(
            {
                "ruleId": f.code,
                "ruleIndex": rules.index(f.code),
                "level": LEVEL[f.severity],
                "message": {"text": f.message + (f" Hint: {f.hint}" if f.hint else "")},
                "locations": [{"physicalLocation": location}],
            }
        )
    doc = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "wikigate",
                        "version": __version__,
                        "rules": [{"id": r, "shortDescription": {"text": r}} for r in rules],
                    }
                },
                "results": results,
                "properties": {"verdict": report.verdict, "strictness": report.strictness},
            }
        ],
    }
    return json.dumps(doc, indent=2)
