"""Git plumbing of the bot: fetch the pull request, its base and the notes from ``origin``
into private refs (nothing is checked out); push a notes commit, and a pull request's
branch (rebased onto its base, or restored) with a lease.  Main never moves by a push:
only through the refs API (``github_io``).

A shallow checkout (``actions/checkout``'s default depth 1) is deepened to the full
history first: the merge-base and a rebase need it.

Credentials are git's own (``actions/checkout`` leaves them in the checkout's config):
no token passes through these command lines.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from wikigate.errors import GitError
from wikigate.gitrepo import NOTES_REF

PULL_REF = "refs/wikigate/github/pull/{number}"
BASE_REF = "refs/wikigate/github/base/{base}"
NOTES_MIRROR = "refs/wikigate/github/notes"  # origin's notes; local notes stay untouched


def git(workdir: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        ["git", "-C", str(workdir), *args], capture_output=True, text=True, check=False
    )
    if check and proc.returncode != 0:
        detail = proc.stderr.strip().splitlines()
        raise GitError(f"git {args[0]} failed: {detail[-1] if detail else proc.returncode}")
    return proc


@dataclass(frozen=True)
class Fetched:
    head: str  # the pull request's head commit
    base_tip: str  # the base branch's tip on origin
    notes: str | None  # origin's refs/notes/wikigate, if it has one


def fetch_pull(workdir: Path, number: int, base: str) -> Fetched:
    """Fetch ``refs/pull/<number>/head``, the base branch and origin's notes."""
    pull, base_ref = PULL_REF.format(number=number), BASE_REF.format(base=base)
    fetch_from_origin(workdir, f"+refs/pull/{number}/head:{pull}", f"+refs/heads/{base}:{base_ref}")
    return Fetched(_rev(workdir, pull), _rev(workdir, base_ref), fetch_notes(workdir))


def fetch_from_origin(workdir: Path, *refspecs: str) -> None:
    """``git fetch origin REFSPEC…``, the whole history when the checkout is shallow (the
    merge base and a run's history need it)."""
    shallow = git(workdir, "rev-parse", "--is-shallow-repository").stdout.strip() == "true"
    git(
        workdir,
        "fetch",
        "--no-tags",
        "--quiet",
        *(["--unshallow"] if shallow else []),
        "origin",
        *refspecs,
    )


def fetch_notes(workdir: Path) -> str | None:
    """origin's notes tip (fetched into a private ref), or None when origin has none."""
    listed = git(workdir, "ls-remote", "origin", NOTES_REF).stdout.split()
    if not listed:
        return None
    git(workdir, "fetch", "--no-tags", "--quiet", "origin", f"+{NOTES_REF}:{NOTES_MIRROR}")
    return _rev(workdir, NOTES_MIRROR)


def push_notes(workdir: Path, commit: str) -> bool:
    """Push a notes commit to origin's notes ref; False when origin's notes moved meanwhile."""
    proc = git(workdir, "push", "--quiet", "origin", f"{commit}:{NOTES_REF}", check=False)
    if proc.returncode == 0:
        return True
    if "non-fast-forward" in proc.stderr or "fetch first" in proc.stderr:
        return False  # not "remote rejected": that is a refusal, not a race
    detail = proc.stderr.strip().splitlines()
    raise GitError(f"pushing {NOTES_REF} to origin failed: {detail[-1] if detail else ''}")


def branch_tip(workdir: Path, branch: str) -> str | None:
    """``refs/heads/<branch>`` on origin, or None when origin has no such branch."""
    listed = git(workdir, "ls-remote", "origin", f"refs/heads/{branch}").stdout.split()
    return listed[0] if listed else None


def push_branch(workdir: Path, branch: str, new: str, expected: str | None) -> bool:
    """Point origin's ``refs/heads/<branch>`` at ``new`` if it is still at ``expected``
    (None: if it does not exist): ``git push --force-with-lease``.  False when the lease
    failed (the author pushed meanwhile)."""
    ref = f"refs/heads/{branch}"
    lease = f"--force-with-lease={ref}:{expected or ''}"
    proc = git(
        workdir, "push", "--quiet", "--no-verify", lease, "origin", f"{new}:{ref}", check=False
    )
    if proc.returncode == 0:
        return True
    if "stale info" in proc.stderr:
        return False
    detail = proc.stderr.strip().splitlines()
    raise GitError(f"pushing {ref} to origin failed: {detail[-1] if detail else proc.returncode}")


def _rev(workdir: Path, ref: str) -> str:
    return git(workdir, "rev-parse", "--verify", f"{ref}^{{commit}}").stdout.strip()
