"""Does the quote support the claim?  The ``Judge`` protocol, what a judge is given
(``ClaimInput``) and what it returns (``Judgment``: votes, usage, artifacts).

The offline judge (``HeuristicJudge``, its rules in judges/offline.py) and the LLM judge
(judges/llm/) implement it; judges/choose.py picks the one the rules ask for, and
imports the LLM judge only then.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from ..staged import StagedTree

VoteKind = Literal["supports", "partial", "contradicts", "unsupported", "inconclusive", "flaky"]


@dataclass(frozen=True)
class ClaimInput:
    """One claim to judge, with everything a judge may read of it."""

    claim_id: str  # "<page path>#^<label>" (a second use of a label: "…#^<label>@2")
    page: str
    line: int
    label: str
    title: str | None
    claim: str  # the sentence holding the reference
    paragraph: str  # the paragraph (or list item) around it
    source: str  # the cited source's path
    source_blob: str
    pdf_page: int | None
    quote: str  # verbatim in the source
    offset: int  # where it is in the source's text
    window: str  # source text around the quote (it included)
    window_start: int
    hints: tuple[str, ...] = ()  # the heuristic's conflicts, described
    claim_line: int | None = None  # the line holding the reference (review comments go there)
    claim_start_line: int | None = None  # where the claim's sentence starts


@dataclass(frozen=True)
class Vote:
    """A judge's verdict on one claim (the structured vote the report keeps)."""

    claim_id: str
    vote: VoteKind
    reason: str
    evidence: str = ""
    cached: bool = False  # reused from the judgment cache: cost nothing
    rejudged: tuple[str, str] | None = None  # PARANOID: (first vote, fresh second vote)


@dataclass
class JudgeUsage:
    """What a judge spent: tokens as the API counted them, dollars from the price table."""

    requests: int = 0
    input_tokens: int = 0  # uncached input
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    output_tokens: int = 0
    usd: float = 0.0

    @property
    def prompt_tokens(self) -> int:
        """Every input token, cached or not: what the input cap counts."""
        return self.input_tokens + self.cache_write_tokens + self.cache_read_tokens


@dataclass
class JudgeArtifacts:
    """The raw record of one verification's judging, as bytes: the exact request bodies
    sent (JSON, one per line), the raw responses or failures (JSON lines, in the same
    order) and the structured votes (JSON).  Returned beside the report, never inside it;
    the API key is in none of them (it travels in a header the judge never records)."""

    requests: list[bytes] = field(default_factory=list)
    responses: list[bytes] = field(default_factory=list)
    votes: bytes = b"[]"

    def files(self) -> dict[str, bytes]:
        """Name → content: what an attestation stores as git blobs."""
        return {
            "judge/requests.jsonl": b"".join(r + b"\n" for r in self.requests),
            "judge/responses.jsonl": b"".join(r + b"\n" for r in self.responses),
            "judge/votes.json": self.votes,
        }

    @property
    def empty(self) -> bool:
        return not self.requests and not self.responses


@dataclass
class PlannedRequest:
    """A dry run's request: what would be sent, and its estimated size and cost."""

    source: str
    claim_ids: list[str]
    input_tokens: int
    usd: float
    cached_block: bool


@dataclass
class Judgment:
    """What a judge returns for a batch of claims."""

    votes: dict[str, Vote]
    usage: JudgeUsage = field(default_factory=JudgeUsage)
    artifacts: JudgeArtifacts = field(default_factory=JudgeArtifacts)
    model: str | None = None
    prompt_version: str | None = None
    dry_run: bool = False
    planned: list[PlannedRequest] = field(default_factory=list)

    def votes_json(self) -> bytes:
        return json.dumps([asdict(v) for v in self.votes.values()], indent=1).encode()


Effect = Literal["improves", "unchanged", "worsens", "ambiguous"]


@dataclass(frozen=True)
class ChangeInput:
    """A change to assess against what it said it would do (its direction: the writer's
    words) and the maintainers' rubric (the base's ``[rubric]``)."""

    direction: str | None
    goals: tuple[str, ...]
    non_goals: tuple[str, ...]
    diff: str  # the changed pages, as a unified diff (clipped)
    voice: str | None = None  # the base's [presentation] voice, register
    register: str | None = None


@dataclass(frozen=True)
class RubricEffect:
    kind: Literal["goal", "non_goal"]
    item: str
    effect: Effect  # a goal: improves / unchanged / worsens; a non-goal: improves = pursues it
    reason: str


@dataclass(frozen=True)
class PresentationEffect:
    """The changed text against the ``[presentation]`` voice or register: the page that
    departs most (None: none, or not one of the changed pages)."""

    aspect: Literal["voice", "register"]
    fits: bool
    page: str | None
    reason: str


@dataclass
class Assessment:
    """What a judge makes of a change's direction and the rubric, or why nothing."""

    direction: Effect | None = None  # None: no direction was given
    direction_reason: str = ""
    rubric: list[RubricEffect] = field(default_factory=list)
    presentation: list[PresentationEffect] = field(default_factory=list)
    error: str | None = None  # why the change could not be assessed (fails closed)


@dataclass(frozen=True)
class PairInput:
    """Two claims of the wiki about one subject, for a judge to compare: the verifier's own
    id for the pair (p1, p2, …), and each claim's id, sentence and quote."""

    pair_id: str
    first: str
    first_claim: str
    first_quote: str
    second: str
    second_claim: str
    second_quote: str


PairVote = Literal["consistent", "contradicts", "unrelated"]


@dataclass
class PairVotes:
    """What a judge makes of claim pairs: pair id → (vote, reason); the pairs left out past
    ``[consistency] judge_max_tokens``; why some pairs got no vote (fails closed)."""

    votes: dict[str, tuple[PairVote, str]] = field(default_factory=dict)
    unjudged: int = 0
    error: str | None = None


class PairJudge(Protocol):
    """A judge that can compare claims with each other (the LLM judge)."""

    def compare_pairs(
        self, pairs: Sequence[PairInput], staged: StagedTree, max_tokens: int
    ) -> PairVotes: ...


class Judge(Protocol):
    """Vote on claims.  ``staged`` is the run's staged tree, read-only (the LLM judge's
    tools read it); a judge never raises for one claim: a claim it cannot judge is
    ``inconclusive``, with the reason."""

    name: str

    def judge(self, claims: Sequence[ClaimInput], staged: StagedTree) -> Judgment: ...


class Assessor(Protocol):
    """A judge that can also assess a change's direction and the rubric (the LLM judge;
    the offline heuristic cannot, and the report says these were not checked)."""

    def assess(self, change: ChangeInput, staged: StagedTree) -> Assessment: ...


HEURISTIC = "heuristic"  # the offline judge's name
