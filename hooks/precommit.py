"""pre-commit entry points: ``wikigate-citations``, ``wikigate-links``, ``wikigate-verify``.

They check what is staged in the git index (not the working tree), print
``path:line: code: message`` for each blocking finding, and print nothing
when all pass.  Import-light on purpose: no anthropic, no github here.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import pygit2

from wikigate.errors import WikigateError
from wikigate.gitrepo import commit_at
from wikigate.present import finding_line

if TYPE_CHECKING:
    from wikigate.models import Finding

BLOCKING = ("critical", "major")


def format_line(f: Finding) -> str:
    """``path:line: code: message``, the hooks' one-line format (wikigate.present)."""
    return finding_line(f, severity=False, hint=False)


def _staged(repo: pygit2.Repository) -> tuple[pygit2.Commit, pygit2.Commit | None]:
    """A commit object for the index (written to the odb, no ref moves) and HEAD."""
    index = repo.index
    index.read()
    tree = index.write_tree()
    head = None if repo.head_is_unborn else commit_at(repo, repo.head.target)
    sig = pygit2.Signature("wikigate", "wikigate@localhost")
    oid = repo.create_commit(None, sig, sig, "staged\n", tree, [head.id] if head else [])
    return commit_at(repo, oid), head


def _run_staged(
    argv: Sequence[str] | None,
    checks: frozenset[str] | None,
    *,
    strictness: str | None = None,
    judge: str | None = None,
) -> int:
    """``checks`` (None: every per-page check) on the staged pages among ``argv``, under
    ``strictness`` (default: the rules')."""
    from wikigate.verifier.checks import PER_PAGE
    from wikigate.verify import Request, cache_path, verify
    from wikigate.workspace import Workspace

    files = [f.replace(os.sep, "/") for f in (sys.argv[1:] if argv is None else argv)]
    pages = [f for f in files if f.startswith("wiki/") and f.endswith(".md")]
    if not pages:
        return 0
    try:
        ws = Workspace(_repo())
        tip, head = _staged(ws.repo)
        report = verify(
            Request(
                ws.repo,
                tip,
                head,
                strictness=strictness,
                cache_path=cache_path(ws.repo),
                only=PER_PAGE if checks is None else checks,
                pages=tuple(pages),
                judge=judge,
            )
        ).report
    except WikigateError as e:
        print(f"wikigate: {e}", file=sys.stderr)
        return 1
    blocking = [f for f in report.findings if f.severity in BLOCKING]
    for f in blocking:
        print(format_line(f))
    return 1 if blocking else 0


def _repo() -> pygit2.Repository:
    from wikigate.gitrepo import open_repo

    return open_repo(".")


def citations_main(argv: Sequence[str] | None = None) -> int:
    """Every per-page check on the staged pages, as the push runs them (the rules'
    strictness): per claim (syntax, source, anchor, hash), invisible text, the page rules,
    and the semantic check with the offline judge (rules, cached; never the LLM judge: it
    is not cheap).  What the push would refuse for a page's own content is refused at
    commit (docs/hooks.md); the whole-wiki and run checks are left to the push."""
    return _run_staged(argv, None, judge="offline")


def links_main(argv: Sequence[str] | None = None) -> int:
    """Link integrity and orphans for the staged pages, against the wiki as staged."""
    return _run_staged(argv, frozenset({"links"}), strictness="SKEPTICAL")


def verify_main(argv: Sequence[str] | None = None) -> int:
    """Full verification of what is being pushed, against main (pre-push / manual stage).

    ``--judge anthropic|offline`` (pre-commit's ``args:``) chooses the semantic judge as
    ``wikigate verify --judge`` does; by default the base rules' ``[judge]`` decides.
    """
    import argparse
    from dataclasses import replace

    from wikigate.changes import change_request, ready
    from wikigate.verify import verify
    from wikigate.workspace import Workspace

    parser = argparse.ArgumentParser(prog="wikigate-verify")
    parser.add_argument("--judge", choices=("anthropic", "offline"))
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    to_ref = os.environ.get("PRE_COMMIT_TO_REF") or "HEAD"
    from_ref = os.environ.get("PRE_COMMIT_FROM_REF")
    if from_ref and set(from_ref) == {"0"}:
        from_ref = None
    try:
        ws = Workspace.open(".")
        request = replace(change_request(ws, to_ref, from_ref), judge=args.judge)
        ready(request)
        report = verify(request).report
    except WikigateError as e:
        print(f"wikigate: {e}", file=sys.stderr)
        return 1
    if report.verdict == "commit":
        return 0
    for f in report.findings:
        if f.severity in BLOCKING:
            print(format_line(f))
    return 1
