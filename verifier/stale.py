"""The commit that gave a claim its present text, from git alone: what a claim is stale
against (checks/citations.py: ``staleness``, the one rule the gate, ``wikigate verify
--all`` and the ledger's states decide it by).

A claim's text is its footnote's definition and the sentences citing it; the commit that
gave it its present text is found by walking first parents back from the commit at hand
(moving lines, or editing the rest of the page, changes nothing).
"""

from __future__ import annotations

import pygit2

from .markdown import ParsedPage, ParseLimit, parse_page

STALE_HISTORY = 10_000  # first-parent commits walked back to where a claim's text began


def claims_since(
    repo: pygit2.Repository, commit: pygit2.Commit, path: str, labels: list[str]
) -> dict[str, pygit2.Commit | None]:
    """For each footnote label of ``path`` at ``commit``: the first-parent commit that
    gave its claim its present text (its footnote and the sentences citing it), or None
    when too far back."""
    page = _parse(repo, _blob(commit, path), path)
    open_ = {label: claim_text(page, label) for label in labels}
    out: dict[str, pygit2.Commit | None] = {}
    at, blob = commit, _blob(commit, path)
    for _ in range(STALE_HISTORY):
        if not open_:
            return out
        if not at.parents:
            out.update(dict.fromkeys(open_, at))
            return out
        parent = at.parents[0]
        before = _blob(parent, path)
        if before != blob:
            earlier = _parse(repo, before, path)
            for label in list(open_):
                if earlier is None or claim_text(earlier, label) != open_[label]:
                    out[label] = at
                    del open_[label]
            blob = before
        at = parent
    out.update(dict.fromkeys(open_))  # too far back to say
    return out


def claim_text(page: ParsedPage | None, label: str) -> tuple[str | None, list[str]]:
    """A claim's own text on ``page``: its footnote's definition and the sentences citing it."""
    if page is None:
        return None, []
    d = next((d for d in page.definitions if d.label == label), None)
    said = [" ".join((r.row or r.claim).split()) for r in page.refs if r.label == label]
    return (d.tail if d is not None else None), said


def _parse(repo: pygit2.Repository, blob: pygit2.Oid | None, path: str) -> ParsedPage | None:
    if blob is None:
        return None
    data = repo[blob].data  # type: ignore[attr-defined]
    try:
        return parse_page(path, data.decode("utf-8"))
    except (UnicodeDecodeError, ParseLimit):
        return None  # no claim text to compare: the claim's text is taken to start here


def _blob(commit: pygit2.Commit, path: str) -> pygit2.Oid | None:
    try:
        return commit.tree[path].id
    except KeyError:
        return None
