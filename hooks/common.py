"""What the git hooks share: the refs they guard, and how they speak (stderr, quietly)."""

from __future__ import annotations

import sys

MAIN = "refs/heads/main"  # = wikigate.gitrepo.MAIN (not imported: hooks start light)
NOTES_REF = "refs/notes/wikigate"  # = wikigate.gitrepo.NOTES_REF
ARTIFACTS_REF = "refs/wikigate/artifacts"  # = wikigate.gitrepo.ARTIFACTS_REF
ZERO = "0" * 40


def err(*lines: str) -> None:
    for line in lines:
        print(line, file=sys.stderr)


def null(sha: str) -> bool:
    return not sha or set(sha) == {"0"}
