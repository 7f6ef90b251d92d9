"""The claim ledger: every cited claim on main, in the telemetry database's ``claims``
table (docs/ledger.md).

The ledger is derived from git alone: main's first-parent history (each commit's
changed pages, parsed and their quotes checked at that commit) and, for the judge's
votes, the artifacts a committed run's verification left under its note. ``sync``
brings it up to main's tip one commit at a time, re-reading only the pages a commit
changed (and those citing a source it added or changed; a batch of commits that change
no source after its first is read in one verification: _read_batch); ``rebuild``
replays it from the first commit, so a rebuild and the live ledger agree by
construction. Every command that moves main calls ``sync`` after (finalize, override,
approve, the bot, the server's post-receive); ``wikigate claims`` calls it before
reading, so the ledger is never behind main.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pygit2

from . import attest, gitrepo
from .config import Config
from .errors import GitError, WikigateError
from .kinds import ANCHOR_STATUSES, CLAIM_FILTERS
from .models import VerificationRef
from .verifier.citation import quote_hash
from .verifier.claims import PageClaim, page_claims
from .verifier.default import DeterministicVerifier
from .verifier.entries import WalkMemo
from .verifier.wiki import cache_version
from .verify import Request, Verification, cache_path, verify

if TYPE_CHECKING:
    from .verifier.markdown import ParsedPage
    from .workspace import Workspace

REF = gitrepo.MAIN  # the ledger state row's key (the trunk, whatever its name)
FORMAT = 1  # the rows' meaning; with cache_version(): a change rebuilds the ledger
BATCH = 16  # commits of a sync read together (_read_batch), sharing the trees they walked
BATCH_PATHS = 5000  # and the paths they change, at most (a larger commit is a batch alone)
STATUSES = ANCHOR_STATUSES
# the columns whose change makes a claim "changed" (its line moves with edits around it)
CONTENT = (
    "claim",
    "source",
    "source_page",
    "source_quote",
    "source_quote_hash",
    "source_quote_offset",
    "anchor_status",
    "disputed",
)
# a claim's row as `wikigate claims` shows it (json and csv columns, in this order)
COLUMNS = (
    "claim_id",
    "page",
    "line",
    *CONTENT,
    "introduced_commit",
    "changed_commit",
    "judge_vote",
    "judge_reason",
)


def version() -> str:
    return f"ledger{FORMAT}/{cache_version()}"


@dataclass
class Synced:
    """What a sync did: main's commit the ledger now reflects, commits applied, pages read."""

    commit: str | None
    commits: int = 0
    pages: int = 0
    rebuilt: bool = False


Progress = Callable[[str, int, int], None]


def sync(ws: Workspace, *, progress: Progress | None = None) -> Synced:
    """Bring the ledger up to main's tip (a full replay when main was rewritten, or the
    ledger was written by another version)."""
    repo, store = ws.repo, ws.store
    head = gitrepo.ref_target(repo, ws.env.main)
    state = _state(store)
    if head is None:
        return Synced(None)
    known = state["commit_id"] if state and state["version"] == version() else None
    if known == str(head):
        return Synced(known)
    path = _first_parents(repo, head, known) if known is not None else None
    rebuilt = path is None
    if path is None:  # a first build, another version's rows, or main was rewritten
        path = _first_parents(repo, head, None) or []
        _clear(store)
        known = None
    done = Synced(known, rebuilt=rebuilt)
    n = 0
    for batch in _batches(ws.repo, path):
        # the commits' trees walked once a batch: what the memo holds stays bounded
        read = _read_batch(ws, batch, WalkMemo())
        votes = [_votes(ws, str(commit.id)) for commit, *_ in read]
        with store.immediate():  # a batch in one transaction (a run's commits: one)
            state = _state(store)
            moved = (
                state["commit_id"] if state and state["version"] == version() else None
            ) != known
            for (commit, pages, rows, gap_rows), voted in zip(read, votes, strict=True):
                if moved:
                    break
                n += 1
                if progress is not None:
                    progress("ledger", n, len(path))
                _apply(store, commit, known, pages, rows, gap_rows, voted)
                known = str(commit.id)
                done.commit, done.commits = known, done.commits + 1
                done.pages += len(pages)
        if moved:  # another process got there first: start over from its state
            return sync(ws, progress=progress)
    return done


def rebuild(ws: Workspace, *, progress: Progress | None = None) -> Synced:
    """Replay the ledger from main's first commit (``wikigate telemetry rebuild``)."""
    _clear(ws.store)
    return sync(ws, progress=progress)


def claims(
    ws: Workspace,
    *,
    page: str | None = None,
    source: str | None = None,
    status: str | None = None,
) -> list[dict[str, Any]]:
    """The ledger's rows (after a sync), filtered: ``page`` a page or folder (``wiki/x/``),
    ``source`` a source path or folder, ``status`` an anchor status or a judge vote."""
    if status and status not in CLAIM_FILTERS:
        from .errors import UsageError

        raise UsageError(
            f"status {status!r}: one of {', '.join(CLAIM_FILTERS)} (an anchor status, or the "
            "LLM judge's last vote)"
        )
    sync(ws)
    where, args = [], []
    for column, value in (("page", page), ("source", source)):
        if value:
            if value.endswith("/"):
                where.append(f"substr({column}, 1, ?) = ?")
                args += [len(value), value]
            else:
                where.append(f"{column} = ?")
                args.append(value)
    if status:
        where.append(
            "anchor_status = ?"
            if status in STATUSES
            else "judge_vote IS NOT NULL AND judge_vote = ?"
        )
        args.append(status)
    sql = "SELECT * FROM claims" + (f" WHERE {' AND '.join(where)}" if where else "")
    cursor = ws.store.db.execute(sql + " ORDER BY page, line, claim_id", args)
    columns = [d[0] for d in cursor.description]
    return [dict(zip(columns, row, strict=True)) for row in cursor]


def health(ws: Workspace, ref: str | None = None) -> Any:
    """The wiki's health (wikigate.health) at ``ref`` (None: main's tip), with the LLM
    judge's last votes as the ledger keeps them (the claims it holds of that commit)."""
    from . import health as health_module
    from .changes import resolve_commit

    sync(ws)
    head = gitrepo.ref_target(ws.repo, ws.env.main)
    if ref is not None:
        commit = resolve_commit(ws.repo, ref)
    elif head is not None:
        commit = gitrepo.commit_at(ws.repo, head)
    else:
        raise WikigateError(f"{ws.env.main} has no commit yet: nothing to measure")
    votes = (
        {
            r["claim_id"]: (r["judge_vote"], r["claim"])
            for r in ws.store.db.execute_returning_dicts(
                "SELECT claim_id, claim, judge_vote FROM claims WHERE judge_vote IS NOT NULL"
            )
        }
        if head is not None and commit.id == head
        else {}
    )
    return health_module.measure(
        ws.repo, commit, ws.config, cache_path=cache_path(ws.repo), votes=votes
    )


def states(ws: Workspace) -> dict[str, str]:
    """Each claim's state on main (fresh, stale, contested, unverified: wikigate.health)."""
    return dict(health(ws).claims)


def gaps(ws: Workspace, page: str | None = None) -> list[dict[str, Any]]:
    sync(ws)
    where, args = ("page = ?", [page]) if page else (None, [])
    return list(ws.store.db["gaps"].rows_where(where, args, order_by="page, line"))


# ---------------------------------------------------------------- applying a commit


def _citing(store: Any, sources: list[str]) -> set[str]:
    """The pages with a claim citing one of ``sources``, or with a mismatched claim."""
    found = {
        r["page"]
        for r in store.db.execute_returning_dicts(
            "SELECT DISTINCT page FROM claims WHERE anchor_status = 'mismatched'"
        )
    }
    for at in range(0, len(sources), 500):  # under SQLite's limit on bound parameters
        chunk = sources[at : at + 500]
        marks = ",".join("?" * len(chunk))
        found |= {
            r["page"]
            for r in store.db.execute_returning_dicts(
                f"SELECT DISTINCT page FROM claims WHERE source IN ({marks})", chunk
            )
        }
    return found


Batch = list[tuple[pygit2.Commit, list[str]]]  # commits, each with the paths it changed
Read = tuple[list[dict[str, Any]], list[dict[str, Any]]]  # a page's ledger rows, gap rows


def _changes(repo: pygit2.Repository, commit: pygit2.Commit) -> list[str]:
    parent = commit.parents[0] if commit.parents else None
    if parent is not None:
        return gitrepo.changed_paths(repo, parent.tree, commit.tree)
    # the first commit: every path, from a diff against the empty tree
    return sorted({d.new_file.path for d in commit.tree.diff_to_tree(swap=True).deltas})


def _batches(repo: pygit2.Repository, path: list[pygit2.Commit]) -> Iterator[Batch]:
    """``path`` in batches of at most BATCH commits changing at most BATCH_PATHS paths
    (what a batch holds stays bounded), a commit that changes a source (raw/) always the
    first of its batch: within a batch no source changes, so a page
    reads the same at every commit of it that holds the same blob (_read_batch). Lazy:
    a batch is read after the ones before it are applied."""
    batch: Batch = []
    size = 0
    for commit in path:
        changed = _changes(repo, commit)
        full = len(batch) >= BATCH or size + len(changed) > BATCH_PATHS
        if batch and (full or any(p.startswith("raw/") for p in changed)):
            yield batch
            batch, size = [], 0
        batch.append((commit, changed))
        size += len(changed)
    if batch:
        yield batch


def _read_batch(
    ws: Workspace, batch: Batch, walks: WalkMemo
) -> list[tuple[pygit2.Commit, list[str], list[dict[str, Any]], list[dict[str, Any]]]]:
    """Each commit of ``batch`` with the pages to read again (those it changed, and
    those citing a source it added or changed) and their rows at that commit. A page as a
    commit left it is read at the last commit of the batch before the page changes again
    (no source changes within a batch: _batches), so a run whose commits each change a
    page is one citations check of its pages, not one per commit (issue 28)."""
    layout = ws.config.wiki.layout()  # main's [wiki] root
    pages_of: list[list[str]] = []
    for _, changed in batch:
        pages = set(filter(layout.is_page, changed))
        raws = [p for p in changed if p.startswith("raw/")]
        if raws:  # a changed source re-checks every claim citing it (a new one may anchor some)
            pages |= _citing(ws.store, raws)
        pages_of.append(sorted(pages))
    where: list[dict[str, int]] = [{} for _ in batch]  # a commit's page → read at
    read_at: dict[int, set[str]] = {}
    changes: dict[str, int] = {}  # a path → the next commit of the batch changing it
    for n in reversed(range(len(batch))):
        for p in pages_of[n]:
            at = where[n][p] = changes.get(p, len(batch)) - 1
            read_at.setdefault(at, set()).add(p)
        for p in batch[n][1]:
            changes[p] = n
    found: dict[tuple[int, str], Read] = {}
    for at, pages in sorted(read_at.items()):
        for p, got in _extract(ws, batch[at][0], sorted(pages), walks).items():
            found[(at, p)] = got
    out = []
    for n, (commit, _) in enumerate(batch):
        rows: list[dict[str, Any]] = []
        gap_rows: list[dict[str, Any]] = []
        for p in pages_of[n]:
            page_rows, page_gaps = found.get((where[n][p], p), ([], []))
            rows += [dict(r) for r in page_rows]
            gap_rows += [dict(g) for g in page_gaps]
        out.append((commit, pages_of[n], rows, gap_rows))
    return out


def _apply(
    store: Any,
    commit: pygit2.Commit,
    known: str | None,
    pages: list[str],
    rows: list[dict[str, Any]],
    gap_rows: list[dict[str, Any]],
    votes: dict[str, tuple[str, str]],
) -> None:
    """Apply one first-parent commit of main (``rows``, ``gap_rows``: those of
    ``pages`` at it; ``votes``: the judge's on its claims), in the caller's transaction,
    the ledger at ``known``."""
    at = str(commit.id)
    old = (
        {}
        if known is None  # a build from scratch: the tables were just emptied
        else {
            r["claim_id"]: r
            for page in pages
            for r in store.db["claims"].rows_where("page = ?", [page])
        }
    )
    for row in rows:
        before = old.pop(row["claim_id"], None)
        same = before is not None and all(before[k] == row[k] for k in CONTENT)
        row["introduced_commit"] = before["introduced_commit"] if before else at
        row["changed_commit"] = before["changed_commit"] if same and before else at
        vote = votes.get(row["claim_id"])
        if vote is not None:
            row["judge_vote"], row["judge_reason"] = vote
        elif same and before is not None:
            row["judge_vote"], row["judge_reason"] = (
                before["judge_vote"],
                before["judge_reason"],
            )
    for gone in old:
        store.table("claims").delete(gone)
    _write(store, "INSERT OR REPLACE INTO claims", rows)
    if known is not None:
        for page in pages:
            store.table("gaps").delete_where("page = ?", [page])
    _write(store, "INSERT INTO gaps", gap_rows)
    store.table("ledger_state").upsert(
        {"ref": REF, "commit_id": at, "version": version()}, pk="ref"
    )


def _write(store: Any, statement: str, rows: list[dict[str, Any]]) -> None:
    """Rows of one shape in one statement (sqlite-utils' upsert_all costs ~5 s per 100,000
    rows of the ledger in its type conversions; these values are plain already)."""
    if not rows:
        return
    columns = list(rows[0])
    store.db.conn.executemany(
        f"{statement} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
        [tuple(r[c] for c in columns) for r in rows],
    )


def read_pages(
    request: Request, what: str
) -> tuple[Verification, dict[tuple[str, str], object], dict[str, ParsedPage]]:
    """``request`` verified by the deterministic verifier for what it read of the pages:
    the verification, its ``anchors`` and its ``pages`` (the ledger's reading of a
    commit; health reads a tree the same way); WikigateError naming ``what`` when it
    could not read them."""
    done = verify(request, verifier=DeterministicVerifier())
    if done.anchors is None or done.pages is None:
        why = "; ".join(f.message for f in done.report.findings) or "it did not run"
        raise WikigateError(f"{what} failed: {why}")
    return done, done.anchors, done.pages


def _extract(
    ws: Workspace, commit: pygit2.Commit, pages: Sequence[str], walks: WalkMemo | None = None
) -> dict[str, Read]:
    """The ledger rows of each of ``pages`` at ``commit`` (the deleted ones have none),
    with each quote's anchor checked by the verifier's citations check; and the pages'
    gap markers.

    The claims and gaps are read from the pages as that check parsed them
    (``Verification.pages``): the commit's tree is walked, and its pages parsed (or read
    from the cache), once."""
    if not pages:
        return {}
    repo = ws.repo
    # the default verifier's citations check, as every gate runs it (wikigate.verify):
    # the ledger records what it found of each claim's anchor
    _, verified, parsed = read_pages(
        Request(
            repo,
            commit,
            None,
            strictness="CALM",
            rules=Config(limits=ws.config.limits, wiki=ws.config.wiki),
            only=frozenset({"citations"}),
            pages=tuple(pages),
            cache_path=cache_path(repo),
            walks=walks,
        ),
        f"the citations check of {str(commit.id)[:12]}",
    )
    out: dict[str, Read] = {}
    for path in pages:
        page = parsed.get(path)
        if page is None:
            continue  # deleted, or unreadable: it holds no claims the ledger can name
        rows = [_row(c, verified.get((path, c.label))) for c in page_claims(page)]
        gaps = [{"page": path, "line": ln, "reason": why} for ln, why in page.gaps]
        out[path] = rows, gaps
    return out


def _row(c: PageClaim, found: Any) -> dict[str, Any]:
    if c.offset is None:
        status = "unanchored"
    elif found is not None and found.code is None:
        status = "anchored"
    else:
        status = "mismatched"
    return {
        "claim_id": c.id,
        "page": c.page,
        "label": c.label,
        "line": c.line,
        "claim": c.sentence,
        "source": found.source if found is not None else c.source,
        "source_page": c.pdf_page,
        "source_quote": c.quote,
        "source_quote_hash": quote_hash(c.quote),
        "source_quote_offset": c.offset,
        "anchor_status": status,
        "disputed": int(c.disputed),
        "judge_vote": None,
        "judge_reason": None,
    }


def _votes(ws: Workspace, commit: str) -> dict[str, tuple[str, str]]:
    """The LLM judge's votes on the claims of ``commit``, when a committed run landed it:
    from its last verification's ``judge/votes.json`` (claim id → vote, reason)."""
    store = ws.store
    runs = list(store.db["runs"].rows_where("status = 'committed' AND tip_commit = ?", [commit]))
    for run in runs:
        done = store.verifications(run["run_id"])
        if not done:
            continue
        try:
            files = attest.files(ws.repo, VerificationRef.model_validate(done[-1]))
        except GitError:
            continue  # the notes that hold them were not fetched
        blob = files.get("judge/votes.json")
        if blob is None:
            continue
        try:
            data = json.loads(blob.data)
        except ValueError:
            continue
        return {
            str(v["claim_id"]): (str(v["vote"]), str(v.get("reason", "")))
            for v in data
            if isinstance(v, dict) and "claim_id" in v and "vote" in v
        }
    return {}


# ---------------------------------------------------------------- state


def _state(store: Any) -> dict[str, Any] | None:
    rows = list(store.db["ledger_state"].rows_where("ref = ?", [REF]))
    return rows[0] if rows else None


def _clear(store: Any) -> None:
    with store.immediate():
        store.db.execute("DELETE FROM claims")
        store.db.execute("DELETE FROM gaps")
        store.db.execute("DELETE FROM ledger_state")


def _first_parents(
    repo: pygit2.Repository, head: pygit2.Oid, stop: str | None
) -> list[pygit2.Commit] | None:
    """main's first-parent commits after ``stop`` up to ``head``, oldest first; None when
    ``stop`` is not on that line (main was rewritten)."""
    out: list[pygit2.Commit] = []
    commit: pygit2.Commit | None = gitrepo.commit_at(repo, head)
    while commit is not None and str(commit.id) != stop:
        out.append(commit)
        commit = commit.parents[0] if commit.parents else None
    if stop is not None and commit is None:
        return None
    out.reverse()
    return out
