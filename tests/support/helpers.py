"""Helpers shared by the tests: real git, and the real wikigate CLI run in this process
(``wikigate``, ``in_process``) or in a fresh interpreter (``process``; support/forked.py
forks processes from a warm one)."""

from __future__ import annotations

import io
import os
import sqlite3
import subprocess
import sys
from pathlib import Path


def git(cwd: Path | str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(cwd), *args], capture_output=True, text=True, check=check
    )


def push(
    cwd: Path | str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`git push` from a client whose own hooks are bypassed (the server's gate alone
    decides), with no auth-layer user set; ``env``: more variables (``""`` unsets one)."""
    full_env = {k: v for k, v in os.environ.items() if k not in ("GL_USER", "REMOTE_USER")}
    for k, v in (env or {}).items():
        if v == "":
            full_env.pop(k, None)
        else:
            full_env[k] = v
    return subprocess.run(
        ["git", "-C", str(cwd), "-c", "core.hooksPath=/dev/null", "push", *args],
        capture_output=True,
        text=True,
        env=full_env,
    )


def gated_server(root: Path, tmp_path: Path) -> Path:
    """A bare server cloned from ``root``, with the server gate installed (in-process)."""
    bare = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(root), str(bare))
    proc = in_process(["-C", str(root), "hooks", "install", "--server", str(bare)])
    assert proc.returncode == 0, proc.stderr
    return bare


def gated_client(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace (``tmp_path/client``) with one verified page and the client hooks, and its
    origin: a bare server with the server gate where only alice may override."""
    from support.wiki_runs import page_run
    from wikigate.workspace import Workspace

    ws = Workspace.init(tmp_path / "client")
    assert page_run(ws, "owls").status == "committed"
    ws.close()
    root = tmp_path / "client"
    installed = in_process(["-C", str(root), "hooks", "install"], env={"WIKIGATE_VERIFIER": ""})
    assert installed.returncode == 0, installed.stderr
    bare = gated_server(root, tmp_path)
    (bare / "wikigate.toml").write_text('[server]\noverride_users = ["alice"]\n')
    git(root, "remote", "add", "origin", str(bare))
    return root, bare


def override_push(root: Path, reason: str, user: str = "alice") -> subprocess.CompletedProcess[str]:
    """`git push -o wikigate-override=REASON origin main` as ``user`` (the server's GL_USER)."""
    return push(root, "-o", f"wikigate-override={reason}", "origin", "main", env={"GL_USER": user})


def wikigate(
    cwd: Path | str,
    *args: str,
    stdin: str | bytes | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`wikigate -C cwd ARGS`, run in this process through ``main()`` (the only place errors
    become exit codes), as a user's command would run: its stdin, stdout, stderr and
    environment are its own for the call. The test verifier is the plug-in unless ``env``
    says otherwise (``{"WIKIGATE_VERIFIER": ""}``: the product's own)."""
    full_env = {"WIKIGATE_VERIFIER": "support.markers_verifier:factory", **(env or {})}
    argv = ["-C", str(cwd), *args]
    return in_process(argv, stdin, full_env)


def process(
    cwd: Path | str, *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The same as a separate process: for tests of the process itself (kills, signals,
    start-up imports, exit on a broken pipe)."""
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


def in_process(
    argv: list[str], stdin: str | bytes | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``main(argv)`` with ``stdin`` as its input (bytes: exactly those, e.g. not UTF-8)
    and ``env`` over the environment for the call (``""``: unset)."""
    from wikigate.cli import main

    out, err = io.StringIO(), io.StringIO()
    raw = stdin if isinstance(stdin, bytes) else (stdin or "").encode()
    data = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8")
    saved_env = {k: os.environ.get(k) for k in env or {}}
    saved = sys.stdin, sys.stdout, sys.stderr
    try:
        for k, v in (env or {}).items():
            if v == "":
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        sys.stdin, sys.stdout, sys.stderr = data, out, err
        code = main(argv)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        for k, v in saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return subprocess.CompletedProcess(["wikigate", *argv], code, out.getvalue(), err.getvalue())


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
