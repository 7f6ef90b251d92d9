"""The product's default Verifier: the deterministic checks, offline, no API key."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pygit2

from wikigate.gitrepo import commit_at
from wikigate.models import Plan, Usage, VerifierVerdict

from .engine import Verification, verification
from .report import VerificationReport
from .version import code_version

if TYPE_CHECKING:
    from wikigate.workspace import Workspace


class DeterministicVerifier:
    """Citations with quote anchors, pages, links and run policy, and the semantic judge
    the base commit's ``[judge]`` names; see docs/checks.md and docs/judge.md.

    ``judge`` (``--judge`` of ``run finalize``; else the workspace's ``judge`` attribute)
    may raise the rules' judge to ``anthropic``, never lower it.
    """

    def __init__(self, strictness: str | None = None, judge: str | None = None) -> None:
        self.strictness = strictness
        self.judge = judge

    def verify(
        self, run_id: str, workspace: Workspace, plan: Plan, staged_tree: pygit2.Tree
    ) -> VerifierVerdict:
        repo = workspace.repo
        tip = commit_at(repo, plan.tip)
        if tip.tree_id != staged_tree.id:
            raise ValueError("staged tree is not the plan's tip tree")
        base = commit_at(repo, plan.meta.base)
        done = verification(
            repo,
            tip,
            base,
            plan=plan,
            strictness=self.strictness,
            judge_provider=self.judge or getattr(workspace, "judge", None),
            judge_may_lower=False,
            cache_path=cache_path(workspace),
            run_id=run_id,
            heartbeat=workspace.heartbeat,
        )
        return verdict_from_verification(done)


def verdict_from_verification(done: Verification) -> VerifierVerdict:
    """The vote, with the judge's spend as the verifier's usage and its artifacts beside."""
    verdict = verdict_from_report(done.report)
    judge = done.report.judge
    if judge is not None:
        u = judge.usage
        verdict.tokens_used = Usage(
            input_tokens=u.input_tokens + u.cache_write_tokens + u.cache_read_tokens,
            output_tokens=u.output_tokens,
            usd=u.usd,
        )
        verdict.preset = f"{judge.name}:{judge.model}:{done.report.strictness}"
    if not done.artifacts.empty:
        verdict.artifacts = done.artifacts.files()
    return verdict


def verdict_from_report(report: VerificationReport) -> VerifierVerdict:
    claims = [f for f in report.findings if f.code.startswith("citation.")]
    pages = [f for f in report.findings if not f.code.startswith("citation.")]
    counts = report.counts()
    return VerifierVerdict(
        verdict=report.verdict,
        reasoning=(
            f"{counts['critical']} critical, {counts['major']} major, "
            f"{counts['minor']} minor findings ({report.strictness})"
        ),
        per_claim_findings=claims,
        per_page_findings=pages,
        preset=f"deterministic:{report.strictness}",
        report=report.model_dump(mode="json"),
        verifier=f"wikigate {code_version()}",
    )


def cache_path(workspace: Workspace):  # type: ignore[no-untyped-def]
    return workspace.git_dir / "wikigate" / "cache.db"


def default_verifier(workspace: Workspace) -> DeterministicVerifier:
    return DeterministicVerifier()
