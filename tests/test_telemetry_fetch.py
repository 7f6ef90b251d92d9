"""`wikigate telemetry rebuild` on a plain `git clone` fetches origin's run records
(`refs/notes/wikigate`, which a clone does not bring) and indexes them with the local ones,
never rewriting or losing the local notes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from support.helpers import git, wikigate
from support.markers_verifier import MarkersVerifier

from wikigate.gitrepo import NOTES_REF, ORIGIN_NOTES
from wikigate.workspace import Workspace


def page(title: str, body: str = "Text.") -> str:
    return f"# {title}\n\n{body}\n"


def open_ws(path: Path) -> Workspace:
    ws = Workspace.open(path)
    ws.verifier = MarkersVerifier()
    return ws


def land(ws: Workspace, name: str, body: str = "Text.") -> str:
    """A run writing ``wiki/NAME.md``, finalized; returns its id."""
    run = ws.start_run("cascade", "cli:test")
    run.stage_write(f"wiki/{name}.md", page(name.title(), body))
    run.finalize()
    return run.run_id


def runs(repo: Path) -> dict[str, tuple[str, str | None]]:
    db = sqlite3.connect(repo / ".git" / "wikigate" / "telemetry.db")
    try:
        rows = db.execute("SELECT run_id, status, verdict FROM runs").fetchall()
    finally:
        db.close()
    return {run_id: (status, verdict) for run_id, status, verdict in rows}


def rev(repo: Path, ref: str) -> str:
    return git(repo, "rev-parse", "--verify", "-q", ref, check=False).stdout.strip()


@pytest.mark.slow
def test_a_fresh_clone_rebuilds_the_runs_others_pushed_and_keeps_its_own(tmp_path):
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    # clone A works, and pushes main and its notes
    a = open_ws(Workspace.init(tmp_path / "a").root)
    git(a.root, "remote", "add", "origin", str(origin))
    committed = land(a, "owls")
    rejected = land(a, "ravens", "REJECT-ME")
    revised = land(a, "barn", "REVISE-ME")
    git(a.root, "push", "-q", "origin", "main", NOTES_REF)
    seen_by_a = runs(a.root)
    assert seen_by_a[revised] == ("pending", "revise")

    # B: a plain clone has no notes; the rebuild fetches origin's
    b = tmp_path / "b"
    git(tmp_path, "clone", "-q", str(origin), str(b))
    assert rev(b, NOTES_REF) == ""
    proc = wikigate(b, "telemetry", "rebuild")
    assert proc.returncode == 0, proc.stderr
    assert "fetched refs/notes/wikigate from origin (3 notes)" in proc.stderr
    assert "with 3 runs" in proc.stdout
    assert runs(b) == {r: seen_by_a[r] for r in (committed, rejected, revised)}
    assert rev(b, NOTES_REF) == ""  # origin's notes went to a private ref only
    assert rev(b, ORIGIN_NOTES) == rev(origin, NOTES_REF)

    # B's own notes ref, with different content: origin's of then, and B's own run on top
    git(b, "fetch", "-q", "origin", f"{NOTES_REF}:{NOTES_REF}")
    wb = open_ws(b)
    mine = land(wb, "moles")
    wb.close()
    local_notes = rev(b, NOTES_REF)
    # meanwhile A lands the revised run and another, and pushes: the notes diverge
    run = a.run(revised)
    run.stage_write("wiki/barn.md", page("Barn"))
    run.finalize()
    later = land(a, "voles")
    git(a.root, "push", "-q", "origin", NOTES_REF)
    proc = wikigate(b, "telemetry", "rebuild")
    assert proc.returncode == 0, proc.stderr
    assert runs(b) == {
        committed: ("committed", "commit"),
        rejected: ("rejected", "reject"),
        revised: ("committed", "commit"),  # origin's newer record wins over the local revise
        mine: ("committed", "commit"),  # the local-only run is kept
        later: ("committed", "commit"),
    }
    assert rev(b, NOTES_REF) == local_notes  # the local notes are never rewritten
    assert rev(b, ORIGIN_NOTES) == rev(origin, NOTES_REF)

    # --no-fetch: no network; origin's notes as fetched before still count
    newest = land(a, "shrews")
    git(a.root, "push", "-q", "origin", NOTES_REF)
    a.close()
    quiet = wikigate(b, "telemetry", "rebuild", "--no-fetch")
    assert quiet.returncode == 0, quiet.stderr
    assert "not fetching (--no-fetch)" in quiet.stderr and ORIGIN_NOTES in quiet.stderr
    assert newest not in runs(b) and later in runs(b)
    assert wikigate(b, "telemetry", "rebuild").returncode == 0
    assert newest in runs(b)

    # an origin that cannot be reached: an error saying what to do, and nothing changes
    before = runs(b)
    git(b, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    gone = wikigate(b, "telemetry", "rebuild")
    assert gone.returncode == 1
    assert "cannot fetch refs/notes/wikigate from origin" in gone.stderr
    assert "--no-fetch" in gone.stderr
    assert runs(b) == before and rev(b, ORIGIN_NOTES) == rev(origin, NOTES_REF)

    # an origin without notes: the copy of the old origin's is dropped, the local notes stay
    empty = tmp_path / "empty.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(empty))
    git(b, "remote", "set-url", "origin", str(empty))
    none = wikigate(b, "telemetry", "rebuild")
    assert none.returncode == 0, none.stderr
    assert "origin has no refs/notes/wikigate: rebuilding from the local notes" in none.stderr
    assert rev(b, ORIGIN_NOTES) == ""
    assert runs(b) == {
        committed: ("committed", "commit"),
        rejected: ("rejected", "reject"),
        revised: ("pending", "revise"),  # only the local notes now: B's record of it
        mine: ("committed", "commit"),
    }


def test_without_an_origin_the_rebuild_reads_the_local_notes_and_says_so(ws):
    run = ws.start_run("cascade", "cli:test")
    run.stage_write("wiki/a.md", page("A"))
    run.finalize()
    proc = wikigate(ws.root, "telemetry", "rebuild")
    assert proc.returncode == 0, proc.stderr
    assert "no origin remote: rebuilding from the local notes" in proc.stderr
    assert "with 1 run " in proc.stdout
    assert runs(ws.root) == {run.run_id: ("committed", "commit")}


def test_records_of_two_runs_on_one_commit_both_count(ws):
    """A local note and origin's on the same commit, for different runs: neither hides the
    other (they live in two refs)."""
    from wikigate.gitrepo import notes_commit_with, read_note

    run = ws.start_run("cascade", "cli:test")
    run.stage_write("wiki/a.md", page("A"))
    tip = run.finalize().tip
    assert tip is not None
    mine = read_note(ws.repo, tip)
    assert mine is not None and mine["run_id"] == run.run_id
    theirs = {**mine, "run_id": "gh-o-r-p1-" + tip[:12], "triggered_by": "github:pull_request"}
    ws.repo.references.create(ORIGIN_NOTES, notes_commit_with(ws.repo, tip, theirs, parent=None))
    assert ws.rebuild_telemetry() == 2
    assert {r["run_id"] for r in ws.store.runs()} == {run.run_id, theirs["run_id"]}
    assert read_note(ws.repo, tip) == mine  # the local note is untouched
