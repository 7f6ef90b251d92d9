"""The wiki's health at one commit (``wikigate health``), and the state of each claim and
page (``wikigate claims``, ``wikigate pages``): docs/health.md.

One whole-wiki verification of the commit, offline (the citations, pages and links checks,
through the verification cache: a warm run reads no page again), gives each page's
statements (cited, gap-marked, neither), its claims and whether each quote is at its
anchor, and the orphans; the consistency check's rules over every claim give the open
contradictions. A claim is

- ``stale``: its quote is nowhere in its source, and a source it cites changed under it
  since the commit that gave the claim its present text, its quote in it then (the gate's
  one rule: verifier/checks/citations.py ``staleness``; a quote still in the source at
  another offset is re-anchorable: unverified; a quote never in its source: unverified);
- ``disputed``: kept as history in a ``::: disputed`` block: stale there beside the
  block's dated update citing its source (after it; a block alone keeps it stale), or
  verifying and not the block's dated update (it gets no finding, and leaves its page's
  state alone);
- ``contested``: it is one side of an open contradiction (claim.contradiction,
  claim.source_conflict, claim.gap_contradiction: a gap-marked statement against it) or of
  a possible one (claim.possible_contradiction: maybe another thing, counted apart);
- ``unverified``: its quote is not at its anchor (or it has none), or the LLM judge's last
  vote on it was not ``supports``;
- ``fresh``: none of these.

A page's state is its worst claim's (stale, contested, unverified, fresh), its disputed
claims left out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import pygit2

from .config import Config
from .errors import UsageError, WikigateError
from .verifier.checks.citations import kept_as_history, staleness
from .verifier.checks.consistency import gap_claims, open_contradictions
from .verifier.checks.pages import accounting, prose_sources
from .verifier.citation import Citation
from .verifier.claims import PageClaim, is_update, page_claims
from .verifier.default import DeterministicVerifier
from .verifier.markdown import ParsedPage
from .verifier.wiki import PageCache, WikiTree
from .verify import Request, verify

State = Literal["fresh", "stale", "contested", "unverified", "disputed"]
# a page's, worst first (a disputed claim is history: it leaves its page's state alone)
STATES: tuple[State, ...] = ("stale", "contested", "unverified", "fresh")
RATIOS = ("coverage", "anchored", "supported")  # higher is better, 0..1
COUNTS = ("contradictions", "possible_contradictions", "stale", "orphans")  # lower is better
POSSIBLE = "claim.possible_contradiction"  # counted apart from the contradictions
# shown, with their deltas, never a regression: a gap marker is an honest "no source"
FIGURES = ("pages", "claims", "statements", "gaps", "judged")
SCHEMA_VERSION = 1
CHECKS = frozenset({"citations", "pages", "links"})
NOT_SUPPORTED = frozenset({"partial", "contradicts", "unsupported", "inconclusive", "flaky"})


@dataclass
class PageHealth:
    page: str
    state: State
    statements: int  # sentences that assert something: cited, gap-marked or neither
    accounted: int  # cited or gap-marked
    gaps: int  # [gap: …] markers
    claims: int
    anchored: int
    judged: int  # claims the LLM judge voted on (its last vote, as the ledger keeps it)
    supported: int
    contradictions: int  # open contradictions one of its claims is a side of
    possible_contradictions: int  # possible ones (claim.possible_contradiction)
    stale: int
    orphan: bool


@dataclass
class Health:
    """The figures of one commit: per page, and for the wiki."""

    commit: str
    pages: list[PageHealth] = field(default_factory=list)
    claims: dict[str, State] = field(default_factory=dict)  # claim id → state
    contradictions: int = 0  # open contradictions, each pair once
    possible_contradictions: int = 0  # pairs that may be about two things, each once

    def figures(self) -> dict[str, float | int | None]:
        """The wiki's figures: the ratios (None: nothing to measure) and the counts."""
        statements = sum(p.statements for p in self.pages)
        claims = sum(p.claims for p in self.pages)
        judged = sum(p.judged for p in self.pages)
        return {
            "coverage": _ratio(sum(p.accounted for p in self.pages), statements),
            "anchored": _ratio(sum(p.anchored for p in self.pages), claims),
            "supported": _ratio(sum(p.supported for p in self.pages), judged),
            "contradictions": self.contradictions,
            "possible_contradictions": self.possible_contradictions,
            "stale": sum(p.stale for p in self.pages),
            "orphans": sum(p.orphan for p in self.pages),
            "pages": len(self.pages),
            "claims": claims,
            "statements": statements,
            "gaps": sum(p.gaps for p in self.pages),
            "judged": judged,
        }

    def to_json(self, baseline: Health | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "commit": self.commit,
            "wiki": self.figures(),
            "pages": [asdict(p) for p in self.pages],
        }
        if baseline is not None:
            out["baseline"] = {
                "commit": baseline.commit,
                "wiki": baseline.figures(),
                "delta": deltas(self, baseline),
                "regressions": regressions(self, baseline),
            }
        return out


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def deltas(now: Health, before: Health) -> dict[str, float | int | None]:
    """Each figure's change since ``before`` (None where either side has none)."""
    a, b = now.figures(), before.figures()
    out: dict[str, float | int | None] = {}
    for name, value in a.items():
        old = b[name]
        out[name] = None if value is None or old is None else round(value - old, 4)
    return out


def regressions(now: Health, before: Health) -> list[str]:
    """The figures that got worse: a ratio lower, a count of problems higher."""
    change = deltas(now, before)
    worse = [n for n in RATIOS if (d := change[n]) is not None and d < 0]
    return worse + [n for n in COUNTS if (d := change[n]) is not None and d > 0]


def below(health: Health, floors: Mapping[str, float]) -> list[str]:
    """The ratios under their floor (``--fail-under``), as "coverage 0.8 < 0.9"; a floor on
    a figure nothing measured (``supported`` when no judge voted) fails too: a CI holding a
    floor must not pass because the figure is missing."""
    figures = health.figures()
    out = []
    for name, floor in floors.items():
        value = figures[name]
        if value is None:
            out.append(f"{name} not measured (nothing to measure it on) < {floor}")
        elif value < floor:
            out.append(f"{name} {value} < {floor}")
    return out


def parse_floors(*texts: str) -> dict[str, float]:
    """``coverage=0.9,anchored=0.95`` (each ``--fail-under`` given) → {"coverage": 0.9,
    "anchored": 0.95}. Spaces around a name or a value are read past, the same on either
    side of ``=``; an error quotes the option as it was given."""
    return _limits("--fail-under", RATIOS, texts)


def parse_ceilings(*texts: str) -> dict[str, float]:
    """``contradictions=0,stale=0`` (each ``--fail-over`` given) → {"contradictions": 0,
    "stale": 0}: the counts a CI holds to at most a number (trial 40: "no open
    contradictions" could not be held, only "no more than at the baseline")."""
    return _limits("--fail-over", COUNTS, texts)


def _limits(option: str, names: tuple[str, ...], texts: tuple[str, ...]) -> dict[str, float]:
    ratio = names == RATIOS
    out: dict[str, float] = {}
    for text in texts:
        for part in (p.strip() for p in text.split(",")):
            if not part:  # review 37b: "" or "a,,b" (an empty CI variable) set no floor unseen
                raise UsageError(
                    f"{option}: {text!r} has an empty part: give NAME=VALUE, "
                    f"NAME one of {', '.join(names)}"
                )
            name, sep, value = (s.strip() for s in part.partition("="))
            if not sep or name not in names:
                raise UsageError(
                    f"{option}: {part!r} is not NAME=VALUE with NAME one of {', '.join(names)}"
                )
            try:  # ASCII only: float() reads "\u0661" (review 37b)
                limit = float(value) if value.isascii() else -1.0
            except ValueError:
                limit = -1.0
            if ratio and not 0 <= limit <= 1:
                raise UsageError(f"{option}: {name} takes a number from 0 to 1, not {value!r}")
            if not ratio and not (value.isascii() and value.isdigit()):
                raise UsageError(
                    f"{option}: {name} takes a whole number (0 or more), not {value!r}"
                )
            if name in out:  # review 36b: the last silently won, a CI's floor lost unseen
                raise UsageError(
                    f"{option}: {name} is given twice ({name}={out[name]:g} and {part!r}): "
                    "give each figure one limit"
                )
            out[name] = limit
    return out


def above(health: Health, ceilings: Mapping[str, float]) -> list[str]:
    """The counts over their ceiling (``--fail-over``), as "contradictions 2 > 0"."""
    figures = health.figures()
    return [
        f"{name} {figures[name]} > {ceiling:g}"
        for name, ceiling in ceilings.items()
        if (figures[name] or 0) > ceiling
    ]


# ---------------------------------------------------------------- measuring


def measure(
    repo: pygit2.Repository,
    commit: pygit2.Commit,
    config: Config,
    *,
    cache_path: Path | None,
    votes: Mapping[str, tuple[str, str]] | None = None,
) -> Health:
    """The health of the wiki at ``commit``; ``votes``: the LLM judge's last vote on each
    claim (claim id → (vote, the claim's sentence it was cast on)), from the ledger."""
    done = verify(
        Request(
            repo,
            commit,
            None,
            strictness="SKEPTICAL",
            rules=config,
            only=CHECKS,
            cache_path=cache_path,
        ),
        verifier=DeterministicVerifier(),
    )
    if done.anchors is None or done.pages is None:
        why = "; ".join(f.message for f in done.report.findings) or "it did not run"
        raise WikigateError(f"the verification of {str(commit.id)[:12]} failed: {why}")
    anchors, parsed = done.anchors, done.pages
    orphans = {f.path for f in done.report.findings if f.code == "page.orphan"}
    uncited = {f.path for f in done.report.findings if f.code == "page.uncited"}
    structural = config.wiki.layout().structural
    claims = {path: page_claims(page) for path, page in sorted(parsed.items())}
    every = [c for cs in claims.values() for c in cs]

    def anchored(c: PageClaim) -> bool:
        found = anchors.get((c.page, c.label))
        return c.offset is not None and found is not None and getattr(found, "code", 1) is None

    cache = PageCache(cache_path)
    try:
        layout = config.wiki.layout()
        tree = f"{commit.tree_id}@{layout.root}:{'|'.join(layout.exclude)}"
        gaps = [g for page in parsed.values() for g in gap_claims(page)]
        pairs = open_contradictions(
            every, config.consistency.max_candidates, gaps=gaps, cache=cache, key=tree
        )
        linked = _prose_sources(repo, commit, config, cache, parsed, structural)
    finally:
        cache.close()
    contested: dict[str, int] = {}
    per_page: dict[str, int] = {}
    possible_per_page: dict[str, int] = {}
    for a, b, f in pairs:
        for c in (a, b):
            contested[c.id] = contested.get(c.id, 0) + 1
        counts = possible_per_page if f.code == POSSIBLE else per_page
        for where in {a.page, b.page}:
            counts[where] = counts.get(where, 0) + 1
    possible = sum(f.code == POSSIBLE for _, _, f in pairs)
    # a quote found nowhere: stale if a source it cites changed under it since the claim was
    # given its text (citations.staleness, the gate's rule); a quote still in its source at
    # another offset is re-anchorable (unverified: `anchor --fix`), not stale. A claim in a
    # disputed block is history (no finding: docs/ledger.md): stale there beside its
    # block's dated update citing its source (citations.kept_as_history, the gate's rule;
    # a block alone keeps it stale), or verifying and not the block's dated update, it is
    # `disputed`, its own state, not the page's
    failing = [c for c in every if (c.page, c.label) not in anchors]
    changed, history = _stale(repo, commit, config, cache_path, failing)
    kept = {
        c.id
        for c in every
        if c.disputed
        and (
            (c.id in changed and (c.label, c.use) in history.get(c.page, ()))
            or (anchored(c) and not is_update(c.sentence))
        )
    }
    stale = changed - kept
    health = Health(
        str(commit.id), contradictions=len(pairs) - possible, possible_contradictions=possible
    )
    votes = votes or {}
    for path, page in sorted(parsed.items()):
        mine = claims[path]
        states: list[State] = []
        judged = supported = 0
        for c in mine:
            vote = votes.get(c.id)
            if vote is not None and vote[1] == c.sentence:
                judged += 1
                supported += vote[0] == "supports"
            state: State
            if c.id in kept:
                state = "disputed"
            elif c.id in stale:
                state = "stale"
            elif c.id in contested:
                state = "contested"
            elif not anchored(c) or (vote is not None and vote[0] in NOT_SUPPORTED):
                state = "unverified"
            else:
                state = "fresh"
            health.claims[c.id] = state
            states.append(state)
        counted = accounting(
            page, structural=path in structural, uncited=path in uncited, linked=linked.get(path)
        )
        health.pages.append(
            PageHealth(
                page=path,
                state=next((s for s in STATES if s in states), "fresh"),
                statements=counted.statements,
                accounted=counted.accounted,
                gaps=counted.gaps,
                claims=len(mine),
                # a claim kept as history is no unanchored one (review 41a #20: the
                # documented repair lowered `anchored` for good)
                anchored=sum(anchored(c) or c.id in kept for c in mine),
                judged=judged,
                supported=supported,
                contradictions=per_page.get(path, 0),
                possible_contradictions=possible_per_page.get(path, 0),
                stale=sum(c.id in stale for c in mine),
                orphan=path in orphans,
            )
        )
    return health


def _prose_sources(
    repo: pygit2.Repository,
    commit: pygit2.Commit,
    config: Config,
    cache: PageCache,
    parsed: Mapping[str, ParsedPage],
    structural: frozenset[str] | set[str],
) -> dict[str, dict[int, str]]:
    """Of the pages with an uncited statement carrying a link, the links naming a source
    under raw/ (checks/pages.py:prose_sources, as verify reads them): such a statement
    cites its source, unquoted, and is accounted for. The tree is read only when a page
    has one (its link graph from the verification cache, as verify left it)."""
    wanted = [
        path
        for path, page in parsed.items()
        if path not in structural and any(s.links[0] < s.links[1] for s in page.statements)
    ]
    if not wanted:
        return {}
    tree = WikiTree(repo, commit.tree, cache, limits=config.limits, layout=config.wiki.layout())
    return {path: prose_sources(tree, parsed[path]) for path in wanted}


def _stale(
    repo: pygit2.Repository,
    commit: pygit2.Commit,
    config: Config,
    cache_path: Path | None,
    failing: list[PageClaim],
) -> tuple[set[str], dict[str, set[tuple[str, int]]]]:
    """Of the claims whose quote is nowhere in its source at ``commit``, those that are
    stale: a source changed under them since the commit that gave the claim its present
    text (its sentences and its footnote, not the rest of its page: a later edit elsewhere
    on the page leaves it stale), and their quote was in it then. The gate's one rule
    (verifier/checks/citations.py: ``staleness``). With them, of each page holding one,
    the references a stale claim is kept as history at (``kept_as_history``: in a
    ``::: disputed`` block beside its dated update), the gate's rule too."""
    by_page: dict[str, list[PageClaim]] = {}
    for c in failing:
        by_page.setdefault(c.page, []).append(c)
    if not by_page:
        return set(), {}
    out: set[str] = set()
    history: dict[str, set[tuple[str, int]]] = {}
    cache = PageCache(cache_path)
    try:
        tree = WikiTree(repo, commit.tree, cache, limits=config.limits, layout=config.wiki.layout())
        for path, mine in sorted(by_page.items()):
            page = tree.page(path)
            if page is None:
                continue
            defs: dict[str, Citation] = {}
            for d in page.definitions:
                if d.label not in defs and d.citation is not None:
                    defs[d.label] = d.citation
            cited = [(c.label, defs[c.label]) for c in mine if c.label in defs]
            said = staleness(repo, str(commit.id), tree, path, cited, config.limits)
            stale = {c.id for c in mine if c.label in said and said[c.label].stale}
            out |= stale
            if stale and any(c.disputed for c in mine):
                history[path] = kept_as_history(tree, page)
    finally:
        cache.close()
    return out, history


def schema() -> dict[str, Any]:
    """docs/health.schema.json: what ``wikigate health --format json`` prints."""
    number = {"type": ["number", "null"]}
    count = {"type": "integer", "minimum": 0}
    wiki = {
        "type": "object",
        "properties": {
            **{n: {**number, "minimum": 0, "maximum": 1} for n in RATIOS},
            **{n: count for n in (*COUNTS, *FIGURES)},
        },
        "required": [*RATIOS, *COUNTS, *FIGURES],
        "additionalProperties": False,
    }
    page = {
        "type": "object",
        "properties": {
            "page": {"type": "string"},
            "state": {"enum": list(STATES)},
            **{
                n: count
                for n in (
                    "statements",
                    "accounted",
                    "gaps",
                    "claims",
                    "anchored",
                    "judged",
                    "supported",
                    "contradictions",
                    "possible_contradictions",
                    "stale",
                )
            },
            "orphan": {"type": "boolean"},
        },
        "additionalProperties": False,
    }
    page["required"] = list(page["properties"])  # type: ignore[call-overload]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "wikigate health",
        "type": "object",
        "properties": {
            "schema_version": {"const": SCHEMA_VERSION},
            "commit": {"type": "string"},
            "wiki": wiki,
            "pages": {"type": "array", "items": page},
            "baseline": {
                "type": "object",
                "properties": {
                    "commit": {"type": "string"},
                    "wiki": wiki,
                    "delta": {
                        "type": "object",
                        "additionalProperties": number,
                    },
                    "regressions": {
                        "type": "array",
                        "items": {"enum": [*RATIOS, *COUNTS]},
                    },
                },
                "required": ["commit", "wiki", "delta", "regressions"],
                "additionalProperties": False,
            },
            "failures": {
                "type": "object",
                "properties": {
                    "under": {"type": "array", "items": {"type": "string"}},
                    "over": {"type": "array", "items": {"type": "string"}},
                    "regressed": {"type": "array", "items": {"enum": [*RATIOS, *COUNTS]}},
                },
                "required": ["under", "over", "regressed"],
                "additionalProperties": False,
            },
        },
        "required": ["schema_version", "commit", "wiki", "pages"],
        "additionalProperties": False,
    }


if __name__ == "__main__":  # python -m wikigate.health > docs/health.schema.json
    print(json.dumps(schema(), indent=2))
