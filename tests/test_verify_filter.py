"""`wikigate verify --filter added|diff_context|file|nofilter` (issue 26), as reviewdog's
filter mode: which findings of a branch verification are reported. The verdict and the
exit code are the whole change's whichever the filter. A real repository, the product's
verifier, the CLI in process."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from support.helpers import git, in_process

from wikigate.workspace import Workspace

PRODUCT = {"WIKIGATE_VERIFIER": ""}  # the product's own verifier, not the tests' plug-in
FILLER = "".join(f"Filler paragraph {k}.\n\n" for k in range(1, 21))
PAGE_A = f"---\ntitle: A\n---\n# A\n\nOwls hunt at night.\n\nOld [[Nowhere]] link.\n\n{FILLER}Near [[Closeby]] link.\n"


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return in_process(["-C", str(cwd), *args], env=PRODUCT)


@pytest.fixture
def change(tmp_path: Path) -> Path:
    """main: pages a (a broken link far from the change, one near it) and c (linked from
    the index); the branch `feature` adds a broken link to a and unlinks c (an orphan in
    a file the change does not touch)."""
    Workspace.init(tmp_path / "w").close()
    root = tmp_path / "w"
    wiki = root / "wiki"
    (wiki / "a.md").write_text(PAGE_A)
    (wiki / "c.md").write_text("---\ntitle: C\n---\n# C\n\nA page.\n")
    index = (wiki / "index.md").read_text()
    (wiki / "index.md").write_text(index + "\n- [[A]]\n- [[C]]\n")
    git(root, "add", "-A")
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "pages")
    git(root, "checkout", "-q", "-b", "feature")
    (wiki / "a.md").write_text(PAGE_A + "\nNew [[Fresh]] link.\n")
    (wiki / "index.md").write_text(index + "\n- [[A]]\n")
    git(root, "commit", "-q", "-am", "a fresh link, c unlinked")
    return root


def shown(root: Path, mode: str) -> tuple[int, set[str], dict]:
    proc = cli(root, "verify", "feature", "--filter", mode, "--format", "json")
    data = json.loads(proc.stdout)
    names = set()
    for f in data["findings"]:
        for name in ("Nowhere", "Closeby", "Fresh"):
            if name in f["message"]:
                names.add(name)
        if f["code"] == "page.orphan":
            names.add("orphan c")
        if f["code"] == "page.uncited":  # no line: on the changed file as a whole
            names.add("uncited a")
    return proc.returncode, names, data


def test_the_filter_chooses_what_is_reported_never_the_verdict(change):
    code, everything, data = shown(change, "nofilter")
    assert len(data["findings"]) == 5, data["findings"]  # the five named, nothing else
    assert everything == {"Nowhere", "Closeby", "Fresh", "orphan c", "uncited a"}
    assert data["filtered"] is None and data["verdict"] == "revise" and code == 3

    expected = {
        "file": {"Nowhere", "Closeby", "Fresh", "uncited a"},
        "diff_context": {"Closeby", "Fresh", "uncited a"},
        "added": {"Fresh", "uncited a"},
    }
    for mode, names in expected.items():
        code, got, data = shown(change, mode)
        assert got == names, mode
        assert (code, data["verdict"]) == (3, "revise"), mode  # the whole change's
        hidden = data["filtered"]["hidden"]
        assert data["filtered"]["mode"] == mode
        assert sum(hidden.values()) == len(everything - names), mode

    text = cli(change, "verify", "feature", "--filter", "added")
    assert text.returncode == 3
    assert "not shown (--filter added): 0 critical, 3 major" in text.stdout
    assert "the verdict counts them" in text.stdout


def test_a_critical_outside_the_filter_still_rejects(change):
    """A display filter never lands a critical: a fabricated citation far from the added
    lines is hidden by --filter added, and the change is still rejected."""
    root = change
    page = (root / "wiki" / "a.md").read_text()
    fabricated = page.replace(
        "Old [[Nowhere]] link.",
        'Old [[Nowhere]] link, said someone.[^1]\n\n[^1]: raw/made-up.txt — "said someone"',
    )
    git(root, "checkout", "-q", "main")
    (root / "wiki" / "a.md").write_text(fabricated.split("\nNew [[Fresh]]")[0])
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-am", "a fabrication on main")
    git(root, "checkout", "-q", "feature")
    git(root, "-c", "core.hooksPath=/dev/null", "rebase", "-q", "main")
    proc = cli(root, "verify", "feature", "--filter", "added", "--format", "json")
    data = json.loads(proc.stdout)
    assert proc.returncode == 1 and data["verdict"] == "reject"
    assert all(f["severity"] != "critical" for f in data["findings"])
    assert data["filtered"]["hidden"]["critical"] >= 1


def test_filter_is_for_a_change_not_the_whole_wiki(change):
    proc = cli(change, "verify", "--all", "--filter", "added")
    assert proc.returncode == 2
    assert "--filter reports the findings of a change" in proc.stderr
