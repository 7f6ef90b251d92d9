"""The tests' ways into verification, all through the product's one entry point
(`wikigate.verify.verify`), with the keyword names the tests were written with."""

from __future__ import annotations

from typing import Any

import pygit2

from wikigate.verifier.protocol import Request, Verification
from wikigate.verifier.report import VerificationReport
from wikigate.verify import verify

RENAMED = {"config": "rules", "scope": "pages", "judge_provider": "judge"}


def request(
    repo: pygit2.Repository, tip: pygit2.Commit, base: pygit2.Commit | None, **options: Any
) -> Request:
    fields = {RENAMED.get(k, k): v for k, v in options.items()}
    if fields.get("pages") is not None:
        fields["pages"] = tuple(fields["pages"])
    return Request(repo, tip, base, **fields)


def verification(
    repo: pygit2.Repository, tip: pygit2.Commit, base: pygit2.Commit | None, **options: Any
) -> Verification:
    """One verification of ``tip`` against ``base``; a ``judge`` object (a test double of
    the Judge protocol) is handed to the default verifier's checks directly."""
    judge = options.pop("judge", None)
    if judge is not None and not isinstance(judge, str):
        from wikigate.verifier.engine import checks_of

        return checks_of(request(repo, tip, base, **options), judge)
    if judge is not None:
        options["judge"] = judge
    return verify(request(repo, tip, base, **options))


def plan_for(base: pygit2.Commit, tip: pygit2.Commit, run_type: str, **meta: Any) -> Any:
    """The plan of a run of ``run_type`` from ``base`` whose staged tip is ``tip`` (the
    run's checks: path ACL, scope, required steps); ``meta``: more RunMeta fields."""
    from wikigate.models import Budget, Plan, RunMeta

    fields: dict[str, Any] = {"budget": Budget(), **meta}
    run = RunMeta(
        run_id="r",
        run_type=run_type,  # type: ignore[arg-type]
        triggered_by="cli:t",
        base=str(base.id),
        started_at="2026-01-01T00:00:00Z",
        **fields,
    )
    return Plan(meta=run, ops=[], tip=str(tip.id))


def verify_trees(
    repo: pygit2.Repository, tip: pygit2.Commit, base: pygit2.Commit | None, **options: Any
) -> VerificationReport:
    return verification(repo, tip, base, **options).report


def verify_ref(
    ws: Any, ref: str | None = None, base: str | None = None, *, lint: bool = False, **options: Any
) -> VerificationReport:
    """What ``wikigate verify [--all] [REF]`` reports, as the CLI builds it."""
    from dataclasses import replace

    from wikigate.changes import change_request, ready, sign_shard

    asked = replace(change_request(ws, ref, base, whole=lint), **options)
    ready(asked)
    done = verify(asked)
    return (sign_shard(ws.repo, done) if asked.shard is not None else done).report
