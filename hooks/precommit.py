"""pre-commit entry points: ``wikigate-commit`` (the citations and the links checks in
one process), ``wikigate-citations``, ``wikigate-links`` (each alone, for existing
configs) and ``wikigate-verify`` (pre-push).

They check what is staged in the git index (not the working tree), deletions included,
print
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
    """A commit object for the index being committed (written to the odb, no ref moves)
    and HEAD. That index is ``$GIT_INDEX_FILE`` when git names one: ``git commit -a``,
    ``git commit PATH`` and ``--only`` commit a temporary index, not .git/index."""
    named = os.environ.get("GIT_INDEX_FILE")
    if named:
        index = pygit2.Index(os.path.abspath(named))  # relative to the hook's folder: the top
        tree = index.write_tree(repo)
    else:
        index = repo.index
        index.read()
        tree = index.write_tree()
    head = None if repo.head_is_unborn else commit_at(repo, repo.head.target)
    sig = pygit2.Signature("wikigate", "wikigate@localhost")
    oid = repo.create_commit(None, sig, sig, "staged\n", tree, [head.id] if head else [])
    return commit_at(repo, oid), head


def is_page(path: str) -> bool:
    return path.startswith("wiki/") and path.endswith(".md")


def staged_changes(tip: pygit2.Commit, head: pygit2.Commit | None) -> tuple[list[str], list[str]]:
    """The wiki pages the index adds or changes against HEAD, and those it deletes (a
    rename is both), read from git itself: pre-commit passes no file for a deletion."""
    changed: set[str] = set()
    deleted: set[str] = set()
    diff = tip.tree.diff_to_tree(swap=True) if head is None else head.tree.diff_to_tree(tip.tree)
    for delta in diff.deltas:
        old, new = delta.old_file.path, delta.new_file.path
        if delta.status == pygit2.enums.DeltaStatus.DELETED:
            if is_page(old):
                deleted.add(old)
            continue
        if is_page(new):
            changed.add(new)
        if old != new and is_page(old):
            deleted.add(old)
    return sorted(changed), sorted(deleted - changed)


def _run_staged(
    argv: Sequence[str] | None,
    gates: Sequence[tuple[frozenset[str] | None, str | None]],
) -> int:
    """Each gate, ``(checks, strictness)`` (checks None: every per-page check, with the
    offline judge; strictness None: the rules'), on the staged pages: those named in
    ``argv`` (pre-commit's file names) and those the index changes against HEAD. Its
    deletions too: a page the change deletes may break links on pages it does not touch,
    which the links check finds from the staged tree's link graph."""
    files = [f.replace(os.sep, "/") for f in (sys.argv[1:] if argv is None else argv)]
    named = [f for f in files if is_page(f)]
    try:
        repo = _repo()
        tip, head = _staged(repo)
        changed, deleted = staged_changes(tip, head)
        present = set(named) | set(changed)
        pages = tuple(sorted(p for p in present if _in_tree(tip.tree, p)))
        if not pages and not deleted:
            return 0
        blocking: list[Finding] = []
        for checks, strictness in gates:
            if checks is None and not pages:
                continue  # a deletion leaves no page of its own to check
            blocking += _blocking(repo, tip, head, pages, checks, strictness)
    except WikigateError as e:
        print(f"wikigate: {e}", file=sys.stderr)
        return 1
    for f in blocking:
        print(format_line(f))
    return 1 if blocking else 0


def _in_tree(tree: pygit2.Tree, path: str) -> bool:
    try:
        tree[path]
    except KeyError:
        return False
    return True


def _blocking(
    repo: pygit2.Repository,
    tip: pygit2.Commit,
    head: pygit2.Commit | None,
    pages: tuple[str, ...],
    checks: frozenset[str] | None,
    strictness: str | None,
) -> list[Finding]:
    from wikigate.verifier.checks import PER_PAGE
    from wikigate.verify import Request, cache_path, verify

    report = verify(
        Request(
            repo,
            tip,
            head,
            strictness=strictness,
            cache_path=cache_path(repo),
            only=PER_PAGE if checks is None else checks,
            pages=pages,
            judge="offline" if checks is None else None,
        )
    ).report
    return [f for f in report.findings if f.severity in BLOCKING]


def _repo() -> pygit2.Repository:
    from wikigate.gitrepo import open_repo

    return open_repo(".")


# every per-page check under the rules' strictness, with the offline judge
CITATIONS = (None, None)
# link integrity and orphans, against the wiki as staged
LINKS = (frozenset({"links"}), "SKEPTICAL")


def commit_main(argv: Sequence[str] | None = None) -> int:
    """``wikigate-commit``: the citations and the links checks in one process (half the
    start-up cost of the two hooks), on the staged changes, deletions included."""
    return _run_staged(argv, (CITATIONS, LINKS))


def citations_main(argv: Sequence[str] | None = None) -> int:
    """Every per-page check on the staged pages, as the push runs them (the rules'
    strictness): per claim (syntax, source, anchor, hash), invisible text, the page rules,
    and the semantic check with the offline judge (rules, cached; never the LLM judge: it
    is not cheap).  What the push would refuse for a page's own content is refused at
    commit (docs/hooks.md); the whole-wiki and run checks are left to the push."""
    return _run_staged(argv, (CITATIONS,))


def links_main(argv: Sequence[str] | None = None) -> int:
    """Link integrity and orphans for the staged pages, against the wiki as staged."""
    return _run_staged(argv, (LINKS,))


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
