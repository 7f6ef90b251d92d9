"""``AnthropicJudge``: the hostile LLM judge behind the ``Judge`` protocol.

Per verification: claims already judged (same claim, quote, window, model and prompt
version) come from the judgment cache at no cost; the rest are grouped by source, one
request per source (split past ``max_claims_per_request`` / ``max_claims_chars``), the
source block first and marked ``cache_control`` when its prefix reaches the model's
minimum cacheable length.  Each request is a fresh conversation: the answer comes
through the ``record_votes`` tool, after at most ``max_tool_turns`` turns of read-only
tools; a malformed answer gets one repair turn.  Anything that leaves a claim without a
valid vote makes it ``inconclusive``, with the reason; an exhausted budget or a refused
key stops the judge.  Under PARANOID, claims voted partial or unsupported are judged
once more, fresh, with a wider window: a different vote makes them ``flaky``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pygit2

from wikigate.config import JudgeSection
from wikigate.models import Budget

from ..judge import ClaimInput, Judgment, PlannedRequest, Vote, VoteKind
from ..sources import SourceError
from ..staged import StagedTree
from . import prompt, spotlight
from .budget import OUTPUT_PER_CLAIM, Meter, caps_for, estimate_tokens
from .client import CallFailed, Transport
from .votes import MalformedAnswer, parse, settle

if TYPE_CHECKING:
    from ..cache import Cache

DEFINITE = ("supports", "partial", "contradicts", "unsupported")
SUSPECT = ("partial", "unsupported")
Windows = dict[str, tuple[int, str]]  # claim id → (start, source text) sent with it


class AnthropicJudge:
    name = "anthropic"

    def __init__(
        self,
        cfg: JudgeSection,
        *,
        repo: pygit2.Repository,
        cache: Cache,
        api_key: str | None,
        dry_run: bool = False,
        budget: Budget | None = None,
        strictness: str = "SKEPTICAL",
    ) -> None:
        self.cfg = cfg
        self.prices = cfg.model_info()
        self.repo = repo
        self.cache = cache
        self.dry_run = dry_run
        self.transport = Transport(api_key, cfg) if api_key and not dry_run else None
        self.caps = caps_for(cfg, budget or Budget())
        self.strictness = strictness

    def judge(self, claims: Sequence[ClaimInput], staged: StagedTree) -> Judgment:
        session = _Session(self, staged, spotlight.secret(Path(self.repo.path)))
        votes = session.judge_all(list(claims), factor=1.0)
        if self.strictness == "PARANOID":
            votes = session.rejudge(list(claims), votes)
        judgment = Judgment(
            votes,
            usage=session.meter.usage,
            artifacts=session.artifacts,
            model=self.cfg.model,
            prompt_version=prompt.PROMPT_VERSION,
            dry_run=self.dry_run,
            planned=session.planned,
        )
        judgment.artifacts.votes = judgment.votes_json()
        return judgment


def cache_key(claim: str, quote: str, window: str, model: str) -> str:
    data = json.dumps([claim, quote, window, model, prompt.PROMPT_VERSION])
    return hashlib.sha256(data.encode()).hexdigest()


class _Session:
    """One verification's judging: its meter, artifacts, and whether it stopped."""

    def __init__(self, judge: AnthropicJudge, staged: StagedTree, key: bytes) -> None:
        self.j = judge
        self.cfg = judge.cfg
        self.staged = staged
        self.key = key
        self.meter = Meter(judge.caps, judge.prices)
        self.artifacts = Judgment({}).artifacts
        self.planned: list[PlannedRequest] = []
        self.stopped: str | None = None

    # ------------------------------------------------------------ claims

    def judge_all(self, claims: list[ClaimInput], factor: float) -> dict[str, Vote]:
        votes: dict[str, Vote] = {}
        windows = {c.claim_id: self._window(c, factor) for c in claims}
        keys = {
            c.claim_id: cache_key(c.claim, c.quote, windows[c.claim_id][1], self.cfg.model)
            for c in claims
        }
        known = self.j.cache.judgments(list(keys.values()))
        todo: list[ClaimInput] = []
        for c in claims:
            hit = known.get(keys[c.claim_id])
            if hit is not None:
                votes[c.claim_id] = Vote(c.claim_id, hit[0], hit[1], hit[2], cached=True)  # type: ignore[arg-type]
            else:
                todo.append(c)
        groups: dict[tuple[str, int | None], list[ClaimInput]] = {}
        for c in todo:
            groups.setdefault((c.source, c.pdf_page), []).append(c)
        for (source, page), group in groups.items():
            spans = [
                (c.offset, c.offset + len(c.quote))
                for c in claims
                if (c.source, c.pdf_page) == (source, page)
            ]
            try:
                block = self._source_block(group[0], spans)
            except SourceError as e:
                votes.update(_all(group, "inconclusive", f"{source} cannot be read: {e}"))
                continue
            for batch in self._batches(group, windows):
                got = self._request(block, batch, windows)
                for c in batch:
                    votes[c.claim_id] = got.get(c.claim_id) or Vote(
                        c.claim_id, "inconclusive", "the judge returned no vote for this claim"
                    )
        fresh = {
            keys[cid]: (v.vote, v.reason, v.evidence)
            for cid, v in votes.items()
            if not v.cached and v.vote in DEFINITE and not self.j.dry_run
        }
        self.j.cache.store_judgments(fresh)
        return votes

    def rejudge(self, claims: list[ClaimInput], first: dict[str, Vote]) -> dict[str, Vote]:
        """PARANOID: a second, fresh judgement with a wider window on suspect claims."""
        suspects = [c for c in claims if first[c.claim_id].vote in SUSPECT]
        if not suspects:
            return first
        second = self.judge_all(suspects, factor=self.cfg.paranoid_window_factor)
        out = dict(first)
        for c in suspects:
            a, b = first[c.claim_id], second[c.claim_id]
            if b.vote == "inconclusive":
                out[c.claim_id] = replace(a, reason=f"{a.reason} (no second judgement: {b.reason})")
            elif b.vote != a.vote:
                out[c.claim_id] = Vote(
                    c.claim_id,
                    "flaky",
                    f"first {a.vote}: {a.reason} / then {b.vote}: {b.reason}",
                    b.evidence,
                    cached=a.cached and b.cached,
                    rejudged=(a.vote, b.vote),
                )
            else:
                out[c.claim_id] = replace(a, rejudged=(a.vote, b.vote))
        return out

    def _window(self, c: ClaimInput, factor: float) -> tuple[int, str]:
        if factor == 1.0:
            return c.window_start, c.window
        size = int(self.cfg.window_chars * factor)
        try:
            text = self.staged.tree.source_text(c.source, c.pdf_page)
        except SourceError:
            return c.window_start, c.window
        start = max(0, c.offset - size)
        return start, text[start : c.offset + len(c.quote) + size]

    def _source_block(self, c: ClaimInput, spans: list[tuple[int, int]]) -> prompt.SourceBlock:
        text = self.staged.tree.source_text(c.source, c.pdf_page)
        return prompt.source_block(
            c.source,
            c.pdf_page,
            text,
            spans,
            whole_up_to=self.cfg.source_block_chars,
            around=self.cfg.source_span_chars,
            mark_=spotlight.marker(self.key, f"source:{c.source_blob}:{c.pdf_page}"),
        )

    def _batches(self, group: list[ClaimInput], windows: Windows) -> list[list[ClaimInput]]:
        out: list[list[ClaimInput]] = [[]]
        size = 0
        for c in group:
            mine = len(c.claim) + len(c.paragraph) + len(c.quote) + len(windows[c.claim_id][1])
            full = len(out[-1]) >= self.cfg.max_claims_per_request
            if out[-1] and (full or size + mine > self.cfg.max_claims_chars):
                out.append([])
                size = 0
            out[-1].append(c)
            size += mine
        return out

    # ------------------------------------------------------------ requests

    def _request(
        self, block: prompt.SourceBlock, batch: list[ClaimInput], windows: Windows
    ) -> dict[str, Vote]:
        if self.stopped is not None:
            return _all(batch, "inconclusive", self.stopped)
        ids = [c.claim_id for c in batch]
        claims_mark = spotlight.marker(self.key, "claims:" + "\n".join(ids))
        source_mark = block.text.split('marker="', 1)[1].split('"', 1)[0]
        prefix = prompt.SYSTEM_PROMPT + json.dumps(prompt.tools_for(self.cfg.max_tool_turns))
        cache_source = (
            estimate_tokens(prefix + block.text, self.cfg.chars_per_token)
            >= self.j.prices.min_cache_tokens
        )
        body = prompt.request_body(
            model=self.cfg.model,
            max_tokens=self.cfg.max_tokens,
            source=block,
            cache_source=cache_source,
            claims_text=prompt.claims_block(batch, windows, claims_mark),
            max_tool_turns=self.cfg.max_tool_turns,
            force_tool_choice=self.cfg.force_tool_choice,
            thinking=self.cfg.thinking,
        )
        return _Conversation(
            self, body, batch, windows, (source_mark, claims_mark), cache_source
        ).run(block.path)


class _Ended(Exception):
    """A conversation ends before a valid answer: these are its votes."""

    def __init__(self, votes: dict[str, Vote]) -> None:
        super().__init__("ended")
        self.votes = votes


class _Conversation:
    """One fresh conversation about a batch of one source's claims."""

    def __init__(
        self,
        session: _Session,
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
        except _Ended as end:
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
                return _all(
                    self.batch, "inconclusive", f"malformed answer after a retry: {problem}"
                )
            retried = True
            self._repair(content, uses, problem)

    def _send(self, source: str) -> dict[str, Any]:
        """The response message; raises ``_Ended`` when the conversation ends here."""
        s, body = self.s, self.body
        est_in = estimate_tokens(json.dumps(body), self.cfg.chars_per_token)
        est_out = min(self.cfg.max_tokens, OUTPUT_PER_CLAIM * len(self.batch) + 100)
        usd = s.meter.estimate_usd(est_in, est_out, self.cache_source)
        why = s.meter.refusal(est_in, est_out, usd)
        if why is not None:
            s.stopped = why
            raise _Ended(_all(self.batch, "inconclusive", why))
        body["max_tokens"] = max(1, min(self.cfg.max_tokens, s.meter.output_left()))
        s.artifacts.requests.append(json.dumps(body, ensure_ascii=False).encode())
        ids = [c.claim_id for c in self.batch]
        if s.j.dry_run:
            s.planned.append(PlannedRequest(source, ids, est_in, usd, self.cache_source))
            raise _Ended(_all(self.batch, "inconclusive", "dry run: nothing was sent"))
        assert s.j.transport is not None
        s.staged.tick()
        try:
            text = s.j.transport.send(body)
        except CallFailed as e:
            s.artifacts.responses.append(json.dumps({"error": e.reason}).encode())
            if e.fatal:
                s.stopped = e.reason
            raise _Ended(_all(self.batch, "inconclusive", e.reason)) from e
        try:
            msg = json.loads(text)
            if not isinstance(msg, dict):
                raise ValueError("not a JSON object")
        except ValueError:
            s.artifacts.responses.append(json.dumps({"unparsed": text[:100_000]}).encode())
            raise _Ended(_all(self.batch, "inconclusive", "the response is not JSON")) from None
        s.artifacts.responses.append(json.dumps(msg, ensure_ascii=False).encode())
        usage = msg.get("usage")
        s.meter.add(usage if isinstance(usage, dict) else {})
        if msg.get("stop_reason") == "refusal":
            raise _Ended(_all(self.batch, "inconclusive", "the model refused to judge"))
        return msg

    def _answer_tools(
        self, content: list[dict[str, Any]], uses: list[dict[str, Any]], last: bool
    ) -> None:
        results: list[dict[str, Any]] = []
        for u in uses:
            out, error = _run_tool(self.s.staged, u)
            text = spotlight.block("tool_result", self.marks[1], f"{u.get('name')} returned:", out)
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


def _all(claims: Sequence[ClaimInput], vote: VoteKind, reason: str) -> dict[str, Vote]:
    return {c.claim_id: Vote(c.claim_id, vote, reason) for c in claims}
