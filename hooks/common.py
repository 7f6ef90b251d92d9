"""What the git hooks share: the refs they guard, and how they speak (stderr, quietly)."""

from __future__ import annotations

import sys

MAIN = "refs/heads/main"  # = wikigate.gitrepo.MAIN (not imported: hooks start light)
NOTES_REF = "refs/notes/wikigate"  # = wikigate.gitrepo.NOTES_REF
ARTIFACTS_REF = "refs/wikigate/artifacts"  # = wikigate.gitrepo.ARTIFACTS_REF
ZERO = "0" * 40


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


def err(*lines: str) -> None:
    for line in lines:
        print(line, file=sys.stderr)


def null(sha: str) -> bool:
    return not sha or set(sha) == {"0"}
