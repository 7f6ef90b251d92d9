"""SARIF 2.1.0, for GitHub code scanning; an anchor finding carries its fix (``fixes``:
the footnote's line replaced, fixes.py)."""

from __future__ import annotations

import json
from urllib.parse import quote

from wikigate import __version__

from ..report import VerificationReport
from .fixes import fixed_line

LEVEL = {"critical": "error", "major": "warning", "minor": "note"}
SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def artifact_uri(path: str | None) -> str:
    """A repo-relative path as a relative URI reference (SARIF §3.10): each segment
    percent-encoded as UTF-8, so spaces, ``#``, ``%``, ``:`` and non-ASCII letters survive.
    A finding of the whole run has no path: it points at the repository root (code
    scanning drops a result with no location)."""
    return quote(path, safe="/") if path else "."


def fix_of(path: str | None, line: int | None, fixed: str) -> dict[str, object]:
    """SARIF's fix (§3.55): line ``line`` of ``path`` (a region of whole lines, its end
    of line kept) replaced by ``fixed``."""
    return {
        "description": {"text": "The footnote with its correct anchor (wikigate anchor --fix)"},
        "artifactChanges": [
            {
                "artifactLocation": {"uri": artifact_uri(path)},
                "replacements": [
                    {
                        "deletedRegion": {"startLine": line, "endLine": line},
                        "insertedContent": {"text": fixed},
                    }
                ],
            }
        ],
    }


class SarifReporter:
    name = "sarif"
    description = "SARIF 2.1.0, for GitHub code scanning (upload-sarif)"

    def render(self, report: VerificationReport, *, color: bool = False) -> str:
        aside = [*report.suppressed, *report.overridden]
        rules = sorted({f.code for f in report.findings} | {s.finding.code for s in aside})
        results = []
        # a finding set aside is a suppressed result (code scanning shows it dismissed):
        # inSource for an inline suppression, external for a recorded override
        why = [None] * len(report.findings) + [
            {
                "kind": "inSource" if s.by == "suppression" else "external",
                "status": "accepted",
                "justification": s.reason,
            }
            for s in aside
        ]
        for f, suppression in zip(
            [*report.findings, *(s.finding for s in aside)], why, strict=True
        ):
            location: dict[str, object] = {"artifactLocation": {"uri": artifact_uri(f.path)}}
            if f.line is not None and f.line >= 1:
                location["region"] = {"startLine": f.line}
            result: dict[str, object] = {
                "ruleId": f.code,
                "ruleIndex": rules.index(f.code),
                "level": LEVEL[f.severity],
                "message": {"text": f.message + (f" Hint: {f.hint}" if f.hint else "")},
                "locations": [{"physicalLocation": location}],
            }
            if f.other is not None:  # a contradiction's other claim (trial 40 #6)
                o = f.other
                result["relatedLocations"] = [
                    {
                        "id": 1,
                        "physicalLocation": {
                            "artifactLocation": {"uri": artifact_uri(o.page)},
                            "region": {"startLine": o.line},
                        },
                        "message": {"text": f"the other claim, {o.claim_id}, citing {o.source}"},
                    }
                ]
            fixed = fixed_line(f)
            if fixed is not None and suppression is None:
                result["fixes"] = [fix_of(f.path, f.line, fixed)]
            if suppression is not None:
                result["suppressions"] = [suppression]
            results.append(result)
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
