"""The LLM judge from the commands a user types: ``verify --judge``, ``--judge-dry-run``,
``run finalize`` under ``[judge] provider = "anthropic"``; telemetry and the judgment cache.
The real ``anthropic`` client talks to the emulator on 127.0.0.1; no test leaves it."""

from __future__ import annotations

import sqlite3
import subprocess

import pytest
from support.anthropic_emulator import parse_claims
from support.helpers import git
from support.wiki_runs import QUOTE, SOURCE, SOURCE_TEXT, cited_page

from wikigate.cli.main import main
from wikigate.models import Budget
from wikigate.workspace import Workspace

KEY = "sk-ant-emulated-cli-SECRET-42"
JUDGE_TOML = 'provider = "anthropic"\nmax_retries = 1\nmax_tool_turns = 0'


@pytest.fixture
def emulator(monkeypatch: pytest.MonkeyPatch):
    from support.anthropic_emulator import serving

    yield from serving(monkeypatch, KEY)


def workspace(tmp_path, toml: str = "") -> Workspace:
    """A workspace with the owls source on main; ``toml`` for the [judge] section of its
    committed wikigate.toml."""
    ws = Workspace.init(tmp_path / "w")
    if toml:
        cfg = ws.root / "wikigate.toml"
        text = cfg.read_text()
        assert 'provider = "offline"' in text
        cfg.write_text(text.replace('provider = "offline"', toml))
        git(ws.root, "-c", "core.hooksPath=/dev/null", "commit", "-qam", "judge config")
        ws = Workspace.open(ws.root)
    run = ws.start_run("ingest", "cli:test")
    run.stage_write(SOURCE, SOURCE_TEXT)
    result = run.finalize(verify=False)
    assert result.status == "committed"
    return ws


def branch_with_page(ws: Workspace, name: str = "owls") -> None:
    """A plain branch adding a cited page (what `wikigate verify REF` checks)."""
    git(ws.root, "switch", "-qc", "topic")
    (ws.root / "wiki" / f"{name}.md").write_text(
        cited_page(name).replace(
            f"# {name.title()}", f"---\ntitle: {name.title()}\n---\n# {name.title()}"
        )
    )
    index = ws.root / "wiki" / "index.md"
    index.write_text(index.read_text() + f"- [[{name.title()}]]\n")
    git(ws.root, "add", "wiki")
    git(ws.root, "-c", "core.hooksPath=/dev/null", "commit", "-qm", f"add {name}")


def test_verify_with_the_anthropic_judge_and_no_key_says_what_to_set(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    ws = workspace(tmp_path)
    branch_with_page(ws)
    assert main(["-C", str(ws.root), "verify", "--judge", "anthropic"]) == 1
    err = capsys.readouterr().err
    assert "set ANTHROPIC_API_KEY" in err and "--judge offline" in err
    assert main(["-C", str(ws.root), "verify", "--judge", "offline"]) == 0


def test_the_text_report_says_what_the_judge_spent(tmp_path, capsys, emulator):
    ws = workspace(tmp_path)
    branch_with_page(ws)
    assert main(["-C", str(ws.root), "verify", "--judge", "anthropic"]) == 0
    out = capsys.readouterr().out
    assert (
        "judge: anthropic claude-sonnet-5 · 1 claim (0 from the judgment cache) · 1 request" in out
    )
    assert "input tokens" in out and "$0.0" in out


def test_verify_judges_and_a_second_verify_costs_nothing(tmp_path, capsys, emulator):
    ws = workspace(tmp_path)
    branch_with_page(ws)
    assert main(["-C", str(ws.root), "verify", "--judge", "anthropic", "--format", "json"]) == 0
    assert len(emulator.messages) == 1
    (claim,) = parse_claims(emulator.messages[0].body)
    assert claim["ref"] == "wiki/owls.md#^1" and claim["quote"] == QUOTE
    capsys.readouterr()
    assert main(["-C", str(ws.root), "verify", "--judge", "anthropic", "--format", "json"]) == 0
    assert len(emulator.messages) == 1  # the judgment cache answered: nothing sent
    import json

    report = json.loads(capsys.readouterr().out)
    assert report["judge"]["votes"][0]["cached"] is True
    assert report["judge"]["usage"]["requests"] == 0 and report["judge"]["usage"]["usd"] == 0


def test_dry_run_prints_what_would_be_sent_and_sends_nothing(
    tmp_path, capsys, emulator, monkeypatch
):
    monkeypatch.delenv("ANTHROPIC_API_KEY")  # a dry run needs no key
    ws = workspace(tmp_path)
    branch_with_page(ws)
    assert main(["-C", str(ws.root), "verify", "--judge-dry-run"]) == 0
    out = capsys.readouterr().out
    assert emulator.received == []  # no HTTP request at all
    assert "nothing was sent" in out
    assert "request 1: raw/owls.txt, 1 claim (wiki/owls.md#^1)" in out
    assert "input tokens" in out and "$" in out
    assert "find the error in this write" in out  # the system prompt
    assert f"| {QUOTE}" in out  # the claims block, marked
    assert main(["-C", str(ws.root), "verify", "--judge-dry-run", "--format", "json"]) == 0
    import json

    data = json.loads(capsys.readouterr().out)
    assert data["requests"][0]["model"] == "claude-sonnet-5"
    assert data["judge"]["planned"][0]["claim_ids"] == ["wiki/owls.md#^1"]
    assert emulator.received == []


def test_finalize_under_the_anthropic_rules_records_writer_and_verifier_apart(
    tmp_path, emulator, capsys
):
    ws = workspace(tmp_path, JUDGE_TOML)
    run = ws.start_run(
        "cascade", "cli:test", Budget(input_tokens=200_000, output_tokens=20_000, usd=2.0)
    )
    run.stage_write("wiki/owls.md", cited_page("owls"))
    index = (run.read("wiki/index.md") or b"").decode()
    run.stage_write("wiki/index.md", index + "- [[owls]]\n")
    run.attest_usage(Budget(input_tokens=1234, output_tokens=567, usd=0.5))
    assert main(["-C", str(ws.root), "run", "finalize", run.run_id]) == 0
    printed = capsys.readouterr()
    assert len(emulator.messages) == 1
    row = Workspace.open(ws.root).store.get(run.run_id)
    assert row["status"] == "committed"
    assert (row["budget_input_tokens_used"], row["budget_output_tokens_used"]) == (1234, 567)
    judge_in = sum(
        u["input_tokens"] + u["cache_creation_input_tokens"] + u["cache_read_input_tokens"]
        for u in emulator.usages
    )
    assert row["verifier_input_tokens"] == judge_in > 0
    assert row["verifier_output_tokens"] == emulator.usages[0]["output_tokens"]
    assert 0 < row["verifier_usd"] < 0.5
    assert row["verifier_preset"] == "anthropic:claude-sonnet-5:SKEPTICAL"
    # the key is nowhere: output, telemetry, git objects (notes, branches)
    everything = subprocess.run(
        ["git", "-C", str(ws.root), "cat-file", "--batch-all-objects", "--batch"],
        capture_output=True,
        check=True,
    ).stdout
    db = (ws.git_dir / "wikigate" / "telemetry.db").read_bytes()
    rows = (
        sqlite3.connect(ws.git_dir / "wikigate" / "telemetry.db")
        .execute("SELECT * FROM runs")
        .fetchall()
    )
    for blob in (printed.out.encode(), printed.err.encode(), everything, db, repr(rows).encode()):
        assert KEY.encode() not in blob


def test_finalize_cannot_lower_the_rules_judge(tmp_path, capsys, emulator):
    ws = workspace(tmp_path, JUDGE_TOML)
    run = ws.start_run("cascade", "cli:test")
    run.stage_write("wiki/owls.md", cited_page("owls"))
    assert main(["-C", str(ws.root), "run", "finalize", run.run_id, "--judge", "offline"]) == 2
    assert "cannot land on the offline judge" in capsys.readouterr().err
    assert ws.run(run.run_id).refresh()["status"] == "pending"
    assert emulator.received == []


def test_finalize_can_raise_the_judge_and_a_contradiction_sends_it_back(tmp_path, capsys, emulator):
    ws = workspace(tmp_path)  # offline rules
    run = ws.start_run("cascade", "cli:test")
    run.stage_write("wiki/owls.md", cited_page("owls"))
    index = (run.read("wiki/index.md") or b"").decode()
    run.stage_write("wiki/index.md", index + "- [[owls]]\n")
    emulator.default_vote = "contradicts"
    assert main(["-C", str(ws.root), "run", "finalize", run.run_id, "--judge", "anthropic"]) == 3
    assert "citation.contradicted" in capsys.readouterr().out
    assert ws.run(run.run_id).refresh()["status"] == "pending"  # revise: back to the writer


@pytest.mark.slow
def test_the_server_gate_judges_and_never_caches_an_inconclusive_verdict(tmp_path, emulator):
    ws = workspace(tmp_path, JUDGE_TOML)
    bare = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(ws.root), str(bare))
    git(ws.root, "remote", "add", "origin", str(bare))
    assert main(["-C", str(ws.root), "hooks", "install", "--server", str(bare)]) == 0
    (ws.root / "wiki" / "owls.md").write_text(cited_page("owls"))
    index = ws.root / "wiki" / "index.md"
    index.write_text(index.read_text() + "- [[Owls]]\n")
    git(ws.root, "add", "wiki")
    git(ws.root, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "owls")
    for _ in range(2):  # the request and the SDK's one retry
        emulator.script.append(emulator.error(500, "down", retry_after_ms="5"))
    refused = subprocess.run(
        ["git", "-C", str(ws.root), "push", "origin", "main"], capture_output=True, text=True
    )
    assert refused.returncode != 0 and "citation.inconclusive" in refused.stderr
    accepted = subprocess.run(
        ["git", "-C", str(ws.root), "push", "origin", "main"], capture_output=True, text=True
    )
    assert accepted.returncode == 0, accepted.stderr  # judged again, not served from a cache
    assert len(emulator.messages) == 3
    assert KEY not in refused.stderr + accepted.stderr


def test_finalize_under_anthropic_rules_without_a_key_stops_before_claiming(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    ws = workspace(tmp_path, JUDGE_TOML)
    run = ws.start_run("cascade", "cli:test")
    run.stage_write("wiki/owls.md", cited_page("owls"))
    assert main(["-C", str(ws.root), "run", "finalize", run.run_id]) == 1
    assert "set ANTHROPIC_API_KEY" in capsys.readouterr().err
    assert ws.run(run.run_id).refresh()["status"] == "pending"  # nothing claimed, nothing lost


def test_the_pre_push_hook_takes_the_judge_as_verify_does(tmp_path, capsys, emulator, monkeypatch):
    from wikigate.hooks.precommit import verify_main

    ws = workspace(tmp_path)  # offline rules
    branch_with_page(ws)
    monkeypatch.chdir(ws.root)
    monkeypatch.setenv("PRE_COMMIT_FROM_REF", "main")
    monkeypatch.setenv("PRE_COMMIT_TO_REF", "topic")
    emulator.default_vote = "contradicts"
    assert verify_main([]) == 0 and emulator.received == []  # the rules' offline judge
    assert verify_main(["--judge", "anthropic"]) == 1
    assert "citation.contradicted" in capsys.readouterr().out
    assert len(emulator.received) == 1
