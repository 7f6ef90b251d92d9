"""The run engine's lifecycle on real git repositories and real SQLite files."""

from __future__ import annotations

import os
import sqlite3

import pygit2
import pytest
from support.helpers import git

from wikigate import gitrepo, records
from wikigate.env import Env
from wikigate.errors import RunError
from wikigate.gitrepo import FAILED_PREFIX, MAIN, read_note
from wikigate.models import Budget
from wikigate.reconcile import sweep
from wikigate.run import NoSingleMatch, ReplaceFailed, Run
from wikigate.workspace import Workspace

PAGE = "---\ntitle: {t}\n---\n# {t}\n\n{body}\n"


def main_tip(ws: Workspace) -> pygit2.Oid:
    return ws.repo.references[MAIN].target


def page(t: str, body: str = "Text.") -> str:
    return PAGE.format(t=t, body=body)


def test_init_creates_workspace_with_first_commit(tmp_path):
    ws = Workspace.init(tmp_path / "w")
    files = {e.name for e in ws.repo[main_tip(ws)].tree}
    assert files == {"raw", "wiki", "wikigate.toml"}
    assert (tmp_path / "w" / "wiki" / "index.md").read_text().startswith("---\ntitle: Index")
    assert git(tmp_path / "w", "status", "--porcelain").stdout == ""


def test_init_on_existing_repo_adds_only_what_is_missing(tmp_path):
    root = tmp_path / "existing"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "wiki").mkdir()
    (root / "wiki" / "index.md").write_text("# Mine\n")
    (root / "notes.txt").write_text("keep me staged\n")
    git(root, "add", "wiki/index.md")
    git(root, "commit", "-qm", "mine")
    git(root, "add", "notes.txt")  # the user's staging must survive
    Workspace.init(root)
    assert (root / "wiki" / "index.md").read_text() == "# Mine\n"
    assert (root / "wiki" / "log.md").exists()
    status = git(root, "status", "--porcelain").stdout
    assert status == "A  notes.txt\n"
    assert git(root, "log", "--format=%s").stdout.splitlines() == [
        "wikigate: add workspace files",
        "mine",
    ]


def test_commit_lifecycle_fast_forwards_checked_out_main(ws):
    base = main_tip(ws)
    run = ws.start_run("ingest", "cli:ingest")
    run.stage_write("wiki/a.md", page("A"))
    run.stage_write("raw/src.txt", b"a raw source\n")
    tip = run.tip()
    result = run.finalize()
    assert (result.status, result.verdict, result.exit_code) == ("committed", "commit", 0)
    assert main_tip(ws) == tip and ws.repo.descendant_of(tip, base)
    # index and working tree followed main like `git merge --ff-only`
    assert (ws.root / "wiki" / "a.md").read_text() == page("A")
    assert git(ws.root, "status", "--porcelain").stdout == ""
    assert run.branch not in ws.repo.references
    note = read_note(ws.repo, tip)
    assert note["status"] == "committed" and note["verdict"] == "commit"
    row = ws.store.get(run.run_id)
    assert row["status"] == "committed" and row["ended_at"] and row["tip_commit"] == str(tip)


def test_reject_keeps_tip_in_failed_ref_and_main_untouched(ws):
    base = main_tip(ws)
    run = ws.start_run("cascade", "mcp:edit")
    run.stage_write("wiki/a.md", page("A", "REJECT-ME please"))
    tip = run.tip()
    result = run.finalize()
    assert (result.status, result.exit_code) == ("rejected", 1)
    assert "wiki/a.md:6: test.reject" in result.reason
    assert main_tip(ws) == base
    assert ws.repo.references[FAILED_PREFIX + run.run_id].target == tip
    assert run.branch not in ws.repo.references
    assert [f["code"] for f in ws.store.findings(run.run_id)] == ["test.reject"]
    assert not (ws.root / "wiki" / "a.md").exists()


def test_revise_keeps_run_open_then_commits(ws):
    run = ws.start_run("synthesis", "daemon:nightly")
    run.stage_write("wiki/a.md", page("A", "REVISE-ME"))
    first = run.finalize()
    assert (first.status, first.verdict, first.exit_code, first.loop) == ("pending", "revise", 3, 1)
    assert read_note(ws.repo, run.tip())["verdict"] == "revise"
    run.str_replace("wiki/a.md", "REVISE-ME", "Fixed.")
    second = run.finalize()
    assert (second.status, second.loop) == ("committed", 2)
    loops = [(f["loop"], f["code"]) for f in ws.store.findings(run.run_id)]
    assert loops == [(1, "test.revise")]


def test_third_revise_rejects(ws):
    run = ws.start_run("synthesis", "daemon:nightly")
    run.stage_write("wiki/a.md", page("A", "REVISE-ME"))
    assert run.finalize().verdict == "revise"
    run.stage_write("wiki/b.md", page("B", "REVISE-ME"))  # progress: not the same failures
    assert run.finalize().verdict == "revise"
    run.stage_write("wiki/a.md", page("A", "Fixed."))
    third = run.finalize()
    assert third.status == "rejected" and "revise limit reached (3 loops)" in third.reason


@pytest.mark.parametrize("old", ["missing text", "Text"])
def test_replace_with_zero_or_many_matches_aborts_whole_run(ws, old):
    base = main_tip(ws)
    run = ws.start_run("cascade", "cli:cascade")
    run.stage_write("wiki/a.md", page("A", "Text. Text."))
    run.stage_write("wiki/b.md", page("B"))
    with pytest.raises(ReplaceFailed, match="must match exactly once"):
        run.str_replace("wiki/a.md", old, "new")
    row = ws.store.get(run.run_id)
    assert row["status"] == "rejected" and "run.replace_failed" in row["reject_reason"]
    assert main_tip(ws) == base
    with pytest.raises(RunError, match="is rejected"):
        run.stage_write("wiki/c.md", page("C"))


def test_the_engine_runs_from_an_env_alone_and_only_the_api_aborts_a_failed_replace(ws):
    """Below the Workspace the engine takes an Env (repository, rules, telemetry store):
    a run staged through the engine's Run, swept by reconcile.sweep, and finalized by the
    Python API like any other. A failed replace in the engine raises NoSingleMatch and
    leaves the run alone; the Workspace's run rejects it (above)."""
    env = Env(ws.repo)
    base = main_tip(ws)
    opened = ws.start_run("cascade", "cli:cascade")
    run = Run(env, opened.run_id, env.store.get(opened.run_id))
    run.stage_write("wiki/a.md", page("A", "Text. Text."))
    with pytest.raises(NoSingleMatch, match="must match exactly once") as raised:
        run.str_replace("wiki/a.md", "Text", "new")
    assert raised.value.finding.code == "run.replace_failed"
    assert run.status == "pending" and sweep(env) == []
    result = ws.run(run.run_id).finalize()
    assert result.status == "committed" and main_tip(ws) != base
    assert gitrepo.read_blob(ws.repo, ws.repo[main_tip(ws)].tree, "wiki/a.md") is not None
    env.close()


def test_main_moved_rebases_and_verifies_again(ws):
    verifier = ws.verifier
    first = ws.start_run("ingest", "cli:ingest")
    second = ws.start_run("ingest", "cli:ingest")
    first.stage_write("wiki/a.md", page("A"))
    second.stage_write("wiki/b.md", page("B"))
    second_tip = second.tip()
    assert first.finalize().status == "committed"
    result = second.finalize()
    assert result.status == "committed"
    assert verifier.calls.count(second.run_id) == 2  # stale tip, then rebased tip
    head = ws.repo[main_tip(ws)]
    assert head.id != second_tip and "wiki/a.md" in head.tree and "wiki/b.md" in head.tree
    history = list(ws.repo.walk(head.id))
    assert all(len(c.parents) <= 1 for c in history)  # linear


def test_rebase_conflict_rejects(ws):
    first = ws.start_run("ingest", "cli:ingest")
    second = ws.start_run("ingest", "cli:ingest")
    first.stage_write("wiki/a.md", page("A", "one"))
    second.stage_write("wiki/a.md", page("A", "two"))
    assert first.finalize().status == "committed"
    result = second.finalize()
    assert result.status == "rejected" and result.reason.startswith("conflict:")
    assert "wiki/a.md" in result.reason
    assert (ws.root / "wiki" / "a.md").read_text() == page("A", "one")


def test_override_commits_rejected_run_and_records_actor(ws):
    run = ws.start_run("cascade", "cli:cascade")
    run.stage_write("wiki/a.md", page("A", "REJECT-ME"))
    assert run.finalize().status == "rejected"
    other = ws.start_run("ingest", "cli:ingest")  # main moves meanwhile: override rebases
    other.stage_write("wiki/b.md", page("B"))
    other.finalize()
    record = ws.override(run.run_id, "quote checked by hand")
    assert record.status == "committed" and record.verdict == "commit_override"
    head = ws.repo[main_tip(ws)].tree
    assert "wiki/a.md" in head and "wiki/b.md" in head
    (override,) = ws.store.overrides(run.run_id)
    assert override["actor"] == "Test Committer <committer@example.invalid>"
    assert (override["reason"], override["source"]) == ("quote checked by hand", "cli")
    assert read_note(ws.repo, main_tip(ws))["verdict"] == "commit_override"
    with pytest.raises(RunError, match="only rejected runs"):
        ws.override(run.run_id, "again")
    assert [o["reason"] for o in ws.store.overrides(run.run_id)] == ["quote checked by hand"]


def test_no_verify_commits_unverified_without_calling_verifier(ws):
    run = ws.start_run("ingest", "cli:ingest")
    run.stage_write("wiki/a.md", page("A", "REJECT-ME"))
    result = run.finalize(verify=False)
    assert result.status == "committed" and result.verdict is None
    assert ws.store.get(run.run_id)["unverified"] == 1
    assert ws.verifier.calls == []


def test_an_unverified_commit_is_vouched_for_only_by_a_recorded_override(ws):
    run = ws.start_run("ingest", "cli:ingest")
    run.stage_write("wiki/a.md", page("A"))
    tip = run.finalize(verify=False).tip
    note = read_note(ws.repo, tip)
    assert note["unverified"] is True and note["verdict"] is None
    record = ws.override(run.run_id, "read it myself")
    assert (record.status, record.verdict) == ("committed", "commit_override")
    assert main_tip(ws) == pygit2.Oid(hex=tip)  # nothing moved: the record changed
    note = read_note(ws.repo, tip)
    assert (note["verdict"], note["override_reason"]) == ("commit_override", "read it myself")
    assert [o["reason"] for o in ws.store.overrides(run.run_id)] == ["read it myself"]
    with pytest.raises(RunError, match="only rejected runs and runs committed with --no-verify"):
        ws.override(run.run_id, "twice")
    verified = ws.start_run("ingest", "cli:ingest")
    verified.stage_write("wiki/b.md", page("B"))
    verified.finalize()
    with pytest.raises(RunError, match="committed and verified"):
        ws.override(verified.run_id, "nothing to vouch for")


def test_draft_only_leaves_run_pending_for_inspection(ws):
    base = main_tip(ws)
    run = ws.start_run("synthesis", "daemon:weekly")
    run.stage_write("wiki/a.md", page("A"))
    result = run.finalize(draft_only=True)
    assert result.status == "pending" and main_tip(ws) == base
    assert ws.verifier.calls == []
    assert run.finalize().status == "committed"


def test_a_draft_reports_the_loops_done_none_before_a_verification(ws):
    """A draft of a run never verified has had no loop (it said loop 1): 0, as `runs list`
    counts it; after a revise, the one loop verified."""
    from wikigate.present import loops_done

    run = ws.start_run("synthesis", "daemon:weekly")
    run.stage_write("wiki/a.md", page("A", "REVISE-ME"))
    assert run.finalize(draft_only=True).loop == 0 == loops_done(ws.store.get(run.run_id))
    assert run.finalize().verdict == "revise"
    assert run.finalize(draft_only=True).loop == 1 == loops_done(ws.store.get(run.run_id))


def test_log_append_is_still_verified_and_recorded_as_exempt(ws):
    from wikigate.verifier.default import DeterministicVerifier

    ws.verifier = DeterministicVerifier()
    log = (ws.root / "wiki" / "log.md").read_text()
    # an append to the log: the page checks of log.md are skipped, and the record says so
    run = ws.start_run("lint", "cli:lint")
    run.stage_write("wiki/log.md", log + "- 2026-11-21 lint pass\n")
    result = run.finalize()
    assert result.status == "committed", result.findings
    assert result.report["exempt"] == ["wiki/log.md: append-only change to the log"]
    note = records.parse_record(gitrepo.read_note(ws.repo, result.tip))
    assert note.exempt == ["wiki/log.md: append-only change to the log"]
    # ... but its links are checked: a broken one would fail `verify --all` on main later
    log = (ws.root / "wiki" / "log.md").read_text()
    dangling = ws.start_run("lint", "cli:lint")
    dangling.stage_write("wiki/log.md", log + "- 2026-11-21 lint pass, see [[Nowhere]]\n")
    result = dangling.finalize()
    assert result.status != "committed"
    assert [(f.code, f.path) for f in result.findings] == [("link.broken", "wiki/log.md")]
    # ... and budget, path and raw/ rules still apply to a log-only run
    spend = ws.start_run("lint", "cli:lint", budget=Budget(usd=1.0))
    spend.stage_write("wiki/log.md", log + "- 2026-11-22 another pass\n")
    spend.attest_usage(Budget(input_tokens=1, output_tokens=1, usd=50.0))
    result = spend.finalize()
    assert result.status == "rejected"
    assert [f.code for f in result.findings] == ["run.budget"]
    # a rewrite of the log is not an append: refused, and its page checks run
    edit = ws.start_run("lint", "cli:lint")
    edit.stage_write("wiki/log.md", "rewritten history, no title\n")
    result = edit.finalize()
    assert result.status == "rejected"
    assert {"run.log_rewrite", "page.no_title"} <= {f.code for f in result.findings}
    assert not result.report["exempt"]


def test_verifier_exception_fails_closed(ws):
    class Broken:
        def verify(self, *args):
            raise ValueError("boom")

    run = ws.start_run("ingest", "cli:ingest")
    run.stage_write("wiki/a.md", page("A"))
    result = run.finalize(verifier=Broken())
    assert result.status == "rejected"
    assert result.findings[0].code == "verifier.error" and "ValueError: boom" in result.reason


def test_sweep_returns_dead_finalizers_runs_and_abandons_old_ones(ws, monkeypatch):
    old = ws.start_run("ingest", "cli:ingest")
    old.stage_write("wiki/a.md", page("A"))
    dead = ws.start_run("ingest", "cli:ingest")
    with ws.store.immediate():  # a finalizer that died mid-verification
        ws.store.update_run(
            dead.run_id,
            status="verifying",
            finalizer_pid=2**22 + 7,
            finalizer_host=os.uname().nodename,
        )
    # a dead finalizer loses nothing: its run is pending again, ready to finalize
    assert ws.sweep() == [dead.run_id]
    row = ws.store.get(dead.run_id)
    assert row["status"] == "pending" and row["finalizer_pid"] is None
    assert ws.store.get(old.run_id)["status"] == "pending"
    monkeypatch.setenv("WIKIGATE_RUN_TIMEOUT_MINUTES", "0")
    assert ws.sweep() == [old.run_id, dead.run_id]
    for r in (old, dead):
        row = ws.store.get(r.run_id)
        assert row["status"] == "abandoned" and row["reject_reason"].startswith("abandoned:")
        assert FAILED_PREFIX + r.run_id in ws.repo.references
        assert r.branch not in ws.repo.references


def test_sweep_recovers_run_whose_finalizer_died_after_moving_main(ws):
    run = ws.start_run("ingest", "cli:ingest")
    run.stage_write("wiki/a.md", page("A"))
    tip = run.tip()
    with ws.store.immediate():
        ws.store.update_run(
            run.run_id,
            status="verifying",
            finalizer_pid=2**22 + 7,
            finalizer_host=os.uname().nodename,
        )
    ws.repo.references[MAIN].set_target(tip)  # the ref moved, then the process died
    ws.sweep()
    row = ws.store.get(run.run_id)
    assert row["status"] == "committed"
    assert read_note(ws.repo, tip)["status"] == "committed"


def snapshot(path):
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    out = {}
    for table, key in (
        ("runs", "run_id"),
        ("findings", "run_id, loop, code, line"),
        ("overrides", "run_id"),
    ):
        rows = [dict(r) for r in conn.execute(f"SELECT * FROM {table} ORDER BY {key}")]
        for r in rows:
            r.pop("id", None)
            r.pop("finalizer_pid", None)
            r.pop("finalizer_host", None)
        out[table] = rows
    conn.close()
    return out


def test_telemetry_rebuild_equals_live_database(ws):
    a = ws.start_run("ingest", "cli:ingest", Budget(input_tokens=1000, output_tokens=500, usd=1.0))
    a.stage_write("wiki/a.md", page("A"))
    a.attest_usage(Budget(input_tokens=900, output_tokens=400, usd=0.5))
    a.finalize()
    b = ws.start_run("cascade", "mcp:edit")
    b.stage_write("wiki/b.md", page("B", "REJECT-ME"))
    b.finalize()
    ws.override(b.run_id, "fine")
    c = ws.start_run("synthesis", "daemon:x")
    c.stage_write("wiki/c.md", page("C", "REVISE-ME"))
    c.finalize()
    d = ws.start_run("lint", "cli:lint")
    d.stage_write("wiki/d.md", page("D"))
    e = ws.start_run("cascade", "cli:cascade")
    e.stage_write("wiki/e.md", page("E", "Text"))
    with pytest.raises(ReplaceFailed):
        e.str_replace("wiki/e.md", "nope", "x")
    live = snapshot(ws.telemetry_path())
    assert len(live["runs"]) == 5 and live["overrides"] and live["findings"]
    count = ws.rebuild_telemetry()
    assert count == 5
    assert snapshot(ws.telemetry_path()) == live


def test_missing_database_is_rebuilt_from_git(ws):
    run = ws.start_run("ingest", "cli:ingest")
    run.stage_write("wiki/a.md", page("A"))
    run.finalize()
    path = ws.telemetry_path()
    ws.close()
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(f"{path}{suffix}"):
            os.unlink(f"{path}{suffix}")
    again = Workspace.open(ws.root)
    assert again.store.get(run.run_id)["status"] == "committed"
    again.close()


def test_run_metadata_travels_with_the_branch(ws, tmp_path):
    run = ws.start_run("ingest", "cli:ingest", Budget(usd=2.0))
    run.stage_write("wiki/a.md", page("A"))
    run.attest_usage(Budget(input_tokens=5, output_tokens=6, usd=1.5))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(ws.root), str(clone))
    git(clone, "fetch", "-q", "origin", f"{run.branch}:{run.branch}")
    from wikigate.run import read_plan

    repo = pygit2.Repository(str(clone))
    plan = read_plan(
        repo, repo.references["refs/heads/" + run.branch.removeprefix("refs/heads/")].target
    )
    assert plan.meta.run_type == "ingest" and plan.meta.budget.usd == 2.0
    assert plan.meta.usage.input_tokens == 5
    assert [(op.kind, op.path) for op in plan.ops] == [
        ("start", None),
        ("write", "wiki/a.md"),
        ("usage", None),
    ]


def test_no_verify_rebases_when_main_moved(ws):
    first = ws.start_run("ingest", "cli:ingest")
    second = ws.start_run("ingest", "cli:ingest")
    first.stage_write("wiki/a.md", page("A"))
    second.stage_write("wiki/b.md", page("B"))
    first.finalize()
    result = second.finalize(verify=False)
    assert result.status == "committed" and ws.store.get(second.run_id)["unverified"] == 1
    tree = ws.repo[main_tip(ws)].tree
    assert "wiki/a.md" in tree and "wiki/b.md" in tree


def test_the_gates_rules_come_from_main_not_the_working_tree(tmp_path):
    """An uncommitted edit of wikigate.toml (a severity set to off) loosens nothing:
    finalize, `wikigate verify` and the pre-commit hooks read main's committed file."""
    from support.helpers import wikigate

    from wikigate.verifier.default import DeterministicVerifier

    ws = Workspace.init(tmp_path / "w")
    (ws.root / "wikigate.toml").write_text(
        '[verifier.severity]\n"citation.source_missing" = "off"\n"page.uncited" = "off"\n'
    )
    text = '# Claim\n\nThe committee met.[^1]\n\n[^1]: raw/nowhere.txt — "met"\n'
    run = ws.start_run("cascade", "cli:test")
    run.stage_write("wiki/claim.md", text)
    result = run.finalize(verifier=DeterministicVerifier())
    assert result.status == "rejected"
    assert "citation.source_missing" in {f.code for f in result.findings}
    failed = FAILED_PREFIX + run.run_id
    verify = wikigate(ws.root, "verify", failed, "--base", "main", env={"WIKIGATE_VERIFIER": ""})
    assert verify.returncode == 1 and "citation.source_missing" in verify.stdout
    # and a run cannot bring its own rules along: it proposes them, a person decides
    sneaky = ws.start_run("cascade", "cli:test")
    sneaky.stage_write("wikigate.toml", '[verifier]\nstrictness = "CALM"\n')
    before = ws.repo.references["refs/heads/main"].target
    waiting = sneaky.finalize(verifier=DeterministicVerifier())
    assert (waiting.status, waiting.verdict) == ("pending", "needs_human_review")
    assert [f.code for f in waiting.findings] == ["run.rules_change"]
    assert ws.repo.references["refs/heads/main"].target == before
    ws.close()


def test_runs_editing_different_parts_of_one_page_both_commit(ws):
    """A rebase merges a page both sides changed, as git does: only overlapping edits conflict."""
    lines = [f"Line {i}." for i in range(12)]
    seed = ws.start_run("cascade", "cli:test")
    seed.stage_write("wiki/a.md", "# A\n\n" + "\n".join(lines) + "\n")
    assert seed.finalize().status == "committed"
    top, bottom = (ws.start_run("cascade", "cli:test") for _ in range(2))
    top.str_replace("wiki/a.md", "Line 1.", "Line one.")
    bottom.str_replace("wiki/a.md", "Line 10.", "Line ten.")
    assert top.finalize().status == "committed"
    assert bottom.finalize().status == "committed"  # rebased onto top, merged
    text = (ws.root / "wiki" / "a.md").read_text()
    assert "Line one." in text and "Line ten." in text
    clash = ws.start_run("cascade", "cli:test")
    clash.str_replace("wiki/a.md", "Line one.", "Line uno.")
    other = ws.start_run("cascade", "cli:test")
    other.str_replace("wiki/a.md", "Line one.", "Line eins.")
    assert clash.finalize().status == "committed"
    result = other.finalize()
    assert result.status == "rejected" and result.reason.startswith(
        "conflict: main changed wiki/a.md"
    )


def test_runs_that_each_append_to_the_log_and_the_index_both_commit(ws):
    """Trial 28 (F4): two writers following the skill each add a page, a link at the end of
    the index and a line at the end of the log; the one that lands second was rejected for
    a conflict and redid everything. Lines only added at the end of a file by both sides are
    kept, main's first; anything else both sides changed still conflicts."""
    seed = ws.start_run("cascade", "cli:test")
    seed.stage_write("wiki/list.md", "# List\n\n- [[Index]]\n")
    assert seed.finalize().status == "committed"
    log = (ws.root / "wiki" / "log.md").read_text()
    first, second = (ws.start_run("cascade", "cli:test") for _ in range(2))
    for run, name in ((first, "Owls"), (second, "Voles")):
        run.stage_write(f"wiki/{name.lower()}.md", f"# {name}\n\n[[List]]\n")
        run.stage_write("wiki/list.md", f"# List\n\n- [[Index]]\n- [[{name}]]\n")
        run.stage_write("wiki/log.md", log + f"- added {name}\n")
    assert first.finalize().status == "committed"
    assert second.finalize().status == "committed"  # rebased onto first, appends kept
    text = (ws.root / "wiki" / "list.md").read_text()
    assert text == "# List\n\n- [[Index]]\n- [[Owls]]\n- [[Voles]]\n"
    assert (ws.root / "wiki" / "log.md").read_text() == log + "- added Owls\n- added Voles\n"
    # one side appends, the other rewrites the last line: a conflict as before
    edit, tail = (ws.start_run("cascade", "cli:test") for _ in range(2))
    edit.str_replace("wiki/list.md", "- [[Voles]]", "- [[Field voles]]")
    tail.stage_write("wiki/list.md", text + "- [[Moths]]\n")
    assert edit.finalize().status == "committed"
    assert tail.finalize().reason.startswith("conflict: main changed wiki/list.md")
