"""``wikigate doctor``: what is installed and set up for this workspace, and what is not,
each with how to fix it; exit 0 only when nothing needs fixing.

Looked at: Python; the repository, its main branch and its rules; the local hooks
(``pre-push``, ``reference-transaction``); each remote's notes refspec; the server gate of
a remote that is a local bare repository; the extras (needed ones fail: ``pdf`` when
``raw/`` on main holds a PDF, ``anthropic`` when the rules' judge is the LLM); the judge's
API key. Nothing is changed.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import click

from .app import cli
from .base import format_option

if TYPE_CHECKING:
    import pygit2


class Check(NamedTuple):
    name: str
    ok: bool
    detail: str
    fix: str | None = None  # what to run or set; None when ok


def diagnose(root: Path) -> list[Check]:
    """Every check, in order; a check that cannot run says why (and fails)."""
    import pygit2

    checks = [_python()]
    found = pygit2.discover_repository(str(root))
    if found is None:
        checks.append(
            Check("repository", False, f"{root} is not in a git repository", "wikigate init")
        )
        return checks
    repo = pygit2.Repository(found)
    checks.append(Check("repository", True, repo.workdir or repo.path))
    checks += _branch_and_rules(repo)
    checks += _local_hooks(repo)
    checks += _notes_refspecs(repo)
    checks += _server_gates(repo)
    checks += _pushes(repo)
    checks += _extras_and_judge(repo)
    return checks


def _python() -> Check:
    version = ".".join(map(str, sys.version_info[:3]))
    ok = sys.version_info >= (3, 11)
    return Check(
        "python",
        ok,
        f"Python {version} ({sys.executable})",
        None if ok else "install Python 3.11 or newer",
    )


def _branch_and_rules(repo: pygit2.Repository) -> list[Check]:
    import pygit2

    from wikigate.config import CONFIG_FILE, config_at
    from wikigate.errors import ConfigError, GitError
    from wikigate.gitrepo import MAIN_BRANCH_KEY, branch_name, main_ref, reading_trunk
    from wikigate.paths import WIKI
    from wikigate.workspace import layout_report

    out = []
    try:
        trunk = main_ref(repo)
    except GitError as e:
        return [Check("branch", False, str(e), f"git config {MAIN_BRANCH_KEY} BRANCH")]
    branch = trunk.removeprefix("refs/heads/")
    main = repo.references.get(trunk)
    head = (
        "detached"
        if repo.head_is_detached
        else repo.head.shorthand
        if not repo.head_is_unborn
        else "unborn"
    )
    reading = reading_trunk(repo, trunk) if main is None else None
    if main is None and reading is not None:  # a contributor's clone: verify reads it
        main = repo.references[reading]
        trunk, branch = reading, branch_name(reading)
        out.append(
            Check(
                "branch",
                True,
                f"{branch} at {str(main.target)[:12]}: origin's default branch, read as the "
                f"trunk by verify, anchor and the hooks (no local trunk; HEAD: {head}); runs "
                f"land only on a local trunk: `wikigate init` on it records its name",
            )
        )
    elif main is None:
        return [
            Check(
                "branch",
                False,
                f"no branch {branch}: runs land on {branch} (git config {MAIN_BRANCH_KEY}, "
                f"default main; HEAD: {head})",
                "wikigate init on the branch your wiki lives on (it records its name), or "
                f"`git config {MAIN_BRANCH_KEY} BRANCH`",
            )
        ]
    else:
        out.append(Check("branch", True, f"{branch} at {str(main.target)[:12]} (HEAD: {head})"))
    assert main is not None
    tree = repo[main.target].peel(pygit2.Tree)
    layout = WIKI  # where the pages are: the rules' [wiki], when they can be read
    if CONFIG_FILE not in tree:
        out.append(
            Check(
                "rules",
                False,
                f"{branch} has no {CONFIG_FILE}",
                f"wikigate init, on {branch} (adds what is missing)",
            )
        )
    else:
        try:
            layout = config_at(repo, main.target).wiki.layout()
            out.append(Check("rules", True, f"{CONFIG_FILE} on {branch}"))
        except ConfigError as e:
            out.append(Check("rules", False, str(e), f"fix {CONFIG_FILE} through a run"))
    lines = layout_report(repo, trunk, layout, 3, hints=False)
    if layout.index in tree:
        out.append(Check("wiki", True, "; ".join(lines)))
    else:  # the orphan check starts there: without it every page is an orphan
        out.append(
            Check(
                "wiki",
                False,
                f"{branch} has no {layout.index}, where the orphan check starts: every page "
                f"is an orphan ({'; '.join(lines)})",
                f"add {layout.index} linking the pages, through a run (`wikigate run write "
                f"RUN {layout.index}`), or `wikigate init` before `wikigate hooks install`",
            )
        )
    return out


def _local_hooks(repo: pygit2.Repository) -> list[Check]:
    from wikigate.hooks.install import LOCAL_HOOKS, _ours, chained_by_pre_commit, hooks_dir

    folder = hooks_dir(repo)
    out = []
    for name in LOCAL_HOOKS:
        path = folder / name
        chained = chained_by_pre_commit(folder, name)
        if chained:  # pre-commit's hook runs wikigate's first, as NAME.legacy
            path = folder / f"{name}.legacy"
        if not _ours(path):
            out.append(
                Check(
                    f"hook {name}",
                    False,
                    f"{path} is not installed"
                    if not path.exists()
                    else f"{path} is another tool's (wikigate's would chain it)",
                    "wikigate hooks install",
                )
            )
        elif os.name != "nt" and not os.access(path, os.X_OK):
            out.append(
                Check(f"hook {name}", False, f"{path} is not executable", f"chmod +x {path}")
            )
        else:
            how = f" (pre-commit's {name} hook runs it first)" if chained else ""
            out.append(Check(f"hook {name}", True, f"{path}{how}"))
    return out


def _notes_refspecs(repo: pygit2.Repository) -> list[Check]:
    from wikigate.gitrepo import NOTES_REF, notes_fetch_refspec

    out = []
    for remote in repo.remotes:
        if not remote.name:
            continue
        spec = notes_fetch_refspec(remote.name)
        if spec in remote.fetch_refspecs:
            out.append(Check(f"notes from {remote.name}", True, f"fetch {spec}"))
        else:
            out.append(
                Check(
                    f"notes from {remote.name}",
                    False,
                    f"`git fetch {remote.name}` does not bring its run records ({NOTES_REF})",
                    "wikigate hooks install (adds the refspec)",
                )
            )
    if not out:
        out.append(Check("notes", True, "no remote: nothing to fetch run records from"))
    return out


def _server_gates(repo: pygit2.Repository) -> list[Check]:
    """The pre-receive gate of each remote that is a bare repository on this machine (a
    remote on a server or on GitHub cannot be looked at from here: not listed)."""
    import pygit2

    from wikigate.errors import GitError
    from wikigate.gitrepo import MAIN_BRANCH_KEY, main_ref
    from wikigate.hooks.install import _ours, hooks_dir

    out = []
    for remote in repo.remotes:
        url = remote.url or ""
        path = Path(url.removeprefix("file://"))
        if not remote.name or "://" in url.removeprefix("file://") or not path.is_dir():
            continue
        try:
            bare = pygit2.Repository(str(path))
        except pygit2.GitError:
            continue
        if not bare.is_bare:
            continue
        hook = hooks_dir(bare) / "pre-receive"
        ok = _ours(hook)
        detail = str(hook) if ok else f"{path} has no wikigate pre-receive gate"
        fix = None if ok else f"wikigate hooks install --server {path}"
        try:
            theirs, ours = main_ref(bare), main_ref(repo)
        except GitError as e:
            ok, detail, fix = False, str(e), f"git config {MAIN_BRANCH_KEY} BRANCH"
        else:
            if ok and theirs != ours:
                ok = False
                gated = theirs.removeprefix("refs/heads/")
                detail = (
                    f"{path} gates {gated}, this clone's trunk is "
                    f"{ours.removeprefix('refs/heads/')}: this clone lands where the server "
                    "gates nothing"
                )
                if theirs in bare.references:
                    # the server's trunk has history: the clone follows it (re-pointing the
                    # server would leave that trunk ungated)
                    fix = f"git config {MAIN_BRANCH_KEY} {gated}"
                else:  # a server with no trunk yet: it gates the one this clone will push
                    fix = (
                        f"wikigate hooks install --server {path} --main-branch "
                        f"{ours.removeprefix('refs/heads/')}"
                    )
        out.append(Check(f"server gate ({remote.name})", ok, detail, fix))
    return out


def _pushes(repo: pygit2.Repository) -> list[Check]:
    """Whether the local pre-push hook lets the trunk reach each remote: the commits on it
    since the remote's branch (as last fetched; with none, all of them) and since where the
    hooks began (git config wikigate.adoptedAt) must be runs with a passing note."""
    from wikigate.errors import GitError
    from wikigate.gitrepo import ADOPTED_KEY, main_ref
    from wikigate.hooks.install import _ours, chained_by_pre_commit, hooks_dir
    from wikigate.hooks.local import unpassed_commits

    try:
        trunk = main_ref(repo)
    except GitError:
        return []  # reported by the branch check
    main = repo.references.get(trunk)
    folder = hooks_dir(repo)
    if main is None or not (
        _ours(folder / "pre-push") or chained_by_pre_commit(folder, "pre-push")
    ):
        return []  # no trunk (said), or no hook to refuse a push (said)
    branch = trunk.removeprefix("refs/heads/")
    try:
        adopted: str | None = str(repo.config[ADOPTED_KEY])
    except KeyError:
        adopted = None
    out = []
    # with no remote, a push to a path or URL: all of the trunk since the hooks began
    # (trial 28b N8: doctor said all is well of commits a push to a bare path refused)
    targets: list[str | None] = [r.name for r in repo.remotes if r.name] or [None]
    for remote_name in targets:
        theirs = (
            repo.references.get(f"refs/remotes/{remote_name}/{branch}") if remote_name else None
        )
        old = str(theirs.target) if theirs is not None else None
        refused = unpassed_commits(repo, old, str(main.target), adopted)
        name = f"push {branch} to {remote_name or 'a remote (none is configured)'}"
        if refused is None:
            out.append(Check(name, True, "every commit it brings is a run with a passing note"))
            continue
        why, count = refused
        out.append(
            Check(
                name,
                False,
                f"{count} commit(s) on {branch} without a run note that a push will refuse "
                f"(pre-push: {why})",
                "land the change through a run (`wikigate run start`, `run finalize`); only "
                "if they predate wikigate's hooks (init's commit, setup commits), as a last "
                f"resort: `git push --no-verify {remote_name or 'REMOTE'} {branch}`, which "
                "skips every push hook, pre-commit's too (a server gate still verifies)",
            )
        )
    return out


def _extras_and_judge(repo: pygit2.Repository) -> list[Check]:
    from wikigate.config import Config, config_at
    from wikigate.errors import ConfigError, GitError
    from wikigate.extras import EXTRAS, install_hint, installed
    from wikigate.gitrepo import branch_name, main_ref
    from wikigate.verifier.judges.choose import API_KEY_ENV

    try:
        main = repo.references.get(main_ref(repo))
    except GitError:
        main = None  # reported by the branch check
    try:
        config = config_at(repo, main.target) if main is not None else Config()
    except ConfigError:
        config = Config()  # reported by the rules check
    provider = config.judge.provider
    needed = {
        "pdf": f"raw/ on {branch_name(main.name)} holds a PDF"
        if main is not None and _has_pdf(repo, main.target)
        else None,
        "anthropic": '[judge] provider = "anthropic"' if provider == "anthropic" else None,
    }
    out = []
    for module, (extra, dist) in EXTRAS.items():
        if module == "pathspec":
            continue  # the github extra's second package: one line for the extra
        why = needed.get(extra)
        if installed(module):
            out.append(Check(f"extra {extra}", True, f"{dist} installed"))
        elif why:
            out.append(
                Check(
                    f"extra {extra}",
                    False,
                    f"{dist} is not installed, and {why}",
                    install_hint(module),
                )
            )
        else:
            out.append(
                Check(
                    f"extra {extra}",
                    True,
                    f"{dist} not installed (optional: {install_hint(module)})",
                )
            )
    if provider != "anthropic":
        out.append(Check("judge", True, f"{provider} (no API key needed)"))
    elif os.environ.get(API_KEY_ENV):
        out.append(Check("judge", True, f"anthropic, {API_KEY_ENV} set"))
    else:
        out.append(
            Check(
                "judge",
                False,
                f"the rules' judge is anthropic and {API_KEY_ENV} is not set",
                f'export {API_KEY_ENV}=… (a secret in CI), or [judge] provider = "offline"',
            )
        )
    return out


def _has_pdf(repo: pygit2.Repository, commit: pygit2.Oid | str) -> bool:
    import pygit2

    tree = repo[commit].peel(pygit2.Tree)
    if "raw" not in tree:
        return False
    todo = [repo[tree["raw"].id]]
    while todo:
        node = todo.pop()
        if not isinstance(node, pygit2.Tree):
            continue
        for entry in node:
            if entry.type == pygit2.enums.ObjectType.TREE:
                todo.append(repo[entry.id])
            elif (entry.name or "").lower().endswith(".pdf"):
                return True
    return False


@cli.command()
@format_option()
@click.pass_context
def doctor(ctx: click.Context, fmt: str) -> None:
    """What is installed and set up here (Python, the trunk, rules, hooks, notes refspec, server
    gate, extras, the judge's key), and how to fix what is not; exit 0 only when all is
    well."""
    checks = diagnose(Path(ctx.find_root().obj["repo"]))
    if fmt == "json":
        click.echo(json.dumps([c._asdict() for c in checks], indent=2))
    else:
        for c in checks:
            click.echo(f"{'ok' if c.ok else 'FAIL':5} {c.name}: {c.detail}")
            if c.fix:
                click.echo(f"      fix: {c.fix}")
        failed = sum(not c.ok for c in checks)
        click.echo("all is well" if not failed else f"{failed} to fix")
    ctx.exit(0 if all(c.ok for c in checks) else 1)
