"""`wikigate verify`, `wikigate anchor` and `wikigate demo` through the real CLI."""

from __future__ import annotations

import json

import pytest
from support.helpers import git, in_process


def wg(cwd, *args):
    return in_process(["-C", str(cwd), *args], env={"WIKIGATE_VERIFIER": ""})


def test_demo_shows_commit_reject_revise_and_a_runs_table(tmp_path):
    proc = wg(tmp_path, "demo", str(tmp_path / "demo"))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "committed 2" in out and ": main is at " in out
    for code in ("citation.quote_not_found", "link.broken"):
        assert code in out
    assert "error: raw/gettysburg-address.txt: only ingest runs" in out  # refused at once
    assert "(loop 1 of 3)" in out and "anchored" in out
    table = out.split("== runs, from telemetry")[1]
    assert table.count("committed") == 2 and table.count("rejected") == 1
    # the demo's wiki is clean afterwards
    lint = wg(tmp_path / "demo", "verify", "--all")
    assert lint.returncode == 0, lint.stdout
    assert wg(tmp_path, "demo", str(tmp_path / "demo")).returncode == 2  # not empty


def test_verify_branch_formats_and_exit_codes(tmp_path):
    demo = tmp_path / "demo"
    wg(tmp_path, "demo", str(demo))
    failed = git(
        demo, "for-each-ref", "--format=%(refname)", "refs/wikigate/failed"
    ).stdout.split()[0]
    text = wg(demo, "verify", failed)
    assert text.returncode == 1 and "REJECT" in text.stdout.splitlines()[-1]
    out = tmp_path / "r.sarif"
    sarif = wg(demo, "verify", failed, "--format", "sarif", "--output", str(out))
    assert sarif.returncode == 1 and sarif.stdout == ""
    assert json.loads(out.read_text())["version"] == "2.1.0"
    report = json.loads(
        wg(demo, "verify", failed, "--format", "json", "--strictness", "calm").stdout
    )
    assert report["strictness"] == "CALM" and report["run_id"]
    assert {c["name"]: c["status"] for c in report["checks"]}["links"] == "skipped"
    assert wg(demo, "verify", "no-such-ref").returncode == 2
    git(demo, "checkout", "-q", "-b", "topic")
    (demo / "wiki" / "index.md").write_text("# Index\n\n[[Missing]]\n")
    git(demo, "commit", "-qam", "break a link")
    branch = wg(demo, "verify")  # the current branch against its merge-base with main
    assert branch.returncode == 3 and "link.broken" in branch.stdout


def test_verify_of_a_commit_on_main_checks_its_own_change(tmp_path):
    """`wikigate verify REF` without --base, REF on main (main itself or a past commit of
    it): its merge-base with main is itself, so it verified 0 pages and said nothing; it
    verifies the commit's own change, against its parent, and says so (low41 #2)."""
    root = tmp_path / "w"
    assert wg(tmp_path, "init", str(root)).returncode == 0
    first = git(root, "rev-parse", "HEAD").stdout.strip()
    (root / "wiki" / "index.md").write_text("---\ntitle: Index\n---\n# Index\n\n[[Missing]]\n")
    git(root, "commit", "-qam", "break a link")  # a person's commit on main
    broke = git(root, "rev-parse", "HEAD").stdout.strip()
    head = wg(root, "verify")  # HEAD is main
    assert head.returncode == 3 and "link.broken" in head.stdout, head.stdout
    assert "1/2 pages" in head.stdout.splitlines()[-1]  # the index of the two
    assert (
        f"HEAD is already on main: verifying its commit's own change, against its parent HEAD~1 ({first[:12]})"
        in head.stderr
    )
    assert "`--base REF`" in head.stderr and "`--all`" in head.stderr
    (root / "raw" / "a.txt").write_text("A source.\n")
    git(root, "add", "raw/a.txt")
    git(root, "commit", "-qm", "a source")
    past = wg(root, "verify", "main~1", "--format", "json")  # a past commit of main
    assert past.returncode == 3
    report = json.loads(past.stdout)
    assert (report["base"], report["tip"]) == (first, broke)
    assert "link.broken" in {f["code"] for f in report["findings"]}
    assert wg(root, "verify", "main").returncode == 0  # the last commit's change is clean
    given = wg(root, "verify", "main", "--base", first)  # --base: as given, no note
    assert given.returncode == 3 and given.stderr == ""
    root_commit = wg(root, "verify", first)
    assert root_commit.returncode == 2
    assert "first commit of main" in root_commit.stderr
    assert f"`wikigate verify --all {first}`" in root_commit.stderr


def test_anchor_command(tmp_path):
    demo = tmp_path / "demo"
    wg(tmp_path, "demo", str(demo))
    ok = wg(demo, "anchor", "gettysburg-address.txt", "a new birth of freedom")
    assert ok.returncode == 0
    assert ok.stdout.startswith('gettysburg-address.txt — "a new birth of freedom" {@')
    many = wg(demo, "anchor", "raw/gettysburg-address.txt", "nation")
    assert many.returncode == 1 and "occurs 5 times" in many.stderr
    assert wg(demo, "anchor", "only-one-arg").returncode == 2
    # a quote that differs only in case or spacing: the error says where it nearly matches
    case = wg(demo, "anchor", "gettysburg-address.txt", "A new birth of Freedom")
    assert case.returncode == 1 and "matches after ignoring case at offset" in case.stderr
    spaced = wg(demo, "anchor", "gettysburg-address.txt", "a new  birth of\nfreedom")
    assert "matches after collapsing whitespace" in spaced.stderr


def test_anchor_fix_opens_and_commits_a_run(tmp_path):
    demo = tmp_path / "demo"
    wg(tmp_path, "demo", str(demo))
    page = demo / "wiki" / "declaration.md"
    text = page.read_text()
    unanchored = text.split(" {@")[0] + "\n"
    git(demo, "checkout", "-q", "-b", "legacy")
    page.write_text(unanchored)
    git(demo, "commit", "-qam", "legacy footnote")
    git(demo, "checkout", "-q", "main")
    git(demo, "merge", "-q", "--ff-only", "legacy")
    fixed = wg(demo, "anchor", "--fix")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "wiki/declaration.md:8: [^1] anchored" in fixed.stdout and "committed" in fixed.stdout
    assert page.read_text() == text


def master_repo(tmp_path):
    """A wiki whose trunk is ``master``, initialised by ``wikigate init``."""
    root = tmp_path / "vault"
    root.mkdir()
    git(root, "init", "-q", "-b", "master")
    (root / "README.md").write_text("# notes\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "start")
    init = wg(tmp_path, "init", str(root))
    assert init.returncode == 0, init.stderr
    return root


def test_anchor_on_a_branch_reads_the_checkout_and_fixes_the_working_tree(tmp_path):
    root = master_repo(tmp_path)
    master = git(root, "rev-parse", "master").stdout
    git(root, "checkout", "-q", "-b", "deck")
    (root / "raw" / "deck-spec.txt").write_text("Intro.\nThe deck is 12 metres wide.\n")
    page = root / "wiki" / "Deck.md"
    page.write_text(
        "# Deck\n\nThe deck is 12 metres wide.[^1]\n\n"
        '[^1]: raw/deck-spec.txt — "The deck is 12 metres wide."\n'
    )
    git(root, "add", ".")
    git(root, "commit", "-qm", "deck")
    head = git(root, "rev-parse", "HEAD").stdout.strip()
    # a source committed on the branch only: read at HEAD, and said so
    tail = wg(root, "anchor", "raw/deck-spec.txt", "The deck is 12 metres wide.")
    assert tail.returncode == 0, tail.stderr
    assert tail.stdout.startswith('raw/deck-spec.txt — "The deck is 12 metres wide." {@7 ')
    assert f"read raw/deck-spec.txt at HEAD (branch deck, {head[:12]})" in tail.stderr
    assert "it is not on master" in tail.stderr
    gone = wg(root, "anchor", "raw/nowhere.txt", "x")
    assert gone.returncode == 1
    assert "no such file under raw/ on master or at HEAD (branch deck" in gone.stderr
    # a page uncommitted in the working tree is left alone
    page.write_text(page.read_text() + "\nMy edit.\n")
    dirty = wg(root, "anchor", "--fix", "wiki/Deck.md")
    assert dirty.returncode == 0, dirty.stderr
    assert "skipped: wiki/Deck.md differs from HEAD" in dirty.stdout
    assert page.read_text().endswith("My edit.\n")
    git(root, "checkout", "--", "wiki/Deck.md")
    # --fix on a branch rewrites the page in the working tree; no run, master stays
    fixed = wg(root, "anchor", "--fix", "wiki/Deck.md")
    assert fixed.returncode == 0, fixed.stderr
    assert "wiki/Deck.md:5: [^1] anchored" in fixed.stdout
    assert "rewrote the pages in the working tree: review and commit them" in fixed.stdout
    assert f"[^1]: {tail.stdout}" in page.read_text()
    assert git(root, "rev-parse", "master").stdout == master
    assert git(root, "rev-parse", "HEAD").stdout.strip() == head
    assert git(root, "for-each-ref", "refs/wikigate/runs").stdout == ""
    # a page on neither: the error names where it looked
    missing = wg(root, "anchor", "--fix", "wiki/None.md")
    assert missing.returncode == 2 and f"no such page at HEAD (branch deck, {head[:12]})" in (
        missing.stderr
    )


@pytest.mark.slow
def test_messages_name_the_trunk_not_main(tmp_path):
    root = master_repo(tmp_path)
    (root / "raw" / "deck-spec.txt").write_text("Intro.\nThe deck is 12 metres wide.\n")
    (root / "wiki" / "Deck.md").write_text(
        "# Deck\n\nThe deck is 12 metres wide.[^1]\n\n"
        '[^1]: raw/deck-spec.txt — "The deck is 12 metres wide."\n'
    )
    (root / "wiki" / "index.md").write_text("# Index\n\n- [[Deck]]\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "deck, before the hooks")
    assert wg(root, "hooks", "install").returncode == 0
    # a plain commit onto the trunk is refused, naming it
    (root / "wiki" / "Deck.md").write_text("# Deck\n")
    refused = git(root, "commit", "-qam", "straight onto master", check=False)
    assert refused.returncode != 0
    assert "refusing to move master" in refused.stderr
    assert "Changes reach master through `wikigate run finalize`" in refused.stderr
    assert " main" not in refused.stderr
    git(root, "reset", "-q", "--hard", "HEAD")
    # anchor reads the trunk, by name; --fix on the trunk lands a lint run, as before
    missing = wg(root, "anchor", "raw/nowhere.txt", "x")
    assert missing.returncode == 1
    assert "raw/nowhere.txt: no such file under raw/ on master (" in missing.stderr
    fixed = wg(root, "anchor", "--fix")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    tip = git(root, "rev-parse", "master").stdout.strip()
    assert f": master is at {tip[:12]}" in fixed.stdout and "main" not in fixed.stdout
    assert "{@7 sha256:" in (root / "wiki" / "Deck.md").read_text()  # the checkout followed
    # init on a detached HEAD names the trunk it would adopt
    git(root, "checkout", "-q", "--detach")
    detached = wg(tmp_path, "init", str(root), "--main-branch", "master")
    assert detached.returncode == 1 and "(`git switch master`)" in detached.stderr


def test_anchor_fix_fixes_a_wrong_offset_the_mismatch_hint_sends_you_to(tmp_path):
    """Trial 26c F6: `citation.anchor_mismatch` hints "or run `wikigate anchor --fix`",
    which said "nothing to anchor" for a footnote anchored at a wrong offset. It now
    writes the right anchor when the quote occurs once; a right anchor is left alone."""
    root = master_repo(tmp_path)
    git(root, "checkout", "-q", "-b", "deck")
    (root / "raw" / "deck-spec.txt").write_text("Intro.\nThe deck is 12 metres wide.\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "spec")
    right = wg(root, "anchor", "raw/deck-spec.txt", "The deck is 12 metres wide.").stdout.strip()
    wrong = right.replace("{@7 ", "{@100 ")
    assert wrong != right
    page = root / "wiki" / "Deck.md"
    page.write_text(f"# Deck\n\nThe deck is 12 metres wide.[^1]\n\n[^1]: {wrong}\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "deck")
    found = wg(root, "verify", "--format", "json")
    [mismatch] = [
        f for f in json.loads(found.stdout)["findings"] if f["code"] == "citation.anchor_mismatch"
    ]
    assert "anchor --fix" in mismatch["hint"]
    fixed = wg(root, "anchor", "--fix", "wiki/Deck.md")
    assert fixed.returncode == 0, fixed.stderr
    assert "wiki/Deck.md:5: [^1] anchored" in fixed.stdout
    assert page.read_text().endswith(f"[^1]: {right}\n")
    git(root, "commit", "-qam", "anchor fixed")
    again = wg(root, "anchor", "--fix", "wiki/Deck.md")
    assert again.returncode == 0 and "nothing to anchor" in again.stdout
