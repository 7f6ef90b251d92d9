"""Reporters: thin adapters from a VerificationReport to an output format."""

from __future__ import annotations

from collections.abc import Callable

from ..report import VerificationReport
from . import rdjson, sarif, text

RENDERERS: dict[str, Callable[..., str]] = {
    "text": text.render,
    "json": lambda report, color=False: report.model_dump_json(indent=2),
    "rdjson": rdjson.render,
    "sarif": sarif.render,
}
FORMATS = tuple(RENDERERS)


def render(report: VerificationReport, fmt: str, color: bool = False) -> str:
    return RENDERERS[fmt](report, color=color)
