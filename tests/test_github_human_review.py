"""A pull request the verifier cannot decide by rule (needs_human_review): the bot asks the
owners of the touched pages and waits; a writer's review decides. And a pull request's
declared scope. The GitHub emulator on 127.0.0.1, the real PyGithub client, `wikigate
github` as a workflow runs it."""

from __future__ import annotations

import pytest
from support.github_world import World
from support.wiki_runs import QUOTE, SOURCE, SOURCE_TEXT

from wikigate.bot.flow import declared_scope
from wikigate.bot.owners import owners
from wikigate.verifier.citation import format_tail

LABEL = "wikigate:needs-human-review"
REWORDED = "Under snow, a barn owl can hear a mouse."
FROZEN = '\n[ledger]\nfrozen = ["wiki/owls.md#^1"]\n'


def owls(sentence: str) -> str:
    tail = format_tail(SOURCE, None, QUOTE, SOURCE_TEXT.find(QUOTE))
    return f"# Owls\n\n{sentence}[^1]\n\n[^1]: {tail}\n"


def frozen_world(world: World) -> None:
    """main freezes the owls claim and names its owners (the base's rules, not the PR's)."""
    rules = (world.seed / "wikigate.toml").read_text() + FROZEN
    world.land_on_main(
        {"wikigate.toml": rules, ".github/CODEOWNERS": "/wiki/ @carol @octo/curators\n"},
        "freeze the owls claim",
    )


def conclusion(world: World) -> str | None:
    return list(world.gh.check_runs.values())[-1].get("conclusion")


@pytest.mark.slow
def test_a_run_for_a_person_asks_the_owners_and_a_writers_approval_lands_it(world: World):
    frozen_world(world)
    before = world.main_sha()
    head = world.push_files(5, {"wiki/owls.md": owls(REWORDED)})
    waiting = world.run(5)
    assert waiting.code == 5, waiting.out
    assert "needs_human_review" in waiting.out
    pull = world.gh.pulls[5]
    assert LABEL in pull.labels
    assert pull.requested_users == ["carol"] and pull.requested_teams == ["curators"]
    assert conclusion(world) == "action_required"
    note = world.note(head)
    assert note is not None and (note["status"], note["verdict"]) == (
        "pending",
        "needs_human_review",
    )
    assert world.main_sha() == before
    [summary] = [
        c["body"] for c in world.gh.issue_comments.values() if "wikigate:summary" in c["body"]
    ]
    assert "### wikigate: needs_human_review" in summary  # what the pull request waits for

    # a reader's approval decides nothing
    read_only = world.review(5, "approved", sender="visitor", body="looks fine")
    assert read_only.code == 5 and world.main_sha() == before
    assert any("write or admin permission" in c["body"] for c in world.gh.issue_comments.values())

    # an approval of an older head decides nothing either
    stale = world.review(5, "approved", sender="maintainer", commit="0" * 40)
    assert stale.code == 5 and world.main_sha() == before

    approved = world.review(5, "approved", sender="maintainer", body="same meaning")
    assert approved.code == 0, approved.out
    assert "committed by approving review of maintainer" in approved.out
    assert world.main_sha() == head
    note = world.note(head)
    assert note is not None
    assert (note["status"], note["verdict"]) == ("committed", "commit_approved")
    assert (note["override_actor"], note["override_source"]) == ("maintainer", "github-review")
    assert note["override_reason"].startswith("same meaning")
    assert LABEL not in pull.labels


@pytest.mark.slow
def test_changes_requested_by_a_writer_rejects_and_closes(world: World):
    frozen_world(world)
    head = world.push_files(6, {"wiki/owls.md": owls(REWORDED)}, branch="reword")
    assert world.run(6).code == 5
    refused = world.review(6, "changes_requested", sender="owner", body="keep the wording")
    assert refused.code == 1, refused.out
    assert world.gh.pulls[6].state == "closed"
    note = world.note(head)
    assert note is not None
    assert (note["status"], note["verdict"]) == ("rejected", "reject_reviewed")
    why = note["reject_reason"]
    assert why.startswith("rejected on review by owner: ") and "keep the wording" in why
    assert note["override_actor"] == "owner"


@pytest.mark.slow
def test_fail_level_reject_lets_a_run_waiting_for_a_person_pass(world: World):
    """Exit 5 (waiting for a person) under ``fail-level: reject``: the step passes and says
    why (it used to crash looking up how to name exit 5)."""
    frozen_world(world)
    before = world.main_sha()
    world.push_files(9, {"wiki/owls.md": owls(REWORDED)}, branch="lenient")
    waiting = world.step(
        "pull_request_target", world.pr_event(9), env={"WIKIGATE_FAIL_LEVEL": "reject"}
    )
    assert waiting.code == 0, waiting.out
    assert "exit 5 (waiting for a person) would fail this step" in waiting.out
    assert LABEL in world.gh.pulls[9].labels and world.main_sha() == before


@pytest.mark.slow
def test_no_codeowners_asks_the_configured_team(world: World):
    world.land_on_main(
        {
            "wikigate.toml": (world.seed / "wikigate.toml").read_text()
            + '\n[ledger]\nfrozen = ["wiki/owls.md#^1"]\n'
        },
        "freeze one claim",
    )
    world.push_files(7, {"wiki/owls.md": owls(REWORDED)}, branch="team")
    done = world.step(
        "pull_request_target",
        world.pr_event(7),
        env={"WIKIGATE_REVIEW_TEAM": "octo/wiki-maintainers"},
    )
    assert done.code == 5, done.out
    assert world.gh.pulls[7].requested_teams == ["wiki-maintainers"]
    assert world.gh.pulls[7].requested_users == []


@pytest.mark.slow
def test_a_pull_request_body_declares_its_scope(world: World):
    head = world.push_pr(8, owls(QUOTE).replace("# Owls", "# Barn"), branch="scoped")
    world.gh.pulls[8].body = "Adds the barn page.\n\nWikigate-Scope: wiki/barn.md\n"
    out_of_scope = world.run(8)
    assert out_of_scope.code == 1, out_of_scope.out
    note = world.note(head)
    assert note is not None and note["status"] == "rejected"
    scoped = [f for f in note["findings"] if f["code"] == "run.scope"]
    assert [f["path"] for f in scoped] == ["wiki/index.md"]


@pytest.mark.parametrize(
    ("body", "scope"),
    [
        ("no line", None),
        ("Wikigate-Scope: wiki/a.md, wiki/b/", ("wiki/a.md", "wiki/b/")),
        ("text\nwikigate-scope:   wiki/a.md  ", ("wiki/a.md",)),
        ("Wikigate-Scope: ../etc/passwd README.md", ()),
    ],
)
def test_the_scope_line(body: str, scope: tuple[str, ...] | None):
    assert declared_scope(body) == scope


def test_codeowners_last_match_wins_and_emails_are_skipped():
    text = "* @all\n/wiki/policies/ @octo/maintainers\nwiki/*.md @bob # pages\ndocs/ a@b.c\n"
    assert owners(text, ["wiki/a.md"]) == ["@bob"]
    assert owners(text, ["wiki/policies/x.md"]) == ["@octo/maintainers"]
    assert owners(text, ["README.md", "docs/x.md"]) == ["@all"]


@pytest.mark.slow
def test_an_approved_repository_file_lands_without_advice_to_approve_it_or_a_label_404(
    world: World,
):
    """Trial 26c F3, F4: the summary of a repository file's pull request told its author
    to `wikigate run write` and `verify approve` (CLI advice on a pull request), and still
    asked for the approval once an approving review had landed it; a label already removed
    (by hand, or by an earlier run of the job: GitHub answers 404) read as "the token may
    not write to this pull request", with every finding sent again as annotations."""
    head = world.push_files(7, {"tools/plan.txt": "a plan\n"})
    waiting = world.run(7)
    assert waiting.code == 5, waiting.out
    pull = world.gh.pulls[7]
    assert LABEL in pull.labels

    def summary() -> str:
        [body] = [
            c["body"] for c in world.gh.issue_comments.values() if "wikigate:summary" in c["body"]
        ]
        return body

    asked = summary()
    assert "run.repository\\_file on tools/plan.txt" in asked, asked
    assert "an approving review lands it" in asked
    assert "wikigate run write" not in asked and "verify approve" not in asked

    pull.labels.remove(LABEL)  # a maintainer took it off by hand
    approved = world.review(7, "approved", sender="maintainer", body="a plan we keep")
    assert approved.code == 0, approved.out
    assert world.main_sha() == head
    assert "may not write" not in approved.out and "refused to remove" not in approved.out
    assert "::warning" not in approved.out
    landed = summary()
    assert "### wikigate: commit_approved" in landed
    assert "ask a maintainer to approve" not in landed and "decides on this pull" not in landed


@pytest.mark.slow
def test_a_rejection_names_the_critical_finding_that_caused_it(world: World):
    """Trial 26c F5: a pull request with a repository file (major) and a stray file in the
    wiki (critical) was rejected with the headline naming the major one, listed first."""
    world.push_files(8, {"tools/plan.txt": "a plan\n", "wiki/notes.txt": "stray\n"})
    rejected = world.run(8)
    assert "rejected" in rejected.out, rejected.out
    [line] = [ln for ln in rejected.out.splitlines() if ln.startswith("wikigate: rejected")]
    assert "wiki/notes.txt" in line and "tools/plan.txt" not in line, line
