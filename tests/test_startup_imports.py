"""What the hooks and ``wikigate verify BRANCH`` import on the way to their answer: run
each in a fresh interpreter, on a tiny real wiki, and read ``sys.modules`` at exit.

Issue 25: pydantic, multiprocessing and ssl cost every commit their import time (pydantic
and the models ~120 ms a process) and none is needed to check a few pages; pydantic belongs
where data enters or leaves (config parsing, reports written as JSON, LLM output).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.helpers import git

from wikigate.verifier.citation import format_tail
from wikigate.workspace import Workspace

SOURCE = "Owls hunt at night. Larks sing at dawn.\n"
INDEX = "---\ntitle: Index\n---\n# Index\n\n- [[Owls]]\n"


def owls(claim: str = "Owls hunt at night.") -> str:
    tail = format_tail("raw/birds.txt", None, "Owls hunt at night.", 0)
    return f"---\ntitle: Owls\n---\n# Owls\n\n{claim}[^1]\n\n[^1]: {tail}\n"


# each entry point as its console script calls it; sys.argv[1:] are its arguments
ENTRIES = {
    "wikigate-commit": ("wikigate.hooks.precommit", "commit_main", ["wiki/owls.md"]),
    "wikigate-citations": ("wikigate.hooks.precommit", "citations_main", ["wiki/owls.md"]),
    "wikigate-links": ("wikigate.hooks.precommit", "links_main", ["wiki/owls.md"]),
    "wikigate-verify": ("wikigate.hooks.precommit", "verify_main", []),
    "wikigate verify BRANCH": ("wikigate.cli", "main", ["verify", "feature", "--base", "main"]),
}
WRAPPER = """
import atexit, json, sys
report = sys.argv.pop()
def _report():
    with open(report, "w") as out:
        json.dump(sorted(sys.modules), out)
atexit.register(_report)
module, function = sys.argv[1], sys.argv[2]
sys.argv = [function, *sys.argv[3:]]
import importlib
code = getattr(importlib.import_module(module), function)()
sys.exit(code)
"""


@pytest.fixture(scope="module")
def tiny_wiki(tmp_path_factory) -> Path:
    """A wiki with a page on main, a branch ``feature`` that edits it, and that edit staged
    (the working tree on ``feature``)."""
    root = tmp_path_factory.mktemp("startup") / "wiki"
    ws = Workspace.init(root)
    run = ws.start_run("ingest", "cli:test")
    run.stage_write("raw/birds.txt", SOURCE)
    run.stage_write("wiki/owls.md", owls())
    run.stage_write("wiki/index.md", INDEX)
    run.finalize(verify=False)
    ws.close()
    git(root, "checkout", "-q", "-b", "feature")
    (root / "wiki" / "owls.md").write_text(owls("Owls hunt at night, mostly."))
    git(root, "commit", "-qam", "feature")
    (root / "wiki" / "owls.md").write_text(owls("Owls hunt at night, quietly."))
    git(root, "add", "wiki/owls.md")
    return root


def loaded(root: Path, entry: str, tmp_path: Path) -> set[str]:
    module, function, args = ENTRIES[entry]
    out = tmp_path / "modules.json"
    proc = subprocess.run(
        [sys.executable, "-c", WRAPPER, module, function, *args, str(out)],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert out.exists(), f"{entry} did not run to its exit: {proc.stdout}{proc.stderr}"
    assert "Traceback" not in proc.stderr, proc.stderr
    return {name.split(".")[0] for name in json.loads(out.read_text())}


class HeavyImport(AssertionError):
    pass


PYDANTIC_LEFT = pytest.mark.xfail(
    strict=True,
    raises=HeavyImport,
    reason="not done yet: Finding, VerificationReport and Config are pydantic models on "
    "every verification's path (issue 25)",
)
SSL_LEFT = pytest.mark.xfail(
    strict=True,
    raises=HeavyImport,
    reason="not done yet: `import pygit2` imports ssl (pygit2.settings sets libgit2's "
    "TLS certificate paths from ssl at import; issue 25)",
)


@pytest.mark.parametrize("entry", sorted(ENTRIES))
@pytest.mark.parametrize(
    "heavy",
    [
        "multiprocessing",
        pytest.param("pydantic", marks=PYDANTIC_LEFT),
        pytest.param("ssl", marks=SSL_LEFT),
    ],
)
def test_start_up_does_not_import(tiny_wiki, tmp_path, entry, heavy):
    modules = loaded(tiny_wiki, entry, tmp_path)
    assert "pygit2" in modules  # the entry point did its work
    if heavy in modules:
        raise HeavyImport(f"{entry} imported {heavy}")
