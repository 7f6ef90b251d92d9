"""A verification (or the claim ledger) as one self-contained HTML page.

Every page shown is rendered from its markdown (raw HTML disabled) with each cited claim
highlighted by its status: ``fail`` (a critical finding on it, a claim the change removed
or altered, or the judge's contradicts / unsupported), ``warn`` (any other finding on it,
a reworded claim, the judge's partial / inconclusive / flaky, an unanchored quote),
``frozen`` (a ``[ledger] frozen`` entry covers it), ``pass``; besides them the ``gap``
markers and the ``uncited`` statements.  Beside each claim: its quote in its source with
the text around it, the anchor and hash, the judge's vote and evidence, the findings on it
and their fix.  A findings list links to each spot; filters by status, code and page and
j / k move between the claims.

``HtmlReporter()`` in the reporters' table renders from the report alone (findings,
claim checks, votes; no page bodies); ``HtmlReporter(pages)`` with the pages as
``page_views`` reads them from git.  Everything from the report or the pages is escaped
(wikigate/htmlpage.py).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from wikigate.htmlpage import CLOSE, END, MARKERS, START, esc, markdown_html, page

if TYPE_CHECKING:
    import pygit2

    from wikigate.models import Finding

    from ..report import VerificationReport

STATUSES = ("fail", "warn", "frozen", "pass", "gap", "uncited")
RANK = {s: n for n, s in enumerate(STATUSES)}
FAILING_VOTES = frozenset({"contradicts", "unsupported"})
DOUBTFUL_VOTES = frozenset({"partial", "inconclusive", "flaky"})
WINDOW = 160  # characters of the source shown on each side of a quote
MAX_BODIES = 500  # pages rendered with their text; past it (a whole-wiki verify) cards only


# what a claim's view shows of its citation, as the page's claim (claims.PageClaim) has it
CITATION_FIELDS = ("label", "source", "pdf_page", "quote", "offset", "sha256")


@dataclass
class ClaimView:
    """One highlighted spot of a page: a cited claim, a gap marker or an uncited statement."""

    kind: str  # claim | gap | uncited
    page: str
    line: int
    text: str
    label: str = ""
    source: str = ""
    pdf_page: int | None = None
    quote: str = ""
    offset: int | None = None
    sha256: str | None = None
    window: tuple[str, str, str] | None = None  # before, the quote, after
    window_note: str = ""
    status: str = "pass"
    reasons: list[str] = field(default_factory=list)
    vote: str | None = None
    vote_reason: str = ""
    evidence: str = ""
    findings: list[Finding] = field(default_factory=list)
    start_line: int | None = None
    definition_line: int | None = None
    key: str = ""  # the element id

    @property
    def claim_id(self) -> str:
        return f"{self.page}#^{self.label}" if self.kind == "claim" else ""


@dataclass
class PageView:
    path: str
    text: str | None  # the page's markdown; None: deleted, or not read
    spots: list[ClaimView] = field(default_factory=list)
    note: str = "not in this commit (deleted, or not read)"  # shown when there is no text


# ---------------------------------------------------------------- reading the pages


def page_views(
    repo: pygit2.Repository, commit: pygit2.Commit, paths: Iterable[str]
) -> list[PageView]:
    """The pages at ``commit`` (a path not there: a deleted page, no body), each with its
    cited claims, gap markers and uncited statements; each quote with its source's text
    around it (a text source read from the same commit)."""
    from wikigate import gitrepo

    from ..claims import page_claims
    from ..markdown import parse_page

    tree = commit.tree
    sources: dict[str, str | None] = {}
    out: list[PageView] = []
    for n, path in enumerate(sorted(set(paths))):
        if n >= MAX_BODIES:
            out.append(PageView(path, None, note=f"not read: past the first {MAX_BODIES} pages"))
            continue
        data = gitrepo.read_blob(repo, tree, path)
        if data is None:
            out.append(PageView(path, None))
            continue
        text = data.decode("utf-8", errors="replace")
        try:
            parsed = parse_page(path, text)
        except ValueError:  # past the parser's limits: shown as it is, no spots
            out.append(PageView(path, text))
            continue
        definitions: dict[str, int] = {}
        for d in parsed.definitions:
            definitions.setdefault(d.label, d.line)
        starts = {r.label: r.start_line for r in parsed.refs}
        spots: list[ClaimView] = []
        for c in page_claims(parsed):
            spot = ClaimView(
                "claim",
                path,
                c.line,
                c.sentence,
                start_line=starts.get(c.label),
                definition_line=definitions.get(c.label),
                **{name: getattr(c, name) for name in CITATION_FIELDS},
            )
            if c.offset is None:
                spot.status = "warn"
                spot.reasons.append("no anchor: the quote's place in its source is not recorded")
            _window(repo, tree, spot, sources)
            spots.append(spot)
        spots += [ClaimView("gap", path, ln, why, status="gap") for ln, why in parsed.gaps]
        spots += [
            ClaimView("uncited", path, s.line, s.text, status="uncited")
            for s in parsed.statements
            if not s.covered
        ]
        out.append(PageView(path, text, spots))
    return out


def _window(
    repo: pygit2.Repository, tree: pygit2.Tree, spot: ClaimView, sources: dict[str, str | None]
) -> None:
    from wikigate import gitrepo

    name = spot.source
    if name.lower().endswith(".pdf"):
        spot.window_note = "a PDF source: its text is not shown here"
        return
    if name not in sources:
        data = gitrepo.read_blob(repo, tree, name) if name else None
        sources[name] = data.decode("utf-8", errors="replace") if data is not None else None
    text = sources[name]
    if text is None:
        spot.window_note = f"{name} is not in this commit"
        return
    q = spot.quote
    at = spot.offset if spot.offset is not None and text[spot.offset :].startswith(q) else None
    if at is None and q:
        found = text.find(q)
        at = found if found >= 0 else None
        if at is not None and spot.offset is not None:
            spot.window_note = f"found at offset {at}, not at its anchor {spot.offset}"
    if at is None or not q:
        spot.window_note = "the quote does not occur in the source"
        return
    spot.window = (text[max(0, at - WINDOW) : at], q, text[at + len(q) : at + len(q) + WINDOW])


def report_pages(
    repo: pygit2.Repository, report: VerificationReport, is_page: Any = None
) -> list[PageView]:
    """The pages a report is about, read at its tip: those its change touches (``is_page``
    tells the wiki's pages from other files), else (the whole wiki) those with a finding."""
    from wikigate import gitrepo
    from wikigate.errors import GitError

    try:
        tip = gitrepo.commit_at(repo, report.tip)
        base = gitrepo.commit_at(repo, report.base) if report.base is not None else None
    except (GitError, KeyError, ValueError):
        return []  # not in this clone: the report alone
    paths = {f.path for f in report.findings if f.path}
    paths |= {c.claim_id.partition("#^")[0] for c in report.claim_checks}
    if base is not None:
        paths |= set(gitrepo.changed_paths(repo, base.tree, tip.tree))
    keep = is_page or (lambda p: p.endswith(".md"))
    return page_views(repo, tip, [p for p in paths if keep(p)])


# ---------------------------------------------------------------- the report on the pages


def _worse(spot: ClaimView, status: str, reason: str) -> None:
    if RANK[status] < RANK[spot.status]:
        spot.status = status
    if reason:
        spot.reasons.append(reason)


def _apply_report(report: VerificationReport, views: list[PageView]) -> list[PageView]:
    """Each claim's status from the report: findings on it, its claim check, the judge's
    vote; the claim checks of claims no page shows any more as spots without a body."""
    claims = {s.claim_id: s for v in views for s in v.spots if s.kind == "claim"}
    by_page = {v.path: v for v in views}
    for check in report.claim_checks:
        spot = claims.get(check.now or "") or claims.get(check.claim_id)
        if spot is None:
            page_path, _, label = check.claim_id.partition("#^")
            view = by_page.get(page_path)
            if view is None:
                view = by_page[page_path] = PageView(page_path, None)
                views.append(view)
            spot = ClaimView("claim", page_path, check.line, check.claim, label=label)
            view.spots.append(spot)
            claims[check.claim_id] = spot
        if check.result != "pass":
            _worse(spot, check.result, check.reason)
        if check.frozen:
            _worse(spot, "frozen", f"frozen by [ledger] {check.frozen}")
    if report.judge is not None:
        for v in report.judge.votes:
            spot = claims.get(v.claim_id)
            if spot is None:
                continue
            spot.vote, spot.vote_reason, spot.evidence = v.vote, v.reason, v.evidence
            if v.vote in FAILING_VOTES:
                _worse(spot, "fail", "")
            elif v.vote in DOUBTFUL_VOTES:
                _worse(spot, "warn", "")
    for f in report.findings:
        spot = _spot_of(f, by_page.get(f.path or ""))
        if spot is not None:
            spot.findings.append(f)
            _worse(spot, "warn" if f.severity == "minor" else "fail", "")  # major blocks too
    return views


def _spot_of(f: Finding, view: PageView | None) -> ClaimView | None:
    if view is None:
        return None
    claims = [s for s in view.spots if s.kind == "claim"]
    for s in claims:
        if f.message.startswith(f"[^{s.label}]") or f.message.startswith(f"[^{s.label}:"):
            return s
    for s in claims:
        if f.claim_line is not None and f.claim_line == s.line:
            return s
    if not f.code.startswith(("citation.", "claim.", "judge.")):
        return None  # a link or page finding on a claim's line is not about the claim
    for s in claims:
        if f.line is not None and f.line in (s.line, s.definition_line):
            return s
    return None


# ---------------------------------------------------------------- rendering


class HtmlReporter:
    name = "html"
    description = (
        "one self-contained HTML page: pages with each claim highlighted by status, "
        "findings linked to them, filters (offline, strict CSP)"
    )

    def __init__(self, pages: Sequence[PageView] | None = None) -> None:
        self.pages = pages

    def render(self, report: VerificationReport, *, color: bool = False) -> str:
        fresh = [  # rendering twice starts from the pages as read, every time
            PageView(
                v.path,
                v.text,
                [replace(s, reasons=list(s.reasons), findings=list(s.findings)) for s in v.spots],
                v.note,
            )
            for v in self.pages or []
        ]
        views = _apply_report(report, fresh)
        return render_views(views, report=report, title=_title(report))


def _title(report: VerificationReport) -> str:
    what = f"run {report.run_id}" if report.run_id else f"{report.tip[:12]}"
    return f"wikigate · {what} · {report.verdict}"


def render_views(
    views: list[PageView],
    *,
    report: VerificationReport | None = None,
    title: str,
    findings: Sequence[Finding] | None = None,
    heading: str = "",
) -> str:
    """The document: the report's head, the findings list, the filters, each page."""
    views = sorted(views, key=lambda v: v.path)
    n = 0
    for v in views:
        for s in v.spots:
            n += 1
            s.key = f"c{n}"
        v.spots.sort(key=lambda s: (s.line, RANK[s.status]))
    page_ids = {v.path: f"p{k}" for k, v in enumerate(views)}
    spot_of: dict[int, ClaimView] = {id(f): s for v in views for s in v.spots for f in s.findings}
    all_findings = list(report.findings if report is not None else findings or [])
    parts = [f"<header><h1>{esc(title)}</h1>{heading}"]
    if report is not None:
        parts.append(_head(report))
    counts = Counter(s.status for v in views for s in v.spots)
    parts.append(
        '<p class="counts">'
        + " ".join(f'<span class="badge s-{s}">{s} {counts.get(s, 0)}</span>' for s in STATUSES)
        + "</p></header>"
    )
    placed: set[str] = set()
    shown = [_page(v, page_ids[v.path], placed) for v in views]
    parts.append(_filters(views, all_findings))
    parts.append(_findings(all_findings, spot_of, page_ids, placed))
    parts.append('<main id="pages">')
    parts += shown
    parts.append("</main>")
    parts.append('<p class="keys">Keys: j / k next / previous claim, Enter: its details.</p>')
    return page(title, "\n".join(parts), style=STYLE, script=SCRIPT)


def _head(report: VerificationReport) -> str:
    c = report.counts()
    rows = [
        ("verdict", report.verdict),
        ("run", report.run_id or "-"),
        ("base", report.base or "- (the whole wiki)"),
        ("tip", report.tip),
        ("strictness", report.strictness),
        ("findings", f"{c['critical']} critical, {c['major']} major, {c['minor']} minor"),
    ]
    if report.judge is not None:
        j = report.judge
        rows.append(
            ("judge", f"{j.name} {j.model or ''} · {len(j.votes)} votes · ${j.usage.usd:.4f}")
        )
    if report.direction is not None and report.direction.checked:
        d = report.direction
        rows.append(("direction", f"{d.effect or '-'}: {d.effect_reason}"))
    lists = [
        ("next", "What to do next", report.next_actions),
        ("blind", "Not ruled out", report.blind_spots),
    ]
    return (
        f'<dl class="head v-{esc(report.verdict)}">'
        + "".join(f"<dt>{esc(k)}</dt><dd>{esc(val)}</dd>" for k, val in rows)
        + "</dl>"
        + "".join(
            f'<section class="{cls}"><h2>{esc(label)}</h2><ul>'
            + "".join(f"<li>{esc(item)}</li>" for item in items)
            + "</ul></section>"
            for cls, label, items in lists
            if items
        )
    )


def _filters(views: list[PageView], findings: Sequence[Finding]) -> str:
    codes = sorted(
        {f.code for f in findings} | {f.code for v in views for s in v.spots for f in s.findings}
    )

    def select(name: str, label: str, values: Iterable[str]) -> str:
        options = "".join(f'<option value="{esc(x)}">{esc(x)}</option>' for x in values)
        return (
            f'<label>{label} <select id="f-{name}" data-filter="{name}">'
            f'<option value="">all</option>{options}</select></label>'
        )

    return (
        '<nav class="filters">'
        + select("status", "status", STATUSES)
        + select("code", "code", codes)
        + select("page", "page", [v.path for v in views])
        + "</nav>"
    )


def _findings(
    findings: Sequence[Finding],
    spot_of: dict[int, ClaimView],
    page_ids: dict[str, str],
    placed: set[str],
) -> str:
    if not findings:
        return '<section id="findings"><h2>Findings</h2><p>none</p></section>'
    items = []
    for f in findings:
        spot = spot_of.get(id(f))
        where = f"{f.path or '(run)'}" + (f":{f.line}" if f.line else "")
        key = None if spot is None else spot.key if spot.key in placed else f"card-{spot.key}"
        target = (
            f"#{key}" if key is not None else (f"#{page_ids[f.path]}" if f.path in page_ids else "")
        )
        status = (
            spot.status if spot is not None else ("fail" if f.severity == "critical" else "warn")
        )
        loc = f'<a href="{target}">{esc(where)}</a>' if target else esc(where)
        hint = f'<div class="fix">fix: {esc(f.hint)}</div>' if f.hint else ""
        items.append(
            f'<li class="finding sev-{esc(f.severity)}" data-item="finding" data-status="{status}" '
            f'data-codes="{esc(f.code)}" data-page="{esc(f.path or "")}">{loc} '
            f"<b>{esc(f.severity)}</b> <code>{esc(f.code)}</code> {esc(f.message)}{hint}</li>"
        )
    return f'<section id="findings"><h2>Findings ({len(findings)})</h2><ol>{"".join(items)}</ol></section>'


def _page(v: PageView, pid: str, placed: set[str]) -> str:
    body = _body(v, placed) if v.text is not None else f'<p class="gone">{esc(v.note)}</p>'
    cards = "".join(_card(s) for s in v.spots)
    return (
        f'<section class="page" id="{pid}" data-page="{esc(v.path)}"><h2>{esc(v.path)}</h2>'
        f'<div class="cols"><article class="body">{body}</article>'
        f'<aside class="side">{cards}</aside></div></section>'
    )


def _codes(s: ClaimView) -> str:
    return esc(" ".join(sorted({f.code for f in s.findings})))


def _card(s: ClaimView) -> str:
    parts = [
        f'<div class="card s-{s.status}" id="card-{s.key}" data-item="card" '
        f'data-status="{s.status}" data-codes="{_codes(s)}" data-page="{esc(s.page)}">'
        f'<div class="top"><a href="#{s.key}" class="badge s-{s.status}">{s.status}</a> '
        f"{esc(s.kind)} · line {s.line}"
        + (f" · <code>[^{esc(s.label)}]</code>" if s.label else "")
        + "</div>",
        f'<p class="claim">{esc(s.text)}</p>',
    ]
    if s.kind == "claim" and (s.source or s.quote):
        where = esc(s.source) + (f", p.{s.pdf_page}" if s.pdf_page else "")
        anchor = f"@{s.offset}" if s.offset is not None else "no anchor"
        parts.append(
            f'<div class="src"><code>{where}</code> <span class="anchor">{esc(anchor)}</span>'
            + (f' <span class="hash">sha256:{esc(s.sha256)}</span>' if s.sha256 else "")
            + "</div>"
        )
        if s.window is not None:
            before, quote, after = s.window
            parts.append(
                f'<blockquote class="window">…{esc(before)}<mark class="quote">{esc(quote)}</mark>'
                f"{esc(after)}…</blockquote>"
            )
        else:
            parts.append(
                f'<blockquote class="window"><mark class="quote">{esc(s.quote)}</mark></blockquote>'
            )
        if s.window_note:
            parts.append(f'<p class="note">{esc(s.window_note)}</p>')
    if s.vote:
        parts.append(
            f'<div class="vote">judge: <b>{esc(s.vote)}</b> {esc(s.vote_reason)}'
            + (f'<div class="evidence">evidence: “{esc(s.evidence)}”</div>' if s.evidence else "")
            + "</div>"
        )
    for r in s.reasons:
        parts.append(f'<p class="reason">{esc(r)}</p>')
    for f in s.findings:
        parts.append(
            f'<div class="f sev-{esc(f.severity)}"><b>{esc(f.severity)}</b> <code>{esc(f.code)}</code> '
            f"{esc(f.message)}"
            + (f'<div class="fix">fix: {esc(f.hint)}</div>' if f.hint else "")
            + "</div>"
        )
    parts.append("</div>")
    return "".join(parts)


def _body(v: PageView, placed: set[str]) -> str:
    """The page's markdown rendered, each spot wrapped in a ``<mark>`` where it is found
    on its line (a claim from its sentence's first words to its reference)."""
    assert v.text is not None
    text = MARKERS.sub("\ufffd", v.text)
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    spans = [(span, s.key[1:]) for s in v.spots if (span := _span(s, lines, starts))]
    inserts: list[tuple[int, int, str]] = []
    done = 0  # where the highlight before ends: none opens before it, so none nests
    for (a, b), n in sorted(spans, key=lambda x: x[0][1]):
        a = min(max(a, done), b)
        while a < b and text[a] in " \t":
            a += 1
        done = max(done, b)
        inserts.append((b, 0, f"{END}{n}{CLOSE}"))
        inserts.append((a, 1, f"{START}{n}{CLOSE}"))
    for at, _, marker in sorted(inserts, key=lambda x: (x[0], x[1]), reverse=True):
        text = text[:at] + marker + text[at:]
    front = ""
    if text.startswith("---\n"):
        close = text.find("\n---\n", 4)
        if close > 0:
            front = f'<pre class="fm">{esc(MARKERS.sub("", text[4:close]))}</pre>'
            text = text[close + 5 :]
    rendered = markdown_html(text)
    by_key = {s.key[1:]: s for s in v.spots}
    opened = set(re.findall(f"{START}(\\d+){CLOSE}", rendered))
    closed = set(re.findall(f"{END}(\\d+){CLOSE}", rendered))

    def start(m: re.Match[str]) -> str:
        s = by_key.get(m.group(1))
        if s is None:
            return ""
        tag = (
            f'<mark class="hl s-{s.status}" id="{s.key}" data-item="mark" data-status="{s.status}" '
            f'data-codes="{_codes(s)}" data-page="{esc(s.page)}" tabindex="-1">'
        )
        placed.add(s.key)
        return tag if m.group(1) in closed else tag + "</mark>"

    def end(m: re.Match[str]) -> str:
        s = by_key.get(m.group(1))
        if s is None or m.group(1) not in opened:
            return ""
        label = f"[{esc(s.label)}]" if s.label else f"[{s.status}]"
        return f'</mark><a class="ref s-{s.status}" href="#card-{s.key}">{label}</a>'

    rendered = re.sub(f"{START}(\\d+){CLOSE}", start, rendered)
    rendered = re.sub(f"{END}(\\d+){CLOSE}", end, rendered)
    return front + MARKERS.sub("", rendered)


WORDS = re.compile(r"\S+")


def _span(s: ClaimView, lines: list[str], starts: list[int]) -> tuple[int, int] | None:
    """Where a spot is in the page's text (offsets), or None when it cannot be placed."""
    if not 1 <= s.line <= len(lines):
        return None
    line = lines[s.line - 1]
    if s.kind == "claim":
        ref = f"[^{s.label}]"
        col = line.find(ref)
        if col < 0:
            return None
        end = starts[s.line - 1] + col + len(ref)
        begin = starts[s.line - 1] + col
        first = " ".join(WORDS.findall(s.text)[:3])
        if first:
            at_line = s.start_line if s.start_line and 1 <= s.start_line <= s.line else s.line
            # the claim's own first words: the last time they stand before its reference
            where = lines[at_line - 1].rfind(first, 0, col if at_line == s.line else None)
            if where >= 0 and starts[at_line - 1] + where < begin:
                begin = starts[at_line - 1] + where
        return begin, end
    needle = "[gap" if s.kind == "gap" else " ".join(WORDS.findall(s.text)[:3])
    col = line.find(needle) if needle else -1
    if col < 0:
        return None
    if s.kind == "gap":
        close = line.find("]", col)
        stop = close + 1 if close > 0 else len(line)
    else:
        whole = line.find(s.text, col)
        stop = whole + len(s.text) if whole == col else len(line)
    return starts[s.line - 1] + col, starts[s.line - 1] + stop


STYLE = """
body{font:15px/1.45 system-ui,sans-serif;margin:0 1.5em;color:#1b1b1b;background:#fff}
header h1{font-size:1.3em}
dl.head{display:grid;grid-template-columns:max-content 1fr;gap:.1em 1em}
dl.head dt{font-weight:600}
.badge{padding:0 .4em;border-radius:.3em;font-size:.85em;text-decoration:none;color:#000}
.s-fail{background:#f9c0c0}.s-warn{background:#fde6a6}.s-frozen{background:#cfe0f7}
.s-pass{background:#c8efcf}.s-gap{background:#e2d3f5}.s-uncited{background:#e5e5e5}
mark.hl{color:inherit;border-bottom:2px solid #555}mark.hl.dim{background:none;border:0}
mark.hl.current,.card.current{outline:3px solid #1d4ed8}
a.ref{font-size:.75em;vertical-align:super;text-decoration:none;padding:0 .2em;color:#000}
nav.filters{position:sticky;top:0;background:#fff;padding:.4em 0;border-bottom:1px solid #ddd;z-index:1}
nav.filters label{margin-right:1em}
#findings ol{padding-left:1.5em}.finding{margin:.2em 0}
.fix{color:#14532d;font-size:.9em}
.page{border-top:2px solid #999;margin-top:1.5em}
.cols{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:1.5em}
.side .card{border:1px solid #ccc;border-left:6px solid #999;border-radius:.3em;padding:.4em .6em;margin:.5em 0}
.card.s-fail{border-left-color:#c62828}.card.s-warn{border-left-color:#b7791f}
.card.s-pass{border-left-color:#2e7d32}.card.s-frozen{border-left-color:#1d4ed8}
.card{background:#fff}.card .claim{margin:.3em 0;font-weight:500}
.window{margin:.3em 0;padding:.3em .5em;background:#f6f6f6;white-space:pre-wrap;font-size:.85em;border-left:3px solid #bbb}
.window mark.quote{background:#fff3a0}
.hash,.anchor{font-family:monospace;font-size:.8em;word-break:break-all}
.vote{font-size:.9em}.evidence{color:#444}.note,.reason{font-size:.85em;color:#555;margin:.2em 0}
.f{font-size:.9em;margin:.2em 0}.sev-critical b{color:#b71c1c}.sev-major b{color:#8a5a00}
pre.fm{background:#f4f4f4;padding:.4em}.img{color:#666}.gone{color:#666;font-style:italic}
[id]{scroll-margin-top:4em}:target{outline:3px solid #1d4ed8}
[hidden]{display:none!important}.keys{color:#666;font-size:.85em}
"""

SCRIPT = """
(function(){
var f={status:"",code:"",page:""};
var all=Array.prototype.slice.call(document.querySelectorAll("[data-item]"));
function ok(el){
 if(f.status&&el.getAttribute("data-status")!==f.status)return false;
 if(f.code&&(" "+el.getAttribute("data-codes")+" ").indexOf(" "+f.code+" ")<0)return false;
 if(f.page&&el.getAttribute("data-page")!==f.page)return false;
 return true;
}
function apply(){
 all.forEach(function(el){
  if(el.getAttribute("data-item")==="mark"){el.classList.toggle("dim",!ok(el));}
  else{el.hidden=!ok(el);}
 });
 Array.prototype.forEach.call(document.querySelectorAll("section.page"),function(s){
  s.hidden=!!f.page&&s.getAttribute("data-page")!==f.page;
 });
}
Array.prototype.forEach.call(document.querySelectorAll("select[data-filter]"),function(sel){
 sel.addEventListener("change",function(){f[sel.getAttribute("data-filter")]=sel.value;apply();});
});
var cur=-1;
function spots(){
 return all.filter(function(el){
  var t=el.getAttribute("data-item");
  if(t==="card"){return !el.hidden&&!document.getElementById(el.id.slice(5));}
  return t==="mark"&&!el.classList.contains("dim")&&el.offsetParent!==null;
 });
}
document.addEventListener("keydown",function(e){
 if(e.target&&/^(INPUT|SELECT|TEXTAREA)$/.test(e.target.tagName))return;
 if(e.key!=="j"&&e.key!=="k"&&e.key!=="Enter")return;
 var list=spots();if(!list.length)return;
 var old=document.querySelector(".current");
 if(e.key==="Enter"){
  if(old&&old.id.indexOf("card-")!==0){var c=document.getElementById("card-"+old.id);if(c)c.scrollIntoView({block:"center"});}
  return;
 }
 cur=e.key==="j"?Math.min(cur+1,list.length-1):Math.max(cur-1,0);
 if(old)old.classList.remove("current");
 list[cur].classList.add("current");
 list[cur].scrollIntoView({block:"center"});
});
})();
"""
