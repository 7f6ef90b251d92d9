"""The world of the bot's tests: a seed repository, a bare ``origin`` with
``refs/pull/<n>/head``, a runner's checkout, the GitHub emulator on 127.0.0.1, and
``wikigate github`` run as a workflow step runs it (a process of its own, forked from a
warm interpreter by support/forked.py; the real PyGithub)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from support.forked import forked
from support.github_emulator import GitHubEmulator, Pull
from support.helpers import git
from support.wiki_runs import QUOTE, SOURCE, cited_page, page_run
from wikigate.runid import now_iso
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
        index = self._on_branch(branch) / "wiki" / "index.md"
        text = index.read_text()
        files = {"wiki/barn.md": page}
        if "[[Barn]]" not in text:
            files["wiki/index.md"] = text + "- [[Barn]]\n"
        return self.push_files(number, files, branch=branch, checked_out=True)

    def push_files(
        self,
        number: int,
        files: dict[str, str],
        *,
        branch: str = "feature",
        message: str | None = None,
        checked_out: bool = False,
    ) -> str:
        """Commit ``files`` on the PR branch (from main, or where origin has it); push it
        as ``refs/pull/<n>/head``; returns the head."""
        if not checked_out:
            self._on_branch(branch)
        for path, text in files.items():
            (self.seed / path).parent.mkdir(parents=True, exist_ok=True)
            (self.seed / path).write_text(text)
        git(self.seed, "add", *files)
        lines = sum(t.count(chr(10)) for t in files.values())
        git(self.seed, "commit", "-q", "-m", message or f"Barn page ({lines} lines)")
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

    def _on_branch(self, branch: str) -> Path:
        git(
            self.seed,
            "checkout",
            "-q",
            "-B",
            branch,
            f"origin/{branch}" if self._has(branch) else "main",
        )
        return self.seed

    def land_on_main(self, files: dict[str, str], message: str) -> str:
        """A maintainer commits ``files`` straight to origin's main (e.g. rules)."""
        git(self.seed, "fetch", "-q", str(self.bare), "+refs/heads/main:refs/remotes/origin/main")
        git(self.seed, "checkout", "-q", "-B", "main", "origin/main")
        for path, text in files.items():
            (self.seed / path).parent.mkdir(parents=True, exist_ok=True)
            (self.seed / path).write_text(text)
        git(self.seed, "add", *files)
        git(self.seed, "commit", "-q", "-m", message)
        git(self.seed, "push", "-q", str(self.bare), "main:refs/heads/main")
        return self.main_sha()

    def review(
        self, number: int, state: str, *, sender: str, body: str = "", commit: str | None = None
    ) -> Result:
        """A ``pull_request_review`` (submitted) of pull request ``number``."""
        pull = self.gh._pull(self.gh.pulls[number])
        payload = {
            "action": "submitted",
            "review": {
                "id": 77,
                "state": state,
                "body": body,
                "user": {"login": sender},
                "commit_id": commit or pull["head"]["sha"],
            },
            "pull_request": pull,
            "sender": {"login": sender},
        }
        return self.step("pull_request_review", payload)

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
        payload = self.pr_event(number, action, sender={"login": sender})
        if label:
            payload["label"] = {"name": label}
        return self.step(event_name, payload)

    def step(
        self,
        event_name: str,
        payload: dict,
        *,
        env: dict[str, str] | None = None,
        unset: tuple[str, ...] = (),
        checkout: Path | None = None,
        args: tuple[str, ...] = (),
        keep_summary: bool = False,
    ) -> Result:
        """``wikigate github ARGS`` for any event payload, with the action's inputs in
        ``env`` (``WIKIGATE_*``) and variables in ``unset`` removed (e.g. the git identity);
        ``keep_summary``: append to the job summary and outputs a step before wrote, as
        later steps of one job do."""
        event = self.tmp / "event.json"
        event.write_text(json.dumps(payload))
        summary, output = self.tmp / "summary.md", self.tmp / "output.txt"
        for f in (summary, output):
            if not keep_summary:
                f.unlink(missing_ok=True)
        environ = {k: v for k, v in os.environ.items() if k != "WIKIGATE_VERIFIER"}
        environ.update(
            GITHUB_EVENT_NAME=event_name,
            GITHUB_EVENT_PATH=str(event),
            GITHUB_REPOSITORY=REPO,
            GITHUB_TOKEN=TOKEN,
            GITHUB_API_URL=self.gh.url,
            GITHUB_STEP_SUMMARY=str(summary),
            GITHUB_OUTPUT=str(output),
            RUNNER_TEMP=str(self.tmp),
            **(env or {}),
        )
        for name in unset:
            environ.pop(name, None)
        proc = forked(["github", *args], environ, cwd=checkout or self.checkout, timeout=120)
        files = "".join(p.read_text() for p in (summary, output) if p.exists())
        notes = git(self.bare, "log", "-p", "refs/notes/wikigate", check=False).stdout
        assert TOKEN not in proc.stdout + proc.stderr + files + notes
        return Result(proc.returncode, proc.stdout + proc.stderr)

    def pr_event(self, number: int, action: str = "synchronize", **extra: object) -> dict:
        """A ``pull_request(_target)`` payload for pull request ``number`` as it is now."""
        return {
            "action": action,
            "number": number,
            "pull_request": self.gh._pull(self.gh.pulls[number]),
            "sender": {"login": "author"},
            **extra,
        }

    def comment(
        self,
        number: int,
        body: str,
        *,
        sender: str,
        created_at: str | None = None,
        **kw: object,
    ) -> Result:
        """An ``issue_comment`` (created) on pull request ``number``, written ``created_at``
        (default: now, after everything the bot reported so far)."""
        payload = {
            "action": "created",
            "issue": {
                "number": number,
                "pull_request": {"url": self.gh.api(f"/pulls/{number}")},
            },
            "comment": {
                "id": 9,
                "body": body,
                "user": {"login": sender},
                "created_at": created_at or now_iso(),
            },
            "sender": {"login": sender},
        }
        return self.step("issue_comment", payload, **kw)  # type: ignore[arg-type]

    def push_fork_pr(self, number: int, page: str, *, fork: str = "stranger/wiki") -> str:
        """A pull request from a fork: its head is only ``refs/pull/<n>/head`` here."""
        head = self.push_pr(number, page, branch=f"fork-{number}")
        git(self.bare, "update-ref", "-d", f"refs/heads/fork-{number}")
        self.gh.pulls[number].fork = fork
        return head

    def advance_main(self, name: str = "note.txt", text: str = "elsewhere\n") -> str:
        """Someone else lands on ``main`` (a file under ``wiki/`` no page links to)."""
        git(self.seed, "fetch", "-q", str(self.bare), "+refs/heads/main:refs/remotes/origin/main")
        git(self.seed, "checkout", "-q", "-B", "other", "origin/main")
        (self.seed / "wiki" / name).write_text(text)
        git(self.seed, "add", "wiki")
        git(self.seed, "commit", "-q", "-m", f"elsewhere: {name}")
        git(self.seed, "push", "-q", str(self.bare), "other:refs/heads/main")
        return self.main_sha()

    def note(self, sha: str) -> dict | None:
        """The verdict note origin holds on ``sha``."""
        shown = git(self.bare, "notes", "--ref", "wikigate", "show", sha, check=False)
        return json.loads(shown.stdout) if shown.returncode == 0 else None

    def branch(self, name: str) -> str | None:
        shown = git(self.bare, "rev-parse", "--verify", "-q", f"refs/heads/{name}", check=False)
        return shown.stdout.strip() or None

    def main_sha(self) -> str:
        return git(self.bare, "rev-parse", "refs/heads/main").stdout.strip()

    def comments(self) -> list[dict]:
        return list(self.gh.review_comments.values())


def make_world(tmp_path: Path) -> Iterator[World]:
    """A world with ``main`` holding a source and a cited page; the emulator serving."""
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
    # "author" opens the pull requests: a collaborator who may push to its branches (a
    # test that needs an outsider sets the pull request's author to "visitor" or "stranger")
    gh.permissions.update(
        {"author": "write", "maintainer": "write", "owner": "admin", "visitor": "read"}
    )
    with gh.running():
        yield World(tmp_path, seed, bare, checkout, gh)


__all__ = [
    "REPO",
    "TOKEN",
    "World",
    "cited_page",
    "fabricated_page",
    "make_world",
    "quote_only_page",
]
