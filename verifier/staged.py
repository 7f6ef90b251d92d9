"""The run's staged tree, read-only, as the LLM judge's tools see it: ``read`` a span of a
raw source or page, ``grep`` across raw/ and wiki/, ``follow`` a link, ``history`` of a
page.  Everything is read from git objects (the tree being verified, and the commits
behind its tip); nothing here can write, and a symlink or submodule is never followed.

Answers are plain text, bounded in size; what they quote is untrusted data that the
judge marks before sending (verifier/judges/llm/spotlight.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pygit2

from .markdown import Link
from .sources import SourceError
from .wiki import WikiTree

READ_MAX = 8000  # characters a read returns at most
GREP_MAX_HITS = 30
GREP_MAX_FILES = 2000
GREP_LINE_MAX = 240
FOLLOW_MAX = 4000
HISTORY_MAX = 20
HISTORY_WALK = 2000  # commits looked at, at most


class Unsearched(LookupError):
    """A file ``grep`` could not search, said after the hits (its message)."""


class StagedTree:
    """Read-only views of one tree (and the history behind ``tip``, when known); ``where``
    names the tree in messages (an MCP session's: "on main", "in run ID")."""

    where = "in the staged tree"

    def __init__(
        self,
        repo: pygit2.Repository,
        tree: WikiTree,
        tip: str | None,
        heartbeat: Callable[[], None] | None = None,
    ) -> None:
        self.repo = repo
        self.tree = tree
        self.tip = tip
        self._heartbeat = heartbeat

    def tick(self) -> None:
        """A judge calls this between requests: finalize renews its claim's lease."""
        if self._heartbeat is not None:
            self._heartbeat()

    def _readable(self, path: str) -> bool:
        """A source under raw/, or the wiki's (its ``[wiki] root``)."""
        return path.startswith("raw/") or self.tree.layout.in_wiki(path)

    def _text(self, path: str) -> str:
        entry = self.tree.entries.get(path)
        if entry is None or not self._readable(path):
            raise LookupError(
                f"{path}: no such file under raw/ or {self.tree.layout.shown} {self.where}"
            )
        if entry.is_link or entry.is_submodule:
            raise LookupError(f"{path}: a symlink or submodule; not read")
        if not path.startswith("raw/"):
            if not self.tree.layout.is_page(path):
                raise LookupError(f"{path}: an attachment, not text")
            text, error = self.tree.page_text(path)
            if text is None:
                raise LookupError(f"{path}: {error}")
            return text
        try:
            return self.tree.source_text(path, None)
        except SourceError as e:
            raise LookupError(f"{path} {e}") from e

    def read(self, path: str, start: int = 0, length: int = 4000) -> str:
        """Characters ``start`` … ``start + length`` of a source or page (at most READ_MAX)."""
        text = self._text(path)
        start = max(0, min(int(start), len(text)))
        end = min(len(text), start + max(0, min(int(length), READ_MAX)))
        return f"{path} characters {start}-{end} of {len(text)}:\n{text[start:end]}"

    def _bodies(self, path: str) -> list[tuple[str, str]]:
        """What ``grep`` searches of ``path``: (where, text) pairs. LookupError: nothing
        to search (skipped); Unsearched: named after the hits, with why."""
        return [(path, self._text(path))]

    def grep(self, text: str, under: str = "") -> str:
        """Lines holding ``text`` (case-insensitive, literal) in files under raw/ and the
        wiki (or under the ``under`` prefix): ``path:line: text``, at most GREP_MAX_HITS."""
        needle = text.lower()
        if not needle.strip():
            raise LookupError("grep needs some text to look for")
        hits: list[str] = []
        unread: list[str] = []
        scanned = 0
        for path in sorted(self.tree.entries):
            if not self._readable(path) or not path.startswith(under):
                continue
            scanned += 1
            if scanned > GREP_MAX_FILES:
                hits.append(f"(stopped after {GREP_MAX_FILES} files)")
                break
            try:
                bodies = self._bodies(path)
            except Unsearched as e:
                unread.append(str(e))
                continue
            except LookupError:
                continue
            for where, body in bodies:
                for n, line in enumerate(body.split("\n"), 1):
                    if needle in line.lower():
                        hits.append(f"{where}:{n}: {line[:GREP_LINE_MAX]}")
                        if len(hits) >= GREP_MAX_HITS:
                            return "\n".join([*hits, f"(first {GREP_MAX_HITS} hits)", *unread])
        return "\n".join([*hits, *unread]) if hits or unread else "no match"

    def follow(self, page: str, target: str) -> str:
        """Where a link on ``page`` leads (``[[Name]]``'s name, or a relative path), and
        the start of that page."""
        name, _, anchor = target.strip().strip("[]").partition("#")
        kind = "md" if name.endswith(".md") or "/" in name else "wiki"
        found = self.tree.resolve(page, Link(kind, name.strip(), anchor or None, 0))
        if found is None:
            return f"{target!r} on {page} leads nowhere"
        text = self._text(found)
        return f"{target!r} on {page} leads to {found}:\n{text[:FOLLOW_MAX]}"

    def history(self, path: str) -> str:
        """The commits behind the tip that changed ``path``, newest first."""
        if self.tip is None:
            return "no history: this verification has no tip commit"
        out: list[str] = []
        walker = self.repo.walk(pygit2.Oid(hex=self.tip), pygit2.enums.SortMode.TOPOLOGICAL)
        for seen, commit in enumerate(walker):
            if seen >= HISTORY_WALK:
                out.append(f"(stopped after {HISTORY_WALK} commits)")
                break
            mine = _blob(commit.tree, path)
            parents = commit.parents
            before = _blob(parents[0].tree, path) if parents else None
            if mine != before:
                subject = commit.message.split("\n", 1)[0][:200]
                when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(commit.commit_time))
                run = _run_of(commit.message)
                out.append(f"{str(commit.id)[:12]} {when} {subject}{run}")
                if len(out) >= HISTORY_MAX:
                    break
        return "\n".join(out) if out else f"no commit changed {path}"


def _run_of(message: str) -> str:
    """`` (run ID)`` when the commit names its run in a ``Wikigate-Run:`` trailer (as the
    writer wrote it: shown, not trusted), else ""."""
    for line in message.splitlines()[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "wikigate-run" and value.strip():
            return f" (run {value.strip()[:64]})"
    return ""


def _blob(tree: pygit2.Tree, path: str) -> str | None:
    try:
        return str(tree[path].id)
    except (KeyError, ValueError):
        return None
