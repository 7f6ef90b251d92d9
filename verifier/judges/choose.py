"""Which semantic judge runs: ``make_judge`` builds the one the rules' ``[judge]``
provider (or ``--judge``) names, importing the LLM judge only when it is chosen, so that
nothing on the hook paths imports ``anthropic``."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from wikigate.config import Config
from wikigate.errors import UsageError
from wikigate.models import Budget

from .protocol import HEURISTIC, Assessment, ChangeInput, ClaimInput, Judge, Judgment, Vote

if TYPE_CHECKING:
    import pygit2

    from ..cache import Cache
    from ..staged import StagedTree

API_KEY_ENV = "ANTHROPIC_API_KEY"


def chosen_provider(config: Config, requested: str | None, *, may_lower: bool) -> str:
    """The judge to run: ``requested`` (``--judge``) or the rules' ``[judge] provider``.

    Where the verdict can land (finalize), a request may only raise the rules' judge
    (offline → anthropic), never lower it: UsageError, naming what to do.
    """
    configured = config.judge.provider
    if requested is None:
        return configured
    if requested not in ("offline", "anthropic"):
        raise UsageError(f"--judge {requested!r}: expected anthropic or offline")
    if not may_lower and configured == "anthropic" and requested == "offline":
        raise UsageError(
            "--judge offline: the base commit's wikigate.toml sets [judge] provider = "
            '"anthropic"; a run cannot land on the offline judge (use `wikigate verify '
            "--judge offline` to check without landing)"
        )
    return requested


def missing_key_reason() -> str:
    return (
        f"the anthropic judge needs an API key: set {API_KEY_ENV} (and ANTHROPIC_BASE_URL "
        "for a proxy), or use the offline heuristic judge (--judge offline, or "
        '[judge] provider = "offline" in wikigate.toml)'
    )


MISSING_PACKAGE = (
    "the anthropic judge needs the anthropic extra (the anthropic package), which is not "
    "installed here: pip install 'wikigate[anthropic]'"
)


def _installed(module: str) -> bool:
    import importlib.util
    import sys

    if module in sys.modules:
        return sys.modules[module] is not None
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def make_judge(
    config: Config,
    *,
    repo: pygit2.Repository,
    cache: Cache,
    requested: str | None = None,
    may_lower: bool = True,
    dry_run: bool = False,
    budget: Budget | None = None,
    strictness: str = "SKEPTICAL",
) -> Judge:
    """The judge the rules (or ``requested``) ask for; ``dry_run`` implies anthropic.

    ``budget`` is the writer's declared budget: the LLM judge may spend
    ``[judge] budget_multiplier`` of it, and the ``[judge]`` caps where none was declared.
    """
    provider = "anthropic" if dry_run else chosen_provider(config, requested, may_lower=may_lower)
    if provider == "offline":
        return HeuristicJudge()
    key = os.environ.get(API_KEY_ENV)
    if not key and not dry_run:
        return UnavailableJudge("anthropic", missing_key_reason())
    if not dry_run and not _installed("anthropic"):
        return UnavailableJudge("anthropic", MISSING_PACKAGE)
    from .llm.judge import AnthropicJudge

    return AnthropicJudge(
        config.judge,
        repo=repo,
        cache=cache,
        api_key=key or None,
        dry_run=dry_run,
        budget=budget or Budget(),
        strictness=strictness,
    )


class HeuristicJudge:
    """The offline judge: the heuristic's conflicts are its votes (``partial``, with the
    conflicts as the reason); rules only, never calls out."""

    name = HEURISTIC

    def judge(self, claims: Sequence[ClaimInput], staged: StagedTree) -> Judgment:
        votes = {
            c.claim_id: Vote(c.claim_id, "partial", "; ".join(c.hints))
            if c.hints
            else Vote(c.claim_id, "supports", "no rule fired")
            for c in claims
        }
        return Judgment(votes)


class UnavailableJudge:
    """The LLM judge was asked for but cannot run here (no API key): every claim is
    inconclusive, with what to do.  Fails closed without failing the whole verification."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason

    def judge(self, claims: Sequence[ClaimInput], staged: StagedTree) -> Judgment:
        return Judgment({c.claim_id: Vote(c.claim_id, "inconclusive", self.reason) for c in claims})

    def assess(self, change: ChangeInput, staged: StagedTree) -> Assessment:
        return Assessment(error=self.reason)
