"""The verdict note a landed pull request leaves on origin's ``refs/notes/wikigate``: the
same run record the engine writes, so ``wikigate telemetry rebuild`` on any clone that
fetched the notes shows the pull request's run, verdict and override."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pygit2

from wikigate.errors import GitError
from wikigate.gitrepo import commit_at, notes_commit_with
from wikigate.models import LoggedFinding, RunRecord, RunType
from wikigate.runid import now_iso
from wikigate.verifier.report import VerificationReport

from .fetch import fetch_notes, push_notes

PUSH_ATTEMPTS = 3  # origin's notes moved under us: fetch, rebuild, push again


@dataclass(frozen=True)
class Override:
    actor: str
    reason: str
    source: str  # "github-label" | "github-comment"


def run_id_for(repository: str, number: int, head: str) -> str:
    """One run per pull request head: ``gh-OWNER-NAME-pNUMBER-SHA12``."""
    return f"gh-{repository.replace('/', '-')}-p{number}-{head[:12]}"


def run_type_for(repo: pygit2.Repository, base: str, head: str) -> RunType:
    """ingest when the change adds under raw/, else cascade."""
    diff = commit_at(repo, base).tree.diff_to_tree(commit_at(repo, head).tree)
    added = any(
        d.status == pygit2.GIT_DELTA_ADDED
        for d in diff.deltas
        if d.new_file.path.startswith("raw/")
    )
    return "ingest" if added else "cascade"


def committed_record(
    *,
    workspace: str,
    run_id: str,
    run_type: RunType,
    event: str,
    number: int,
    report: VerificationReport,
    started_at: str,
    override: Override | None,
) -> RunRecord:
    now = now_iso()
    assert report.base is not None
    return RunRecord(
        run_id=run_id,
        workspace=workspace,
        run_type=run_type,
        triggered_by=f"github:{event}",
        status="committed",
        started_at=started_at,
        ended_at=now,
        recorded_at=now,
        base_commit=report.base,
        tip_commit=report.tip,
        branch=f"pull/{number}/head",
        verifier_preset=report.strictness,
        verdict="commit_override" if override else "commit",
        findings=[
            LoggedFinding(
                loop=1, **f.model_dump(include={"code", "severity", "path", "line", "message"})
            )
            for f in report.findings
        ],
        exempt=report.exempt,
        override_actor=override.actor if override else None,
        override_reason=override.reason if override else None,
        override_source=override.source if override else None,
        override_at=now if override else None,
    )


def publish(repo: pygit2.Repository, workdir: Path, parent: str | None, record: RunRecord) -> str:
    """Add ``record`` as the note on its tip to origin's notes and push them; returns the
    notes commit.  Only origin's notes ref moves: the local ``refs/notes/wikigate`` is the
    user's own."""
    for _ in range(PUSH_ATTEMPTS):
        commit = _notes_commit(repo, parent, record)
        if push_notes(workdir, commit):
            return commit
        parent = fetch_notes(workdir)
    raise GitError("origin's refs/notes/wikigate kept moving; the verdict note was not pushed")


def _notes_commit(repo: pygit2.Repository, parent: str | None, record: RunRecord) -> str:
    note = record.model_dump(mode="json")
    return str(notes_commit_with(repo, record.tip_commit, note, parent=parent))
