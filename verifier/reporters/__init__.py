"""Reporters: the last stage of the flow, a VerificationReport → one output format.

The flow is reviewdog's ``parser → filter → reporter``: the checks find, the report
decides (verdict, severities), a reporter only renders.  Every reporter implements the
``Reporter`` protocol (protocol.py): a ``name`` (what ``--format`` takes), a one-line
``description`` and ``render(report, *, color=False) -> str``.

``REPORTERS`` below is the one table of formats: ``wikigate verify --format`` takes its
names, ``render()`` looks reporters up in it, and docs/report.md's formats table lists it
row for row (tests/test_reporters.py checks that).

Adding a reporter: one module here with one class (see ``rdjson.py`` for the shape), one
entry in ``REPORTERS``, one row in docs/report.md, and the output validated against its
published schema in tests/test_reporters.py.  A reporter stays pure: report in, text
out, tested without a network.

What the GitHub bot shows (a review's line comments, the check run's annotations,
workflow commands) is not a reporter: it needs the pull request's diff and the base
besides the report, so it lives with the bot (``bot/review.py``, ``bot/check_run.py``).
"""

from __future__ import annotations

from ..report import ReportError, VerificationReport
from .html import HtmlReporter
from .protocol import Reporter
from .rdjson import RdjsonReporter
from .sarif import SarifReporter
from .text import TextReporter


class JsonReporter:
    """The report itself, as docs/report.md describes it (no adapter: pydantic's dump)."""

    name = "json"
    description = "the report itself, with every field above; load_report reads it back"

    def render(self, report: VerificationReport, *, color: bool = False) -> str:
        return report.model_dump_json(indent=2)


REPORTERS: dict[str, Reporter] = {
    r.name: r
    for r in (TextReporter(), JsonReporter(), RdjsonReporter(), SarifReporter(), HtmlReporter())
}
FORMATS = tuple(REPORTERS)


def render(report: VerificationReport, fmt: str, color: bool = False) -> str:
    """``report`` in the format named ``fmt`` (one of ``FORMATS``)."""
    try:
        reporter = REPORTERS[fmt]
    except KeyError:
        raise ReportError(
            f"unknown report format {fmt!r}; use one of: {', '.join(FORMATS)}"
        ) from None
    return reporter.render(report, color=color)


__all__ = ["FORMATS", "REPORTERS", "Reporter", "render"]
