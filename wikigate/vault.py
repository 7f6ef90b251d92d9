"""What ``init`` says of an existing repository before it adopts it: whether it looks
like a vault whose notes are its pages (``.obsidian/``, or notes at its root and no
``wiki/``), what would then be pages, and what to do about a tracked ``.obsidian/``, a
``sources/`` folder and a ``README.md``; and the links of a new index to the pages a
repository already holds."""

from __future__ import annotations

from pathlib import Path

import pygit2

from . import gitrepo
from .paths import MAX_PAGE_BYTES, Layout

OBSIDIAN = ".obsidian/"
VAULT = Layout("", (OBSIDIAN,))  # what init suggests for a vault
MAX_LISTED = 5
# a repository's own notes at its root, which make no vault
REPOSITORY_NOTES = ("readme.md", "changelog.md", "contributing.md", "license.md", "security.md")


def trunk_files(repo: pygit2.Repository, main: str) -> list[str]:
    """Every file's path on the trunk (none when it has no commit), sorted."""
    target = gitrepo.ref_target(repo, main)
    if target is None:
        return []
    out: list[str] = []
    todo: list[tuple[str, pygit2.Tree]] = [("", gitrepo.commit_at(repo, target).tree)]
    while todo:
        prefix, tree = todo.pop()
        for entry in tree:
            path = prefix + (entry.name or "")
            if entry.type == pygit2.enums.ObjectType.TREE:
                todo.append((path + "/", repo[entry.id].peel(pygit2.Tree)))
            else:
                out.append(path)
    return sorted(out)


def looks_like_a_vault(root: Path, files: list[str]) -> str | None:
    """Why the repository at ``root`` looks like a vault whose notes are its pages (an
    ``.obsidian/`` folder; notes at its root and no ``wiki/``), or None."""
    if (root / ".obsidian").is_dir() or any(p.startswith(OBSIDIAN) for p in files):
        return "it has an .obsidian/ folder (an Obsidian vault)"
    notes = [
        p
        for p in files
        if "/" not in p and p.lower().endswith(".md") and p.lower() not in REPOSITORY_NOTES
    ]
    has_wiki = (root / "wiki").is_dir() or any(p.startswith("wiki/") for p in files)
    if notes and not has_wiki:
        return f"it holds notes at its root ({_some(notes)}) and no wiki/ folder"
    return None


def advice(files: list[str], layout: Layout) -> list[str]:
    """What a vault adopting wikigate must know about its files under ``layout``: a tracked
    ``.obsidian/``, sources outside ``raw/``, a ``README.md`` taken as a page."""
    out = []
    if any(p.startswith(OBSIDIAN) for p in files):
        out.append(
            "note: .obsidian/ is tracked, and Obsidian rewrites it as you work: before "
            "`wikigate hooks install`, untrack it (`git rm -r --cached .obsidian`) and add "
            ".obsidian/ to .gitignore, then commit (docs/adopt.md)"
        )
    sources = [p for p in files if _a_source_out_of_place(p)]
    if sources:
        out.append(
            f"note: sources/ holds {len(sources)} file(s) ({_some(sources)}): wikigate reads "
            "sources under raw/ only (a link to one in sources/ resolves to no source); move "
            f"them: `git mv sources/NAME raw/NAME` ({layout.index} does not link them)"
        )
    if _a_readme_page("README.md", layout) and "README.md" in files:
        out.append(
            f"note: README.md is a page here ({layout.index} does not link it); if it is the "
            'repository\'s readme, exclude it: add "README.md" to [wiki] exclude in '
            "wikigate.toml and commit, before `wikigate hooks install` (or init with "
            "--exclude README.md)"
        )
    return out


def _a_source_out_of_place(path: str) -> bool:
    return path.startswith("sources/")


def _a_readme_page(path: str, layout: Layout) -> bool:
    return path == "README.md" and layout.is_page(path)


def index_links(files: list[str], layout: Layout) -> str:
    """Links to the pages ``files`` holds under ``layout`` (``- [[path]]``, from the wiki's
    root, without ``.md``), for a new index: without them every page is an orphan. Names a
    wikilink cannot hold are left out; so is what would pass a page's size, and what
    :func:`advice` says to move (``sources/``) or exclude (``README.md``)."""
    lines = []
    size = 0
    for path in files:
        if not layout.is_page(path) or path in (layout.index, layout.log):
            continue
        if _a_source_out_of_place(path) or _a_readme_page(path, layout):
            continue  # advice() says to move or exclude it: a link would break then
        name = path.removeprefix(layout.root).removesuffix(".md")
        if any(c in name for c in "[]|#^\n"):
            continue
        line = f"- [[{name}]]\n"
        size += len(line.encode("utf-8"))
        if size > MAX_PAGE_BYTES // 2:
            break
        lines.append(line)
    return "".join(lines)


def _some(paths: list[str]) -> str:
    more = f", and {len(paths) - MAX_LISTED} more" if len(paths) > MAX_LISTED else ""
    return ", ".join(paths[:MAX_LISTED]) + more
