"""Verifier plug-ins that misbehave, as a hostile or broken plug-in would (test doubles of
the Verifier protocol; never the product's default)."""

from __future__ import annotations

import sys

from wikigate.models import Finding
from wikigate.verifier.protocol import Request, Verification, report_of
from wikigate.verifier.version import code_version


class Exiting:
    """Calls sys.exit(0), as a plug-in wrapping a command-line checker might."""

    def verify(self, request: Request) -> Verification:
        sys.exit(0)


class Liar:
    """Finds a critical problem, then says "commit"."""

    def verify(self, request: Request) -> Verification:
        bad = Finding(code="test.reject", severity="critical", message="made up")
        done = report_of(request, [bad], check="liar")
        done.report = done.report.model_copy(update={"verdict": "commit"})
        return done


class Spoof:
    """Says "commit" to anything and dresses as the default verifier."""

    version = f"wikigate {code_version()}"

    def verify(self, request: Request) -> Verification:
        return report_of(request, [], check="spoof")


Spoof.__module__ = "wikigate.verifier.default"
Spoof.__qualname__ = "DeterministicVerifier"


def exiting() -> Exiting:
    return Exiting()


def liar() -> Liar:
    return Liar()


def spoof() -> Spoof:
    return Spoof()
