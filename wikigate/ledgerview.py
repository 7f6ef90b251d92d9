"""The claim ledger as one HTML page (``wikigate report html``): its rows read once after
a sync and handed to the ledger's page (verifier/reporters/html_ledger.py).

A big ledger (past ``LAZY_AT`` claims: the 10k-page wiki's 100,000) is read as JSON made
by SQLite itself, one array per page, each claim's status decided in the query (the same
rules as ``html_ledger.status_of``, which tests/test_html_report.py holds it to): building
100,000 Python rows and encoding them again would cost seconds.

Each claim's state on main (``ledger.states``: fresh, stale, contested, unverified, as
``wikigate health`` measures it, through its caches) is on its card, and the states are
counted in the page's heading (docs/health.md).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .workspace import Workspace

FAILING = "('contradicts', 'unsupported')"
DOUBTFUL = "('partial', 'inconclusive', 'flaky')"


def ledger_page(ws: Workspace, *, title: str, lazy_at: int | None = None) -> str:
    from . import ledger
    from .errors import WikigateError
    from .verifier.reporters.html_ledger import (
        LAZY_AT,
        STATE_REASONS,
        compact_page,
        ledger_html,
        states_line,
    )

    limit = LAZY_AT if lazy_at is None else lazy_at
    ledger.sync(ws)
    try:
        states = ledger.states(ws)  # each claim's state on main (wikigate health)
    except WikigateError:
        states = {}  # main has no commit yet, or its verification failed: states unknown
    db = ws.store.db
    rules = ws.config.ledger
    claims = int(db.execute("SELECT count(*) FROM claims").fetchone()[0])
    if claims <= limit:
        rows = ledger.claims(ws)
        for r in rows:
            r["frozen"] = rules.frozen_claim(r["page"], r["label"]) if rules.frozen else None
            r["state"] = states.get(r["claim_id"])
        return ledger_html(rows, ledger.gaps(ws), title=title, lazy_at=limit)
    frozen = "NULL"
    if rules.frozen:
        db.conn.create_function("wikigate_frozen", 2, rules.frozen_claim, deterministic=True)
        frozen = "wikigate_frozen(page, label)"

    def state_reason(claim_id: str) -> str | None:
        return STATE_REASONS.get(states.get(claim_id, ""))

    db.conn.create_function("wikigate_state", 1, state_reason, deterministic=True)
    statused = f"""
        SELECT page, label, line, claim, source, source_page, source_quote,
          source_quote_offset, judge_vote, judge_reason,
          CASE WHEN bad THEN 'fail' WHEN doubt THEN 'warn'
               WHEN fz IS NOT NULL THEN 'frozen' ELSE 'pass' END AS status,
          CASE WHEN st LIKE 'state: stale%' THEN st ELSE coalesce(
            CASE WHEN anchor_status = 'mismatched' THEN 'the quote is not at its anchor'
                 WHEN anchor_status = 'unanchored' THEN 'no anchor'
                 WHEN NOT bad AND NOT doubt AND fz IS NOT NULL THEN 'frozen by [ledger] ' || fz
            END, st) END AS why
        FROM (SELECT *, {frozen} AS fz, wikigate_state(claim_id) AS st,
          (anchor_status = 'mismatched' OR coalesce(judge_vote IN {FAILING}, 0)) AS bad,
          (anchor_status = 'unanchored' OR coalesce(judge_vote IN {DOUBTFUL}, 0)) AS doubt
          FROM claims)"""
    per_page: dict[str, str] = {}
    counts: Counter[str] = Counter()
    for page, claims_json, fail, warn, frozen_n, ok in db.execute(
        "SELECT page, json_group_array(json_array(label, line, status, claim, source, "
        "source_page, source_quote, source_quote_offset, judge_vote, judge_reason, why)), "
        "sum(status = 'fail'), sum(status = 'warn'), sum(status = 'frozen'), "
        f"sum(status = 'pass') FROM ({statused}) GROUP BY page"
    ):
        per_page[page] = claims_json
        counts["fail"] += fail
        counts["warn"] += warn
        counts["frozen"] += frozen_n
        counts["pass"] += ok
    gaps = dict(
        db.execute(
            "SELECT page, json_group_array(json_array(line, reason)) FROM gaps GROUP BY page"
        ).fetchall()
    )
    counts["gap"] = int(db.execute("SELECT count(*) FROM gaps").fetchone()[0])
    pages = sorted(per_page.keys() | gaps.keys())
    data = (
        "["
        + ",".join(
            f"[{json.dumps(p, ensure_ascii=False)},{per_page.get(p, '[]')},{gaps.get(p, '[]')}]"
            for p in pages
        )
        + "]"
    )
    heading = f"<p>{claims} claims, {counts['gap']} gap markers on {len(pages)} pages</p>"
    heading += states_line(Counter(states.values()))
    return compact_page(data.encode(), counts, title=title, heading=heading)
