"""The local gates, ``pre-push`` and ``reference-transaction``: main moves only when
every run between its old and new tip has a passing verdict note.

They trust the local notes (``refs/notes/wikigate``): they are the user's own, and
client hooks stop mistakes, not adversaries (docs/hooks.md).
"""

from __future__ import annotations

import subprocess
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where needed: a hook with nothing to do loads no pygit2, no pydantic
    import pygit2


from .common import MAIN, NOTES_REF, ZERO
from .common import err as _err
from .common import null as _null

# ---------------------------------------------------------------- the chain of runs (local)


def passing(note: dict[str, object] | None) -> bool:
    """A note that lets its run onto main: verified and committed, or a recorded override."""
    if note is None or note.get("status") != "committed":
        return False
    if note.get("verdict") == "commit_override":
        return bool(note.get("override_actor"))
    return note.get("verdict") == "commit" and not note.get("unverified")


def unpassed_run(
    repo: pygit2.Repository, old: str | None, new: str, notes_commit: str | None = None
) -> str | None:
    """Why main may not move from ``old`` to ``new``; None when every run between passed.

    Walks main's first-parent history back from ``new`` one run at a time: the commit
    reached must carry a passing note, whose ``base_commit`` is where its run began and
    the previous run ended.  The walk ends at ``old`` or an ancestor of it (with no
    ``old``: at a root commit).  Notes come from ``notes_commit`` or the notes ref.
    """
    import pygit2

    from wikigate.gitrepo import commit_at, read_note

    stop = pygit2.Oid(hex=old) if old and not _null(old) else None
    cur = commit_at(repo, new)
    while not _reached(repo, cur, stop):
        note = read_note(repo, cur.id, notes_commit)
        if not passing(note):
            return _why(cur, note)
        assert note is not None
        base = str(note.get("base_commit") or "")
        walk = cur
        while str(walk.id) != base or walk.id == cur.id:
            if walk.id == stop:
                return None  # the run began before old: it was checked when main got there
            if not walk.parents:
                return (
                    f"{str(cur.id)[:12]} (run {note.get('run_id')}): the base_commit of its note, "
                    f"{base[:12] or '(none)'}, is not in its first-parent history"
                )
            walk = walk.parents[0]
        cur = walk
    return None


def _reached(repo: pygit2.Repository, commit: pygit2.Commit, stop: pygit2.Oid | None) -> bool:
    if stop is None:
        return not commit.parents
    return commit.id == stop or repo.descendant_of(stop, commit.id)


def _why(commit: pygit2.Commit, note: dict[str, object] | None) -> str:
    if note is None:
        return (
            f"{str(commit.id)[:12]} is not the tip of a verified run: no wikigate run note on it "
            "in refs/notes/wikigate"
        )
    run = note.get("run_id")
    if note.get("status") == "committed" and note.get("unverified"):
        return (
            f"{str(commit.id)[:12]} (run {run}) was committed with --no-verify and has no recorded "
            f'override; record one with `wikigate verify override {run} --reason "..."`'
        )
    return (
        f"{str(commit.id)[:12]} (run {run}) has status {note.get('status')}, verdict "
        f"{note.get('verdict')}: not a commit or commit_override"
    )


# ---------------------------------------------------------------- pre-push


def pre_push(argv: list[str], stdin: str) -> int:
    """Refuse moving main unless every run it brings passed; push the notes along."""
    updates = [parts for parts in map(str.split, stdin.splitlines()) if len(parts) == 4]
    if not any(remote_ref == MAIN for _l, _s, remote_ref, _r in updates):
        return 0
    import pygit2

    remote = argv[0] if argv else "origin"
    repo = pygit2.Repository(pygit2.discover_repository("."))
    moves_main = False
    for _local_ref, local_sha, remote_ref, remote_sha in updates:
        if remote_ref != MAIN or _null(local_sha):
            continue
        moves_main = True
        known = not _null(remote_sha) and pygit2.Oid(hex=remote_sha) in repo.odb
        why = unpassed_run(repo, remote_sha if known else None, local_sha)
        if why is not None:
            _err(
                f"wikigate: refusing to push main to {local_sha[:12]}: a run on it has no "
                "passing verdict in refs/notes/wikigate:",
                f"  {why}",
                "  Land changes through runs (`wikigate run finalize`); check a commit with "
                "`wikigate verify`.",
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
    """In the prepared state, refuse moving main unless every run it brings passed."""
    if not argv or argv[0] != "prepared":
        return 0
    updates = [parts for parts in map(str.split, stdin.splitlines()) if len(parts) == 3]
    # a note written in the same transaction (wikigate's own landing) counts
    notes = next((n for _o, n, ref in updates if ref == NOTES_REF and not _null(n)), None)
    repo = None
    for old, new, ref in updates:
        if ref != MAIN or _null(new) or old == new:
            continue  # not main, a deletion, or a no-op rewrite (e.g. `git reset --merge HEAD`)
        import pygit2

        from wikigate.gitrepo import ref_target

        repo = repo or pygit2.Repository(pygit2.discover_repository("."))
        try:
            if not isinstance(repo[new], pygit2.Commit):
                continue
        except (KeyError, ValueError):
            continue
        if _null(old):  # git passes no old value for some updates: main is still there
            current = ref_target(repo, MAIN)
            old = str(current) if current is not None else ZERO
        why = unpassed_run(repo, old, new, notes)
        if why is None:
            continue
        landing = notes is not None and why.startswith(new[:12])  # wikigate landing this run
        hint = (
            "  This main is protected by wikigate's hooks: finalize the run with verification;"
            " a rejected run lands only by `wikigate verify override RUN --reason ...`."
            if landing
            else "  Changes reach main through `wikigate run finalize` (or `wikigate verify "
            "override`). If `git merge --ff-only` stopped here, your index and files already "
            "show the merged content; restore them with `git reset --merge HEAD`."
        )
        _err(
            f"wikigate: refusing to move main to {new[:12]}: a run on it has no passing "
            "verdict in refs/notes/wikigate:",
            f"  {why}",
            hint,
        )
        return 1
    return 0
