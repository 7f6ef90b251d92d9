"""The gate's one decision (wikigate/decision.py): pure, so read as a table here; the
gates that act on it (finalize, the GitHub bot) are tested end to end elsewhere
(test_engine.py, test_decisions_bind.py, test_github*.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wikigate.decision import A_PERSON, Decision, Repeat, Word, decide
from wikigate.kinds import VERDICT_EXIT
from wikigate.landing import land

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("verdict", "loop", "expected"),
    [
        ("commit", 1, Decision("land", "commit")),
        ("commit", 3, Decision("land", "commit")),
        ("reject", 1, Decision("reject", "reject", "wiki/a.md: cite.missing")),
        ("revise", 1, Decision("revise", "revise", "wiki/a.md: cite.missing")),
        ("revise", 2, Decision("revise", "revise", "wiki/a.md: cite.missing")),
        (
            "revise",
            3,
            Decision("reject", "reject", "revise limit reached (3 loops): wiki/a.md: cite.missing"),
        ),
        ("needs_human_review", 3, Decision("ask_person", "needs_human_review", A_PERSON)),
    ],
)
def test_a_verdict_in_a_loop_decides(verdict, loop, expected):
    assert decide(verdict, loop=loop, limit=3, why="wiki/a.md: cite.missing") == expected


def test_the_revise_limit_without_a_reason_says_only_the_limit():
    assert decide("revise", loop=2, limit=2).reason == "revise limit reached (2 loops)"


def test_a_revise_repeating_the_last_loops_failures_stops_looping():
    why = "wiki/a.md: link.broken"
    stuck = "no progress: the same 2 failures as loop 1"
    assert decide("revise", loop=2, limit=3, why=why, repeat=Repeat(1, 2)) == Decision(
        "reject", "reject", f"{stuck}: {why}"
    )
    assert decide("revise", loop=2, limit=3, repeat=Repeat(1, 2, "ask")) == Decision(
        "ask_person", "needs_human_review", stuck
    )
    # only a revise loops: a rejection stays one, a pass lands
    assert decide("commit", loop=2, limit=3, repeat=Repeat(1, 2)).action == "land"
    assert decide("reject", loop=2, limit=3, why=why, repeat=Repeat(1, 2)).reason == why
    one = decide("revise", loop=3, limit=3, repeat=Repeat(2, 1)).reason
    assert one == "no progress: the same 1 failure as loop 2"


def test_nothing_verified_lands_unverified():
    assert decide(None, loop=1, limit=3) == Decision("land", None)


def test_a_passing_change_that_needs_a_person_waits_for_one():
    got = decide("commit", loop=1, limit=3, needs_person="it adds raw/new.txt")
    assert got == Decision("ask_person", "needs_human_review", "it adds raw/new.txt")


@pytest.mark.parametrize("verdict", ["reject", "revise", "needs_human_review"])
def test_an_override_lands_any_verdict_but_a_pass(verdict):
    word = Word("override", "ann", "checked by hand")
    assert decide(verdict, loop=3, limit=3, word=word) == Decision(
        "land", "commit_override", "checked by hand"
    )


def test_a_pass_is_not_an_override():
    word = Word("override", "ann", "checked by hand")
    assert decide("commit", loop=1, limit=3, word=word) == Decision("land", "commit")


def test_a_review_decides_only_a_run_waiting_for_a_person():
    approve, refuse = Word("approve", "ann", "fine"), Word("reject", "ann", "keep it")
    assert decide("needs_human_review", loop=1, limit=3, word=approve) == Decision(
        "land", "commit_approved", "fine"
    )
    assert decide("needs_human_review", loop=1, limit=3, word=refuse) == Decision(
        "reject", "reject_reviewed", "rejected on review by ann: keep it"
    )
    # a review of a run the gate rejected or sent back changes nothing
    assert decide("reject", loop=1, limit=3, why="x", word=approve).action == "reject"
    assert decide("revise", loop=1, limit=3, word=approve).action == "revise"


def test_an_unknown_verdict_fails_closed():
    assert decide("maybe", loop=1, limit=3).action == "reject"


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ("land", VERDICT_EXIT["commit"]),
        ("reject", VERDICT_EXIT["reject"]),
        ("revise", VERDICT_EXIT["revise"]),
        ("ask_person", VERDICT_EXIT["needs_human_review"]),
    ],
)
def test_exit_codes_come_from_the_one_table(action, code):
    assert Decision(action, None).exit_code == code


def test_finalize_and_the_bot_ask_the_one_decision():
    """Both gates that decide call decision.decide; the revise limit and its wording live
    in decision.py only."""
    for path in (ROOT / "wikigate" / "finalize.py", ROOT / "bot" / "flow.py"):
        text = path.read_text(encoding="utf-8")
        assert "decide(" in text and "decision import" in text, path
        assert "revise limit" not in text and "at_loop_limit" not in text, path


# ---------------------------------------------------------------- the one landing rule


class Refs:
    """Main in memory, as a way to land sees it: commits named by strings, a replay of
    ``c`` onto ``m`` named ``c@m``; ``pushes`` are other writers moving main."""

    def __init__(self, main: str, pushes: list[str] | None = None, stop_after: int = 9):
        self.ref, self.parent = main, {"b0": "", "b1": "b0", "b2": "b1", "c": "b0"}
        self.pushes, self.stop_after = list(pushes or []), stop_after
        self.moves: list[tuple[str, str]] = []

    def fast_forward(self, base: str, tip: str) -> bool:
        while tip and tip != base:
            tip = self.parent.get(tip, "")
        return tip == base

    def move(self, base: str, tip: str) -> str | None:
        if self.pushes:  # someone else lands first
            self.ref = self.pushes.pop(0)
        if self.ref != base:
            return None
        self.moves.append((base, tip))
        self.ref = tip
        return f"landed {tip}"

    def lost(self, times: int) -> str | None:
        return f"gave up after {times}" if times >= self.stop_after else None

    def main(self) -> str:
        return self.ref

    def replay(self, decided: str, onto: str) -> str:
        self.parent[f"{decided}@{onto}"] = onto
        return f"{decided}@{onto}"


def test_land_moves_main_from_the_base_decided_against_to_the_decided_commit():
    refs = Refs("b0")
    assert land("c", "b0", refs) == "landed c"
    assert refs.moves == [("b0", "c")]


def test_land_replays_the_decided_commit_when_main_moved_never_a_re_read_head():
    refs = Refs("b0", pushes=["b1", "b2"])
    assert land("c", "b0", refs) == "landed c@b2"
    assert refs.moves == [("b2", "c@b2")]  # compare-and-swap from the tip it replayed onto


def test_land_replays_first_when_the_decided_commit_is_not_on_main():
    refs = Refs("b1")
    assert land("c", "b1", refs) == "landed c@b1"


def test_a_way_may_stop_racing():
    refs = Refs("b0", pushes=["b1", "b2"], stop_after=1)
    assert land("c", "b0", refs) == "gave up after 1" and refs.moves == []


def test_every_gate_lands_through_the_one_landing_function():
    for path in (ROOT / "wikigate" / "finalize.py", ROOT / "bot" / "landing.py"):
        assert "landing.land(" in path.read_text(encoding="utf-8"), path
