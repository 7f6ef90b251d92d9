"""A verifier plug-in named in the base's wikigate.toml runs in every gate: finalize,
``wikigate verify``, the pre-commit and pre-push hooks, the server gate and the bot, all
through the one entry point (wikigate/verify.py).

The plug-in is the markers test double: it rejects a page holding ``REJECT-ME`` with the
code ``test.reject``, which the default verifier never produces; the pages here pass the
default verifier (the control in the first test shows it)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from support.github_world import World
from support.helpers import git, in_process
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
    # the class that ran (set by the entry point), then the version it gives of itself
    assert att.verifier == "support.markers_verifier:MarkersVerifier markers 1"


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
    bare = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(root), str(bare))
    assert in_process(["-C", str(root), "hooks", "install", "--server", str(bare)]).returncode == 0
    head = topic(root)
    # the server's Python must import the plug-in: here, from the tests' folder
    env = {**os.environ, "PYTHONPATH": TESTS}
    env.pop("WIKIGATE_VERIFIER", None)
    push = subprocess.run(
        ["git", "-C", str(root), "push", str(bare), "topic:main"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert push.returncode != 0
    assert "test.reject" in push.stderr
    assert git(bare, "rev-parse", "main").stdout.strip() != head


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
    bare = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(root), str(bare))
    assert in_process(["-C", str(root), "hooks", "install", "--server", str(bare)]).returncode == 0
    git(root, "checkout", "-q", "-b", "clean", "main")
    (root / "wiki" / "owls.md").write_text(cited_page("owls"))
    git(root, "add", "wiki/owls.md")
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "owls")
    env = {k: v for k, v in os.environ.items() if k not in ("WIKIGATE_VERIFIER", "PYTHONPATH")}
    push = subprocess.run(
        ["git", "-C", str(root), "push", str(bare), "clean:main"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert push.returncode != 0
    assert "verifier.error" in push.stderr
    assert "'support.markers_verifier:factory' failed" in push.stderr


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
