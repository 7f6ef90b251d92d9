"""The git plumbing the engine needs, all in memory through pygit2.

Nothing here touches the working tree except :func:`checkout_fast_forward`,
which makes a checked-out ``main`` follow a fast-forward like
``git merge --ff-only`` does.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Literal

import pygit2

from .errors import DirtyWorktreeError, GitError, UsageError
from .text import first_unprintable, shown

MAIN = "refs/heads/main"  # the default trunk; a repository's own is `main_ref(repo)`
MAIN_BRANCH_KEY = "wikigate.mainBranch"  # git config: the trunk's branch name (docs/config.md)
ADOPTED_KEY = "wikigate.adoptedAt"  # git config: the trunk's tip when the hooks went in
NOTES_REF = "refs/notes/wikigate"
ORIGIN_NOTES = "refs/wikigate/origin/notes"  # origin's NOTES_REF as last fetched (notes_fetch)


def remote_notes_ref(remote: str) -> str:
    """Where a remote's ``refs/notes/wikigate`` is fetched to: a private ref, never the
    local notes (a forced fetch there would delete this clone's unpushed run records)."""
    return ORIGIN_NOTES if remote == "origin" else f"refs/wikigate/remotes/{remote}/notes"


# What a gated server accepted onto its trunk: a note on each new tip, written by the
# server's post-receive hook alone (pushes to it are refused), so that clones whose local
# hooks guard the trunk may fast-forward to commits the server verified (hooks/server.py).
SERVER_NOTES_REF = "refs/notes/wikigate-server"


def remote_server_notes_ref(remote: str) -> str:
    """Where a remote's SERVER_NOTES_REF is fetched to: remote_notes_ref + ``-server``,
    as the one glob refspec ``+refs/notes/wikigate*:<remote_notes_ref>*`` maps it (a
    glob, so that a remote with neither ref fetches as before: git refuses a plain
    refspec whose source the remote lacks)."""
    return remote_notes_ref(remote) + "-server"


def notes_fetch_refspec(remote: str) -> str:
    """The refspec that brings a remote's NOTES_REF and SERVER_NOTES_REF to their
    private refs (remote_notes_ref, remote_server_notes_ref)."""
    return f"+{NOTES_REF}*:{remote_notes_ref(remote)}*"


RUN_PREFIX = "refs/heads/wikigate/runs/"


def check_branch_name(name: str, where: str) -> str:
    """``refs/heads/NAME`` for a trunk branch name, or a GitError saying what is wrong."""
    from .paths import trunk_problem

    ref = f"refs/heads/{name}"
    problem = trunk_problem(name)
    if problem is None and not pygit2.reference_is_valid_name(ref):
        problem = "git refuses it as a branch name"
    if problem is not None:
        raise GitError(
            f"{where}: {shown(name)} is not a branch wikigate can gate ({problem}); name "
            f"a plain branch such as main, master or trunk: `git config {MAIN_BRANCH_KEY} BRANCH`"
        )
    return ref


def main_ref(repo: pygit2.Repository) -> str:
    """The trunk this repository gates: ``refs/heads/`` + git config ``wikigate.mainBranch``,
    else ``refs/heads/main``.  Read from the repository's git config, never from a commit:
    the rules live on the trunk, so they cannot name it, and nothing a writer or a pusher
    sends reaches a repository's config (on a server, ``BARE.git/config`` is the operator's).
    A name that is not a branch wikigate can gate is a GitError (fail closed)."""
    try:
        name = repo.config[MAIN_BRANCH_KEY]
    except KeyError:
        return MAIN
    return check_branch_name(str(name), f"git config {MAIN_BRANCH_KEY}")


def branch_name(ref: str) -> str:
    """A branch's name as a person types it (``master``, ``origin/master``), for messages."""
    return ref.removeprefix("refs/heads/").removeprefix("refs/remotes/")


def reading_trunk(repo: pygit2.Repository, main: str) -> str | None:
    """For a command that only reads (``verify``, ``anchor``, the ``wikigate-verify``
    hook), when the trunk ``main`` is no branch here: in a contributor's fresh clone that
    was never told its trunk, the branch origin's HEAD names (as ``wikigate-commit`` reads
    it): the local branch of that name, else origin's as fetched; when git config
    ``wikigate.mainBranch`` names the trunk, origin's branch of that name. None when there
    is none. Never for a command that lands: runs land on a local trunk only."""
    told = MAIN_BRANCH_KEY in repo.config
    name = branch_name(main) if told else origin_head_branch(repo)
    if not name:
        return None
    for ref in (f"refs/heads/{name}", f"refs/remotes/origin/{name}"):
        if ref != main and ref_target(repo, ref) is not None:
            return ref
    return None


def origin_head_branch(repo: pygit2.Repository) -> str | None:
    """The branch ``origin``'s HEAD names in a clone (``refs/remotes/origin/HEAD``), for a
    hint only: which branch is gated is the repository's own setting (:func:`main_ref`)."""
    try:
        ref = repo.references.get("refs/remotes/origin/HEAD")
    except (pygit2.GitError, ValueError):
        return None
    target = ref.target if ref is not None else None
    if not isinstance(target, str) or not target.startswith("refs/remotes/origin/"):
        return None
    name = target.removeprefix("refs/remotes/origin/")
    try:
        return check_branch_name(name, "origin's HEAD").removeprefix("refs/heads/")
    except GitError:
        return None


def stand_in_note(repo: pygit2.Repository, reading: str) -> str | None:
    """What a command that reads ``reading`` instead of the configured trunk says on
    stderr (:func:`reading_trunk`); None when it reads the trunk itself."""
    configured = main_ref(repo)
    if reading == configured:
        return None
    name = branch_name(reading).removeprefix("origin/")
    return (
        f"note: no branch '{branch_name(configured)}' here; reading {branch_name(reading)} "
        f"(origin's default branch) as the trunk. Say so once: `git config {MAIN_BRANCH_KEY} "
        f"{name}` (or `wikigate init`)"
    )


FAILED_PREFIX = "refs/wikigate/failed/"
ARTIFACTS_REF = "refs/wikigate/artifacts"  # every verification's artifacts (attest.py)


# libgit2 re-hashes every object it reads; git itself does not (`git fsck` does).
# With a gigabyte of raw sources that doubles the cost of a cold verify.
pygit2.option(pygit2.enums.Option.ENABLE_STRICT_HASH_VERIFICATION, False)
# libgit2 maps a pack in windows of 1 GiB, up to 8 GiB in all, and keeps them: reading
# every source of a 1 GiB pack left each worker holding ~70 MB of it. Smaller windows,
# fewer kept, cost nothing measurable (docs/benchmarks.md).
pygit2.settings.mwindow_size = 32 * 2**20
pygit2.settings.mwindow_mapped_limit = 128 * 2**20


def repository(git_dir: str) -> pygit2.Repository:
    """Open a repository by its git dir, seeing what git sees from here: inside a
    pre-receive hook, pushed objects wait in a quarantine directory that git names
    in the environment and libgit2 does not read on its own."""
    repo = pygit2.Repository(git_dir)
    quarantine = os.environ.get("GIT_QUARANTINE_PATH")
    if quarantine:
        repo.odb.add_disk_alternate(quarantine)
    return repo


def open_repo(path: str | os.PathLike[str]) -> pygit2.Repository:
    try:
        found = pygit2.discover_repository(str(path))
    except pygit2.GitError as e:  # pragma: no cover - libgit2 raises on odd paths only
        raise GitError(f"{path}: not a git repository ({e})") from e
    if found is None:
        raise GitError(f"{path}: not a git repository (run `wikigate init {path}` first)")
    return pygit2.Repository(found)


def signature(repo: pygit2.Repository) -> pygit2.Signature:
    """The committer identity: git config / GIT_* env, else a wikigate default. An
    identity git refuses (a ``<``, ``>`` or newline in it) is a UsageError naming where
    it was set."""
    name = os.environ.get("GIT_COMMITTER_NAME")
    email = os.environ.get("GIT_COMMITTER_EMAIL")
    where = {"name": "GIT_COMMITTER_NAME", "email": "GIT_COMMITTER_EMAIL"}
    if not (name and email):
        try:
            cfg = repo.config
            if not name:
                name, where["name"] = cfg["user.name"], "git config user.name"
            if not email:
                email, where["email"] = cfg["user.email"], "git config user.email"
        except (KeyError, pygit2.GitError):
            name, email = name or "wikigate", email or "wikigate@localhost"
    try:
        return pygit2.Signature(str(name), str(email))
    except (ValueError, pygit2.GitError) as e:
        bad = "name" if _refused(str(name)) or not _refused(str(email)) else "email"
        value = name if bad == "name" else email
        raise UsageError(
            f"the committer {bad} {str(value)[:200]!r} ({where[bad]}) is not a usable git "
            f"identity ({e}): it may not hold '<', '>' or a line break; set it with "
            f'`git config user.{bad} "…"`'
        ) from e


def _refused(part: str) -> bool:
    return any(ch in part for ch in "<>\n\0")


def actor(repo: pygit2.Repository) -> str:
    sig = signature(repo)
    return f"{sig.name} <{sig.email}>"


# ---------------------------------------------------------------- typed objects


def commit_at(repo: pygit2.Repository, oid: pygit2.Oid | str) -> pygit2.Commit:
    obj = repo[oid]
    if not isinstance(obj, pygit2.Commit):
        raise GitError(f"{oid} is a {obj.type_str}, not a commit")
    return obj


def tree_at(repo: pygit2.Repository, oid: pygit2.Oid | str) -> pygit2.Tree:
    obj = repo[oid]
    if not isinstance(obj, pygit2.Tree):
        raise GitError(f"{oid} is a {obj.type_str}, not a tree")
    return obj


def blob_at(repo: pygit2.Repository, oid: pygit2.Oid | str) -> pygit2.Blob:
    obj = repo[oid]
    if not isinstance(obj, pygit2.Blob):
        raise GitError(f"{oid} is a {obj.type_str}, not a file")
    return obj


# ---------------------------------------------------------------- trees


def tree_with(
    repo: pygit2.Repository,
    tree: pygit2.Tree | None,
    path: str,
    blob: pygit2.Oid | None,
    mode: int = pygit2.GIT_FILEMODE_BLOB,
    _at: str = "",
) -> pygit2.Oid:
    """Return the id of ``tree`` with ``path`` set to ``blob`` (or removed when None)."""
    head, _, rest = path.partition("/")
    builder = repo.TreeBuilder(tree) if tree is not None else repo.TreeBuilder()
    if rest:
        sub: pygit2.Tree | None = None
        if tree is not None and head in tree:
            entry = tree[head]
            if entry.type_str != "tree":
                raise GitError(f"{_at}{head} is a file, not a folder")
            sub = tree_at(repo, entry.id)
        new_sub = tree_with(repo, sub, rest, blob, mode, f"{_at}{head}/")
        if len(tree_at(repo, new_sub)) == 0:
            if head in (tree or ()):
                builder.remove(head)
        else:
            builder.insert(head, new_sub, pygit2.GIT_FILEMODE_TREE)
    elif blob is None:
        if tree is not None and head in tree:
            builder.remove(head)
    else:
        builder.insert(head, blob, mode)
    return builder.write()


def read_blob(repo: pygit2.Repository, tree: pygit2.Tree, path: str) -> bytes | None:
    try:
        entry = tree[path]
    except KeyError:
        return None
    if entry.type_str != "blob":
        return None
    return bytes(blob_at(repo, entry.id).data)


def changed_lines(
    repo: pygit2.Repository,
    base: pygit2.Tree,
    head: pygit2.Tree,
    paths: Iterable[str],
    *,
    context: int = 3,
    added_only: bool = False,
) -> dict[str, set[int] | None]:
    """path → the head-side lines of its hunks (with ``context`` lines around them; only
    the lines added with ``added_only``), None for a binary file, for those of ``paths``
    the change added or modified. Only these paths are diffed: a head whose trees name
    each other spells millions of files (a tree bomb), and diffing them all would cost
    minutes and gigabytes (the bot's review comments, ``verify --filter``)."""
    out: dict[str, set[int] | None] = {}
    for path in sorted(set(paths)):
        old, new = _file_entry(base, path), _file_entry(head, path)
        if new is None or (old is not None and (old.id, old.filemode) == (new.id, new.filemode)):
            continue
        patch = pygit2.Patch.create_from(
            blob_at(repo, old.id) if old is not None else None,
            blob_at(repo, new.id),
            old_as_path=path,
            new_as_path=path,
            context_lines=context,
        )
        if patch.delta.is_binary:
            out[path] = None
            continue
        out[path] = {
            ln.new_lineno
            for hunk in patch.hunks
            for ln in hunk.lines
            if ln.new_lineno > 0 and (not added_only or ln.origin == "+")
        }
    return out


def _file_entry(tree: pygit2.Tree, path: str) -> pygit2.Object | None:
    """The blob at ``path`` (a file or a symlink), else None."""
    try:
        entry = tree[path]
    except (KeyError, ValueError, pygit2.GitError):
        return None
    return entry if entry.type_str == "blob" else None


def changed_paths(repo: pygit2.Repository, old: pygit2.Tree, new: pygit2.Tree) -> list[str]:
    diff = old.diff_to_tree(new)
    paths: set[str] = set()
    for delta in diff.deltas:
        paths.add(delta.old_file.path)
        paths.add(delta.new_file.path)
    return sorted(paths)


# ---------------------------------------------------------------- trailers


def format_message(subject: str, trailers: Mapping[str, str | list[str]]) -> str:
    """A subject line, a blank line and one ``Key: value`` line per trailer value.

    The subject and every value must be one line without control characters: a
    line break in a value would add or reshape trailers (run.py keeps writer
    input out of reach anyway; this is the second line of defence).
    """
    _one_line("the commit subject", subject)
    lines = []
    for key, value in trailers.items():
        if not key or not all(c.isascii() and (c.isalnum() or c == "-") for c in key):
            raise GitError(f"commit trailer key '{shown(key)}': use letters, digits and '-'")
        for item in value if isinstance(value, list) else [value]:
            _one_line(f"commit trailer {key}", item)
            lines.append(f"{key}: {item}")
    return f"{subject}\n\n" + "\n".join(lines) + "\n"


def _one_line(what: str, value: str) -> None:
    bad = first_unprintable(value, bidi=False)
    if bad is not None:
        raise GitError(
            f"{what}: '{shown(value)}' holds {bad.describe()}; it must be one printable line"
        )


def parse_trailers(message: str) -> dict[str, list[str]]:
    """Parse the last paragraph of a commit message as ``Key: value`` trailers.

    Lines end at ``\\n`` only, as git's do.  A repeated key keeps all its values
    in order; callers that expect one value decide what a repeat means.
    """
    paragraphs = [p for p in message.strip().split("\n\n") if p.strip()]
    if len(paragraphs) < 2:
        return {}
    out: dict[str, list[str]] = {}
    for line in paragraphs[-1].split("\n"):
        key, sep, value = line.partition(": ")
        if not sep or " " in key:
            return {}
        out.setdefault(key, []).append(value)
    return out


# ---------------------------------------------------------------- ref updates


def ref_target(repo: pygit2.Repository, name: str) -> pygit2.Oid | None:
    # Re-read from disk: pygit2 caches nothing here, but be explicit about packed refs.
    try:
        ref = repo.references.get(name)
    except pygit2.GitError:
        return None
    if ref is None:
        return None
    target = ref.resolve().target
    return target if isinstance(target, pygit2.Oid) else None


# ---------------------------------------------------------------- notes


def notes_commit_with(
    repo: pygit2.Repository,
    annotated: pygit2.Oid | str,
    record: dict[str, object],
    parent: pygit2.Oid | str | None | bool = True,
    *,
    sig: pygit2.Signature | None = None,
    also: pygit2.Oid | None = None,
) -> pygit2.Oid:
    """Build (not publish) a notes commit adding ``record`` for ``annotated``.

    ``parent``: the notes commit to build on (None: none); by default the notes ref's
    tip, so the caller must hold the lock of :data:`NOTES_REF` for it to be current.
    ``sig``: who makes it (default: :func:`signature`; the GitHub bot passes its own).
    ``also``: a second parent, a commit the notes' history must hold (the artifacts
    of the verifications the record names: they travel wherever the notes go).
    """
    if parent is True:
        parent = ref_target(repo, NOTES_REF)
    base = None if parent is None or parent is False else parent
    tree = commit_at(repo, base).tree if base else None
    name = str(annotated)
    blob = repo.create_blob(json.dumps(record, indent=2, sort_keys=True).encode() + b"\n")
    builder = repo.TreeBuilder(tree) if tree is not None else repo.TreeBuilder()
    # git writes fan-out trees (ab/cdef...) once notes are many; drop any copy there.
    if tree is not None and name[:2] in tree and tree[name[:2]].type_str == "tree":
        fanned = tree_with(repo, tree_at(repo, tree[name[:2]].id), name[2:], None)
        builder.insert(name[:2], fanned, pygit2.GIT_FILEMODE_TREE)
    builder.insert(name, blob, pygit2.GIT_FILEMODE_BLOB)
    sig = sig or signature(repo)
    parents = [base] if base else []
    if also is not None:
        if not parents:  # the first notes commit: an empty one first, so the artifacts
            empty = repo.TreeBuilder().write()  # are never mistaken for earlier notes
            parents.append(repo.create_commit(None, sig, sig, "wikigate: notes", empty, []))
        parents.append(also)
    return repo.create_commit(
        None, sig, sig, f"wikigate: record for {name}", builder.write(), parents
    )


def read_note(
    repo: pygit2.Repository,
    annotated: pygit2.Oid | str,
    notes_commit: pygit2.Oid | str | None = None,
) -> dict[str, object] | None:
    """The JSON note on ``annotated``, from ``notes_commit`` (default: the notes ref's tip).

    pre-receive passes the notes commit being pushed, which no ref points at yet.
    """
    if notes_commit is None:
        notes_commit = ref_target(repo, NOTES_REF)
        if notes_commit is None:
            return None
    try:
        blob = _note_blob(repo, commit_at(repo, notes_commit).tree, str(annotated))
        data = json.loads(blob_at(repo, blob).data) if blob is not None else None
    except (KeyError, ValueError, GitError, pygit2.GitError):
        return None
    return data if isinstance(data, dict) else None


def _note_blob(repo: pygit2.Repository, tree: pygit2.Tree, name: str) -> pygit2.Oid | None:
    """A note by annotated commit id, in flat or fan-out (``ab/cdef…``) layout."""
    if name in tree:
        return tree[name].id
    head = name[:2]
    if head in tree and tree[head].type_str == "tree":
        return _note_blob(repo, tree_at(repo, tree[head].id), name[2:])
    return None


def iter_notes(
    repo: pygit2.Repository, ref: str = NOTES_REF
) -> Iterator[tuple[str, dict[str, object]]]:
    """(annotated commit, JSON object) of every note under the notes ref ``ref``, read
    as :func:`note_entries` reads them (notes others pushed cost their distinct objects)."""
    target = ref_target(repo, ref)
    if target is None:
        return
    for name, blob in note_entries(repo, target).items():
        try:
            data = json.loads(blob_at(repo, blob).data)
        except ValueError:
            continue
        if isinstance(data, dict):
            yield name, data


def note_entries(
    repo: pygit2.Repository, commit: pygit2.Oid | str, most: int = 5_000_000
) -> dict[str, pygit2.Oid]:
    """Annotated commit → note blob of a notes commit: the tree walked one tree object at
    a time within git's fan-out (folders of two hex digits, names adding up to a commit
    id), so a tree naming one folder many times costs its objects, never its paths;
    GitError past ``most`` notes."""
    out: dict[str, pygit2.Oid] = {}
    seen: set[pygit2.Oid] = set()
    todo: list[tuple[pygit2.Tree, str]] = [(commit_at(repo, commit).tree, "")]
    while todo:
        tree, prefix = todo.pop()
        for entry in tree:
            name = prefix + (entry.name or "")
            if entry.type_str == "tree":
                if entry.id not in seen and len(name) < 40 and _hex(name):
                    seen.add(entry.id)
                    todo.append((tree_at(repo, entry.id), name))
            elif entry.type_str == "blob" and len(name) == 40 and _hex(name):
                out[name] = entry.id
                if len(out) > most:
                    raise GitError(f"the notes hold over {most} notes")
    return out


def _hex(name: str) -> bool:
    return all(c in "0123456789abcdef" for c in name)


# ---------------------------------------------------------------- rebase


Entry = tuple[pygit2.Oid, int] | None  # (blob, file mode) at a path, or absent


def rebase_commits(
    repo: pygit2.Repository,
    commits: list[pygit2.Commit],
    onto: pygit2.Commit,
    *,
    committer: pygit2.Signature | None = None,
) -> tuple[pygit2.Oid | None, list[str]]:
    """Replay ``commits`` (oldest first) onto ``onto`` in memory.

    Authors stay; the committer is ``committer`` when given (as ``git rebase`` makes the
    rebaser the committer), else each commit's own.

    Only the paths each commit changes are merged (a three-way merge of that file
    when main changed it too), so the cost follows the run, not the wiki.
    Returns the new tip, or ``(None, conflicting_paths)``.
    """
    empty = tree_at(repo, repo.TreeBuilder().write())
    parent = onto
    for commit in commits:
        before = commit.parents[0].tree if commit.parents else empty
        tree = parent.tree
        conflicts = []
        for delta in before.diff_to_tree(commit.tree).deltas:
            path = delta.new_file.path
            ancestor, theirs, ours = (_entry(t, path) for t in (before, commit.tree, tree))
            if ours == theirs:
                continue
            merged = theirs if ours == ancestor else _merge_file(repo, path, ancestor, ours, theirs)
            if merged is False:
                conflicts.append(path)
                continue
            blob, mode = merged if merged is not None else (None, 0)
            tree = tree_at(repo, tree_with(repo, tree, path, blob, mode))
        if conflicts:
            return None, sorted(conflicts)
        oid = repo.create_commit(
            None, commit.author, committer or commit.committer, commit.message, tree.id, [parent.id]
        )
        parent = commit_at(repo, oid)
    return parent.id, []


def _entry(tree: pygit2.Tree, path: str) -> Entry:
    try:
        obj = tree[path]
    except KeyError:
        return None
    return (obj.id, obj.filemode) if obj.type_str == "blob" else None


def _merge_file(
    repo: pygit2.Repository, path: str, ancestor: Entry, ours: Entry, theirs: Entry
) -> Entry | Literal[False]:
    """A three-way merge of one file (as git merges it): its result, None when both
    sides delete it, or False on a conflict."""

    def alone(entry: Entry) -> pygit2.Tree:
        if entry is None:
            return tree_at(repo, repo.TreeBuilder().write())
        return tree_at(repo, tree_with(repo, None, path, entry[0], entry[1]))

    index = repo.merge_trees(alone(ancestor), alone(ours), alone(theirs))
    if index.conflicts is not None:
        return _appended(repo, ancestor, ours, theirs)
    try:
        merged = index[path]
    except KeyError:
        return None
    return merged.id, int(merged.mode)


def _appended(
    repo: pygit2.Repository, ancestor: Entry, ours: Entry, theirs: Entry
) -> Entry | Literal[False]:
    """Two sides that only added lines at the end of one file (a log's line, a new page's
    link at the end of an index): the ancestor, then ours' lines, then theirs' (git's
    ``union`` for this one case; the result is verified again like every rebase). Any other
    overlap is a conflict (False)."""
    if ancestor is None or ours is None or theirs is None or ours[1] != theirs[1]:
        return False
    base, mine, other = (bytes(blob_at(repo, e[0]).data) for e in (ancestor, ours, theirs))
    if not (base.endswith(b"\n") or base == b""):
        return False  # the first added line would join the last one
    if not (mine.startswith(base) and other.startswith(base)):
        return False
    if not (mine.endswith(b"\n") and other.endswith(b"\n")):
        return False
    return repo.create_blob(mine + other[len(base) :]), ours[1]


# ---------------------------------------------------------------- working tree


def main_checked_out(repo: pygit2.Repository) -> bool:
    """Is the trunk (``main_ref``) the branch checked out here?"""
    if repo.is_bare:
        return False
    try:
        head = repo.references["HEAD"]
    except KeyError:
        return False
    return head.type == pygit2.enums.ReferenceType.SYMBOLIC and head.target == main_ref(repo)


def checkout_fast_forward(repo: pygit2.Repository, new_tree: pygit2.Tree) -> None:
    """Make index and working tree follow main's fast-forward (``git merge --ff-only``).

    Refuses, touching nothing, when local changes would be overwritten.
    """
    try:
        repo.checkout_tree(new_tree, strategy=pygit2.enums.CheckoutStrategy.SAFE)  # type: ignore[no-untyped-call]
    except pygit2.GitError as e:
        raise DirtyWorktreeError(
            f"local changes in the checked-out {branch_name(main_ref(repo))} would be overwritten "
            f"({e}); commit or stash them, then finalize again"
        ) from e
