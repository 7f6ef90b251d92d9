"""One event on a pull request: who may ask, fetch, verify (``wikigate.verify``, the rules
of the base), count the loop, read a person's word, ask the gate's one decision
(``wikigate.decision``), then act on it: land (``wikigate.landing`` through
``bot/landing.py``), close, ask for changes, or ask a person.  It ends in one value,
:class:`Outcome`; everything after reads only that.

Exit codes from the one table, ``kinds.VERDICT_EXIT``: 0 committed (or nothing to do),
1 rejected, 3 revise or waiting on the author (the base moved under a fork), 5 waiting for
a person; ``fail-level`` decides which fail the step.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Literal

import pygit2

from wikigate.changes import change_request, ready
from wikigate.decision import Decision, Repeat, Word, decide, questions
from wikigate.errors import GitError, UsageError
from wikigate.kinds import NEEDS_HUMAN_REVIEW, SEVERITY_RANK, VERDICT_EXIT
from wikigate.models import RunRecord
from wikigate.paths import check_scope
from wikigate.records import finding_fingerprints
from wikigate.verifier.report import VerificationReport
from wikigate.verify import verify
from wikigate.workspace import Workspace

from .check_run import CheckRun
from .comments import send_review
from .event import ActionsEnv, MergeGroup, Trigger, load_event
from .fetch import BASE_REF, Fetched, branch_tip, fetch_pull
from .github_io import WRITERS, Forbidden, GitHubError, PullFacts, PullRequestIO
from .inputs import REVIEW_LABEL
from .landing import Landed, Lander, NotLanded
from .merge_group import run_group
from .notes import (
    Override,
    PullRun,
    Recorded,
    added_sources,
    publish,
    pull_record,
    pull_records,
    pull_run,
    reported_before,
    run_type_for,
)
from .outcome import Out, Outcome, nothing, step_exit
from .owners import reviewers_for
from .review import (
    MAX_COMMENTS,
    ReviewPlan,
    defused,
    every_finding,
    fenced,
    html_line,
    inert,
    plain,
    shown,
    summary_body,
    workflow_commands,
)


def run(env: ActionsEnv, workdir: Path, out: Out) -> int:
    """Handle the event ``env`` names; returns the step's exit code.  An error's message
    may quote writer text (a path): it leaves with no ``::`` in it (no workflow command)."""
    try:
        return _run(env, workdir, out)
    except Exception as e:
        if e.args and all(isinstance(a, str) for a in e.args):
            e.args = tuple(defused(a) for a in e.args)
        raise


def _run(env: ActionsEnv, workdir: Path, out: Out) -> int:
    if env.report_path and Path(env.report_path).resolve().is_relative_to(workdir.resolve()):
        raise UsageError(
            f"input report ({env.report_path}) is inside the checkout {workdir}: write the "
            "report outside it, e.g. under $RUNNER_TEMP (the default)"
        )
    loaded = load_event(env)
    if isinstance(loaded, str):
        return done(env, out, nothing(loaded))
    if isinstance(loaded, MergeGroup):  # a merge queue's: verified and reported, never landed
        return run_group(env, workdir, out, loaded)
    trigger = loaded
    assert env.repository is not None and env.token is not None  # load_event checked
    gh = PullRequestIO.connect(env.api_url, env.token, env.repository, trigger.number)
    pull = gh.facts()
    early = before_fetch(trigger, pull, gh, out)
    if early is not None:
        return done(env, out, early)
    fetched = fetch_pull(workdir, trigger.number, pull.base_ref)
    stale = fetched.head != (trigger.head_sha or pull.head_sha)
    # the base as fetched is the trunk: the checkout (a commit, detached) needs no branch
    ws = Workspace.open(workdir, main=BASE_REF.format(base=pull.base_ref))
    try:
        bot = PullEvent(env, trigger, pull, ws, gh, out, fetched, workdir)
        unbound = bot.unbound_override()
        if unbound is not None:
            reply(gh, out, unbound)
        if stale or unbound is not None:
            head = fetched.head[:12]
            why = unbound or f"pull request #{trigger.number} moved to {head} after this event"
            if bot.recorded():
                return done(env, out, nothing(f"{why}; {head} was verified on its own event"))
            # its own event's job may have been cancelled (a newer job in the concurrency
            # group replaces a pending one): verify the head now, deciding nothing else
            out.say(f"wikigate: no verification of {head} is recorded yet: verifying it")
            bot.trigger = plain_verification(trigger, fetched.head)
        again = bot.verified_already()
        if again is not None:
            reply(gh, out, again)
            return done(env, out, nothing(again))
        check = CheckRun(gh, fetched.head, out.warn)
        check.start()
        try:
            outcome = bot.handle()
        except BaseException as e:  # the check run never stays in progress
            check.finish(
                "failure", "wikigate failed", f"wikigate failed:\n\n{fenced(str(e))}", None
            )
            raise
        summary = bot.summary(outcome)
        # the check run first: whatever the comments meet, it never stays in progress
        check.finish(outcome.conclusion, outcome.title, summary, bot.report)
        bot.publish(outcome, summary)
    finally:
        ws.close()
    return step_exit(outcome, env.inputs.fail_level, out)


def done(env: ActionsEnv, out: Out, outcome: Outcome) -> int:
    """End an event that verified nothing: say why; ``verdict=none`` for later steps."""
    out.say(f"wikigate: {outcome.line}")
    if env.output:
        with open(env.output, "a", encoding="utf-8") as fh:
            fh.write("verdict=none\n")
    return outcome.exit_code


def plain_verification(trigger: Trigger, head: str) -> Trigger:
    """``trigger`` as the verification of ``head`` a push would have asked for: no label,
    comment or review decides anything (they were given for another head)."""
    return replace(
        trigger, action="synchronize", label=None, command=None, review=None, head_sha=head
    )


def before_fetch(trigger: Trigger, pull: PullFacts, gh: PullRequestIO, out: Out) -> Outcome | None:
    """What ends the event before anything is fetched: a merged pull request, a stale
    label, or a command from someone who may not give it (answered on the PR)."""
    if pull.merged:
        return nothing(f"pull request #{pull.number} is merged")
    if trigger.label is not None and trigger.label not in pull.labels:
        return nothing(f"the label {trigger.label} was removed again")
    refusal = refuse_command(trigger, pull, gh)
    if refusal is None:
        return None
    reply(gh, out, refusal)
    return nothing(refusal)


REPLIES_PER_HOUR = 5  # per pull request: a stranger's commands cannot make the bot spam


def reply(gh: PullRequestIO, out: Out, text: str) -> None:
    """Answer a command, a label or a review on the pull request, at most
    ``REPLIES_PER_HOUR`` times an hour (past that, the answer is only in the log)."""
    try:
        if not gh.reply(text, REPLIES_PER_HOUR):
            out.say(
                f"wikigate: {REPLIES_PER_HOUR} replies on this pull request within the hour "
                f"already; not posted: {text}"
            )
    except Forbidden as e:
        out.warn(f"wikigate: {e}")


def refuse_command(trigger: Trigger, pull: PullFacts, gh: PullRequestIO) -> str | None:
    """Why ``trigger``'s comment command is refused, or None (not a command, or allowed).
    ``verify``: the pull request's author or a writer; ``override``: a writer, with a reason."""
    command, who = trigger.command, trigger.sender
    if command is None:
        return None
    if command.name == "override" and not command.reason:
        return (
            f"@{who}: `/wikigate override` needs a reason, e.g. `/wikigate override the "
            "source was re-checked by hand`; nothing was done."
        )
    if command.name == "verify" and who == pull.author:
        return None
    if gh.permission(who) in WRITERS:
        return None
    allowed = "its author or" if command.name == "verify" else "only"
    return (
        f"@{who}: `/wikigate {command.name}` on this pull request is for {allowed} a person "
        "with write or admin permission on the repository; nothing was done."
    )


@dataclass
class PullEvent:
    """One event on one pull request: gather the facts (who asked, the verification, the
    loop, a person's word), ask the gate's one decision (``wikigate.decision``), act on it
    (land, close, ask for changes or a person) and report."""

    env: ActionsEnv
    trigger: Trigger
    pull: PullFacts
    ws: Workspace
    gh: PullRequestIO
    out: Out
    fetched: Fetched
    workdir: Path
    report: VerificationReport | None = None
    forbidden: bool = False  # a write was refused: report through annotations
    plan: ReviewPlan | None = None  # the review sent (what was folded into the summary)
    new_sources: tuple[str, ...] = ()  # raw/ files added by an author who may not add them
    questions: tuple[str, ...] = ()  # what a person must answer (needs_human_review)
    _author_permission: str | None = None  # the pull request's author's, read once

    @property
    def repository(self) -> str:
        assert self.env.repository is not None
        return self.env.repository

    @property
    def same_repo(self) -> bool:
        head_repo = self.pull.head_repo
        return head_repo is not None and head_repo.lower() == self.repository.lower()

    @property
    def own_branch(self) -> str | None:
        """Why the bot may not act on the head branch as its author's (delete it on a
        rejection, rebase and push it when the base moved, restore it), or None when it
        may: a branch of this repository whose author may push to it (write permission
        per the API). Anyone may open a pull request from someone else's branch."""
        if not self.same_repo:
            return "this branch lives in a fork, which wikigate cannot push to"
        if self.author_permission() not in WRITERS:
            return (
                f"this branch is not its author's to push to ({inert(self.pull.author)} has "
                "no write permission), so wikigate does not push to it either"
            )
        return None

    def author_permission(self) -> str:
        if self._author_permission is None:
            self._author_permission = self.gh.permission(self.pull.author)
        return self._author_permission

    @property
    def committer(self) -> pygit2.Signature:
        return pygit2.Signature(self.env.inputs.bot_name, self.env.inputs.bot_email)

    def handle(self) -> Outcome:
        head, repo = self.fetched.head, self.ws.repo
        self.void_stale_override()
        merge_base = repo.merge_base(head, self.fetched.base_tip)
        if merge_base is None:
            raise GitError(f"pull request #{self.pull.number} shares no history with its base")
        report = self.report = self.verify(head, str(merge_base))
        run = pull_run(self.history, self.repository, self.pull.number, head)
        # the headline names the worst finding (a critical one rejects), the first of them
        ranked = sorted(report.findings, key=lambda f: -SEVERITY_RANK.get(f.severity, 0))
        first = ranked[0] if ranked else None
        limit = self.env.inputs.max_loops
        why = f"{shown(first.path)}: {first.code}" if first and first.path else ""
        needs = self.sources_for_a_person(str(merge_base), head)
        repeat = _repeat(run, report, self.on_no_progress())

        def decided(word: Override | None) -> Decision:
            return decide(
                report.verdict,
                loop=run.loop,
                limit=limit,
                why=why,
                needs_person=needs,
                word=None if word is None else _word(word),
                repeat=repeat,
            )

        gate = decided(None)  # what the gate says, before any person's word
        word = self.word(head, gate) if gate.action != "land" else None
        chosen = gate if word is None else decided(word)
        self.write_report()
        self.review(gate.verdict or report.verdict)
        if chosen.action == "land":
            return self.land(run, chosen, word, gate)
        if chosen.action == "reject":
            return self.reject(run, chosen, decided=word)
        if chosen.action == "ask_person":
            return self.for_a_person(run, chosen)
        self.record(run, report, Recorded("pending", "revise"))
        return Outcome(
            "revise",
            chosen.exit_code,
            f"revise (loop {run.loop} of {limit}): fix the findings and push; wikigate "
            f"verifies pull request #{self.pull.number} again",
            "failure",
            f"revise: {_count(report)} to fix (loop {run.loop} of {limit})",
        )

    def verify(self, tip: str, base: str) -> VerificationReport:
        inputs = self.env.inputs
        request = replace(
            # the bot decides what a pull request is, never its commits' trailers
            change_request(self.ws, tip, base, run_trailers=False),
            strictness=inputs.strictness,
            judge=inputs.judge,
            declared_scope=declared_scope(self.pull.body),
            declared_direction=declared_direction(self.pull.body),
        )
        ready(request)
        return verify(request).report

    def unchecked_merge(self, report: VerificationReport) -> str | None:
        """In ``mode: check``, why a commit verdict is no green check: GitHub merges the
        head into the base's tip, so the head must hold that tip (what was verified is
        then what merges, under the rules the base has now), and the base must be the
        default branch a required check guards (a pull request into another branch would
        turn the same head's check green). None: it may pass."""
        base, tip = plain(self.pull.base_ref), self.fetched.base_tip
        default = self.gh.default_branch()
        if self.pull.base_ref != default:
            return (
                f"pull request #{self.pull.number} is into {base}, not {plain(default)}: in "
                f"mode: check the required check guards merges into {plain(default)} only"
            )
        if report.base != tip:
            return (
                f"the branch does not hold {base}'s tip {tip[:12]} (it was verified from "
                f"{(report.base or '')[:12]}): update the branch (GitHub: require branches to be up "
                "to date, or a merge queue) and the check runs again on what merges"
            )
        return None

    def attempt(self, write: Callable[[], object]) -> None:
        try:
            write()
        except Forbidden as e:
            self.forbidden = True
            self.out.warn(f"wikigate: {e}")

    # ------------------------------------------------------------ overrides

    @cached_property
    def history(self) -> list[RunRecord]:
        """The pull request's verifications, as origin's notes held them when fetched."""
        return pull_records(self.ws.repo, self.fetched.notes, self.repository, self.pull.number)

    def recorded(self) -> bool:
        """Whether origin's notes hold a verification of the head fetched."""
        return any(r.tip_commit == self.fetched.head for r in self.history)

    def verified_already(self) -> str | None:
        """For ``/wikigate verify`` of a head origin's notes hold a verification of (against
        the same merge-base): that result, re-reported; an unchanged head is never judged
        again (the judge costs the maintainers' key, and a command costs its author
        nothing). None: verify."""
        command = self.trigger.command
        if command is None or command.name != "verify":
            return None
        head = self.fetched.head
        merge_base = self.ws.repo.merge_base(head, self.fetched.base_tip)
        done = [
            r for r in self.history if r.tip_commit == head and r.base_commit == str(merge_base)
        ]
        if not done:
            return None
        last = done[-1]
        found = sum(1 for f in last.findings if f.loop == last.loop_count)
        return (
            f"@{inert(self.trigger.sender)}: head `{head[:12]}` was verified at "
            f"{last.recorded_at[:19]}Z: **{last.verdict}**, {found} finding"
            f"{'s' if found != 1 else ''} (the check run `wikigate` and the summary show "
            "them); an unchanged head is not verified again. Push a change to verify it again."
        )

    def unbound_override(self) -> str | None:
        """Why a ``/wikigate override`` comment cannot land the head fetched now, or None.
        A comment names no commit: it overrides the head of the last report wikigate
        published before it was written (origin's notes), and only while that is still
        the pull request's head; a push after that report is a head nobody overrode."""
        command, who = self.trigger.command, inert(self.trigger.sender)
        if command is None or command.name != "override":
            return None
        seen = reported_before(self.history, self.trigger.written_at)
        head = self.fetched.head
        if seen is None:
            return (
                f"@{who}: `/wikigate override` lands only a head whose verification wikigate "
                "reported before the comment was written, and none was; nothing was done. "
                "Wait for the report (or ask `/wikigate verify`), read it, then override."
            )
        if seen.tip_commit != head:
            return (
                f"@{who}: your override was written when wikigate's last report was on head "
                f"`{seen.tip_commit[:12]}`; the pull request's head is now `{head[:12]}`, which "
                "was pushed after it and is not what you overrode; nothing was done. Read the "
                f"report on `{head[:12]}`, then override again if you still mean it."
            )
        return None

    def void_stale_override(self) -> None:
        """A push after the override label was applied voids it (the override was given
        for the head before): the label is removed and the new head verified afresh."""
        label = self.env.inputs.override_label
        if self.trigger.action != "synchronize" or label not in self.pull.labels:
            return
        self.attempt(lambda: self.gh.remove_label(label))
        self.attempt(
            lambda: self.gh.comment(
                f"A push after `{label}` was applied voids the override (it was given for the "
                f"head before); wikigate verifies {self.fetched.head[:12]} afresh. Apply the "
                "label again to override this head."
            )
        )

    def override(self, head: str) -> Override | None:
        """A writer's override label or ``/wikigate override`` comment (its permission was
        checked before anything was fetched); anyone else's label is removed, with a
        comment saying why."""
        command = self.trigger.command
        if command is not None and command.name == "override":
            return Override(self.trigger.sender, command.reason, "github-comment", head)
        if self.trigger.label is None:
            return None
        user, label = self.trigger.sender, self.trigger.label
        if self.gh.permission(user) in WRITERS:
            return Override(user, f"label {label} applied by {user}", "github-label", head)
        self.attempt(lambda: self.gh.remove_label(label))
        reply(
            self.gh,
            self.out,
            f"@{user}: `{label}` overrides wikigate's verdict only when a person with "
            "write or admin permission applies it; the label was removed.",
        )
        return None

    def sources_for_a_person(self, base: str, head: str) -> str | None:
        """Why a person decides this pull request: the raw sources it adds when its author
        may not add sources (no write permission), or None (docs/format.md: new sources
        come from ingest runs, and a pull request carries no run a writer started).
        Changing or deleting an existing source is the verifier's ``run.raw_write``: a
        rejection."""
        added = added_sources(self.ws.repo, base, head)
        if added and self.author_permission() not in WRITERS:
            self.new_sources = tuple(added)
        if not self.new_sources:
            return None
        return (
            f"it adds the raw source{'s' if len(self.new_sources) > 1 else ''} "
            f"{', '.join(shown(p) for p in self.new_sources)}, and its author may not add "
            "sources (no write permission): a writer checks the source itself"
        )

    def word(self, head: str, gate: Decision) -> Override | None:
        """A person's word on ``head`` when the gate does not land it: a writer's override
        (label or comment), else, for a run waiting for a person, a writer's review."""
        given = self.override(head)
        if given is None and gate.action == "ask_person":
            given = self.reviewed(head)
        return given

    # ------------------------------------------------------------ a person decides

    def reviewed(self, head: str) -> Override | None:
        """A writer's review of ``head`` (approve lands, changes requested closes); anyone
        else's is answered and decides nothing."""
        review = self.trigger.review
        if review is None or review.commit != head:
            return None
        who = self.trigger.sender
        if self.gh.permission(who) not in WRITERS:
            reply(
                self.gh,
                self.out,
                f"@{inert(who)}: your review was read, but a run waiting for a person is "
                "decided by someone with write or admin permission.",
            )
            return None
        self.attempt(lambda: self.gh.remove_label(REVIEW_LABEL))
        reason = review.body or f"{review.state} by {who}"
        return Override(who, reason, "github-review", head, approve=review.state == "approved")

    def for_a_person(self, run: PullRun, chosen: Decision) -> Outcome:
        """needs_human_review: until a writer's review decides, the reviewers are asked
        and the label says so."""
        report = self.report
        assert report is not None
        self.ask_reviewers()
        why = chosen.reason
        self.questions = tuple(questions(report.findings, stuck=why, new_sources=self.new_sources))
        self.record(
            run,
            report,
            Recorded("pending", NEEDS_HUMAN_REVIEW, reason=why, questions=self.questions),
        )
        return Outcome(
            NEEDS_HUMAN_REVIEW,
            chosen.exit_code,
            f"needs_human_review: {why}; an approving review by a writer (or a writer's "
            f"override) lands pull request #{self.pull.number}, a review requesting changes "
            "closes it",
            "action_required",
            "needs a person: "
            + ("a new source to check" if self.new_sources else f"{_count(report)} to judge"),
        )

    def ask_reviewers(self) -> None:
        """The label, and a review request to the CODEOWNERS of the touched pages (read
        from the base), else the ``review-team`` input."""
        if REVIEW_LABEL not in self.pull.labels:
            self.attempt(lambda: self.gh.add_label(REVIEW_LABEL))
        report = self.report
        assert report is not None
        paths = sorted({f.path for f in report.findings if f.path} | set(self.new_sources))
        asked = reviewers_for(
            self.ws.repo,
            self.fetched.base_tip,
            paths,
            author=self.pull.author,
            team=self.env.inputs.review_team,
        )
        if asked:
            self.attempt(lambda: self.gh.request_reviewers(asked.users, asked.teams))

    # ------------------------------------------------------------ outcomes

    def land(
        self,
        run: PullRun,
        chosen: Decision,
        override: Override | None,
        gate: Decision | None = None,
    ) -> Outcome:
        """Land the commit decided on (the head verified, and the one an override or a
        review names): the base moves to it, or to it rebased, by a fast-forward-only
        PATCH; the pull request's head is never read again. ``gate``: what the gate said
        before a person's word (the verdict when that word lands nothing)."""
        report, pull = self.report, self.pull
        assert report is not None
        head = report.tip
        if override is not None and override.head != head:
            raise GitError(
                f"{override.source} was given for {override.head[:12]}, not the verified "
                f"{head[:12]}: nothing landed"
            )
        verdict = chosen.verdict or "commit"
        if self.env.inputs.mode == "check" and report.verdict == "commit":
            unsure = self.unchecked_merge(report)
            if unsure is not None:
                self.record(run, report, _as_verified(report))
                return Outcome(
                    report.verdict,
                    VERDICT_EXIT["revise"],
                    f"verified {report.verdict}, but {unsure}",
                    "failure",
                    "verified, but not as GitHub would merge it",
                )
        held = (
            "is a draft"
            if pull.draft
            else "is closed (reopen it to land it)"
            if pull.state == "closed" and override is None
            else "is not merged by wikigate (mode: check): GitHub merges it once the "
            "required check `wikigate` passes"
            if self.env.inputs.mode == "check"
            else "is not merged: the workflow sets `merge: false`"
            if not self.env.inputs.merge
            else None
        )
        if held is not None:
            self.record(run, report, _as_verified(report))
            return Outcome(
                report.verdict,
                VERDICT_EXIT[report.verdict],
                f"verified {report.verdict}; pull request #{pull.number} {held}",
                "success" if report.verdict == "commit" else "failure",
                f"verified {report.verdict} (not merged)",
            )
        lander = Lander(self.ws.repo, self.workdir, self.gh, pull, self.own_branch, self.committer)
        if override is not None and pull.state == "closed":
            refused = lander.reopen(head)
            if refused is not None:
                self.record(run, report, _as_verified(report))
                return Outcome(
                    verdict,
                    refused.exit_code,
                    refused.why,
                    refused.conclusion,
                    refused.title,
                    True,
                )
        verify = None if override is not None else self.verify
        landed = lander.land(head, self.fetched.base_tip, verify)
        if not isinstance(landed, Landed):
            self.record(run, report, _as_verified(report))
            if override is not None:
                return self.word_unused(report, override, gate, landed)
            code = landed.exit_code
            return Outcome(
                report.verdict, code, landed.why, landed.conclusion, landed.title, landed.error
            )
        if landed.rebased is not None:  # rebased onto the base and verified again
            self.record(run, landed.rebased, Recorded("committed", verdict))
        else:  # as verified, or an override rebased as it was
            moved = landed.tip != head
            base = landed.base if moved else None
            self.record(
                run, report, Recorded("committed", verdict, None, override, landed.tip, base)
            )
        word = "approving review" if override and override.approve else "override"
        how = f" by {word} of {override.actor}" if override else ""
        if landed.tip == head:
            onto = ""
        elif landed.rebased is not None:
            onto = f" (the head {head[:12]} rebased onto {landed.base[:12]} and verified again)"
        else:
            onto = f" (the head {head[:12]} rebased onto {landed.base[:12]} as it was)"
        return Outcome(
            verdict,
            chosen.exit_code,
            f"committed{how}: {plain(pull.base_ref)} fast-forwarded to {landed.tip[:12]}{onto}",
            "success",
            "committed" + (f" by {word}" if override else ""),
        )

    def word_unused(
        self,
        report: VerificationReport,
        override: Override,
        gate: Decision | None,
        landed: NotLanded,
    ) -> Outcome:
        """A person's approval or override that landed nothing (the base moved and the
        branch cannot be rebased here): a reply says so, and that it must be given again
        for the updated head (a word names one commit); the verdict is the gate's, and a
        run waiting for a person waits again (its label back)."""
        word = "approving review" if override.approve else "override"
        verdict = (gate.verdict if gate is not None else None) or report.verdict
        if gate is not None and gate.action == "ask_person":
            self.attempt(lambda: self.gh.add_label(REVIEW_LABEL))
        again = (
            "approve again"
            if override.approve
            else "override again (`/wikigate override REASON` or the label)"
        )
        line = (
            f"{landed.why}. The {word} of {override.actor} landed nothing and is not kept "
            f"(it names {override.head[:12]}): once the branch is updated, wikigate verifies "
            f"the new head; {again} then"
        )
        reply(self.gh, self.out, f"@{inert(override.actor)}: {line}")
        return Outcome(
            verdict, landed.exit_code, line, landed.conclusion, landed.title, landed.error
        )

    def reject(self, run: PullRun, chosen: Decision, *, decided: Override | None) -> Outcome:
        report, pull = self.report, self.pull
        assert report is not None
        reason, verdict = chosen.reason, chosen.verdict or "reject"
        self.record(run, report, Recorded("rejected", verdict, reason, decided))
        done = []
        if self.env.inputs.close_on_reject and pull.state == "open":
            self.attempt(lambda: self.gh.set_state("closed"))
            done.append("closed")
            if self.env.inputs.delete_branch and self.deletable():
                self.attempt(lambda: self.gh.delete_branch(pull.head_ref))
                done.append(f"its branch {shown(pull.head_ref)} deleted")
        what = f"; pull request #{pull.number} {' and '.join(done)}" if done else ""
        why = f"{reason}: " if reason else ""
        return Outcome(
            "reject",
            chosen.exit_code,
            f"rejected{what}; {why}see the findings",
            "failure",
            f"rejected: {reason or _count(report)}",
        )

    def deletable(self) -> bool:
        """The head branch is this repository's and its author's to push to, not the
        base, and still where it was verified (a push since is the author's, not ours to
        delete)."""
        pull = self.pull
        return (
            self.own_branch is None
            and pull.head_ref != pull.base_ref
            and branch_tip(self.workdir, pull.head_ref) == self.fetched.head
        )

    def record(self, run: PullRun, report: VerificationReport, happened: Recorded) -> None:
        """Every verification leaves its note on origin: loops are counted from them."""
        repo = self.ws.repo
        record = pull_record(
            repository=self.repository,
            number=self.pull.number,
            event=self.trigger.event_name,
            run=run,
            run_type=run_type_for(repo, report.base or self.fetched.base_tip, report.tip),
            report=report,
            happened=happened,
            prints=finding_fingerprints(repo, report.tip, report.findings),
        )
        try:
            publish(repo, self.workdir, self.fetched.notes, record, self.committer)
        except GitError as e:  # a read-only token: the verdict stands, the note is lost
            self.out.warn(
                f"wikigate: the verdict note was not pushed ({e}); without it this "
                "verification is not counted as a loop nor seen by `telemetry rebuild`"
            )

    # ------------------------------------------------------------ what the PR shows

    def review(self, verdict: str) -> None:
        report = self.report
        assert report is not None
        try:
            self.plan = send_review(
                self.gh,
                self.ws.repo,
                report,
                verdict,
                on_commit=self.env.inputs.commit_review,
                warn=self.out.warn,
                max_comments=self.max_comments(),
            )
        except Forbidden as e:
            self.forbidden = True
            self.out.warn(f"wikigate: {e}")

    def on_no_progress(self) -> Literal["reject", "ask"]:
        """``[runs] on_no_progress`` of the base's rules (the pull request's own never)."""
        from wikigate.config import config_at
        from wikigate.errors import WikigateError

        assert self.report is not None and self.report.base is not None
        try:
            return config_at(self.ws.repo, self.report.base).runs.on_no_progress
        except WikigateError:  # the verification said so already; the default holds
            return "reject"

    def max_comments(self) -> int:
        """``[github] max_comments`` of the base's rules (the pull request's own never)."""
        from wikigate.config import config_at
        from wikigate.errors import WikigateError

        assert self.report is not None and self.report.base is not None
        try:
            return config_at(self.ws.repo, self.report.base).github.max_comments
        except WikigateError:  # the verification said so already; the default holds
            return MAX_COMMENTS

    def summary(self, outcome: Outcome) -> str:
        """The summary of this event (the comment's and the check run's)."""
        assert self.report is not None
        plan = self.plan
        artifact, run_url = self.env.inputs.html_artifact, self.env.run_url
        html = html_line(artifact, run_url) if artifact and run_url else None
        return summary_body(
            self.report,
            outcome.line,
            plan.folded if plan else None,
            plan.limit if plan else MAX_COMMENTS,
            questions=self.questions,
            html=html,
            verdict=outcome.verdict,
            trunk=plain(self.pull.base_ref),
        )

    def publish(self, outcome: Outcome, summary: str) -> None:
        """The summary comment, the fallback annotations, the Actions files, after the
        check run was finished: a comment GitHub refuses (past retries) is reported, and
        changes neither the verdict nor what already landed."""
        report = self.report
        assert report is not None
        try:
            self.attempt(lambda: self.gh.upsert_summary(summary))
        except GitHubError as e:
            self.out.warn(
                f"wikigate: the summary comment was not written ({e}); the check run "
                "`wikigate` holds the same summary"
            )
        if self.forbidden:
            self.out.warn(
                "wikigate: the token may not write to this pull request; findings follow as annotations"
            )
            for a in workflow_commands(report):
                self.out.command(a)
            summary = f"{summary}\n\n{every_finding(report)}"  # the job summary: all of them
        self.out.say(f"wikigate: {outcome.line}")
        if outcome.error:
            self.out.warn(f"error: {outcome.line}")
        self.write_outputs(outcome.verdict or "none", summary)

    def write_report(self) -> None:
        if self.env.report_path and self.report is not None:
            Path(self.env.report_path).write_text(
                self.report.model_dump_json(indent=2), encoding="utf-8"
            )

    def write_outputs(self, verdict: str, summary: str) -> None:
        if self.env.step_summary:
            with open(self.env.step_summary, "a", encoding="utf-8") as fh:
                fh.write(self.out.redact(summary) + "\n")
        if self.env.output:
            with open(self.env.output, "a", encoding="utf-8") as fh:
                fh.write(f"verdict={verdict}\n")
                if self.env.report_path:
                    fh.write(f"report={self.env.report_path}\n")


SCOPE_LINE = "Wikigate-Scope:"


def declared_scope(body: str) -> tuple[str, ...] | None:
    """A pull request's scope: its description's ``Wikigate-Scope: PATH...`` line (paths
    separated by spaces or commas; a folder ends in /). Paths that are not clean paths
    under wiki/ or raw/ are dropped: a line naming none of those allows no change."""
    for line in body.splitlines():
        if line.strip().lower().startswith(SCOPE_LINE.lower()):
            named = line.strip()[len(SCOPE_LINE) :].replace(",", " ").split()
            kept: list[str] = []
            for path in named:
                try:
                    kept.append(check_scope(path))
                except UsageError:
                    continue
            return tuple(sorted(set(kept)))
    return None


def declared_direction(body: str) -> str | None:
    """What a pull request intends: its description, without the scope line (None when
    empty). The LLM judge checks the change against it."""
    from wikigate.models import MAX_DIRECTION

    kept = [ln for ln in body.splitlines() if not ln.strip().lower().startswith(SCOPE_LINE.lower())]
    text = "\n".join(kept).strip()
    return text[:MAX_DIRECTION] or None


def _word(given: Override) -> Word:
    """A person's override or review as the decision reads it."""
    if given.approve is None:
        return Word("override", given.actor, shown(given.reason))
    return Word("approve" if given.approve else "reject", given.actor, shown(given.reason))


def _as_verified(report: VerificationReport) -> Recorded:
    """The record of a verification nothing was done about (not landed, held)."""
    return Recorded("rejected" if report.verdict == "reject" else "pending", report.verdict)


def _repeat(
    run: PullRun, report: VerificationReport, then: Literal["reject", "ask"]
) -> Repeat | None:
    """Whether this verification fails on exactly what the pull request's loop before
    failed on: the same failure signatures (counted, critical and major only), as the
    bot's own record of that loop keeps them (origin's notes: ``PullRun.earlier``), never
    anything the pull request says. None: the first loop, nothing failed, or a loop
    recorded without signatures. The rule is ``finalize``'s (``wikigate.finalize``)."""
    if report.verdict != "revise" or run.loop <= 1:
        return None
    failing = ("critical", "major")  # what sent it back; a minor finding is no failure
    before = Counter(
        f.signature for f in run.earlier if f.loop == run.loop - 1 and f.severity in failing
    )
    if not before or None in before:
        return None
    now = Counter(f.signature for f in report.findings if f.severity in failing)
    if now != before:
        return None
    return Repeat(run.loop - 1, now.total(), then)


def _count(report: VerificationReport) -> str:
    n = len(report.findings)
    return f"{n} finding{'s' if n != 1 else ''}"
