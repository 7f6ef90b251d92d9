"""What produced a verdict: wikigate's version and a digest of the code a verdict depends
on (the verifier's modules and the package's top-level modules: the config, the models, the
codes' severities and hints).  The server gate keys its cached
verdicts by it; an attestation names it."""

from __future__ import annotations

import hashlib
import os
import re
import sys
from functools import lru_cache
from pathlib import Path

_VERSION: list[str] = []


def code_version() -> str:
    """``<wikigate version>+<16 hex digits of the code's digest>``, computed once."""
    if not _VERSION:
        digest = hashlib.sha256()
        for path in code_files():
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
        _VERSION.append(f"{_installed_version()}+{digest.hexdigest()[:16]}")
    return _VERSION[0]


def code_files() -> list[Path]:
    """The files of ``code_version``'s digest: the verifier's modules, and every module of
    the package's top level it may call (codes.py's severities and hints, text.py, paths.py,
    gitrepo.py, config.py, models.py…): a change to any of them is another verifier (review
    38b: codes.py was not in the digest, so cached reports outlived a change of severity)."""
    import wikigate

    here = Path(__file__).resolve().parent
    top = Path(str(wikigate.__file__)).resolve().parent
    return sorted(here.rglob("*.py")) + sorted(top.glob("*.py"))


def _installed_version() -> str:
    import wikigate

    version = getattr(wikigate, "__version__", None)  # absent if a stray wikigate/ dir shadows
    if version is None:
        from importlib.metadata import version as dist_version

        version = dist_version("wikigate")
    return str(version)


def installed(name: str) -> str:
    """The version of the installed distribution ``name`` ("none" when it is not
    installed): the one ``importlib.metadata`` finds, the first ``<name>-<version>.dist-info``
    (or ``.egg-info``) on ``sys.path``, read from the directory's name. Importing
    ``importlib.metadata`` and reading METADATA files (``email``) cost every hook process
    ~25 ms of CPU; a metadata directory whose name carries no version is asked of
    ``importlib.metadata`` as before."""
    found = _on_path().get(_normal(name))
    if found is None:
        return "none"
    if found:
        return found
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "none"


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


@lru_cache(maxsize=1)
def _on_path() -> dict[str, str]:
    """Each distribution's metadata directory first on ``sys.path``, by normalised name:
    its version as the name gives it ("" when it gives none)."""
    out: dict[str, str] = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for found in sorted(names):
            stem, _, kind = found.rpartition(".")
            if kind in ("dist-info", "egg-info"):
                dist, _, version = stem.partition("-")
                out.setdefault(_normal(dist), version)
    return out
