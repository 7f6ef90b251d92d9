"""Docs stay true: every CLI command is in the README, every finding code in docs/checks.md."""

from __future__ import annotations

import re
from pathlib import Path

import click

from wikigate.cli import cli

ROOT = Path(__file__).resolve().parents[1]


def commands(group: click.Group, prefix: str = "wikigate") -> list[str]:
    out = []
    for name, cmd in group.commands.items():
        if getattr(cmd, "hidden", False):
            continue
        if isinstance(cmd, click.Group):
            out += commands(cmd, f"{prefix} {name}")
        else:
            out.append(f"{prefix} {name}")
    return out


def test_every_command_is_documented_in_the_readme():
    readme = (ROOT / "README.md").read_text()
    missing = [c for c in commands(cli) if f"`{c}" not in readme]
    assert missing == [], missing


def test_every_finding_code_is_documented():
    sources = "".join(p.read_text() for p in (ROOT / "verifier").rglob("*.py"))
    sources += (ROOT / "wikigate" / "run.py").read_text()
    codes = set(re.findall(r'"((?:citation|page|link|run|verifier)\.[a-z_]+)"', sources))
    documented = (ROOT / "docs" / "checks.md").read_text()
    assert codes and sorted(c for c in codes if f"`{c}`" not in documented) == []


def readme_block(heading: str) -> str:
    """The first ```sh block after ``heading`` in the README."""
    readme = (ROOT / "README.md").read_text()
    after = readme[readme.index(heading) :]
    start = after.index("```sh\n") + len("```sh\n")
    return after[start : after.index("```", start)]


def test_the_readme_tour_runs_verbatim(tmp_path):
    """A new user pastes the tour into a shell in an empty folder: every line works."""
    import os
    import subprocess
    import sys

    env = {
        **os.environ,
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]),
    }
    env.pop("WIKIGATE_VERIFIER", None)  # the product's own verifier
    proc = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", readme_block("## A tour")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "committed" in proc.stdout and "COMMIT: 0 critical, 0 major, 0 minor" in proc.stdout
    main = subprocess.run(
        ["git", "-C", str(tmp_path / "my-wiki"), "show", "main:wiki/plan.md"],
        capture_output=True,
        text=True,
    )
    assert "The committee adopted the plan.[^1]" in main.stdout
