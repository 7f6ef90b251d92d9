"""The whole-wiki report cache of ``wikigate verify --all``.

A whole-wiki verification with the offline judge reads the commit's tree alone: the
pages, the sources under raw/ and the rules (``wikigate.toml`` of that tree: the tip's,
never the working tree's) are all in it. So when nothing it depends on changed, the
report is the same: the row keeps it, keyed by a digest of the tree id, the blob of the
rules file it read, the preset, the judge (offline), the verifier's code
(``version.code_version``: every module of the verifier, ``wiki.py``'s ``CACHE_FORMAT``
with them), the libraries that parse (``shard.verifier_version``) and the Python: what the
cache's version (``wiki.cache_version``) names, read without importing ``wiki.py``. A hit
returns the report without reading the per-page verdict rows (``verdicts.py``) or any
page, and without importing the engine or any check; only the tip commit (a commit of the
same tree) and the elapsed time are this verification's.

It applies only to a plain ``verify --all``: no base, run, shard, pages, ``only``, rules
handed in, dry run or walks, and the offline judge (the LLM judge's votes have their own
cache and budget). A report is kept only when every check ran through (no
``verifier.error``, no spent budget). A row that cannot be read back (garbage, a digest
that does not match its text, another shape) is a miss: the wiki is verified again and
the row written anew; so is a row whose report is of another tree (moved under this key).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pygit2

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
    report alone (no judgment, anchors or pages: what ``verify --all`` reads); it reads one
    row with ``sqlite3`` and imports neither the engine nor the page cache (``wiki.py``)."""
    started = time.perf_counter()
    key = whole_key(request) if request.base is None else None
    if key is None or request.cache_path is None:
        return verify(request)
    found = lookup(request.cache_path, key, request, started)
    if found is not None:
        return Verification(found)
    done = verify(request)
    from .wiki import PageCache  # imported by the verification anyway

    cache = PageCache(request.cache_path)
    try:
        keep(cache, key, done.report)
    finally:
        cache.close()
    return done


def whole_key(request: Request) -> str | None:
    """The row's key of ``request``'s report, or None when the cache does not apply to it
    (see the module's docstring). What the cache's version (``wiki.cache_version``) names
    is in it: ``CACHE_FORMAT`` through the digest of the verifier's code, the libraries
    through ``verifier_version``, and the Python."""
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
            f"py{sys.version_info[0]}.{sys.version_info[1]}-{sys.implementation.name}",
            code_version(),
            verifier_version(provider),
            str(tip.tree_id),
            rules,  # the rules' bytes as the engine reads them (their blob)
            request.strictness or config.verifier.strictness,
            provider,
        ]
    )
    return hashlib.blake2b(material.encode("utf-8", "surrogatepass"), digest_size=20).hexdigest()


def lookup(path: Path, key: str, request: Request, started: float) -> VerificationReport | None:
    """The stored report of ``key`` in the cache file ``path``, as this verification's (its
    tip, its elapsed time), or None (no row, or one that cannot be read back, or one that is
    not of this tree and preset: a row moved under another key)."""
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
        try:
            row = conn.execute("SELECT data FROM reports WHERE tree = ?", (key,)).fetchone()
        finally:
            conn.close()
        data = bytes(row[0]).decode("utf-8") if row is not None else None
    except (sqlite3.Error, TypeError, ValueError):  # no file, no table, not bytes: a miss
        return None
    report = decoded(data)
    if report is None or report.base is not None or report.run_id is not None:
        return None
    repo, tip = request.repo, request.tip
    try:
        written = repo[report.tip]  # the commit it was written for: of this very tree
        same_tree = isinstance(written, pygit2.Commit) and written.tree_id == tip.tree_id
    except (KeyError, ValueError):
        same_tree = False
    if not same_tree or report.strictness != (request.strictness or report.strictness):
        return None
    summary = report.summary.model_copy(
        update={"elapsed_ms": round((time.perf_counter() - started) * 1000, 2)}
    )
    return report.model_copy(update={"tip": str(tip.id), "summary": summary})


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
