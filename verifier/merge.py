"""``wikigate report merge``: the shards of a whole-wiki verify, plus the whole-wiki
checks, as one report and one verdict, equal to the unsharded ``verify --all``'s.

The shards ran the per-page checks (citations, quotes, anchors, the judge) on their
slices; the whole-wiki checks (links, orphans, the tree) run here, on the same commit
read from this repository's object database.  Shards that do not belong together are
refused before anything runs: a different commit or tree, rules, verifier or strictness,
a report that is not a shard, or shards missing or given twice; so is a shard whose content
does not match its digest (edited after it was written).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pygit2

from wikigate.codes import verdict_for
from wikigate.config import Config, config_at
from wikigate.errors import UsageError
from wikigate.models import Finding

from .checks import CHECKS, PER_PAGE, WHOLE_WIKI
from .engine import finding_order, run_checks
from .parallel import Progress
from .protocol import Request
from .report import (
    CheckResult,
    JudgeSummary,
    JudgeUsageReport,
    ReportError,
    SummaryMetrics,
    VerificationReport,
    load_report,
)
from .shard import content_digest, rules_digest, verifier_version

ORDER = {check.name: i for i, check in enumerate(CHECKS)}  # unknown names ("setup") last
SUMMED = ("pages_checked", "claims", "citations", "anchors_verified", "gaps", "pdf_citations")


class MergeError(UsageError):
    """The shard reports cannot be merged (exit 2); the message names the file."""


@dataclass(frozen=True)
class ShardReport:
    name: str  # where it came from (a file name), for messages
    report: VerificationReport


def read_shard(name: str, text: str) -> ShardReport:
    """A shard's report from its JSON text (``verify --all --shard K/N --format json``):
    its content must match its digest (a signature is checked by the caller:
    ``wikigate.changes.merge_reports``; docs/sharding.md, "What the merge trusts")."""
    try:
        report = load_report(text)
    except ReportError as e:
        raise MergeError(f"{name}: {e}") from e
    shard = report.shard
    if shard is None:
        raise MergeError(
            f"{name}: not a shard's report (made without --shard K/N); "
            "merge only the reports of `wikigate verify --all --shard K/N --format json`"
        )
    if shard.digest is None:
        raise MergeError(
            f"{name}: the shard report names no digest of its content (made by an older "
            "wikigate?); verify the shard again"
        )
    if content_digest(report) != shard.digest:
        raise MergeError(
            f"{name}: its content does not match its digest {shard.digest}: the report was "
            "changed after `wikigate verify` wrote it (a finding deleted or edited?); merge "
            "only the reports your own shard jobs wrote"
        )
    return ShardReport(name, report)


def check_together(shards: list[ShardReport]) -> None:
    """Refuse shards that are not the N parts of one verification, naming the file."""
    if not shards:
        raise MergeError("no shard reports given")
    first = shards[0]
    one = first.report
    assert one.shard is not None
    for s in shards[1:]:
        r = s.report
        assert r.shard is not None
        for what, mine, theirs in (
            ("commit", r.tip, one.tip),
            ("tree", r.shard.tree, one.shard.tree),
            ("rules (wikigate.toml)", r.shard.rules, one.shard.rules),
            ("verifier", r.shard.verifier, one.shard.verifier),
            ("strictness", r.strictness, one.strictness),
            ("number of shards", str(r.shard.count), str(one.shard.count)),
        ):
            if mine != theirs:
                raise MergeError(
                    f"{s.name}: verified with {what} {mine}, but {first.name} with {theirs}; "
                    "merge the shards of one verification only"
                )
    count = one.shard.count
    seen: dict[int, str] = {}
    for s in shards:
        assert s.report.shard is not None
        k = s.report.shard.index
        if k > count:
            raise MergeError(f"{s.name}: shard {k}/{count} does not exist (K is 1..N)")
        if k in seen:
            raise MergeError(f"{s.name}: shard {k}/{count} again (also in {seen[k]})")
        seen[k] = s.name
    missing = [f"{k}/{count}" for k in range(1, count + 1) if k not in seen]
    if missing:
        given = ", ".join(f"{name} ({k}/{count})" for k, name in sorted(seen.items()))
        raise MergeError(
            f"shard{'s' if len(missing) > 1 else ''} {', '.join(missing)} missing "
            f"(given: {given}); merge all N shards of one verification"
        )


def merge(
    repo: pygit2.Repository,
    shards: list[ShardReport],
    *,
    cache_path: Path | None = None,
    progress: Progress | None = None,
) -> VerificationReport:
    """The shards' findings and the whole-wiki checks' as one report (see the module)."""
    check_together(shards)
    started = time.perf_counter()
    one = shards[0].report
    assert one.shard is not None
    tip = _commit(repo, one.tip, shards[0].name)
    if str(tip.tree_id) != one.shard.tree:
        raise MergeError(
            f"{shards[0].name}: commit {one.tip} has tree {tip.tree_id} here, "
            f"the shard verified {one.shard.tree}"
        )
    rules = _rules(repo, tip)
    judge = one.shard.verifier.rpartition("/judge=")[2]  # the shards agree on it (above)
    here = verifier_version(judge)
    for what, mine, theirs in (
        ("rules (wikigate.toml)", rules_digest(rules), one.shard.rules),
        ("verifier", here, one.shard.verifier),
    ):
        if mine != theirs:
            raise MergeError(
                f"{shards[0].name}: verified with {what} {theirs}, but this wikigate "
                f"would check the whole wiki with {mine}; merge with the same wikigate "
                "that made the shards"
            )
    # the default verifier's own whole-wiki checks: shards are its work (their reports
    # name its version, checked above), never a plug-in's
    whole = run_checks(
        Request(
            repo,
            tip,
            None,
            strictness=one.strictness,
            cache_path=cache_path,
            only=WHOLE_WIKI,
            progress=progress,
        )
    ).report
    parts = [s.report for s in shards]
    findings = sorted(_findings(parts, whole), key=finding_order)
    summary = _summary(parts, whole)
    summary.elapsed_ms = round(
        max(r.summary.elapsed_ms for r in parts) + (time.perf_counter() - started) * 1000, 2
    )
    exempt: list[str] = []
    for r in [*parts, whole]:
        exempt += [e for e in r.exempt if e not in exempt]
    return VerificationReport(
        run_id=None,
        base=None,
        tip=one.tip,
        strictness=one.strictness,
        verdict=verdict_for(findings),
        checks=_checks(parts, whole),
        findings=findings,
        summary=summary,
        exempt=exempt,
        judge=_judge(parts),
    )


def _judge(parts: list[VerificationReport]) -> JudgeSummary | None:
    """The shards' LLM judge summaries as one: every vote, the spend added up."""
    judged = [r.judge for r in parts if r.judge is not None]
    if not judged:
        return None
    one = judged[0]
    usage = JudgeUsageReport()
    for j in judged:
        for field in dataclasses.fields(JudgeUsageReport):
            setattr(usage, field.name, getattr(usage, field.name) + getattr(j.usage, field.name))
    usage.usd = round(usage.usd, 6)
    return one.model_copy(
        update={
            "votes": [v for j in judged for v in j.votes],
            "usage": usage,
            "planned": [p for j in judged for p in j.planned],
        }
    )


def _commit(repo: pygit2.Repository, sha: str, name: str) -> pygit2.Commit:
    try:
        commit = repo[sha].peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError) as e:
        raise MergeError(
            f"{name}: commit {sha} is not in this repository; run `wikigate report merge` "
            "in a checkout that has it (fetch it first)"
        ) from e
    assert isinstance(commit, pygit2.Commit)
    return commit


def _rules(repo: pygit2.Repository, tip: pygit2.Commit) -> Config:
    try:
        return config_at(repo, tip)
    except Exception:  # noqa: BLE001 - as the engine: broken rules verify as defaults, and block
        return Config()


def _findings(parts: list[VerificationReport], whole: VerificationReport) -> list[Finding]:
    """The shards ran only per-page checks, the whole-wiki run only the others: together
    they are every check's findings once (a failure of the engine itself is reported by
    each part it happened in)."""
    out = list(whole.findings)
    for r in parts:
        out += r.findings
    return out


def _checks(parts: list[VerificationReport], whole: VerificationReport) -> list[CheckResult]:
    by_name: dict[str, list[CheckResult]] = {}
    for r in parts:
        for c in r.checks:
            if c.name not in WHOLE_WIKI:
                by_name.setdefault(c.name, []).append(c)
    for c in whole.checks:
        if c.name not in PER_PAGE:
            by_name.setdefault(c.name, []).append(c)
    names = sorted(by_name, key=lambda n: ORDER.get(n, len(ORDER)))
    return [_one_check(name, by_name[name]) for name in names]


def _one_check(name: str, results: list[CheckResult]) -> CheckResult:
    """One check's results in several shards as one: an error anywhere is an error; a
    check some shard could not run (its needs were missing) is skipped, saying where."""
    ran = [c for c in results if c.status != "skipped"]
    unable = [c for c in results if c.status == "skipped" and c.reason]
    status: Literal["passed", "failed", "error", "skipped"]
    reason = None
    if any(c.status == "error" for c in results):
        status = "error"
    elif unable:
        status, reason = "skipped", f"in {len(unable)} of {len(results)} parts: {unable[0].reason}"
    elif not ran:
        status = "skipped"
    else:
        status = "failed" if any(c.status == "failed" for c in ran) else "passed"
    return CheckResult(
        name=name,
        status=status,
        duration_ms=round(sum(c.duration_ms for c in results), 2),
        findings=sum(c.findings for c in results),
        reason=reason,
    )


def _summary(parts: list[VerificationReport], whole: VerificationReport) -> SummaryMetrics:
    """Per-page counts summed over the shards; links from the whole-wiki run; ``pages``
    (the wiki's size, which every shard counts) from the shards."""
    out = SummaryMetrics(
        pages=max(r.summary.pages for r in parts),
        links=whole.summary.links,
    )
    for name in SUMMED:
        setattr(out, name, sum(getattr(r.summary, name) for r in parts))
    return out
