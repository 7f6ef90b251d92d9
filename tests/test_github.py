"""``wikigate github`` end to end: a real bare origin, the GitHub emulator on 127.0.0.1,
the real PyGithub client, and the command run as a user's workflow runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.github_emulator import GitHubEmulator, Pull
from support.helpers import git
from support.wiki_runs import QUOTE, SOURCE, cited_page, page_run

from wikigate.verifier.citation import format_tail
from wikigate.workspace import Workspace

TOKEN = "ghs_S3CRETt0kenNeverPrinted"
REPO = "octo/wiki"


def quote_only_page(name: str) -> str:  # the quote is in the source, but unanchored: revise
    return f"# {name.title()}\n\n{QUOTE}[^1]\n\n[^1]: {format_tail(SOURCE, None, QUOTE, None)}\n"


def fabricated_page(name: str) -> str:  # a quote the source never says: reject
    made_up = "A barn owl can hear a cat under ice."
    return (
        f"# {name.title()}\n\n{made_up}[^1]\n\n[^1]: {format_tail(SOURCE, None, made_up, None)}\n"
    )


@dataclass
class Result:
    code: int
    out: str


@dataclass
class World:
    tmp: Path
    seed: Path
    bare: Path
    checkout: Path
    gh: GitHubEmulator

    def push_pr(self, number: int, page: str, *, branch: str = "feature") -> str:
        """Commit ``wiki/barn.md`` (linked from the index) on the PR branch; push it as
        ``refs/pull/<n>/head``."""
        git(
            self.seed,
            "checkout",
            "-q",
            "-B",
            branch,
            f"origin/{branch}" if self._has(branch) else "main",
        )
        (self.seed / "wiki" / "barn.md").write_text(page)
        index = (self.seed / "wiki" / "index.md").read_text()
        if "[[Barn]]" not in index:
            (self.seed / "wiki" / "index.md").write_text(index + "- [[Barn]]\n")
        git(self.seed, "add", "wiki")
        git(self.seed, "commit", "-q", "-m", f"Barn page ({page.count(chr(10))} lines)")
        git(
            self.seed,
            "push",
            "-q",
            "-f",
            str(self.bare),
            f"{branch}:refs/heads/{branch}",
            f"{branch}:refs/pull/{number}/head",
        )
        git(
            self.seed,
            "fetch",
            "-q",
            str(self.bare),
            f"+refs/heads/{branch}:refs/remotes/origin/{branch}",
        )
        self.gh.pulls.setdefault(number, Pull(number, branch))
        return git(self.seed, "rev-parse", branch).stdout.strip()

    def _has(self, branch: str) -> bool:
        return (
            git(
                self.seed, "rev-parse", "--verify", "-q", f"origin/{branch}", check=False
            ).returncode
            == 0
        )

    def run(
        self,
        number: int,
        action: str = "synchronize",
        *,
        sender: str = "author",
        label: str | None = None,
        event_name: str = "pull_request_target",
    ) -> Result:
        pull = self.gh.pulls[number]
        payload = {
            "action": action,
            "number": number,
            "pull_request": self.gh._pull(pull),
            "sender": {"login": sender},
            **({"label": {"name": label}} if label else {}),
        }
        event = self.tmp / "event.json"
        event.write_text(json.dumps(payload))
        summary, output = self.tmp / "summary.md", self.tmp / "output.txt"
        env = {k: v for k, v in os.environ.items() if k != "WIKIGATE_VERIFIER"}
        env.update(
            GITHUB_EVENT_NAME=event_name,
            GITHUB_EVENT_PATH=str(event),
            GITHUB_REPOSITORY=REPO,
            GITHUB_TOKEN=TOKEN,
            GITHUB_API_URL=self.gh.url,
            GITHUB_STEP_SUMMARY=str(summary),
            GITHUB_OUTPUT=str(output),
            RUNNER_TEMP=str(self.tmp),
        )
        proc = subprocess.run(
            [sys.executable, "-m", "wikigate", "github"],
            cwd=self.checkout,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        files = "".join(p.read_text() for p in (summary, output) if p.exists())
        notes = git(self.bare, "log", "-p", "refs/notes/wikigate", check=False).stdout
        everything = proc.stdout + proc.stderr + files + notes
        assert TOKEN not in everything  # the token never appears in any output
        return Result(proc.returncode, proc.stdout + proc.stderr)

    def main_sha(self) -> str:
        return git(self.bare, "rev-parse", "refs/heads/main").stdout.strip()

    def comments(self) -> list[dict]:
        return list(self.gh.review_comments.values())


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    seed = tmp_path / "seed"
    ws = Workspace.init(seed)
    assert page_run(ws, "owls").status == "committed"  # main: a source and a cited page
    ws.close()
    bare = tmp_path / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(seed), str(bare)], check=True)
    checkout = tmp_path / "checkout"
    subprocess.run(["git", "clone", "-q", str(bare), str(checkout)], check=True)
    git(seed, "remote", "add", "origin", str(bare))
    git(seed, "fetch", "-q", "origin")
    gh = GitHubEmulator(bare, REPO, TOKEN)
    gh.permissions.update({"maintainer": "write", "owner": "admin", "visitor": "read"})
    with gh.running():
        yield World(tmp_path, seed, bare, checkout, gh)


def _definition_line(page: str) -> int:
    return next(i for i, line in enumerate(page.split("\n"), 1) if line.startswith("[^1]:"))


def test_a_fabricated_quote_gets_a_comment_on_its_line_and_the_pr_is_closed(world: World):
    page = fabricated_page("barn")
    world.push_pr(1, page)
    main_before = world.main_sha()
    result = world.run(1, "opened")
    assert result.code == 1, result.out
    [comment] = world.comments()
    assert comment["path"] == "wiki/barn.md"
    assert comment["line"] == _definition_line(page)
    assert "citation.quote_not_found" in comment["body"]
    assert "<!-- wikigate:fp=" in comment["body"]
    assert [r["state"] for r in world.gh.reviews] == ["COMMENTED"]
    assert world.gh.pulls[1].state == "closed"
    assert world.main_sha() == main_before
    [summary] = world.gh.issue_comments.values()
    assert "wikigate: reject" in summary["body"] and "1 critical" in summary["body"]
    assert "verdict=reject" in (world.tmp / "output.txt").read_text()


def test_revise_then_rerun_then_fix_lands_and_cleans_up(world: World):
    world.push_pr(2, quote_only_page("barn"))
    first = world.run(2, "opened")
    assert first.code == 3, first.out
    assert [r["state"] for r in world.gh.reviews] == ["CHANGES_REQUESTED"]
    [comment] = world.comments()
    assert "citation.anchor_missing" in comment["body"]

    again = world.run(2, "synchronize")  # the same head again: nothing new to say
    assert again.code == 3
    assert [c["id"] for c in world.comments()] == [comment["id"]]
    assert len(world.gh.reviews) == 1
    assert len(world.gh.issue_comments) == 1  # the summary, edited in place

    head = world.push_pr(2, cited_page("barn"))  # the fix: anchored
    fixed = world.run(2, "synchronize")
    assert fixed.code == 0, fixed.out
    assert world.comments() == []  # the finding is gone, so is its comment
    assert world.main_sha() == head  # fast-forwarded: the head is on the base
    assert world.gh._pull(world.gh.pulls[2])["merged"] is True
    note = json.loads(git(world.bare, "notes", "--ref", "wikigate", "show", head).stdout)
    assert note["status"] == "committed" and note["verdict"] == "commit"
    assert note["triggered_by"] == "github:pull_request_target"
    [summary] = world.gh.issue_comments.values()
    assert "wikigate: commit" in summary["body"]


def test_override_label_by_a_writer_lands_and_is_recorded(world: World):
    head = world.push_pr(3, fabricated_page("barn"))
    world.gh.pulls[3].labels.append("wikigate:override")
    result = world.run(3, "labeled", sender="maintainer", label="wikigate:override")
    assert result.code == 0, result.out
    assert world.main_sha() == head
    note = json.loads(git(world.bare, "notes", "--ref", "wikigate", "show", head).stdout)
    assert note["verdict"] == "commit_override"
    assert (note["override_actor"], note["override_source"]) == ("maintainer", "github-label")
    # telemetry rebuild on a fresh clone reproduces the pull request's run and override
    clone = world.tmp / "fresh"
    subprocess.run(["git", "clone", "-q", str(world.bare), str(clone)], check=True)
    git(clone, "fetch", "-q", "origin", "refs/notes/wikigate:refs/notes/wikigate")
    ws = Workspace.open(clone)
    try:
        ws.rebuild_telemetry()
        [override] = ws.store.overrides(note["run_id"])
        assert (override["actor"], override["source"]) == ("maintainer", "github-label")
    finally:
        ws.close()


def test_override_label_by_a_reader_is_removed_and_nothing_lands(world: World):
    world.push_pr(4, fabricated_page("barn"))
    world.gh.pulls[4].labels.append("wikigate:override")
    main_before = world.main_sha()
    result = world.run(4, "labeled", sender="visitor", label="wikigate:override")
    assert result.code == 1, result.out
    assert world.main_sha() == main_before
    assert world.gh.pulls[4].labels == []
    assert any("@visitor" in c["body"] for c in world.gh.issue_comments.values())
    assert world.gh.pulls[4].state == "closed"


def test_a_read_only_token_reports_through_workflow_commands(world: World):
    page = fabricated_page("barn")
    world.push_pr(5, page)
    world.gh.refuse("POST", r"/pulls/\d+/reviews$", 403, "Resource not accessible by integration")
    result = world.run(5, "opened", event_name="pull_request")
    assert result.code == 1, result.out
    line = _definition_line(page)
    assert (
        f"::error file=wiki/barn.md,line={line},title=wikigate citation.quote_not_found::"
        in result.out
    )
    assert world.comments() == []


def test_main_moved_while_landing_says_so(world: World):
    head = world.push_pr(6, cited_page("barn"))

    def someone_lands_first() -> None:  # main moves between the bot's check and its PATCH
        git(world.seed, "checkout", "-q", "-B", "other", "main")
        (world.seed / "wiki" / "note.txt").write_text("x\n")
        git(world.seed, "add", "wiki")
        git(world.seed, "commit", "-q", "-m", "elsewhere")
        git(world.seed, "push", "-q", str(world.bare), "other:refs/heads/main")
        world.gh.before_ref_patch = None

    world.gh.before_ref_patch = someone_lands_first
    result = world.run(6, "opened")
    assert result.code == 3, result.out
    assert "main moved" in result.out
    assert git(world.bare, "notes", "--ref", "wikigate", "show", head, check=False).returncode != 0


def test_other_events_are_nothing_to_do(world: World):
    world.push_pr(7, cited_page("barn"))
    result = world.run(7, "opened", event_name="issues")
    assert result.code == 0 and "nothing to do" in result.out
    assert world.gh.requests == []
