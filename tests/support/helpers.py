"""Helpers shared by the tests: real git and the real wikigate CLI in subprocesses."""

from __future__ import annotations

import os
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
