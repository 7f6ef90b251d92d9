"""A GitHub REST emulator on 127.0.0.1 for the bot's tests, backed by a real bare git
repository acting as ``origin`` (pull requests are its ``refs/pull/<n>/head``).

The real PyGithub client talks to it (``base_url`` pointed here): responses carry the
``url`` fields PyGithub follows and ``Link`` headers for pagination; a refs PATCH really
moves the bare repository's branch, and refuses a non-fast-forward with 422 as GitHub does.
"""

from __future__ import annotations

import json
import re
import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

import pygit2

BOT = "github-actions[bot]"


def _git(bare: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "--git-dir", str(bare), *args], capture_output=True, text=True, check=check
    )


@dataclass
class Pull:
    number: int
    head_ref: str
    base_ref: str = "main"
    state: str = "open"
    draft: bool = False
    labels: list[str] = field(default_factory=list)
    author: str = "author"
    fork: str | None = None  # the head repository's owner/name when it is a fork
    merged_flag: bool = False  # GitHub marked it merged (its head reached the base while open)
    body: str = ""  # the description
    requested_users: list[str] = field(default_factory=list)
    requested_teams: list[str] = field(default_factory=list)


@dataclass
class Refusal:
    method: str
    pattern: str  # a regex searched in the request path
    status: int
    message: str
    times: int | None = None  # refuse this many matching requests, then serve; None: always
    headers: dict[str, str] = field(default_factory=dict)  # e.g. {"Retry-After": "1"}
    errors: list[Any] | None = None  # GitHub's "errors" list in the answer


DIFF_LINE_ERROR = "pull_request_review_thread.line must be part of the diff"
APPROVE_ERROR = "GitHub Actions is not permitted to approve pull requests."
MAX_ANNOTATIONS = 50  # per check-run request
MAX_SUMMARY = 65535  # characters of a check run's output.summary
MAX_DESCRIPTION = 140  # characters of a commit status's description


class GitHubEmulator:
    def __init__(self, bare: Path, repository: str = "octo/wiki", token: str = "") -> None:
        self.bare, self.full_name, self.token = bare, repository, token
        self.pulls: dict[int, Pull] = {}
        self.review_comments: dict[int, dict[str, Any]] = {}
        self.issue_comments: dict[int, dict[str, Any]] = {}
        self.reviews: list[dict[str, Any]] = []
        self.permissions: dict[str, str] = {}
        self.requests: list[tuple[str, str, Any]] = []
        self.refusals: list[Refusal] = []
        self.before_ref_patch: Callable[[], None] | None = None
        # review, check-run and status emulation
        self.users: dict[str, str] = {token: BOT}  # token → login; other tokens: other people
        self.refuse_lines: set[tuple[str, int]] = set()  # lines GitHub will not comment on
        self.refuse_approve = True  # an Actions token may not APPROVE (GitHub's default)
        self.check_runs: dict[int, dict[str, Any]] = {}
        self.statuses: list[dict[str, Any]] = []
        self._ids = 100
        self._lock = threading.Lock()
        self._lock_route = threading.Lock()  # one request's handler at a time
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    @contextmanager
    def running(self) -> Iterator[GitHubEmulator]:
        thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self.server.shutdown()
            self.server.server_close()
            thread.join()

    def refuse(
        self,
        method: str,
        pattern: str,
        status: int,
        message: str,
        *,
        times: int | None = None,
        headers: dict[str, str] | None = None,
        errors: list[Any] | None = None,
    ) -> None:
        """Answer requests matching ``method`` and ``pattern`` with ``status`` (the next
        ``times`` of them, or all), with ``headers`` such as ``Retry-After``."""
        self.refusals.append(
            Refusal(method, pattern, status, message, times, headers or {}, errors)
        )

    def _refusal(self, method: str, path: str) -> Refusal | None:
        with self._lock:
            for r in self.refusals:
                if r.method == method and re.search(r.pattern, path):
                    if r.times is not None:
                        r.times -= 1
                        if r.times <= 0:
                            self.refusals.remove(r)
                    return r
        return None

    def count(self, method: str | None = None, pattern: str = "") -> int:
        """How many requests the emulator received (of ``method``, path matching ``pattern``)."""
        return sum(
            1
            for m, path, _ in self.requests
            if (method is None or m == method) and re.search(pattern, path)
        )

    # ------------------------------------------------------------ git facts

    def sha(self, ref: str) -> str | None:
        """The commit ``ref`` names in the bare repository as it is on disk now (read with
        libgit2: the emulator asks this on most requests, a git process each time cost more
        than the bot's own work)."""
        try:
            return str(pygit2.Repository(str(self.bare)).revparse_single(f"{ref}^{{commit}}").id)
        except (KeyError, ValueError, pygit2.GitError):
            return None

    def is_ancestor(self, old: str, new: str) -> bool:
        """``git merge-base --is-ancestor OLD NEW``."""
        repo = pygit2.Repository(str(self.bare))
        return old == new or repo.descendant_of(pygit2.Oid(hex=new), pygit2.Oid(hex=old))

    def merged(self, pull: Pull) -> bool:
        """GitHub marks an *open* pull request merged when its head reaches its base; a
        closed one stays closed (it must be reopened first)."""
        if pull.merged_flag or pull.state != "open":
            return pull.merged_flag
        self.sync_head(pull)
        head, base = (
            self.sha(f"refs/pull/{pull.number}/head"),
            self.sha(f"refs/heads/{pull.base_ref}"),
        )
        if head is None or base is None:
            return False
        return self.is_ancestor(head, base)

    def sync_head(self, pull: Pull) -> None:
        """``refs/pull/<n>/head`` follows a same-repository branch, as GitHub keeps it
        (a deleted branch leaves it where it was)."""
        if pull.fork is not None:
            return
        branch = self.sha(f"refs/heads/{pull.head_ref}")
        if branch is not None and branch != self.sha(f"refs/pull/{pull.number}/head"):
            _git(self.bare, "update-ref", f"refs/pull/{pull.number}/head", branch)

    def _mark_merged(self, base: str) -> None:
        for pull in self.pulls.values():
            if pull.base_ref == base and pull.state == "open" and self.merged(pull):
                pull.merged_flag, pull.state = True, "closed"

    def diff_lines(self, pull: Pull) -> dict[str, list[tuple[int, int]]]:
        """path → the head-side line ranges of the pull request's diff hunks (merge base to
        head, 3 lines of context: the lines GitHub lets a review comment sit on)."""
        head = self.sha(f"refs/pull/{pull.number}/head")
        base = self.sha(f"refs/heads/{pull.base_ref}")
        if head is None or base is None:
            return {}
        merge_base = _git(self.bare, "merge-base", base, head, check=False).stdout.strip()
        # as GitHub names paths: unquoted, without the tab git adds after one with a space
        diff = _git(
            self.bare,
            "-c",
            "core.quotePath=false",
            "diff",
            "-U3",
            "--no-renames",
            merge_base or base,
            head,
        ).stdout
        out: dict[str, list[tuple[int, int]]] = {}
        path = None
        for line in diff.splitlines():
            if line.startswith("+++ "):
                path = line[6:].rstrip("\t") if line.startswith("+++ b/") else None
                if path is not None:
                    out.setdefault(path, [])
            elif line.startswith("@@") and path is not None:
                m = re.match(r"@@ -\S+ \+(\d+)(?:,(\d+))? @@", line)
                assert m is not None
                start, count = int(m.group(1)), int(m.group(2) or "1")
                if count:
                    out[path].append((start, start + count - 1))
        return out

    def commentable(self, pull: Pull, c: dict[str, Any]) -> bool:
        """Whether GitHub accepts review comment ``c`` on ``pull``: its path changed, and
        for a line comment, ``start_line``..``line`` inside one hunk of the diff."""
        hunks = self.diff_lines(pull).get(c.get("path", ""))
        if hunks is None:
            return False
        if c.get("subject_type") == "file":
            return True
        line = c.get("line")
        start = c.get("start_line") or line
        if not isinstance(line, int) or not isinstance(start, int) or start > line:
            return False
        if any((c["path"], n) in self.refuse_lines for n in range(start, line + 1)):
            return False
        return any(a <= start and line <= b for a, b in hunks)

    # ------------------------------------------------------------ JSON shapes

    def api(self, path: str) -> str:
        return f"{self.url}/repos/{self.full_name}{path}"

    def _user(self, login: str) -> dict[str, Any]:
        return {
            "login": login,
            "id": abs(hash(login)) % 10_000,
            "type": "Bot" if login.endswith("[bot]") else "User",
            "url": f"{self.url}/users/{login}",
        }

    def _repo(self) -> dict[str, Any]:
        owner, name = self.full_name.split("/")
        return {
            "id": 1,
            "name": name,
            "full_name": self.full_name,
            "url": self.api(""),
            "owner": self._user(owner),
            "default_branch": "main",
            "private": False,
        }

    def _pull(self, p: Pull) -> dict[str, Any]:
        self.sync_head(p)
        merged = self.merged(p)
        head_repo = self._repo() if p.fork is None else self._fork(p.fork)
        return {
            "id": 1000 + p.number,
            "number": p.number,
            "url": self.api(f"/pulls/{p.number}"),
            "issue_url": self.api(f"/issues/{p.number}"),
            "state": "closed" if merged else p.state,
            "draft": p.draft,
            "merged": merged,
            "labels": [{"name": n} for n in p.labels],
            "body": p.body,
            "user": self._user(p.author),
            "requested_reviewers": [self._user(u) for u in p.requested_users],
            "head": {
                "ref": p.head_ref,
                "sha": self.sha(f"refs/pull/{p.number}/head"),
                "repo": head_repo,
            },
            "base": {
                "ref": p.base_ref,
                "sha": self.sha(f"refs/heads/{p.base_ref}"),
                "repo": self._repo(),
            },
        }

    def _fork(self, full_name: str) -> dict[str, Any]:
        owner, name = full_name.split("/")
        return {
            "id": 2,
            "name": name,
            "full_name": full_name,
            "url": f"{self.url}/repos/{full_name}",
            "owner": self._user(owner),
            "fork": True,
        }

    def _next_id(self) -> int:
        with self._lock:
            self._ids += 1
            return self._ids

    def _review_comment(
        self, number: int, commit: str, data: dict[str, Any], user: str = BOT
    ) -> dict[str, Any]:
        cid = self._next_id()
        comment = {
            "id": cid,
            "url": self.api(f"/pulls/comments/{cid}"),
            "pull_request_url": self.api(f"/pulls/{number}"),
            "body": data["body"],
            "path": data["path"],
            "line": data.get("line"),
            "side": data.get("side"),
            "start_line": data.get("start_line"),
            "start_side": data.get("start_side"),
            "subject_type": data.get("subject_type", "line"),
            "in_reply_to_id": data.get("in_reply_to"),
            "commit_id": commit,
            "user": self._user(user),
            "number": number,
        }
        self.review_comments[cid] = comment
        return comment

    # ------------------------------------------------------------ routing

    def route(self, method: str, path: str, body: Any, user: str = BOT) -> tuple[int, Any]:
        prefix = f"/repos/{self.full_name}"
        if not path.startswith(prefix):
            return 404, {"message": "Not Found"}
        rest = path[len(prefix) :]
        self._caller = user  # who asks (one request at a time per test; read by handlers)
        for pattern, verb, handler in self._routes() + self._review_routes():
            m = re.fullmatch(pattern, rest)
            if m and verb == method:
                return handler(body, *m.groups())
        return 404, {"message": f"Not Found: {method} {rest}"}

    _caller = BOT

    def _review_routes(self) -> list[tuple[str, str, Callable[..., tuple[int, Any]]]]:
        """Routes of reviews, review comments' replies and edits, check runs and statuses."""
        return [
            (
                r"/pulls/(\d+)/reviews",
                "GET",
                lambda b, n: (200, [r for r in self.reviews if r["number"] == int(n)]),
            ),
            (r"/pulls/comments/(\d+)", "PATCH", self._edit_review_comment),
            (r"/pulls/comments/(\d+)", "GET", self._get_review_comment),
            (r"/check-runs", "POST", self._create_check_run),
            (r"/check-runs/(\d+)", "PATCH", self._update_check_run),
            (r"/check-runs/(\d+)", "GET", lambda b, i: (200, self.check_runs[int(i)])),
            (
                r"/commits/([0-9a-f]{40})/check-runs",
                "GET",
                lambda b, sha: (
                    200,
                    {
                        "total_count": sum(
                            1 for r in self.check_runs.values() if r["head_sha"] == sha
                        ),
                        "check_runs": [r for r in self.check_runs.values() if r["head_sha"] == sha],
                    },
                ),
            ),
            (r"/statuses/([0-9a-f]{40})", "POST", self._create_status),
        ]

    def check_run(self, name: str = "wikigate") -> dict[str, Any]:
        """The one check run called ``name`` (a test's assertion helper)."""
        [run] = [r for r in self.check_runs.values() if r["name"] == name]
        return run

    def _invalid(self, message: str) -> tuple[int, Any]:
        return 422, {
            "message": "Validation Failed",
            "errors": [{"code": "custom", "message": message}],
            "documentation_url": "https://docs.github.com/rest",
        }

    def _create_review_comment(self, body: dict[str, Any], n: str) -> tuple[int, Any]:
        pull = self.pulls[int(n)]
        if body.get("in_reply_to") is not None:
            parent = self.review_comments.get(int(body["in_reply_to"]))
            if parent is None:
                return 404, {"message": "Not Found"}
            reply = {**body, "path": parent["path"], "line": parent["line"]}
            return 201, self._review_comment(int(n), parent["commit_id"], reply, self._caller)
        if not self.commentable(pull, body):
            return 422, {
                "message": "Validation Failed",
                "errors": [
                    {
                        "resource": "PullRequestReviewComment",
                        "code": "custom",
                        "field": "pull_request_review_thread.line",
                        "message": DIFF_LINE_ERROR,
                    }
                ],
            }
        return 201, self._review_comment(int(n), body["commit_id"], body, self._caller)

    def _edit_review_comment(self, body: dict[str, Any], cid: str) -> tuple[int, Any]:
        comment = self.review_comments.get(int(cid))
        if comment is None:
            return 404, {"message": "Not Found"}
        comment["body"] = body["body"]
        return 200, comment

    def _get_review_comment(self, body: Any, cid: str) -> tuple[int, Any]:
        comment = self.review_comments.get(int(cid))
        return (200, comment) if comment is not None else (404, {"message": "Not Found"})

    def _check_output(self, output: dict[str, Any] | None) -> str | None:
        """Why GitHub would refuse a check run's ``output``, or None."""
        if output is None:
            return None
        if not output.get("title") or "summary" not in output:
            return "output needs a title and a summary"
        if len(output["summary"]) > MAX_SUMMARY:
            return f"output.summary is too long (maximum is {MAX_SUMMARY} characters)"
        annotations = output.get("annotations", [])
        if len(annotations) > MAX_ANNOTATIONS:
            return f"only {MAX_ANNOTATIONS} annotations are allowed per request"
        for a in annotations:
            if a.get("annotation_level") not in ("notice", "warning", "failure"):
                return f"annotation_level {a.get('annotation_level')!r} is not allowed"
            if not a.get("path") or not isinstance(a.get("start_line"), int):
                return "an annotation needs a path, start_line and end_line"
        return None

    def _create_check_run(self, body: dict[str, Any]) -> tuple[int, Any]:
        if not body.get("name") or self.sha(body.get("head_sha", "")) is None:
            return self._invalid("name and an existing head_sha are required")
        why = self._check_output(body.get("output"))
        if why:
            return self._invalid(why)
        rid = self._next_id()
        run = {
            "id": rid,
            "url": self.api(f"/check-runs/{rid}"),
            "name": body["name"],
            "head_sha": body["head_sha"],
            "status": body.get("status", "queued"),
            "conclusion": body.get("conclusion"),
            "started_at": body.get("started_at"),
            "completed_at": body.get("completed_at"),
            "output": {"title": None, "summary": None, "annotations_count": 0},
            "annotations": [],  # every annotation sent, in order (not in GitHub's shape)
            "updates": 0,
        }
        self.check_runs[rid] = run
        return 201, self._apply_check(run, body)

    def _update_check_run(self, body: dict[str, Any], rid: str) -> tuple[int, Any]:
        run = self.check_runs.get(int(rid))
        if run is None:
            return 404, {"message": "Not Found"}
        why = self._check_output(body.get("output"))
        if body.get("status") == "completed" and not body.get("conclusion"):
            why = "a completed check run needs a conclusion"
        if why:
            return self._invalid(why)
        run["updates"] += 1
        return 200, self._apply_check(run, body)

    def _apply_check(self, run: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        for key in ("status", "conclusion", "started_at", "completed_at"):
            if key in body:
                run[key] = body[key]
        if "conclusion" in body:
            run["status"] = "completed"
        output = body.get("output")
        if output is not None:
            run["annotations"] += output.get("annotations", [])
            run["output"] = {
                "title": output["title"],
                "summary": output["summary"],
                "text": output.get("text"),
                "annotations_count": len(run["annotations"]),
            }
        return run

    def _create_status(self, body: dict[str, Any], sha: str) -> tuple[int, Any]:
        if body.get("state") not in ("error", "failure", "pending", "success"):
            return self._invalid(f"state {body.get('state')!r} is not allowed")
        if len(body.get("description") or "") > MAX_DESCRIPTION:
            return self._invalid(f"description is too long (maximum is {MAX_DESCRIPTION})")
        status = {
            "id": self._next_id(),
            "url": self.api(f"/statuses/{sha}"),
            "sha": sha,
            "state": body["state"],
            "description": body.get("description"),
            "context": body.get("context", "default"),
            "target_url": body.get("target_url"),
        }
        self.statuses.append(status)
        return 201, status

    def _routes(self) -> list[tuple[str, str, Callable[..., tuple[int, Any]]]]:
        return [
            (r"", "GET", lambda b: (200, self._repo())),
            (r"/pulls/(\d+)", "GET", lambda b, n: (200, self._pull(self.pulls[int(n)]))),
            (r"/pulls/(\d+)", "PATCH", self._edit_pull),
            (
                r"/commits/([0-9a-f]{40})",
                "GET",
                lambda b, sha: (
                    200,
                    {"sha": sha, "url": self.api(f"/commits/{sha}"), "commit": {"message": ""}},
                ),
            ),
            (r"/pulls/(\d+)/reviews", "POST", self._create_review),
            (
                r"/pulls/(\d+)/comments",
                "GET",
                lambda b, n: (
                    200,
                    [c for c in self.review_comments.values() if c["number"] == int(n)],
                ),
            ),
            (r"/pulls/(\d+)/comments", "POST", self._create_review_comment),
            (r"/pulls/comments/(\d+)", "DELETE", self._delete_review_comment),
            (
                r"/issues/(\d+)/comments",
                "GET",
                lambda b, n: (
                    200,
                    [c for c in self.issue_comments.values() if c["number"] == int(n)],
                ),
            ),
            (r"/issues/(\d+)/comments", "POST", self._create_issue_comment),
            (r"/issues/comments/(\d+)", "PATCH", self._edit_issue_comment),
            (r"/issues/(\d+)/labels/(.+)", "DELETE", self._remove_label),
            (r"/issues/(\d+)/labels", "POST", self._add_labels),
            (r"/pulls/(\d+)/requested_reviewers", "POST", self._request_reviewers),
            (
                r"/collaborators/([^/]+)/permission",
                "GET",
                lambda b, u: (
                    200,
                    {"permission": self.permissions.get(u, "none"), "user": self._user(u)},
                ),
            ),
            (r"/git/ref/heads/(.+)", "GET", self._get_ref),
            (r"/git/refs/heads/(.+)", "PATCH", self._patch_ref),
            (r"/git/refs/heads/(.+)", "DELETE", self._delete_ref),
        ]

    def _edit_pull(self, body: dict[str, Any], n: str) -> tuple[int, Any]:
        pull = self.pulls[int(n)]
        if "state" in body:
            gone = pull.fork is None and self.sha(f"refs/heads/{pull.head_ref}") is None
            if body["state"] == "open" and pull.state == "closed" and gone:
                return 422, {"message": "state cannot be changed. The head branch was deleted."}
            pull.state = body["state"]
        return 200, self._pull(pull)

    def _create_review(self, body: dict[str, Any], n: str) -> tuple[int, Any]:
        if body.get("event") not in ("COMMENT", "REQUEST_CHANGES", "APPROVE"):
            return 422, {"message": "Unprocessable Entity: event"}
        if body["event"] == "APPROVE" and self.refuse_approve:
            return 422, {"message": "Unprocessable Entity", "errors": [APPROVE_ERROR]}
        if body["event"] != "APPROVE" and not body.get("body") and not body.get("comments"):
            return 422, {
                "message": "Unprocessable Entity",
                "errors": ["Review body is required for this event"],
            }
        pull = self.pulls[int(n)]
        if not all(self.commentable(pull, c) for c in body.get("comments", [])):
            return 422, {
                "message": "Unprocessable Entity",
                "errors": [
                    "Pull request review thread line must be part of the diff and "
                    "Pull request review thread diff hunk can't be blank"
                ],
            }
        rid = self._next_id()
        review = {
            "id": rid,
            "user": self._user(BOT),
            "body": body.get("body", ""),
            "state": {
                "COMMENT": "COMMENTED",
                "REQUEST_CHANGES": "CHANGES_REQUESTED",
                "APPROVE": "APPROVED",
            }[body["event"]],
            "commit_id": body.get("commit_id"),
            "number": int(n),
            "pull_request_url": self.api(f"/pulls/{n}"),
        }
        self.reviews.append(review)
        for c in body.get("comments", []):
            self._review_comment(int(n), body.get("commit_id", ""), c)
        return 200, review

    def _delete_review_comment(self, body: Any, cid: str) -> tuple[int, Any]:
        if self.review_comments.pop(int(cid), None) is None:
            return 404, {"message": "Not Found"}
        return 204, None

    def _create_issue_comment(self, body: dict[str, Any], n: str) -> tuple[int, Any]:
        cid = self._next_id()
        comment = {
            "id": cid,
            "url": self.api(f"/issues/comments/{cid}"),
            "body": body["body"],
            "user": self._user(BOT),
            "number": int(n),
            "issue_url": self.api(f"/issues/{n}"),
            "created_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        self.issue_comments[cid] = comment
        return 201, comment

    def _edit_issue_comment(self, body: dict[str, Any], cid: str) -> tuple[int, Any]:
        comment = self.issue_comments[int(cid)]
        comment["body"] = body["body"]
        return 200, comment

    def _add_labels(self, body: Any, n: str) -> tuple[int, Any]:
        pull = self.pulls[int(n)]
        names = body.get("labels", []) if isinstance(body, dict) else body
        for name in names:
            if name not in pull.labels:
                pull.labels.append(name)
        return 200, [{"name": x} for x in pull.labels]

    def _request_reviewers(self, body: dict[str, Any], n: str) -> tuple[int, Any]:
        """As GitHub: the author cannot be asked; a user without access is a 422."""
        pull = self.pulls[int(n)]
        users = body.get("reviewers", [])
        if pull.author in users:
            return 422, {
                "message": "Reviews may only be requested from collaborators. One or more of "
                "the users or teams you specified is not a collaborator of the octo/wiki "
                "repository."
            }
        pull.requested_users += [u for u in users if u not in pull.requested_users]
        teams = body.get("team_reviewers", [])
        pull.requested_teams += [t for t in teams if t not in pull.requested_teams]
        return 201, self._pull(pull)

    def _remove_label(self, body: Any, n: str, name: str) -> tuple[int, Any]:
        pull = self.pulls[int(n)]
        if unquote(name) not in pull.labels:
            return 404, {"message": "Label does not exist"}
        pull.labels.remove(unquote(name))
        return 200, [{"name": x} for x in pull.labels]

    def _ref(self, branch: str) -> dict[str, Any]:
        sha = self.sha(f"refs/heads/{branch}")
        return {
            "ref": f"refs/heads/{branch}",
            "url": self.api(f"/git/refs/heads/{branch}"),
            "object": {"sha": sha, "type": "commit", "url": self.api(f"/git/commits/{sha}")},
        }

    def _get_ref(self, body: Any, branch: str) -> tuple[int, Any]:
        if self.sha(f"refs/heads/{branch}") is None:
            return 404, {"message": "Not Found"}
        return 200, self._ref(branch)

    def _patch_ref(self, body: dict[str, Any], branch: str) -> tuple[int, Any]:
        if self.before_ref_patch is not None:
            self.before_ref_patch()
        old, new = self.sha(f"refs/heads/{branch}"), body["sha"]
        if old is None or self.sha(new) is None:
            return 422, {"message": "Reference does not exist"}
        forward = _git(self.bare, "merge-base", "--is-ancestor", old, new, check=False)
        if not body.get("force", False) and forward.returncode != 0:
            return 422, {"message": "Update is not a fast forward"}
        _git(self.bare, "update-ref", f"refs/heads/{branch}", new, old)
        self._mark_merged(branch)
        return 200, self._ref(branch)

    def _delete_ref(self, body: Any, branch: str) -> tuple[int, Any]:
        old = self.sha(f"refs/heads/{branch}")
        if old is None:
            return 422, {"message": "Reference does not exist"}
        _git(self.bare, "update-ref", "-d", f"refs/heads/{branch}", old)
        return 204, None

    # ------------------------------------------------------------ HTTP

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        emu = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

            def _serve(self) -> None:
                url = urlparse(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else None
                emu.requests.append((self.command, url.path, body))
                auth = self.headers.get("Authorization", "")
                token = auth.split(" ", 1)[1] if " " in auth else ""
                if token not in emu.users:
                    return self._send(401, {"message": "Bad credentials"})
                refusal = emu._refusal(self.command, url.path)
                if refusal is not None:
                    answer: dict[str, Any] = {"message": refusal.message}
                    if refusal.errors is not None:
                        answer["errors"] = refusal.errors
                    return self._send(refusal.status, answer, refusal.headers)
                with emu._lock_route:
                    status, data = emu.route(self.command, url.path, body, emu.users[token])
                headers = {}
                if isinstance(data, list):  # pagination, as GitHub does it
                    query = parse_qs(url.query)
                    per_page = int(query.get("per_page", ["30"])[0])
                    page = int(query.get("page", ["1"])[0])
                    start = (page - 1) * per_page
                    if start + per_page < len(data):
                        headers["Link"] = (
                            f'<{emu.url}{url.path}?per_page={per_page}&page={page + 1}>; rel="next"'
                        )
                    data = data[start : start + per_page]
                self._send(status, data, headers)

            def _send(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
                payload = b"" if data is None else json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(payload)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = _serve

        return Handler
