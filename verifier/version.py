"""What produced a verdict: wikigate's version and a digest of the code a verdict depends
on (the verifier's modules, the config and the models).  The server gate keys its cached
verdicts by it; an attestation names it."""

from __future__ import annotations

import hashlib
from pathlib import Path

_VERSION: list[str] = []


def code_version() -> str:
    """``<wikigate version>+<16 hex digits of the code's digest>``, computed once."""
    if not _VERSION:
        from wikigate import config, models

        here = Path(__file__).resolve().parent
        files = sorted(here.rglob("*.py"))
        digest = hashlib.sha256()
        for path in [*files, Path(str(config.__file__)), Path(str(models.__file__))]:
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
        _VERSION.append(f"{_installed_version()}+{digest.hexdigest()[:16]}")
    return _VERSION[0]


def _installed_version() -> str:
    import wikigate

    version = getattr(wikigate, "__version__", None)  # absent if a stray wikigate/ dir shadows
    if version is None:
        from importlib.metadata import version as dist_version

        version = dist_version("wikigate")
    return str(version)
