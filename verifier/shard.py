"""Shards of a whole-wiki verify: which pages shard K of N checks, and what a shard's
report must agree on with its siblings to be merged (verifier/merge.py).

A page's shard depends on its path alone: the first 8 bytes of the SHA-256 of the path
(UTF-8), as a big-endian integer, modulo N, plus one.  Adding or removing pages never
moves another page to a different shard (only changing N does), and every machine,
Python and process agrees on it (unlike ``hash()``, which is salted per process).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from wikigate import __version__
from wikigate.config import Config

from .version import installed

if TYPE_CHECKING:
    from .report import VerificationReport

# the libraries whose versions change what the checks find (parsing pages, reading PDFs,
# reading numbers in the offline judge)
FINDERS = ("markdown-it-py", "mdit-py-plugins", "syntok", "PyYAML", "pypdf", "text2num")
_SPEC = re.compile(r"([0-9]+)/([0-9]+)")


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if not 1 <= self.index <= self.count:
            raise ValueError(f"shard {self.index}/{self.count}: K must be between 1 and N")

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"K/N"`` with 1 ≤ K ≤ N; ValueError saying what is wrong otherwise."""
        m = _SPEC.fullmatch(text.strip())
        if m is None:
            raise ValueError(f"{text!r} is not K/N (for example 2/4: the second of four shards)")
        return cls(int(m.group(1)), int(m.group(2)))

    def holds(self, path: str) -> bool:
        return shard_of(path, self.count) == self.index

    def pages(self, pages: list[str]) -> list[str]:
        """The pages of this shard, in the order given."""
        return [p for p in pages if self.holds(p)]


def shard_of(path: str, count: int) -> int:
    """The shard (1..count) that checks the page at ``path``."""
    digest = hashlib.sha256(path.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def rules_digest(config: Config) -> str:
    """A digest of the rules a verification applied (the parsed ``wikigate.toml``, defaults
    included), so that shards verified under different rules are never merged."""
    return "sha256:" + hashlib.sha256(config.model_dump_json().encode()).hexdigest()


def content_digest(report: VerificationReport) -> str:
    """A digest of a report's content, all but its ``shard`` section: what a shard found
    (findings, checks, summary, the judge's votes). ``report merge`` recomputes it, so a
    report edited after ``verify`` wrote it (a finding deleted) is refused; an editor who
    also rewrites the digest is caught only by a signature (``statement``)."""
    data = report.model_dump(mode="json", exclude={"shard"})
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def statement(report: VerificationReport) -> bytes:
    """What a shard's signature vouches for: the commit, tree, rules, verifier, strictness,
    its K/N and its content digest, as canonical JSON (a signature over anything else, an
    attestation's included, never reads as one)."""
    shard = report.shard
    if shard is None:
        raise ValueError("not a shard's report")
    data = {
        "kind": "wikigate shard report",
        "version": 1,
        "tip": report.tip,
        "tree": shard.tree,
        "rules": shard.rules,
        "verifier": shard.verifier,
        "strictness": report.strictness,
        "shard": f"{shard.index}/{shard.count}",
        "digest": shard.digest,
    }
    return json.dumps(data, sort_keys=True, separators=(",", ":")).encode()


def verifier_version(judge: str) -> str:
    """What produced the findings: wikigate, the libraries that parse what it checks, and
    the semantic judge.  Shards made by different verifiers are never merged."""
    made_by = [f"wikigate={__version__}"] + [f"{name}={installed(name)}" for name in FINDERS]
    return "/".join([*made_by, f"judge={judge}"])
