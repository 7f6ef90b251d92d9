"""Docs stay true: every CLI command is in the README, every finding code in docs/checks.md."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from wikigate.cli import cli

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"


def commands(group: click.Group, prefix: str = "wikigate") -> list[str]:
    return [path for path, _cmd in walk(group, prefix)]


def walk(group: click.Group, prefix: str = "wikigate") -> list[tuple[str, click.Command]]:
    """Every command a user can type, with its path (a hidden default command reads as
    its group: ``wikigate verify``)."""
    out = []
    for name, cmd in group.commands.items():
        path = f"{prefix} {name}"
        if getattr(cmd, "hidden", False):
            path = prefix
        if isinstance(cmd, click.Group):
            out += walk(cmd, path)
        else:
            out.append((path, cmd))
    return out


def test_every_option_and_argument_has_help_and_choices_are_shown():
    missing = []
    for path, cmd in walk(cli):
        for param in cmd.params:
            if not getattr(param, "help", None):
                missing.append(f"{path} {param.name}")
        text = cmd.get_help(click.Context(cmd, info_name=path))
        for param in cmd.params:
            choices = getattr(param.type, "choices", None)
            if choices:
                assert "|".join(str(c).lower() for c in choices) in text.lower(), (path, param)
    assert missing == []


def test_every_option_is_documented():
    docs = (ROOT / "README.md").read_text() + "".join(
        p.read_text() for p in (ROOT / "docs").glob("*.md")
    )
    missing = [
        f"{path} {opt}"
        for path, cmd in walk(cli)
        for param in cmd.params
        if isinstance(param, click.Option)
        for opt in param.opts
        if opt.startswith("--") and opt != "--help" and opt not in docs
    ]
    assert missing == []


def test_verify_help_shows_its_options_and_errors_name_it():
    from click.testing import CliRunner

    runner = CliRunner()
    shown = runner.invoke(cli, ["verify", "--help"]).output
    for needle in ("[REF]", "--base", "--strictness", "--format", "--output", "--all", "override"):
        assert needle in shown
    bad = runner.invoke(cli, ["verify", "--strictness", "nope"], prog_name="wikigate")
    assert bad.exit_code == 2
    assert "Usage: wikigate verify [OPTIONS] [REF]" in bad.output
    assert "verify check" not in bad.output


def test_every_command_is_documented_in_the_readme():
    readme = (ROOT / "README.md").read_text()
    missing = [c for c in commands(cli) if f"`{c}" not in readme]
    assert missing == [], missing


def test_the_codes_table_in_the_docs_is_the_registry():
    from wikigate.codes import CODES, markdown_table

    assert markdown_table() in (ROOT / "docs" / "checks.md").read_text()
    # and every code a check, the engine or the hooks can emit is registered
    sources = "".join(
        p.read_text()
        for folder in ("verifier", "wikigate", "hooks")
        for p in (ROOT / folder).rglob("*.py")
    )
    emitted = set(re.findall(r'finding\(\s*"([a-z]+\.[a-z_]+)"', sources))
    assert emitted and emitted <= set(CODES)


def readme_block(heading: str, lang: str = "sh") -> str:
    """The first ```LANG block after ``heading`` in the README."""
    readme = (ROOT / "README.md").read_text()
    after = readme[readme.index(heading) :]
    start = after.index(f"```{lang}\n") + len(f"```{lang}\n")
    return after[start : after.index("```", start)]


@pytest.mark.slow
def test_the_readme_tour_runs_verbatim(tmp_path):
    """A new user pastes the tour into a shell in an empty folder: every line works."""
    import os
    import subprocess
    import sys

    env = {
        **os.environ,
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]),
    }
    env.pop("WIKIGATE_VERIFIER", None)  # the product's own verifier
    proc = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", readme_block("## A tour")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "committed" in proc.stdout and "PASS: 0 critical, 0 major, 0 minor" in proc.stdout
    main = subprocess.run(
        ["git", "-C", str(tmp_path / "my-wiki"), "show", "main:wiki/plan.md"],
        capture_output=True,
        text=True,
    )
    assert "The committee adopted the plan.[^1]" in main.stdout


def test_a_severity_override_must_name_a_known_code():
    import pytest

    from wikigate.config import parse_config
    from wikigate.errors import ConfigError

    assert parse_config('[verifier.severity]\n"page.orphan" = "minor"\n', "t").verifier.severity
    with pytest.raises(ConfigError, match=r"unknown finding code page\.orfan .*docs/checks\.md"):
        parse_config('[verifier.severity]\n"page.orfan" = "off"\n', "wikigate.toml")


def test_every_action_input_and_output_is_documented_and_reaches_the_program():
    import yaml

    from wikigate.bot.inputs import ENV

    action = yaml.safe_load((ROOT / "action.yml").read_text())
    docs = (ROOT / "docs" / "github.md").read_text()
    [gate] = [s for s in action["runs"]["steps"] if s.get("id") == "gate"]
    passed = {value: var for var, value in gate["env"].items()}
    for name in action["inputs"]:
        assert f"`{name}`" in docs, f"input {name} is not in docs/github.md"
        assert _input(name) in passed, f"input {name} does not reach the program"
    for name, var in ENV.items():  # every input the program reads comes from action.yml
        assert gate["env"].get(var) == _input(name), (name, var)
    for name in action["outputs"]:
        assert f"`{name}`" in docs, f"output {name} is not in docs/github.md"
    assert "not read yet" not in (ROOT / "action.yml").read_text()


def _input(name: str) -> str:
    return "${{ inputs." + name + " }}"


def test_the_workflows_in_docs_github_md_parse_and_use_only_real_inputs():
    import yaml

    action = yaml.safe_load((ROOT / "action.yml").read_text())
    blocks = re.findall(r"```yaml\n(.*?)```", (ROOT / "docs" / "github.md").read_text(), re.S)
    used = []
    for block in blocks:
        workflow = yaml.safe_load(block)
        for job in workflow["jobs"].values():
            assert "permissions" in job, "every job says its permissions"
            for step in job["steps"]:
                if "wikigate@" in step.get("uses", ""):
                    used += list(step.get("with", {}))
    assert used and set(used) <= set(action["inputs"]), set(used) - set(action["inputs"])


def test_every_test_file_is_in_the_tests_readme():
    """tests/README.md says where each module's behaviour is tested: a new test file is
    listed there, and a listed one exists."""
    readme = (TESTS / "README.md").read_text()
    files = {p.name for p in TESTS.glob("test_*.py")}
    listed = set(re.findall(r"`(test_\w+\.py)`", readme))
    assert files - listed == set(), "not in tests/README.md"
    assert listed - files == set(), "in tests/README.md but gone"
