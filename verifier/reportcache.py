"""The whole-wiki report cache of ``wikigate verify --all``.

A whole-wiki verification with the offline judge reads the commit's tree alone: the
pages, the sources under raw/ and the rules (``wikigate.toml`` of that tree: the tip's,
never the working tree's) are all in it. So when nothing it depends on changed, the
report is the same: the row keeps it, keyed by a digest of the tree id, the blob of the
rules file it read, the preset, the judge (offline), the verifier's code
(``version.code_version``), the libraries that parse (``shard.verifier_version``) and the
cache's version (``wiki.cache_version``, ``CACHE_FORMAT`` in it). A hit returns the report
without reading the per-page verdict rows (``verdicts.py``) or any page; only the tip
commit (a commit of the same tree) and the elapsed time are this verification's.

It applies only to a plain ``verify --all``: no base, run, shard, pages, ``only``, rules
handed in, dry run or walks, and the offline judge (the LLM judge's votes have their own
cache and budget). A report is kept only when every check ran through (no
``verifier.error``, no spent budget). A row that cannot be read back (garbage, a digest
that does not match its text, another shape) is a miss: the wiki is verified again and
the row written anew.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from wikigate.config import CONFIG_FILE, config_at
from wikigate.plain import quick_validate

from .protocol import Verification
from .report import VerificationReport

if TYPE_CHECKING:
    from .cache import Cache
    from .protocol import Request

FORMAT = "report1"
NOT_KEPT = ("verifier.error", "verifier.budget")


def through(request: Request, verify: Callable[[Request], Verification]) -> Verification:
    """``verify(request)``, or for a plain whole-wiki verify the report kept for what it
    depends on (kept when it was computed: ``keep``). A hit is a `Verification` of the
    report alone (no judgment, anchors or pages: what ``verify --all`` reads)."""
    started = time.perf_counter()
    if request.base is not None or request.cache_path is None:
        return verify(request)
    from .wiki import PageCache

    cache = PageCache(request.cache_path)
    try:
        key = whole_key(request, cache.tag) if cache.conn is not None else None
        found = lookup(cache, key, request, started) if key is not None else None
        if found is not None:
            return Verification(found)
        done = verify(request)
        if key is not None:
            keep(cache, key, done.report)
        return done
    finally:
        cache.close()


def whole_key(request: Request, tag: str) -> str | None:
    """The row's key of ``request``'s report (``tag``: the cache's version), or None when
    the cache does not apply to it (see the module's docstring)."""
    if (
        request.base is not None
        or request.plan is not None
        or request.only is not None
        or request.pages is not None
        or request.shard is not None
        or request.rules is not None
        or request.judge_dry_run
        or request.walks is not None
        or request.declared_scope is not None
        or request.declared_direction is not None
        or request.cache_path is None
    ):
        return None
    from .judges.choose import chosen_provider
    from .shard import verifier_version
    from .version import code_version

    repo, tip = request.repo, request.tip
    try:
        config = config_at(repo, tip)  # what the engine reads: the tip's tree
        provider = chosen_provider(config, request.judge, may_lower=request.judge_may_lower)
        rules = str(tip.tree[CONFIG_FILE].id) if CONFIG_FILE in tip.tree else "-"  # noqa: SIM401
    except Exception:  # noqa: BLE001 - unreadable rules: the engine reports why, uncached
        return None
    if provider != "offline":
        return None
    material = "\0".join(
        [
            FORMAT,
            tag,
            code_version(),
            verifier_version(provider),
            str(tip.tree_id),
            rules,  # the rules' bytes as the engine reads them (their blob)
            request.strictness or config.verifier.strictness,
            provider,
        ]
    )
    return hashlib.blake2b(material.encode("utf-8", "surrogatepass"), digest_size=20).hexdigest()


def lookup(cache: Cache, key: str, request: Request, started: float) -> VerificationReport | None:
    """The stored report of ``key``, as this verification's (its tip, its elapsed time),
    or None (no row, or one that cannot be read back)."""
    report = decoded(cache.report(key))
    if report is None or report.base is not None or report.run_id is not None:
        return None
    summary = report.summary.model_copy(
        update={"elapsed_ms": round((time.perf_counter() - started) * 1000, 2)}
    )
    return report.model_copy(update={"tip": str(request.tip.id), "summary": summary})


def keep(cache: Cache, key: str, report: VerificationReport) -> None:
    """Store ``report`` under ``key`` when every check ran through."""
    if report.judge is not None or any(c.status == "error" for c in report.checks):
        return
    if any(f.code in NOT_KEPT for f in report.findings):
        return
    cache.store_report(key, encoded(report))


def encoded(report: VerificationReport) -> str:
    text = report.model_dump_json()
    return f"{_digest(text)}:{text}"


def decoded(data: str | None) -> VerificationReport | None:
    """A row read back; None for one that is not a report's."""
    if not data:
        return None
    digest, _, text = data.partition(":")
    if _digest(text) != digest:
        return None
    try:
        found = json.loads(text)
        report = quick_validate(VerificationReport, found)
        if report is None:
            report = VerificationReport.model_validate(found)
    except (ValueError, TypeError, KeyError, AttributeError):  # pydantic's are ValueErrors
        return None
    return report


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
