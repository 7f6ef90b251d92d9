"""`wikigate verify --all` and recorded overrides (issue 26): a finding a person's word
landed is shown as overridden, not failing, until its content changes (its fingerprint:
code, path, claim and message, never its line). Real repositories, the product's
verifier, the CLI in process, a fresh clone rebuilt from the notes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from support.helpers import git, in_process
from support.wiki_runs import fabricated_page, page_run

from wikigate.models import Finding, fingerprint
from wikigate.workspace import Workspace

PRODUCT = {"WIKIGATE_VERIFIER": ""}  # the product's own verifier, not the tests' plug-in


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return in_process(["-C", str(cwd), *args], env=PRODUCT)


def overridden_wiki(tmp_path: Path) -> tuple[Path, str]:
    """A wiki whose page `fake` cites a source that does not exist (critical), landed by
    a recorded override; returns its root and the run's id."""
    ws = Workspace.init(tmp_path / "wiki")
    assert page_run(ws, "owls").status == "committed"
    fake = page_run(ws, "fake", fabricated_page("fake"))
    assert fake.status == "rejected"
    ws.close()
    root = tmp_path / "wiki"
    done = cli(root, "verify", "override", fake.run_id, "--reason", "the source is on paper")
    assert done.returncode == 0, done.stderr
    return root, fake.run_id


def test_verify_all_shows_an_overridden_finding_as_overridden_until_it_changes(tmp_path):
    root, run_id = overridden_wiki(tmp_path)

    lint = cli(root, "verify", "--all")
    assert lint.returncode == 0, lint.stdout + lint.stderr  # was 1 (REJECT) forever
    assert "PASS" in lint.stdout
    assert "overridden (not counted): 1 finding" in lint.stdout
    assert "citation.source_missing" in lint.stdout
    assert f"override in {run_id} by " in lint.stdout and "the source is on paper" in lint.stdout
    data = json.loads(cli(root, "verify", "--all", "--format", "json").stdout)
    assert data["verdict"] == "commit" and data["findings"] == []
    [aside] = data["overridden"]
    assert (aside["by"], aside["run_id"], aside["reason"]) == (
        "override",
        run_id,
        "the source is on paper",
    )
    assert aside["finding"]["code"] == "citation.source_missing"

    # a fresh clone knows it from the notes, after `telemetry rebuild`
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(root), str(clone)], check=True)
    assert cli(clone, "telemetry", "rebuild").returncode == 0
    assert cli(clone, "verify", "--all").returncode == 0

    # the claim changes (landed unverified): it is a new finding, and it counts again
    ws = Workspace.open(root)
    text = (root / "wiki" / "fake.md").read_text()
    changed = text.replace("A barn owl can hear", "A barn owl can always hear")
    assert changed != text
    run = ws.start_run("cascade", "cli:test")
    run.stage_write("wiki/fake.md", changed)
    assert run.finalize(verify=False).status == "committed"
    ws.close()
    git(root, "checkout", "-q", "-f", "main")
    again = cli(root, "verify", "--all")
    assert again.returncode == 1, again.stdout
    assert "citation.source_missing" in again.stdout and "overridden" not in again.stdout


def test_an_overridden_citation_counts_again_when_only_its_quote_changes(tmp_path):
    """The claim's text and the message stay; the footnote's quote differs: another
    finding (the fingerprint holds the text of the finding's line, the definition)."""
    root, _ = overridden_wiki(tmp_path)
    text = (root / "wiki" / "fake.md").read_text()
    [definition] = [line for line in text.splitlines() if line.startswith("[^1]:")]
    requoted = text.replace(definition, '[^1]: raw/made-up.txt — "A barn owl hears mice."')
    ws = Workspace.open(root)
    run = ws.start_run("cascade", "cli:test")
    run.stage_write("wiki/fake.md", requoted)
    assert run.finalize(verify=False).status == "committed"
    ws.close()
    again = cli(root, "verify", "--all")
    assert again.returncode == 1, again.stdout
    assert "citation.source_missing" in again.stdout and "overridden" not in again.stdout


def test_an_overridden_finding_stays_overridden_when_only_its_line_moves(tmp_path):
    root, run_id = overridden_wiki(tmp_path)
    text = (root / "wiki" / "fake.md").read_text()
    moved = text.replace("\n\n", "\n\nA second line, uncited but harmless.\n\n", 1)
    ws = Workspace.open(root)
    run = ws.start_run("cascade", "cli:test")
    run.stage_write("wiki/fake.md", moved)
    assert run.finalize(verify=False).status == "committed"
    ws.close()
    lint = cli(root, "verify", "--all", "--format", "json")
    data = json.loads(lint.stdout)
    assert [a["run_id"] for a in data["overridden"]] == [run_id]
    assert data["overridden"][0]["finding"]["line"] != 5  # it moved, and is still covered


def test_a_fingerprint_is_what_a_finding_is_about_never_its_line():
    f = Finding(
        code="link.broken",
        severity="major",
        path="wiki/a.md",
        line=3,
        message="[[Nowhere]] resolves to nothing",
        claim="Owls see [[Nowhere]].",
    )
    assert fingerprint(f) == fingerprint(f.model_copy(update={"line": 30}))
    assert fingerprint(f, "See [[Nowhere]].") == fingerprint(f, "  See  [[Nowhere]]. ")
    assert fingerprint(f, "See [[Nowhere]].") != fingerprint(f, "See [[Nowhere]] now.")
    for change in (
        {"claim": "Owls hear [[Nowhere]]."},
        {"message": "[[Elsewhere]] resolves to nothing"},
        {"path": "wiki/b.md"},
        {"code": "page.orphan"},
    ):
        assert fingerprint(f) != fingerprint(f.model_copy(update=change))


def land_unverified(root: Path, path: str, text: str) -> None:
    ws = Workspace.open(root)
    run = ws.start_run("cascade", "cli:test")
    run.stage_write(path, text)
    assert run.finalize(verify=False).status == "committed"
    ws.close()


def test_a_new_claim_citing_an_overridden_footnote_counts_again(tmp_path):
    """The override covered the claim that cited the made-up source; a new claim citing
    the same footnote is a new finding (the fingerprint holds the lines citing it)."""
    root, _ = overridden_wiki(tmp_path)
    text = (root / "wiki" / "fake.md").read_text()
    [claim] = [
        line for line in text.splitlines() if "[^1]" in line and not line.startswith("[^1]:")
    ]
    more = text.replace(claim, claim + "\n\nOwls can read the minutes of the council.[^1]")
    land_unverified(root, "wiki/fake.md", more)
    again = cli(root, "verify", "--all", "--format", "json")
    data = json.loads(again.stdout)
    assert again.returncode == 1, again.stdout
    assert "citation.source_missing" in [f["code"] for f in data["findings"]]
    assert data["overridden"] == []


def test_an_overridden_page_finding_without_a_line_counts_again_when_the_page_changes(tmp_path):
    """`page.orphan` has no line: its fingerprint holds the page's text, so rewriting the
    page with new sentences makes it a new finding (docs/report.md's promise)."""
    ws = Workspace.init(tmp_path / "wiki")
    assert page_run(ws, "owls").status == "committed"
    run = ws.start_run("cascade", "cli:test")
    run.stage_write("wiki/fake.md", fabricated_page("fake"))  # linked from nowhere
    fake = run.finalize(verify=True)
    ws.close()
    assert fake.status == "rejected"
    assert "page.orphan" in [f.code for f in fake.findings]
    root = tmp_path / "wiki"
    done = cli(root, "verify", "override", fake.run_id, "--reason", "linked later")
    assert done.returncode == 0, done.stdout + done.stderr
    lint = json.loads(cli(root, "verify", "--all", "--format", "json").stdout)
    assert "page.orphan" in [a["finding"]["code"] for a in lint["overridden"]]
    assert "page.orphan" not in [f["code"] for f in lint["findings"]]

    text = (root / "wiki" / "fake.md").read_text()
    land_unverified(root, "wiki/fake.md", text + "\nOwls were crowned kings in 1066.\n")
    again = json.loads(cli(root, "verify", "--all", "--format", "json").stdout)
    assert "page.orphan" in [f["code"] for f in again["findings"]]
    assert "page.orphan" not in [a["finding"]["code"] for a in again["overridden"]]
