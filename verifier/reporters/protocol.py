"""The plug-in point of the last stage: a Reporter turns a report into one output format."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..report import VerificationReport


class Reporter(Protocol):
    """Render a VerificationReport as one format (``wikigate verify --format NAME``).

    ``name`` is what ``--format`` takes; ``description`` is one plain line, the row of
    docs/report.md's formats table.  ``render`` is pure: it returns the whole output and
    never prints, writes or sends it; ``color`` asks for ANSI colour (a terminal), and a
    format without colour ignores it.
    """

    name: str
    description: str

    def render(self, report: VerificationReport, *, color: bool = False) -> str: ...
