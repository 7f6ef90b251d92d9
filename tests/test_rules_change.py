"""A way to change the rules (issue 26): a run proposes a new wikigate.toml; it lands only
by a person's decision (`verify approve`, a maintainer's override label), with the hooks
installed and through a pull request; the proposed rules never decide their own landing.
Real repositories, the real `git push` to a gated bare server, the GitHub emulator."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from support.github_world import World
from support.helpers import gated_client, git, in_process, override_push, push
from support.trees import commit_files
from support.verifying import verify_trees

from wikigate.config import Config

PRODUCT = {"WIKIGATE_VERIFIER": ""}  # the product's own verifier, not the tests' plug-in


def cli(cwd: Path, *args: str):
    return in_process(["-C", str(cwd), *args], env=PRODUCT)


def calmer(rules: str) -> str:
    """The rules with a calmer strictness and more rebases."""
    assert 'strictness = "SKEPTICAL"' in rules and "max_rebases = 0" in rules
    return rules.replace('strictness = "SKEPTICAL"', 'strictness = "CALM"').replace(
        "max_rebases = 0", "max_rebases = 4"
    )


@pytest.fixture
def client(tmp_path: Path):
    """A workspace with the client hooks installed, one verified page, and its origin: a
    bare server with the server gate, where only alice may override."""
    return gated_client(tmp_path)


@pytest.mark.slow
def test_a_rules_change_waits_for_a_person_and_lands_by_approve_and_a_recorded_override(
    client, tmp_path
):
    root, bare = client
    before = git(root, "rev-parse", "main").stdout.strip()
    run_id = cli(root, "run", "start", "--type", "cascade", "--triggered-by", "cli:test")
    run_id = run_id.stdout.strip()
    proposed = tmp_path / "new.toml"
    proposed.write_text(calmer((root / "wikigate.toml").read_text()))
    wrote = cli(root, "run", "write", run_id, "wikigate.toml", "--from", str(proposed))
    assert wrote.returncode == 0, wrote.stderr

    waiting = cli(root, "run", "finalize", run_id)
    assert waiting.returncode == 5, waiting.stdout + waiting.stderr
    assert "needs_human_review" in waiting.stdout
    # the finding names exactly the settings that differ, old → new
    assert "run.rules_change" in waiting.stdout
    assert 'verifier.strictness: "SKEPTICAL" → "CALM"' in waiting.stdout
    assert "runs.max_rebases: 0 → 4" in waiting.stdout
    assert "judge.provider" not in waiting.stdout  # unchanged settings are not named
    assert git(root, "rev-parse", "main").stdout.strip() == before

    approved = cli(root, "verify", "approve", run_id, "--reason", "calmer rules, agreed")
    assert approved.returncode == 0, approved.stdout + approved.stderr
    tip = git(root, "rev-parse", "main").stdout.strip()
    assert tip != before
    assert 'strictness = "CALM"' in git(root, "show", "main:wikigate.toml").stdout
    note = cli(root, "runs", "show", run_id, "--format", "json")
    assert '"commit_approved"' in note.stdout and "calmer rules, agreed" in note.stdout

    # the server verifies under its main's rules (the old ones): a person must decide
    refused = push(root, "origin", "main")
    assert refused.returncode != 0
    assert "run.rules_change" in refused.stderr and "wikigate-override" in refused.stderr
    assert git(bare, "rev-parse", "main").stdout.strip() == before
    # only a listed user's override lands it, recorded
    bob = override_push(root, "approved in " + run_id, user="bob")
    assert bob.returncode != 0 and git(bare, "rev-parse", "main").stdout.strip() == before
    alice = override_push(root, "approved in " + run_id)
    assert alice.returncode == 0, alice.stderr
    assert git(bare, "rev-parse", "main").stdout.strip() == tip
    db = sqlite3.connect(bare / "wikigate" / "gate.db")
    rows = db.execute('SELECT "user", reason, old, new FROM overrides').fetchall()
    db.close()
    assert rows == [("alice", "approved in " + run_id, before, tip)]


@pytest.mark.slow
def test_a_repository_file_outside_the_wiki_waits_for_a_person_and_lands_by_approve(
    client, tmp_path
):
    """With the hooks installed, a run carries a workflow, .gitignore and the deletion of
    a file outside the wiki (issue 26, trial #2): it waits for a person, naming each file,
    and lands by `verify approve` (actor and reason recorded); raw/ stays immutable."""
    root, bare = client
    before = git(root, "rev-parse", "main").stdout.strip()
    run_id = cli(root, "run", "start", "--type", "cascade", "--triggered-by", "cli:test")
    run_id = run_id.stdout.strip()
    flow = tmp_path / "wikigate.yml"
    flow.write_text("name: wikigate\non: [pull_request]\n")
    ignore = tmp_path / "ignore"
    ignore.write_text(".obsidian/\n")
    for path, source in ((".github/workflows/wikigate.yml", flow), (".gitignore", ignore)):
        wrote = cli(root, "run", "write", run_id, path, "--from", str(source))
        assert wrote.returncode == 0, wrote.stderr
    big = tmp_path / "big"
    big.write_bytes(b"x" * (5 * 2**20 + 1))
    too_big = cli(root, "run", "write", run_id, "setup.cfg", "--from", str(big))
    assert too_big.returncode != 0 and "the limit for repository files" in too_big.stderr
    raw = cli(root, "run", "delete", run_id, "raw/owls.txt")
    assert raw.returncode != 0 and "raw sources are immutable" in raw.stderr

    waiting = cli(root, "run", "finalize", run_id)
    assert waiting.returncode == 5, waiting.stdout + waiting.stderr
    assert "needs_human_review" in waiting.stdout
    for path in (".github/workflows/wikigate.yml", ".gitignore"):
        assert f"the run adds the repository file {path}" in waiting.stdout
    assert git(root, "rev-parse", "main").stdout.strip() == before

    approved = cli(root, "verify", "approve", run_id, "--reason", "the CI workflow, agreed")
    assert approved.returncode == 0, approved.stdout + approved.stderr
    assert git(root, "show", "main:.gitignore").stdout == ".obsidian/\n"
    assert "name: wikigate" in git(root, "show", "main:.github/workflows/wikigate.yml").stdout
    note = cli(root, "runs", "show", run_id, "--format", "json")
    assert '"commit_approved"' in note.stdout and "the CI workflow, agreed" in note.stdout
    assert '"actor": "Test Committer <committer@example.invalid>"' in note.stdout
    # the server asks a person too: a listed user's override lands it, recorded
    refused = push(root, "origin", "main")
    assert refused.returncode != 0 and "run.repository_file" in refused.stderr
    assert override_push(root, "workflow approved in " + run_id).returncode == 0
    assert git(bare, "show", "main:.gitignore").stdout == ".obsidian/\n"

    # a later run deletes the file again: a person decides that too
    run_id = cli(root, "run", "start", "--type", "cascade", "--triggered-by", "cli:test")
    run_id = run_id.stdout.strip()
    gone = cli(root, "run", "delete", run_id, ".gitignore")
    assert gone.returncode == 0, gone.stderr
    waiting = cli(root, "run", "finalize", run_id)
    assert waiting.returncode == 5, waiting.stdout + waiting.stderr
    assert "the run deletes the repository file .gitignore" in waiting.stdout


def test_a_repository_file_must_be_a_small_regular_file(repo, base):
    """Outside the wiki a person decides on regular files only: a symlink, a submodule or
    a file past a page's size is critical whatever the rules say."""
    from support.trees import LINK

    ok = commit_files(repo, base.id, {".gitignore": ".obsidian/\n"})
    report = verify_trees(repo, ok, base, config=Config())
    assert [(f.code, f.severity, f.path) for f in report.findings] == [
        ("run.repository_file", "major", ".gitignore")
    ]
    assert report.verdict == "needs_human_review"
    for bad, why in (
        ({"deploy.sh": (LINK, "/etc/passwd")}, "a symlink"),
        ({"blob.bin": b"x" * (5 * 2**20 + 1)}, "past the 5242880 a repository file may hold"),
    ):
        tip = commit_files(repo, base.id, bad)
        report = verify_trees(repo, tip, base, config=Config())
        [found] = report.findings
        assert (found.code, found.severity) == ("run.path_acl", "critical")
        assert why in found.message
        assert report.verdict == "reject"


@pytest.fixture
def base(repo):
    rules = '[verifier]\nstrictness = "SKEPTICAL"\n'
    return commit_files(repo, None, {"wikigate.toml": rules, "wiki/index.md": "# Index\n"})


def test_the_proposed_rules_never_decide_their_own_landing(repo, base):
    """New rules that would wave the change through are read, never applied: the change
    is verified under the base's rules, so a path outside wiki/ is still critical and the
    rules change still asks a person."""
    lax = (
        '[verifier]\nstrictness = "CALM"\n[verifier.severity]\n'
        '"run.path_acl" = "minor"\n"run.rules_change" = "minor"\n'
    )
    from support.trees import LINK

    tip = commit_files(repo, base.id, {"wikigate.toml": lax, "deploy.sh": (LINK, "/etc")})
    report = verify_trees(repo, tip, base, config=Config())
    codes = {f.code: f.severity for f in report.findings}
    assert codes["run.path_acl"] == "critical"
    assert codes["run.rules_change"] == "major"
    assert report.verdict == "reject"
    # the rules change alone waits for a person
    alone = commit_files(repo, base.id, {"wikigate.toml": lax})
    report = verify_trees(repo, alone, base, config=Config())
    assert report.verdict == "needs_human_review"
    [found] = report.findings
    assert 'verifier.severity.run.path_acl: (unset: "critical") → "minor"' in found.message


@pytest.mark.parametrize(
    ("proposed", "why"),
    [
        ("[verifier\n", "invalid TOML"),
        ("[runs]\nmax_loops = 9\n", "Extra inputs are not permitted"),
        (b"\xff\xfe", "not UTF-8"),
    ],
)
def test_proposed_rules_that_do_not_load_are_critical(repo, base, proposed, why):
    tip = commit_files(repo, base.id, {"wikigate.toml": proposed})
    report = verify_trees(repo, tip, base, config=Config())
    [found] = report.findings
    assert (found.code, found.severity, found.path) == (
        "run.rules_change",
        "critical",
        "wikigate.toml",
    )
    assert why in found.message
    assert report.verdict == "reject"


@pytest.mark.slow
def test_a_pull_request_changing_the_rules_asks_a_person_and_a_maintainers_label_lands_it(
    world: World,
):
    before = world.main_sha()
    rules = calmer((world.seed / "wikigate.toml").read_text())
    head = world.push_files(7, {"wikigate.toml": rules})
    waiting = world.run(7)
    assert waiting.code == 5, waiting.out
    assert "needs_human_review" in waiting.out
    assert world.main_sha() == before
    shown = waiting.out + "".join(c["body"] for c in world.gh.issue_comments.values())
    shown += "".join(str(c) for c in world.comments())
    assert 'verifier.strictness: "SKEPTICAL" → "CALM"' in shown
    # a visitor's label decides nothing
    world.gh.pulls[7].labels.append("wikigate:override")
    visitor = world.run(7, "labeled", sender="visitor", label="wikigate:override")
    assert visitor.code != 0 and world.main_sha() == before
    assert "wikigate:override" not in world.gh.pulls[7].labels  # the bot took it off
    world.gh.pulls[7].labels.append("wikigate:override")
    landed = world.run(7, "labeled", sender="maintainer", label="wikigate:override")
    assert landed.code == 0, landed.out
    assert world.main_sha() == head, landed.out
    note = world.note(head)
    assert note is not None
    assert (note["verdict"], note["override_actor"]) == ("commit_override", "maintainer")


def test_no_op_severities_cannot_push_a_loosening_out_of_the_persons_sight(repo, base):
    """Thirty codes set to their own default severity, then the strictness lowered and
    critical suppressions allowed: the message listed 20 settings and hid both behind
    "and 5 more" (hostile review). No-op severities are no change; the rest come first."""
    from wikigate.codes import TABLE

    same = [c for c in TABLE if c.code != "page.orphan"][:30]
    noops = "".join(f'"{c.code}" = "{c.severity}"\n' for c in same)
    proposed = (
        '[verifier]\nstrictness = "CALM"\nsuppress_critical = true\n'
        '[verifier.severity]\n"page.orphan" = "minor"\n' + noops
    )
    tip = commit_files(repo, base.id, {"wikigate.toml": proposed})
    [found] = verify_trees(repo, tip, base, config=Config()).findings
    assert found.message == (
        "the run changes the rules (wikigate.toml): "
        'verifier.strictness: "SKEPTICAL" → "CALM"; '
        "verifier.suppress_critical: false → true; "
        'verifier.severity.page.orphan: (unset: "major") → "minor"; a person decides'
    )


@pytest.mark.parametrize(
    ("base_rules", "proposed", "listed"),
    [
        (  # under PARANOID, "major" is a loosening, not the code's default
            '[verifier]\nstrictness = "PARANOID"\n',
            '[verifier]\nstrictness = "PARANOID"\n[verifier.severity]\n'
            '"citation.anchor_missing" = "major"\n',
            ['verifier.severity.citation.anchor_missing: (unset: "critical") → "major"'],
        ),
        (  # a tightening of the strictness, with the pins that keep the codes it tightens
            "",
            '[verifier]\nstrictness = "PARANOID"\n[verifier.severity]\n'
            '"citation.anchor_missing" = "major"\n',
            [
                'verifier.strictness: "SKEPTICAL" → "PARANOID"',
                'verifier.severity.citation.anchor_missing: (unset: "major") → "major"',
            ],
        ),
    ],
)
def test_a_pin_is_judged_against_its_own_sides_strictness(repo, base, base_rules, proposed, listed):
    """A pin equal to the code's SKEPTICAL default was dropped as a no-op even under
    PARANOID, where it lowers critical to major (hostile review)."""
    if base_rules:
        base = commit_files(repo, base.id, {"wikigate.toml": base_rules})
    tip = commit_files(repo, base.id, {"wikigate.toml": proposed})
    rules = (
        Config.model_validate({"verifier": {"strictness": "PARANOID"}}) if base_rules else Config()
    )
    [found] = verify_trees(repo, tip, base, config=rules).findings
    assert found.message == (
        f"the run changes the rules (wikigate.toml): {'; '.join(listed)}; a person decides"
    )


def test_settings_a_committed_file_holds_to_no_effect_are_not_listed(repo, base):
    """`[server]` and the legacy `[verifier] verify_on_push` mean something only in the
    server's own file: listing them told a person of changes that change nothing."""
    proposed = (
        '[verifier]\nverify_on_push = false\nstrictness = "CALM"\n'
        '[server]\noverride_users = ["mallory"]\nverify_on_push = false\n'
    )
    tip = commit_files(repo, base.id, {"wikigate.toml": proposed})
    [found] = verify_trees(repo, tip, base, config=Config()).findings
    assert found.message == (
        'the run changes the rules (wikigate.toml): verifier.strictness: "SKEPTICAL" → "CALM"; '
        "a person decides"
    )


def test_moving_the_wiki_root_names_the_pages_it_orphans_and_approve_asks_no_approval(
    tmp_path: Path,
):
    """Trial 26b N6: a rules change moving `[wiki] root` from wiki to "." showed
    `"wiki" → ""`, raised no run.rules_followup although every page became an orphan, and
    after `verify approve` its "next:" lines still asked for the approval just given."""
    from support.wiki_runs import page_run

    from wikigate.workspace import Workspace

    ws = Workspace.init(tmp_path / "w")
    assert page_run(ws, "owls").status == "committed"
    root = ws.root
    ws.close()
    rules = (root / "wikigate.toml").read_text()
    assert "[wiki]" not in rules
    proposed = tmp_path / "new.toml"
    proposed.write_text(rules + '\n[wiki]\nroot = "."\n')
    run_id = cli(root, "run", "start", "--type", "cascade", "--triggered-by", "cli:test")
    run_id = run_id.stdout.strip()
    assert (
        cli(root, "run", "write", run_id, "wikigate.toml", "--from", str(proposed)).returncode == 0
    )
    waiting = cli(root, "run", "finalize", run_id)
    assert waiting.returncode == 5, waiting.stdout + waiting.stderr
    assert 'wiki.root: "wiki" → "."' in waiting.stdout
    assert 'wiki.root: "wiki" → ""' not in waiting.stdout
    assert "run.rules_followup" in waiting.stdout
    followup = next(ln for ln in waiting.stdout.splitlines() if "run.rules_followup" in ln)
    assert "wiki/owls.md (an orphan: no chain of links from index.md reaches it)" in followup
    assert "wiki/index.md (an orphan" in followup  # an ordinary page at the new root

    approved = cli(root, "verify", "approve", run_id, "--reason", "pages at the root")
    assert approved.returncode == 0, approved.stdout + approved.stderr
    assert approved.stdout.startswith(f"committed {run_id}: main is at ")
    assert "ask a maintainer to approve" not in approved.stdout
    assert "verify approve" not in approved.stdout
    assert "fix the pages run.rules_followup names in a follow-up run" in approved.stdout
    shown = cli(root, "runs", "show", run_id)  # the run's record says the same (trial 26c)
    assert shown.returncode == 0, shown.stderr
    assert "ask a maintainer to approve" not in shown.stdout
    assert "fix the pages run.rules_followup names in a follow-up run" in shown.stdout


def test_deleting_the_old_log_in_a_root_move_says_why_it_is_refused(tmp_path: Path):
    """Trial 26c F7: a run moving `[wiki] root` and deleting wiki/log.md was rejected with
    "the run deletes wiki/log.md, an append-only log" and no word on why the old log still
    counts: a run is judged by the rules it starts from. The finding says so, and how."""
    from support.wiki_runs import page_run

    from wikigate.workspace import Workspace

    ws = Workspace.init(tmp_path / "w")
    assert page_run(ws, "owls").status == "committed"
    root = ws.root
    ws.close()
    assert (root / "wiki" / "log.md").exists()
    proposed = tmp_path / "new.toml"
    proposed.write_text((root / "wikigate.toml").read_text() + '\n[wiki]\nroot = "."\n')
    run_id = cli(root, "run", "start", "--type", "cascade", "--triggered-by", "cli:test")
    run_id = run_id.stdout.strip()
    assert (
        cli(root, "run", "write", run_id, "wikigate.toml", "--from", str(proposed)).returncode == 0
    )
    assert cli(root, "run", "delete", run_id, "wiki/log.md").returncode == 0
    done = cli(root, "run", "finalize", run_id)
    line = next(ln for ln in done.stdout.splitlines() if "run.log_rewrite" in ln)
    assert "the rules it proposes move the log to log.md" in line, done.stdout
    assert "a run is judged by the rules it starts from, where wiki/log.md is the log" in line
    assert "keep wiki/log.md in this run" in done.stdout
