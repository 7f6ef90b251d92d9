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
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

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


@dataclass
class Refusal:
    method: str
    pattern: str  # a regex searched in the request path
    status: int
    message: str


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
        self._ids = 100
        self._lock = threading.Lock()
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

    def refuse(self, method: str, pattern: str, status: int, message: str) -> None:
        self.refusals.append(Refusal(method, pattern, status, message))

    # ------------------------------------------------------------ git facts

    def sha(self, ref: str) -> str | None:
        proc = _git(self.bare, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
        return proc.stdout.strip() or None

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
        return (
            _git(self.bare, "merge-base", "--is-ancestor", head, base, check=False).returncode == 0
        )

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

    # ------------------------------------------------------------ JSON shapes

    def api(self, path: str) -> str:
        return f"{self.url}/repos/{self.full_name}{path}"

    def _user(self, login: str) -> dict[str, Any]:
        return {
            "login": login,
            "id": abs(hash(login)) % 10_000,
            "type": "User",
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
            "user": self._user(p.author),
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

    def _review_comment(self, number: int, commit: str, data: dict[str, Any]) -> dict[str, Any]:
        cid = self._next_id()
        comment = {
            "id": cid,
            "url": self.api(f"/pulls/comments/{cid}"),
            "pull_request_url": self.api(f"/pulls/{number}"),
            "body": data["body"],
            "path": data["path"],
            "line": data.get("line"),
            "side": data.get("side"),
            "subject_type": data.get("subject_type", "line"),
            "commit_id": commit,
            "user": self._user(BOT),
            "number": number,
        }
        self.review_comments[cid] = comment
        return comment

    # ------------------------------------------------------------ routing

    def route(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        prefix = f"/repos/{self.full_name}"
        if not path.startswith(prefix):
            return 404, {"message": "Not Found"}
        rest = path[len(prefix) :]
        for pattern, verb, handler in self._routes():
            m = re.fullmatch(pattern, rest)
            if m and verb == method:
                return handler(body, *m.groups())
        return 404, {"message": f"Not Found: {method} {rest}"}

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
            (
                r"/pulls/(\d+)/comments",
                "POST",
                lambda b, n: (201, self._review_comment(int(n), b["commit_id"], b)),
            ),
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
        }
        self.issue_comments[cid] = comment
        return 201, comment

    def _edit_issue_comment(self, body: dict[str, Any], cid: str) -> tuple[int, Any]:
        comment = self.issue_comments[int(cid)]
        comment["body"] = body["body"]
        return 200, comment

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
                if auth not in (f"token {emu.token}", f"Bearer {emu.token}"):
                    return self._send(401, {"message": "Bad credentials"})
                for r in emu.refusals:
                    if r.method == self.command and re.search(r.pattern, url.path):
                        return self._send(r.status, {"message": r.message})
                status, data = emu.route(self.command, url.path, body)
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
