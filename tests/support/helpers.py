"""Helpers shared by the tests: real git and the real wikigate CLI in subprocesses."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path


def git(cwd: Path | str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(cwd), *args], capture_output=True, text=True, check=check
    )


def wikigate(
    cwd: Path | str, *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    full_env = {
        **os.environ,
        "WIKIGATE_VERIFIER": "support.markers_verifier:factory",
        **(env or {}),
    }
    return subprocess.run(
        [sys.executable, "-m", "wikigate", "-C", str(cwd), *args],
        capture_output=True,
        text=True,
        input=stdin,
        env=full_env,
    )


def start(repo: Path | str, *extra: str, run_type: str = "ingest") -> str:
    """`wikigate run start` through the CLI; returns the run id."""
    proc = wikigate(repo, "run", "start", "--type", run_type, "--triggered-by", "cli:test", *extra)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def state(repo: Path) -> tuple[str, list[tuple[object, ...]]]:
    """Everything a refused command must leave alone: refs and the runs table."""
    refs = git(repo, "for-each-ref", "--format=%(refname) %(objectname)").stdout
    db = repo / ".git" / "wikigate" / "telemetry.db"
    rows = (
        sqlite3.connect(db).execute("SELECT * FROM runs ORDER BY run_id").fetchall()
        if db.exists()
        else []
    )
    return refs, rows
