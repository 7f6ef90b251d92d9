"""A decision lands exactly what was decided on, and a run is what `run start` recorded.

Each test plays a hostile writer against a real repository: it moves a ref between a
decision and its landing, or rewrites a run's commits by hand, and checks that main never
gets content nobody decided on.
"""

from __future__ import annotations

import socket
import subprocess

import pygit2
import pytest

from wikigate import gitrepo
from wikigate.errors import RunError
from wikigate.gitrepo import FAILED_PREFIX, MAIN
from wikigate.models import NEEDS_HUMAN_REVIEW
from wikigate.workspace import Workspace

PAGE = "---\ntitle: {t}\n---\n# {t}\n\n{body}\n"


def page(t: str, body: str = "Text.") -> str:
    return PAGE.format(t=t, body=body)


def main_tip(ws: Workspace) -> pygit2.Oid:
    return ws.repo.references[MAIN].target


def main_text(ws: Workspace, path: str) -> str | None:
    data = gitrepo.read_blob(ws.repo, ws.repo[main_tip(ws)].tree, path)
    return data.decode() if data is not None else None


def forge(ws: Workspace, parent: pygit2.Oid, path: str, text: str, message: str) -> pygit2.Oid:
    """A commit made by hand (not through wikigate) on top of ``parent``."""
    repo = ws.repo
    tree = gitrepo.tree_with(repo, repo[parent].tree, path, repo.create_blob(text.encode()))
    sig = pygit2.Signature("Writer", "writer@example.invalid")
    return repo.create_commit(None, sig, sig, message, tree, [parent])


def same_trailers(ws: Workspace, tip: pygit2.Oid, subject: str = "wikigate: write") -> str:
    """A message that copies the tip's trailers, as a writer making a commit by hand would."""
    body = ws.repo[tip].message.split("\n\n", 1)[1]
    return f"{subject}\n\n{body}"


# ---------------------------------------------------------------- verify override


def rejected_run(ws: Workspace) -> tuple[str, pygit2.Oid]:
    run = ws.start_run("cascade", "cli:test")
    run.stage_write("wiki/a.md", page("A", "REJECT-ME reviewed by a person"))
    assert run.finalize().status == "rejected"
    return run.run_id, run.tip()


def test_override_refuses_a_failed_ref_moved_since_the_rejection(ws):
    run_id, rejected = rejected_run(ws)
    before = main_tip(ws)
    swapped = forge(ws, rejected, "wiki/a.md", page("A", "Invented, never reviewed."), "a swap")
    ws.repo.references[FAILED_PREFIX + run_id].set_target(swapped)
    with pytest.raises(RunError, match="moved since run .* was rejected"):
        ws.override(run_id, "I read it")
    assert main_tip(ws) == before
    assert ws.store.get(run_id)["status"] == "rejected"
    assert ws.store.overrides(run_id) == []
    # pointed back at what was rejected, the override lands exactly that content
    ws.repo.references[FAILED_PREFIX + run_id].set_target(rejected)
    record = ws.override(run_id, "I read it")
    assert record.status == "committed"
    assert "Invented" not in (main_text(ws, "wiki/a.md") or "")
    assert "REJECT-ME reviewed" in (main_text(ws, "wiki/a.md") or "")


def test_override_lands_the_rejected_tip_even_when_the_failed_ref_moves_during_it(ws, monkeypatch):
    """The swap happens after the override read the ref and decided: the landing's fence
    on refs/wikigate/failed/<id> refuses it, and main is as it was."""
    from wikigate import finalize

    run_id, rejected = rejected_run(ws)
    before = main_tip(ws)
    swapped = forge(ws, rejected, "wiki/a.md", page("A", "Invented."), "a swap")
    real_land = finalize.land

    def land_after_a_swap(*args, **kwargs):
        ws.repo.references[FAILED_PREFIX + run_id].set_target(swapped)
        return real_land(*args, **kwargs)

    monkeypatch.setattr(finalize, "land", land_after_a_swap)
    with pytest.raises(RunError, match="moved from .*, the commit decided on"):
        ws.override(run_id, "I read it")
    assert main_tip(ws) == before
    assert ws.store.get(run_id)["status"] == "rejected"


def test_an_override_killed_after_main_moved_lands_once(ws):
    """A kill between the ref transaction and the database: git says committed, the
    database still says rejected. Sweep settles it; a second override is refused."""
    run_id, _ = rejected_run(ws)
    ws.override(run_id, "first")
    landed = main_tip(ws)
    dead = subprocess.Popen(["true"])
    dead.wait()

    def killed() -> None:  # what the kill leaves: the database was not told, the mark stays
        with ws.store.immediate():
            ws.store.update_run(
                run_id,
                status="rejected",
                verdict="reject",
                finalizer_pid=dead.pid,
                finalizer_host=socket.gethostname(),
            )

    killed()
    with pytest.raises(RunError, match="committed by override"):
        ws.override(run_id, "second")
    assert main_tip(ws) == landed
    history = [c for c in ws.repo.walk(landed) if f"Wikigate-Run: {run_id}" in c.message]
    assert len([c for c in history if "write wiki/a.md" in c.message]) == 1
    assert ws.store.get(run_id)["status"] == "committed"
    assert [o["reason"] for o in ws.store.overrides(run_id)] == ["first"]
    # sweep alone reconciles such a row from git's facts
    killed()
    assert run_id in ws.sweep()
    assert ws.store.get(run_id)["status"] == "committed"


def test_an_override_that_died_before_main_moved_leaves_the_run_rejected(ws):
    run_id, rejected = rejected_run(ws)
    before = main_tip(ws)
    dead = subprocess.Popen(["true"])
    dead.wait()
    with ws.store.immediate():
        ws.store.update_run(run_id, finalizer_pid=dead.pid, finalizer_host=socket.gethostname())
    assert run_id in ws.sweep()
    row = ws.store.get(run_id)
    assert (row["status"], row["finalizer_pid"]) == ("rejected", None)
    assert main_tip(ws) == before
    assert ws.override(run_id, "now").status == "committed"


# ---------------------------------------------------------------- verify approve


def waiting_run(ws: Workspace):
    """A run that waits for a person (the test verifier's NEEDS-PERSON marker)."""
    run = ws.start_run("cascade", "cli:test")
    run.stage_write("wiki/a.md", page("A", "HUMAN-REVIEW please"))
    result = run.finalize()
    assert result.verdict == NEEDS_HUMAN_REVIEW, result
    return run


def test_approve_lands_the_reviewed_tip_not_one_swapped_in_while_it_waited(ws, monkeypatch):
    """`verify approve` checks the branch, then waits for the database (a writer can hold
    its write lock); a branch moved in that wait must not land."""
    from wikigate import lease as lease_module

    run = waiting_run(ws)
    reviewed = run.tip()
    before = main_tip(ws)
    swapped = forge(
        ws, reviewed, "wiki/a.md", page("A", "Invented after review."), same_trailers(ws, reviewed)
    )
    real_take = lease_module.Lease.take.__func__

    def take_after_a_swap(cls, r):
        ws.repo.references[r.branch].set_target(swapped)  # the writer, during the wait
        return real_take(cls, r)

    monkeypatch.setattr(lease_module.Lease, "take", classmethod(take_after_a_swap))
    with pytest.raises(RunError, match="changed or was reclaimed"):
        ws.decide(run.run_id, "looks right", approve=True)
    assert main_tip(ws) == before
    assert "Invented" not in (main_text(ws, "wiki/a.md") or "")
    row = ws.store.get(run.run_id)
    assert row["status"] == "pending" and row["verdict"] == NEEDS_HUMAN_REVIEW


# ---------------------------------------------------------------- the run's own metadata


def test_a_hand_made_commit_cannot_change_a_runs_type_or_drop_its_scope(ws):
    """Trailers that turn a scoped cascade into an unscoped archive run are refused: the
    run is rejected as it was started (run.forged) and main is untouched."""
    run = ws.start_run("cascade", "cli:test", scope=("wiki/a.md",))
    run.stage_write("wiki/a.md", page("A"))
    tip = run.tip()
    message = same_trailers(ws, tip).replace("Wikigate-Type: cascade", "Wikigate-Type: archive")
    message = "\n".join(ln for ln in message.splitlines() if not ln.startswith("Wikigate-Scope"))
    assert "archive" in message and "Wikigate-Scope" not in message
    forged = forge(ws, tip, "wiki/index.md", page("Index", "Rewritten."), message + "\n")
    ws.repo.references[run.branch].set_target(forged)
    before = main_tip(ws)
    result = run.finalize()
    assert result.status == "rejected"
    assert [f.code for f in result.findings] == ["run.forged"]
    assert "Wikigate-Type" not in result.reason and "run_type" in result.reason
    assert main_tip(ws) == before
    row = ws.store.get(run.run_id)
    assert row["run_type"] == "cascade"  # the record says what run start recorded


def test_a_whole_run_rewritten_by_hand_is_not_what_run_start_recorded(ws):
    """Every commit rewritten consistently (a new start commit saying `archive`): the
    digest `run start` kept in the database tells."""
    run = ws.start_run("cascade", "cli:test")
    run.stage_write("wiki/a.md", page("A"))
    repo = ws.repo
    chain = [c for c in repo.walk(run.tip()) if f"Wikigate-Run: {run.run_id}" in c.message]
    parent = chain[-1].parents[0].id
    for commit in reversed(chain):
        message = commit.message.replace("Wikigate-Type: cascade", "Wikigate-Type: archive")
        parent = repo.create_commit(
            None, commit.author, commit.committer, message, commit.tree_id, [parent]
        )
    repo.references[run.branch].set_target(parent)
    with pytest.raises(RunError, match="not what `wikigate run start` recorded"):
        run.stage_write("wiki/b.md", page("B"))
    result = run.finalize()
    assert result.status == "rejected" and [f.code for f in result.findings] == ["run.forged"]


def test_approve_refuses_a_run_written_to_after_it_was_verified(ws):
    """A staging op after the verdict that waits for a person (the writer adding a page
    through wikigate itself): approving lands nothing until the run is verified again."""
    run = waiting_run(ws)
    before = main_tip(ws)
    run.stage_write("wiki/evil.md", page("Evil", "Never reviewed."))
    with pytest.raises(RunError, match="changed since it was verified"):
        ws.decide(run.run_id, "looks right", approve=True)
    assert main_tip(ws) == before
    # a copy of the verdict's note on the new tip changes nothing: the database names the
    # attestation of what was verified
    note = gitrepo.read_note(ws.repo, ws.repo.references[run.branch].target)
    assert note is None
    with pytest.raises(RunError, match="changed since it was verified"):
        ws.decide(run.run_id, "looks right", approve=True)


def test_an_approved_run_passes_the_local_hooks(tmp_path):
    """`verify approve` lands through the reference-transaction hook: a person's approval
    is a passing verdict, like an override."""
    from support.helpers import in_process
    from support.markers_verifier import MarkersVerifier

    w = Workspace.init(tmp_path / "w")
    w.verifier = MarkersVerifier()
    assert in_process(["-C", str(w.root), "hooks", "install"]).returncode == 0
    run = waiting_run(w)
    result = w.decide(run.run_id, "fine by me", approve=True)
    assert result.status == "committed" and main_tip(w) == run.tip()
    w.close()
