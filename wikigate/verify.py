"""The one way into verification: every gate builds a `Request` and calls :func:`verify`.

finalize, ``wikigate verify``, the pre-commit and pre-push hooks, the server gate, the bot
and the claim ledger all come through here; ``grep -rnE "import .*\\bverify$" wikigate hooks bot``
lists them.
This is where the verifier is chosen (the default, or the plug-in the rules name), and
where whatever it does wrong becomes a critical finding: it fails closed.

Which verifier: ``WIKIGATE_VERIFIER`` (the environment of whoever runs the gate: a
developer's shell, the server's hook, the bot's workflow), else ``[verifier] plugin`` of
the rules the request is judged by (the base commit's ``wikigate.toml``: never the
change's own), else the default (`wikigate.verifier.default`). A plug-in is
``module:factory``; ``factory()`` returns an object with ``verify(request)``.
"""

from __future__ import annotations

import importlib
import os
import traceback
from functools import cache
from pathlib import Path

import pygit2

from .codes import finding
from .config import Config, config_at
from .errors import ConfigError
from .models import Usage, VerifierVerdict
from .verifier.protocol import Request, Verification, Verifier, report_of

__all__ = ["Request", "Verification", "cache_path", "chosen_spec", "verdict_of", "verify"]

ENV = "WIKIGATE_VERIFIER"
DEFAULT = "wikigate.verifier.default:default_verifier"


def verify(request: Request, *, verifier: Verifier | None = None) -> Verification:
    """Verify ``request`` with ``verifier`` (None: the one :func:`chosen_spec` names).

    Never raises for what the verifier does: a plug-in that cannot be loaded, raises, or
    answers about other commits than the request's is a critical ``verifier.error``
    in the verification it returns. ``Verification.verifier`` names the class that ran.
    """
    spec = None
    try:
        if verifier is None:
            spec = chosen_spec(request)
            verifier = load(spec)
        done = verifier.verify(request)
        base = str(request.base.id) if request.base is not None else None
        for what, asked, said in (
            ("tip", str(request.tip.id), done.report.tip),
            ("base", base, done.report.base),
        ):
            if said != asked:
                raise ValueError(f"it reported on {what} {said}, not on the {what} asked ({asked})")
    except Exception as e:  # noqa: BLE001 - fail closed, always
        done = _failed(request, spec, e)
    done.verifier = name_of(verifier) if verifier is not None else f"{spec}"
    return done


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


def named(spec: str) -> str:
    """What the verifier ``spec`` names itself in attestations (:func:`name_of`), or a
    reason it cannot be loaded (which names no attestation)."""
    try:
        return name_of(load(spec))
    except Exception as e:  # noqa: BLE001 - said in words; it matches no attestation
        return f"<the verifier {spec!r} cannot be loaded: {e}>"


@cache
def load(spec: str) -> Verifier:
    """``module:factory`` → ``factory()``, once per process."""
    module, sep, attr = spec.partition(":")
    if not sep:
        raise ConfigError(f"verifier plugin {spec!r}: expected 'module:factory'")
    try:
        factory = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as e:
        raise ConfigError(f"verifier plugin {spec!r} cannot be loaded: {e}") from e
    made = factory()
    if not callable(getattr(made, "verify", None)):
        raise ConfigError(f"verifier plugin {spec!r} made {made!r}, which has no verify()")
    verifier: Verifier = made
    return verifier


def name_of(verifier: Verifier) -> str:
    """The class that ran, then the version it gives of itself (its ``version``, when it
    has one): what an attestation names and what the server compares with its own
    (hooks/attested.py). The class comes first: no verifier names another's."""
    kind = type(verifier)
    version = getattr(verifier, "version", None)
    name = f"{kind.__module__}:{kind.__qualname__}"
    return f"{name} {version}" if isinstance(version, str) and version else name


def _failed(request: Request, spec: str | None, e: Exception) -> Verification:
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
