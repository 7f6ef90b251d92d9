"""Which change a ref is, and the use cases of verifying it: ``wikigate verify`` (a ref, a
shard of the whole wiki, a dry run of the judge), ``wikigate report merge`` and the judge
checks before ``run finalize --judge``.

The CLI, the git hooks and the bot call these; the verification itself is
`wikigate.verify.verify`, the one entry point.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

import pygit2

from wikigate.verifier.judges.choose import API_KEY_ENV, chosen_provider, missing_key_reason
from wikigate.verifier.parallel import Progress
from wikigate.verifier.report import VerificationReport

from .config import config_at
from .errors import GitError, JudgeError, RunError, UsageError
from .gitrepo import commit_at, parse_trailers
from .text import plural
from .verify import DEFAULT, Request, Verification, cache_path, chosen_spec

if TYPE_CHECKING:
    from wikigate.verifier.merge import ShardReport

    from .run import Run
    from .workspace import Workspace


def resolve_commit(repo: pygit2.Repository, ref: str) -> pygit2.Commit:
    try:
        obj = repo.revparse_single(ref)
        commit = obj.peel(pygit2.Commit)
        assert isinstance(commit, pygit2.Commit)
        return commit
    except (KeyError, ValueError, pygit2.GitError) as e:
        raise UsageError(f"{ref!r} is not a branch or commit in this repository") from e


def change_request(
    ws: Workspace,
    ref: str | None = None,
    base: str | None = None,
    *,
    whole: bool = False,
    run_trailers: bool = True,
) -> Request:
    """The change ``ref`` (default HEAD) makes, as a verification request with default
    options (set them with ``dataclasses.replace``): its tip, its base (``base``, else
    the merge-base with main; none with ``whole``: the whole wiki at ``ref``) and, when it
    is a wikigate run, its plan.

    ``run_trailers``: False reads the change as no run (a pull request: its commits'
    ``Wikigate-*`` trailers are the writer's, and choose no type, scope nor budget).
    A run whose record cannot be read (or was rewritten since ``run start``) is a RunError.
    """
    from .plan import check_pinned, read_plan
    from .run import with_trace

    repo = ws.repo
    if ref is None:
        if repo.head_is_unborn:
            raise GitError("HEAD has no commits")
        ref = "HEAD"
    tip = resolve_commit(repo, ref)
    if whole:
        return Request(repo, tip, None, cache_path=cache_path(repo))
    if base is not None:
        base_commit = resolve_commit(repo, base)
    else:
        main = repo.references[ws.env.main].target
        merge_base = repo.merge_base(tip.id, main)
        if merge_base is None:
            raise GitError(f"{ref} shares no history with {ws.env.main}; pass --base")
        base_commit = commit_at(repo, merge_base)
    plan = None
    try:
        if run_trailers:
            plan = read_plan(repo, tip.id)
            known = ws.store.get(plan.meta.run_id) if ws.telemetry_path().exists() else None
            check_pinned(plan.meta, known["meta_digest"] if known else None)
            if known is not None:  # the trace's pin, as `run finalize` checks it
                plan = with_trace(ws.store, known, plan)
    except (RunError, ValueError) as e:
        plan = None
        if "Wikigate-Run" in parse_trailers(tip.message):  # a run: its rules must apply
            raise RunError(f"{ref} is a wikigate run whose record cannot be read: {e}") from e
    return Request(repo, tip, base_commit, plan=plan, cache_path=cache_path(repo))


def ready(request: Request) -> None:
    """Fail early, in words, when the judge the request asks for (or its rules name)
    cannot run here (see :func:`judge_ready`); a dry run sends nothing and needs no key."""
    if not request.judge_dry_run:
        rules_at = request.base if request.base is not None else request.tip
        judge_ready(request.repo, rules_at, request.judge, may_lower=request.judge_may_lower)


def sign_shard(repo: pygit2.Repository, done: Verification) -> Verification:
    """A shard's report signed with this machine's key (``WIKIGATE_SIGNING_KEY`` or git
    config ``wikigate.signingKey``, as attestations), when one is set: ``report merge
    --allowed-signers`` then knows who verified it (docs/sharding.md)."""
    from . import attest, sshsig
    from .verifier.shard import statement

    report = done.report
    key = attest.signing_key(repo)
    if key is None or report.shard is None:
        return done
    signature = sshsig.sign(statement(report), key).decode()
    shard = report.shard.model_copy(update={"signature": signature})
    return Verification(report.model_copy(update={"shard": shard}), done.judgment)


def merge_reports(
    ws: Workspace,
    files: list[str],
    progress: Progress | None = None,
    *,
    allowed_signers: Path | None = None,
) -> VerificationReport:
    """The JSON reports of ``verify --all --shard K/N`` for K = 1..N, plus the whole-wiki
    checks run here on the shards' commit, as one report: the unsharded ``verify --all``'s.

    Raises MergeError (exit 2), naming the file, when the reports are not the N shards of
    one verification, when one was changed after it was written (its digest), when
    ``allowed_signers`` is given and one is unsigned or not signed by a key it lists, or
    when this repository lacks their commit.
    """
    from wikigate.verifier.merge import MergeError, merge, read_shard

    shards = []
    for name in files:
        try:
            text = Path(name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            why = e.strerror if isinstance(e, OSError) else "not UTF-8"
            raise MergeError(f"{name}: cannot read the report ({why})") from e
        shard = read_shard(name, text)
        if allowed_signers is not None:
            signed_by(shard, allowed_signers)
        shards.append(shard)
    return merge(ws.repo, shards, cache_path=cache_path(ws.repo), progress=progress)


def signed_by(shard: ShardReport, allowed_signers: Path) -> str:
    """The principal of ``allowed_signers`` whose key signed the shard's statement;
    MergeError naming the file and why not (unsigned, another key, changed since)."""
    from wikigate.verifier.merge import MergeError
    from wikigate.verifier.shard import statement

    from . import sshsig

    name, info = shard.name, shard.report.shard
    assert info is not None  # read_shard refuses a report without it
    if not allowed_signers.is_file():
        raise MergeError(f"--allowed-signers {allowed_signers}: no such file")
    if info.signature is None:
        raise MergeError(
            f"{name}: the shard report is not signed, and --allowed-signers requires a "
            "signature; sign shards with `git config wikigate.signingKey KEY` (or "
            "WIKIGATE_SIGNING_KEY) where `verify --all --shard K/N` runs"
        )
    try:
        return sshsig.verify(statement(shard.report), info.signature.encode(), allowed_signers)
    except sshsig.Refused as e:
        raise MergeError(f"{name}: its signature is refused: {e}") from e


def judge_ready(
    repo: pygit2.Repository,
    rules_at: pygit2.Commit | str,
    requested: str | None,
    *,
    may_lower: bool = True,
) -> None:
    """Fail early, in words, when the judge that the rules at ``rules_at`` (or
    ``requested``) name cannot run here: a lowering where it may not (UsageError), or the
    anthropic judge without its package (MissingExtra) or an API key (JudgeError)."""
    provider = chosen_provider(config_at(repo, rules_at), requested, may_lower=may_lower)
    if provider == "anthropic":
        from .extras import require

        require("anthropic", "the anthropic judge")
    if provider == "anthropic" and not os.environ.get(API_KEY_ENV):
        raise JudgeError(missing_key_reason())


def finalize_judge(ws: Workspace, run: Run, requested: str | None) -> None:
    """Before ``run finalize --judge``: check, by the run's base rules, that the judge can
    run (it may only be raised). A verifier plug-in chooses its own judge: ``requested``
    is then a UsageError."""
    base = commit_at(ws.repo, run.refresh()["base_commit"])
    plugin = ws.verifier is not None or chosen_spec(Request(ws.repo, base, base)) != DEFAULT
    from wikigate.verifier.default import DeterministicVerifier

    if plugin and not isinstance(ws.verifier, DeterministicVerifier):
        if requested is not None:
            raise UsageError(
                "--judge chooses the default verifier's judge; this workspace uses a "
                "verifier plug-in ([verifier] plugin or WIKIGATE_VERIFIER)"
            )
        return
    judge_ready(ws.repo, base, requested, may_lower=False)


def describe_dry_run(done: Verification, fmt: str = "text") -> str:
    """What a ``--judge-dry-run`` would have sent: per request its source, claims and
    estimated tokens and cost, then the requests themselves (``json``: as JSON)."""
    judge = done.report.judge
    bodies = [json.loads(r) for r in done.artifacts.requests]
    if fmt == "json":
        data = {"judge": judge.model_dump(mode="json") if judge else None, "requests": bodies}
        return json.dumps(data, indent=2, ensure_ascii=False)
    if judge is None:
        return "judge dry run: nothing to judge (no claim with a verified quote in scope)"
    lines = [f"judge dry run: model {judge.model}, prompt {judge.prompt_version}; nothing was sent"]
    cached = sum(1 for v in judge.votes if v.cached)
    tokens = sum(p.input_tokens for p in judge.planned)
    usd = sum(p.usd for p in judge.planned)
    for n, p in enumerate(judge.planned, 1):
        shown = ", ".join(p.claim_ids[:3]) + (", …" if len(p.claim_ids) > 3 else "")
        block = "source block cached" if p.cached_block else "source block too short to cache"
        lines.append(
            f"request {n}: {p.source}, {plural(len(p.claim_ids), 'claim')} ({shown}), "
            f"~{p.input_tokens:,} input tokens, <= ${p.usd:.4f}, {block}"
        )
    if cached:
        lines.append(f"{plural(cached, 'claim')} already judged (judgment cache): no cost")
    lines.append(
        f"total: {plural(len(judge.planned), 'request')}, ~{tokens:,} input tokens, <= ${usd:.4f} "
        "(estimates: characters / [judge] chars_per_token, at input or cache-write prices)"
    )
    if bodies:
        first = bodies[0]
        lines += ["", "--- system prompt ---", first["system"][0]["text"]]
        lines.append("--- tools: " + ", ".join(t["name"] for t in first["tools"]))
    for n, body in enumerate(bodies, 1):
        lines.append(f"--- request {n} ---")
        for part in body["messages"][0]["content"]:
            lines.append(part["text"])
    return "\n".join(lines)
