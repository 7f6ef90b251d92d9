"""The gate's one decision: a verdict, the loop it came in and the limit, what needs a
person and what a person said → land | reject | revise | ask a person, with the reason.

Pure: it reads nothing and changes nothing. ``finalize`` (a run in the workspace) and the
GitHub bot (``bot/flow.py``, a pull request) both ask here and then act on the answer;
the exit code of every outcome comes from one table, ``kinds.VERDICT_EXIT``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from .kinds import NEEDS_HUMAN_REVIEW, VERDICT_EXIT

if TYPE_CHECKING:
    from .models import Finding

Action = Literal["land", "reject", "revise", "ask_person"]
# a person's word on the commit decided on: an override (a writer's label or comment,
# `wikigate override`) lands whatever the verdict; a review (approve / reject) decides a
# run that waits for a person, and nothing else
WordKind = Literal["override", "approve", "reject"]

# an action → the verdict its exit code is read under (kinds.VERDICT_EXIT)
_EXIT_AS = {
    "land": "commit",
    "reject": "reject",
    "revise": "revise",
    "ask_person": NEEDS_HUMAN_REVIEW,
}
A_PERSON = "a judgment call for a person"  # why a run waits, when nothing more is known


@dataclass(frozen=True)
class Word:
    """What a person said about the commit decided on (who, why, and how)."""

    kind: WordKind
    actor: str
    reason: str


@dataclass(frozen=True)
class Decision:
    """What to do with the commit decided on. ``verdict``: what the record says
    (``commit``, ``commit_override``, ``commit_approved``, ``reject``, ``reject_reviewed``,
    ``revise``, ``needs_human_review``; None: landed unverified). ``reason``: one line,
    for a rejection, a run waiting for a person, or the word a person gave."""

    action: Action
    verdict: str | None
    reason: str | None = None

    @property
    def exit_code(self) -> int:
        return VERDICT_EXIT[_EXIT_AS[self.action]]


def revise_limit_reason(limit: int, why: str) -> str:
    """The reason a revise at the loop limit is rejected with."""
    return f"revise limit reached ({limit} loops)" + (f": {why}" if why else "")


def no_progress_reason(failures: int, loop: int) -> str:
    """The reason a loop that repeats the last one's failures stops with."""
    return f"no progress: the same {failures} failure{'s' if failures != 1 else ''} as loop {loop}"


@dataclass(frozen=True)
class Repeat:
    """This loop failed on exactly what loop ``loop`` failed on (the same set of failure
    signatures, ``models.signature``), ``failures`` of them; ``then``: what the rules say
    a run that makes no progress does (``[runs] on_no_progress``: reject | ask)."""

    loop: int
    failures: int
    then: Literal["reject", "ask"] = "reject"


def decide(
    verdict: str | None,
    *,
    loop: int,
    limit: int,
    why: str = "",
    needs_person: str | None = None,
    word: Word | None = None,
    repeat: Repeat | None = None,
) -> Decision:
    """Decide on one verification.

    ``verdict``: the verifier's (None: nothing was verified, e.g. ``--no-verify``: it
    lands, unverified). ``loop``/``limit``: a revise in the last loop is a rejection.
    ``why``: the verification's own reason (its worst finding). ``needs_person``: why a
    person must decide even a passing change (e.g. new raw sources from an author who
    may not add them). ``word``: a person's override or review, if one was given.
    ``repeat``: a revise that repeats the last loop's failures stops looping: rejected, or
    waiting for a person, with the reason "no progress".
    """
    if verdict is None:
        return Decision("land", None)
    if verdict == "commit" and needs_person:
        verdict = NEEDS_HUMAN_REVIEW
    reason: str | None = why or None
    if verdict == "revise" and repeat is not None:
        stuck = no_progress_reason(repeat.failures, repeat.loop)
        if repeat.then == "ask":
            verdict, needs_person = NEEDS_HUMAN_REVIEW, stuck
        else:
            verdict, reason = "reject", f"{stuck}: {why}" if why else stuck
    if verdict == "revise" and loop >= limit:
        verdict, reason = "reject", revise_limit_reason(limit, why)
    if word is not None and verdict != "commit":
        if word.kind == "override":
            return Decision("land", "commit_override", word.reason)
        if verdict == NEEDS_HUMAN_REVIEW and word.kind == "approve":
            return Decision("land", "commit_approved", word.reason)
        if verdict == NEEDS_HUMAN_REVIEW and word.kind == "reject":
            return Decision(
                "reject", "reject_reviewed", f"rejected on review by {word.actor}: {word.reason}"
            )
    if verdict == "commit":
        return Decision("land", "commit")
    if verdict == "reject":
        return Decision("reject", "reject", reason)
    if verdict == NEEDS_HUMAN_REVIEW:
        return Decision("ask_person", NEEDS_HUMAN_REVIEW, needs_person or A_PERSON)
    if verdict == "revise":
        return Decision("revise", "revise", reason)
    # an unknown verdict is never a pass
    return Decision("reject", "reject", f"unknown verdict {verdict!r}: failing closed")


MAX_QUESTIONS = 5
_STUCK = re.compile(r"no progress: the same (\d+) failures? as loop (\d+)")
_ASK = {
    "claim.frozen_reworded": "does the reworded frozen claim on {at} still say only what its "
    "quote says, and may a frozen claim be reworded?",
    "run.rules_change": "should the proposed rules apply (the finding names each setting "
    "they change, old → new)?",
    "run.repository_file": "should the change to {at}, a repository file (no page or source), land?",
    "suppression.added": "should the inline suppression on {at} set its finding aside, for "
    "the reason it gives?",
    "run.direction_unclear": "does the change do what its direction says it will?",
    "run.rubric": "is the change's effect on the [rubric] goal the finding names acceptable?",
    "run.rules_followup": "may the rules land while the pages the finding names fail them "
    "(a follow-up text change must fix those pages)?",
    "citation.flaky": "does the quote on {at} support its claim (two judgements disagreed)?",
}


def questions(
    findings: Iterable[Finding], *, stuck: str | None = None, new_sources: Sequence[str] = ()
) -> list[str]:
    """What the person deciding a run that waits for one (needs_human_review) must answer:
    one question per finding that asks a person (``codes.ASKS``; one per code and page),
    and, when the run waits because it made no progress (``stuck``: the decision's reason)
    or adds sources its author may not add, that. At most ``MAX_QUESTIONS``."""
    from .codes import ASKS
    from .text import escaped, plural

    out: list[str] = []
    if stuck is not None:
        said = _STUCK.match(stuck)
        if said is not None:
            out.append(
                f"the writer's last loop failed on exactly what loop {said.group(2)} failed "
                f"on ({plural(int(said.group(1)), 'failure')}): land the change as it is, or "
                "reject it?"
            )
    if new_sources:
        named = ", ".join(escaped(p) for p in new_sources[:3])
        more = f" (+{len(new_sources) - 3} more)" if len(new_sources) > 3 else ""
        out.append(
            f"is each new raw source ({named}{more}) what it claims to be, and may it "
            "enter the wiki? Its author may not add sources"
        )
    groups: dict[tuple[str, str | None], list[int]] = {}
    for f in findings:
        if f.code in ASKS:
            groups.setdefault((f.code, f.path), []).extend([f.line] if f.line else [])
    for (code, path), lines in groups.items():
        ask = _ASK.get(code, f"{code}: accept what the finding on {{at}} names?")
        out.append(ask.format(at=_at(path, sorted(set(lines)), escaped)))
    return out[:MAX_QUESTIONS]


def _at(path: str | None, lines: list[int], escaped: Callable[[str], str]) -> str:
    page = escaped(path) if path else "the change"
    if not lines:
        return page
    return f"line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines[:5]))} of {page}"
