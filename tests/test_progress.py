"""Long commands show progress on a terminal, and nowhere else."""

from __future__ import annotations

import os
import pty
import threading

import pytest
from support.forked import Forked
from support.helpers import in_process

from wikigate.workspace import Workspace


@pytest.fixture(scope="module")
def wiki(tmp_path_factory):
    ws = Workspace.init(tmp_path_factory.mktemp("progress") / "w")
    run = ws.start_run("cascade", "cli:test")
    index = "---\ntitle: Index\n---\n# Index\n\n" + "".join(f"- [[P{i}]]\n" for i in range(40))
    run.stage_write("wiki/index.md", index)
    for i in range(40):
        run.stage_write(f"wiki/p{i}.md", f"---\ntitle: P{i}\n---\n# P{i}\n\nOwls hunt at night.\n")
    run.finalize(verify=False)
    ws.close()
    return ws.root


def run_on_terminal(root, *args: str) -> tuple[int, str, str]:
    """Run wikigate with stderr on a pseudo-terminal (a process of its own: support/forked.py);
    return (code, stdout, terminal)."""
    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["TERM"] = "xterm"
    seen: list[bytes] = []

    def read() -> None:  # until the terminal hangs up: every writer has closed it
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO
                return
            if not chunk:
                return
            seen.append(chunk)

    reader = threading.Thread(target=read)
    reader.start()
    try:
        done = Forked(["-C", str(root), *args], env, stderr=os.ttyname(follower)).result()
    finally:
        os.close(follower)  # the process has exited: now no one holds the terminal
        reader.join()
        os.close(leader)
    return done.returncode, done.stdout, b"".join(seen).decode(errors="replace")


def test_verify_shows_progress_on_a_terminal(wiki):
    code, out, terminal = run_on_terminal(wiki, "verify", "--all")
    assert "parsing pages" in terminal
    assert "FAIL (revise, no run): 0 critical, 40 major" in out  # lint mode: no run
    assert "parsing pages" not in out  # report clean


def test_no_progress_in_pipes_ci_or_json(wiki):
    piped = in_process(["-C", str(wiki), "verify", "--all"])  # stdout and stderr: no terminal
    assert piped.stderr == ""
    _code, out, terminal = run_on_terminal(wiki, "verify", "--all", "--format", "json")
    assert "parsing pages" not in terminal and out.lstrip().startswith("{")
    ci = in_process(["-C", str(wiki), "verify", "--all"], env={"CI": "true"})
    assert ci.stderr == ""


def test_telemetry_rebuild_shows_progress_on_a_terminal(wiki):
    code, out, terminal = run_on_terminal(wiki, "telemetry", "rebuild")
    assert code == 0 and "rebuilt" in out
    assert "reading run records" in terminal
