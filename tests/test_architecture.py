"""The layers of docs/architecture.md hold: imports go one way, and nothing imports in
a cycle.  Read from the source with ``ast`` (the installed package maps top-level
folders into ``wikigate.*``, which import-graph tools do not follow).  Every import is an
edge: at the top, inside a function, or under ``TYPE_CHECKING`` (a type-only import is
still a dependency, and a cycle through one is a cycle in the design)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {
    "wikigate": ROOT / "wikigate",
    "wikigate.verifier": ROOT / "verifier",
    "wikigate.hooks": ROOT / "hooks",
    "wikigate.bot": ROOT / "bot",
}

# what the verifier may use of the engine's package: data models and reading git
VERIFIER_MAY_USE = {
    "wikigate",
    "wikigate.codes",
    "wikigate.config",
    "wikigate.errors",
    "wikigate.gitrepo",
    "wikigate.htmlpage",
    "wikigate.models",
    "wikigate.plain",
    "wikigate.paths",
    "wikigate.runid",
    "wikigate.text",
    "wikigate.trace",
}
# the surfaces: they use the library; the library never uses them
SURFACES = (
    "wikigate.__main__",
    "wikigate.cli",
    "wikigate.hooks",
    "wikigate.bot",
    "wikigate.demo",
    "wikigate.mcp_server",
)
# the application layer over engine and verifier (what the CLI, hooks and bot call)
APPLICATION = (
    "wikigate.changes",
    "wikigate.anchors",
    "wikigate.adopt",
    "wikigate.ledger",
    "wikigate.health",
    "wikigate.baseline",
    "wikigate.reportfilter",
    "wikigate.stats",
    "wikigate.ledgerview",
)
# the engine's Python API entry: the engine's other modules take an Env, not a Workspace
WORKSPACE = "wikigate.workspace"


def modules() -> dict[str, Path]:
    found = {}
    for package, folder in FOLDERS.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            name = ".".join([package, *parts]) if parts else package
            if package == "wikigate" and parts and parts[0] in ("verifier", "hooks", "bot"):
                continue
            found[name] = path
    return found


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Modules ``name`` imports: at the top, inside functions and under TYPE_CHECKING."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base]) if base else ".".join(anchor)
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                out.add(candidate if candidate in known else base)
    return {m for m in out if m.split(".")[0] == "wikigate" and m != name}


@functools.cache
def _graph() -> dict[str, frozenset[str]]:  # parsed once a process: every test reads it
    mods = modules()
    known = set(mods)
    return {name: frozenset(imports(name, path, known) & known) for name, path in mods.items()}


def graph() -> dict[str, set[str]]:
    """Each module's imports of the package's modules (a copy the caller may change)."""
    return {name: set(deps) for name, deps in _graph().items()}


def _under(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def test_the_verifier_uses_only_models_and_git_reading_of_the_engine():
    bad = {
        (m, dep)
        for m, deps in graph().items()
        if m.startswith("wikigate.verifier")
        for dep in deps
        if not dep.startswith("wikigate.verifier") and dep not in VERIFIER_MAY_USE
    }
    assert bad == set()


def test_the_engine_knows_verifiers_only_by_their_protocol():
    bad = {
        (m, dep)
        for m, deps in graph().items()
        if not _under(m, ("wikigate.verifier", *SURFACES, *APPLICATION))
        for dep in deps
        if _under(dep, ("wikigate.verifier",))
        and dep not in ("wikigate.verifier", "wikigate.verifier.protocol")
    }
    assert bad == set()


def test_the_library_never_imports_a_surface():
    bad = {
        (m, dep)
        for m, deps in graph().items()
        if not _under(m, SURFACES)
        for dep in deps
        if _under(dep, SURFACES)
    }
    assert bad == set()


def test_no_import_cycles():
    deps = graph()
    deps.pop("wikigate", None)  # the root package's lazy `Workspace` export
    for edges in deps.values():
        edges.discard("wikigate")
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(deps.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append([*trail[trail.index(nxt) :], nxt] if nxt in trail else [node, nxt])
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for node in sorted(deps):
        if node not in state:
            visit(node, [node])
    assert cycles == []


def test_the_engine_below_the_workspace_takes_an_env_not_a_workspace():
    """The Workspace is the Python API's entry; the engine's modules get an Env."""
    bad = {
        m
        for m, deps in graph().items()
        if m not in ("wikigate", WORKSPACE)
        and not _under(m, (*SURFACES, *APPLICATION))
        and WORKSPACE in deps
    }
    assert bad == set()


def test_a_run_never_calls_up_into_finalize():
    assert "wikigate.finalize" not in graph()["wikigate.run"]


def test_every_module_is_mapped_in_the_architecture_doc():
    doc = (ROOT / "docs" / "architecture.md").read_text()
    missing = [
        m
        for m in modules()
        if m not in ("wikigate", "wikigate.__main__") and f"`{m.rsplit('.', 1)[-1]}" not in doc
    ]
    assert missing == []
