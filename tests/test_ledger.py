"""The claim ledger and the verdict that asks a person, end to end: real repositories,
the product's default verifier, the `wikigate` command as a user runs it."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pygit2
import pytest
from support.helpers import git, wikigate
from support.wiki_runs import QUOTE, SOURCE, SOURCE_TEXT, cited_page

from wikigate import ledger
from wikigate.verifier.citation import format_tail
from wikigate.workspace import Workspace

DEFAULT = {"WIKIGATE_VERIFIER": ""}  # the product's own verifier, not the tests' markers
RAVENS = "Ravens gather at dusk in large roosts."


def cli(root: Path, *args: str, stdin: str | None = None):
    return wikigate(root, *args, stdin=stdin, env=DEFAULT)


def page_with(title: str, *claims: tuple[str, str]) -> str:
    """A page whose claims each cite their quote of SOURCE_TEXT, anchored."""
    body = " ".join(f"{sentence}[^{n}]" for n, (sentence, _q) in enumerate(claims, 1))
    defs = "\n".join(
        f"[^{n}]: {format_tail(SOURCE, None, q, SOURCE_TEXT.find(q))}"
        for n, (_s, q) in enumerate(claims, 1)
    )
    return f"---\ntitle: {title}\n---\n# {title}\n\n{body}\n\n{defs}\n"


def run_cli(root: Path, run_type: str, files: dict[str, str], *extra: str) -> tuple[str, object]:
    started = cli(root, "run", "start", "--type", run_type, "--triggered-by", "cli:test", *extra)
    assert started.returncode == 0, started.stderr
    run_id = started.stdout.strip()
    for path, text in files.items():
        wrote = cli(root, "run", "write", run_id, path, "--from", "-", stdin=text)
        assert wrote.returncode == 0, wrote.stderr
    return run_id, cli(root, "run", "finalize", run_id)


def main_sha(root: Path) -> str:
    return git(root, "rev-parse", "main").stdout.strip()


def claims_json(root: Path, *args: str) -> list[dict]:
    done = cli(root, "claims", "--format", "json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def wiki(tmp_path: Path) -> Path:
    """A workspace whose main holds the owls source and one cited page, through real runs."""
    root = tmp_path / "wiki"
    Workspace.init(root).close()
    owls = page_with("Owls", (QUOTE, QUOTE))
    _, done = run_cli(
        root,
        "ingest",
        {SOURCE: SOURCE_TEXT, "wiki/owls.md": owls, "wiki/index.md": _index("Owls")},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return root


def _index(*names: str) -> str:
    links = "".join(f"- [[{n}]]\n" for n in names)
    return f"---\ntitle: Index\n---\n# Index\n\n{links}"


def test_the_ledger_lists_every_cited_claim_and_equals_a_rebuild_from_git(wiki, tmp_path):
    introduced = main_sha(wiki)
    ravens = page_with("Ravens", (RAVENS, RAVENS), ("Owls hunt at night.", "Owls hunt at night"))
    _, done = run_cli(
        wiki, "cascade", {"wiki/ravens.md": ravens, "wiki/index.md": _index("Owls", "Ravens")}
    )
    assert done.returncode == 0, done.stdout
    # a third run keeps the owls claim in a disputed block: it changes, its id stays
    disputed = page_with("Owls", (QUOTE, QUOTE)).replace(
        f"{QUOTE}[^1]", f"::: disputed\n{QUOTE}[^1]\n:::"
    )
    _, done = run_cli(wiki, "cascade", {"wiki/owls.md": disputed})
    assert done.returncode == 0, done.stdout
    changed = main_sha(wiki)

    rows = {r["claim_id"]: r for r in claims_json(wiki)}
    assert sorted(rows) == ["wiki/owls.md#^1", "wiki/ravens.md#^1", "wiki/ravens.md#^2"]
    owl = rows["wiki/owls.md#^1"]
    assert owl["claim"] == QUOTE and owl["source"] == SOURCE
    assert owl["source_quote"] == QUOTE and owl["anchor_status"] == "anchored"
    assert owl["source_quote_offset"] == SOURCE_TEXT.find(QUOTE)
    assert len(owl["source_quote_hash"]) == 64 and owl["disputed"] == 1
    # introduced by the first run's commits, changed by the third run's last commit
    first_parents = git(wiki, "rev-list", "--first-parent", introduced).stdout.split()
    assert owl["introduced_commit"] in first_parents
    assert owl["changed_commit"] == changed
    assert rows["wiki/ravens.md#^2"]["anchor_status"] == "anchored"

    # the database the commands kept equals one rebuilt from git, here and on a fresh clone
    ws = Workspace.open(wiki)
    live = ledger.claims(ws)
    rebuilt = ledger.rebuild(ws)
    assert rebuilt.rebuilt and ledger.claims(ws) == live
    ws.close()
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(wiki), str(clone))
    assert cli(clone, "telemetry", "rebuild", "--no-fetch").returncode == 0
    assert claims_json(clone) == claims_json(wiki)


def test_claims_filters_and_formats(wiki):
    ravens = page_with("Ravens", (RAVENS, RAVENS))
    run_cli(wiki, "cascade", {"wiki/ravens.md": ravens, "wiki/index.md": _index("Owls", "Ravens")})
    assert [r["claim_id"] for r in claims_json(wiki, "--page", "wiki/ravens.md")] == [
        "wiki/ravens.md#^1"
    ]
    assert len(claims_json(wiki, "--page", "wiki/")) == 2
    assert len(claims_json(wiki, "--source", "raw/")) == 2
    assert claims_json(wiki, "--source", "raw/other.txt") == []
    assert len(claims_json(wiki, "--status", "anchored")) == 2
    assert claims_json(wiki, "--status", "mismatched") == []
    table = cli(wiki, "claims", "--format", "csv")
    parsed = list(csv.DictReader(io.StringIO(table.stdout)))
    assert [r["claim_id"] for r in parsed] == ["wiki/owls.md#^1", "wiki/ravens.md#^1"]
    assert parsed[0]["source_quote"] == QUOTE
    text = cli(wiki, "claims")
    assert "wiki/owls.md#^1  anchored  raw/owls.txt" in text.stdout
    assert "2 claims" in text.stderr
    bad = cli(wiki, "claims", "--status", "nope")
    assert bad.returncode == 2 and "--status" in bad.stderr


def test_an_update_reads_only_the_pages_a_commit_changed(wiki):
    ws = Workspace.open(wiki)
    ledger.sync(ws)
    for n in range(3):
        name = f"Bird{n}"
        run = ws.start_run("cascade", "cli:test")
        run.stage_write(f"wiki/bird{n}.md", cited_page(name.lower()))
        index = (run.read("wiki/index.md") or b"").decode()
        run.stage_write("wiki/index.md", index + f"- [[{name}]]\n")
        assert run.finalize().status == "committed"
    synced = ledger.sync(ws)
    # three runs of three commits (start, page, index): each page read where it changed
    assert synced.commits == 9 and synced.pages == 6 and not synced.rebuilt
    assert ledger.sync(ws).commits == 0  # up to date: nothing read
    # rows another version of wikigate wrote are replaced whole, none left behind
    before = ledger.claims(ws)
    ws.store.db.execute("UPDATE ledger_state SET version = 'ledger0/old'")
    ws.store.db.execute(
        "INSERT INTO claims SELECT 'wiki/gone.md#^1', 'wiki/gone.md', label, line, claim, "
        "source, source_page, source_quote, source_quote_hash, source_quote_offset, "
        "anchor_status, disputed, introduced_commit, changed_commit, judge_vote, judge_reason "
        "FROM claims LIMIT 1"
    )
    ws.store.db.conn.commit()
    assert ledger.sync(ws).rebuilt
    assert ledger.claims(ws) == before
    ws.close()


def test_claims_landed_outside_the_gate_show_their_anchor_status(wiki):
    """A commit made straight to main (no hooks): its unanchored and mismatched claims
    are in the ledger as such, and --status finds them."""
    repo = pygit2.Repository(str(wiki))
    tip = repo.references["refs/heads/main"].peel(pygit2.Commit)
    wrong = SOURCE_TEXT.find(RAVENS) + 3  # the quote is not at this offset
    page = (
        "---\ntitle: Loose\n---\n# Loose\n\nOwls hunt at night.[^1] Ravens gather at dusk.[^2]\n\n"
        f"[^1]: {format_tail(SOURCE, None, 'Owls hunt at night', None)}\n"
        f"[^2]: {format_tail(SOURCE, None, RAVENS, wrong)}\n"
    )
    index = pygit2.Index()
    index.read_tree(tip.tree)
    index.add(pygit2.IndexEntry("wiki/loose.md", repo.create_blob(page), pygit2.GIT_FILEMODE_BLOB))
    sig = pygit2.Signature("Someone", "someone@example.com")
    repo.create_commit(
        "refs/heads/main", sig, sig, "straight to main", index.write_tree(repo), [tip.id]
    )

    listed = cli(wiki, "claims", "--page", "wiki/loose.md")
    assert "ledger updated to" in listed.stderr and "1 commit, 1 page read" in listed.stderr
    assert "2 claims" in listed.stderr
    loose = {r["claim_id"]: r for r in claims_json(wiki, "--page", "wiki/loose.md")}
    assert loose["wiki/loose.md#^1"]["anchor_status"] == "unanchored"
    assert loose["wiki/loose.md#^1"]["source_quote_offset"] is None
    assert loose["wiki/loose.md#^2"]["anchor_status"] == "mismatched"
    assert [r["claim_id"] for r in claims_json(wiki, "--status", "mismatched")] == [
        "wiki/loose.md#^2"
    ]
    assert [r["claim_id"] for r in claims_json(wiki, "--status", "unanchored")] == [
        "wiki/loose.md#^1"
    ]


def test_gap_markers_are_in_the_ledger(wiki):
    gapped = (
        "---\ntitle: Purr\n---\n# Purr\n\nCats purr for reasons nobody here has a source for "
        "[gap: no source on why cats purr].\n"
    )
    _, done = run_cli(
        wiki, "cascade", {"wiki/purr.md": gapped, "wiki/index.md": _index("Owls", "Purr")}
    )
    assert done.returncode == 0, done.stdout
    gaps = json.loads(cli(wiki, "claims", "--gaps", "--format", "json").stdout)
    assert gaps == [{"page": "wiki/purr.md", "line": 6, "reason": "no source on why cats purr"}]


def freeze(root: Path, entries: str) -> None:
    (root / "wikigate.toml").write_text(
        (root / "wikigate.toml").read_text() + f"\n[ledger]\nfrozen = [{entries}]\n"
    )
    git(root, "commit", "-qam", "freeze claims", "--no-verify")


REWORDED = "Under snow, a barn owl can hear a mouse."


def test_a_frozen_claim_reworded_waits_for_a_person_who_approves_it(wiki):
    freeze(wiki, '"wiki/owls.md#^1"')
    before = main_sha(wiki)
    run_id, done = run_cli(wiki, "cascade", {"wiki/owls.md": page_with("Owls", (REWORDED, QUOTE))})
    assert done.returncode == 5, done.stdout + done.stderr
    assert "needs_human_review" in done.stdout and "claim.frozen_reworded" in done.stdout
    assert main_sha(wiki) == before
    listed = json.loads(
        cli(wiki, "runs", "list", "--status", "needs_human_review", "--format", "json").stdout
    )
    assert [r["run_id"] for r in listed] == [run_id]
    # finalizing again does not count a loop: the writer has nothing to fix
    again = cli(wiki, "run", "finalize", run_id)
    assert again.returncode == 5
    shown = json.loads(cli(wiki, "runs", "show", run_id, "--format", "json").stdout)
    assert shown["loop_count"] == 1

    approved = cli(wiki, "verify", "approve", run_id, "--reason", "same meaning, clearer")
    assert approved.returncode == 0, approved.stdout + approved.stderr
    assert main_sha(wiki) != before
    shown = json.loads(cli(wiki, "runs", "show", run_id, "--format", "json").stdout)
    assert shown["status"] == "committed"
    assert shown["verdict"] == "commit_approved"
    (decision,) = shown["overrides"]
    assert decision["reason"] == "same meaning, clearer" and decision["actor"]
    (row,) = claims_json(wiki, "--page", "wiki/owls.md")
    assert row["claim"] == REWORDED and row["changed_commit"] == main_sha(wiki)
    # only a run that waits for a person can be approved
    twice = cli(wiki, "verify", "approve", run_id, "--reason", "again")
    assert twice.returncode == 1 and "needs_human_review" in twice.stderr


def test_a_person_rejects_a_run_waiting_for_review(wiki):
    freeze(wiki, '"wiki/owls.md#^1"')
    run_id, done = run_cli(wiki, "cascade", {"wiki/owls.md": page_with("Owls", (REWORDED, QUOTE))})
    assert done.returncode == 5
    rejected = cli(wiki, "verify", "reject", run_id, "--reason", "keep the original wording")
    assert rejected.returncode == 1
    shown = json.loads(cli(wiki, "runs", "show", run_id, "--format", "json").stdout)
    assert shown["status"] == "rejected" and shown["verdict"] == "reject_reviewed"
    assert "keep the original wording" in shown["reject_reason"]
    assert git(wiki, "rev-parse", f"refs/wikigate/failed/{run_id}").returncode == 0


def test_a_frozen_claim_altered_is_rejected_and_an_override_is_recorded(wiki):
    freeze(wiki, '"wiki/owls.md#^1"')
    altered = page_with("Owls", ("Owls hunt at night.", "Owls hunt at night"))
    run_id, done = run_cli(wiki, "cascade", {"wiki/owls.md": altered})
    assert done.returncode == 1 and "claim.frozen" in done.stdout
    overridden = cli(wiki, "verify", "override", run_id, "--reason", "policy changed")
    assert overridden.returncode == 0, overridden.stderr
    shown = json.loads(cli(wiki, "runs", "show", run_id, "--format", "json").stdout)
    assert shown["verdict"] == "commit_override"
    assert shown["overrides"][0]["reason"] == "policy changed"


def relabelled(sentence: str, label: str) -> str:
    return page_with("Owls", (sentence, QUOTE)).replace("[^1]", f"[^{label}]")


def test_relabel_then_reword_of_a_frozen_claim_is_caught(wiki):
    """Two steps that each looked harmless: relabel the frozen claim (a pass before), then
    reword it under its new label (no longer matched by the entry: it landed)."""
    freeze(wiki, '"wiki/owls.md#^1"')
    before = main_sha(wiki)
    run_id, done = run_cli(wiki, "cascade", {"wiki/owls.md": relabelled(QUOTE, "k")})
    assert done.returncode == 1, done.stdout
    assert "claim.frozen" in done.stdout and "relabelled as [^k]" in done.stdout
    assert main_sha(wiki) == before
    # a maintainer lands the relabel anyway: the entry now names no claim, so the reword
    # is still refused
    overridden = cli(wiki, "verify", "override", run_id, "--reason", "tidy labels")
    assert overridden.returncode == 0, overridden.stderr
    landed = main_sha(wiki)
    _, done = run_cli(wiki, "cascade", {"wiki/owls.md": relabelled(REWORDED, "k")})
    assert done.returncode == 1, done.stdout
    assert "claim.frozen" in done.stdout and "names no cited claim" in done.stdout
    assert main_sha(wiki) == landed


def test_a_frozen_page_may_not_grow_or_be_archived(wiki):
    freeze(wiki, '"wiki/owls.md"')
    before = main_sha(wiki)
    grown = page_with("Owls", (QUOTE, QUOTE)) + "\nOwls are wonderful, trust us.\n"
    _, done = run_cli(wiki, "cascade", {"wiki/owls.md": grown})
    assert done.returncode == 1 and "claim.frozen" in done.stdout, done.stdout
    started = cli(wiki, "run", "start", "--type", "archive", "--triggered-by", "cli:test")
    run_id = started.stdout.strip()
    assert cli(wiki, "run", "delete", run_id, "wiki/owls.md").returncode == 0
    index = cli(wiki, "run", "write", run_id, "wiki/index.md", "--from", "-", stdin=_index())
    assert index.returncode == 0, index.stderr
    done = cli(wiki, "run", "finalize", run_id)
    assert done.returncode == 1, done.stdout
    assert "claim.frozen" in done.stdout and "deletes the frozen wiki/owls.md" in done.stdout
    assert main_sha(wiki) == before
    assert git(wiki, "cat-file", "-e", "main:wiki/owls.md").returncode == 0


def test_a_run_declares_its_scope(wiki):
    page = page_with("Ravens", (RAVENS, RAVENS))
    files = {"wiki/ravens.md": page, "wiki/index.md": _index("Owls", "Ravens")}
    run_id, done = run_cli(wiki, "cascade", files, "--scope", "wiki/ravens.md")
    assert done.returncode == 1 and "run.scope" in done.stdout and "wiki/index.md" in done.stdout
    trailers = git(wiki, "log", "-1", "--format=%B", f"refs/wikigate/failed/{run_id}").stdout
    assert 'Wikigate-Scope: ["wiki/ravens.md"]' in trailers
    _, done = run_cli(
        wiki, "cascade", files, "--scope", "wiki/ravens.md", "--scope", "wiki/index.md"
    )
    assert done.returncode == 0, done.stdout
    bad = cli(
        wiki, "run", "start", "--type", "cascade", "--triggered-by", "cli:t", "--scope", "../x"
    )
    assert bad.returncode == 2 and "--scope" in bad.stderr


def test_a_run_of_an_unknown_schema_version_is_rejected_not_half_read(wiki):
    before = main_sha(wiki)
    started = cli(wiki, "run", "start", "--type", "cascade", "--triggered-by", "cli:test")
    run_id = started.stdout.strip()
    repo = pygit2.Repository(str(wiki))
    branch = f"refs/heads/wikigate/runs/{run_id}"
    tip = repo.references[branch].peel(pygit2.Commit)
    newer = tip.message.replace("Wikigate-Schema: 1", "Wikigate-Schema: 2")
    assert newer != tip.message
    oid = repo.create_commit(None, tip.author, tip.committer, newer, tip.tree_id, tip.parent_ids)
    repo.references[branch].set_target(oid)
    wrote = cli(wiki, "run", "write", run_id, "wiki/x.md", "--from", "-", stdin="# X\n")
    assert wrote.returncode == 1 and "schema version '2'" in wrote.stderr
    done = cli(wiki, "run", "finalize", run_id)
    assert done.returncode == 1 and "run.schema" in done.stdout
    assert main_sha(wiki) == before
    assert git(wiki, "rev-parse", f"refs/wikigate/failed/{run_id}").returncode == 0


def test_a_changed_source_re_checks_every_claim_citing_it(wiki):
    """A commit that rewrites a source (straight to main, as an admin's push can): the
    ledger says what `verify --all` says of the claims citing it, and a rebuild agrees."""
    assert [r["anchor_status"] for r in claims_json(wiki, "--source", SOURCE)] == ["anchored"]
    repo = pygit2.Repository(str(wiki))
    tip = repo.references["refs/heads/main"].peel(pygit2.Commit)
    index = pygit2.Index()
    index.read_tree(tip.tree)
    changed = SOURCE_TEXT.replace(QUOTE, "Nothing of the kind is said here")
    assert changed != SOURCE_TEXT
    index.add(pygit2.IndexEntry(SOURCE, repo.create_blob(changed), pygit2.GIT_FILEMODE_BLOB))
    sig = pygit2.Signature("Someone", "someone@example.com")
    repo.create_commit(
        "refs/heads/main", sig, sig, "source rewritten", index.write_tree(repo), [tip.id]
    )
    verified = cli(wiki, "verify", "--all")  # its quote held before: stale (a note)
    assert verified.returncode == 0 and "citation.stale" in verified.stdout
    (row,) = claims_json(wiki, "--source", SOURCE)
    assert row["anchor_status"] == "mismatched"
    assert row["changed_commit"] == main_sha(wiki)
    rebuilt = cli(wiki, "telemetry", "rebuild")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert claims_json(wiki, "--source", SOURCE) == [row]
