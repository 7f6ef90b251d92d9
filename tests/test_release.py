"""A release you can pin (docs/release.md): the sdist and wheel build, the wheel installs
into a fresh venv and runs the demo; every pinned line in the docs names the project's
repository and a release of this version; the project's workflows test on Linux, macOS
and Windows and publish by trusted publishing, every action pinned by commit."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
VERSION = PROJECT["version"]
REPO = PROJECT["urls"]["Repository"].removeprefix("https://github.com/")
WORKFLOWS = ROOT / ".github" / "workflows"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _python_in(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


@pytest.mark.release
def test_the_wheel_built_from_the_sdist_installs_into_a_fresh_venv_and_runs_the_demo(tmp_path):
    """What the release workflow does, here: ``python -m build`` (the sdist, then the wheel
    from it), the wheel installed into a new venv, ``wikigate demo`` from that venv. The
    dependencies are this environment's (no index here): the venv sees them, and only
    them, through a path file; wikigate itself comes from the wheel alone."""
    dist = tmp_path / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    [wheel] = dist.glob("*.whl")
    [sdist] = dist.glob("*.tar.gz")
    assert wheel.name == f"wikigate-{VERSION}-py3-none-any.whl"
    assert sdist.name == f"wikigate-{VERSION}.tar.gz"
    with zipfile.ZipFile(wheel) as whl:
        names = whl.namelist()
        metadata = whl.read(f"wikigate-{VERSION}.dist-info/METADATA").decode()
    assert "wikigate/verifier/engine.py" in names and "wikigate/bot/flow.py" in names
    assert any(n.startswith("wikigate/demo/corpus/") and n.endswith(".txt") for n in names)
    assert not [n for n in names if n.startswith("tests/")]
    assert f"wikigate-{VERSION}.dist-info/licenses/LICENSE" in names  # MIT, with the wheel
    assert "License-Expression: MIT" in metadata
    core = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    assert not [line for line in core if "extra ==" not in line and "pypdf" in line]

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = _python_in(venv)
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (Path(site) / "deps.pth").write_text("\n".join(sorted(ours)) + "\n")  # paths, no hooks
    install = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--no-index",
            "--quiet",
            str(wheel),
        ],
        capture_output=True,
        text=True,
    )
    assert install.returncode == 0, install.stderr
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "WIKIGATE_VERIFIER")}
    where = subprocess.run(
        [str(python), "-c", "import wikigate; print(wikigate.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert where.stdout.strip().startswith(site), where.stdout + where.stderr
    script = venv / ("Scripts/wikigate.exe" if os.name == "nt" else "bin/wikigate")
    demo = subprocess.run(
        [str(script), "demo", str(tmp_path / "demo")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert demo.returncode == 0, demo.stderr
    assert demo.stdout.count("committed 20") == 2 and "rejected 20" in demo.stdout


def _pins() -> list[tuple[str, str, str]]:
    """Every pinned line in README and docs: (file, kind, what it pins)."""
    found = []
    for doc in DOCS:
        text = doc.read_text()
        for kind, pattern in (
            ("uses", r"uses: ([\w.-]+/wikigate)@([\w.]+|<40-hex sha>)"),
            ("git+", r"git\+https://github\.com/([\w.-]+/wikigate)@([\w.]+)"),
            ("rev", r"repo: https://github\.com/([\w.-]+/wikigate)\n\s+rev: ([\w.]+)"),
        ):
            for repo, ref in re.findall(pattern, text):
                found.append((doc.name, kind, f"{repo}@{ref}"))
    return found


def test_every_pinned_line_in_the_docs_names_the_repository_and_a_release():
    pins = _pins()
    kinds = {kind for _, kind, _ in pins}
    assert kinds == {"uses", "git+", "rev"}, pins
    releases = {f"v{VERSION}", f"v{VERSION.split('.')[0]}"}  # the release, its major tag
    for doc, kind, pin in pins:
        repo, _, ref = pin.partition("@")
        assert repo == REPO, (doc, kind, pin)
        assert ref in releases or ref == "<40-hex sha>", (doc, kind, pin)
    readme = (ROOT / "README.md").read_text()
    assert f"uses: {REPO}@v{VERSION}" in readme and f"rev: v{VERSION}" in readme
    assert "OWNER/" not in "".join(d.read_text() for d in DOCS)


def _uses(workflow: dict) -> list[str]:
    return [s["uses"] for job in workflow["jobs"].values() for s in job["steps"] if "uses" in s]


def test_the_projects_workflows_test_every_os_and_publish_by_trusted_publishing():
    tests = yaml.safe_load((WORKFLOWS / "tests.yml").read_text())
    oses = tests["jobs"]["suite"]["strategy"]["matrix"]["os"]
    assert {o.split("-")[0] for o in oses} == {"ubuntu", "macos", "windows"}
    suite = "\n".join(s.get("run", "") for s in tests["jobs"]["suite"]["steps"])
    markers = next(s for s in tests["jobs"]["suite"]["steps"] if "MARKERS" in s.get("env", {}))
    assert "not crash" in markers["env"]["MARKERS"] and "Windows" in markers["env"]["MARKERS"]
    assert "pytest" in suite
    wheel = "\n".join(s.get("run", "") for s in tests["jobs"]["wheel"]["steps"])
    assert "python -m build" in wheel and "wikigate demo" in wheel

    release = yaml.safe_load((WORKFLOWS / "release.yml").read_text())
    assert release[True]["push"]["tags"] == ["v[0-9]+.[0-9]+.[0-9]+"]  # yaml reads `on` as True
    assert release["permissions"] == {}
    publish = release["jobs"]["publish"]
    assert publish["permissions"] == {"id-token": "write"} and publish["environment"] == "pypi"
    assert any(u.startswith("pypa/gh-action-pypi-publish@") for u in _uses(release))
    build = "\n".join(s.get("run", "") for s in release["jobs"]["build"]["steps"])
    assert "python -m build" in build and "wikigate demo" in build
    assert '"v$version" = "$GITHUB_REF_NAME"' in build
    for workflow in (tests, release):
        for uses in _uses(workflow):
            assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", uses), (
                f"not pinned by commit: {uses}"
            )
    for path in WORKFLOWS.glob("*.yml"):
        for line in path.read_text().splitlines():
            if "uses:" in line:
                assert re.search(r"# v\d+\.\d+\.\d+$", line), f"{path.name}: no tag comment: {line}"


def test_the_release_doc_and_the_changelog_agree_with_the_version():
    doc = (ROOT / "docs" / "release.md").read_text()
    for step in ("CHANGELOG", "git tag -a vX.Y.Z", "pypa/gh-action-pypi-publish", "major tag"):
        assert step in doc, step
    assert re.search(rf"^## {re.escape(VERSION)} ", (ROOT / "CHANGELOG.md").read_text(), re.M)
