"""One fresh conversation with the model about a batch of one source's claims: the
budget check before every request, the request recorded as an artifact, the tool loop
(read-only tools run on the staged tree, ``record_votes`` forced on the last turn), one
repair turn for a malformed answer, and every way of ending without a valid vote."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from wikigate.config import JudgeSection

from ...staged import StagedTree
from ..protocol import ClaimInput, JudgeArtifacts, PlannedRequest, Vote, VoteKind
from . import prompt, spotlight
from .budget import OUTPUT_PER_CLAIM, Meter, estimate_tokens
from .client import CallFailed, Transport
from .votes import MalformedAnswer, parse, settle

Windows = dict[str, tuple[int, str]]  # claim id → (start, source text) sent with it


@dataclass
class Session:
    """One verification's judging, shared by its conversations: what was spent and
    recorded, and why the judge stopped (no more requests), if it did."""

    cfg: JudgeSection
    staged: StagedTree
    meter: Meter
    transport: Transport | None  # None: a dry run
    dry_run: bool
    artifacts: JudgeArtifacts = field(default_factory=JudgeArtifacts)
    planned: list[PlannedRequest] = field(default_factory=list)
    stopped: str | None = None

    def exchange(
        self, body: dict[str, Any], est_out: int, label: str, ids: list[str], cache_source: bool
    ) -> dict[str, Any] | str:
        """Send one request (``label``: what it is about, for a dry run's plan): the
        response message, or why there is none. The budget is checked first; the request
        and its response are recorded as artifacts; a fatal error stops the session."""
        cfg = self.cfg
        est_in = estimate_tokens(json.dumps(body), cfg.chars_per_token)
        usd = self.meter.estimate_usd(est_in, est_out, cache_source)
        why = self.meter.refusal(est_in, est_out, usd)
        if why is not None:
            self.stopped = why
            return why
        body["max_tokens"] = max(1, min(cfg.max_tokens, self.meter.output_left()))
        self.artifacts.requests.append(json.dumps(body, ensure_ascii=False).encode())
        if self.dry_run:
            self.planned.append(PlannedRequest(label, ids, est_in, usd, cache_source))
            return "dry run: nothing was sent"
        assert self.transport is not None
        self.staged.tick()
        try:
            text = self.transport.send(body)
        except CallFailed as e:
            self.artifacts.responses.append(json.dumps({"error": e.reason}).encode())
            if e.fatal:
                self.stopped = e.reason
            return e.reason
        try:
            msg = json.loads(text)
            if not isinstance(msg, dict):
                raise ValueError("not a JSON object")
        except ValueError:
            self.artifacts.responses.append(json.dumps({"unparsed": text[:100_000]}).encode())
            return "the response is not JSON"
        self.artifacts.responses.append(json.dumps(msg, ensure_ascii=False).encode())
        usage = msg.get("usage")
        self.meter.add(usage if isinstance(usage, dict) else {})
        if msg.get("stop_reason") == "refusal":
            return "the model refused to judge"
        return msg


class Ended(Exception):
    """A conversation ends before a valid answer: these are its votes."""

    def __init__(self, votes: dict[str, Vote]) -> None:
        super().__init__("ended")
        self.votes = votes


class Conversation:
    """One fresh conversation about a batch of one source's claims."""

    def __init__(
        self,
        session: Session,
        body: dict[str, Any],
        batch: list[ClaimInput],
        windows: Windows,
        marks: tuple[str, str],
        cache_source: bool,
    ) -> None:
        self.s = session
        self.cfg = session.cfg
        self.body = body
        self.batch = batch
        self.windows = windows
        self.marks = marks
        self.cache_source = cache_source

    def run(self, source: str) -> dict[str, Vote]:
        try:
            return self._turns(source)
        except Ended as end:
            return end.votes

    def _turns(self, source: str) -> dict[str, Vote]:
        turns, retried = 0, False
        while True:
            msg = self._send(source)
            content = [b for b in msg.get("content") or [] if isinstance(b, dict)]
            uses = [b for b in content if b.get("type") == "tool_use"]
            record = next((u for u in uses if u.get("name") == "record_votes"), None)
            problem: str
            if record is not None:
                try:
                    got = settle(self.batch, parse(record.get("input")), self.windows, self.marks)
                    return {
                        c.claim_id: got.get(c.claim_id)
                        or Vote(c.claim_id, "inconclusive", "the judge gave no vote on this claim")
                        for c in self.batch
                    }
                except MalformedAnswer as e:
                    problem = str(e)
            elif (
                uses
                and all(u.get("name") in prompt.READ_TOOL_NAMES for u in uses)
                and turns < self.cfg.max_tool_turns
            ):
                turns += 1
                last = turns >= self.cfg.max_tool_turns
                self._answer_tools(content, uses, last)
                continue
            else:
                stop = msg.get("stop_reason")
                problem = f"no record_votes call (stop_reason {stop})"
                if uses:
                    problem = "tool calls past the tool-turn limit, no record_votes call"
            if retried:
                return all_votes(
                    self.batch, "inconclusive", f"malformed answer after a retry: {problem}"
                )
            retried = True
            self._repair(content, uses, problem)

    def _send(self, source: str) -> dict[str, Any]:
        """The response message; raises ``Ended`` when the conversation ends here."""
        est_out = min(self.cfg.max_tokens, OUTPUT_PER_CLAIM * len(self.batch) + 100)
        ids = [c.claim_id for c in self.batch]
        got = self.s.exchange(self.body, est_out, source, ids, self.cache_source)
        if isinstance(got, str):
            raise Ended(all_votes(self.batch, "inconclusive", got))
        return got

    def _answer_tools(
        self, content: list[dict[str, Any]], uses: list[dict[str, Any]], last: bool
    ) -> None:
        results: list[dict[str, Any]] = []
        for u in uses:
            out, error = _run_tool(self.s.staged, u)
            name = u.get("name")
            head = f"{name} returned:" if name in prompt.READ_TOOL_NAMES else "the tool returned:"
            text = spotlight.block("tool_result", self.marks[1], head, out)
            results.append(
                {
                    "type": "tool_result",
                    "tool_use_id": u.get("id"),
                    "content": text,
                    "is_error": error,
                }
            )
        if last:
            results.append(
                {"type": "text", "text": "That was your last tool turn: call record_votes now."}
            )
        self.body["messages"] += [
            {"role": "assistant", "content": content},
            {"role": "user", "content": results},
        ]
        if self.cfg.force_tool_choice:
            self.body["tool_choice"] = prompt.forced() if last else {"type": "any"}

    def _repair(
        self, content: list[dict[str, Any]], uses: list[dict[str, Any]], problem: str
    ) -> None:
        """One more turn: say what was wrong, and ask for record_votes alone."""
        note = (
            f"Your answer was not valid: {problem}. Call record_votes now, with exactly one "
            "vote for every claim_id."
        )
        if content:
            replies: list[dict[str, Any]] = [
                {
                    "type": "tool_result",
                    "tool_use_id": u.get("id"),
                    "content": problem if u.get("name") == "record_votes" else "not run",
                    "is_error": True,
                }
                for u in uses
            ]
            self.body["messages"] += [
                {"role": "assistant", "content": content},
                {"role": "user", "content": [*replies, {"type": "text", "text": note}]},
            ]
        if self.cfg.force_tool_choice:
            self.body["tool_choice"] = prompt.forced()


def _run_tool(staged: StagedTree, use: dict[str, Any]) -> tuple[str, bool]:
    args = use.get("input")
    args = args if isinstance(args, dict) else {}
    name = use.get("name")
    try:
        if name == "read":
            return staged.read(
                str(args["path"]), int(args.get("start", 0)), int(args.get("length", 4000))
            ), False
        if name == "grep":
            return staged.grep(str(args["text"]), str(args.get("under", ""))), False
        if name == "follow":
            return staged.follow(str(args["page"]), str(args["target"])), False
        if name == "history":
            return staged.history(str(args["path"])), False
    except (LookupError, TypeError, ValueError) as e:
        return f"error: {e}", True
    return f"error: no tool named {name!r}", True


def all_votes(claims: Sequence[ClaimInput], vote: VoteKind, reason: str) -> dict[str, Vote]:
    return {c.claim_id: Vote(c.claim_id, vote, reason) for c in claims}
