"""Trial 41's refusals of a correct fix to a stale claim (issue 30, item 3): a run
correcting a `[conflict: …]` marker's figure after its source changed, and a run updating
one stale copy of a claim while another page still holds it. A real workspace, the
product's default verifier, runs written and finalized as a writer does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.helpers import git, wikigate
from support.trees import advance_main
from test_stale_fix import changed_wiki, main_file
from test_stale_fix import run_writing as stale_fix_run

from wikigate.verifier.citation import format_tail

PRODUCT = {"WIKIGATE_VERIFIER": ""}
TOWN = "Records of the town. The pier opened in 1894. The hall has a clock.\n"
CHANGED = TOWN.replace("1894", "1895")  # a person's correction of the source
GUIDE = "A guide to the town. The pier opened in 1899.\n"
OLD, NEW = "The pier opened in 1894.", "The pier opened in 1895."


def cite(source: str, text: str, quote: str) -> str:
    at = text.find(quote)
    return format_tail(source, None, quote, at if at >= 0 else None)


def page(title: str, body: str, notes: list[str]) -> str:
    tails = "".join(f"[^{i}]: {n}\n" for i, n in enumerate(notes, 1))
    return f"---\ntitle: {title}\n---\n# {title}\n\n{body}\n\n{tails}"


def index(*pages: str) -> str:
    return "---\ntitle: Index\n---\n# Index\n\n" + "".join(f"- [[{p}]]\n" for p in pages)


def advance(root: Path, files: dict[str, str]) -> str:
    """A commit on main (as a person's commit would land it), checked out."""
    commit = advance_main(root, files)
    git(root, "reset", "-q", "--hard", "main")
    return commit


def run_writing(root: Path, files: dict[str, str]):
    """test_stale_fix's run writing ``files``; main before it tagged ``before``."""
    git(root, "tag", "-f", "before", "main")
    return stale_fix_run(root, files)


def landed(root: Path) -> dict:
    """The report of what the last run landed (main against main before it)."""
    done = wikigate(root, "verify", "main", "--base", "before", "--format", "json", env=PRODUCT)
    return json.loads(done.stdout)


# ------------------------------------------------ 1. a conflict marker's figure corrected


def pier(source: str, year: str) -> str:
    return page(
        "Pier",
        f"The pier opened in {year}.[^1]",
        [cite("raw/town.txt", source, f"The pier opened in {year}.")],
    )


def conflicted(figure: str) -> str:
    """The guide's claim with its marker naming the town's figure."""
    sentence = "The pier opened in 1899"
    marker = f" [conflict: raw/town.txt says {figure}]" if figure else ""
    return page(
        "Guide",
        f"{sentence}{marker}.[^1]",
        [cite("raw/guide.txt", GUIDE, "The pier opened in 1899.")],
    )


@pytest.fixture
def marked(tmp_path: Path) -> Path:
    """main: the pier (town: 1894) and the guide's page (1899, its marker: the town says
    1894), then a person's commit changing the town's figure to 1895."""
    files = {
        "raw/town.txt": TOWN,
        "raw/guide.txt": GUIDE,
        "wiki/pier.md": pier(TOWN, "1894"),
        "wiki/guide.md": conflicted("1894"),
        "wiki/index.md": index("pier", "guide"),
    }
    return changed_wiki(tmp_path / "wiki", files, {"raw/town.txt": CHANGED})


def test_a_run_may_correct_a_conflict_markers_figure(marked):
    """Trial 41 item 3: the gate asked to correct the marker's figure, and the run doing so
    was rejected (critical run.convergence: the cited claim was removed or altered)."""
    # the claim itself altered beside its marker: still an altered claim
    altered = conflicted("1895").replace("in 1899 [", "in 1898 [")
    before = git(marked, "rev-parse", "main").stdout
    _, done = run_writing(marked, {"wiki/pier.md": pier(CHANGED, "1895"), "wiki/guide.md": altered})
    assert done.returncode != 0 and "critical run.convergence" in done.stdout, done.stdout
    assert git(marked, "rev-parse", "main").stdout == before
    # only the marker's figure corrected: the claim is kept
    files = {"wiki/pier.md": pier(CHANGED, "1895"), "wiki/guide.md": conflicted("1895")}
    run, done = run_writing(marked, files)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith(f"committed {run}")
    assert "run.convergence" not in done.stdout
    assert main_file(marked, "wiki/guide.md") == files["wiki/guide.md"]
    checks = [(c["result"], c["reason"], c["now"]) for c in landed(marked)["claim_checks"]]
    assert ("pass", "kept; its [conflict: …] marker changed", "wiki/guide.md#^1") in checks


@pytest.mark.parametrize(
    ("guide", "expected"),
    [
        # the marker's figure wrong: still the consistency check's finding
        (conflicted("1897"), "of wiki/guide.md#^1 gives 1897 for raw/town.txt"),
        # the marker removed: the sources' disagreement is no longer stated on the page
        (conflicted(""), "major claim.source_conflict"),
    ],
    ids=["wrong-figure", "removed"],
)
def test_a_marker_changed_is_the_consistency_checks_not_convergences(marked, guide, expected):
    """The marker is still held to the sources; the claim it sits on is not altered."""
    files = {"wiki/pier.md": pier(CHANGED, "1895"), "wiki/guide.md": guide}
    before = git(marked, "rev-parse", "main").stdout
    _, done = run_writing(marked, files)
    assert done.returncode != 0, done.stdout
    assert expected in done.stdout
    assert "run.convergence" not in done.stdout
    assert git(marked, "rev-parse", "main").stdout == before


# ------------------------------------------------ 2. one stale copy updated, another left


def plain(title: str, sentence: str, quote: str, source: str = TOWN) -> str:
    return page(title, f"{sentence}[^1]", [cite("raw/town.txt", source, quote)])


def both(source: str = TOWN) -> str:
    """A sentence citing the town (1894) and the guide (1899)."""
    return page(
        "Both",
        "The pier opened in 1894 or in 1899.[^1][^2]",
        [
            cite("raw/town.txt", source, OLD),
            cite("raw/guide.txt", GUIDE, "The pier opened in 1899."),
        ],
    )


@pytest.fixture(params=["one-source", "two-sources"])
def copies(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    """main: two pages saying the pier opened in 1894 (the town's figure), and a sentence
    citing the town and the guide; then a person's commit changing the town's figure."""
    files = {
        "raw/town.txt": TOWN,
        "raw/guide.txt": GUIDE,
        "wiki/a.md": plain("A", OLD, OLD),
        "wiki/b.md": plain("B", OLD, OLD) if request.param == "one-source" else both(),
        "wiki/index.md": index("a", "b"),
    }
    return changed_wiki(tmp_path / "wiki", files, {"raw/town.txt": CHANGED})


def says_both(root: Path) -> Path:
    """main: the two-source sentence, then the town's records saying 1895 as well (the
    sentence's quote of the town still in it: not stale)."""
    files = {"raw/town.txt": TOWN, "raw/guide.txt": GUIDE, "wiki/b.md": both()}
    files["wiki/index.md"] = index("a", "b")
    later = TOWN + "Later records: The pier opened in 1895.\n"
    return changed_wiki(root, files, {"raw/town.txt": later})


def test_updating_one_stale_copy_is_not_blocked_by_the_other(copies, tmp_path):
    """Trial 41 item 3: a run updating A's stale claim got major claim.contradiction
    against B's stale copy, hinted "correct the claim that its source does not support";
    where B's sentence cited two sources, the stale one was not even named."""
    # the other side not stale: the contradiction is the writer's to resolve, as before
    other = says_both(tmp_path / "says-both")
    source = main_file(other, "raw/town.txt")
    _, done = run_writing(other, {"wiki/a.md": plain("A", NEW, NEW, source)})
    assert done.returncode != 0, done.stdout
    assert "major claim.contradiction" in done.stdout
    assert "claim.stale_other" not in done.stdout and "update it too" not in done.stdout
    # the other side stale: a note naming it, the update lands
    text = plain("A", NEW, NEW, CHANGED)
    run, done = run_writing(copies, {"wiki/a.md": text})
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith(f"committed {run}")
    assert main_file(copies, "wiki/a.md") == text
    found = [f for f in landed(copies)["findings"] if f["code"] == "claim.stale_other"]
    assert found, done.stdout
    # no open contradiction of the page the run updated (trial 41: it was listed contested)
    assert "contested" not in done.stdout, done.stdout
    for f in found:
        assert f["severity"] == "minor", f
        assert "no longer in it" in f["message"] and "update it too" in f["message"], f
        assert "not this claim's error" in f["message"], f
        assert f["hint"].startswith("update the stale claim wiki/b.md#^1 (wiki/b.md:6) too")


def test_a_stale_claim_is_not_what_its_source_says_for_a_source_conflict(tmp_path):
    """Trial 41b H2: after the town's records changed (1894 to 1895), a page citing the
    guide's 1899 was told the sources disagree, the town saying 1894 (a stale copy), and its
    hint's marker (`says 1894`) landed a false statement; the true marker was refused."""
    files = {"raw/town.txt": TOWN, "raw/guide.txt": GUIDE, "wiki/pier.md": plain("Pier", OLD, OLD)}
    files["wiki/index.md"] = index("pier", "guide")
    root = changed_wiki(tmp_path / "wiki", files, {"raw/town.txt": CHANGED})
    said = "The pier opened in 1899."
    guide = page("Guide", f"{said}[^1]", [cite("raw/guide.txt", GUIDE, said)])
    run, done = run_writing(root, {"wiki/guide.md": guide})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "claim.source_conflict" not in done.stdout and "says 1894" not in done.stdout
    found = [f for f in landed(root)["findings"] if f["code"] == "claim.stale_other"]
    assert [f["other"]["page"] for f in found] == ["wiki/pier.md"], found
    assert "no longer in raw/town.txt" in found[0]["message"]
    assert found[0]["hint"].startswith("update the stale claim wiki/pier.md#^1")
