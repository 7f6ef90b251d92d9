"""``[presentation]``: how the wiki reads, checked per change.  The ``avoid`` list (no line the
change adds may hold one of its phrases, page.avoid) and the ``preserve`` list (a changed
page keeps the phrases and headings it had, page.preserve) are checked here,
deterministically; the voice and register are the LLM judge's (runs.check_direction).

Also what new rules would say of the pages a change leaves (``pages_failing``): the rules
change check (runs.py, run.rules_followup) names the pages a follow-up change must fix.
"""

from __future__ import annotations

import collections
import re
from collections.abc import Iterable

from wikigate.codes import finding
from wikigate.config import Config, PresentationSection
from wikigate.models import Finding
from wikigate.text import plural, shown

from ..wiki import WikiTree
from .context import Context


def _pattern(phrase: str) -> re.Pattern[str]:
    """A phrase, case-insensitively, as whole words, any run of white space (a line break
    too) between them."""
    words = [re.escape(w) for w in phrase.split()]
    return re.compile(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)", re.IGNORECASE)


def _heading(line: str) -> str | None:
    """A heading line (``## Sources``): its level and words, folded; None for other lines.
    Read without a regular expression: linear on any line."""
    text = line.strip()
    level = len(text) - len(text.lstrip("#"))
    if not 1 <= level <= 6 or len(text) == level or not text[level].isspace():
        return None
    rest = text[level:]
    closed = rest.rstrip("#")
    if closed != rest and (not closed or closed[-1].isspace()):  # a closing sequence
        rest = closed
    return f"{'#' * level} {' '.join(rest.split()).casefold()}"


# a footnote's definition: its quote is the source's words, verbatim, never the writer's
_NOTE = re.compile(r" {0,3}\[\^[^\]\n]+\]:")


def _lines(text: str) -> list[str]:
    return text.split("\n")


def added_lines(old: str, new: str) -> list[tuple[int, str]]:
    """The lines of ``new`` that ``old`` does not hold (each old line matches one new line
    once), with their numbers: linear in both texts, whatever they hold."""
    left = collections.Counter(_lines(old))
    out = []
    for n, line in enumerate(_lines(new), 1):
        if left[line] > 0:
            left[line] -= 1
        else:
            out.append((n, line))
    return out


def avoided(spec: PresentationSection, text: str, lines: Iterable[int]) -> list[tuple[int, str]]:
    """(line, phrase) for each place an ``avoid`` phrase of ``text`` touches one of
    ``lines`` (a phrase broken over lines counts where it touches an added one), in line
    order: one scan of the text a phrase.  Matched in the text a reader sees, hidden text
    too (reading.read: markup, entities, breaks, look-alikes; code and comments read).
    Footnote definitions are left out by the callers: a quote holds the source's words."""
    wanted = set(lines)
    if not wanted or not spec.avoid:
        return []
    from .reading import fold, read  # its patterns compiled only where rules ask for it

    seen = read(text, hidden=True)
    out: set[tuple[int, str]] = set()
    for phrase in spec.avoid:
        for m in _pattern(fold(phrase)).finditer(seen.text):
            first, last = seen.line(m.start()), seen.line(max(m.start(), m.end() - 1))
            hit = next((n for n in range(first, last + 1) if n in wanted), None)
            if hit is not None:
                out.add((hit, phrase))
    return sorted(out)


def kept(spec: PresentationSection, text: str) -> dict[str, int]:
    """The ``preserve`` entries ``text`` holds, each with the first line holding it, in the
    text a reader sees (reading.read: not in code, not in comments; a heading is one the
    page renders, in markdown or HTML, whatever its markup)."""
    from .reading import fold, read

    out: dict[str, int] = {}
    wanted = {p: _heading(fold(p)) for p in spec.preserve}
    if not wanted:
        return out
    seen = read(text, hidden=False)
    headings = {h: p for p, h in wanted.items() if h is not None}
    for h in seen.headings:
        entry = headings.get(f"{'#' * h.level} {h.text}")
        if entry is not None:
            out.setdefault(entry, h.line)
    for phrase, heading in wanted.items():
        if heading is not None:
            continue
        m = _pattern(fold(phrase)).search(seen.text)
        if m is not None:
            out[phrase] = seen.line(m.start())
    return out


def check_presentation(ctx: Context) -> list[Finding]:
    """The ``avoid`` and ``preserve`` lists against the pages the change touches."""
    spec = ctx.config.presentation
    if ctx.base is None or not (spec.avoid or spec.preserve):
        return []
    base, tip = ctx.base, ctx.tip
    wiki = set(tip.pages) | set(base.pages)
    out: list[Finding] = []
    for path in ctx.changed():
        if path not in wiki or not path.endswith(".md"):
            continue
        old = base.text_or_empty(path)
        new = tip.text_or_empty(path)
        if spec.avoid and path in tip.entries:
            added = [n for n, line in added_lines(old, new) if not _NOTE.match(line)]
            for n, phrase in avoided(spec, new, added):
                out.append(
                    finding(
                        "page.avoid",
                        path,
                        n,
                        f"the line holds {phrase!r}, which [presentation] avoid lists",
                    )
                )
        if spec.preserve and path in base.entries:
            had = kept(spec, old)
            now = kept(spec, new) if had and path in tip.entries else {}
            for phrase, line in had.items():
                if phrase in now:
                    continue
                what = "deletes the page, and with it" if path not in tip.entries else "drops"
                out.append(
                    finding(
                        "page.preserve",
                        path,
                        None if path not in tip.entries else line_in(new, line),
                        f"the change {what} {phrase!r} (line {line} of the base), which "
                        "[presentation] preserve keeps on a page that has it",
                    )
                )
    return out


def line_in(text: str, line: int) -> int:
    """``line`` of the base, as a line of ``text`` (its last when it is shorter)."""
    return min(line, max(1, text.count("\n") + 1))


def pages_failing(tree: WikiTree, old: Config, new: Config) -> dict[str, list[str]]:
    """The pages of ``tree`` that the ``new`` rules' ``[gap_policy]``, ``[presentation]
    avoid`` and ``[ledger] frozen`` find fault with and the ``old`` ones did not: page →
    what fails, one short line each.  Only the sections that differ are read."""
    out: dict[str, list[str]] = {}

    def add(page: str, what: str) -> None:
        out.setdefault(page, []).append(what)

    gaps = old.gap_policy != new.gap_policy
    avoid = [p for p in new.presentation.avoid if p not in old.presentation.avoid]
    if gaps or avoid:
        spec = PresentationSection(avoid=avoid)
        for path in tree.pages:
            if gaps:
                parsed = tree.page(path)
                count = len(parsed.gaps) if parsed is not None else 0
                was = _gap_fault(old, count)
                now = _gap_fault(new, count)
                if now is not None and was is None:
                    add(path, now)
            if avoid:
                text = tree.text_or_empty(path)
                seen: dict[str, int] = {}
                prose = [n for n, line in enumerate(_lines(text), 1) if not _NOTE.match(line)]
                for n, phrase in avoided(spec, text, prose):
                    seen.setdefault(phrase, n)
                for phrase, n in seen.items():
                    add(path, f"holds {phrase!r} (line {n}), which [presentation] avoid lists")
    for item in new.ledger.frozen:
        if item in old.ledger.frozen:
            continue
        page, hashed, label = item.partition("#^")
        if page.endswith("/"):
            if not any(p.startswith(page) for p in tree.pages):
                add(page, f"{item!r} in [ledger] frozen names a folder with no pages")
        elif page not in tree.entries:
            add(page, f"{item!r} in [ledger] frozen names a page that does not exist")
        elif hashed:
            from ..claims import page_claims

            if label not in {c.label for c in page_claims(tree.page(page))}:
                add(page, f"{item!r} in [ledger] frozen names no cited claim of the page")
    return out


def _gap_fault(rules: Config, count: int) -> str | None:
    policy = rules.gap_policy
    if count and not policy.allowed:
        return f"{plural(count, 'gap marker')}, which [gap_policy] allowed = false forbids"
    cap = policy.max_per_page
    if cap is not None and count > cap:
        return f"{plural(count, 'gap marker')}, past [gap_policy] max_per_page = {cap}"
    return None


def followup_message(failing: dict[str, list[str]], limit: int = 20) -> str:
    """The pages a follow-up change must fix, and why, within ``limit`` pages."""
    named = [f"{shown(p)} ({'; '.join(w)})" for p, w in sorted(failing.items())[:limit]]
    more = len(failing) - limit
    return "; ".join(named) + (f"; and {more} more pages" if more > 0 else "")
