"""The entries of a wiki's git tree, and reading page blobs.

``Entry`` is one path of a tree: its blob id and mode (a symlink or a submodule
is an entry, never followed). ``walk`` lists a tree's entries (parsed from the raw
tree objects, as git reads them, each once by id) and what is malformed in them,
after counting what the tree spells against ``[limits]`` (``TreeLimitError``), ``read_page``
reads a page's text or says why it cannot be a page, and ``mentions`` scans page
blobs' raw bytes for words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

import pygit2

from wikigate.gitrepo import blob_at
from wikigate.paths import MAX_PAGE_BYTES


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


class Walk(NamedTuple):
    """A tree's entries by path, and what is malformed in it: (path, why)."""

    entries: dict[str, Entry]
    problems: list[tuple[str, str]]


class TreeLimitError(Exception):
    """A tree past ``[limits]``: ``path`` is the folder (``.`` for the root), the message
    names the limit, the value seen and how to raise it."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


# the bytes of all of a tree's paths together, at most this many per path of tree_paths:
# a long folder name over many files would otherwise spell gigabytes of paths
PATH_BYTES_PER_PATH = 256


class _Read(NamedTuple):
    """One tree object, read once by id: its files and subtrees (name, mode, id), and
    what is malformed in it (the entry's name, or None for the tree itself; why)."""

    files: list[tuple[str, int, str]]
    subtrees: list[tuple[str, str]]
    problems: list[tuple[str | None, str]]


class _Size(NamedTuple):
    """What a tree spells, counted with multiplicity (a subtree named twice counts
    twice), saturating past the limits: its paths (files and folders), its depth
    (folders within folders) and the bytes of all its paths."""

    paths: int
    depth: int
    path_bytes: int


# one tree object as walked at one place: its files, its subtrees (id, path/), and what is
# malformed in it.  A tree object reads the same wherever it sits, but its paths and
# problems name its place, so that expansion is keyed by (tree id, prefix).
_Walked = tuple[list[Entry], list[tuple[str, str]], list[tuple[str, str]]]


class WalkMemo:
    """What walks share (a run's tree shares all but a few subtrees with its base's):
    each tree object read and measured once by id, and expanded once per place."""

    def __init__(self) -> None:
        self.read: dict[str, _Read] = {}
        self.sizes: dict[str, _Size] = {}
        self.placed: dict[tuple[str, str], _Walked] = {}


def walk(
    repo: pygit2.Repository,
    tree: pygit2.Oid | pygit2.Tree,
    memo: WalkMemo | None = None,
    *,
    max_paths: int = 200_000,
    max_depth: int = 64,
) -> Walk:
    """Every entry under ``tree`` that is not a tree, by path, read from the raw
    tree objects as git reads them, and every way the trees are malformed.

    libgit2 refuses some malformed trees outright (an empty name) and looks names
    up by bisection (an unsorted tree hides entries from it); git takes the FIRST
    of two entries with one name. So the trees are parsed here, in order: a
    duplicate keeps its first entry (what ``git show`` serves) and each problem
    is recorded for the gate to block on.

    A few tree objects naming each other spell exponentially many paths (seven trees
    of ten entries: a million), so the paths, depth and path bytes the tree spells are
    counted first, bottom-up by tree id (linear in the tree objects), and a tree past
    ``max_paths`` (path bytes: ``max_paths`` × PATH_BYTES_PER_PATH) or ``max_depth``
    raises TreeLimitError naming the folder, before a path is expanded.

    ``memo`` keeps each tree object's reading: a run's tree shares all but a few
    subtrees with its base's, and the second walk reads only those.
    """
    root = str(tree.id if isinstance(tree, pygit2.Tree) else tree)
    memo = WalkMemo() if memo is None else memo
    oid_size = len(pygit2.Oid(hex=root).raw)
    max_bytes = max_paths * PATH_BYTES_PER_PATH
    size = _measure(repo, root, memo, oid_size)
    if size.paths > max_paths or size.depth > max_depth or size.path_bytes > max_bytes:
        raise _limit_error(repo, root, memo, oid_size, max_paths, max_depth, max_bytes)
    out: dict[str, Entry] = {}
    problems: list[tuple[str, str]] = []
    todo: list[tuple[str, str]] = [(root, "")]
    placed = memo.placed
    while todo:  # a stack, not recursion: a tree may nest deeper than Python recurses
        key = todo.pop()
        walked = placed.get(key)
        if walked is None:
            walked = placed[key] = _place(_read(repo, key[0], memo, oid_size), key[1])
        files, subtrees, found = walked
        problems += found
        out.update((e.path, e) for e in files)
        todo += subtrees
    return Walk(out, problems)


def _read(repo: pygit2.Repository, oid: str, memo: WalkMemo, oid_size: int) -> _Read:
    """One tree object, parsed once per verification however often it is named."""
    read = memo.read.get(oid)
    if read is None:
        read = memo.read[oid] = _read_one(repo, oid, oid_size)
    return read


def _read_one(repo: pygit2.Repository, oid: str, oid_size: int) -> _Read:
    files: list[tuple[str, int, str]] = []
    subtrees: list[tuple[str, str]] = []
    problems: list[tuple[str | None, str]] = []
    kind, data = repo.odb.read(oid)[:2]
    if kind != pygit2.enums.ObjectType.TREE:
        problems.append((None, f"is a {_TYPES.get(kind, kind)}, not a tree"))
        return _Read(files, subtrees, problems)
    for name, mode, child in _parse_tree(bytes(data), oid_size, problems):
        if mode & _TYPE_BITS == _TREE:
            subtrees.append((name, child))
        else:
            files.append((name, mode, child))
    return _Read(files, subtrees, problems)


def _place(read: _Read, prefix: str) -> _Walked:
    """A tree object's reading at ``prefix``: its entries' and problems' full paths."""
    files = [Entry(prefix + name, child, mode) for name, mode, child in read.files]
    subtrees = [(child, prefix + name + "/") for name, child in read.subtrees]
    here = prefix.rstrip("/") or "."
    problems = [(here if n is None else prefix + n, why) for n, why in read.problems]
    return files, subtrees, problems


# counts saturate here: exact as far as anyone reads them, and no sum grows without bound
# (a chain of trees each naming the next twice spells 2^length paths)
SATURATED = 10**18


def _measure(repo: pygit2.Repository, root: str, memo: WalkMemo, oid_size: int) -> _Size:
    """What ``root`` spells (_Size), each distinct tree object read and summed once,
    children before parents (an explicit stack: trees nest deeper than Python recurses)."""
    sizes = memo.sizes
    stack = [root]
    entered: set[str] = set()
    while stack:
        oid = stack[-1]
        if oid in sizes:
            stack.pop()
            continue
        read = _read(repo, oid, memo, oid_size)
        pending = [c for _, c in read.subtrees if c not in sizes]
        if pending:
            if oid in entered:  # only a cycle comes back with children still pending
                raise TreeLimitError(".", f"the tree object {oid} contains itself")
            entered.add(oid)
            stack += pending
            continue
        stack.pop()
        paths = len(read.files) + len(read.subtrees)
        path_bytes = sum(len(name) for name, _, _ in read.files)
        depth = 0
        for name, child in read.subtrees:
            below = sizes[child]
            paths += below.paths
            path_bytes += len(name) + below.path_bytes + below.paths * (len(name) + 1)
            depth = max(depth, below.depth + 1)
        sizes[oid] = _Size(min(paths, SATURATED), depth, min(path_bytes, SATURATED))
    return sizes[root]


def _limit_error(
    repo: pygit2.Repository,
    root: str,
    memo: WalkMemo,
    oid_size: int,
    max_paths: int,
    max_depth: int,
    max_bytes: int,
) -> TreeLimitError:
    """The limit ``root`` is past, named at the deepest folder past it alone."""
    size = memo.sizes.__getitem__
    raise_it = (
        "; if the wiki really holds this much, raise `[limits] {}` in the base's wikigate.toml"
    )
    top = size(root)
    if top.depth > max_depth:  # follow the deepest chain of folders to the first too deep
        oid, prefix = root, ""
        for _ in range(max_depth + 1):
            below = size(oid).depth - 1
            name, oid = next(
                (n, c)
                for n, c in _read(repo, oid, memo, oid_size).subtrees
                if size(c).depth == below
            )
            prefix += name + "/"
        folder = prefix.rstrip("/")
        return TreeLimitError(
            folder,
            f"the folder {folder}/ nests {max_depth + 1} folders deep and the tree "
            f"{top.depth}, past the limit of {max_depth} ([limits] tree_depth)"
            + raise_it.format("tree_depth"),
        )
    paths = top.paths > max_paths

    def over(s: _Size) -> bool:
        return s.paths > max_paths if paths else s.path_bytes > max_bytes

    oid, prefix = root, ""
    while True:  # a folder past the limit alone: the deepest such, on the first path to it
        child = next(
            ((n, c) for n, c in _read(repo, oid, memo, oid_size).subtrees if over(size(c))), None
        )
        if child is None:
            break
        prefix += child[0] + "/"
        oid = child[1]
    folder = prefix.rstrip("/") or "."
    where = f"the folder {folder}/" if prefix else "the tree"
    if paths:
        return TreeLimitError(
            folder,
            f"{where} spells {_count(size(oid).paths)} paths (a folder named N times counts N "
            f"times), past the limit of {max_paths:,} ([limits] tree_paths)"
            + raise_it.format("tree_paths"),
        )
    return TreeLimitError(
        folder,
        f"{where} spells paths of {_count(size(oid).path_bytes)} bytes in all, past the limit of "
        f"{PATH_BYTES_PER_PATH} bytes a path of [limits] tree_paths ({max_paths:,})"
        + raise_it.format("tree_paths"),
    )


def _count(n: int) -> str:
    return f"{n:,}" if n < SATURATED else f"more than {SATURATED:,}"


_TYPE_BITS, _TREE, _FILE, _LINK, _GITLINK = 0o170000, 0o040000, 0o100000, 0o120000, 0o160000
_TYPES = {1: "commit", 2: "tree", 3: "blob", 4: "tag"}


def _parse_tree(
    data: bytes, oid_size: int, problems: list[tuple[str | None, str]]
) -> list[tuple[str, int, str]]:
    """A raw tree's entries in order: (name, mode, hex id); malformed ones are recorded
    in ``problems``: a bad name or mode is left out, as is every entry but the first
    of a name (git reads the first); an out-of-order entry is kept."""
    out: list[tuple[str, int, str]] = []
    seen: set[bytes] = set()
    previous = b""
    pos, size = 0, len(data)
    find = data.find
    while pos < size:
        space = find(b" ", pos)
        nul = find(b"\0", space + 1) if space >= 0 else -1
        end = nul + 1 + oid_size
        if space < 0 or nul < 0 or end > size:
            problems.append((None, "is a truncated or unreadable tree object"))
            break
        raw_mode, raw_name = data[pos:space], data[space + 1 : nul]
        child = data[nul + 1 : end].hex()
        pos = end
        mode = _MODES.get(raw_mode)
        if mode is None:
            mode = _MODES[raw_mode] = _mode(raw_mode)
        why: str | None
        try:
            name = raw_name.decode("utf-8")
        except UnicodeDecodeError:
            name, why = escape(raw_name.decode("utf-8", "surrogateescape")), _NOT_UTF8
        else:
            why = _bad_name(raw_name)
        if why is None and mode < 0:
            why = f"has the invalid mode {raw_mode.decode('ascii', 'backslashreplace')!r}"
        if why is None and _MAYBE_CONTROL(raw_name) and _CONTROLS.search(raw_name):
            name, why = escape(name), _CONTROL_WHY
        if why is not None:
            problems.append((name, why))
            continue  # git refuses to check such an entry out: it is not part of the wiki
        if raw_name in seen:
            why = "appears twice in its tree; git reads the first entry, and so does the gate"
            problems.append((name, why))
            continue
        key = raw_name + b"/" if mode & _TYPE_BITS == _TREE else raw_name
        if key < previous:
            problems.append((name, "is out of order in its tree; git may not find it"))
        seen.add(raw_name)
        previous = key
        out.append((name, mode, child))
    return out


_MODES: dict[bytes, int] = {}


def _mode(raw: bytes) -> int:
    """A tree entry's mode, or -1 when git would not read it as a file, link, tree or submodule."""
    try:
        mode = int(raw, 8) if raw.isdigit() else -1
    except ValueError:
        return -1
    return mode if mode >= 0 and mode & _TYPE_BITS in (_TREE, _FILE, _LINK, _GITLINK) else -1


# a name holding a C0 control (newline and tab included), DEL, a C1 control (U+0085
# included) or a line or paragraph separator (U+2028, U+2029), in UTF-8: such a name would
# break every line it is printed on (a `::warning ::` workflow command in a CI log, a forged
# `remote:` line), so it is malformed wherever the verifier reads a tree
_CONTROLS = re.compile(rb"[\x00-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xa8\xa9]")
_MAYBE_CONTROL = re.compile(rb"[\x00-\x1f\x7f\xc2\xe2]").search  # fast: most names are not
_NOT_UTF8 = "has a name that is not UTF-8 (shown escaped)"
_CONTROL_WHY = (
    "has a control or line-separator character in its name (shown escaped); "
    "no wiki path may hold one"
)


def escape(name: str) -> str:
    """``name`` with each control or line-separator character as a backslash escape
    (``\\n``, ``\\t``, ``\\x7f``, ``\\u2028``), each byte that is not UTF-8 (decoded with
    ``surrogateescape``) as ``\\xNN``, and each backslash doubled: one line, read the same
    by a person and a terminal."""
    out = []
    for ch in name:
        code = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif code < 0x20 or 0x7F <= code <= 0x9F or code in (0x2028, 0x2029):
            out.append(_ESCAPES.get(ch) or (f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"))
        elif 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8
            out.append(f"\\x{code - 0xDC00:02x}")
        else:
            out.append(ch)
    return "".join(out)


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _bad_name(name: bytes) -> str | None:
    if len(name) > 4 and name[0] != 46 and b"/" not in name:  # the usual name: fast
        return None
    if not name:
        return "has an empty name"
    if name in (b".", b".."):
        return f"is named {name.decode()!r}, which no tree entry may be"
    if name.lower().rstrip(b". ") == b".git":
        return "is named like .git, which no tree entry may be"
    if b"/" in name:
        return "holds '/' in its name"
    return None


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
