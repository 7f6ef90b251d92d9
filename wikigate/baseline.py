"""A whole-wiki verify's baseline: the findings a person's word already landed.

``wikigate verify --all`` checks everything on main, including what a person overrode or
approved (``verify override``, ``verify approve``, a maintainer's label on a pull request).
Such a finding is shown as overridden, with who decided and why, and does not count
towards the verdict, as long as it is the same finding: matched by its fingerprint
(``models.fingerprint``: code, path, claim, message and the text of its line, such as the
footnote's definition with its quote; never the line's number). A finding whose
content changed is a new finding again.

The overrides come from the telemetry database, which ``wikigate telemetry rebuild`` fills
from the notes (origin's included): a CI job on a fresh clone runs it first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .codes import verdict_for
from .records import finding_fingerprints

if TYPE_CHECKING:
    import pygit2

    from .store import OverriddenRow
    from .verifier.report import VerificationReport


def honour_overrides(
    report: VerificationReport, overridden: list[OverriddenRow], repo: pygit2.Repository
) -> VerificationReport:
    """``report`` with the findings a recorded override covers set aside (listed in
    ``overridden``) and the verdict made again from the rest; a verdict that does not come
    from the findings alone (a plug-in's own) is never lowered."""
    from .verifier.report import SetAside

    if not overridden:
        return report
    by_fp = {row["fingerprint"]: row for row in overridden}  # the newest decision wins
    kept, aside = [], list(report.overridden)
    prints = finding_fingerprints(repo, report.tip, report.findings)
    for f, fp in zip(report.findings, prints, strict=True):
        row = by_fp.get(fp)
        if row is None:
            kept.append(f)
            continue
        aside.append(
            SetAside(
                finding=f,
                fingerprint=fp,
                by="override",
                run_id=row["run_id"],
                actor=row["actor"],
                reason=row["reason"],
            )
        )
    if len(kept) == len(report.findings):
        return report
    verdict = report.verdict
    if verdict == verdict_for(report.findings):  # the findings made it: make it again
        verdict = verdict_for(kept)
    return report.model_copy(update={"findings": kept, "overridden": aside, "verdict": verdict})
