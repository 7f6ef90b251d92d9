"""pre-commit entry points: ``wikigate-commit`` (what the push would refuse of the staged
change, in one verification), ``wikigate-citations``, ``wikigate-links`` (the pages' own
checks and the links alone, for existing configs) and ``wikigate-verify`` (pre-push).

They check what is staged in the git index (not the working tree), deletions included,
under the rules the push will use (``landing_base``), print
``path:line: code: message`` for each blocking finding, and print nothing
when all pass.  Import-light on purpose: no anthropic, no github here.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import pygit2

from wikigate.errors import WikigateError
from wikigate.gitrepo import MAIN_BRANCH_KEY, commit_at, main_ref
from wikigate.paths import WIKI
from wikigate.present import finding_line

if TYPE_CHECKING:
    from wikigate.config import Config
    from wikigate.models import Finding

BLOCKING = ("critical", "major")
REGULAR = (pygit2.enums.FileMode.BLOB, pygit2.enums.FileMode.BLOB_EXECUTABLE)
# the change's own findings about a path: what the push finds only where main differs
AGAINST_MAIN = frozenset(
    {
        "run.path_acl",
        "run.raw_write",
        "run.rules_change",
        "run.repository_file",
        "run.log_rewrite",
        "run.convergence",
        "tree.unportable",
    }
)


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
    parents = [head.id, *_merging(repo)] if head else []
    sig = pygit2.Signature("wikigate", "wikigate@localhost")
    oid = repo.create_commit(None, sig, sig, "staged\n", tree, parents)
    return commit_at(repo, oid), head


def _merging(repo: pygit2.Repository) -> list[pygit2.Oid]:
    """The commits a merge in progress merges (``MERGE_HEAD``): the staged commit's other
    parents, so that a merge of the remote's main is judged against it (landing_base)."""
    try:
        with open(os.path.join(repo.path, "MERGE_HEAD"), encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return []
    out = []
    for line in text.split():
        try:
            out.append(commit_at(repo, line).id)
        except Exception:  # noqa: BLE001 - not a commit: not a parent either
            continue
    return out


def staged_changes(
    tip: pygit2.Commit, head: pygit2.Commit | None, is_page: Callable[[str], bool] = WIKI.is_page
) -> tuple[list[str], list[str]]:
    """The wiki pages (``is_page``: the rules' ``[wiki]`` layout) the index adds or changes
    against HEAD, and those it deletes (a rename is both), read from git itself:
    pre-commit passes no file for a deletion."""
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


def _run_staged(argv: Sequence[str] | None, gate: str) -> int:
    """One verification of the staged change against HEAD: the ``gate``'s checks
    (:func:`checks_of`), the per-page ones on the staged pages (those named in ``argv``,
    pre-commit's file names, and those the index changes against HEAD), with the offline
    judge, under the rules and the strictness the push will be judged by
    (:func:`landing_base`; the links hook alone: SKEPTICAL, as before issue 24).
    Deletions count: a page the change deletes may break links on pages it does not touch,
    which the links check finds from the staged tree's link graph."""
    from wikigate.config import config_at

    files = [f.replace(os.sep, "/") for f in (sys.argv[1:] if argv is None else argv)]
    try:
        repo = _repo()
        tip, head = _staged(repo)
        base = landing_base(repo, tip)
        rules = config_at(repo, base) if base is not None else None
        # which paths are pages: the landing base's [wiki] root (a first commit: its own)
        is_page = (rules if rules is not None else config_at(repo, tip)).wiki.layout().is_page
        named = [f for f in files if is_page(f)]
        changed, deleted = staged_changes(tip, head, is_page)
        present = set(named) | set(changed)
        pages = tuple(sorted(p for p in present if p in tip.tree))
        if gate == COMMIT:
            if head is not None and tip.tree_id == head.tree_id:
                return 0  # nothing changes: --allow-empty, a message amended
        elif not pages and (gate == CITATIONS or not deleted):
            return 0
        strictness = "SKEPTICAL" if gate == LINKS else None
        blocking = _blocking(repo, tip, head, base, rules, pages, checks_of(gate), strictness)
    except WikigateError as e:
        print(f"wikigate: {e}", file=sys.stderr)
        return 1
    for f in blocking:
        print(format_line(f))
    return 1 if blocking else 0


def landing_base(repo: pygit2.Repository, staged: pygit2.Commit) -> pygit2.Commit | None:
    """The commit whose rules the push of the ``staged`` commit will be judged by, and
    which it is compared with: ``merge-base(staged, M)`` (the merge-base of HEAD and M, or,
    for a merge of M's side, M), M the main the change lands on: main's upstream
    (``git branch -u``), else ``origin/main``, else the local main; HEAD when there is none
    (None before the first commit: then the staged rules are the only ones).

    Not HEAD's own rules: HEAD may be an unpushed commit that changed ``wikigate.toml``
    (past this hook, ``--no-verify``), and the server judges by its main's rules, never
    by the rules a push brings along."""
    if not staged.parent_ids:
        return None
    main = _main_upstream(repo)
    if main is None:
        return commit_at(repo, staged.parent_ids[0])
    base = repo.merge_base(staged.id, main)
    # no shared history: the push is not a fast-forward (refused); its main's rules stand
    found = commit_at(repo, base if base is not None else main)
    return _past_decisions(repo, found, staged.parents[0])


def _past_decisions(
    repo: pygit2.Repository, base: pygit2.Commit, tip: pygit2.Commit
) -> pygit2.Commit:
    """``base``, or the point past it where the pre-push hook stops asking (hooks/local.py
    ``decided_point``): a person's recorded approval of a repository file or a rules
    change, or where this clone's hooks began (git config wikigate.adoptedAt). What comes
    after it is judged from there, by its rules, as the push is."""
    from wikigate.hooks.common import adoption_point
    from wikigate.hooks.local import decided_point

    point = decided_point(repo, str(base.id), str(tip.id), adoption_point())
    return commit_at(repo, point) if point is not None else base


def _main_upstream(repo: pygit2.Repository) -> pygit2.Oid | None:
    trunk = main_ref(repo)  # the trunk's name is a setting (git config wikigate.mainBranch)
    name = trunk.removeprefix("refs/heads/")
    try:
        local = repo.branches.local.get(name)
        upstream = local.upstream if local is not None else None
    except (KeyError, ValueError, pygit2.GitError):  # a dangling upstream: look further
        upstream = None
    refs: list[pygit2.Reference] = [upstream] if upstream is not None else []
    # the trunk as a remote has it (origin first, then any remote: pushed without -u), then
    # a remote's default branch (a clone that was never told its trunk), then the local one
    remotes = sorted(r for r in repo.references if r.startswith("refs/remotes/"))
    heads = [r for r in remotes if r.endswith("/HEAD") and r.count("/") == 3]
    by_name = [f"refs/remotes/origin/{name}"]
    by_name += [r for r in remotes if r.endswith(f"/{name}") and r.count("/") == 3]
    # an unset trunk is a guess ("main"): what the remote names its default comes first
    # (a stale origin/main beside the server's real trunk judged by old rules: review)
    told = MAIN_BRANCH_KEY in repo.config
    named = [*by_name, *heads, trunk] if told else [*heads, *by_name, trunk]
    refs += [repo.references[r] for r in named if r in repo.references]
    for ref in refs:
        try:
            return ref.peel(pygit2.Commit).id
        except (KeyError, ValueError, pygit2.GitError):  # not a commit: the next one
            continue
    return None


def _blocking(
    repo: pygit2.Repository,
    tip: pygit2.Commit,
    head: pygit2.Commit | None,
    base: pygit2.Commit | None,
    rules: Config | None,
    pages: tuple[str, ...],
    checks: frozenset[str],
    strictness: str | None,
) -> list[Finding]:
    from wikigate.verify import Request, cache_path, verify

    report = verify(
        Request(
            repo,
            tip,
            head,
            strictness=strictness,
            rules=rules,
            cache_path=cache_path(repo),
            only=checks,
            pages=pages,
            judge="offline",  # never the LLM judge at commit: it costs money and seconds
        )
    ).report
    found = [f for f in report.findings if f.severity in BLOCKING]
    if base is not None and head is not None and base.id != head.id:
        found = as_pushed(repo, base, tip, found)
    return found


def as_pushed(
    repo: pygit2.Repository, base: pygit2.Commit, tip: pygit2.Commit, found: list[Finding]
) -> list[Finding]:
    """``found`` (HEAD → the staged tree) less what the push (``base``, the landing base,
    → it) will not refuse: what an unpushed commit added is not on main yet, and this
    commit may still change it, as the push allows:

    - ``run.convergence`` of a claim not on ``base`` (a deleted page: one holding no cited
      claim there);
    - ``run.raw_write`` of a source not on ``base``, edited or deleted before it was
      pushed (a symlink or submodule under ``raw/`` stays refused);
    - ``run.log_rewrite`` that keeps ``base``'s log whole (only unpushed lines rewritten);
    - any of AGAINST_MAIN about a path that is the same on ``base`` (a merge of the remote's
      main brings its changes, a rules change landed by override among them).

    Anything unreadable keeps its finding: fail closed."""
    from wikigate.verifier.claims import page_claims
    from wikigate.verifier.markdown import parse_page

    def blob(commit: pygit2.Commit, path: str) -> pygit2.Blob | None:
        try:
            obj = repo[commit.tree[path].id]
        except KeyError:
            return None
        return obj if isinstance(obj, pygit2.Blob) else None

    landed: dict[str, set[str]] = {}

    def entry(commit: pygit2.Commit, path: str) -> tuple[object, object] | None:
        try:
            item = commit.tree[path]
        except KeyError:
            return None
        return (item.id, item.filemode)

    def stands(f: Finding) -> bool:
        path = f.path or ""
        if f.code in AGAINST_MAIN and entry(base, path) == entry(tip, path):
            return False  # the same on main: the push sees no change there (a merge of main)
        on_main = blob(base, path)
        if f.code == "run.convergence":
            if on_main is None:
                return path in base.tree  # not a file there: the push reads it otherwise
            if path not in landed:
                text = on_main.data.decode("utf-8")
                landed[path] = {c.sentence for c in page_claims(parse_page(path, text))}
            return bool(landed[path]) if f.claim is None else f.claim in landed[path]
        if f.code == "run.raw_write":
            mode = tip.tree[path].filemode if path in tip.tree else None
            return path in base.tree or (mode is not None and mode not in REGULAR)
        if f.code == "run.log_rewrite":
            now = blob(tip, path)
            return on_main is not None and (now is None or not now.data.startswith(on_main.data))
        return True

    out = []
    for f in found:
        try:
            keep = f.path is None or stands(f)
        except Exception:  # noqa: BLE001 - fail closed: the finding stands
            keep = True
        if keep:
            out.append(f)
    return out


def _repo() -> pygit2.Repository:
    from wikigate.gitrepo import open_repo

    return open_repo(".")


# what wikigate-commit leaves to the push: the whole wiki read for a new source's terms
# (run.coverage: minor, but under BOLD) and the LLM judge's assessment of the direction
LEFT_TO_PUSH = frozenset({"coverage", "direction"})
# what each hook runs (the checks by name, verifier/checks/__init__.py): every check the
# push runs but LEFT_TO_PUSH; the per-page ones (PER_PAGE); link integrity and orphans
COMMIT, CITATIONS, LINKS = "commit", "citations", "links"


def checks_of(gate: str) -> frozenset[str]:
    """The checks a gate runs, by name (any check added later included, for COMMIT)."""
    from wikigate.verifier.checks import CHECKS, PER_PAGE

    if gate == COMMIT:
        return frozenset(c.name for c in CHECKS) - LEFT_TO_PUSH
    return PER_PAGE if gate == CITATIONS else frozenset({"links"})


def commit_main(argv: Sequence[str] | None = None) -> int:
    """``wikigate-commit``: what the push would refuse of this commit, in one verification
    of the staged change against HEAD under the push's rules and strictness: every check
    the push runs but those in LEFT_TO_PUSH (docs/hooks.md), with the offline judge."""
    return _run_staged(argv, COMMIT)


def citations_main(argv: Sequence[str] | None = None) -> int:
    """Every per-page check on the staged pages, as the push runs them (the rules'
    strictness): per claim (syntax, source, anchor, hash), invisible text, the page rules,
    and the semantic check with the offline judge (rules, cached; never the LLM judge: it
    is not cheap).  What the push would refuse for a page's own content is refused at
    commit (docs/hooks.md); the whole-wiki and run checks are left to the push."""
    return _run_staged(argv, CITATIONS)


def links_main(argv: Sequence[str] | None = None) -> int:
    """Link integrity and orphans for the staged pages, against the wiki as staged."""
    return _run_staged(argv, LINKS)


def verify_main(argv: Sequence[str] | None = None) -> int:
    """Full verification of what is being pushed, against the trunk (pre-push / manual
    stage), from where the pre-push hook begins asking (:func:`_past_decisions`: past the
    adoption point and a person's recorded approvals), by the rules there.

    ``--judge anthropic|offline`` (pre-commit's ``args:``) chooses the semantic judge as
    ``wikigate verify --judge`` does; by default the base rules' ``[judge]`` decides.
    """
    import argparse
    from dataclasses import replace

    from wikigate.changes import change_request, ready
    from wikigate.gitrepo import stand_in_note
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
        ws = Workspace.open(".", reading=True)  # a fresh clone reads origin's default branch
        note = stand_in_note(ws.repo, ws.env.main)
        if note:
            print(f"wikigate: {note}", file=sys.stderr)
        request = replace(change_request(ws, to_ref, from_ref), judge=args.judge)
        if request.base is not None:  # what the pre-push hook asks no verdict of again
            base = _past_decisions(ws.repo, request.base, request.tip)
            if base.id == request.tip.id:
                return 0  # every commit pushed is adopted or a person's recorded decision
            request = replace(request, base=base)
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
