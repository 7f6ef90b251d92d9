"""Validation of the repo-relative paths a run may write."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from .errors import RunError, UsageError
from .text import first_unprintable, shown


def normalize(path: str) -> str:
    """Return ``path`` as a clean repo-relative POSIX path or raise RunError.

    Control characters, line and paragraph separators, bidirectional controls and
    lone surrogates are refused: a path is recorded in commit trailers and shown
    to people, and must mean the same to both.
    """
    if not path:
        raise RunError("the path is empty")
    bad = first_unprintable(path)
    if bad is not None:
        raise RunError(f"{shown(path)}: the path holds {bad.describe()}; paths must be printable")
    if "\\" in path:
        raise RunError(f"{path}: use '/' as the path separator")
    pure = PurePosixPath(path)
    if pure.is_absolute():
        raise RunError(f"{path}: paths are relative to the repository root (wiki/..., raw/...)")
    parts = pure.parts
    if any(p in ("..", ".", "") for p in path.split("/")):
        raise RunError(f"{path}: '.', '..' and empty segments are not allowed")
    if any(p == ".git" for p in parts):
        raise RunError(f"{path}: writes into .git are not allowed")
    return "/".join(parts)


MAX_PAGE_BYTES = 5 * 2**20  # a wiki page
MAX_SOURCE_BYTES = 50 * 2**20  # a raw source


# Attachments: files a page shows or links to, kept beside it under wiki/ (Obsidian's
# images and PDFs). They are not pages and not sources (no citation may quote one); SVG is
# not among them: it is markup that may script and hide text. Each must start with its
# format's signature (``attachment_problem``): a text file named .png is refused.
ATTACHMENT_SIGNATURES: dict[str, tuple[bytes, ...]] = {
    ".png": (b"\x89PNG\r\n\x1a\n",),
    ".jpg": (b"\xff\xd8\xff",),
    ".jpeg": (b"\xff\xd8\xff",),
    ".gif": (b"GIF87a", b"GIF89a"),
    ".webp": (b"RIFF",),
    ".avif": (b"\x00\x00\x00",),
    ".bmp": (b"BM",),
    ".pdf": (b"%PDF-",),
}
ATTACHMENT_SUFFIXES = tuple(ATTACHMENT_SIGNATURES)


def is_attachment(path: str, layout: Layout | None = None) -> bool:
    """A file of the wiki that is an attachment (by its suffix), not a page."""
    return (layout or WIKI).in_wiki(path) and path.lower().endswith(ATTACHMENT_SUFFIXES)


@dataclass(frozen=True)
class Layout:
    """Where the wiki's pages are (``[wiki] root`` and ``exclude`` of the rules): ``root``
    is a folder ending in "/" (``wiki/``, the default) or "" (the repository's root, a
    vault's); ``exclude`` holds folders (ending in "/") and files that are not the wiki's
    (``.obsidian/``, ``templates/``). ``raw/`` (the sources) is never the wiki's, nor,
    with the repository's root as the wiki's, a hidden path (``.obsidian/``, ``.github/``)."""

    root: str = "wiki/"
    exclude: tuple[str, ...] = ()

    def in_wiki(self, path: str) -> bool:
        """Is ``path`` the wiki's (a page, an attachment, or what a run may not write
        there)?  Not raw/, not hidden, not excluded, under the root."""
        if not path.startswith(self.root) or path.startswith("raw/"):
            return False
        if not self.root and "/." in "/" + path:
            return False
        return not self.exclude or not any(excluded(path, x) for x in self.exclude)

    def is_page(self, path: str) -> bool:
        return path.endswith(".md") and self.in_wiki(path)

    @property
    def index(self) -> str:
        return self.root + "index.md"

    @property
    def log(self) -> str:
        return self.root + "log.md"

    @property
    def structural(self) -> frozenset[str]:
        """Pages that need no citation or inbound link: the index and the log."""
        return frozenset({self.index, self.log})

    def rel(self, path: str) -> str:
        return path.removeprefix(self.root)

    def area(self, path: str) -> str:
        """'wiki', 'raw' or 'other' for a normalized path."""
        if path.startswith("raw/") and "/" in path:
            return "raw"
        return "wiki" if self.in_wiki(path) else "other"

    @property
    def shown(self) -> str:
        return self.root or "the repository's root"


WIKI = Layout()  # the default: pages under wiki/
GLOB = frozenset("*?[")


def excluded(path: str, entry: str) -> bool:
    """Does ``[wiki] exclude`` entry ``entry`` take ``path`` out of the wiki: the file
    itself, a folder (ending in "/") holding it, or a glob (``*``, ``?``, ``[...]``):
    without a "/", matched against the file's name at any depth (``*.canvas``; ending in
    "/", a folder's name: ``_*/``); with one, against the whole path (``boards/*.canvas``)."""
    if path == entry or (entry.endswith("/") and path.startswith(entry)):
        return True
    if GLOB.isdisjoint(entry):
        return False
    from fnmatch import fnmatchcase

    if "/" in entry.rstrip("/"):
        return fnmatchcase(path, entry + "*" if entry.endswith("/") else entry)
    if entry.endswith("/"):  # a folder's name at any depth
        return any(fnmatchcase(part, entry[:-1]) for part in path.split("/")[:-1])
    return fnmatchcase(path.rsplit("/", 1)[-1], entry)


def attachment_problem(path: str, data: bytes) -> str | None:
    """Why ``data`` is not the attachment its name says; None when it starts as it must
    (a WebP is RIFF....WEBP, an AVIF an ISO box ``ftypavif``/``ftypavis``)."""
    suffix = "." + path.rsplit(".", 1)[-1].lower()
    signatures = ATTACHMENT_SIGNATURES.get(suffix)
    if signatures is None:
        return f"{suffix} is not an attachment type ({', '.join(ATTACHMENT_SUFFIXES)})"
    ok = data.startswith(signatures)
    if ok and suffix == ".webp":
        ok = data[8:12] == b"WEBP"
    if ok and suffix == ".avif":
        ok = data[4:12] in (b"ftypavif", b"ftypavis")
    return None if ok else f"its bytes are not a {suffix[1:].upper()} file's"


def area(path: str) -> str:
    """'wiki', 'raw' or 'other' for a normalized path."""
    head = path.split("/", 1)[0]
    if head in ("wiki", "raw") and "/" in path:
        return head
    return "other"


def check_scope(path: str) -> str:
    """A scope entry: a clean path under wiki/ or raw/ (a folder ends in "/")."""
    folder = path.endswith("/")
    try:
        clean = normalize(path.rstrip("/")) + ("/" if folder else "")
    except RunError as e:
        raise UsageError(f"--scope {e}") from e
    if clean != path or not path.startswith(("wiki/", "raw/")):
        raise UsageError(
            f"--scope {shown(path)}: expected a path under wiki/ or raw/ (a folder ends in /)"
        )
    return path


def in_scope(path: str, scope: tuple[str, ...] | list[str]) -> bool:
    return any(path == s or (s.endswith("/") and path.startswith(s)) for s in scope)


_BRANCH = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]*")


def trunk_problem(name: str) -> str | None:
    """What is wrong with ``name`` as the trunk's branch name (``wikigate.mainBranch``);
    None when it is fine.  Stricter than git: letters, digits, ``._/-``, no ``..`` and no
    empty or dotted segment, nothing under ``wikigate/`` (the run branches).  Pure (the
    hooks check it without pygit2)."""
    if not _BRANCH.fullmatch(name):
        return "use letters, digits and . _ / - (starting with a letter or digit)"
    segments = name.split("/")
    if any(not s or s.startswith(".") or s.endswith((".", ".lock")) for s in segments) or (
        ".." in name
    ):
        return "an empty segment, a segment starting with '.' or ending in '.' or '.lock'"
    if name == "HEAD" or segments[0] == "wikigate":
        return "HEAD and wikigate/... are not branches wikigate can gate"
    return None
