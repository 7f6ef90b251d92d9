"""Spotlighting: the writer's text reaches the model as marked data, never as prose.

Page and source text (and what the tools return) is cleaned of invisible Unicode and
line separators, then *datamarked*: every line starts with a marker, and the block is
delimited by tags carrying it.  The marker is an HMAC of the source blob id under a
secret kept outside the repository (``.git/wikigate/judge-secret``, made on first use):
the writer cannot guess it, so cannot fake a block's end or an unmarked line, and it
is stable per blob, so a cached source block repeats byte for byte across requests.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import unicodedata
from pathlib import Path

SECRET_FILE = Path("wikigate") / "judge-secret"
_PROCESS_SECRET = secrets.token_bytes(32)  # when the git dir cannot keep one

# characters a reader does not see, dropped: format controls (zero-width spaces and
# joiners, bidi controls, the BOM, tag characters), private use, unassigned, variation
# selectors, and control characters other than newline and tab
_VARIATION = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]")
_LINE_BREAKS = re.compile("\r\n|[\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def secret(git_dir: Path) -> bytes:
    """The marker secret of this repository, created (0600) on first use."""
    path = git_dir / SECRET_FILE
    try:
        data = path.read_bytes()
        if len(data) >= 32:
            return data
    except OSError:
        pass
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(secrets.token_hex(32).encode())
        return path.read_bytes()
    except FileExistsError:  # another process made it first
        return path.read_bytes()
    except OSError:
        return _PROCESS_SECRET


def marker(key: bytes, name: str) -> str:
    """The marker of one block: unguessable without ``key``, stable for ``name``."""
    return "§" + hmac.new(key, name.encode(), hashlib.sha256).hexdigest()[:10]


def clean(text: str) -> str:
    """``text`` without invisible characters, every line break a plain newline."""
    text = _LINE_BREAKS.sub("\n", text)
    text = _VARIATION.sub("", text)
    return "".join(
        ch
        for ch in text
        if ch in "\n\t" or unicodedata.category(ch) not in ("Cf", "Cc", "Co", "Cn", "Cs")
    )


def mark(text: str, mark_: str) -> str:
    """Every line of (cleaned) ``text`` prefixed with the marker."""
    return "\n".join(f"{mark_}| {line}" for line in clean(text).split("\n"))


def unmark(text: str, mark_: str) -> str:
    """What the model copied from marked lines, without the markers."""
    return re.sub(rf"(^|\n)[ \t]*{re.escape(mark_)}\| ?", r"\1", text)


def block(tag: str, mark_: str, head: str, text: str) -> str:
    """A delimited, marked block: ``<tag marker="…">``, ``head`` (our own words,
    unmarked), the marked text, ``</tag marker="…">``."""
    lines = [f'<{tag} marker="{mark_}">']
    if head:
        lines.append(head)
    lines.append(mark(text, mark_))
    lines.append(f'</{tag} marker="{mark_}">')
    return "\n".join(lines)
