"""``wikigate hooks install``: shims in .git/hooks (or core.hooksPath), chaining existing hooks.

An existing hook that is not ours is kept as ``HOOK.legacy`` and still runs
first (the way pre-commit keeps ``.legacy``); uninstall puts it back.
"""

from __future__ import annotations

import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pygit2

from wikigate.config import CONFIG_FILE, load_config, parse_config
from wikigate.errors import GitError
from wikigate.gitrepo import (
    ADOPTED_KEY,
    MAIN,
    MAIN_BRANCH_KEY,
    NOTES_REF,
    check_branch_name,
    main_ref,
    notes_fetch_refspec,
    remote_notes_ref,
)

MARKER = "# wikigate-hook-shim"
LOCAL_HOOKS = ("pre-push", "reference-transaction")
SERVER_HOOKS = ("pre-receive", "post-receive")

SHIM = """#!/bin/sh
{marker} (installed by `wikigate hooks install`; remove with `wikigate hooks install --uninstall`)
HERE=$(cd "$(dirname "$0")" && pwd)
WIKIGATE_GIT_PID=$PPID; export WIKIGATE_GIT_PID   # the git process that runs this hook
INPUT=$(cat)
if [ -x "$HERE/{hook}.legacy" ]; then
    printf '%s\\n' "$INPUT" | "$HERE/{hook}.legacy" "$@" || exit $?
fi
{guard}printf '%s\\n' "$INPUT" | exec {python} -P -m wikigate.hooks.git_hooks {hook} "$@"
"""

# Shell-level fast paths: git runs reference-transaction three times per ref update
# (staging a run's op included); only a prepared update of the trunk (git config
# wikigate.mainBranch, default main) needs Python. A name that is not plain goes to
# Python, which refuses it: the guard never waves through what Python would stop.
GUARDS = {
    "reference-transaction": (
        '[ "$1" = prepared ] || exit 0\n'
        f"TRUNK=$(git config --get {MAIN_BRANCH_KEY}) || TRUNK=main\n"
        'case "$TRUNK" in *[!A-Za-z0-9._/-]*) ;; *)\n'
        '    case "$INPUT" in *" refs/heads/$TRUNK"*) ;; *) exit 0 ;; esac ;;\n'
        "esac\n"
    ),
}


def hooks_dir(repo: pygit2.Repository) -> Path:
    try:
        configured = repo.config["core.hooksPath"]
    except KeyError:
        configured = None
    if configured:
        path = Path(os.path.expanduser(configured))
        base = Path(repo.workdir) if repo.workdir else Path(repo.path)
        return path if path.is_absolute() else base / path
    return Path(repo.path) / "hooks"


def install(repo: pygit2.Repository, names: tuple[str, ...]) -> list[str]:
    folder = hooks_dir(repo)
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:  # refuse before touching anything: never lose a hook
        hook, legacy = folder / name, folder / f"{name}.legacy"
        if hook.exists() and not _ours(hook) and legacy.exists():
            raise GitError(
                f"{hook} and {legacy} both exist and neither is wikigate's (another hook "
                f"manager, e.g. pre-commit, chains {name}.legacy too); merge them into one "
                f"{name}.legacy by hand, then install again"
            )
    done = []
    for name in names:
        hook = folder / name
        if hook.exists() and not _ours(hook):
            hook.replace(folder / f"{name}.legacy")
        hook.write_text(
            SHIM.format(
                marker=MARKER,
                hook=name,
                python=shlex.quote(sys.executable),
                guard=GUARDS.get(name, ""),
            )
        )
        hook.chmod(hook.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        done.append(str(hook))
    return done


def uninstall(repo: pygit2.Repository, names: tuple[str, ...]) -> list[str]:
    folder = hooks_dir(repo)
    done = []
    for name in names:
        hook = folder / name
        if hook.exists() and _ours(hook):
            hook.unlink()
            legacy = folder / f"{name}.legacy"
            if legacy.exists():
                legacy.replace(hook)
            done.append(str(hook))
    return done


def _ours(path: Path) -> bool:
    try:
        return MARKER in path.read_text(errors="replace")
    except OSError:
        return False


def fetch_notes_refspec(repo: pygit2.Repository) -> list[str]:
    """Make `git fetch` bring each remote's refs/notes/wikigate into a private ref
    (``refs/wikigate/origin/notes``; idempotent), and what a gated server accepted
    (SERVER_NOTES_REF, into ``refs/wikigate/origin/notes-server``), by one glob refspec
    (gitrepo.notes_fetch_refspec). The local notes are never a fetch's
    destination: a forced refspec there deletes this clone's unpushed run records. The
    local hooks read both; pre-push merges the remote's into the local notes before
    pushing them. A refspec an earlier version added is replaced."""
    added = []
    for remote in repo.remotes:
        if not remote.name:
            continue
        # earlier versions' refspecs: plain ones, which make `git fetch` fail on a
        # remote that has no notes yet ("couldn't find remote ref")
        legacy = (f"+{NOTES_REF}:{NOTES_REF}", f"+{NOTES_REF}:{remote_notes_ref(remote.name)}")
        for old in legacy:
            if old in remote.fetch_refspecs:
                subprocess.run(
                    [
                        "git",
                        "--git-dir",
                        repo.path,
                        "config",
                        "--fixed-value",
                        "--unset-all",
                        f"remote.{remote.name}.fetch",
                        old,
                    ],
                    capture_output=True,
                    check=False,
                )
        spec = notes_fetch_refspec(remote.name)
        if spec not in repo.remotes[remote.name].fetch_refspecs:
            repo.remotes.add_fetch(remote.name, spec)
            added.append(remote.name)
    return added


def install_local(path: str, uninstall_: bool = False, main_branch: str | None = None) -> list[str]:
    repo = _open(path)
    if uninstall_:
        done = uninstall(repo, LOCAL_HOOKS)
        if ADOPTED_KEY in repo.config:
            del repo.config[ADOPTED_KEY]
        return done
    if main_branch is not None:
        repo.config[MAIN_BRANCH_KEY] = _checked(main_branch)
    trunk = main_ref(repo)  # a bad setting stops the install, naming it
    fresh = not all(_ours(hooks_dir(repo) / name) for name in LOCAL_HOOKS)
    done = install(repo, LOCAL_HOOKS)
    fetch_notes_refspec(repo)
    branch = trunk.removeprefix("refs/heads/")
    tip = repo.references[trunk].target if trunk in repo.references else None
    if tip is not None and (fresh or ADOPTED_KEY not in repo.config) and not _runs_on(repo, tip):
        repo.config[ADOPTED_KEY] = str(tip)
        done.append(
            f"note: {branch} at {str(tip)[:12]}: where the hooks begin (git config "
            f"{ADOPTED_KEY}); "
            "a push asks run notes of the commits after it only"
        )
    if trunk not in repo.references:
        done.append(
            f"warning: the hooks gate {branch} (git config {MAIN_BRANCH_KEY}, default main), "
            f"and there is no branch {branch} here: run `wikigate init` on your trunk (it "
            f"records its name) or `git config {MAIN_BRANCH_KEY} BRANCH`"
        )
    return done


def _runs_on(repo: pygit2.Repository, tip: pygit2.Oid | str) -> bool:
    """Does the trunk's first-parent history up to ``tip`` hold a run (a commit with a
    note in refs/notes/wikigate)? Then wikigate is in use here already, and a commit
    without a note is a mistake the hooks must catch: no adoption point is recorded."""
    if NOTES_REF not in repo.references:
        return False
    listed = subprocess.run(
        ["git", "--git-dir", repo.path, "notes", "--ref", NOTES_REF, "list"],
        capture_output=True,
        text=True,
        check=False,
    )
    if listed.returncode != 0:
        return True  # unreadable: record nothing, the hooks ask every commit for its note
    annotated = {line.split()[-1] for line in listed.stdout.splitlines() if line.strip()}
    if not annotated:
        return False
    commit: pygit2.Commit | None = repo[tip].peel(pygit2.Commit)
    while commit is not None:
        if str(commit.id) in annotated:
            return True
        commit = commit.parents[0] if commit.parents else None
    return False


def install_server(
    path: str, uninstall_: bool = False, main_branch: str | None = None
) -> list[str]:
    """The pre-receive gate, verification on push, and push options for overrides.

    An operator's explicit ``verify_on_push`` in ``BARE.git/wikigate.toml`` is kept
    (and reported); otherwise ``[server] verify_on_push = true`` is written there.
    The trunk it gates is recorded in the bare repository's own git config
    (``server_trunk``).
    """
    repo = _open(path)
    if not repo.is_bare:
        raise GitError(f"{path}: --server expects a bare repository (the one you push to)")
    if uninstall_:
        return uninstall(repo, SERVER_HOOKS)
    trunk_line = server_trunk(repo, main_branch)  # a bad name stops the install first
    done = install(repo, SERVER_HOOKS)
    done.append(trunk_line)
    done.append(server_settings(Path(repo.path)))
    for key, value in SERVER_GIT_CONFIG.items():
        repo.config[key] = value
        done.append(f"{Path(repo.path) / 'config'}: {key} = {value}")
    done.append(head_on_main(repo))
    return done


def _checked(name: str) -> str:
    return check_branch_name(name, "--main-branch").removeprefix("refs/heads/")


def server_trunk(repo: pygit2.Repository, chosen: str | None) -> str:
    """The trunk the server gates, in ``BARE.git/config`` (``wikigate.mainBranch``: the
    operator's file, which no push can change): ``--main-branch``, else the one set, else
    the branch the bare HEAD names when it exists and main does not (a vault pushed on
    ``master`` before the gate went in), else main."""
    path = Path(repo.path) / "config"
    if chosen is not None:
        name = _checked(chosen)
        repo.config[MAIN_BRANCH_KEY] = name
        return f"{path}: {MAIN_BRANCH_KEY} = {name} (the branch this gate guards)"
    if MAIN_BRANCH_KEY in repo.config:
        name = main_ref(repo).removeprefix("refs/heads/")
        return f"{path}: {MAIN_BRANCH_KEY} = {name} (kept: the branch this gate guards)"
    head = repo.references.get("HEAD")
    target = head.target if head is not None else None
    if (
        isinstance(target, str)
        and target != MAIN
        and target in repo.references
        and MAIN not in repo.references
    ):
        name = _checked(target.removeprefix("refs/heads/"))
        repo.config[MAIN_BRANCH_KEY] = name
        return f"{path}: {MAIN_BRANCH_KEY} = {name} (HEAD's branch: the branch this gate guards)"
    return f"{path}: the gate guards main (set {MAIN_BRANCH_KEY} or pass --main-branch for another)"


def head_on_main(repo: pygit2.Repository) -> str:
    """The branch a clone checks out is the one the gate guards (the trunk, ``main_ref``):
    a HEAD naming a branch that does not exist yet (``git init --bare`` names master) is
    pointed at the trunk; one naming another existing branch is left, with a warning:
    which branch readers get is the operator's decision."""
    MAIN_REF = main_ref(repo)  # noqa: N806 - the trunk, as the constant it replaced
    head = repo.references.get("HEAD")
    target = head.target if head is not None else None
    if target == MAIN_REF:
        return f"{repo.path}HEAD -> {MAIN_REF}: what clones check out is gated"
    if isinstance(target, str) and target not in repo.references:
        repo.references.create("HEAD", MAIN_REF, force=True)
        return f"{repo.path}HEAD -> {MAIN_REF} (was {target}, a branch not there): what clones check out is gated"
    return (
        f"warning: {repo.path}HEAD -> {target}, which the gate does not guard (it guards "
        f"{MAIN_REF}), and clones check it out: `git -C {repo.path} symbolic-ref HEAD "
        f"{MAIN_REF}`"
    )


# git itself refuses malformed objects before the gate looks at them: duplicate tree
# entries (whose first and last copy git and a reader may see differently), `.`, `..`
# and `.git` entries, unsorted trees (which make clones fail to check out); and the bare
# repository keeps a reflog of every ref (a bare one keeps none by default)
SERVER_GIT_CONFIG: dict[str, str | bool] = {
    "core.logAllRefUpdates": "always",
    "receive.advertisePushOptions": True,
    "receive.fsckObjects": True,
    "receive.fsck.hasDot": "error",
    "receive.fsck.hasDotdot": "error",
    "receive.fsck.hasDotgit": "error",
}


SERVER_TOML = """\
# wikigate server settings (docs/config.md, "Server settings"). Only this file, in the
# server's git dir, sets them: no push can change it.
[server]
verify_on_push = true   # verify every update of main here, OLD -> NEW, under OLD's rules
# override_users = ["alice"]              # who may land a refused update (git push -o wikigate-override="why")
# admins = ["alice"]                      # who may delete or rewrite refs/notes/wikigate, refs/wikigate/artifacts
# user_env = ["GL_USER", "REMOTE_USER"]   # where the pushing user's name is read from
"""


def server_settings(git_dir: Path) -> str:
    """Write ``verify_on_push = true`` unless the operator chose; say what is in force."""
    path = git_dir / CONFIG_FILE
    if not path.exists():
        path.write_text(SERVER_TOML, encoding="utf-8")
        return f"{path}: [server] verify_on_push = true"
    text = path.read_text(encoding="utf-8")
    cfg = load_config(git_dir)  # an invalid file stops the install, naming it
    chosen = cfg.server.verify_on_push
    if chosen is None and cfg.verifier.verify_on_push is not None:
        chosen = cfg.verifier.verify_on_push
    if chosen is None:
        lines = text.splitlines(keepends=True)
        at = next((i for i, ln in enumerate(lines) if ln.split("#")[0].strip() == "[server]"), None)
        line = "verify_on_push = true\n"
        if at is None:
            lines += ["\n" if text and not text.endswith("\n") else "", "\n[server]\n", line]
        else:
            lines.insert(at + 1, line)
        parse_config("".join(lines), str(path))  # still valid, or nothing is written
        path.write_text("".join(lines), encoding="utf-8")
        return f"{path}: [server] verify_on_push = true"
    if chosen:
        return f"{path}: verify_on_push = true (kept)"
    return (
        f"{path}: verify_on_push = false (kept, your choice): this server will refuse every "
        "update of main except recorded overrides"
    )


def _open(path: str) -> pygit2.Repository:
    found = pygit2.discover_repository(path)
    if found is None:
        raise GitError(f"{path}: not a git repository")
    return pygit2.Repository(found)
