"""A slim core and extras: the core install carries only what the gate needs, and a
command that needs a missing extra says which one to install: inside verification as a
finding that fails closed (a PDF source without pypdf, the anthropic judge without its
SDK), elsewhere as one clear error (``wikigate github`` without PyGithub, ``--judge
anthropic`` without anthropic). A missing package is simulated as Python itself sees one:
``sys.modules[name] = None`` makes every import of it fail."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import distribution

import pytest
from packaging.requirements import Requirement
from support.trees import commit_files
from support.verifying import verify_trees
from test_judge_cli import branch_with_page, workspace
from test_sources import PAGES, page_citing, pdf

from wikigate.cli.main import main
from wikigate.config import Config
from wikigate.verifier.citation import format_tail

EXTRAS = {
    "pdf": {"pypdf"},
    "github": {"pygithub", "pathspec"},
    "anthropic": {"anthropic"},
    "progress": {"rich"},
}


def _requirements() -> list[Requirement]:
    return [Requirement(r) for r in distribution("wikigate").requires or []]


def _name(req: Requirement) -> str:
    return req.name.lower().replace("_", "-")


def test_the_core_install_requires_none_of_the_extras():
    core = {_name(r) for r in _requirements() if r.marker is None}
    assert core == {
        "pygit2",
        "pydantic",
        "sqlite-utils",
        "click",
        "markdown-it-py",
        "mdit-py-plugins",
        "syntok",
        "pyyaml",
        "text2num",
    }
    for extra, names in EXTRAS.items():
        wanted = {
            _name(r) for r in _requirements() if r.marker and r.marker.evaluate({"extra": extra})
        }
        assert wanted == names, extra
        assert not names & core
    # the test extra (the README's test command) and so dev pull every extra
    [everything] = [
        r
        for r in _requirements()
        if r.marker and r.marker.evaluate({"extra": "test"}) and _name(r) == "wikigate"
    ]
    assert everything.extras == {"all"}
    [alls] = [r for r in _requirements() if r.marker and r.marker.evaluate({"extra": "all"})]
    assert alls.extras == set(EXTRAS)


def _pdf_citation(repo):
    files = {
        "wiki/index.md": "---\ntitle: Index\n---\n# Index\n\n- [[Birds]]\n",
        "wiki/log.md": "# Log\n",
        "raw/p.pdf": pdf(PAGES),
        "wiki/birds.md": page_citing(format_tail("raw/p.pdf", 1, "count to five", 11)),
    }
    return verify_trees(repo, commit_files(repo, None, files), None, config=Config())


def test_a_pdf_source_without_pypdf_fails_closed_naming_the_extra(repo, monkeypatch):
    monkeypatch.setenv("WIKIGATE_WORKERS", "0")
    monkeypatch.setitem(sys.modules, "pypdf", None)
    report = _pdf_citation(repo)
    [finding] = [f for f in report.findings if f.code == "citation.source_unreadable"]
    assert finding.path == "wiki/birds.md" and finding.line
    assert "raw/p.pdf cannot be read" in finding.message
    assert "pip install 'wikigate[pdf]'" in finding.message
    assert report.summary.anchors_verified == 0
    assert report.verdict != "commit"


def test_a_pdf_box_without_pypdf_fails_closed_naming_the_extra(repo, monkeypatch, tmp_path):
    """The box's own interpreter cannot import pypdf (this one can): the same finding."""
    stub = tmp_path / "stub"
    stub.mkdir()
    (stub / "pypdf.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'pypdf'\", name='pypdf')\n"
    )
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(stub), os.environ["PYTHONPATH"]]))
    monkeypatch.setenv("WIKIGATE_WORKERS", "0")
    report = _pdf_citation(repo)
    [finding] = [f for f in report.findings if f.code == "citation.source_unreadable"]
    assert "pip install 'wikigate[pdf]'" in finding.message
    assert report.verdict != "commit"


def test_wikigate_github_without_pygithub_says_which_extra_to_install(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setitem(sys.modules, "github", None)
    assert main(["-C", str(tmp_path), "github"]) == 2  # a setup error, as a usage error
    err = capsys.readouterr().err
    assert "wikigate github needs the github extra (PyGithub)" in err
    assert "pip install 'wikigate[github]'" in err
    assert "Traceback" not in err


def test_judge_anthropic_without_the_sdk_says_which_extra_to_install(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-not-used")
    ws = workspace(tmp_path)
    branch_with_page(ws)
    monkeypatch.setitem(sys.modules, "anthropic", None)
    assert main(["-C", str(ws.root), "verify", "--judge", "anthropic"]) == 2
    err = capsys.readouterr().err
    assert "the anthropic judge needs the anthropic extra" in err
    assert "pip install 'wikigate[anthropic]'" in err


def test_wikigate_github_with_the_anthropic_judge_and_no_sdk_exits_2(world, monkeypatch):
    """The action's judge input names the anthropic judge and the extra is missing: a
    setup error (exit 2, as a missing variable), not a rejection (1); the base stays."""
    import json

    from support.github_world import REPO, TOKEN, cited_page
    from support.helpers import in_process

    world.push_pr(41, cited_page("barn"))
    before = world.main_sha()
    event = world.tmp / "event.json"
    event.write_text(json.dumps(world.pr_event(41, "opened")))
    monkeypatch.setitem(sys.modules, "anthropic", None)
    monkeypatch.chdir(world.checkout)
    proc = in_process(
        ["github"],
        env={
            "GITHUB_EVENT_NAME": "pull_request_target",
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_TOKEN": TOKEN,
            "GITHUB_API_URL": world.gh.url,
            "GITHUB_STEP_SUMMARY": str(world.tmp / "summary.md"),
            "GITHUB_OUTPUT": str(world.tmp / "output.txt"),
            "RUNNER_TEMP": str(world.tmp),
            "WIKIGATE_JUDGE": "anthropic",
            "ANTHROPIC_API_KEY": "sk-ant-not-used",
            "WIKIGATE_VERIFIER": "",
        },
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "the anthropic judge needs the anthropic extra" in proc.stderr
    assert "pip install 'wikigate[anthropic]'" in proc.stderr
    assert world.main_sha() == before


def test_the_anthropic_judge_without_the_sdk_inside_verification_fails_closed(monkeypatch, repo):
    """Where no command checked first (a hook under rules naming the anthropic judge),
    every claim is inconclusive with what to install: never a pass."""
    from wikigate.verifier.cache import Cache
    from wikigate.verifier.judges.choose import UnavailableJudge, make_judge

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-not-used")
    monkeypatch.setitem(sys.modules, "anthropic", None)
    config = Config.model_validate({"judge": {"provider": "anthropic"}})
    judge = make_judge(config, repo=repo, cache=Cache(None, str))
    assert isinstance(judge, UnavailableJudge)
    assert "pip install 'wikigate[anthropic]'" in judge.reason


def test_no_progress_bar_without_rich(monkeypatch):
    from wikigate.cli import progress

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert progress.wanted()
    monkeypatch.setitem(sys.modules, "rich", None)
    assert not progress.wanted()
    with progress.bar() as advance:
        assert advance is None


@pytest.mark.slow
def test_the_core_alone_runs_the_demo_and_verifies(tmp_path):
    """No extra importable: the demo's runs (start, stage, finalize, the offline judge) and
    a whole-wiki verify work, and no extra was imported on the way."""
    script = (
        "import contextlib, io, sys\n"
        "EXTRAS = ('pypdf', 'github', 'anthropic', 'rich', 'pathspec')\n"
        "for name in EXTRAS:\n"
        "    sys.modules[name] = None\n"
        "from wikigate.cli.main import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    assert main(['demo', sys.argv[1]]) == 0\n"
        "    assert main(['-C', sys.argv[1], 'verify', '--all']) == 0\n"
        "assert out.getvalue().count('committed 20') == 2, out.getvalue()\n"
        "assert all(sys.modules[name] is None for name in EXTRAS)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "WIKIGATE_VERIFIER"}
    proc = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "demo")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
