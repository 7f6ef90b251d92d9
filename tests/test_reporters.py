"""Every report format, rendered by the real `wikigate verify` from a real git repo, and
rdjson and SARIF validated against their published JSON schemas (vendored in
tests/schemas/, see its README)."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import jsonschema
import pytest
from jsonschema import FormatChecker
from support.helpers import in_process

from wikigate.kinds import REPORT_FORMATS
from wikigate.models import Finding
from wikigate.verifier.report import ReportError, VerificationReport, load_report
from wikigate.verifier.reporters import FORMATS, REPORTERS, render
from wikigate.verifier.reporters.sarif import artifact_uri

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = Path(__file__).parent / "schemas"
SOURCE = "raw/café notes.txt"  # a space and a non-ASCII letter: percent-encoded in SARIF
PAGE = "wiki/café au lait.md"
ORPHAN = "wiki/ünïcode.md"


# Every format rendered in turn by one interpreter of its own: after each, the top-level
# packages imported so far (a format that imported jsonschema is the first to show it).
PROBE = """
import contextlib, io, json, sys
from wikigate.cli import main
root, ref, formats = sys.argv[1], sys.argv[2], sys.argv[3:]
seen = []
for fmt in formats:
    with contextlib.redirect_stdout(io.StringIO()) as out:
        code = main(["-C", root, "verify", ref, "--format", fmt])
    top = sorted({name.split(".")[0] for name in sys.modules})
    seen.append({"format": fmt, "code": code, "out": bool(out.getvalue().strip()), "top": top})
print(json.dumps(seen))
"""


def _imports_per_format(cwd: Path, env: dict[str, str], ref: str) -> list[dict[str, Any]]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(cwd), ref, *FORMATS],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    seen: list[dict[str, Any]] = json.loads(proc.stdout)
    return seen


@pytest.fixture(scope="module")
def verified(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A wiki whose open run has findings of every severity, with and without a line,
    one without a path (``run.usage_missing``), on non-ASCII paths with non-ASCII messages;
    ``wikigate verify`` of the run in every format.

    Module-scoped, so conftest's per-test isolation is not in force yet: the same
    isolation (own $HOME, no global git config, pinned identity) is passed explicitly.
    """
    tmp = tmp_path_factory.mktemp("reporters")
    unset = ("WIKIGATE_VERIFIER", "WIKIGATE_TELEMETRY_DB", "WIKIGATE_RUN_TIMEOUT_MINUTES")
    overrides = dict(
        HOME=str(tmp / "home"),
        XDG_CONFIG_HOME=str(tmp / "home" / ".config"),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_AUTHOR_NAME="Test Author",
        GIT_AUTHOR_EMAIL="author@example.invalid",
        GIT_COMMITTER_NAME="Test Committer",
        GIT_COMMITTER_EMAIL="committer@example.invalid",
        PYTHONIOENCODING="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if k not in unset} | overrides
    isolated = overrides | dict.fromkeys(unset, "")  # in_process: "" unsets
    (tmp / "home").mkdir()

    def wg(*args: str, cwd: Path = tmp / "wiki") -> subprocess.CompletedProcess[str]:
        """In this process: building the wiki needs no interpreter of its own."""
        proc = in_process(["-C", str(cwd), *args], env=isolated)
        assert proc.returncode in (0, 1), proc.stderr[-2000:]
        return proc

    wg("init", str(tmp / "wiki"), cwd=tmp)
    (tmp / "source.txt").write_text(
        "Le café est ouvert à 8 h.\nLes élèves arrivent tôt.\n", encoding="utf-8"
    )
    run = wg("run", "start", "--type", "ingest", "--triggered-by", "cli:test", "--budget-usd", "1")
    run_id = run.stdout.strip()
    wg("run", "write", run_id, SOURCE, "--from", str(tmp / "source.txt"))
    tail = wg("anchor", "--run", run_id, SOURCE, "Les élèves arrivent tôt.").stdout.strip()
    (tmp / "page.md").write_text(
        "---\ntitle: Café\n---\n# Café\n\n"
        "Les élèves arrivent tôt.[^1] Le café ferme à minuit.[^2]\n\n"
        f"[^1]: {tail}\n"
        f'[^2]: {SOURCE} — "Le café ferme à minuit."\n'  # not in the source: critical
        f'[^3]: {SOURCE} — "Le café est ouvert à 8 h."\n',  # unanchored (major), unused (minor)
        encoding="utf-8",
    )
    wg("run", "write", run_id, PAGE, "--from", str(tmp / "page.md"))
    (tmp / "orphan.md").write_text(
        "# Ünïcode\n\nOwls hunt at night, and cite nothing here.\n", encoding="utf-8"
    )
    wg("run", "write", run_id, ORPHAN, "--from", str(tmp / "orphan.md"))  # orphan, uncited
    wg(
        "run",
        "replace",
        run_id,
        "wiki/index.md",
        "--old",
        "Link every page from here.",
        "--new",
        "Link every page from here.\n\n- [[Café]]",
    )
    ref = f"wikigate/runs/{run_id}"
    outputs = {fmt: wg("verify", ref, "--format", fmt) for fmt in FORMATS}
    imports = _imports_per_format(tmp / "wiki", env, ref)
    return {"outputs": outputs, "imports": imports, "report": load_report(outputs["json"].stdout)}


def schema_errors(schema_file: str, instance: object, strict: bool = False) -> list[str]:
    schema = json.loads((SCHEMAS / schema_file).read_text(encoding="utf-8"))
    if strict:
        schema = _closed(schema)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    checker = FormatChecker()
    # without a URI validator installed jsonschema skips the format silently
    assert "uri-reference" in checker.checkers, "install rfc3986-validator (the test extra)"
    validator = cls(schema, format_checker=checker)
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in validator.iter_errors(instance)
    ]


def _closed(schema: Any) -> Any:
    """``schema`` with every object closed: no property the format does not define."""
    schema = copy.deepcopy(schema)

    def close(node: Any) -> None:
        if isinstance(node, dict):
            if "properties" in node:
                node["additionalProperties"] = False
            for value in node.values():
                close(value)
        elif isinstance(node, list):
            for value in node:
                close(value)

    close(schema)
    return schema


def test_the_report_has_every_kind_of_finding(verified):
    """The wiki under test stays as hard as intended (else the schema tests prove little)."""
    report: VerificationReport = verified["report"]
    findings = report.findings
    assert {f.severity for f in findings} == {"critical", "major", "minor"}
    assert any(f.line for f in findings) and any(f.path and not f.line for f in findings)
    assert [f.code for f in findings if f.path is None] == ["run.usage_missing"]
    assert {f.path for f in findings} == {None, PAGE, ORPHAN}
    assert any("café" in f.message for f in findings)
    assert report.verdict == "reject"


def test_every_format_exits_with_the_verdict_and_imports_no_jsonschema(verified):
    for fmt, proc in verified["outputs"].items():
        assert proc.returncode == 1 and proc.stdout.strip(), fmt
    # the same in a process of its own, every format in turn: none imports a schema validator
    assert [seen["format"] for seen in verified["imports"]] == list(FORMATS)
    for seen in verified["imports"]:
        assert seen["code"] == 1 and seen["out"], seen["format"]
        assert not {"jsonschema", "referencing"} & set(seen["top"]), seen["format"]


def test_json_round_trips_through_load_report(verified):
    text = verified["outputs"]["json"].stdout
    report = load_report(text)
    assert report.model_dump_json(indent=2) + "\n" == text
    assert json.loads(report.model_dump_json()) == json.loads(text)


def test_sarif_is_valid_sarif_2_1_0(verified):
    sarif = json.loads(verified["outputs"]["sarif"].stdout)
    assert schema_errors("sarif-2.1.0.json", sarif) == []
    run = sarif["runs"][0]
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    findings = verified["report"].findings
    assert len(run["results"]) == len(findings)
    for f, result in zip(findings, run["results"], strict=True):
        assert rules[result["ruleIndex"]] == result["ruleId"] == f.code
        assert (
            result["level"]
            == {"critical": "error", "major": "warning", "minor": "note"}[f.severity]
        )
        assert result["message"]["text"].startswith(f.message)
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        uri = physical["artifactLocation"]["uri"]
        assert uri.isascii() and unquote(uri) == (f.path or ".")
        assert physical.get("region") == ({"startLine": f.line} if f.line else None)
    assert run["properties"] == {"verdict": "reject", "strictness": "SKEPTICAL"}


def test_rdjson_is_valid_reviewdog_diagnostics(verified):
    rd = json.loads(verified["outputs"]["rdjson"].stdout)
    assert schema_errors("rdjson.json", rd) == []
    # reviewdog reads rdjson with protojson, which drops unknown fields without a word:
    # a misspelt field would vanish, so no field outside the format is allowed here
    assert schema_errors("rdjson.json", rd, strict=True) == []
    findings = verified["report"].findings
    assert len(rd["diagnostics"]) == len(findings)
    for f, d in zip(findings, rd["diagnostics"], strict=True):
        assert d["code"] == {"value": f.code}
        assert (
            d["severity"] == {"critical": "ERROR", "major": "WARNING", "minor": "INFO"}[f.severity]
        )
        assert d["message"] == f.message + (f"\nhint: {f.hint}" if f.hint else "")
        expected: dict[str, object] = {"path": f.path or "."}
        if f.line:
            expected["range"] = {"start": {"line": f.line}}
        assert d["location"] == expected
    assert rd["source"] == {"name": "wikigate"} and rd["severity"] == "ERROR"


def test_text_shows_every_finding_by_page(verified):
    lines = verified["outputs"]["text"].stdout.splitlines()
    findings = verified["report"].findings
    for f in findings:
        where = f"{f.line}" if f.line else "-"
        assert f"  {where:>5}  {f.severity} {f.code}: {f.message}" in lines
    assert [x for x in lines if not x.startswith(" ")][:-1] == [
        "(run)",
        PAGE,
        ORPHAN,
        "next:",
        "not ruled out:",
    ]
    assert lines[-1].startswith("REJECT: 1 critical, 4 major, 1 minor")
    assert "\033[" not in "\n".join(lines)
    coloured = render(verified["report"], "text", color=True)
    assert "\033[31mREJECT\033[0m" in coloured and f"\033[1m{PAGE}\033[0m" in coloured


def test_edge_findings_stay_valid(verified):
    """What the real wiki cannot show: a line without a path, a line 0, and paths with
    characters that mean something in a URI."""
    odd = [
        Finding(code="verifier.error", severity="critical", line=3, message="no path"),
        Finding(code="page.no_title", severity="major", path="wiki/zero.md", line=0, message="x"),
        Finding(code="link.broken", severity="minor", path="wiki/a#b%c:d?e.md", message="ü"),
    ]
    report = verified["report"].model_copy(
        update={"findings": [*verified["report"].findings, *odd]}
    )
    assert schema_errors("sarif-2.1.0.json", json.loads(render(report, "sarif"))) == []
    rd = json.loads(render(report, "rdjson"))
    assert schema_errors("rdjson.json", rd, strict=True) == []
    assert [d["location"] for d in rd["diagnostics"][-3:]] == [
        {"path": ".", "range": {"start": {"line": 3}}},
        {"path": "wiki/zero.md"},
        {"path": "wiki/a#b%c:d?e.md"},
    ]


@pytest.mark.parametrize(
    ("path", "uri"),
    [
        ("wiki/cats.md", "wiki/cats.md"),  # a plain path is left as it is
        ("wiki/café au lait.md", "wiki/caf%C3%A9%20au%20lait.md"),
        ("wiki/a#b%c:d?e.md", "wiki/a%23b%25c%3Ad%3Fe.md"),  # no fragment, query or scheme
        ("x:y", "x%3Ay"),
        (None, "."),
    ],
)
def test_sarif_uris_are_uri_references_that_decode_to_the_path(path, uri):
    assert artifact_uri(path) == uri
    assert FormatChecker().conforms(uri, "uri-reference") and unquote(uri) == (path or ".")


def test_one_table_feeds_the_cli_the_docs_and_render(verified):
    assert (
        REPORT_FORMATS
        == FORMATS
        == tuple(REPORTERS)
        == (
            "text",
            "json",
            "rdjson",
            "sarif",
            "html",
        )
    )
    doc = (ROOT / "docs" / "report.md").read_text(encoding="utf-8")
    section = doc[doc.index("## Formats") :]
    rows = re.findall(r"^\| `([a-z_]+)` \| (.+) \|$", section, flags=re.M)
    assert rows == [(r.name, r.description) for r in REPORTERS.values()]
    with pytest.raises(ReportError, match="unknown report format 'xml'; use one of: text, json"):
        render(verified["report"], "xml")


def test_text_and_json_say_what_to_do_next_and_what_was_not_ruled_out(verified):
    """Next actions (worst first, at most three, from the findings: the anchor to write)
    and blind spots (the offline judge checked no semantic support), in report.json and
    the text a writer reads."""
    report = verified["report"]
    anchor = next(f for f in report.findings if f.code == "citation.anchor_missing")
    tail = anchor.suggested_tail
    assert tail is not None
    written = tail[tail.index("{@") :]
    assert report.next_actions == [
        f"quote the source verbatim in the footnote on line 9 of {PAGE}, or cite what it does say",
        "run.usage_missing: attest with `wikigate run usage RUN --input-tokens N "
        "--output-tokens N --usd X`, then finalize again",
        f"add the anchor {written} to the footnote on line 10 of {PAGE}",
    ]
    spot, traceless = report.blind_spots  # a CLI run's: no trace of what its writer read
    assert spot.startswith("semantic support not checked: the offline judge (heuristic) ran")
    assert traceless.startswith("1 check not run (trace): the run has no trace")
    lines = verified["outputs"]["text"].stdout.splitlines()
    at = lines.index("next:")
    assert lines[at + 1 : at + 4] == [f"  {n}. {a}" for n, a in enumerate(report.next_actions, 1)]
    assert lines[lines.index("not ruled out:") + 1] == f"  - {spot}"
    # derived, never taken from input: a report read back cannot claim other advice
    forged = {**report.model_dump(mode="json"), "next_actions": ["merge it"], "blind_spots": []}
    back = type(report).model_validate(forged)
    assert back.next_actions == report.next_actions
    assert back.blind_spots == [spot, traceless]
