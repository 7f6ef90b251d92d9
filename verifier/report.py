"""The verification report (the seed's "verifier contract"), a pydantic model.

Its JSON Schema is published in docs/report.schema.json; a report with an
unknown ``schema_version`` is refused.
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from wikigate.errors import WikigateError
from wikigate.models import Finding, Strictness

SCHEMA_VERSION = 1


class CheckResult(BaseModel):
    name: str
    status: Literal["passed", "failed", "error", "skipped"]
    duration_ms: float
    findings: int = 0
    reason: str | None = Field(
        default=None, description="why a check was skipped, if not by preset"
    )


class SummaryMetrics(BaseModel):
    pages: int = 0
    pages_checked: int = 0
    claims: int = 0
    citations: int = 0
    anchors_verified: int = 0
    links: int = 0
    elapsed_ms: float = 0.0


class ShardInfo(BaseModel):
    """Which slice of a whole-wiki verify a report covers (``verify --all --shard K/N``), and
    what its sibling shards must agree on for ``wikigate report merge`` to combine them."""

    index: int = Field(ge=1, description="K: this shard's number, 1-based")
    count: int = Field(ge=1, description="N: how many shards the pages were split into")
    tree: str = Field(description="the verified commit's tree")
    rules: str = Field(description="digest of the rules applied (the parsed wikigate.toml)")
    verifier: str = Field(description="what produced the findings: versions and the judge")


class VerificationReport(BaseModel):
    schema_version: int = SCHEMA_VERSION
    run_id: str | None = None
    base: str | None = Field(default=None, description="base commit (None in lint mode)")
    tip: str
    strictness: Strictness
    verdict: Literal["commit", "reject", "revise"]
    checks: list[CheckResult]
    findings: list[Finding]
    summary: SummaryMetrics
    exempt: list[str] = Field(
        default_factory=list,
        description="pages whose page checks were skipped, with the reason "
        "(an append-only change to wiki/log.md); every other check ran, links included",
    )
    shard: ShardInfo | None = Field(
        default=None,
        description="set on a shard's report (verify --all --shard K/N): only the per-page "
        "checks ran, on its slice of the pages; `wikigate report merge` makes the whole",
    )

    @field_validator("schema_version")
    @classmethod
    def _known_version(cls, v: int) -> int:
        if v != SCHEMA_VERSION:
            raise ValueError(
                f"unknown report schema_version {v}; this wikigate reads {SCHEMA_VERSION}"
            )
        return v

    def counts(self) -> dict[str, int]:
        out = {"critical": 0, "major": 0, "minor": 0}
        for f in self.findings:
            out[f.severity] += 1
        return out


class ReportError(WikigateError):
    pass


def load_report(text: str) -> VerificationReport:
    try:
        return VerificationReport.model_validate(json.loads(text))
    except ValueError as e:
        raise ReportError(f"not a wikigate verification report: {e}") from e


def json_schema() -> dict[str, object]:
    return VerificationReport.model_json_schema()


if __name__ == "__main__":  # python -m wikigate.verifier.report > docs/report.schema.json
    print(json.dumps(json_schema(), indent=2))
