"""`wikigate verify`, `wikigate anchor` and `wikigate demo` through the real CLI."""

from __future__ import annotations

import json

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
