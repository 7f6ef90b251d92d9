"""Findings → what the pull request shows: fingerprinted comments placed on the diff, the
review plan, the summary comment and the fallback annotations.  Pure: nothing is sent here.

A fingerprint is made from what a finding *is* (code, path, footnote label, else a hash of
the message), never from its line, so a rebase that moves a claim does not repost it.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

import pygit2

from wikigate.models import Finding
from wikigate.verifier.report import VerificationReport

MAX_INLINE = 30  # comments per review request (GitHub's and reviewdog's batch)
SUMMARY_MARKER = "<!-- wikigate:summary -->"
_FP = re.compile(r"<!-- wikigate:fp=([0-9a-f]{16}) -->")
_LABEL = re.compile(r"\[\^([^\]\s]+)\]")
LEVEL = {"critical": "error", "major": "warning", "minor": "notice"}


def fingerprint(f: Finding) -> str:
    label = _LABEL.search(f.message)
    what = f"label:{label.group(1)}" if label else "message:" + _digest(f.message)
    return _digest(f"{f.code}\0{f.path or ''}\0{what}")[:16]


def fingerprint_in(body: str) -> str | None:
    """The fingerprint a comment of the bot carries, or None (a person's comment)."""
    found = _FP.search(body)
    return found.group(1) if found else None


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Comment:
    fingerprint: str
    path: str
    line: int | None  # None: a file-level comment
    body: str


@dataclass
class ReviewPlan:
    inline: list[Comment] = field(default_factory=list)  # at most MAX_INLINE
    file_level: list[Comment] = field(default_factory=list)
    elsewhere: list[Finding] = field(default_factory=list)  # in the review body
    wanted: set[str] = field(default_factory=set)  # every fingerprint the report holds

    @property
    def empty(self) -> bool:
        return not (self.inline or self.file_level or self.elsewhere)


def comment_body(f: Finding, fp: str) -> str:
    lines = [f"**wikigate** `{f.code}` ({f.severity}): {f.message}"]
    if f.claim:
        lines += ["", f"> {f.claim}"]
    if f.hint:
        lines += ["", f"hint: {f.hint}"]
    return "\n".join([*lines, "", f"<!-- wikigate:fp={fp} -->"])


def diff_lines(
    repo: pygit2.Repository, base: pygit2.Tree, head: pygit2.Tree
) -> dict[str, set[int]]:
    """path → the head-side lines a review comment may sit on (the hunks, context included)."""
    out: dict[str, set[int]] = {}
    for patch in base.diff_to_tree(head, context_lines=3):
        if patch is None or patch.delta.is_binary:
            continue
        lines = out.setdefault(patch.delta.new_file.path, set())
        for hunk in patch.hunks:
            lines.update(ln.new_lineno for ln in hunk.lines if ln.new_lineno > 0)
    return out


def plan_review(
    report: VerificationReport, diff: dict[str, set[int]], posted: set[str]
) -> ReviewPlan:
    """Place each finding not already ``posted``: on its line when the diff holds it, as a
    file-level comment on a changed file, else in the review body; 30 inline at most."""
    plan = ReviewPlan()
    for f in report.findings:
        fp = fingerprint(f)
        if fp in plan.wanted:
            continue
        plan.wanted.add(fp)
        if fp in posted:
            continue
        if f.path is None or f.path not in diff:
            plan.elsewhere.append(f)
        elif f.line is not None and f.line in diff[f.path] and len(plan.inline) < MAX_INLINE:
            plan.inline.append(Comment(fp, f.path, f.line, comment_body(f, fp)))
        elif f.line is not None and f.line in diff[f.path]:
            plan.elsewhere.append(f)  # over the batch: summarised in the body
        else:
            plan.file_level.append(Comment(fp, f.path, None, comment_body(f, fp)))
    return plan


def review_body(report: VerificationReport, plan: ReviewPlan) -> str:
    lines = [f"wikigate: **{report.verdict}** ({_counts(report)})"]
    if plan.elsewhere:
        lines += ["", "Findings not on a line of this diff:", ""]
        lines += [f"- {_where(f)}: `{f.code}` ({f.severity}): {f.message}" for f in plan.elsewhere]
    return "\n".join(lines)


def summary_body(report: VerificationReport, outcome: str) -> str:
    """The one summary comment per pull request, edited in place (found by its marker)."""
    s = report.summary
    lines = [
        SUMMARY_MARKER,
        f"### wikigate: {report.verdict}",
        "",
        outcome,
        "",
        f"- findings: {_counts(report)}",
        f"- checked: {s.pages_checked} of {s.pages} pages, {s.citations} citations, "
        f"{s.anchors_verified} anchors verified, {s.links} links",
        f"- head `{report.tip[:12]}`, base `{(report.base or '')[:12]}`, "
        f"strictness {report.strictness}",
    ]
    return "\n".join(lines)


def workflow_commands(report: VerificationReport) -> list[str]:
    """Workflow commands (``::error file=…,line=…::``): the fallback when the token may
    not write to the pull request."""
    out = []
    for f in report.findings:
        props = [f"file={_escape_property(f.path)}"] if f.path else []
        if f.path and f.line:
            props.append(f"line={f.line}")
        props.append(f"title={_escape_property('wikigate ' + f.code)}")
        out.append(f"::{LEVEL[f.severity]} {','.join(props)}::{_escape_data(f.message)}")
    return out


def _counts(report: VerificationReport) -> str:
    c = report.counts()
    return f"{c['critical']} critical, {c['major']} major, {c['minor']} minor"


def _where(f: Finding) -> str:
    return (f.path or "(run)") + (f":{f.line}" if f.line else "")


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")
