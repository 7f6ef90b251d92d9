"""Who reviews a run that waits for a person: the CODEOWNERS of the pages it touches, read
from the base commit (a pull request cannot name its own reviewers), else a configured team.

GitHub's rules: the first of ``.github/CODEOWNERS``, ``CODEOWNERS``, ``docs/CODEOWNERS``;
gitignore-style patterns (``pathspec``); the last matching line wins; owners are
``@user`` or ``@org/team`` (e-mail owners cannot be requested, and are skipped).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pygit2

from wikigate.gitrepo import blob_at, commit_at

PLACES = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")
MAX_BYTES = 3 * 2**20  # GitHub ignores a CODEOWNERS file over 3 MB


@dataclass
class Reviewers:
    users: list[str] = field(default_factory=list)
    teams: list[str] = field(default_factory=list)  # team slugs, without the org

    def __bool__(self) -> bool:
        return bool(self.users or self.teams)


def codeowners_text(repo: pygit2.Repository, commit: str) -> str | None:
    tree = commit_at(repo, commit).tree
    for place in PLACES:
        try:
            entry = tree[place]
        except KeyError:
            continue
        blob = blob_at(repo, entry.id)
        if blob.size > MAX_BYTES:
            return None
        return blob.data.decode("utf-8", errors="replace")
    return None


def owners(text: str, paths: Iterable[str]) -> list[str]:
    """The owners (``@user``, ``@org/team``) of each path, by the last matching rule."""
    import pathspec

    rules: list[tuple[Any, list[str]]] = []
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        pattern, *names = line.split()
        try:
            spec = pathspec.PathSpec.from_lines("gitignore", [pattern])
        except ValueError:
            continue  # GitHub skips a line it cannot read
        rules.append((spec, [n for n in names if n.startswith("@")]))
    out: list[str] = []
    for path in paths:
        matched: list[str] = []
        for spec, names in rules:
            if spec.match_file(path):
                matched = names
        out += [n for n in matched if n not in out]
    return out


def reviewers_for(
    repo: pygit2.Repository, base: str, paths: Iterable[str], *, author: str, team: str | None
) -> Reviewers:
    """The people and teams to ask: CODEOWNERS of ``paths`` at ``base`` (never the pull
    request's author: GitHub refuses that), else ``team`` (the ``review-team`` input)."""
    found = Reviewers()
    text = codeowners_text(repo, base)
    for name in owners(text, paths) if text else []:
        who = name[1:]
        if "/" in who:
            found.teams.append(who.split("/", 1)[1])
        elif who.lower() != author.lower():
            found.users.append(who)
    if not found and team:
        found.teams.append(team)
    return found
