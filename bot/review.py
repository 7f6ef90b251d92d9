"""Findings → what the pull request shows: fingerprinted comments placed on the diff, the
review plan, the summary comment and the fallback annotations.  Pure: nothing is sent here
(``comments`` sends the plan); git objects are only read.

A comment sits on its claim's lines (the sentence holding ``[^n]``) and names the footnote's
definition line in its body.  A fingerprint is made from what a finding *is* (code, path,
footnote label and the hash of the quote it cites, else a hash of the message), never from
its line, so a rebase that moves a claim does not repost it.

Everything taken from the pull request (claims, quotes, messages quoting them) is escaped
before it reaches markdown: no mention, link, image or HTML comment of the author's can
appear in the bot's voice, nor a fingerprint marker the bot would take for its own.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import pygit2

from wikigate.gitrepo import changed_lines
from wikigate.models import Finding
from wikigate.verifier.citation import CitationSyntaxError, parse_definition, quote_hash
from wikigate.verifier.report import VerificationReport
from wikigate.verifier.reporters.fixes import fixed_line

MAX_INLINE = 30  # comments per review request (GitHub's and reviewdog's batch)
MAX_COMMENTS = 25  # review comments on one pull request: `[github] max_comments`
MAX_LISTED = 100  # findings listed in a review body; the rest are counted
SUMMARY_MARKER = "<!-- wikigate:summary -->"
REVIEW_MARKER = "<!-- wikigate:review -->"
HTML_MARKER = "<!-- wikigate:html -->"  # the summary's line that links the HTML report
REPLY_MARKER = "<!-- wikigate:reply -->"  # a reply to a command, a label or a review
_FP = re.compile(r"<!-- wikigate:fp=([0-9a-f]{16}) -->\s*\Z")
_LABEL = re.compile(r"\[\^([^\]\s]+)\]")
SUGGESTION_FENCE = "```suggestion"
LEVEL = {"critical": "error", "major": "warning", "minor": "notice"}


@dataclass(frozen=True)
class Footnote:
    """A footnote's definition as the pull request's head writes it."""

    label: str
    line: int
    text: str  # the definition's line, as written
    quote_hash: str  # of the quote it cites (of the raw text when it does not parse)
    crlf: bool = False  # the line ends in \r\n: no one-click suggestion replaces it


def label_of(f: Finding) -> str | None:
    found = _LABEL.search(f.message)
    return found.group(1) if found else None


def fingerprint(f: Finding, footnote: Footnote | None = None) -> str:
    label = label_of(f)
    if label is not None:
        what = f"label:{label}\0quote:{footnote.quote_hash if footnote else ''}"
    else:
        what = "message:" + _digest(f.message)
    return _digest(f"{f.code}\0{f.path or ''}\0{what}")[:16]


def fingerprint_in(body: str) -> str | None:
    """The fingerprint a comment of the bot carries (its last line), or None."""
    found = _FP.search(body)
    return found.group(1) if found else None


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def footnotes(
    repo: pygit2.Repository, tree: pygit2.Tree, findings: list[Finding]
) -> dict[tuple[str, str], Footnote]:
    """(path, label) → the definition of each footnote a finding names, read from ``tree``."""
    wanted: dict[str, set[str]] = {}
    for f in findings:
        label = label_of(f)
        if f.path is not None and label is not None:
            wanted.setdefault(f.path, set()).add(label)
    out: dict[tuple[str, str], Footnote] = {}
    for path, labels in wanted.items():
        try:
            blob = repo[tree[path].id]
        except KeyError:
            continue
        if not isinstance(blob, pygit2.Blob):
            continue
        # git's lines (\n only): a suggestion must name the line GitHub shows
        for n, raw in enumerate(blob.data.decode("utf-8", "replace").split("\n"), 1):
            line = raw.removesuffix("\r")
            head = line.lstrip(" ")
            if not head.startswith("[^") or "]:" not in head:
                continue
            label = head[2 : head.index("]:")]
            if label in labels and (path, label) not in out:
                out[(path, label)] = Footnote(
                    label, n, line, _quote_digest(head), crlf=raw.endswith("\r")
                )
    return out


def _quote_digest(definition: str) -> str:
    tail = definition[definition.index("]:") + 2 :]
    try:
        return quote_hash(parse_definition(tail).quote)
    except CitationSyntaxError:
        return _digest(tail.strip())


@dataclass(frozen=True)
class Comment:
    fingerprint: str
    path: str
    line: int | None  # None: a file-level comment
    body: str
    start_line: int | None = None  # the first line, when the comment spans lines

    def to_file(self, why: str) -> Comment:
        """This comment as a file-level one, saying which line it was meant for (a
        suggestion block, which applies to a line, shown as text)."""
        body = self.body.replace(f"\n{SUGGESTION_FENCE}\n", "\n```text\n")
        return replace(self, line=None, start_line=None, body=f"{why}\n\n{body}")


@dataclass
class ReviewPlan:
    inline: list[Comment] = field(default_factory=list)  # at most MAX_INLINE
    file_level: list[Comment] = field(default_factory=list)
    elsewhere: list[Finding] = field(default_factory=list)  # in the review body
    over_batch: list[Finding] = field(default_factory=list)  # on the diff, past MAX_INLINE
    # past `[github] max_comments` on the pull request: in the summary comment, never posted
    folded: list[Finding] = field(default_factory=list)
    wanted: set[str] = field(default_factory=set)  # every fingerprint the report holds
    limit: int = MAX_COMMENTS

    @property
    def empty(self) -> bool:
        return not (self.inline or self.file_level or self.elsewhere or self.over_batch)


def place(f: Finding, lines: set[int]) -> tuple[int, int | None] | None:
    """(line, start_line) of ``f``'s comment in a diff of ``lines``, else None.  The claim's
    lines first (the sentence holding ``[^n]``), else the finding's own line."""
    if f.claim_line is not None and f.claim_line in lines:
        start = f.claim_start_line
        if (
            start is not None
            and start < f.claim_line
            and lines.issuperset(range(start, f.claim_line))
        ):
            return f.claim_line, start
        return f.claim_line, None
    if f.line is not None and f.line in lines:
        return f.line, None
    return None


def plan_review(
    report: VerificationReport,
    diff: dict[str, set[int]],
    posted: set[str],
    notes: dict[tuple[str, str], Footnote] | None = None,
    max_comments: int = MAX_COMMENTS,
) -> ReviewPlan:
    """Place each finding not already ``posted``: on its claim's lines when the diff holds
    them, as a file-level comment on a changed file, else in the review body; 30 inline
    at most per review, the rest summarised in the body.  The pull request holds at most
    ``max_comments`` review comments (the bot's still-live ones count): past that, the
    rest is folded into the summary comment, as reviewdog does past its limit."""
    notes = notes or {}
    plan = ReviewPlan(limit=max_comments)
    fresh: list[tuple[Finding, str, Footnote | None]] = []
    for f in report.findings:
        note = notes.get((f.path or "", label_of(f) or ""))
        fp = fingerprint(f, note)
        if fp in plan.wanted:
            continue
        plan.wanted.add(fp)
        if fp not in posted:
            fresh.append((f, fp, note))
    room = max(0, max_comments - len(posted & plan.wanted))
    for f, fp, note in fresh:
        if f.path is None or f.path not in diff:
            plan.elsewhere.append(f)
            continue
        if room == 0:
            plan.folded.append(f)
            continue
        room -= 1
        fix = suggestion(f, note)
        at: tuple[int, int | None] | None
        if fix is not None and note is not None and note.line in diff[f.path]:
            at = (note.line, None)  # on the footnote's line: the suggestion replaces it
        else:
            fix, at = None, place(f, diff[f.path])  # the fix is shown as text
        if at is None:
            plan.file_level.append(Comment(fp, f.path, None, comment_body(f, fp, note)))
        elif len(plan.inline) < MAX_INLINE:
            line, start = at
            body = comment_body(f, fp, note, fix)
            plan.inline.append(Comment(fp, f.path, line, body, start))
        else:
            plan.over_batch.append(f)  # summarised in the body; a later run posts it
    return plan


def suggestion(f: Finding, note: Footnote | None) -> str | None:
    """The line that replaces ``note``'s definition line in a GitHub suggestion, or None:
    made only from the verifier's ``suggested_tail`` and the line as the head writes it,
    and only when that line is the finding's and safe in a suggestion block
    (``reporters.fixes``)."""
    if note is None or note.crlf or f.line != note.line:
        return None
    return fixed_line(f, note.text)


def comment_body(f: Finding, fp: str, note: Footnote | None = None, fix: str | None = None) -> str:
    """The claim, the footnote it cites (source and quote), what failed, how to fix;
    ``fix``: the comment sits on the footnote's line, which a suggestion block replaces."""
    lines = [f"**wikigate** {_code(f.code)} ({f.severity})"]
    if f.claim:
        lines += ["", "> " + inert(f.claim)]
    if note is not None:
        lines += ["", f"The footnote, line {note.line}:", "", _fenced(note.text)]
    lines += ["", f"**What failed:** {inert(f.message)}"]
    if f.hint:
        lines += ["", f"**How to fix:** {inert(f.hint)}"]
    if fix is not None and note is not None:
        lines += [
            "",
            f"The footnote with its correct anchor (as `wikigate anchor` prints it); "
            f"**Commit suggestion** replaces line {note.line}:",
            "",
            f"{SUGGESTION_FENCE}\n{fix}\n```",
        ]
    elif f.suggested_tail:
        label = note.label if note else (label_of(f) or "n")
        lines += [
            "",
            "The footnote with its correct anchor (as `wikigate anchor` prints it):",
            "",
            _fenced(f"[^{label}]: {f.suggested_tail}"),
        ]
    return "\n".join([*lines, "", f"<!-- wikigate:fp={fp} -->"])


def resolved_body(body: str, tip: str) -> str:
    """A comment whose finding is gone, kept because someone replied: marked resolved,
    its fingerprint dropped (so it is neither taken for live nor edited again)."""
    old = _FP.sub("", body).rstrip()
    quoted = "\n".join("> " + line if line else ">" for line in old.splitlines())
    return (
        f"**Resolved** at `{tip[:12]}`: wikigate no longer finds this.\n\n"
        f"<details><summary>the finding</summary>\n\n{quoted}\n\n</details>\n"
        "<!-- wikigate:resolved -->"
    )


def review_body(report: VerificationReport, plan: ReviewPlan) -> str:
    lines = [REVIEW_MARKER, f"wikigate: **{report.verdict}** ({_counts(report)})"]
    if plan.inline:
        lines += ["", f"{len(plan.inline)} comments on the lines below."]
    for title, found in (
        ("Findings not on a line of this diff:", plan.elsewhere),
        (
            f"More findings on the diff (over the {MAX_INLINE} comments one review holds; "
            "the next verification posts them):",
            plan.over_batch,
        ),
        (
            f"More findings on the diff, not posted as comments (this pull request holds at "
            f"most {plan.limit}: `[github] max_comments`; the summary comment lists them):",
            plan.folded,
        ),
    ):
        if found:
            lines += ["", title, ""]
            lines += [
                f"- {_where(f)}: {_code(f.code)} ({f.severity}): {inert(f.message)}"
                for f in found[:MAX_LISTED]
            ]
            if len(found) > MAX_LISTED:
                lines.append(f"- … and {len(found) - MAX_LISTED} more (see the check run)")
    return "\n".join(lines)


def summary_body(
    report: VerificationReport,
    outcome: str,
    folded: list[Finding] | None = None,
    limit: int = MAX_COMMENTS,
    questions: Sequence[str] = (),
    html: str | None = None,
    verdict: str | None = None,
    trunk: str = "the base branch",
) -> str:
    """The one summary comment per pull request, edited in place (found by its marker);
    ``folded``: the findings past ``[github] max_comments``, listed here instead; the
    report's next actions and blind spots, and ``questions``: what a person must answer;
    ``html``: the line linking the HTML report (:func:`html_line`); ``verdict``: the
    event's (a run waiting for a person, an override), else the verifier's: once a person
    decided, the steps asking for that decision are gone, and before, they speak of the
    pull request (wikigate/present.py ``answered``); ``trunk``: the branch it lands on."""
    from wikigate.present import DECIDED, answered

    s = report.summary
    landed = verdict in DECIDED and verdict != "reject_reviewed"
    steps = answered(report.next_actions, verdict, landed, trunk, pull_request=True)
    lines = [
        SUMMARY_MARKER,
        f"### wikigate: {verdict or report.verdict}",
        "",
        outcome,
        "",
        f"- findings: {_counts(report)}",
        f"- checked: {s.pages_checked} of {s.pages} pages, {s.citations} citations, "
        f"{s.anchors_verified} anchors verified, {s.links} links",
        f"- verified: head `{report.tip[:12]}` on base `{(report.base or '')[:12]}`, "
        f"strictness {report.strictness}",
    ]
    if html:
        lines.append(html)
    lines += page_states_section(report)
    for title, said, numbered in (
        ("Next", steps, True),
        ("Not ruled out", report.blind_spots, False),
        ("A person must answer", questions, False),
    ):
        if said:
            lines += ["", f"**{title}:**", ""]
            lines += [f"{f'{n}.' if numbered else '-'} {inert(s)}" for n, s in enumerate(said, 1)]
    if report.suppressed:
        lines += ["", f"{len(report.suppressed)} findings suppressed inline (not counted):", ""]
        lines += [
            f"- {_where(s.finding)}: {_code(s.finding.code)} ({s.finding.severity}): "
            f"reason: {inert(s.reason)}"
            for s in report.suppressed[:MAX_LISTED]
        ]
        if len(report.suppressed) > MAX_LISTED:
            lines.append(f"- … and {len(report.suppressed) - MAX_LISTED} more (see the report)")
    if folded:
        lines += [
            "",
            f"<details><summary>{len(folded)} more findings, not posted as review comments "
            f"(at most {limit} on a pull request: <code>[github] max_comments</code>)"
            "</summary>",
            "",
        ]
        lines += [
            f"- {_where(f)}: {_code(f.code)} ({f.severity}): {inert(f.message)}"
            for f in folded[:MAX_LISTED]
        ]
        if len(folded) > MAX_LISTED:
            lines.append(f"- … and {len(folded) - MAX_LISTED} more (see the check run)")
        lines += ["", "</details>"]
    return "\n".join(lines)


PATH_SHOWN = 200  # characters of a page's path in the states section


def page_states_section(report: VerificationReport) -> list[str]:
    """The summary's lines naming each page the pull request touches that is not fresh
    (stale, contested: the verification's own findings, wikigate/verifier/reporters/text.py
    ``page_states``), at most ``STATES_LISTED`` of them; none when every one is fresh."""
    from wikigate.verifier.reporters.text import STATES_LISTED, page_states, state_of

    states = page_states(report.findings)
    if not states:
        return []
    lines = ["", "**Pages this pull request touches that are not fresh:**", ""]
    for page, stale, contested in states[:STATES_LISTED]:
        cut = page if len(page) <= PATH_SHOWN else page[: PATH_SHOWN - 1] + "…"
        lines.append(f"- {shown(cut)}: {state_of(stale, contested)}")
    if len(states) > STATES_LISTED:
        lines.append(f"- … and {len(states) - STATES_LISTED} more")
    return lines


def html_line(artifact: str, run_url: str, download: str | None = None) -> str:
    """The summary's line for the HTML report: the artifact's own link once it is
    uploaded (``download``), before that the workflow run whose page lists it."""
    where = (
        f"[{artifact}]({download}) (download it and open the page inside in a browser)"
        if download
        else f"the `{artifact}` artifact of [this workflow run]({run_url})"
    )
    return f"- the HTML report: {where} {HTML_MARKER}"


def with_html(body: str, line: str) -> str:
    """``body`` (a summary comment) with its HTML report line replaced by ``line``, or
    ``line`` added after the summary's list when it had none."""
    lines = body.split("\n")
    for n, old in enumerate(lines):
        if HTML_MARKER in old:
            lines[n] = line
            return "\n".join(lines)
    for n, old in enumerate(lines):
        if old.startswith(("- verified: head `", "- head `")):  # and a summary of before
            lines.insert(n + 1, line)
            return "\n".join(lines)
    return f"{body}\n\n{line}"


STEP_SUMMARY_LIMIT = 1_000_000  # characters: GitHub takes 1 MiB of a step's summary


def every_finding(report: VerificationReport, limit: int = STEP_SUMMARY_LIMIT) -> str:
    """Every finding, one line each (where, code, severity, message, hint), for the job
    summary of a token that may not write to the pull request (a fork's): neither a review
    nor a check run can carry them, and Actions shows only the first few annotations of a
    step.  Past ``limit`` characters the rest are counted."""
    lines = [f"#### Findings ({len(report.findings)})", ""]
    size = sum(len(x) + 1 for x in lines)
    for n, f in enumerate(report.findings):
        hint = f" How to fix: {inert(f.hint)}" if f.hint else ""
        line = f"- {_where(f)}: {_code(f.code)} ({f.severity}): {inert(f.message)}{hint}"
        if size + len(line) + 200 > limit:
            lines.append(
                f"- … and {len(report.findings) - n} more (the job's `report` output holds "
                "every finding)"
            )
            break
        lines.append(line)
        size += len(line) + 1
    if not report.findings:
        lines.append("None.")
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


def diff_lines(
    repo: pygit2.Repository, base: pygit2.Tree, head: pygit2.Tree, paths: Iterable[str]
) -> dict[str, set[int]]:
    """path → the head-side lines a review comment may sit on (the hunks, context
    included), for ``paths`` (the findings'): a file of one of them that the change
    added or changed, binary files aside (``gitrepo.changed_lines``)."""
    found = changed_lines(repo, base, head, paths, context=3)
    return {path: lines for path, lines in found.items() if lines is not None}


# ---------------------------------------------------------------- markdown, made safe

_ACTIVE = re.compile(r"([\\`*_\[\]<>|~!#])")


def inert(untrusted: str) -> str:
    """Untrusted text as inert markdown on one line: markup escaped, mentions broken."""
    flat = " ".join(untrusted.split())
    return _unlinked(defused(_ACTIVE.sub(r"\\\1", flat)).replace("@", "&#64;"))


def _unlinked(text: str) -> str:
    """``://`` and ``www.`` broken by a zero-width space: GitHub autolinks neither."""
    return re.sub(r"(?i)(:)(//)|(www)(\.)", "\\1\\3\u200b\\2\\4", text)


_UNSEEN = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")


def plain(untrusted: str) -> str:
    """Writer-controlled text (a path, a label, a branch, a reason) made harmless in plain
    text: one line, every control, line-separator and invisible character written as
    ``\\uXXXX``, ``::`` broken (no workflow command can start), ``@`` broken (no mention),
    ``://`` and ``www.`` broken (no autolink)."""
    text = _UNSEEN.sub(lambda m: f"\\u{ord(m.group()):04x}", untrusted)
    return _unlinked(defused(text).replace("@", "@\u200b"))


def shown(untrusted: str) -> str:
    """Writer-controlled text as the bot shows it anywhere (a comment, a check run's title
    or summary, the step summary, the log): :func:`plain`, inside a code span."""
    return _code(plain(untrusted))


def defused(text: str) -> str:
    """``text`` with every ``::`` broken by a zero-width space: no line of it can be taken
    for a workflow command (``::warning``, ``::add-mask::``, ``::stop-commands::``)."""
    return re.sub(r":(?=:)", ":\u200b", text)


def fenced(untrusted: str) -> str:
    """A fenced block holding ``untrusted`` (multi-line text such as an error): nothing in
    it mentions, links or renders; ``::`` broken."""
    return _fenced(defused(untrusted).replace("@", "@\u200b"))


def _code(untrusted: str) -> str:
    """A code span that holds ``untrusted`` whole, whatever backticks it contains."""
    flat = " ".join(untrusted.split())
    ticks = "`" * (max((len(r) for r in re.findall(r"`+", flat)), default=0) + 1)
    return f"{ticks} {flat} {ticks}"


def _fenced(untrusted: str) -> str:
    """A fenced block that holds ``untrusted`` whole (its fence longer than any run inside)."""
    fence = "`" * max(3, max((len(r) for r in re.findall(r"`+", untrusted)), default=0) + 1)
    return f"{fence}text\n{untrusted}\n{fence}"


def _counts(report: VerificationReport) -> str:
    c = report.counts()
    return f"{c['critical']} critical, {c['major']} major, {c['minor']} minor"


def _where(f: Finding) -> str:
    return shown((f.path or "(run)") + (f":{f.line}" if f.line else ""))


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")
