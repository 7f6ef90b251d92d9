"""A checked-out main follows wikigate's fast-forward, and survives a kill at any instant.

Landing a run on a checked-out main is three steps: write a *journal* naming
every path the run changes (old and new blob), move the refs (one git
transaction), then bring those paths in the index and working tree from old to
new.  All of it runs under :func:`wikigate.refs.process_lock`, so a journal
that the lock's next holder finds was left by a dead process.  The ``git``
moving the refs holds that lock too (it inherits it) and may outlive its
finalizer, finishing the transaction it was handed: the lock's next holder
reads main only once that git is done.  :func:`recover` then finishes the job
towards whatever main now is (old or new):

- a file holding exactly the other side's content (the dead run's, or the old
  main's) is set to main's; a file holding anything else is a person's own
  change and is never touched;
- files are replaced by rename, never written in place, so each is whole;
- the index is written under git's own ``index.lock``, which wikigate creates
  as a hard link of a file in ``.git/wikigate/``: the shared inode proves the
  lock is ours, so a dead finalizer's lock is removed and a live git's never.

Files are written as their blobs' bytes: checkout filters (``eol``, smudge)
are not applied to the pages a run lands.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import pygit2

from .errors import DirtyWorktreeError, GitError
from .gitrepo import blob_at, branch_name, commit_at, main_checked_out, main_ref, ref_target
from .refs import process_lock

INDEX_WAIT_SECONDS = 10.0


@dataclass(frozen=True)
class Change:
    path: str
    old: str | None  # blob id in the old tree, None: absent
    new: str | None  # blob id in the new tree
    mode: int  # file mode on the side that has the file (the new one when both)


@dataclass
class Journal:
    run_id: str
    old: str  # main before
    new: str  # main after
    changes: list[Change]

    def dump(self) -> str:
        return json.dumps(
            {"run_id": self.run_id, "old": self.old, "new": self.new,
             "changes": [asdict(c) for c in self.changes]}
        )  # fmt: skip

    @classmethod
    def load(cls, text: str) -> Journal:
        data = json.loads(text)
        return cls(data["run_id"], data["old"], data["new"], [Change(**c) for c in data["changes"]])


def _folder(repo: pygit2.Repository) -> Path:
    return Path(repo.path) / "wikigate" / "landing"


def _changes(repo: pygit2.Repository, old: pygit2.Oid, new: pygit2.Oid) -> list[Change]:
    diff = commit_at(repo, old).tree.diff_to_tree(commit_at(repo, new).tree)
    out = []
    for delta in diff.deltas:
        a, b = delta.old_file, delta.new_file
        zero = pygit2.Oid(raw=b"\0" * 20)
        old_id = str(a.id) if a.id != zero and a.mode else None
        new_id = str(b.id) if b.id != zero and b.mode else None
        if a.path != b.path:  # git reports no renames without find_similar; be safe
            out.append(Change(a.path, old_id, None, a.mode))
            out.append(Change(b.path, None, new_id, b.mode))
        else:
            out.append(Change(b.path, old_id, new_id, b.mode if new_id else a.mode))
    return out


class Landing:
    """The working-tree half of landing ``old → new`` on a checked-out main."""

    def __init__(self, repo: pygit2.Repository, journal: Journal) -> None:
        self.repo = repo
        self.journal = journal
        self.path = _folder(repo) / f"{journal.run_id}.json"

    @classmethod
    def prepare(
        cls, repo: pygit2.Repository, run_id: str, old: pygit2.Oid, new: pygit2.Oid
    ) -> Landing | None:
        """None when main is not checked out; DirtyWorktreeError, touching nothing,
        when a person's changes sit on a path the run changes."""
        if not main_checked_out(repo):
            return None
        changes = _changes(repo, old, new)
        index = repo.index
        index.read()
        dirty = [
            c.path
            for c in changes
            if _file_state(repo, c.path) not in (c.old, c.new)
            or _index_state(index, c.path) not in (c.old, c.new)
        ]
        if dirty:
            shown = ", ".join(dirty[:5]) + (f" (+{len(dirty) - 5} more)" if len(dirty) > 5 else "")
            raise DirtyWorktreeError(
                f"local changes to {shown} in the checked-out "
                f"{branch_name(main_ref(repo))} would be overwritten; "
                "commit or stash them, then finalize again"
            )
        return cls(repo, Journal(run_id, str(old), str(new), changes))

    def begin(self) -> None:
        """Write the journal (before any ref moves)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(self.journal.dump())
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)

    def finish(self, forward: bool = True) -> list[str]:
        """Bring the paths to the new side (or back to the old); drop the journal.

        Returns the paths left alone because they hold a person's changes.
        """
        left = _apply(self.repo, self.journal, forward)
        self.abort()
        return left

    def abort(self) -> None:
        for p in (self.path, self.path.with_suffix(".tmp")):
            if p.exists():
                p.unlink()


def pending(repo: pygit2.Repository) -> bool:
    """Is there a landing journal (cheap: no lock taken)?"""
    try:
        return any(_folder(repo).iterdir())
    except FileNotFoundError:
        return False


def recover(repo: pygit2.Repository) -> list[str]:
    """Finish the landings of dead finalizers; returns the paths left alone (a
    person's changes).  Takes the process lock; safe to run at any time."""
    if not pending(repo):
        return []
    left: list[str] = []
    with process_lock(repo):
        _drop_stale_index_lock(repo)
        for path in sorted(_folder(repo).glob("*.json")):
            try:
                journal = Journal.load(path.read_text(encoding="utf-8"))
            except (OSError, ValueError, KeyError, TypeError):
                path.unlink()  # half-written: no ref moved after it (written before)
                continue
            main = ref_target(repo, main_ref(repo))
            landing = Landing(repo, journal)
            if main is not None and str(main) in (journal.old, journal.new):
                left += landing.finish(forward=str(main) == journal.new)
            else:  # main moved on by other means: leave the files to the person
                landing.abort()
        for tmp in _folder(repo).glob("*.tmp"):
            tmp.unlink()
    return left


# ---------------------------------------------------------------- files


def _file_state(repo: pygit2.Repository, path: str) -> str | None:
    """The blob id the working-tree file would have; None if absent."""
    full = os.path.join(repo.workdir, path)
    try:
        if os.path.islink(full):
            return str(pygit2.hash(os.readlink(full).encode()))
        with open(full, "rb") as fh:
            return str(pygit2.hash(fh.read()))
    except FileNotFoundError:
        return None
    except (IsADirectoryError, NotADirectoryError):
        return "(not a file)"


def _index_state(index: pygit2.Index, path: str) -> str | None:
    try:
        return str(index[path].id)
    except KeyError:
        return None


def _temp(full: str, run_id: str) -> str:
    head, name = os.path.split(full)
    return os.path.join(head, f".{name}.wikigate-{run_id}.tmp")


def _apply(repo: pygit2.Repository, journal: Journal, forward: bool) -> list[str]:
    root = repo.workdir
    left: list[str] = []
    wanted: dict[str, tuple[str | None, int]] = {}
    for c in journal.changes:
        want, other = (c.new, c.old) if forward else (c.old, c.new)
        full = os.path.join(root, c.path)
        tmp = _temp(full, journal.run_id)
        if os.path.lexists(tmp):
            os.unlink(tmp)
        wanted[c.path] = (want, c.mode)
        now = _file_state(repo, c.path)
        if now == want:
            continue
        if now != other:
            left.append(c.path)
            continue
        if want is None:
            os.unlink(full)
            _prune_dirs(root, os.path.dirname(full))
            continue
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(tmp, "wb") as fh:
            fh.write(blob_at(repo, want).data)
        if c.mode == pygit2.GIT_FILEMODE_BLOB_EXECUTABLE:
            os.chmod(tmp, 0o755)
        os.replace(tmp, full)

    def edit(index: pygit2.Index) -> bool:
        changed = False
        for c in journal.changes:
            want, mode = wanted[c.path]
            other = c.old if forward else c.new
            now = _index_state(index, c.path)
            if now == want or now != other:
                continue
            if want is None:
                index.remove(c.path)
            else:
                index.add(
                    pygit2.IndexEntry(c.path, pygit2.Oid(hex=want), pygit2.enums.FileMode(mode))
                )
            changed = True
        return changed

    _edit_index(repo, edit)
    return left


def _prune_dirs(root: str, folder: str) -> None:
    """Remove folders a deletion left empty, as git does (never the root)."""
    root = os.path.abspath(root)
    folder = os.path.abspath(folder)
    while folder.startswith(root + os.sep):
        try:
            os.rmdir(folder)
        except OSError:
            return
        folder = os.path.dirname(folder)


# ---------------------------------------------------------------- the index


def _mine(repo: pygit2.Repository) -> tuple[str, str]:
    return os.path.join(repo.path, "wikigate", "index.lock.mine"), os.path.join(
        repo.path, "index.lock"
    )


def _drop_stale_index_lock(repo: pygit2.Repository) -> None:
    """Remove git's index.lock only when it is provably a dead wikigate's (same inode
    as our marker file), and our own scratch files (the caller holds the process lock)."""
    mine, lock = _mine(repo)
    build = os.path.join(repo.path, "wikigate", "index.build")
    for scratch in (build, build + ".lock"):  # only wikigate writes under .git/wikigate/
        if os.path.exists(scratch):
            os.unlink(scratch)
    try:
        ours = os.stat(mine)
    except FileNotFoundError:
        return
    try:
        theirs = os.stat(lock)
        if (theirs.st_ino, theirs.st_dev) == (ours.st_ino, ours.st_dev):
            os.unlink(lock)
    except FileNotFoundError:
        pass
    os.unlink(mine)


def _edit_index(repo: pygit2.Repository, edit: Callable[[pygit2.Index], bool]) -> None:
    """Apply ``edit`` to the index under git's ``index.lock`` protocol."""
    _drop_stale_index_lock(repo)
    mine, lock = _mine(repo)
    build = os.path.join(repo.path, "wikigate", "index.build")
    fd = os.open(mine, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        deadline = time.monotonic() + INDEX_WAIT_SECONDS
        while True:
            try:
                os.link(mine, lock)
                break
            except FileExistsError:
                if time.monotonic() > deadline:
                    raise GitError(
                        f"{lock} exists: another git process is using the index. "
                        f"{branch_name(main_ref(repo))} moved; "
                        "run `wikigate sweep` once it is done to update the index and files"
                    ) from None
                time.sleep(0.05)
        try:
            real = os.path.join(repo.path, "index")
            if os.path.exists(real):
                shutil.copyfile(real, build)
            elif os.path.exists(build):
                os.unlink(build)
            index = pygit2.Index(build)
            if not edit(index):
                os.unlink(lock)
                return
            index.write()
            with open(build, "rb") as fh, os.fdopen(os.dup(fd), "wb") as out:
                shutil.copyfileobj(fh, out)
                out.flush()
                os.fsync(out.fileno())
            os.rename(lock, real)
        except BaseException:
            if os.path.exists(lock) and os.stat(lock).st_ino == os.fstat(fd).st_ino:
                os.unlink(lock)
            raise
    finally:
        os.close(fd)
        for p in (mine, build, build + ".lock"):
            if os.path.exists(p):
                os.unlink(p)
