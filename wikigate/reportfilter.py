"""``wikigate verify --filter MODE``: which findings a branch verification reports, as
reviewdog's ``-filter-mode`` does (https://github.com/reviewdog/reviewdog#filter-mode).

- ``added``: findings on lines the change added or modified;
- ``diff_context``: findings on the lines of the diff's hunks (3 lines of context);
- ``file``: findings in files the change added or modified;
- ``nofilter`` (the default, as before): every finding.

A finding about the run (no path) is always reported; one without a line is reported when
its file is changed (every mode but none). A finding's lines are its claim's (the line
holding ``[^n]``) and its own (a footnote's definition): either in the diff keeps it.

The filter is for reporting only: **the verdict is the whole change's**, hidden findings
included (a display filter never lands a critical); the report counts what it hid
(``filtered``) and the text says so next to the verdict.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .kinds import FILTER_MODES, FilterMode

if TYPE_CHECKING:
    import pygit2

    from .models import Finding
    from .verifier.report import VerificationReport

__all__ = ["FILTER_MODES", "FilterMode", "apply_filter"]
CONTEXT_LINES = 3  # git's and reviewdog's default


def apply_filter(
    report: VerificationReport, repo: pygit2.Repository, mode: str
) -> VerificationReport:
    """``report`` with only the findings ``mode`` keeps; the verdict unchanged, what was
    hidden counted in ``filtered``."""
    from .gitrepo import commit_at
    from .verifier.report import Filtered

    if mode == "nofilter":
        return report
    if report.base is None:
        raise ValueError("a filter applies to a change: a report with a base")
    paths = {f.path for f in report.findings if f.path is not None}
    base, tip = commit_at(repo, report.base).tree, commit_at(repo, report.tip).tree
    lines = _changed(repo, base, tip, paths, mode)
    kept: list[Finding] = []
    hidden = {"critical": 0, "major": 0, "minor": 0}
    for f in report.findings:
        if _keeps(f, lines):
            kept.append(f)
        else:
            hidden[f.severity] += 1
    return report.model_copy(
        update={"findings": kept, "filtered": Filtered(mode=mode, hidden=hidden)}
    )


def _keeps(f: Finding, lines: dict[str, set[int] | None]) -> bool:
    if f.path is None:
        return True  # the run's own findings are about the change
    if f.path not in lines:
        return False
    wanted = lines[f.path]
    if wanted is None or (f.line is None and f.claim_line is None):
        return True  # mode file, or a finding on the file as a whole
    return any(n is not None and n in wanted for n in (f.claim_line, f.line))


def _changed(
    repo: pygit2.Repository,
    base: pygit2.Tree,
    tip: pygit2.Tree,
    paths: set[str],
    mode: str,
) -> dict[str, set[int] | None]:
    """path → the tip's lines ``mode`` keeps (None: the whole file), for the findings'
    paths the change added or modified. Only these paths are diffed: a tree naming itself
    over and over spells millions of paths, and diffing them all would cost minutes."""
    from .gitrepo import changed_lines

    if mode == "file":
        return dict.fromkeys(changed_lines(repo, base, tip, paths, context=0))
    return changed_lines(
        repo,
        base,
        tip,
        paths,
        context=CONTEXT_LINES if mode == "diff_context" else 0,
        added_only=mode != "diff_context",
    )
