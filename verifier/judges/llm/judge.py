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
from typing import TYPE_CHECKING

import pygit2

from wikigate.config import JudgeSection
from wikigate.models import Budget

from ...sources import SourceError
from ...staged import StagedTree
from ..protocol import (
    Assessment,
    ChangeInput,
    ClaimInput,
    Judgment,
    PairInput,
    PairVotes,
    Vote,
)
from . import prompt, spotlight
from .budget import Meter, caps_for, estimate_tokens
from .client import Transport
from .conversation import Conversation, Session, Windows, all_votes

if TYPE_CHECKING:
    from ...cache import Cache

DEFINITE = ("supports", "partial", "contradicts", "unsupported")
SUSPECT = ("partial", "unsupported")


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
        self.session: Session | None = None  # this verification's: judge, then assess

    def _session(self, staged: StagedTree) -> Session:
        if self.session is None:
            self.session = Session(
                self.cfg, staged, Meter(self.caps, self.prices), self.transport, self.dry_run
            )
        return self.session

    def assess(self, change: ChangeInput, staged: StagedTree) -> Assessment:
        """The change against its direction and the rubric (llm/direction.py), within the
        same budget as the claims, its request and response among the same artifacts."""
        from .direction import assess

        return assess(self._session(staged), change, spotlight.secret(Path(self.repo.path)))

    def compare_pairs(
        self, pairs: Sequence[PairInput], staged: StagedTree, max_tokens: int
    ) -> PairVotes:
        """Pairs of the wiki's claims, each voted consistent | contradicts | unrelated
        (llm/pairs.py), within the same budget as the claims, its requests among the same
        artifacts."""
        from .pairs import compare

        session = self._session(staged)
        return compare(session, pairs, spotlight.secret(Path(self.repo.path)), max_tokens)

    def judge(self, claims: Sequence[ClaimInput], staged: StagedTree) -> Judgment:
        session = self._session(staged)
        judging = _Judging(self, session, spotlight.secret(Path(self.repo.path)))
        votes = judging.judgeall_votes(list(claims), factor=1.0)
        if self.strictness == "PARANOID":
            votes = judging.rejudge(list(claims), votes)
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


class _Judging:
    """One verification's claims: the judgment cache, the grouping per source, the
    batches, and PARANOID's second look; each request a Conversation in ``session``."""

    def __init__(self, judge: AnthropicJudge, session: Session, key: bytes) -> None:
        self.j = judge
        self.cfg = judge.cfg
        self.session = session
        self.staged = session.staged
        self.key = key

    # ------------------------------------------------------------ claims

    def judgeall_votes(self, claims: list[ClaimInput], factor: float) -> dict[str, Vote]:
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
                votes.update(all_votes(group, "inconclusive", f"{source} cannot be read: {e}"))
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
        second = self.judgeall_votes(suspects, factor=self.cfg.paranoid_window_factor)
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
        if self.session.stopped is not None:
            return all_votes(batch, "inconclusive", self.session.stopped)
        ids = [c.claim_id for c in batch]
        claims_mark = spotlight.marker(self.key, "claims:" + "\n".join(ids))
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
        return Conversation(
            self.session, body, batch, windows, (block.mark, claims_mark), cache_source
        ).run(block.path)
