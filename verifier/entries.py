"""The entries of a wiki's git tree, and reading page blobs.

``Entry`` is one path of a tree: its blob id and mode (a symlink or a submodule
is an entry, never followed). ``walk`` lists a tree's entries, ``read_page``
reads a page's text or says why it cannot be a page, and ``mentions`` scans page
blobs' raw bytes for words.
"""

from __future__ import annotations

from dataclasses import dataclass

import pygit2

from wikigate.gitrepo import blob_at, tree_at

MAX_PAGE_BYTES = 5 * 1024 * 1024


@dataclass(frozen=True)
class Entry:
    path: str
    oid: str
    mode: int

    @property
    def is_link(self) -> bool:
        return self.mode == pygit2.GIT_FILEMODE_LINK

    @property
    def is_submodule(self) -> bool:
        return self.mode == pygit2.GIT_FILEMODE_COMMIT


def walk(repo: pygit2.Repository, tree: pygit2.Tree) -> dict[str, Entry]:
    """Every entry under ``tree`` that is not a tree, by path."""
    out: dict[str, Entry] = {}
    _walk(repo, tree, "", out)
    return out


def _walk(repo: pygit2.Repository, tree: pygit2.Tree, prefix: str, out: dict[str, Entry]) -> None:
    for entry in tree:
        path = prefix + (entry.name or "")
        if entry.type_str == "tree":
            _walk(repo, tree_at(repo, entry.id), path + "/", out)
        else:
            out[path] = Entry(path, str(entry.id), entry.filemode)


def read_page(repo: pygit2.Repository, entry: Entry) -> tuple[str | None, str | None]:
    """A page's text, or why it cannot be a page."""
    if entry.is_link:
        return None, "is a symlink; pages must be regular files"
    if entry.is_submodule:
        return None, "is a submodule, not a page"
    blob = blob_at(repo, entry.oid)
    if blob.size > MAX_PAGE_BYTES:
        return (
            None,
            f"is {blob.size / 1e6:.1f} MB; pages are limited to {MAX_PAGE_BYTES // 2**20} MB",
        )
    try:
        text = str(memoryview(blob), "utf-8")
    except UnicodeDecodeError as e:
        return None, f"is not UTF-8 text (invalid byte at offset {e.start})"
    if "\x00" in text:
        return None, "is binary (holds NUL bytes), not a markdown page"
    return text, None


def mentions(
    repo: pygit2.Repository, entries: list[Entry], terms: tuple[str, ...]
) -> list[tuple[str, list[str]]]:
    """(path, the ``terms`` its bytes hold, case-insensitively for ASCII) for each
    page that is a regular file of at most MAX_PAGE_BYTES; no page is decoded."""
    encoded = [(t, t.encode()) for t in terms]
    out = []
    for entry in entries:
        if entry.is_link or entry.is_submodule:
            continue
        blob = blob_at(repo, entry.oid)
        if blob.size > MAX_PAGE_BYTES:
            continue
        lowered = bytes(memoryview(blob)).lower()
        out.append((entry.path, [t for t, raw in encoded if raw in lowered]))
    return out
