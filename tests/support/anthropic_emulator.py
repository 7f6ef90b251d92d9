"""An Anthropic Messages API emulator on 127.0.0.1 for the LLM judge's tests.

The real ``anthropic`` client talks to it (``ANTHROPIC_BASE_URL`` pointed here). It
records every request it receives (headers and JSON body), answers ``POST /v1/messages``
with ``tool_use`` blocks shaped like the real API's, and counts ``usage`` the way the API
does, prompt caching included: the prefix up to a block marked ``cache_control`` (tools,
then system, then messages) is written to its cache the first time and read from it
after, when it reaches ``min_cache_tokens``.  Tokens are counted as characters / 4.

What it answers: first the ``script`` (canned replies, in order: an HTTP error with its
headers, or a message), then ``brain(body)`` if set, else a vote per claim of the claims
block: ``votes[ref]`` (``ref`` the claim's ``page#^label``, read from its marked fields;
default ``default_vote``), with the claim's quote as evidence, answered by the opaque
``claim_id`` (c1, c2, ...) the request named it by.
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: dict[str, Any] | None = None  # a message (status 200) or an error's message
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering (a client's timeout fires first)


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    raw: bytes


def tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def parse_claims(body: dict[str, Any]) -> list[dict[str, str]]:
    """The claims of a request's claims block: claim_id and each field's unmarked text."""
    texts = [
        part.get("text", "")
        for part in body["messages"][0]["content"]
        if isinstance(part, dict) and part.get("type") == "text"
    ]
    text = "\n".join(texts)
    m = re.search(r'<claims marker="([^"]+)">', text)
    if m is None:
        return []
    mark = m.group(1)
    inner = text[m.end() : text.index(f'</claims marker="{mark}">')]
    claims: list[dict[str, str]] = []
    field_name: str | None = None
    for line in inner.split("\n"):
        if line.startswith(f"{mark}| "):
            if claims and field_name is not None:
                value = line[len(mark) + 2 :]
                old = claims[-1].get(field_name)
                claims[-1][field_name] = value if old is None else old + "\n" + value
        elif line.startswith("claim_id: "):
            claims.append({"claim_id": line[len("claim_id: ") :]})
            field_name = None
        elif line.endswith(":") and claims:
            field_name = line[:-1].split(" (", 1)[0]
    for c in claims:  # the claim's id in the report, from its (marked) page and footnote
        c["ref"] = f"{c.get('page')}#^{c.get('footnote')}"
    return claims


def tool_use(name: str, payload: dict[str, Any], n: int = 1) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_emu_{n}", "name": name, "input": payload}


def votes_for(claims: list[dict[str, str]], votes: dict[str, str], default: str) -> dict[str, Any]:
    return {
        "votes": [
            {
                "claim_id": c["claim_id"],
                "vote": votes.get(c["ref"], default),
                "reason": "emulated judgement",
                "evidence": c.get("quote", ""),
            }
            for c in claims
        ]
    }


class AnthropicEmulator:
    def __init__(self, min_cache_tokens: int = 1024) -> None:
        self.received: list[Received] = []
        self.script: deque[Reply] = deque()
        self.brain: Callable[[dict[str, Any]], dict[str, Any]] | None = None
        self.votes: dict[str, str] = {}
        self.default_vote = "supports"
        self.min_cache_tokens = min_cache_tokens
        self.cached: set[str] = set()
        self.usages: list[dict[str, int]] = []
        self._lock = threading.Lock()
        self._n = 0
        emulator = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                body = json.loads(raw or b"{}")
                with emulator._lock:
                    emulator.received.append(
                        Received(
                            self.path, {k.lower(): v for k, v in self.headers.items()}, body, raw
                        )
                    )
                    reply = emulator._reply(self.path, body)
                if reply.delay:
                    emulator._released.wait(reply.delay)
                data = json.dumps(reply.body).encode()
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                try:
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up (its timeout)
                    pass

        self._released = threading.Event()  # set on close: delayed answers stop waiting
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self._released.set()
        self.server.shutdown()
        self.server.server_close()

    @property
    def messages(self) -> list[Received]:
        return [r for r in self.received if r.path.startswith("/v1/messages")]

    # ------------------------------------------------------------ answers

    def error(self, status: int, message: str = "emulated error", **headers: str) -> Reply:
        kinds = {429: "rate_limit_error", 529: "overloaded_error", 401: "authentication_error"}
        body = {
            "type": "error",
            "error": {"type": kinds.get(status, "api_error"), "message": message},
        }
        return Reply(status, body, {k.replace("_", "-"): v for k, v in headers.items()})

    def _reply(self, path: str, body: dict[str, Any]) -> Reply:
        if not path.startswith("/v1/messages"):
            return self.error(404, f"no route {path}")
        if self.script:
            reply = self.script.popleft()
            if reply.status != 200 or reply.body is None or reply.delay:
                return reply
            return Reply(
                200,
                self._message(
                    body, reply.body.get("content", []), reply.body.get("stop_reason", "tool_use")
                ),
                reply.headers,
            )
        if self.brain is not None:
            answer = self.brain(body)
            return Reply(
                200, self._message(body, answer["content"], answer.get("stop_reason", "tool_use"))
            )
        claims = parse_claims(body)
        content = [tool_use("record_votes", votes_for(claims, self.votes, self.default_vote))]
        return Reply(200, self._message(body, content, "tool_use"))

    def _message(
        self, body: dict[str, Any], content: list[dict[str, Any]], stop: str
    ) -> dict[str, Any]:
        self._n += 1
        usage = self._usage(body, content)
        self.usages.append(usage)
        return {
            "id": f"msg_emu_{self._n}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "?"),
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": usage,
        }

    def _usage(self, body: dict[str, Any], content: list[dict[str, Any]]) -> dict[str, int]:
        """Input tokens as the API counts them, with prompt caching of the marked prefix."""
        pieces: list[tuple[str, bool]] = []  # (text, cache_control on it)
        for tool in body.get("tools", []):
            pieces.append((json.dumps(tool, sort_keys=True), "cache_control" in tool))
        system = body.get("system", [])
        if isinstance(system, str):
            pieces.append((system, False))
        else:
            for part in system:
                pieces.append((part.get("text", ""), "cache_control" in part))
        for message in body.get("messages", []):
            parts = message["content"]
            if isinstance(parts, str):
                pieces.append((parts, False))
                continue
            for part in parts:
                text = part.get("text") or json.dumps(part, sort_keys=True)
                pieces.append((text, "cache_control" in part))
        total = sum(tokens(t) for t, _ in pieces)
        marked = [i for i, (_, m) in enumerate(pieces) if m]
        write = read = 0
        if marked:
            prefix = pieces[: marked[-1] + 1]
            prefix_tokens = sum(tokens(t) for t, _ in prefix)
            if prefix_tokens >= self.min_cache_tokens:
                key = json.dumps([t for t, _ in prefix])
                if key in self.cached:
                    read = prefix_tokens
                else:
                    self.cached.add(key)
                    write = prefix_tokens
        out = sum(tokens(json.dumps(c)) for c in content)
        return {
            "input_tokens": total - write - read,
            "cache_creation_input_tokens": write,
            "cache_read_input_tokens": read,
            "output_tokens": out,
        }


def serving(monkeypatch: Any, key: str) -> Iterator[AnthropicEmulator]:
    """An emulator the anthropic SDK reaches (its base URL and ``key`` in the environment
    for the test), closed after it: the body of each test file's ``emulator`` fixture."""
    emu = AnthropicEmulator()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", emu.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    yield emu
    emu.close()
