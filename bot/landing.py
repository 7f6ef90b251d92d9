"""Landing a pull request that passed (or was overridden): fast-forward its base through
the refs API (``PATCH …/git/refs/heads/<base>``, ``force: false``), so GitHub shows it
merged.  Never ``PUT …/merge`` or ``update-branch``: both make merge commits.

When the base moved on, a branch of the same repository is rebased onto the base's tip in
memory (the engine's ``rebase_commits``; the bot is the committer), the result is verified
under the base's rules, pushed to the branch with ``--force-with-lease`` and then
fast-forwarded onto the base.  A fork's branch cannot be pushed to, nor is a branch of this
repository whose pull request's author may not push to it: its author updates it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pygit2

from wikigate import landing
from wikigate.errors import GitError
from wikigate.gitrepo import commit_at, rebase_commits
from wikigate.kinds import VERDICT_EXIT
from wikigate.verifier.report import VerificationReport

from .fetch import BASE_REF, branch_tip, git, push_branch
from .github_io import Forbidden, GitHubError, NotFastForward, PullFacts, PullRequestIO
from .review import plain, shown

ATTEMPTS = 3  # the base moved again while landing: rebase again, this many times in all
BEHIND = "{base} moved: update the branch"  # the check's title when the author must act
# exit codes (kinds.VERDICT_EXIT): waiting on the author exits as a revise does; a GitHub
# write the verdict needed that failed, as a rejection (nothing landed)
WAITING = VERDICT_EXIT["revise"]
FAILED = VERDICT_EXIT["reject"]


@dataclass(frozen=True)
class Landed:
    tip: str  # what the base now points at
    base: str  # the base tip it was fast-forwarded from
    rebased: VerificationReport | None  # the rebased result's verification, if rebased


@dataclass(frozen=True)
class NotLanded:
    why: str  # a sentence for the pull request
    title: str  # the check run's title
    conclusion: str  # action_required: the author must act; failure: a write was refused
    exit_code: int  # WAITING on the author, or FAILED: a GitHub write the verdict needed
    error: bool = False


Verify = Callable[[str, str], VerificationReport]  # (tip, base) → report; None: override


@dataclass
class Lander:
    """The GitHub way to land (``wikigate.landing.Way``): main is the base branch, moved
    by the refs API's fast-forward-only update; a replay is pushed to the head branch
    (with a lease) before the base moves to it."""

    repo: pygit2.Repository
    workdir: Path
    gh: PullRequestIO
    pull: PullFacts
    not_ours: str | None  # why the head branch is not ours to push to (a fork's…); None: it is
    committer: pygit2.Signature
    verify: Verify | None = None  # a replay's verification; None: a person's word lands it
    decided: str = ""  # the head decided on: what lands, or lands replayed
    branch_head: str = ""  # the head branch's tip as wikigate last saw or pushed it
    rebased: VerificationReport | None = None  # the landed replay's verification

    def land(self, head: str, base_tip: str, verify: Verify | None) -> Landed | NotLanded:
        """Fast-forward the base to ``head`` or, when the base moved, to ``head`` rebased
        onto it (verified with ``verify`` unless an override lands it as it is)."""
        self.verify, self.decided, self.branch_head, self.rebased = verify, head, head, None
        way: landing.Way[Landed | NotLanded] = self
        return landing.land(head, base_tip, way)

    # ------------------------------------------------------------ wikigate.landing.Way

    def fast_forward(self, base: str, tip: str) -> bool:
        return tip == base or self.repo.descendant_of(tip, base)

    def move(self, base: str, tip: str) -> Landed | NotLanded | None:
        shown_base = plain(self.pull.base_ref)
        try:
            self.gh.fast_forward(self.pull.base_ref, tip)
        except NotFastForward:
            return None
        except Forbidden as e:
            return NotLanded(
                f"could not fast-forward {shown_base}: {e}; give the workflow `contents: write` "
                f"or let its token bypass {shown_base}'s protection",
                f"could not update {shown_base}",
                "failure",
                FAILED,
                error=True,
            )
        return Landed(tip, base, self.rebased if tip != self.decided else None)

    def lost(self, times: int) -> NotLanded | None:
        if times < ATTEMPTS:
            return None
        base = plain(self.pull.base_ref)
        return NotLanded(
            f"{base} kept moving while landing ({ATTEMPTS} attempts); wikigate tries again on "
            "the next event (`/wikigate verify`)",
            f"{base} kept moving",
            "neutral",
            WAITING,
        )

    def main(self) -> str:
        return self.refetch_base()

    def replay(self, decided: str, onto: str) -> str | NotLanded:
        """``decided`` rebased onto ``onto`` and verified (unless a person's word lands
        it), then pushed to the head branch with a lease on its last known tip."""
        moved = self.rebase(decided, onto, self.verify)
        if isinstance(moved, NotLanded):
            return moved
        candidate, self.rebased = moved
        try:
            pushed = push_branch(self.workdir, self.pull.head_ref, candidate, self.branch_head)
        except GitError as e:
            return NotLanded(
                f"could not update the branch {shown(self.pull.head_ref)} to the rebased "
                f"commits: {plain(str(e))}; give the workflow `contents: write`",
                f"could not update {shown(self.pull.head_ref)}",
                "failure",
                FAILED,
                error=True,
            )
        if not pushed:
            return NotLanded(
                f"the branch {shown(self.pull.head_ref)} moved while "
                f"{plain(self.pull.base_ref)} was being updated; wikigate verifies its new "
                "head on its own event",
                "the branch moved while landing",
                "neutral",
                WAITING,
            )
        self.branch_head = candidate
        return candidate

    # ------------------------------------------------------------ rebasing

    def rebase(
        self, head: str, base_tip: str, verify: Verify | None
    ) -> tuple[str, VerificationReport | None] | NotLanded:
        base = plain(self.pull.base_ref)  # as shown in messages
        if self.not_ours is not None:
            return self.behind(f"{base} moved and {self.not_ours}")
        merge_base = self.repo.merge_base(head, base_tip)
        walker = self.repo.walk(
            head, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE
        )
        if merge_base is not None:
            walker.hide(merge_base)
        commits = list(walker)
        if any(len(c.parents) > 1 for c in commits):
            return self.behind(
                f"{base} moved and this branch has merge commits, which wikigate does not rebase"
            )
        new_tip, conflicts = rebase_commits(
            self.repo, commits, commit_at(self.repo, base_tip), committer=self.committer
        )
        if new_tip is None:
            return self.behind(
                f"{base} moved and changed {', '.join(shown(c) for c in conflicts)}, which this "
                "branch changes too"
            )
        candidate = str(new_tip)
        if verify is None:
            return candidate, None
        report = verify(candidate, base_tip)
        if report.verdict != "commit":
            return self.behind(
                f"{base} moved, and this branch rebased onto it is verified `{report.verdict}` "
                f"({len(report.findings)} findings)"
            )
        return candidate, report

    def behind(self, why: str) -> NotLanded:
        return NotLanded(
            f"{why}: update the branch onto {plain(self.pull.base_ref)}; wikigate verifies it "
            "again",
            BEHIND.format(base=plain(self.pull.base_ref)),
            "action_required",
            WAITING,
        )

    def refetch_base(self) -> str:
        ref = BASE_REF.format(base=self.pull.base_ref)
        git(
            self.workdir,
            "fetch",
            "--no-tags",
            "--quiet",
            "origin",
            f"+refs/heads/{self.pull.base_ref}:{ref}",
        )
        return git(self.workdir, "rev-parse", "--verify", f"{ref}^{{commit}}").stdout.strip()

    # ------------------------------------------------------------ a closed pull request

    def reopen(self, head: str) -> NotLanded | None:
        """Reopen a closed pull request (GitHub marks only an open one merged), restoring
        its deleted branch first when it lives in this repository."""
        if self.not_ours is None and branch_tip(self.workdir, self.pull.head_ref) is None:
            push_branch(self.workdir, self.pull.head_ref, head, None)
        try:
            self.gh.set_state("open")
        except GitHubError as e:
            return NotLanded(
                f"could not reopen pull request #{self.pull.number} to land it: {e}",
                "could not reopen the pull request",
                "failure",
                FAILED,
                error=True,
            )
        return None
