"""origin's run records for ``telemetry rebuild``: ``refs/notes/wikigate`` fetched from
``origin`` into a private ref, so that a plain ``git clone`` can index the runs that other
clones and the GitHub bot pushed.

The local ``refs/notes/wikigate`` is never touched: origin's notes go to
:data:`ORIGIN_NOTES` (replaced on each fetch, as a remote-tracking branch is), and the
rebuild reads both, keeping for each run the newer record (``rebuild.rebuild``).  Nothing
local is lost, whatever origin holds or rewrites; and git's credentials are its own (no
token passes through these command lines).
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from typing import Literal

import pygit2

from .errors import GitError
from .gitrepo import NOTES_REF, ORIGIN_NOTES, iter_notes, ref_target
from .refs import RefTransaction, with_ref_lock

REMOTE = "origin"

Outcome = Literal["fetched", "no-origin", "none-on-origin", "not-fetched"]


@dataclass(frozen=True)
class NotesFetch:
    outcome: Outcome
    message: str  # what the rebuild reads, for people (stderr)


def fetch_origin_notes(repo: pygit2.Repository) -> NotesFetch:
    """Fetch origin's ``refs/notes/wikigate`` into :data:`ORIGIN_NOTES`.

    No ``origin`` remote, or an origin without notes: nothing is fetched (and a copy
    fetched earlier is dropped, since origin no longer has it).  An origin that cannot be
    reached is an error that says how to rebuild without it (``--no-fetch``).
    """
    if REMOTE not in repo.remotes.names():
        _drop(repo)
        return NotesFetch("no-origin", "no origin remote: rebuilding from the local notes")
    listed = _git(repo, "ls-remote", REMOTE, NOTES_REF)
    if not listed.split():
        _drop(repo)
        return NotesFetch(
            "none-on-origin",
            f"origin has no {NOTES_REF}: rebuilding from the local notes",
        )
    _git(
        repo,
        "fetch",
        "--no-tags",
        "--quiet",
        "--no-write-fetch-head",
        REMOTE,
        f"+{NOTES_REF}:{ORIGIN_NOTES}",
    )
    return NotesFetch(
        "fetched",
        f"fetched {NOTES_REF} from origin ({count_notes(repo, ORIGIN_NOTES)} notes): "
        "rebuilding from the local notes and origin's",
    )


def without_fetch(repo: pygit2.Repository) -> NotesFetch:
    """What a rebuild reads when told not to fetch (``--no-fetch``)."""
    if ref_target(repo, ORIGIN_NOTES) is None:
        return NotesFetch(
            "not-fetched", "not fetching (--no-fetch): rebuilding from the local notes"
        )
    return NotesFetch(
        "not-fetched",
        "not fetching (--no-fetch): rebuilding from the local notes and origin's as "
        f"fetched before ({ORIGIN_NOTES})",
    )


def count_notes(repo: pygit2.Repository, ref: str) -> int:
    """How many JSON notes ``ref`` holds."""
    return sum(1 for _ in iter_notes(repo, ref))


def _drop(repo: pygit2.Repository) -> None:
    if ref_target(repo, ORIGIN_NOTES) is None:
        return

    def body(txn: RefTransaction) -> None:
        txn.remove(ORIGIN_NOTES)

    with_ref_lock(repo, [], body)


def _git(repo: pygit2.Repository, *args: str) -> str:
    proc = subprocess.run(
        ["git", "--git-dir", repo.path, *args], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        detail = lines[-1] if lines else f"exit {proc.returncode}"
        raise GitError(
            f"cannot fetch {NOTES_REF} from origin: git {args[0]}: {detail}; "
            "fix the remote, or rebuild from the notes this clone has with "
            "`wikigate telemetry rebuild --no-fetch`"
        )
    return proc.stdout
