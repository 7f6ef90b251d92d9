"""The one way into verification: every gate builds a `Request` and calls :func:`verify`.

finalize, ``wikigate verify``, the pre-commit and pre-push hooks, the server gate, the bot
and the claim ledger all come through here; ``grep -rnE "import .*\\bverify$" wikigate hooks bot``
lists them.
This is where the verifier is chosen (the default, or the plug-in the rules name), and
where whatever it does wrong becomes a critical finding: it fails closed. A verifier that
cannot be loaded decides nothing (`VerifierUnavailable`).

Which verifier: ``WIKIGATE_VERIFIER`` (the environment of whoever runs the gate: a
developer's shell, the server's hook, the bot's workflow), else ``[verifier] plugin`` of
the rules the request is judged by (the base commit's ``wikigate.toml``: never the
change's own), else the default (`wikigate.verifier.default`). A plug-in is
``module:factory``; ``factory()`` returns an object with ``verify(request)``.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import sys
import traceback
from functools import cache
from pathlib import Path

import pygit2

from .codes import finding, verdict_for
from .config import Config, config_at
from .errors import ConfigError
from .models import Usage, VerifierVerdict
from .verifier.protocol import Request, Verification, Verifier, report_of

__all__ = [
    "Request",
    "Verification",
    "VerifierUnavailable",
    "cache_path",
    "chosen_spec",
    "name_for",
    "spec_for",
    "verdict_of",
    "verify",
]

ENV = "WIKIGATE_VERIFIER"
DEFAULT = "wikigate.verifier.default:default_verifier"


class VerifierUnavailable(ConfigError):
    """The verifier the rules (or ``WIKIGATE_VERIFIER``) name cannot be loaded here: this
    gate cannot decide. Nothing lands and nothing is decided (a run stays pending, a pull
    request open) until it can be loaded; the error says which and why."""


def verify(request: Request, *, verifier: Verifier | None = None) -> Verification:
    """Verify ``request`` with ``verifier`` (None: the one :func:`chosen_spec` names).

    A verifier that cannot be loaded is a `VerifierUnavailable` error (the gate cannot
    decide). Otherwise this never raises for what the verifier does: one that raises
    (``SystemExit`` included) or answers about other commits than the request's is a
    critical ``verifier.error`` in the verification it returns, and a verdict milder than
    its own findings is raised to theirs. ``Verification.verifier`` names what ran, from
    what was loaded, never from what the verifier says of itself.
    """
    if verifier is None:
        spec = chosen_spec(request)
        verifier, name = load(spec), name_for(spec)
    else:
        spec, name = None, name_of(verifier)
    try:
        done = verifier.verify(request)
        base = str(request.base.id) if request.base is not None else None
        for what, asked, said in (
            ("tip", str(request.tip.id), done.report.tip),
            ("base", base, done.report.base),
        ):
            if said != asked:
                raise ValueError(f"it reported on {what} {said}, not on the {what} asked ({asked})")
        findings = verdict_for(done.report.findings)
        if RANK[findings] > RANK[done.report.verdict]:  # a verdict its findings contradict
            done.report = done.report.model_copy(update={"verdict": findings})
    except (Exception, SystemExit) as e:  # noqa: BLE001 - fail closed, always (not Ctrl-C)
        done = _failed(request, spec, e)
    done.verifier = name
    return done


# how far each verdict is from landing: a verification's verdict is at least its findings'
RANK = {"commit": 0, "needs_human_review": 1, "revise": 2, "reject": 3}


def chosen_spec(request: Request) -> str:
    """The plug-in this request is verified by (see the module's docstring)."""
    if os.environ.get(ENV):
        return spec_for(None)
    try:
        rules = request.rules or config_at(
            request.repo, request.base if request.base is not None else request.tip
        )
    except Exception:  # noqa: BLE001 - unreadable rules: the default verifier reports why
        rules = Config()
    return spec_for(rules)


def spec_for(rules: Config | None) -> str:
    """``WIKIGATE_VERIFIER``, else the plug-in ``rules`` name, else the default."""
    return os.environ.get(ENV) or (rules.verifier.plugin if rules is not None else None) or DEFAULT


def named(spec: str) -> str | None:
    """What the verifier ``spec`` is called in attestations (:func:`name_for`), when it can
    be loaded here; None when it cannot (then no attestation names it)."""
    try:
        load(spec)
    except ConfigError:
        return None
    return name_for(spec)


@cache
def load(spec: str) -> Verifier:
    """``module:factory`` → ``factory()``, once per process; `VerifierUnavailable` saying
    why it cannot be."""
    module, sep, attr = spec.partition(":")
    if not sep:
        raise VerifierUnavailable(f"verifier plugin {spec!r}: expected 'module:factory'")
    try:
        factory = getattr(importlib.import_module(module), attr)
        made = factory()
    except Exception as e:  # noqa: BLE001 - any failure to load is said in words
        raise VerifierUnavailable(
            f"the verifier plug-in {spec!r} cannot be loaded here ({type(e).__name__}: {e}); "
            "install it where this gate runs, or change [verifier] plugin in wikigate.toml"
        ) from e
    if not callable(getattr(made, "verify", None)):
        raise VerifierUnavailable(f"verifier plugin {spec!r} made {made!r}, which has no verify()")
    verifier: Verifier = made
    return verifier


@cache
def name_for(spec: str) -> str:
    """What a verifier loaded from ``spec`` is called: the spec, then the default
    verifier's version (wikigate's, with a digest of its code) or a digest of the plug-in
    module's source. It comes from what was loaded, never from the verifier's own words:
    attestations carry it, and the server takes only its own (hooks/attested.py)."""
    loaded = load(spec)
    if spec == DEFAULT:
        return f"{DEFAULT} {loaded.version}"  # type: ignore[attr-defined]
    return f"{spec} source:{_source_digest(spec.partition(':')[0])}"


def name_of(verifier: Verifier) -> str:
    """What a verifier object handed in by a Python caller is called: the default's name
    when it is the default verifier's own class, else ``object:module:Class`` (which names
    no spec, so no server takes it for its own)."""
    if type(verifier) is type(load(DEFAULT)):
        return name_for(DEFAULT)
    kind = type(verifier)
    return f"object:{kind.__module__}:{kind.__qualname__}"


def _source_digest(module: str) -> str:
    path = getattr(sys.modules.get(module), "__file__", None)
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16] if path else "none"
    except OSError:
        return "none"


def _failed(request: Request, spec: str | None, e: BaseException) -> Verification:
    where = traceback.extract_tb(e.__traceback__)[-1] if e.__traceback__ else None
    at = f" (at {os.path.basename(where.filename)}:{where.lineno})" if where else ""
    who = f"the verifier {spec!r}" if spec else "the verifier"
    found = finding(
        "verifier.error", None, None, f"{who} failed: {type(e).__name__}: {e}{at}; failing closed"
    )
    try:
        return report_of(request, [found], check="verifier")
    except Exception:  # noqa: BLE001 - even the rules unreadable: still a report
        return report_of(
            Request(request.repo, request.tip, request.base, request.plan, strictness="CALM"),
            [found],
            check="verifier",
        )


def cache_path(repo: pygit2.Repository) -> Path:
    """The verifier's cache of this repository (``.git/wikigate/cache.db``)."""
    return Path(repo.path) / "wikigate" / "cache.db"


def verdict_of(done: Verification) -> VerifierVerdict:
    """A verification as the run's vote: findings split per claim and per page, the
    judge's spend as the verifier's usage, its artifacts beside."""
    report = done.report
    claims = [f for f in report.findings if f.code.startswith("citation.")]
    pages = [f for f in report.findings if not f.code.startswith("citation.")]
    counts = report.counts()
    verdict = VerifierVerdict(
        verdict=report.verdict,
        reasoning=(
            f"{counts['critical']} critical, {counts['major']} major, "
            f"{counts['minor']} minor findings ({report.strictness})"
        ),
        per_claim_findings=claims,
        per_page_findings=pages,
        preset=f"deterministic:{report.strictness}",
        report=report.model_dump(mode="json"),
        verifier=done.verifier,
    )
    judge = report.judge
    if judge is not None:
        u = judge.usage
        verdict.tokens_used = Usage(
            input_tokens=u.input_tokens + u.cache_write_tokens + u.cache_read_tokens,
            output_tokens=u.output_tokens,
            usd=u.usd,
        )
        verdict.preset = f"{judge.name}:{judge.model}:{report.strictness}"
    if not done.artifacts.empty:
        verdict.artifacts = done.artifacts.files()
    return verdict
