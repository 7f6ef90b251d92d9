"""A verifier plug-in named in the base's wikigate.toml runs in every gate: finalize,
``wikigate verify``, the pre-commit and pre-push hooks, the server gate and the bot, all
through the one entry point (wikigate/verify.py).

The plug-in is the markers test double: it rejects a page holding ``REJECT-ME`` with the
code ``test.reject``, which the default verifier never produces; the pages here pass the
default verifier (the control in the first test shows it)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.github_world import World
from support.helpers import gated_server, git, in_process, push
from support.odd_verifiers import Spoof
from support.wiki_runs import cited_page, page_run

from wikigate.attest import parse
from wikigate.gitrepo import NOTES_REF, read_note, ref_target
from wikigate.hooks import precommit
from wikigate.workspace import Workspace

TESTS = str(Path(__file__).parent)
PLUGIN = 'plugin = "support.markers_verifier:factory"'
MARKED = cited_page("owls") + "\nREJECT-ME, the plug-in.\n"  # no statement: 3 words


def name_the_plugin(root: Path) -> None:
    """A maintainer names the plug-in in main's wikigate.toml (client hooks bypassed)."""
    toml = root / "wikigate.toml"
    toml.write_text(toml.read_text().replace("[verifier]\n", f"[verifier]\n{PLUGIN}\n", 1))
    git(root, "add", "wikigate.toml")
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "verify with the plug-in")


@pytest.fixture
def plugged(tmp_path):
    """A wiki with one verified page whose main names the markers plug-in."""
    ws = Workspace.init(tmp_path / "wiki")
    assert page_run(ws, "herons").status == "committed"
    ws.close()
    name_the_plugin(tmp_path / "wiki")
    ws = Workspace.open(tmp_path / "wiki")
    yield ws
    ws.close()


# the server's Python imports the plug-in from the tests' folder (where it is installed)
SERVER_ENV = {"PYTHONPATH": TESTS, "WIKIGATE_VERIFIER": ""}


def topic(root: Path) -> str:
    """A branch ``topic`` off main changing wiki/owls.md to the marked page."""
    git(root, "checkout", "-q", "-b", "topic", "main")
    (root / "wiki" / "owls.md").write_text(MARKED)
    git(root, "add", "wiki/owls.md")
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "owls")
    git(root, "checkout", "-q", "main")
    return git(root, "rev-parse", "topic").stdout.strip()


def test_finalize_uses_the_plugin_the_rules_name(plugged, monkeypatch):
    run = plugged.start_run("cascade", "cli:test")
    run.stage_write("wiki/owls.md", MARKED)
    result = run.finalize()
    assert result.status == "rejected"
    assert [f.code for f in result.findings] == ["test.reject"]
    # the control: the same change under the default verifier lands
    monkeypatch.setenv("WIKIGATE_VERIFIER", "wikigate.verifier.default:default_verifier")
    again = plugged.start_run("cascade", "cli:test")
    again.stage_write("wiki/owls.md", MARKED)
    index = (again.read("wiki/index.md") or b"").decode()
    again.stage_write("wiki/index.md", index + "- [[owls]]\n")
    assert again.finalize().status == "committed"


def test_the_attestation_names_the_plugin_that_ran(plugged):
    run = plugged.start_run("cascade", "cli:test")
    run.stage_write("wiki/owls.md", MARKED)
    result = run.finalize()
    assert result.status == "rejected" and result.tip is not None
    notes = str(ref_target(plugged.repo, NOTES_REF))
    note = read_note(plugged.repo, result.tip, notes)
    assert note is not None
    att = parse(plugged.repo[note["verifications"][-1]["attestation"]].data)
    # what was loaded (set by the entry point): the spec, then its module's source digest
    assert att.verifier.startswith("support.markers_verifier:factory source:")
    assert len(att.verifier.rpartition("source:")[2]) == 16


def test_wikigate_verify_uses_the_plugin(plugged):
    topic(plugged.root)
    proc = in_process(["-C", str(plugged.root), "verify", "topic"])
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "test.reject" in proc.stdout


def test_the_pre_commit_hooks_use_the_plugin(plugged, monkeypatch, capsys):
    root = plugged.root
    (root / "wiki" / "owls.md").write_text(MARKED)
    git(root, "add", "wiki/owls.md")
    monkeypatch.chdir(root)
    assert precommit.citations_main(["wiki/owls.md"]) == 1
    assert "wiki/owls.md:7: test.reject" in capsys.readouterr().out


def test_the_pre_push_hook_uses_the_plugin(plugged, monkeypatch, capsys):
    topic(plugged.root)
    monkeypatch.chdir(plugged.root)
    monkeypatch.setenv("PRE_COMMIT_TO_REF", "topic")
    monkeypatch.setenv("PRE_COMMIT_FROM_REF", "main")
    assert precommit.verify_main([]) == 1
    assert "test.reject" in capsys.readouterr().out


def test_the_server_gate_uses_the_plugin(plugged, tmp_path):
    root = plugged.root
    bare = gated_server(root, tmp_path)
    head = topic(root)
    pushed = push(root, str(bare), "topic:main", env=SERVER_ENV)
    assert pushed.returncode != 0
    assert "test.reject" in pushed.stderr
    assert git(bare, "rev-parse", "main").stdout.strip() != head


@pytest.mark.slow
def test_the_bot_uses_the_plugin_of_the_base(world: World):
    toml = (world.seed / "wikigate.toml").read_text()
    world.land_on_main(
        {"wikigate.toml": toml.replace("[verifier]\n", f"[verifier]\n{PLUGIN}\n", 1)},
        "verify with the plug-in",
    )
    world.push_pr(31, cited_page("barn") + "\nREJECT-ME\n")
    before = world.main_sha()
    payload = world.pr_event(31, "opened", sender={"login": "author"})
    result = world.step("pull_request_target", payload, env={"PYTHONPATH": TESTS})
    assert result.code == 1, result.out
    assert any("test.reject" in c["body"] for c in world.comments())
    assert world.main_sha() == before


def test_a_plugin_that_cannot_be_loaded_fails_closed(plugged, tmp_path):
    """The rules name a plug-in the server cannot import: every push to main is refused,
    saying which plug-in and why, until the server can run it."""
    root = plugged.root
    bare = gated_server(root, tmp_path)
    git(root, "checkout", "-q", "-b", "clean", "main")
    (root / "wiki" / "owls.md").write_text(cited_page("owls"))
    git(root, "add", "wiki/owls.md")
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "owls")
    pushed = push(root, str(bare), "clean:main", env={"WIKIGATE_VERIFIER": "", "PYTHONPATH": ""})
    assert pushed.returncode != 0
    assert "'support.markers_verifier:factory' cannot be loaded here" in pushed.stderr
    assert (
        git(bare, "rev-parse", "main").stdout.strip()
        == git(root, "rev-parse", "main").stdout.strip()
    )


class Elsewhere:
    """A verifier that answers about another commit than the one it was asked about."""

    def verify(self, request):  # type: ignore[no-untyped-def]
        from dataclasses import replace

        from support.markers_verifier import MarkersVerifier

        parent = request.repo[request.tip.parents[0].id]
        return MarkersVerifier().verify(replace(request, tip=parent))


def test_a_verdict_on_another_commit_fails_closed(plugged):
    run = plugged.start_run("cascade", "cli:test")
    run.stage_write("wiki/owls.md", cited_page("owls"))
    result = run.finalize(verifier=Elsewhere())
    assert result.status == "rejected"
    (f,) = result.findings
    assert f.code == "verifier.error" and "reported on tip" in f.message


def name_in_rules(ws: Workspace, spec: str) -> None:
    toml = ws.root / "wikigate.toml"
    toml.write_text(re.sub(r'plugin = "[^"]*"', f'plugin = "{spec}"', toml.read_text()))
    git(ws.root, "add", "wikigate.toml")
    git(ws.root, "-c", "core.hooksPath=/dev/null", "commit", "-qm", f"verify with {spec}")


def test_a_plugin_that_exits_fails_closed_in_every_gate(plugged, tmp_path, monkeypatch, capsys):
    """sys.exit(0) inside a plug-in is not a pass: finalize rejects, verify rejects, the
    pre-commit hook refuses, the server refuses the push."""
    name_in_rules(plugged, "support.odd_verifiers:exiting")
    run = plugged.start_run("cascade", "cli:test")
    run.stage_write("wiki/owls.md", cited_page("owls"))
    result = run.finalize()
    assert result.status == "rejected" and result.findings[0].code == "verifier.error"
    assert "SystemExit" in result.findings[0].message
    head = topic(plugged.root)
    proc = in_process(["-C", str(plugged.root), "verify", "topic"])
    assert proc.returncode == 1 and "verifier.error" in proc.stdout
    monkeypatch.chdir(plugged.root)
    git(plugged.root, "checkout", "-q", "topic")
    (plugged.root / "wiki" / "owls.md").write_text(cited_page("owls") + "\nMore.\n")
    git(plugged.root, "add", "wiki/owls.md")
    assert precommit.citations_main(["wiki/owls.md"]) == 1
    assert "verifier.error" in capsys.readouterr().out
    git(plugged.root, "checkout", "-q", "-f", "main")
    bare = gated_server(plugged.root, tmp_path)
    pushed = push(plugged.root, str(bare), "topic:main", env=SERVER_ENV)
    assert pushed.returncode != 0 and "verifier.error" in pushed.stderr
    assert git(bare, "rev-parse", "main").stdout.strip() != head


def test_a_verdict_milder_than_its_findings_is_raised_to_theirs(plugged):
    name_in_rules(plugged, "support.odd_verifiers:liar")
    run = plugged.start_run("cascade", "cli:test")
    run.stage_write("wiki/owls.md", cited_page("owls"))
    result = run.finalize()
    assert result.status == "rejected" and [f.code for f in result.findings] == ["test.reject"]


def test_a_plugin_dressed_as_the_default_is_named_by_what_was_loaded(plugged, monkeypatch):
    """The name an attestation carries comes from the spec loaded, not from the class's
    own words: a plug-in faking the default verifier's module, class and version is still
    "support.odd_verifiers:spoof", which no server running the default takes."""
    from wikigate.hooks.attested import server_verifier

    monkeypatch.setenv("WIKIGATE_VERIFIER", "support.odd_verifiers:spoof")
    run = plugged.start_run("cascade", "cli:test")
    run.stage_write("wiki/owls.md", MARKED)
    result = run.finalize()
    assert result.status == "committed"  # the spoof says yes to anything
    note = read_note(plugged.repo, result.tip, str(ref_target(plugged.repo, NOTES_REF)))
    att = parse(plugged.repo[note["verifications"][-1]["attestation"]].data)
    assert att.verifier.startswith("support.odd_verifiers:spoof source:")
    monkeypatch.delenv("WIKIGATE_VERIFIER")
    assert server_verifier(None) == f"wikigate.verifier.default:default_verifier {Spoof.version}"
    assert att.verifier != server_verifier(None)


def test_a_server_that_cannot_load_its_verifier_takes_no_attestation():
    from wikigate.config import Config
    from wikigate.hooks.attested import server_verifier

    rules = Config.model_validate({"verifier": {"plugin": "nosuch_module:factory"}})
    assert server_verifier(rules) is None


def test_an_unloadable_plugin_decides_nothing_and_the_run_stays_pending(
    plugged, tmp_path, monkeypatch
):
    name_in_rules(plugged, "nosuch_module:factory")
    run = plugged.start_run("cascade", "cli:test")
    run.stage_write("wiki/owls.md", cited_page("owls"))
    proc = in_process(
        ["-C", str(plugged.root), "run", "finalize", run.run_id], env={"WIKIGATE_VERIFIER": ""}
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "'nosuch_module:factory' cannot be loaded here" in proc.stderr
    assert plugged.store.get(run.run_id)["status"] == "pending"
    # once the plug-in is installed where the gate runs, the same run lands
    (tmp_path / "installed").mkdir()
    (tmp_path / "installed" / "nosuch_module.py").write_text(
        "from support.markers_verifier import factory\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path / "installed"))
    assert run.finalize().status == "committed"


def test_python_m_wikigate_never_imports_a_plugin_from_the_working_tree(plugged):
    """A writer's file named like the plug-in, at the top of the work tree, is not the
    plug-in: `python -m wikigate` (which puts the current folder on sys.path) refuses to
    decide instead of running it."""
    (plugged.root / "evilplug.py").write_text(
        "class V:\n    def verify(self, request):\n        raise SystemExit(0)\n"
        "def factory():\n    return V()\n"
    )
    topic(plugged.root)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [sys.executable, "-m", "wikigate", "verify", "topic"],
        cwd=plugged.root,
        capture_output=True,
        text=True,
        env={**env, "WIKIGATE_VERIFIER": "evilplug:factory"},
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "'evilplug:factory' cannot be loaded here" in proc.stderr


def test_the_bot_with_an_unloadable_plugin_fails_the_step_and_closes_nothing(world: World):
    toml = (world.seed / "wikigate.toml").read_text()
    world.land_on_main(
        {"wikigate.toml": toml.replace("[verifier]\n", '[verifier]\nplugin = "nosuch:f"\n', 1)},
        "verify with a plug-in the runner lacks",
    )
    world.push_pr(32, cited_page("barn"))
    before = world.main_sha()
    result = world.run(32, "opened")
    assert result.code == 1
    assert "'nosuch:f' cannot be loaded here" in result.out
    assert world.gh.pulls[32].state == "open" and world.main_sha() == before
    assert git(world.bare, "rev-parse", "--verify", "-q", "feature", check=False).returncode == 0
