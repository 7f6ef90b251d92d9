"""The product's default Verifier: the deterministic checks, offline, no API key."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pygit2

from wikigate.gitrepo import commit_at
from wikigate.models import Plan, VerifierVerdict

from .engine import verify_trees
from .report import VerificationReport

if TYPE_CHECKING:
    from wikigate.workspace import Workspace


class DeterministicVerifier:
    """Citations with quote anchors, pages, links and run policy; see docs/checks.md."""

    def __init__(self, strictness: str | None = None) -> None:
        self.strictness = strictness

    def verify(
        self, run_id: str, workspace: Workspace, plan: Plan, staged_tree: pygit2.Tree
    ) -> VerifierVerdict:
        repo = workspace.repo
        tip = commit_at(repo, plan.tip)
        if tip.tree_id != staged_tree.id:
            raise ValueError("staged tree is not the plan's tip tree")
        base = commit_at(repo, plan.meta.base)
        report = verify_trees(
            repo,
            tip,
            base,
            plan=plan,
            strictness=self.strictness,
            cache_path=cache_path(workspace),
            run_id=run_id,
            heartbeat=workspace.heartbeat,
        )
        return verdict_from_report(report)


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
    )


def cache_path(workspace: Workspace):  # type: ignore[no-untyped-def]
    return workspace.git_dir / "wikigate" / "cache.db"


def default_verifier(workspace: Workspace) -> DeterministicVerifier:
    return DeterministicVerifier()
