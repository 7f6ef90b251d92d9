"""The local gates, ``pre-push`` and ``reference-transaction``: main moves only when
every run between its old and new tip has a passing verdict note.

They trust the local notes (``refs/notes/wikigate``) and the remotes' as last fetched
(``refs/wikigate/origin/notes``, where ``git fetch`` brings them once the hooks are
installed), and what a gated remote recorded accepting onto its trunk
(``refs/wikigate/origin/server-notes``): client hooks stop mistakes, not adversaries
(docs/hooks.md).
"""

from __future__ import annotations

import subprocess
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where needed: a hook with nothing to do loads no pygit2, no pydantic
    import pygit2


from .common import NOTES_REF, ZERO, adoption_point, main_ref, ref_updates
from .common import err as _err
from .common import null as _null

# ---------------------------------------------------------------- the chain of runs (local)


def passing(note: dict[str, object] | None) -> bool:
    """A note that lets its run onto main: verified and committed, or a recorded override
    or approval by a person (``verify approve`` of a run that waited for one)."""
    if note is None or note.get("status") != "committed":
        return False
    if note.get("verdict") in ("commit_override", "commit_approved"):
        return bool(note.get("override_actor"))
    return note.get("verdict") == "commit" and not note.get("unverified")


def unpassed_run(
    repo: pygit2.Repository,
    old: str | None,
    new: str,
    notes_commit: str | None = None,
    adopted: str | None = None,
) -> str | None:
    """Why main may not move from ``old`` to ``new``; None when every run between passed.

    Walks main's first-parent history back from ``new`` one run at a time: the commit
    reached must carry a passing note, whose ``base_commit`` is where its run began and
    the previous run ended.  The walk ends at ``old`` or an ancestor of it (with no
    ``old``: at a root commit), or at ``adopted`` (where this clone's hooks began:
    history before them has no notes) or an ancestor of it.  Notes come from
    ``notes_commit`` or the notes ref.
    """
    stops = _stops(repo, old, adopted)
    return _first_unpassed(repo, stops, new, notes_commit)


def unpassed_commits(
    repo: pygit2.Repository, old: str | None, new: str, adopted: str | None = None
) -> tuple[str, int] | None:
    """What pre-push would say of moving main from ``old`` to ``new`` and how many
    first-parent commits, from the first it refuses back to where the walk stops, carry
    no passing note; None when it would let the push through (``wikigate doctor``)."""
    from wikigate.gitrepo import commit_at

    stops = _stops(repo, old, adopted)
    why = _first_unpassed(repo, stops, new, None)
    if why is None:
        return None
    count, cur = 0, commit_at(repo, new)
    while not _reached(repo, cur, stops):
        if not passing(_note(repo, cur.id, None)):
            count += 1
        if not cur.parents:
            break
        cur = cur.parents[0]
    return why, count


# a person's decision recorded on a run (``verify approve``, ``verify override``)
DECIDED = ("commit_approved", "commit_override")


def decided_point(
    repo: pygit2.Repository, old: str | None, new: str, adopted: str | None = None
) -> str | None:
    """Where a re-verification of moving ``old`` → ``new`` begins, as the pre-push hook
    reads the same history (one path for both pre-push gates: this one and pre-commit's
    ``wikigate-verify``): the newest commit on ``new``'s first-parent line that is a
    person's recorded decision (a passing note whose verdict is in DECIDED: a repository
    file or a rules change approved) with every run from ``old`` (or ``adopted``) up to it
    passing, else ``adopted`` (where this clone's hooks began: the adoption commits are
    no run's) when it lies between ``old`` and ``new``; None when neither: judge from
    ``old``. What comes after that point is judged by its rules."""
    import pygit2

    from wikigate.gitrepo import commit_at

    stops = _stops(repo, old, adopted)
    try:
        tip = commit_at(repo, new)
    except Exception:  # noqa: BLE001 - not a commit here: nothing is decided
        return None
    cur = tip
    while not _reached(repo, cur, stops):
        note = _note(repo, cur.id, None)
        decided = passing(note) and note is not None and note.get("verdict") in DECIDED
        if decided and _first_unpassed(repo, stops, str(cur.id), None) is None:
            return str(cur.id)
        if not cur.parents:
            break
        cur = cur.parents[0]
    if not adopted or _null(adopted):
        return None
    point = pygit2.Oid(hex=adopted)
    if point not in repo.odb or not (point == tip.id or repo.descendant_of(tip.id, point)):
        return None  # not in what is pushed
    if old and not _null(old):
        since = pygit2.Oid(hex=old)
        if since in repo.odb and (since == point or not repo.descendant_of(point, since)):
            return None  # the adoption point is old news: judge from old
    return adopted


def _stops(repo: pygit2.Repository, old: str | None, adopted: str | None) -> list[pygit2.Oid]:
    import pygit2

    stops = []
    for sha in (old, adopted):
        if sha and not _null(sha):
            oid = pygit2.Oid(hex=sha)
            if oid in repo.odb:  # an adoption point this clone does not have stops nothing
                stops.append(oid)
    return stops


def _first_unpassed(
    repo: pygit2.Repository, stops: list[pygit2.Oid], new: str, notes_commit: str | None
) -> str | None:
    from wikigate.gitrepo import commit_at

    cur = commit_at(repo, new)
    while not _reached(repo, cur, stops):
        note = _note(repo, cur.id, notes_commit)
        if not passing(note):
            return _why(cur, note)
        assert note is not None
        base = str(note.get("base_commit") or "")
        walk = cur
        while str(walk.id) != base or walk.id == cur.id:
            if walk.id in stops:
                return None  # the run began before old: it was checked when main got there
            if not walk.parents:
                return (
                    f"{str(cur.id)[:12]} (run {note.get('run_id')}): the base_commit of its note, "
                    f"{base[:12] or '(none)'}, is not in its first-parent history"
                )
            walk = walk.parents[0]
        cur = walk
    return None


def _note(
    repo: pygit2.Repository, commit: pygit2.Oid, notes_commit: str | None
) -> dict[str, object] | None:
    """The run note on ``commit``: this clone's (or the one being written), else a
    remote's as last fetched (runs that other clones landed and pushed), else what a
    gated remote recorded accepting onto its trunk (SERVER_NOTES_REF, as fetched)."""
    from wikigate.gitrepo import (
        read_note,
        ref_target,
        remote_notes_ref,
        remote_server_notes_ref,
    )

    note = read_note(repo, commit, notes_commit)
    if passing(note):
        return note
    for name in repo.remotes.names():
        if not name:
            continue
        for ref in (remote_notes_ref(name), remote_server_notes_ref(name)):
            theirs = ref_target(repo, ref)
            found = read_note(repo, commit, theirs) if theirs is not None else None
            if passing(found):
                return found
            note = note or found  # none passes: the one that says why
    return note


def merge_remote_notes(repo: pygit2.Repository, remote: str) -> str | None:
    """Fetch ``remote``'s notes into their private ref and merge them into the local
    notes (local records win where both annotate a commit), so that pushing the local
    notes is a fast-forward and loses nobody's records. Returns git's complaint, if any."""
    from wikigate.gitrepo import ref_target, remote_notes_ref

    if remote not in repo.remotes.names():
        return None  # a URL: nothing of it is tracked here
    theirs = remote_notes_ref(remote)
    fetch = _git(
        repo,
        "fetch",
        "--no-tags",
        "--quiet",
        "--no-write-fetch-head",
        remote,
        f"+{NOTES_REF}:{theirs}",
    )
    if fetch.returncode != 0:
        if "couldn't find remote ref" in fetch.stderr:
            return None  # the remote has no notes yet
        return fetch.stderr.strip()
    if ref_target(repo, theirs) is None:
        return None
    merged = _git(repo, "notes", "--ref", NOTES_REF, "merge", "--quiet", "-s", "ours", theirs)
    return merged.stderr.strip() if merged.returncode != 0 else None


def _git(repo: pygit2.Repository, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "--git-dir", repo.path, *args], capture_output=True, text=True, check=False
    )


def _reached(repo: pygit2.Repository, commit: pygit2.Commit, stops: list[pygit2.Oid]) -> bool:
    if not stops:
        return not commit.parents
    return any(commit.id == stop or repo.descendant_of(stop, commit.id) for stop in stops)


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
    if not updates:
        return 0
    trunk = main_ref()  # the trunk: the same name here and on the remote
    branch = trunk.removeprefix("refs/heads/")
    if not any(remote_ref == trunk for _l, _s, remote_ref, _r in updates):
        return 0
    import pygit2

    remote = argv[0] if argv else "origin"
    repo = pygit2.Repository(pygit2.discover_repository("."))
    adopted = adoption_point()  # history before the hooks went in has no run notes
    moves_main = False
    for _local_ref, local_sha, remote_ref, remote_sha in updates:
        if remote_ref != trunk or _null(local_sha):
            continue
        moves_main = True
        known = not _null(remote_sha) and pygit2.Oid(hex=remote_sha) in repo.odb
        why = unpassed_run(repo, remote_sha if known else None, local_sha, adopted=adopted)
        if why is not None:
            _err(
                f"wikigate: refusing to push {branch} to {local_sha[:12]}: a run on it has no "
                "passing verdict in refs/notes/wikigate:",
                f"  {why}",
                "  Land changes through runs (`wikigate run finalize`); check a commit with "
                "`wikigate verify`; `wikigate doctor` counts the commits a push refuses.",
            )
            return 1
    if moves_main and NOTES_REF in repo.references:
        complaint = merge_remote_notes(repo, remote)
        if complaint:
            _err(
                f"wikigate: could not merge {remote}'s refs/notes/wikigate into the local notes:",
                *("  " + ln for ln in complaint.splitlines()),
            )
            return 1
        proc = subprocess.run(
            ["git", "push", "--no-verify", "--quiet", remote, f"{NOTES_REF}:{NOTES_REF}"],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            _err(
                f"wikigate: could not push refs/notes/wikigate along with {branch}:",
                *("  " + ln for ln in proc.stderr.strip().splitlines()),
                "  Someone pushed notes in between: push again (the hook merges them first).",
            )
            return 1
    return 0


# ---------------------------------------------------------------- reference-transaction


def reference_transaction(argv: list[str], stdin: str) -> int:
    """In the prepared state, refuse moving main unless every run it brings passed."""
    if not argv or argv[0] != "prepared":
        return 0
    updates = ref_updates(stdin)
    # a note written in the same transaction (wikigate's own landing) counts
    notes = next((n for _o, n, ref in updates if ref == NOTES_REF and not _null(n)), None)
    repo = None
    trunk = main_ref()
    for old, new, ref in updates:
        if ref != trunk or _null(new) or old == new:
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
            current = ref_target(repo, trunk)
            old = str(current) if current is not None else ZERO
        why = unpassed_run(repo, old, new, notes)
        if why is None:
            continue
        landing = notes is not None and why.startswith(new[:12])  # wikigate landing this run
        name = trunk.removeprefix("refs/heads/")
        hint = (
            f"  This {name} is protected by wikigate's hooks: finalize the run with "
            "verification; a rejected run lands only by `wikigate verify override RUN "
            "--reason ...`."
            if landing
            else f"  Changes reach {name} through `wikigate run finalize` (or `wikigate verify "
            "override`). If `git merge --ff-only` stopped here, your index and files already "
            "show the merged content; restore them with `git reset --merge HEAD`."
        )
        _err(
            f"wikigate: refusing to move {name} to {new[:12]}: a run on it has no passing "
            "verdict in refs/notes/wikigate:",
            f"  {why}",
            hint,
        )
        return 1
    return 0
