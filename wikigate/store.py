"""Telemetry: the queryable SQLite index of runs, findings and overrides.

Git notes under ``refs/notes/wikigate`` are the durable record; this database
can always be rebuilt from them (``wikigate telemetry rebuild``).  Reads and writes
go through sqlite-utils; transactions are ``BEGIN IMMEDIATE`` (take the write lock
before reading what will change), which sqlite-utils' own ``atomic()`` nests in.

(The verifier's cache, verifier/wiki.py, uses the stdlib ``sqlite3`` on purpose:
it sits on the hook path, where every import counts, and stores opaque blobs.)
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NotRequired, TypedDict, cast

import sqlite_utils

from .errors import TelemetryError
from .kinds import OverrideSource, Status
from .models import RunRecord

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
  run_id           TEXT PRIMARY KEY,
  workspace        TEXT NOT NULL,
  triggered_by     TEXT NOT NULL,
  run_type         TEXT NOT NULL,
  status           TEXT NOT NULL,
  started_at       TEXT NOT NULL,
  ended_at         TEXT,
  verifier_preset  TEXT,
  verdict          TEXT,
  reject_reason    TEXT,
  loop_count       INTEGER NOT NULL DEFAULT 1,
  budget_input_tokens_used  INTEGER DEFAULT 0,
  budget_output_tokens_used INTEGER DEFAULT 0,
  budget_usd_used  REAL DEFAULT 0,
  budget_input_tokens  INTEGER,
  budget_output_tokens INTEGER,
  budget_usd       REAL,
  verifier_input_tokens  INTEGER DEFAULT 0,
  verifier_output_tokens INTEGER DEFAULT 0,
  verifier_usd     REAL DEFAULT 0,
  branch           TEXT NOT NULL,
  base_commit      TEXT NOT NULL,
  tip_commit       TEXT,
  unverified       INTEGER NOT NULL DEFAULT 0,
  finalizer_pid    INTEGER,
  finalizer_host   TEXT,
  lease_until      TEXT,
  meta_digest      TEXT,
  advice           TEXT,
  trace_head       TEXT,
  trace_count      INTEGER,
  CHECK (status IN ('pending','verifying','committed','rejected','abandoned'))
);
CREATE INDEX IF NOT EXISTS idx_runs_workspace_started ON runs(workspace, started_at DESC);
CREATE INDEX IF NOT EXISTS idx_runs_status_started    ON runs(status, started_at DESC);
CREATE TABLE IF NOT EXISTS overrides (
  id        INTEGER PRIMARY KEY,
  run_id    TEXT NOT NULL REFERENCES runs(run_id),
  actor     TEXT NOT NULL,
  reason    TEXT NOT NULL,
  source    TEXT NOT NULL CHECK (source IN ('cli','github-label','github-comment','github-review')),
  at        TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS findings (
  id        INTEGER PRIMARY KEY,
  run_id    TEXT NOT NULL REFERENCES runs(run_id),
  loop      INTEGER NOT NULL,
  code      TEXT NOT NULL,
  severity  TEXT NOT NULL,
  path      TEXT,
  line      INTEGER,
  message   TEXT NOT NULL,
  fingerprint TEXT,
  signature TEXT
);
CREATE INDEX IF NOT EXISTS idx_findings_run ON findings(run_id, loop);
CREATE TABLE IF NOT EXISTS verifications (
  id          INTEGER PRIMARY KEY,
  run_id      TEXT NOT NULL REFERENCES runs(run_id),
  loop        INTEGER NOT NULL,
  result      TEXT NOT NULL CHECK (result IN ('PASS','FAIL','FLAKY','INCONCLUSIVE')),
  tree        TEXT NOT NULL,
  attestation TEXT NOT NULL,
  signature   TEXT,
  at          TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_verifications_run ON verifications(run_id, id);
CREATE INDEX IF NOT EXISTS idx_overrides_run ON overrides(run_id);
CREATE TABLE IF NOT EXISTS claims (
  claim_id           TEXT PRIMARY KEY,
  page               TEXT NOT NULL,
  label              TEXT NOT NULL,
  line               INTEGER NOT NULL,
  claim              TEXT NOT NULL,
  source             TEXT NOT NULL,
  source_page        INTEGER,
  source_quote       TEXT NOT NULL,
  source_quote_hash  TEXT NOT NULL,
  source_quote_offset INTEGER,
  anchor_status      TEXT NOT NULL CHECK (anchor_status IN ('anchored','unanchored','mismatched')),
  disputed           INTEGER NOT NULL DEFAULT 0,
  introduced_commit  TEXT NOT NULL,
  changed_commit     TEXT NOT NULL,
  judge_vote         TEXT,
  judge_reason       TEXT
);
CREATE INDEX IF NOT EXISTS idx_claims_page ON claims(page);
CREATE INDEX IF NOT EXISTS idx_claims_source ON claims(source);
CREATE TABLE IF NOT EXISTS gaps (
  id      INTEGER PRIMARY KEY,
  page    TEXT NOT NULL,
  line    INTEGER NOT NULL,
  reason  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_gaps_page ON gaps(page);
CREATE TABLE IF NOT EXISTS ledger_state (
  ref     TEXT PRIMARY KEY,
  commit_id TEXT NOT NULL,
  version TEXT NOT NULL
);
"""


class RunRow(TypedDict):
    """A row of the ``runs`` table, as ``Store`` returns it (its columns, typed)."""

    run_id: str
    workspace: str
    triggered_by: str
    run_type: str  # kinds.RUN_TYPES, as the record said
    status: Status
    started_at: str
    ended_at: str | None
    verifier_preset: str | None
    verdict: str | None
    reject_reason: str | None
    loop_count: int
    budget_input_tokens_used: int | None
    budget_output_tokens_used: int | None
    budget_usd_used: float | None
    budget_input_tokens: int | None
    budget_output_tokens: int | None
    budget_usd: float | None
    verifier_input_tokens: int | None
    verifier_output_tokens: int | None
    verifier_usd: float | None
    branch: str
    base_commit: str
    tip_commit: str | None
    unverified: int  # 0 or 1
    finalizer_pid: int | None
    finalizer_host: str | None
    lease_until: str | None
    meta_digest: str | None
    advice: str | None  # JSON: the last verification's next actions and blind spots
    # the pin of an MCP run's trace (wikigate/trace.py): its chain's head, its length
    trace_head: NotRequired[str | None]
    trace_count: NotRequired[int | None]


def _runs(rows: Iterator[dict[str, Any]]) -> list[RunRow]:
    return [cast(RunRow, row) for row in rows]


class FindingRow(TypedDict):
    """A row of the ``findings`` table: one finding of one loop's verification."""

    id: int
    run_id: str
    loop: int
    code: str
    severity: str
    path: str | None
    line: int | None
    message: str
    fingerprint: str | None
    signature: str | None


class OverrideRow(TypedDict):
    """A row of the ``overrides`` table: a person's decision on a run."""

    id: int
    run_id: str
    actor: str
    reason: str
    source: OverrideSource
    at: str


class OverriddenRow(TypedDict):
    """A finding of a run a person's word landed (``Store.overridden``)."""

    fingerprint: str
    run_id: str
    actor: str
    reason: str


class VerificationRow(TypedDict):
    """A row of the ``verifications`` table: where git keeps one loop's verification."""

    id: int
    run_id: str
    loop: int
    result: str  # PASS, FAIL, FLAKY, INCONCLUSIVE
    tree: str
    attestation: str
    signature: str | None
    at: str


# Columns that describe a live process, not the run; rebuilds leave them empty.
VOLATILE = ("finalizer_pid", "finalizer_host", "lease_until")


class Store:
    """A sqlite-utils database with WAL, a busy timeout and immediate transactions."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(path), timeout=30, isolation_level=None)
            conn.execute("PRAGMA busy_timeout = 30000")
            # a commit is not synced to disk (WAL: the database stays whole, a power loss
            # may take the last transactions back): the runs' truth is in git, and the
            # database is rebuilt from it (`telemetry rebuild`; sweep settles runs from
            # git); a finalize writes ~30 transactions, each an fsync before (issue 28)
            conn.execute("PRAGMA synchronous = NORMAL")
            # no sqlite-utils plug-ins: finding them reads every installed package's entry
            # points (~25 ms of CPU a process), and none has a say in the telemetry
            self.db = sqlite_utils.Database(conn, execute_plugins=False)
            if self.db.journal_mode != "wal":
                self.db.enable_wal()
            self.db.executescript(SCHEMA)
            if "lease_until" not in self.db["runs"].columns_dict:  # a database from 0.1.0
                self.db.execute("ALTER TABLE runs ADD COLUMN lease_until TEXT")
            if "meta_digest" not in self.db["runs"].columns_dict:  # from before runs were pinned
                self.db.execute("ALTER TABLE runs ADD COLUMN meta_digest TEXT")
            if "advice" not in self.db["runs"].columns_dict:  # before next actions
                self.db.execute("ALTER TABLE runs ADD COLUMN advice TEXT")
            if "trace_head" not in self.db["runs"].columns_dict:  # before traces
                self.db.execute("ALTER TABLE runs ADD COLUMN trace_head TEXT")
                self.db.execute("ALTER TABLE runs ADD COLUMN trace_count INTEGER")
            if "fingerprint" not in self.db["findings"].columns_dict:  # before baselines
                self.db.execute("ALTER TABLE findings ADD COLUMN fingerprint TEXT")
            if "signature" not in self.db["findings"].columns_dict:  # before no-progress
                self.db.execute("ALTER TABLE findings ADD COLUMN signature TEXT")
            if "github-review" not in (self.db["overrides"].schema or ""):
                self._widen_override_sources()
        except sqlite3.DatabaseError as e:
            raise TelemetryError(
                f"telemetry database {path} is unreadable ({e}); "
                "run `wikigate telemetry rebuild` to re-create it from git notes"
            ) from e

    def _widen_override_sources(self) -> None:
        """A database from before decisions on review: its overrides table's CHECK lacks
        'github-review'. Re-create the table with today's definition, rows kept."""
        table = SCHEMA[SCHEMA.index("CREATE TABLE IF NOT EXISTS overrides") :]
        table = table[: table.index(");") + 2]
        with self.immediate():
            self.db.execute("ALTER TABLE overrides RENAME TO overrides_old")
            self.db.execute(table)
            self.db.execute("INSERT INTO overrides SELECT * FROM overrides_old")
            self.db.execute("DROP TABLE overrides_old")
            self.db.execute("CREATE INDEX IF NOT EXISTS idx_overrides_run ON overrides(run_id)")

    def close(self) -> None:
        self.db.conn.close()

    @contextmanager
    def immediate(self) -> Iterator[sqlite_utils.Database]:
        """``BEGIN IMMEDIATE``: take the write lock before reading what we will change."""
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.DatabaseError as e:
            raise TelemetryError(f"telemetry database {self.path}: {e}") from e
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        else:
            self.db.execute("COMMIT")

    # ------------------------------------------------------------ reads

    def get(self, run_id: str) -> RunRow | None:
        rows = _runs(self.db["runs"].rows_where("run_id = ?", [run_id]))
        return rows[0] if rows else None

    def runs(self, status: str | None = None) -> list[RunRow]:
        """Runs in ``status`` (all when None); ``needs_human_review``: the pending runs whose
        verdict waits for a person."""
        where, args = ("status = ?", [status]) if status else (None, [])
        if status == "needs_human_review":
            where, args = "status = 'pending' AND verdict = ?", [status]
        return _runs(self.db["runs"].rows_where(where, args, order_by="started_at, run_id"))

    def open_runs(self) -> list[RunRow]:
        """Pending and verifying runs: what ``sweep`` looks at."""
        return _runs(
            self.db["runs"].rows_where(
                "status IN ('pending', 'verifying')", order_by="started_at, run_id"
            )
        )

    def findings(self, run_id: str) -> list[FindingRow]:
        rows = self.db["findings"].rows_where("run_id = ?", [run_id], order_by="loop, id")
        return [cast(FindingRow, row) for row in rows]

    def overrides(self, run_id: str) -> list[OverrideRow]:
        rows = self.db["overrides"].rows_where("run_id = ?", [run_id], order_by="id")
        return [cast(OverrideRow, row) for row in rows]

    def verifications(self, run_id: str) -> list[VerificationRow]:
        """The run's verifications, oldest first (where git keeps each: docs/attest.md)."""
        rows = self.db["verifications"].rows_where("run_id = ?", [run_id], order_by="id")
        return [cast(VerificationRow, row) for row in rows]

    # ------------------------------------------------------------ writes
    # Inside ``immediate()``: sqlite-utils (>= 4) nests its own transactions in
    # savepoints, so its table helpers never end ours early.

    def table(self, name: str) -> sqlite_utils.db.Table:
        return self.db.table(name)

    def update_run(self, run_id: str, /, **values: Any) -> None:
        self.table("runs").update(run_id, values)

    def pin_trace(self, run_id: str, head: str, count: int) -> None:
        """Record a run's trace's new head and length (call inside ``immediate``)."""
        self.update_run(run_id, trace_head=head, trace_count=count)

    def traced_runs(self, but: str, started_at: str, most: int) -> list[tuple[str, str, int]]:
        """The pins (run id, head, length) of the traces of runs other than ``but``,
        started no later than ``started_at``, newest first: at most ``most`` + 1 (one
        more says there are more)."""
        rows = self.db.execute(
            "SELECT run_id, trace_head, trace_count FROM runs WHERE run_id != ? AND "
            "started_at <= ? AND trace_head IS NOT NULL AND trace_count > 0 "
            "ORDER BY started_at DESC, run_id DESC LIMIT ?",
            [but, started_at, most + 1],
        )
        return [(str(r[0]), str(r[1]), int(r[2])) for r in rows]

    def overridden(self) -> list[OverriddenRow]:
        """The findings a person's word landed anyway: the last verification's findings of
        each committed run whose verdict is ``commit_override`` or ``commit_approved``,
        with who decided and why (oldest first)."""
        rows = self.db.query(
            "SELECT f.fingerprint, r.run_id, o.actor, o.reason FROM findings f "
            "JOIN runs r ON r.run_id = f.run_id AND f.loop = r.loop_count "
            "JOIN overrides o ON o.run_id = r.run_id "
            "WHERE r.status = 'committed' AND r.verdict IN ('commit_override', 'commit_approved') "
            "AND f.fingerprint IS NOT NULL ORDER BY o.at, o.id"
        )
        return [OverriddenRow(**row) for row in rows]  # type: ignore[typeddict-item]

    def overriding(self) -> list[RunRow]:
        """Rejected runs an override process marked as its own (finalize._overriding)."""
        return _runs(
            self.table("runs").rows_where("status = 'rejected' AND finalizer_pid IS NOT NULL")
        )

    def apply_record(self, record: RunRecord) -> None:
        """Make the database say what ``record`` says (upsert run, replace findings)."""
        self.table("runs").upsert(dict(record_to_row(record)), pk="run_id")
        self.table("findings").delete_where("run_id = ?", [record.run_id])
        self.table("findings").insert_all(
            {
                "run_id": record.run_id,
                "loop": f.loop,
                "code": f.code,
                "severity": f.severity,
                "path": f.path,
                "line": f.line,
                "message": f.message,
                "fingerprint": f.fingerprint,
                "signature": f.signature,
            }
            for f in record.findings
        )
        self.table("verifications").delete_where("run_id = ?", [record.run_id])
        self.table("verifications").insert_all(
            {"run_id": record.run_id, **v.model_dump()} for v in record.verifications
        )
        if record.override_actor:
            self.table("overrides").delete_where("run_id = ?", [record.run_id])
            self.table("overrides").insert(
                {
                    "run_id": record.run_id,
                    "actor": record.override_actor,
                    "reason": record.override_reason or "",
                    "source": record.override_source or "cli",
                    "at": record.override_at or record.recorded_at,
                }
            )


def record_to_row(record: RunRecord) -> RunRow:
    return {
        "run_id": record.run_id,
        "workspace": record.workspace,
        "triggered_by": record.triggered_by,
        "run_type": record.run_type,
        "status": record.status,
        "started_at": record.started_at,
        "ended_at": record.ended_at,
        "verifier_preset": record.verifier_preset,
        "verdict": record.verdict,
        "reject_reason": record.reject_reason,
        "loop_count": record.loop_count,
        "budget_input_tokens_used": record.usage.input_tokens or 0,
        "budget_output_tokens_used": record.usage.output_tokens or 0,
        "budget_usd_used": record.usage.usd or 0.0,
        "budget_input_tokens": record.budget.input_tokens,
        "budget_output_tokens": record.budget.output_tokens,
        "budget_usd": record.budget.usd,
        "verifier_input_tokens": record.verifier_usage.input_tokens,
        "verifier_output_tokens": record.verifier_usage.output_tokens,
        "verifier_usd": record.verifier_usage.usd,
        "branch": record.branch,
        "base_commit": record.base_commit,
        "tip_commit": record.tip_commit,
        "unverified": int(record.unverified),
        "finalizer_pid": None,
        "finalizer_host": None,
        "lease_until": None,
        "meta_digest": record.meta_digest,
        "advice": _advice(record),
    }


def _advice(record: RunRecord) -> str | None:
    """The record's feedback for a writer, as the ``advice`` column keeps it (None: none)."""
    said = {
        "next_actions": record.next_actions,
        "blind_spots": record.blind_spots,
        "questions": record.questions,
    }
    return json.dumps(said) if any(said.values()) else None


def advice_of(row: RunRow) -> dict[str, list[str]]:
    """The ``advice`` column read back: each list of strings it holds (a value of any other
    shape is dropped)."""
    try:
        said = json.loads(row.get("advice") or "{}")
    except ValueError:
        return {}
    if not isinstance(said, dict):
        return {}
    return {
        k: [x for x in v if isinstance(x, str)]
        for k, v in said.items()
        if k in ("next_actions", "blind_spots", "questions") and isinstance(v, list)
    }
