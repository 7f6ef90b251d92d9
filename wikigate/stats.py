"""The wiki's health over time (``wikigate stats``, docs/telemetry.md): per day, week or
month, from the telemetry store (rebuildable from the notes) and the claim ledger.

- runs by verdict (a run without one: by its status), by when it started;
- overrides, and who gave them, by when they were given; unverified runs;
- loops per run (verifications per run verified at least once);
- citation fidelity: the claims main's commits of the period introduced or changed
  (a commit's period is its run's end, else its commit time), how many are anchored,
  judged supported, flagged (quote not at its anchor, or the judge's contradicts /
  unsupported); every gap marker on main, by its page's last claim change (a page
  without claims: its last change on main);
- the writer's spend (what runs attested) and the verifier's (the LLM judge) apart;
- the correlation the design asks for: overrides in a period against the fidelity of
  the period after (Pearson's r over consecutive periods with claims).

Pure reads: the ledger is synced first, nothing else changes.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from .htmlpage import esc, page
from .runid import parse_iso

if TYPE_CHECKING:
    from .workspace import Workspace

PERIODS = ("day", "week", "month")
FLAGGING_VOTES = ("contradicts", "unsupported")


@dataclass
class Period:
    period: str
    runs: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)
    overrides: int = 0
    override_actors: dict[str, int] = field(default_factory=dict)
    unverified: int = 0
    loops: int = 0  # verifications of the period's verified runs (see loops_per_run)
    # loops / the period's runs verified at least once (a verdict: committed, rejected,
    # overridden, or kept pending to revise or for a person); a run never finalized or
    # committed with --no-verify has no loop. 1.0: every run verified once, no revise
    loops_per_run: float | None = None
    claims: int = 0
    anchored: int = 0
    supported: int = 0
    flagged: int = 0
    gaps: int = 0
    sound: int = 0  # anchored and not flagged
    fidelity: float | None = None  # sound / claims
    writer_input_tokens: int = 0
    writer_output_tokens: int = 0
    writer_usd: float = 0.0
    verifier_input_tokens: int = 0
    verifier_output_tokens: int = 0
    verifier_usd: float = 0.0


@dataclass
class Stats:
    by: str
    periods: list[Period]
    correlation: float | None  # overrides in a period vs fidelity in the next
    pairs: int  # the consecutive periods it was computed over

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def period_of(when: date, by: str) -> str:
    if by == "day":
        return when.isoformat()
    if by == "month":
        return f"{when.year:04d}-{when.month:02d}"
    year, week, _ = when.isocalendar()
    return f"{year:04d}-W{week:02d}"


@lru_cache(maxsize=4096)
def _utc_day(stamp: str) -> date:
    return parse_iso(stamp).astimezone(UTC).date()


def _day(stamp: str) -> date:
    """The UTC day of a timestamp (the engine's end in Z: read from its first ten
    characters; any other offset parsed)."""
    if stamp.endswith("Z") and len(stamp) >= 10:
        try:
            return date.fromisoformat(stamp[:10])
        except ValueError:
            pass
    return _utc_day(stamp)


def stats(ws: Workspace, by: str = "week") -> Stats:
    """The figures per period (``by``: day | week | month), oldest first."""
    from . import gitrepo, ledger
    from .errors import GitError

    if by not in PERIODS:
        raise ValueError(f"by: one of {', '.join(PERIODS)}, not {by!r}")
    ledger.sync(ws)
    db = ws.store.db
    rows: dict[str, Period] = {}

    def at(key: str) -> Period:
        found = rows.get(key)
        if found is None:
            found = rows[key] = Period(key)
        return found

    landed: dict[str, str] = {}  # a committed run's tip → the period it ended in
    bases: dict[str, str] = {}  # a committed run's tip → its base
    verdicts: dict[str, Counter[str]] = defaultdict(Counter)
    verified: Counter[str] = Counter()  # the period's runs verified at least once
    for r in db.execute(
        "SELECT started_at, ended_at, status, verdict, unverified, loop_count, tip_commit, "
        "budget_input_tokens_used, budget_output_tokens_used, budget_usd_used, "
        "verifier_input_tokens, verifier_output_tokens, verifier_usd, base_commit FROM runs"
    ).fetchall():
        p = at(period_of(_day(r[0]), by))
        p.runs += 1
        verdicts[p.period][r[3] or r[2]] += 1
        p.unverified += int(r[4] or 0)
        if r[3] is not None:  # verified at least once: its loops (1 + each revise)
            verified[p.period] += 1
            p.loops += int(r[5] or 0)
        p.writer_input_tokens += int(r[7] or 0)
        p.writer_output_tokens += int(r[8] or 0)
        p.writer_usd += float(r[9] or 0)
        p.verifier_input_tokens += int(r[10] or 0)
        p.verifier_output_tokens += int(r[11] or 0)
        p.verifier_usd += float(r[12] or 0)
        if r[2] == "committed" and r[6]:
            landed[r[6]] = period_of(_day(r[1] or r[0]), by)
            bases[r[6]] = r[13]
    actors: dict[str, Counter[str]] = defaultdict(Counter)
    for when, actor in db.execute("SELECT at, actor FROM overrides").fetchall():
        p = at(period_of(_day(when), by))
        p.overrides += 1
        actors[p.period][actor] += 1
    # fidelity: the ledger's claims, by the commit that last changed them, in the period
    # of the run that landed that commit (main's first parents from its tip down to its
    # base), else of the commit's own time
    commit_period = _landed_by_runs(ws, landed, bases, by)

    def of_commit(commit: str) -> str:
        found = commit_period.get(commit)
        if found is None:
            try:
                seconds = gitrepo.commit_at(ws.repo, commit).commit_time
            except (GitError, KeyError, ValueError):
                seconds = 0
            found = commit_period[commit] = period_of(
                datetime.fromtimestamp(seconds, UTC).date(), by
            )
        return found

    marks = ",".join("?" * len(FLAGGING_VOTES))
    page_period: dict[str, str] = {}
    flags = f"coalesce(judge_vote IN ({marks}), 0)"
    for commit, claims, anchored, supported, flagged, sound in db.execute(
        "SELECT changed_commit, count(*), sum(anchor_status = 'anchored'), "
        "sum(coalesce(judge_vote = 'supports', 0)), "
        f"sum(anchor_status = 'mismatched' OR {flags}), "
        f"sum(anchor_status = 'anchored' AND NOT {flags}) "
        "FROM claims GROUP BY changed_commit",
        FLAGGING_VOTES * 2,
    ).fetchall():
        p = at(of_commit(commit))
        p.claims += claims
        p.anchored += int(anchored or 0)
        p.supported += int(supported or 0)
        p.flagged += int(flagged or 0)
        p.sound += int(sound or 0)
    for pg, commit in db.execute(  # the pages with gap markers only: few, by the index
        "SELECT DISTINCT c.page, c.changed_commit FROM (SELECT DISTINCT page FROM gaps) AS g "
        "JOIN claims AS c ON c.page = g.page"
    ).fetchall():
        key = of_commit(commit)
        if pg not in page_period or key > page_period[pg]:
            page_period[pg] = key
    gapped = db.execute("SELECT page, count(*) FROM gaps GROUP BY page").fetchall()
    claimless = [pg for pg, _ in gapped if pg not in page_period]  # by the page's last change
    for pg, commit in _last_changes(ws, claimless).items():
        page_period[pg] = of_commit(commit)
    for pg, count in gapped:
        if pg in page_period:
            at(page_period[pg]).gaps += count
    periods = sorted(rows.values(), key=lambda p: p.period)
    for p in periods:
        p.verdicts = dict(sorted(verdicts[p.period].items()))
        p.override_actors = dict(sorted(actors[p.period].items()))
        counted = verified[p.period]
        p.loops_per_run = round(p.loops / counted, 3) if counted else None
        p.fidelity = round(p.sound / p.claims, 4) if p.claims else None
        p.writer_usd, p.verifier_usd = round(p.writer_usd, 6), round(p.verifier_usd, 6)
    pairs = [
        (float(a.overrides), b.fidelity)
        for a, b in zip(periods, periods[1:], strict=False)
        if b.fidelity is not None
    ]
    return Stats(by, periods, pearson(pairs), len(pairs))


def _landed_by_runs(
    ws: Workspace, landed: dict[str, str], bases: dict[str, str], by: str
) -> dict[str, str]:
    """Main's first-parent commits, each with the period of the committed run whose
    commits (base, tip] hold it; one walk from main's tip."""
    import pygit2

    from . import gitrepo

    head = gitrepo.ref_target(ws.repo, ws.env.main)
    out: dict[str, str] = {}
    if head is None or not landed:
        return out
    walker = ws.repo.walk(head, pygit2.enums.SortMode.NONE)
    walker.simplify_first_parent()
    current: tuple[str, str] | None = None  # (period, base) of the run being walked
    for commit in walker:
        oid = str(commit.id)
        if current is not None and oid == current[1]:
            current = None
        if oid in landed:
            current = (landed[oid], bases.get(oid, ""))
        if current is not None:
            out[oid] = current[0]
    return out


HISTORY = 10_000  # main's first-parent commits walked for the pages' last changes


def _last_changes(ws: Workspace, pages: list[str]) -> dict[str, str]:
    """The first-parent commit of main that last changed each page (one walk from main's
    tip, at most HISTORY commits; a page unchanged that far back: the oldest walked)."""
    import pygit2

    from . import gitrepo

    head = gitrepo.ref_target(ws.repo, ws.env.main)
    out: dict[str, str] = {}
    if head is None or not pages:
        return out
    left = set(pages)
    walker = ws.repo.walk(head, pygit2.enums.SortMode.NONE)
    walker.simplify_first_parent()
    commit = None
    for n, commit in enumerate(walker):
        parent = commit.parents[0] if commit.parents else None
        for pg in sorted(left):
            if parent is None or _blob_id(commit.tree, pg) != _blob_id(parent.tree, pg):
                out[pg] = str(commit.id)
                left.discard(pg)
        if not left or n + 1 >= HISTORY:
            break
    if commit is not None:
        out.update({pg: str(commit.id) for pg in left})
    return out


def _blob_id(tree: Any, path: str) -> object:
    try:
        return tree[path].id
    except KeyError:
        return None


def pearson(pairs: list[tuple[float, float]]) -> float | None:
    """Pearson's r of the pairs; None with fewer than 3, or when either side is constant."""
    if len(pairs) < 3:
        return None
    n = len(pairs)
    mx = sum(x for x, _ in pairs) / n
    my = sum(y for _, y in pairs) / n
    sxy = sum((x - mx) * (y - my) for x, y in pairs)
    sxx = sum((x - mx) ** 2 for x, _ in pairs)
    syy = sum((y - my) ** 2 for _, y in pairs)
    if sxx == 0 or syy == 0:
        return None
    return round(sxy / math.sqrt(sxx * syy), 4)


# ---------------------------------------------------------------- output

COLUMNS = (
    "period",
    "runs",
    "verdicts",
    "overrides",
    "override_actors",
    "unverified",
    "loops_per_run",
    "claims",
    "anchored",
    "supported",
    "flagged",
    "gaps",
    "sound",
    "fidelity",
    "writer_input_tokens",
    "writer_output_tokens",
    "writer_usd",
    "verifier_input_tokens",
    "verifier_output_tokens",
    "verifier_usd",
)


def _pairs(counts: dict[str, int]) -> str:
    return " ".join(f"{k}={v}" for k, v in counts.items())


def _cell(p: Period, column: str) -> str:
    value = getattr(p, column)
    if isinstance(value, dict):
        return _pairs(value)
    if value is None:
        return ""
    if column.endswith("_usd"):
        return f"{value:.4f}"
    return str(value)


def as_csv(s: Stats) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLUMNS)
    for p in s.periods:
        w.writerow([_cell(p, c) for c in COLUMNS])
    return out.getvalue().rstrip("\n")


def as_json(s: Stats) -> str:
    return json.dumps(s.as_dict(), indent=2)


TEXT_COLUMNS = (
    ("period", "period"),
    ("runs", "runs"),
    ("verdicts", "verdicts"),
    ("overrides", "overr."),
    ("unverified", "unver."),
    ("loops_per_run", "loops/run"),
    ("claims", "claims"),
    ("anchored", "anchored"),
    ("supported", "supported"),
    ("flagged", "flagged"),
    ("gaps", "gaps"),
    ("fidelity", "fidelity"),
    ("writer_usd", "writer $"),
    ("verifier_usd", "verifier $"),
)


def as_text(s: Stats) -> str:
    from .text import shown

    if not s.periods:
        return "no runs and no claims yet"
    table = [[title for _, title in TEXT_COLUMNS]]
    table += [[shown(_cell(p, c)) or "-" for c, _ in TEXT_COLUMNS] for p in s.periods]
    widths = [max(len(r[i]) for r in table) for i in range(len(TEXT_COLUMNS))]
    lines = ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip() for r in table]
    who = Counter[str]()
    for p in s.periods:
        who.update(p.override_actors)
    if who:
        lines.append("overrides by: " + shown(", ".join(f"{a} {n}" for a, n in who.most_common())))
    lines.append(_correlation_line(s))
    return "\n".join(lines)


def _correlation_line(s: Stats) -> str:
    if s.correlation is None:
        return (
            f"overrides vs the next {s.by}'s fidelity: not enough data "
            f"({s.pairs} consecutive {s.by}s with claims; 3 needed, neither side constant)"
        )
    return (
        f"overrides vs the next {s.by}'s fidelity: r = {s.correlation:+.2f} over {s.pairs} "
        f"{s.by}s (negative: more overrides, lower fidelity after)"
    )


# ---------------------------------------------------------------- html


def _bars(title: str, periods: list[Period], series: list[tuple[str, str, list[float]]]) -> str:
    """A grouped bar chart as inline SVG (no script, no external asset)."""
    width, height, pad = 720, 220, 30
    peak = max([v for _, _, values in series for v in values] + [0.0]) or 1.0
    n = max(len(periods), 1)
    group = (width - 2 * pad) / n
    bar = max(group / (len(series) + 1), 1.0)
    parts = [
        f"<figure><figcaption>{esc(title)}</figcaption>"
        f'<svg viewBox="0 0 {width} {height + 40}" width="{width}" height="{height + 40}" '
        f'role="img" aria-label="{esc(title)}">'
        f'<line x1="{pad}" y1="{height}" x2="{width - pad}" y2="{height}" class="axis"/>'
    ]
    for i, p in enumerate(periods):
        x0 = pad + i * group
        for k, (name, cls, values) in enumerate(series):
            v = values[i]
            h = (height - 20) * v / peak
            parts.append(
                f'<rect x="{x0 + k * bar:.1f}" y="{height - h:.1f}" width="{bar * 0.9:.1f}" '
                f'height="{h:.1f}" class="{cls}"><title>{esc(p.period)} {esc(name)}: '
                f"{v:g}</title></rect>"
            )
        if n <= 26 or i % max(n // 26, 1) == 0:
            parts.append(f'<text x="{x0:.1f}" y="{height + 14}" class="lbl">{esc(p.period)}</text>')
    parts.append(f'<text x="2" y="12" class="lbl">max {peak:g}</text></svg>')
    legend = " ".join(f'<span class="key {cls}">{esc(name)}</span>' for name, cls, _ in series)
    parts.append(f"<p>{legend}</p></figure>")
    return "".join(parts)


STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#1b1b1b}
table{border-collapse:collapse;font-size:.9em}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}
th{background:#f1f1f1}td:first-child{text-align:left}
figure{margin:1.5em 0}figcaption{font-weight:600}
.axis{stroke:#777}.lbl{font-size:10px;fill:#333}
.a{fill:#2e7d32}.b{fill:#c62828}.c{fill:#1d4ed8}.d{fill:#b7791f}.e{fill:#7b3fa0}
.key{padding:0 .4em;color:#fff}.key.a{background:#2e7d32}.key.b{background:#c62828}
.key.c{background:#1d4ed8}.key.d{background:#b7791f}.key.e{background:#7b3fa0}
"""
SCRIPT = "/* no behaviour: the charts are static SVG */"


# each chart: its title and its series (label, colour class, the Period field it plots)
CHARTS: tuple[tuple[str, tuple[tuple[str, str, str], ...]], ...] = (
    (
        "runs, overrides and unverified runs",
        (("runs", "c", "runs"), ("overrides", "b", "overrides"), ("unverified", "d", "unverified")),
    ),
    (
        "citation fidelity (claims changed in the period)",
        (
            ("anchored", "a", "anchored"),
            ("judged supported", "c", "supported"),
            ("flagged", "b", "flagged"),
            ("gap markers", "e", "gaps"),
        ),
    ),
    ("spend (USD)", (("writer", "d", "writer_usd"), ("verifier", "c", "verifier_usd"))),
)


def as_html(s: Stats, *, title: str = "wikigate stats") -> str:
    ps = s.periods
    charts = [
        _bars(
            caption,
            ps,
            [(label, cls, [float(getattr(p, field)) for p in ps]) for label, cls, field in series],
        )
        for caption, series in CHARTS
    ]
    head = "".join(f"<th>{esc(c)}</th>" for c in COLUMNS)
    body = "".join(
        "<tr>" + "".join(f"<td>{esc(_cell(p, c))}</td>" for c in COLUMNS) + "</tr>" for p in ps
    )
    doc = (
        f"<h1>{esc(title)}</h1><p>per {esc(s.by)} · {esc(_correlation_line(s))}</p>"
        + "".join(charts)
        + f'<div class="wide"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody>'
        "</table></div>"
    )
    return page(title, doc, style=STYLE, script=SCRIPT)
