"""What the hooks, the server gate, ``wikigate verify BRANCH`` and the MCP tools' library
side import on the way to their answer: run each in a fresh interpreter, on a tiny real
wiki (the server gate in a bare clone of it, given a push of main as git gives it), and
read ``sys.modules`` at exit.

Issue 25: pydantic, multiprocessing and ssl cost every commit their import time (pydantic
and the models ~120 ms a process) and none is needed to check a few pages; pydantic belongs
where data enters or leaves (a config file the quick check cannot vouch for, reports read
back, LLM output, attestations). ``import pygit2`` imports ssl itself (``pygit2.settings``
reads ``ssl.get_default_verify_paths()`` at import to set libgit2's TLS certificate paths;
docs/benchmarks.md measures it): the test holds that nothing else brings ssl in.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.helpers import git, wikigate

from wikigate.config import DEFAULT_TOML, Config, parse_config
from wikigate.errors import ConfigError
from wikigate.plain import quick_validate
from wikigate.verifier.citation import format_tail
from wikigate.workspace import Workspace

SOURCE = "Owls hunt at night. Larks sing at dawn.\n"
INDEX = "---\ntitle: Index\n---\n# Index\n\n- [[Owls]]\n"


def owls(claim: str = "Owls hunt at night.") -> str:
    tail = format_tail("raw/birds.txt", None, "Owls hunt at night.", 0)
    return f"---\ntitle: Owls\n---\n# Owls\n\n{claim}[^1]\n\n[^1]: {tail}\n"


# each entry point as its console script (or the server's hook shim) calls it; sys.argv[1:]
# are its arguments
ENTRIES = {
    "wikigate-commit": ("wikigate.hooks.precommit", "commit_main", ["wiki/owls.md"]),
    "wikigate-citations": ("wikigate.hooks.precommit", "citations_main", ["wiki/owls.md"]),
    "wikigate-links": ("wikigate.hooks.precommit", "links_main", ["wiki/owls.md"]),
    "wikigate-verify": ("wikigate.hooks.precommit", "verify_main", []),
    "wikigate verify BRANCH": ("wikigate.cli", "main", ["verify", "feature", "--base", "main"]),
    "server pre-receive": ("wikigate.hooks.git_hooks", "main", ["pre-receive"]),
    # the MCP tools' library side (list, claims, anchor) as a session calls it; the SDK
    # itself imports pydantic, ssl and multiprocessing (uvicorn), once per session
    "MCP tools": ("support.mcp_tools", "main", []),
}
HEAVY = ("multiprocessing", "pydantic", "ssl")
# Records, beside the modules loaded, which modules ask for a heavy one (every import
# statement naming it, also once it is loaded): ssl must come from pygit2 alone.
WRAPPER = """
import atexit, builtins, json, sys
report = sys.argv.pop()
asked = {}
_import = builtins.__import__
def _recording(name, globals=None, locals=None, fromlist=(), level=0):
    top = name.split(".")[0] if not level else None
    if top in HEAVY:
        who = (globals or {}).get("__name__", "?")
        if who.split(".")[0] != top:
            asked.setdefault(top, set()).add(who)
    return _import(name, globals, locals, fromlist, level)
HEAVY = ("multiprocessing", "pydantic", "ssl")
builtins.__import__ = _recording
def _report():
    with open(report, "w") as out:
        json.dump({"modules": sorted(sys.modules),
                   "asked": {k: sorted(v) for k, v in asked.items()}}, out)
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
    (the working tree on ``feature``); beside it ``server.git``, a bare clone with the
    server hooks installed."""
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
    bare = root.parent / "server.git"
    git(root.parent, "clone", "-q", "--bare", str(root), str(bare))
    assert wikigate(root, "hooks", "install", "--server", str(bare)).returncode == 0
    return root


def loaded(root: Path, entry: str, tmp_path: Path) -> tuple[set[str], dict[str, list[str]]]:
    """The top-level packages ``entry`` loaded, and which modules asked for a heavy one."""
    modules, asked = loaded_modules(root, entry, tmp_path)
    return {name.split(".")[0] for name in modules}, asked


def loaded_modules(
    root: Path, entry: str, tmp_path: Path, args: list[str] | None = None
) -> tuple[set[str], dict[str, list[str]]]:
    """Every module ``entry`` loaded (``args``: other arguments than ENTRIES' own), and
    which modules asked for a heavy one."""
    module, function, own = ENTRIES[entry]
    args = own if args is None else args
    tmp_path.mkdir(parents=True, exist_ok=True)
    out = tmp_path / "modules.json"
    cwd, stdin, env = root, None, None
    if entry == "MCP tools":  # tests/support on the path, as the suite has it
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent)}
    if entry == "server pre-receive":  # as the shim runs it: in the bare repository
        cwd = root.parent / "server.git"
        main, feature = (git(root, "rev-parse", ref).stdout.strip() for ref in ("main", "feature"))
        stdin = f"{main} {feature} refs/heads/main\n"
        env = {**os.environ, "GIT_DIR": str(cwd)}
    proc = subprocess.run(
        [sys.executable, "-c", WRAPPER, module, function, *args, str(out)],
        cwd=cwd,
        input=stdin,
        env=env,
        capture_output=True,
        text=True,
    )
    assert out.exists(), f"{entry} did not run to its exit: {proc.stdout}{proc.stderr}"
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "hook failed" not in proc.stderr, proc.stderr
    found = json.loads(out.read_text())
    return set(found["modules"]), found["asked"]


@pytest.mark.slow
@pytest.mark.parametrize("entry", sorted(ENTRIES))
def test_start_up_does_not_import(tiny_wiki, tmp_path, entry):
    modules, asked = loaded(tiny_wiki, entry, tmp_path)
    assert "pygit2" in modules  # the entry point did its work
    assert "multiprocessing" not in modules, asked.get("multiprocessing")
    assert "pydantic" not in modules, asked.get("pydantic")
    # importlib.metadata reads versions with the email parser (~25 ms of CPU a process);
    # the caches' versions come from metadata directories' names (verifier/version.py)
    assert "email" not in modules
    # pygit2 imports ssl at its own import (pygit2.settings); nothing else may, but for
    # asyncio in the MCP server (its event loop, which the SDK runs on anyway)
    ssl_from = {"pygit2.settings"}
    if entry == "MCP tools":
        ssl_from |= {"asyncio.base_events", "asyncio.selector_events", "asyncio.sslproto"}
    assert set(asked.get("ssl", [])) <= ssl_from, asked.get("ssl")
    assert "pygit2.settings" in asked.get("ssl", []), asked.get("ssl")


# Imported on first use (issue 25): what reads a verdict never loads what lands one (the
# finalizer, its attestations and publishing, sweeping runs, rebuilding the telemetry), nor
# the PDF boxes' thread pool, nor the presentation rules' reader when no rule asks for it.
LANDING = ("wikigate.finalize", "wikigate.attest", "wikigate.reconcile", "wikigate.publish")
ON_FIRST_USE = (*LANDING, "wikigate.rebuild", "concurrent.futures")


@pytest.mark.slow
def test_verify_branch_loads_nothing_it_does_not_use(tiny_wiki, tmp_path):
    modules, _ = loaded_modules(tiny_wiki, "wikigate verify BRANCH", tmp_path)
    assert "wikigate.verifier.checks.citations" in modules  # the checks ran
    assert not set(ON_FIRST_USE) & modules, set(ON_FIRST_USE) & modules


@pytest.mark.slow
def test_a_verify_all_the_cache_answers_imports_no_check(tiny_wiki, tmp_path):
    """A second ``verify --all`` of the same tree is answered from the whole-wiki report
    cache (verifier/reportcache.py) before the engine, the page cache or any check's module
    is imported."""
    args = ["verify", "--all", "--format", "json"]
    first, _ = loaded_modules(tiny_wiki, "wikigate verify BRANCH", tmp_path / "a", args)
    assert "wikigate.verifier.engine" in first  # verified, and its report kept
    again, _ = loaded_modules(tiny_wiki, "wikigate verify BRANCH", tmp_path / "b", args)
    assert "wikigate.verifier.reportcache" in again
    checks = {m for m in again if m.startswith("wikigate.verifier.checks")}
    assert "wikigate.verifier.engine" not in again and not checks, checks
    assert "wikigate.verifier.wiki" not in again  # its row read with sqlite3 alone
    assert "sqlite_utils" not in again  # no finding: no override to set aside, no store
    assert not set(ON_FIRST_USE) & again


def fresh_modules(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    proc = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys; print(*sorted(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(proc.stdout.split())


def test_the_registry_imports_a_check_when_it_runs():
    """``CHECKS`` names each check's function as ``module:function``: importing the
    registry imports no check's module (but the context every check sees); each name
    resolves to a function, its module imported then."""
    from wikigate.verifier.checks import CHECKS

    modules = fresh_modules("import wikigate.verifier.checks")
    checks = {m for m in modules if m.startswith("wikigate.verifier.checks.")}
    assert checks == {"wikigate.verifier.checks.context"}, checks
    for check in CHECKS:
        assert callable(check.fn), check.name
        assert isinstance(check.run, str) and check.fn.__name__ == check.run.partition(":")[2]
    # the presentation rules' reader, only where [presentation] rules ask for it
    assert "wikigate.verifier.checks.reading" not in fresh_modules(
        "import wikigate.verifier.checks.presentation"
    )


# The rules are read without pydantic when the quick check vouches for them
# (wikigate/plain.py: quick_validate); whatever it accepts, pydantic must accept and make
# the same of, and what it cannot vouch for goes to pydantic, whose errors users see.
SECTIONS = {
    f.name: [g.name for g in dataclasses.fields(getattr(Config(), f.name))]
    for f in dataclasses.fields(Config)
}
VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**65), max_value=2**65)
    | st.sampled_from([0, 1, 50, 51, 255, 256, 1000, 20_000, 128_000])
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from(
        [
            "",
            "x",
            "SKEPTICAL",
            "CALM",
            "offline",
            "anthropic",
            "sentence",
            "page.orphan",
            "minor",
            "off",
            "str",
            "wiki/a.md",
            "wiki/d/",
            "wiki/a.md#^1",
            "wiki/../a.md",
            "ingest",
            "disabled",
            "3",
        ]
    ),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "x",
                    "ingest",
                    "page.orphan",
                    "wiki/a.md",
                    "append",
                    "input",
                    "output",
                    "cache_write",
                    "cache_read",
                    "min_cache_tokens",
                    "m",
                ]
            ),
            inner,
            max_size=3,
        )
    ),
    max_leaves=6,
)


@st.composite
def rule_files(draw: st.DrawFn) -> dict[str, object]:
    data: dict[str, object] = {}
    for section in draw(st.lists(st.sampled_from(sorted(SECTIONS)), max_size=3, unique=True)):
        keys = st.sampled_from([*SECTIONS[section], "bogus"])
        data[section] = draw(st.dictionaries(keys, VALUES, max_size=3))
    return data


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(rule_files())
def test_the_quick_check_of_the_rules_agrees_with_pydantic(data):
    from pydantic import ValidationError

    quick = quick_validate(Config, data)
    try:
        validated = Config.model_validate(data)
    except ValidationError:
        assert quick is None, f"quick check accepted what pydantic refuses: {data!r}"
        return
    if quick is not None:
        assert quick == validated
        assert quick.model_dump_json() == validated.model_dump_json()


def test_a_bad_rule_file_is_worded_by_pydantic():
    with pytest.raises(ConfigError) as bad:
        parse_config('[runs]\nmax_rebases = 51\n[judge]\nmodel = ""\n', "wikigate.toml")
    assert str(bad.value) == (
        "wikigate.toml: runs.max_rebases: Input should be less than or equal to 50"
    )
    assert quick_validate(Config, tomllib.loads(DEFAULT_TOML)) == parse_config(DEFAULT_TOML, "x")
