"""The judge's answer, validated: ``record_votes``' input as pydantic models, then each
vote checked against what was sent.  A vote on a claim id that was not asked about is
dropped; two votes on one claim keep the worse; a ``supports``, ``partial`` or
``contradicts`` vote whose evidence is not an exact substring of the (unmarked) quote or
window counts as ``unsupported``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..protocol import ClaimInput, Vote
from .prompt import claim_ids
from .spotlight import clean, unmark

REASON_MAX = 2000
WORSE = {"supports": 0, "partial": 1, "unsupported": 2, "contradicts": 3}


class VoteIn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    claim_id: str = Field(max_length=2000)
    vote: Literal["supports", "partial", "contradicts", "unsupported"]
    reason: str = Field(max_length=20_000)
    evidence: str = Field(max_length=50_000)


class RecordVotes(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    votes: list[VoteIn] = Field(max_length=10_000)


class MalformedAnswer(Exception):
    """The answer is not a valid ``record_votes`` call; the message says why."""


def parse(tool_input: Any) -> RecordVotes:
    try:
        return RecordVotes.model_validate(tool_input)
    except ValidationError as e:
        first = e.errors()[0]
        loc = ".".join(str(x) for x in first["loc"]) or "input"
        raise MalformedAnswer(f"record_votes {loc}: {first['msg']}") from e


def settle(
    claims: Sequence[ClaimInput],
    answer: RecordVotes,
    windows: dict[str, tuple[int, str]],
    marks: Sequence[str],
) -> dict[str, Vote]:
    """The votes on ``claims`` that the answer holds (claims without one are absent)."""
    asked = claim_ids(claims)  # the judge answers by the ids it was shown (c1, c2, ...)
    out: dict[str, Vote] = {}
    for v in answer.votes:
        c = asked.get(v.claim_id)
        if c is None:
            continue
        vote = _checked(c, v, windows[c.claim_id][1], marks)
        held = out.get(c.claim_id)
        if held is None or WORSE[vote.vote] > WORSE[held.vote]:
            out[c.claim_id] = vote
    return out


def _checked(c: ClaimInput, v: VoteIn, window: str, marks: Sequence[str]) -> Vote:
    evidence = v.evidence
    for m in marks:
        evidence = unmark(evidence, m)
    evidence = evidence.strip()
    reason = v.reason[:REASON_MAX]
    if v.vote == "unsupported":
        return Vote(c.claim_id, "unsupported", reason, evidence[:REASON_MAX])
    if not evidence or (evidence not in clean(c.quote) and evidence not in clean(window)):
        return Vote(
            c.claim_id,
            "unsupported",
            f"voted {v.vote}, but its evidence is not in the quote or window: {reason}",
            evidence[:REASON_MAX],
        )
    return Vote(c.claim_id, v.vote, reason, evidence[:REASON_MAX])
