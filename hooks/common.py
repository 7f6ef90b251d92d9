"""What the git hooks share: the refs they guard, and how they speak (stderr, quietly)."""

from __future__ import annotations

import subprocess
import sys

MAIN = "refs/heads/main"  # = wikigate.gitrepo.MAIN (not imported: hooks start light)
MAIN_BRANCH_KEY = "wikigate.mainBranch"  # = wikigate.gitrepo.MAIN_BRANCH_KEY
NOTES_REF = "refs/notes/wikigate"  # = wikigate.gitrepo.NOTES_REF
ARTIFACTS_REF = "refs/wikigate/artifacts"  # = wikigate.gitrepo.ARTIFACTS_REF
SERVER_NOTES_REF = "refs/notes/wikigate-server"  # = wikigate.gitrepo.SERVER_NOTES_REF
ZERO = "0" * 40
# git config: the trunk's tip when this clone's hooks were installed (``hooks install``);
# the pre-push hook asks run notes only of the commits after it (docs/hooks.md)
ADOPTED_KEY = "wikigate.adoptedAt"


def ref_updates(stdin: str) -> list[tuple[str, str, str]]:
    """(old, new, ref) of each update git hands a hook on stdin (pre-receive,
    post-receive and reference-transaction write ``OLD NEW REF`` lines); other lines are
    not updates and are skipped."""
    out = []
    for line in stdin.splitlines():
        parts = line.split()
        if len(parts) == 3:
            out.append((parts[0], parts[1], parts[2]))
    return out


def main_ref() -> str:
    """The trunk the repository git runs this hook in gates: ``refs/heads/`` + its git config
    ``wikigate.mainBranch``, else main (``wikigate.gitrepo.main_ref`` without pygit2: a
    hook with nothing to do starts light).  On a server this is the bare repository's own
    config, which no push can change.  A name wikigate cannot gate raises (the hook fails
    closed, refusing)."""
    proc = subprocess.run(
        ["git", "config", "--get", MAIN_BRANCH_KEY], capture_output=True, text=True, check=False
    )
    if proc.returncode == 1:
        return MAIN  # not set
    if proc.returncode != 0:
        raise RuntimeError(f"git config {MAIN_BRANCH_KEY}: {proc.stderr.strip()}")
    from wikigate.paths import trunk_problem

    name = proc.stdout.rstrip("\n")
    problem = trunk_problem(name)
    if problem is not None:
        raise ValueError(
            f"git config {MAIN_BRANCH_KEY} = {name!r} is not a branch wikigate can gate "
            f"({problem}); set it to the trunk's name"
        )
    return f"refs/heads/{name}"


def adoption_point() -> str | None:
    """The commit this clone's hooks began at (git config ``wikigate.adoptedAt``), or None.
    Set by ``wikigate hooks install``: the history before it carries no run notes, and
    the local pre-push hook does not ask it for them (the server gate never reads it)."""
    proc = subprocess.run(
        ["git", "config", "--get", ADOPTED_KEY], capture_output=True, text=True, check=False
    )
    value = proc.stdout.strip() if proc.returncode == 0 else ""
    return value if len(value) == 40 and all(c in "0123456789abcdef" for c in value) else None


def err(*lines: str) -> None:
    for line in lines:
        print(line, file=sys.stderr)


def null(sha: str) -> bool:
    return not sha or set(sha) == {"0"}
