"""The product's default Verifier: the deterministic checks, offline, no API key."""

from __future__ import annotations

from .protocol import Request, Verification
from .version import code_version


class DeterministicVerifier:
    """Citations with quote anchors, pages, links and run policy, and the semantic judge
    the base commit's ``[judge]`` names; see docs/checks.md and docs/judge.md."""

    @property
    def version(self) -> str:
        """wikigate's version and a digest of the verifier's code."""
        return f"wikigate {code_version()}"

    def verify(self, request: Request) -> Verification:
        """``engine.run_checks``; a plain whole-wiki verify of a tree verified before
        returns the report kept then (reportcache.py), without importing the checks."""
        from .reportcache import through

        return through(request, _run_checks)


def _run_checks(request: Request) -> Verification:
    from .engine import run_checks

    return run_checks(request)


def default_verifier() -> DeterministicVerifier:
    return DeterministicVerifier()
