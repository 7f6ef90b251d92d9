"""A pull request's run in ``refs/notes/wikigate`` on origin: every verification leaves
the engine's run record as a note on the commit it verified, so loops are counted from
origin (runners are ephemeral) and ``wikigate telemetry rebuild`` on any clone shows the
pull request's runs, loops, verdicts and overrides.

A pull request is a run: ``gh-OWNER-NAME-pNUMBER-SHA12``, SHA12 the head its first loop
verified.  Each new head sha verified is one more loop; a re-run on the same head is the
same loop.  A run ends committed or rejected; the next head after a rejection starts a
new run (as a writer starts a new run after a local rejection).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pygit2

from wikigate.errors import GitError
from wikigate.gitrepo import blob_at, commit_at, notes_commit_with, tree_at
from wikigate.models import (
    TERMINAL,
    LoggedFinding,
    OverrideSource,
    RunRecord,
    RunType,
    Status,
    fingerprint,
)
from wikigate.records import parse_record
from wikigate.runid import now_iso, parse_iso
from wikigate.verifier.report import VerificationReport

from .fetch import fetch_notes, push_notes

PUSH_ATTEMPTS = 3  # origin's notes moved under us: fetch, rebuild, push again


@dataclass(frozen=True)
class Override:
    actor: str
    reason: str
    source: OverrideSource  # github-label | github-comment
    head: str  # the head sha it was given for: a later push voids it
    approve: bool | None = None  # a review: approved (True) or changes requested (False)

    @property
    def recorded_reason(self) -> str:
        return f"{self.reason} (given for head {self.head})"


def run_prefix(repository: str, number: int) -> str:
    return f"gh-{repository.replace('/', '-')}-p{number}-"


def run_id_for(repository: str, number: int, head: str) -> str:
    """The run a pull request's head starts: ``gh-OWNER-NAME-pNUMBER-SHA12``."""
    return run_prefix(repository, number) + head[:12]


def run_type_for(repo: pygit2.Repository, base: str, head: str) -> RunType:
    """ingest when the change adds a file under raw/, else cascade: the bot's decision, from
    the change itself (the commits' ``Wikigate-Type`` trailers are the writer's, never read)."""
    return "ingest" if added_sources(repo, base, head, most=1) else "cascade"


def added_sources(repo: pygit2.Repository, base: str, head: str, most: int = 100) -> list[str]:
    """The paths under raw/ that ``head`` adds to ``base`` (at most ``most``: a tree bomb
    costs its distinct trees, not its paths); none when libgit2 cannot read a tree."""
    old, new = (_raw_id(commit_at(repo, c).tree) for c in (base, head))
    try:
        return sorted(_adds(repo, old, new, most)) if new is not None else []
    except (KeyError, ValueError, pygit2.GitError):  # a tree libgit2 cannot read
        return []


def _raw_id(tree: pygit2.Tree) -> pygit2.Oid | None:
    try:
        entry = tree["raw"]
    except KeyError:
        return None
    return entry.id if entry.type_str == "tree" else None


def _adds(repo: pygit2.Repository, old: pygit2.Oid | None, new: pygit2.Oid, most: int) -> list[str]:
    """Up to ``most`` files under raw/ that the tree ``new`` holds and the tree ``old``
    lacks (a file whose mode changed between a link and a regular file counts, as in git's
    diff). Each pair of tree ids is compared once, and the search stops at ``most``: a
    head whose trees name each other (a tree bomb) costs its distinct trees, not its paths."""
    seen: set[tuple[pygit2.Oid | None, pygit2.Oid]] = set()
    todo: list[tuple[pygit2.Oid | None, pygit2.Oid, str]] = [(old, new, "raw/")]
    found: list[str] = []
    while todo:
        a, b, where = todo.pop()
        if (a, b) in seen or a == b:
            continue
        seen.add((a, b))
        before = {e.name: e for e in tree_at(repo, a)} if a is not None else {}
        for entry in tree_at(repo, b):
            prev = before.get(entry.name)
            if entry.type_str == "tree":
                was = prev.id if prev is not None and prev.type_str == "tree" else None
                todo.append((was, entry.id, f"{where}{entry.name}/"))
            elif prev is None or prev.type_str == "tree" or _is_link(prev) != _is_link(entry):
                found.append(f"{where}{entry.name}")
                if len(found) >= most:
                    return found
    return found


def _is_link(entry: pygit2.Object) -> bool:
    return entry.filemode == pygit2.GIT_FILEMODE_LINK


# ---------------------------------------------------------------- history


def pull_records(
    repo: pygit2.Repository, notes_commit: str | None, repository: str, number: int
) -> list[RunRecord]:
    """Every record origin's notes hold for this pull request, oldest first."""
    if notes_commit is None:
        return []
    prefix = run_prefix(repository, number)
    needle = prefix.encode()
    branch = f"pull/{number}/head"
    found = []
    for blob in _note_blobs(repo, commit_at(repo, notes_commit).tree):
        data = blob_at(repo, blob).data
        if needle not in data:  # cheap: most notes are other runs'
            continue
        try:
            parsed = json.loads(data)
        except ValueError:
            continue
        record = parse_record(parsed) if isinstance(parsed, dict) else None
        if record and record.run_id.startswith(prefix) and record.branch == branch:
            found.append(record)
    return sorted(found, key=lambda r: r.recorded_at)


NOTES_DEPTH = 20  # git's notes fan-out splits a 40-hex name into 2-hex folders at most


def _note_blobs(
    repo: pygit2.Repository, tree: pygit2.Tree, seen: set[pygit2.Oid] | None = None, depth: int = 0
) -> Iterator[pygit2.Oid]:
    """The note blobs of a notes tree, each tree object read once: a notes tree that names
    one folder many times (a tree bomb pushed to origin's notes) costs its distinct trees,
    not the paths they spell; nothing deeper than git's fan-out is read."""
    seen = set() if seen is None else seen
    for entry in tree:
        if entry.type_str == "tree":  # git's fan-out (ab/cdef…)
            if entry.id in seen or depth >= NOTES_DEPTH:
                continue
            seen.add(entry.id)
            yield from _note_blobs(repo, tree_at(repo, entry.id), seen, depth + 1)
        elif entry.type_str == "blob":
            yield entry.id


def reported_before(records: list[RunRecord], when: str | None) -> RunRecord | None:
    """The latest verification origin's notes held at ``when`` (an ISO time, e.g. a
    comment's ``created_at``): the report a person writing then could have read."""
    if when is None:
        return None
    try:
        moment = parse_iso(when)
    except ValueError:
        return None
    seen = None
    for record in records:
        try:
            if parse_iso(record.recorded_at) <= moment:
                seen = record
        except ValueError:
            continue
    return seen


@dataclass(frozen=True)
class PullRun:
    """Where this verification stands in the pull request's run."""

    run_id: str
    loop: int
    started_at: str
    earlier: list[LoggedFinding] = field(default_factory=list)  # other loops' findings
    last: RunRecord | None = None  # the run's latest record before this verification


def pull_run(records: list[RunRecord], repository: str, number: int, head: str) -> PullRun:
    """The run and loop a verification of ``head`` belongs to, from the earlier records."""
    last = records[-1] if records else None
    if last is None or (last.status in TERMINAL and last.tip_commit != head):
        return PullRun(run_id_for(repository, number, head), 1, now_iso())
    loop = last.loop_count if last.tip_commit == head else last.loop_count + 1
    earlier = [f for f in last.findings if f.loop != loop]
    return PullRun(last.run_id, loop, last.started_at, earlier, last)


@dataclass(frozen=True)
class Recorded:
    """What one verification's record says happened: the run's status and verdict, the
    reason, a person's override or review; ``tip`` and ``base`` when what landed is not
    what was verified (an override rebased)."""

    status: Status
    verdict: str
    reason: str | None = None
    override: Override | None = None
    tip: str | None = None
    base: str | None = None
    questions: tuple[str, ...] = ()  # what a person must answer (needs_human_review)


def pull_record(
    *,
    repository: str,
    number: int,
    event: str,
    run: PullRun,
    run_type: RunType,
    report: VerificationReport,
    happened: Recorded,
    prints: list[str] | None = None,
) -> RunRecord:
    """The run record of one verification (``report``), as the engine writes them;
    ``prints``: its findings' fingerprints (``records.finding_fingerprints``)."""
    now = now_iso()
    status, verdict, override = happened.status, happened.verdict, happened.override
    base = happened.base or report.base
    assert base is not None
    return RunRecord(
        run_id=run.run_id,
        workspace=repository,
        run_type=run_type,
        triggered_by=f"github:{event}",
        status=status,
        started_at=run.started_at,
        ended_at=now if status in TERMINAL else None,
        recorded_at=now,
        base_commit=base,
        tip_commit=happened.tip or report.tip,
        branch=f"pull/{number}/head",
        verifier_preset=report.strictness,
        verdict=verdict,
        reject_reason=happened.reason,
        loop_count=run.loop,
        findings=[
            *run.earlier,
            *(
                LoggedFinding(
                    loop=run.loop,
                    **f.model_dump(include={"code", "severity", "path", "line", "message"}),
                    fingerprint=fp,
                    signature=f.signature,  # what failed: the next loop's no-progress rule
                )
                for f, fp in zip(
                    report.findings,
                    prints if prints is not None else [fingerprint(f) for f in report.findings],
                    strict=True,
                )
            ),
        ],
        exempt=report.exempt,
        next_actions=report.next_actions,
        blind_spots=report.blind_spots,
        questions=list(happened.questions),
        override_actor=override.actor if override else None,
        override_reason=override.recorded_reason if override else None,
        override_source=override.source if override else None,
        override_at=now if override else None,
    )


# ---------------------------------------------------------------- publishing


def publish(
    repo: pygit2.Repository,
    workdir: Path,
    parent: str | None,
    record: RunRecord,
    sig: pygit2.Signature,
) -> str:
    """Add ``record`` as the note on its tip to origin's notes and push them; returns the
    notes commit.  Only origin's notes ref moves: the local ``refs/notes/wikigate`` is the
    user's own."""
    for _ in range(PUSH_ATTEMPTS):
        note = record.model_dump(mode="json")
        commit = str(notes_commit_with(repo, record.tip_commit, note, parent=parent, sig=sig))
        if push_notes(workdir, commit):
            return commit
        parent = fetch_notes(workdir)
    raise GitError("origin's refs/notes/wikigate kept moving; the verdict note was not pushed")
