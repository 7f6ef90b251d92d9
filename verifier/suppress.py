"""Inline suppressions: one finding set aside on the line it applies to.

A page may carry, on the line of the finding (or on a line of its own just above it)::

    The council met in 1962. <!-- wikigate: ignore page.unsupported_statement reason="the minutes are lost" -->

The comment is found among the page's markdown-it tokens (an inline or block HTML comment,
never a match over the markdown text: a comment inside a code span or block is text). It
sets aside the findings of that code on that page whose line (or the claim's lines) is the
line it applies to: listed in the report's ``suppressed`` with the reason, not counted.

A suppression is itself a finding (``suppression.invalid``, major) when it has no reason,
names an unknown code, a suppression code or one that other pages raise (``link.broken``,
``page.orphan``: ``ELSEWHERE``), is malformed, or names a finding that is
critical there, unless the base's rules allow it (``[verifier] suppress_critical = true``):
then the critical finding stays. The pages read are those with findings and, for a change,
the pages it changes (where a new suppression can appear).

The writer is untrusted, so a suppression counts only when a person accepted it: for a
change, one the base's version of the page does not hold (the same code and reason, the
same paragraph around it, byte for byte) is new, and a new
suppression sets a finding aside only with a finding of its own, ``suppression.added``
(it asks a person: needs_human_review), naming what it would set aside; a person's word
(``verify approve``, the server's recorded override, the maintainer's label) lands it,
and from then on it is on the base and counts. A suppression that applies to nothing (an
own-line comment followed by a blank line, a finding since fixed) is
``suppression.unused`` (minor), so a person sees it.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from wikigate.codes import CODES, finding
from wikigate.models import Finding, fingerprint

if TYPE_CHECKING:
    from .checks.context import Context
    from .report import SetAside

CODE = "suppression.invalid"
ADDED = "suppression.added"
UNUSED = "suppression.unused"
_NEWLINE = re.compile(r"\r\n|\r|\n")  # markdown-it's lines (never str.splitlines: U+2028…)
_MARK = re.compile(r"<!--\s*wikigate\s*:", re.IGNORECASE)
_SUPPRESSION = re.compile(
    r'<!--\s*wikigate\s*:\s*ignore\s+(?P<code>[^\s"]+)(?:\s+reason="(?P<reason>[^"]*)")?\s*-->\Z'
)
MAX_PER_PAGE = 1000  # suppressions read on one page; past it, a finding says so
# findings another page's change can raise on an untouched line: an accepted suppression
# of them would cover what nobody accepted (a heading deleted elsewhere, hostile review)
ELSEWHERE = frozenset({"link.broken", "page.orphan"})


@dataclass(frozen=True)
class Suppression:
    line: int  # the line it applies to (1-based)
    at: int  # the line the comment is on
    code: str
    reason: str


def read(text: str) -> tuple[list[Suppression], list[tuple[int, str]]]:
    """A page's suppressions, and its malformed ones: (line, why)."""
    from .markdown import markdown

    found: list[Suppression] = []
    bad: list[tuple[int, str]] = []

    def take(comment: str, at: int, applies: int) -> None:
        comment = comment.strip()
        if not _MARK.match(comment):
            return
        if len(found) + len(bad) >= MAX_PER_PAGE:
            if len(bad) == 0 or bad[-1][1] != "too many":
                bad.append((at, "too many"))
            return
        m = _SUPPRESSION.match(comment)
        if m is None:
            bad.append((at, 'malformed: write <!-- wikigate: ignore CODE reason="WHY" -->'))
            return
        code, reason = m.group("code"), (m.group("reason") or "").strip()
        if code not in CODES:
            bad.append((at, f"names {code!r}, which is no finding code (docs/checks.md)"))
        elif code in (CODE, ADDED, UNUSED):  # a suppression's own findings: a person's
            bad.append((at, f"{code} cannot be suppressed"))
        elif code in ELSEWHERE:
            bad.append(
                (
                    at,
                    f"cannot set aside {code}: it arises from other pages, which a later change "
                    "may break with this line untouched; a person's override covers it",
                )
            )
        elif not reason:
            bad.append((at, f'suppresses {code} without a reason: add reason="why"'))
        else:
            found.append(Suppression(applies, at, code, reason))

    for tok in markdown().parse(text):
        if tok.map is None:
            continue
        if tok.type == "html_block":
            # a comment on a line of its own: it applies to the line after it
            take(tok.content, tok.map[0] + 1, tok.map[1] + 1)
        elif tok.type == "inline":
            line = tok.map[0] + 1
            for child in tok.children or []:
                if child.type in ("softbreak", "hardbreak"):
                    line += 1
                elif child.type == "html_inline":
                    take(child.content, line, line)
                elif child.type in ("text", "code_inline"):
                    line += child.content.count("\n")
    return found, bad


MAX_SPAN = 64  # lines of one claim's sentence looked up; past it only its ends


def _covering(f: Finding, by_line: dict[tuple[str, int], Suppression]) -> Suppression | None:
    """The suppression of ``f``'s code on its line or its claim's lines, if any: looked up
    by line, so a page of many findings and suppressions costs their sum, not product."""
    lines = [n for n in (f.line, f.claim_line) if n is not None]
    start, end = f.claim_start_line, f.claim_line
    if start is not None and end is not None and 0 < end - start <= MAX_SPAN:
        lines += range(start, end)
    for n in lines:
        found = by_line.get((f.code, n))
        if found is not None:
            return found
    return None


class _Paragraphs:
    """A page's paragraphs (lines between blank lines), each one's text digested once:
    what a person accepted with a suppression on one of its lines (a claim's sentence may
    span lines). Every line is read once, however many suppressions the page holds."""

    def __init__(self, text: str) -> None:
        self.lines = _NEWLINE.split(text)
        self.starts: list[int] = []  # each line's paragraph, by its first line
        first = 0
        for n, line in enumerate(self.lines):
            if not line.strip():
                first = n + 1
            self.starts.append(first)
        self.digests: dict[int, str] = {}
        self._notes: str | None = None

    def notes(self) -> str:
        """The digest of the page's footnote definitions (a line starting ``[^`` and the
        indented lines after it): what a citation finding on a claim line also depends on."""
        if self._notes is None:
            kept, inside = [], False
            for line in self.lines:
                inside = line.startswith("[^") or (inside and line[:1] in (" ", "\t"))
                if inside:
                    kept.append(line)
            text = "\n".join(kept)
            self._notes = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        return self._notes

    def key(self, s: Suppression) -> tuple[str, str, str, str]:
        """The code, the reason and the digest of the paragraph of the line ``s`` applies
        to, as written, comments and line breaks included: changing any of it (a sentence
        slipped in before the comment, the comment copied to another line, the paragraph
        re-wrapped) makes the suppression new again."""
        n = s.line - 1
        # a citation's or a claim's finding depends on the footnote it cites too: a quote
        # swapped in the definition below must not stay covered (hostile review)
        notes = self.notes() if s.code.startswith(("citation.", "claim.")) else ""
        if not 0 <= n < len(self.lines):
            return s.code, s.reason, "", notes
        first = self.starts[n]
        if first not in self.digests:
            last = first
            while last + 1 < len(self.lines) and self.starts[last + 1] == first:
                last += 1
            text = "\n".join(self.lines[first : last + 1])
            self.digests[first] = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        return s.code, s.reason, self.digests[first], notes


def _accepted(ctx: Context, path: str) -> Counter[tuple[str, str, str, str]]:
    """The suppressions the base's version of ``path`` holds, each as often as it holds
    it: a person accepted those (a copy of one more is new)."""
    if ctx.base is None:
        return Counter()
    text, _ = ctx.base.page_text(path) if path in ctx.base.entries else (None, None)
    if text is None or not _MARK.search(text):
        return Counter()
    paragraphs = _Paragraphs(text)
    return Counter(paragraphs.key(s) for s in read(text)[0])


def apply(ctx: Context, findings: list[Finding]) -> tuple[list[Finding], list[SetAside]]:
    """``findings`` without those an inline suppression covers, plus the suppressions'
    own findings; and the findings set aside. In lint mode (``verify --all``, main's
    content) every suppression was landed by a person; for a change, a new one asks one."""
    from .report import SetAside

    pages = set(ctx.tip.pages)
    wanted = {f.path for f in findings if f.path in pages}
    if not ctx.lint:
        wanted.update(p for p in ctx.changed() if p in pages)
    kept: list[Finding] = []
    aside: list[SetAside] = []
    extra: list[Finding] = []
    by_page: dict[str, dict[tuple[str, int], Suppression]] = {}
    changed = set() if ctx.lint else set(ctx.changed())  # an unchanged page's: on the base
    new: set[tuple[str, Suppression]] = set()
    for path in sorted(p for p in wanted if p is not None):
        text, _ = ctx.tip.page_text(path)
        if text is None or not _MARK.search(text):
            continue
        found, bad = read(text)
        by_page[path] = {}
        judged = (_accepted(ctx, path), _Paragraphs(text)) if path in changed else None
        for one in found:  # the first of one code on one line
            by_page[path].setdefault((one.code, one.line), one)
            if judged is not None:
                key = judged[1].key(one)
                if judged[0][key] > 0:
                    judged[0][key] -= 1  # one accepted copy used
                else:
                    new.add((path, one))
        for at, why in bad:
            why = f"more than {MAX_PER_PAGE} suppressions on one page" if why == "too many" else why
            extra.append(finding(CODE, path, at, f"the inline suppression {why}"))
    allow_critical = ctx.config.verifier.suppress_critical
    refused: set[tuple[str, Suppression]] = set()
    used: set[tuple[str, Suppression]] = set()
    would: dict[tuple[str, Suppression], list[Finding]] = {}
    for f in findings:
        s = _covering(f, by_page[f.path]) if f.path is not None and f.path in by_page else None
        if s is None or f.path is None:
            kept.append(f)
            continue
        used.add((f.path, s))
        if f.severity == "critical" and not allow_critical:
            kept.append(f)
            if (f.path, s) not in refused:
                refused.add((f.path, s))
                extra.append(
                    finding(
                        CODE,
                        f.path,
                        s.at,
                        f"the inline suppression of {s.code} is refused: the finding is "
                        "critical, and the rules do not allow suppressing critical findings",
                        hint="fix the finding; or a maintainer sets [verifier] "
                        "suppress_critical = true in wikigate.toml",
                    )
                )
            continue
        aside.append(
            SetAside(finding=f, fingerprint=fingerprint(f), by="suppression", reason=s.reason)
        )
        if (f.path, s) in new:
            would.setdefault((f.path, s), []).append(f)
    for path, table in sorted(by_page.items()):
        for s in sorted(set(table.values()), key=lambda s: (s.at, s.code)):
            if (path, s) not in used:
                extra.append(
                    finding(
                        UNUSED,
                        path,
                        s.at,
                        f"the inline suppression of {s.code} applies to nothing: no {s.code} "
                        f"finding on line {s.line}",
                    )
                )
            if (path, s) in new and (path, s) not in refused:
                what = would.get((path, s), [])
                named = "; ".join(f"line {f.line or '-'}: {f.message}" for f in what[:3])
                if len(what) > 3:
                    named += f"; and {len(what) - 3} more"
                extra.append(
                    finding(
                        ADDED,
                        path,
                        s.at,
                        f"a new inline suppression of {s.code} (reason: {s.reason!r}) sets "
                        + (f"aside {named}" if what else "aside nothing yet")
                        + ": it counts once a person accepts it",
                    )
                )
    adjusted = []
    for f in extra:  # [verifier.severity] applies to these findings too
        severity = ctx.severity(f)
        if severity != "off":
            adjusted.append(f.model_copy(update={"severity": severity}))
    return kept + adjusted, aside
