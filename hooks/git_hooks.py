"""Git hooks: local ``pre-push`` and ``reference-transaction``, server ``pre-receive``.

Shims installed by ``wikigate hooks install`` run ``python -m wikigate.hooks.git_hooks
HOOK ARGS...`` with git's stdin.  Nothing here imports anthropic or github.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time

import pygit2

from wikigate.gitrepo import MAIN, NOTES_REF, read_note, repository

ZERO = "0" * 40
PASSING = ("commit", "commit_override")


def _err(*lines: str) -> None:
    for line in lines:
        print(line, file=sys.stderr)


def verdict_of(repo: pygit2.Repository, commit: str, notes_commit: str | None = None) -> str | None:
    """The passing verdict recorded for ``commit`` (from ``notes_commit`` or the notes ref)."""
    data = read_note(repo, commit, notes_commit)
    if data is None or data.get("status") != "committed":
        return None
    verdict = data.get("verdict")
    return verdict if verdict in PASSING else None


# ---------------------------------------------------------------- pre-push


def pre_push(argv: list[str], stdin: str) -> int:
    """Refuse moving main to a commit without a passing verdict; push the notes along."""
    remote = argv[0] if argv else "origin"
    repo = pygit2.Repository(pygit2.discover_repository("."))
    moves_main = False
    for line in stdin.splitlines():
        parts = line.split()
        if len(parts) != 4:
            continue
        _local_ref, local_sha, remote_ref, _remote_sha = parts
        if remote_ref != MAIN or local_sha == ZERO:
            continue
        moves_main = True
        if verdict_of(repo, local_sha) is None:
            _err(
                f"wikigate: refusing to push main to {local_sha[:12]}: it has no commit or "
                "commit_override verdict in refs/notes/wikigate.",
                "  Land changes through a run (`wikigate run finalize`), or check this commit "
                "with `wikigate verify`.",
            )
            return 1
    if moves_main and NOTES_REF in repo.references:
        proc = subprocess.run(
            ["git", "push", "--no-verify", "--quiet", remote, f"{NOTES_REF}:{NOTES_REF}"],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            _err(
                "wikigate: could not push refs/notes/wikigate along with main:",
                *("  " + ln for ln in proc.stderr.strip().splitlines()),
                "  Fetch and merge the remote notes (`git fetch origin "
                "refs/notes/wikigate:refs/notes/wikigate-remote && git notes --ref=wikigate "
                "merge -s union refs/notes/wikigate-remote`), then push again.",
            )
            return 1
    return 0


# ---------------------------------------------------------------- reference-transaction


def reference_transaction(argv: list[str], stdin: str) -> int:
    """In the prepared state, refuse updates of main to commits without a passing verdict."""
    if not argv or argv[0] != "prepared":
        return 0
    repo = None
    for line in stdin.splitlines():
        parts = line.split()
        if len(parts) != 3 or parts[2] != MAIN or set(parts[1]) == {"0"} or parts[0] == parts[1]:
            continue  # not main, a deletion, or a no-op rewrite (e.g. `git reset --merge HEAD`)
        repo = repo or pygit2.Repository(pygit2.discover_repository("."))
        new = parts[1]
        try:
            commit = repo[new]
        except (KeyError, ValueError):
            continue
        if not isinstance(commit, pygit2.Commit) or verdict_of(repo, new) is not None:
            continue
        _err(
            f"wikigate: refusing to move main to {new[:12]}: no commit or commit_override "
            "verdict in refs/notes/wikigate.",
            "  Changes reach main through `wikigate run finalize` (or `wikigate verify override`).",
            "  If `git merge --ff-only` stopped here, your index and files already show the "
            "merged content; restore them with `git reset --merge HEAD`.",
        )
        return 1
    return 0


# ---------------------------------------------------------------- pre-receive


def pre_receive(argv: list[str], stdin: str) -> int:
    """Accept main only as a fast-forward to a verified commit (or, with verify_on_push, verify)."""
    repo = repository(os.environ.get("GIT_DIR", "."))  # sees the quarantined objects
    updates = [line.split() for line in stdin.splitlines() if len(line.split()) == 3]
    notes_commit = next(
        (new for _old, new, ref in updates if ref == NOTES_REF and new != ZERO), None
    )
    mains = [(old, new) for old, new, ref in updates if ref == MAIN]
    if not mains:
        return 0  # run branches and everything else pass freely
    old, new = mains[0]
    if new == ZERO:
        _err("wikigate: main cannot be deleted on this server.")
        return 1
    _serialize_pushes(repo.path)
    current = str(repo.references[MAIN].target) if MAIN in repo.references else ZERO
    if current != old:
        _err(
            "wikigate: main moved while you were pushing (another push won).",
            "  Fetch, rebase your run onto the new main, verify again, and push again.",
        )
        return 1
    if old != ZERO and not repo.descendant_of(pygit2.Oid(hex=new), pygit2.Oid(hex=old)):
        _err(
            f"wikigate: main {old[:12]} → {new[:12]} is not a fast-forward.",
            "  Rebase onto the server's main, verify again, and push again.",
        )
        return 1
    if old == ZERO:
        return 0  # creating main: the gate applies from the next update on
    if verdict_of(repo, new, notes_commit) is not None:
        return 0
    return _verify_on_push(repo, old, new)


def _verify_on_push(repo: pygit2.Repository, old: str, new: str) -> int:
    from wikigate.workspace import Workspace

    ws = Workspace(repo)
    if not ws.config.verifier.verify_on_push:
        _err(
            f"wikigate: refusing main → {new[:12]}: no commit or commit_override verdict "
            "note for it in this push or on the server.",
            "  Push refs/notes/wikigate together with main "
            "(`git push origin main refs/notes/wikigate`), after `wikigate run finalize`.",
        )
        return 1
    from wikigate.verifier.default import cache_path
    from wikigate.verifier.engine import verify_trees

    report = verify_trees(repo, repo[new], repo[old], config=ws.config, cache_path=cache_path(ws))
    if report.verdict == "commit":
        return 0
    _err(f"wikigate: verification of main → {new[:12]} says {report.verdict}:")
    from .precommit import BLOCKING, format_line

    _err(*("  " + format_line(f) for f in report.findings if f.severity in BLOCKING))
    return 1


def _serialize_pushes(git_dir: str) -> None:
    """Hold a lock from now until receive-pack has updated the refs and exited.

    Two racing pushes then see each other: the second one's pre-receive waits,
    finds main moved, and tells the pusher to rebase.  A forked child keeps the
    lock (flock is released by the kernel whatever happens) until our parent,
    receive-pack, is gone.
    """
    receive_pack = int(os.environ.get("WIKIGATE_GIT_PID") or os.getppid())
    fd = os.open(os.path.join(git_dir, "wikigate-receive.lock"), os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + 60
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() > deadline:
                os.close(fd)
                return
            time.sleep(0.02)
    if os.fork() == 0:  # child: detach from git's pipes, wait for receive-pack to exit
        try:
            os.setsid()
            devnull = os.open(os.devnull, os.O_RDWR)
            for std in (0, 1, 2):
                os.dup2(devnull, std)
            os.closerange(3, fd)
            os.closerange(fd + 1, 1024)
            end = time.monotonic() + 120
            while time.monotonic() < end:
                try:
                    os.kill(receive_pack, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.02)
        finally:
            os._exit(0)
    os.close(fd)


HOOKS = {
    "pre-push": pre_push,
    "reference-transaction": reference_transaction,
    "pre-receive": pre_receive,
}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] not in HOOKS:
        _err(f"usage: python -m wikigate.hooks.git_hooks {{{','.join(HOOKS)}}} [ARGS]")
        return 2
    stdin = sys.stdin.read() if not sys.stdin.isatty() else ""
    return HOOKS[args[0]](args[1:], stdin)


if __name__ == "__main__":
    sys.exit(main())
