"""A workspace: a git repository holding ``raw/``, ``wiki/`` and ``wikigate.toml``.

The Python API's entry.  What the engine needs of it (repository, rules, telemetry store)
is its ``env`` (env.py); the runs it hands out are ``WorkspaceRun``s, which add
``finalize`` and a failed replace's abort to the engine's ``Run``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pygit2

from . import gitrepo, vault
from .config import CONFIG_FILE, DEFAULT_TOML, Config
from .env import Env
from .errors import GitError, NoTrunk, RunError, UsageError
from .gitrepo import RUN_PREFIX
from .models import MAX_DIRECTION, RUN_TYPES, Budget, RunRecord
from .paths import WIKI, Layout, check_scope, is_attachment
from .run import NoSingleMatch, ReplaceFailed, Run
from .runid import new_run_id

if TYPE_CHECKING:
    from wikigate.verifier import Verifier
    from wikigate.verifier.protocol import SourceShelf

    from .finalize import FinalizeResult
    from .reconcile import Swept
    from .store import RunRow, Store

INDEX_MD = "---\ntitle: Index\n---\n# Index\n\nThe root of this wiki. Link every page from here.\n"
LOG_MD = "---\ntitle: Log\n---\n# Log\n\nAppend-only record of changes to this wiki.\n"
TRIGGER_KINDS = ("mcp", "cli", "daemon", "github")


MAX_TRIGGER = 200  # characters of --triggered-by: a label, not a document


def check_triggered_by(value: str) -> str:
    kind, sep, name = value.partition(":")
    if len(value) > MAX_TRIGGER:
        raise UsageError(
            f"--triggered-by: {len(value)} characters; name who started the run in at most "
            f"{MAX_TRIGGER}"
        )
    if not sep or kind not in TRIGGER_KINDS or not name:
        raise UsageError(
            f"--triggered-by {value!r}: expected mcp:<tool>, cli:<cmd>, daemon:<job> or github:<event>"
        )
    return value


class Workspace:
    """The Python API.  ``Workspace.open(path).start_run(...)`` and friends."""

    def __init__(self, repo: pygit2.Repository, main: str | None = None) -> None:
        # the repository, its rules (main's wikigate.toml) and the telemetry store
        self.env = Env(repo, main)
        self.repo = repo
        self.root = self.env.root
        self.git_dir = self.env.git_dir
        self.config: Config = self.env.config
        self.name = self.env.name
        self._verifier: Verifier | None = None

    # ------------------------------------------------------------ opening

    @classmethod
    def open(
        cls, path: str | os.PathLike[str] = ".", *, main: str | None = None, reading: bool = False
    ) -> Workspace:
        """The workspace of the repository at ``path``; its trunk is ``main`` (a full ref
        name), else the repository's own (:func:`wikigate.gitrepo.main_ref`).  ``reading``:
        for a command that lands nothing, a clone without that branch reads origin's
        default branch instead (:func:`wikigate.gitrepo.reading_trunk`)."""
        repo = gitrepo.open_repo(path)
        main = main or gitrepo.main_ref(repo)
        if gitrepo.ref_target(repo, main) is None and reading:
            main = gitrepo.reading_trunk(repo, main) or main
        if gitrepo.ref_target(repo, main) is None:
            branch = main.removeprefix("refs/heads/")
            origin = gitrepo.origin_head_branch(repo)
            here = _checked_out(repo)
            name = origin if origin and origin != branch else (here or "BRANCH")
            raise NoTrunk(
                f"{repo.workdir or repo.path}: no branch '{branch}'; wikigate gates the "
                f"branch git config {gitrepo.MAIN_BRANCH_KEY} names (default: main)"
                + (f", and origin's default branch is {origin}" if name == origin else "")
                + (f"; the branch checked out is {here}" if here and here != branch else "")
                + ". Run `wikigate init` on your trunk (it records its name), or "
                f"`git config {gitrepo.MAIN_BRANCH_KEY} {name}`"
            )
        return cls(repo, main)

    @classmethod
    def init(
        cls,
        path: str | os.PathLike[str] = ".",
        *,
        main_branch: str | None = None,
        wiki_root: str | None = None,
        exclude: tuple[str, ...] = (),
        say: Callable[[str], None] | None = None,
    ) -> Workspace:
        """Create a workspace, or add what is missing to an existing repository.

        The trunk (the branch runs start from and land on) is ``main_branch``, else the
        one git config ``wikigate.mainBranch`` names, else ``main`` when it exists, else
        the branch checked out (``master``, ``trunk``...): recorded in git config
        ``wikigate.mainBranch`` when it is not ``main``.  Everything is checked before
        anything is written, and a failure takes back what this call wrote: a failed
        init leaves the folder as it found it.  ``wiki_root`` and ``exclude``: where the
        pages are (``[wiki]`` in the ``wikigate.toml`` it writes; an existing one says
        already).  ``say`` hears what was done and what is treated as pages."""
        undo = Undo(Path(path))
        wiki = (wiki_root, tuple(exclude))
        try:
            ws = cls._init(Path(path), main_branch, wiki, undo, say or (lambda _line: None))
        except BaseException:
            undo.rollback()
            raise
        return ws

    @classmethod
    def _init(
        cls,
        root: Path,
        main_branch: str | None,
        wiki: tuple[str | None, tuple[str, ...]],
        undo: Undo,
        say: Callable[[str], None],
    ) -> Workspace:
        toml, layout = _rules_for_init(root, *wiki)
        undo.mkdir(root)
        found = pygit2.discover_repository(str(root))
        repo = pygit2.Repository(found) if found else None
        if repo is not None and Path(repo.workdir or "").resolve() != root.resolve():
            repo = None  # a repository further up: make a new one here
        if repo is not None and repo.is_bare:
            raise GitError(f"{root}: is a bare repository; init needs a working tree")
        if repo is not None and repo.head_is_detached:
            trunk = _trunk(repo, main_branch)  # the one it would adopt, when it exists
            name = gitrepo.branch_name(trunk) if gitrepo.ref_target(repo, trunk) else "BRANCH"
            raise GitError(
                f"{root}: HEAD is detached; check out your trunk first (`git switch {name}`)"
            )
        main = _trunk(repo, main_branch)
        branch = main.removeprefix("refs/heads/")
        files = vault.trunk_files(repo, main) if repo is not None else []
        if repo is None:
            undo.created(root / ".git")
            repo = pygit2.init_repository(str(root), initial_head=branch)
        has_main = gitrepo.ref_target(repo, main) is not None
        head = repo.references.get("HEAD")
        on = head.target if head is not None and isinstance(head.target, str) else None
        if not has_main and not repo.head_is_unborn:
            raise GitError(
                f"{root}: no branch '{branch}', and the branch checked out is "
                f"{(on or '?').removeprefix('refs/heads/')}; check out the branch to gate "
                f"(`git switch {branch}`) or name it (`wikigate init --main-branch BRANCH`)"
            )
        if has_main and on != main:
            raise GitError(f"{root}: check out {branch} first (`git switch {branch}`)")
        if wiki[0] is None and not (root / CONFIG_FILE).is_file():
            _refuse_a_vault(root, repo, main, files, say)
        if on != main:  # an unborn HEAD naming another branch
            undo.head(repo, on)
            repo.references.create("HEAD", main, force=True)
        if gitrepo.main_ref(repo) != main:
            undo.config(repo, gitrepo.MAIN_BRANCH_KEY)
            repo.config[gitrepo.MAIN_BRANCH_KEY] = branch
            say(f"trunk: {branch} (git config {gitrepo.MAIN_BRANCH_KEY} = {branch})")
        # Files go through git's own porcelain so hooks, attributes and
        # line endings behave as the user's git would.
        links = vault.index_links(files, layout)
        wanted = {
            "raw/.gitkeep": "",
            layout.index: INDEX_MD + (f"\n{links}" if links else ""),
            layout.log: LOG_MD,
            CONFIG_FILE: toml,
        }
        added = []
        for rel, text in wanted.items():
            target = root / rel
            if rel == "raw/.gitkeep" and (root / "raw").is_dir() and any((root / "raw").iterdir()):
                continue
            if target.exists():
                continue
            undo.mkdir(target.parent)
            undo.created(target)
            target.write_text(text, encoding="utf-8")
            added.append(rel)
        if added:
            # Committed in memory (no hooks: wikigate's own gate would refuse an
            # unverified commit on main, and this one holds no wiki content).
            parents = [] if repo.head_is_unborn else [repo.head.target]
            tree = gitrepo.commit_at(repo, parents[0]).tree if parents else None
            tree_id = repo.TreeBuilder().write()
            for rel in added:
                blob = repo.create_blob((root / rel).read_bytes())
                tree_id = gitrepo.tree_with(repo, tree, rel, blob)
                tree = gitrepo.tree_at(repo, tree_id)
            sig = gitrepo.signature(repo)
            message = (
                "wikigate: init workspace\n" if not parents else "wikigate: add workspace files\n"
            )
            made = repo.create_commit("HEAD", sig, sig, message, tree_id, parents)
            _advance_adoption(repo, parents, made)
            undo.done()  # committed: its files and the trunk's setting are the repository's now
            index = repo.index  # stage exactly the added files; keep the user's other staging
            index.read()
            for rel in added:
                index.add(rel)
            index.write()
            say(f"added and committed on {branch}: {', '.join(added)}")
            if links and layout.index in added:
                say(f"{layout.index} links the {links.count(chr(10))} page(s) already here")
        for line in layout_report(repo, main, layout):
            say(line)
        for line in vault.advice(files, layout):
            say(line)
        return cls.open(root)

    # ------------------------------------------------------------ services

    @property
    def store(self) -> Store:
        return self.env.store

    def telemetry_path(self) -> Path:
        return self.env.telemetry_path()

    def rebuild_telemetry(self, progress: Callable[[str, int, int], None] | None = None) -> int:
        """Re-fill the database from git notes and run branches; return runs indexed
        (``Env.rebuild_telemetry``)."""
        return self.env.rebuild_telemetry(progress)

    @property
    def verifier(self) -> Verifier | None:
        """The verifier this workspace's runs are finalized with, when one is set here
        (the Python API's choice); None: the one the rules name (`wikigate.verify`)."""
        return self._verifier

    @verifier.setter
    def verifier(self, value: Verifier | None) -> None:
        self._verifier = value

    def close(self) -> None:
        self.env.close()

    # ------------------------------------------------------------ runs

    def start_run(
        self,
        run_type: str,
        triggered_by: str,
        budget: Budget | None = None,
        *,
        scope: list[str] | None = None,
        direction: str | None = None,
    ) -> WorkspaceRun:
        """Open a run. ``scope``: the paths (a folder ends in "/") it may change; a change
        outside them is ``run.scope``. None: any path a run may write. ``direction``: what
        the run intends, in the writer's words (the LLM judge checks the change against it)."""
        if run_type not in RUN_TYPES:
            raise UsageError(f"--type {run_type!r}: expected one of {', '.join(RUN_TYPES)}")
        check_triggered_by(triggered_by)
        declared = tuple(sorted({check_scope(p) for p in scope})) if scope is not None else None
        if declared == ():
            raise UsageError("--scope: name at least one path")
        if direction is not None:
            direction = direction.strip()
            if not direction or len(direction) > MAX_DIRECTION:
                raise UsageError(
                    f"--direction: {len(direction)} characters; say what the run intends in "
                    f"1 to {MAX_DIRECTION} characters"
                )
        self.sweep()
        base = gitrepo.ref_target(self.repo, self.env.main)
        assert base is not None  # open() checked
        run_id = new_run_id()
        branch = RUN_PREFIX + run_id
        if "refs/heads/wikigate" in self.repo.references:
            raise GitError(
                "a branch named 'wikigate' exists and blocks the run branches "
                "'wikigate/runs/...'; rename it (`git branch -m wikigate OTHER`)"
            )
        if branch in self.repo.references:
            raise GitError(f"branch {branch} already exists; run ids must be unique")
        run = Run.create(
            self.env, run_id, run_type, triggered_by, base, budget or Budget(), declared, direction
        )
        return WorkspaceRun(self, run_id, run.row)

    def run(self, run_id: str) -> WorkspaceRun:
        row = self.store.get(run_id)
        if row is None:
            raise RunError(f"unknown run {run_id!r} (see `wikigate runs list`)")
        return WorkspaceRun(self, run_id, row)

    def runs(self, status: str | None = None) -> list[RunRow]:
        return self.store.runs(status)

    # ------------------------------------------------------------ sweep

    def sweep(self) -> list[str]:
        """Settle runs left behind, from git's facts; return the runs it changed
        (``reconcile.sweep``)."""
        from .reconcile import sweep  # its publishing and attesting: not on a reading path

        return sweep(self.env)

    def sweep_runs(self) -> list[Swept]:
        """``sweep``, each run with what it did to it and why (``wikigate sweep``)."""
        from .reconcile import sweep_runs

        return sweep_runs(self.env)

    def abandon(self, run_id: str, reason: str) -> RunRow:
        """``wikigate run abandon``: one pending run (or one whose finalizer is gone)
        abandoned, with actor and reason (``reconcile.abandon``)."""
        from .reconcile import abandon

        return abandon(self.env, run_id, reason)

    # ------------------------------------------------------------ override

    def override(self, run_id: str, reason: str, source: str = "cli") -> RunRecord:
        if not reason.strip():
            raise UsageError("--reason must say why the verifier is overruled")
        self.sweep()
        from . import finalize as _finalize  # its attestations: not on a reading path

        return _finalize.override(self.run(run_id), reason, source)

    def decide(
        self, run_id: str, reason: str, *, approve: bool, source: str = "cli"
    ) -> FinalizeResult:
        """A person's verdict on a run that waits for one (``wikigate verify approve`` /
        ``verify reject``): approve commits it, reject closes it; actor and reason recorded."""
        if not reason.strip():
            raise UsageError("--reason must say why (it is recorded with your name)")
        self.sweep()
        from . import finalize as _finalize

        return _finalize.decide(self.run(run_id), reason, approve=approve, source=source)

    def failed_ref(self, run_id: str) -> str:
        return self.env.failed_ref(run_id)


class Undo:
    """What a failing ``init`` takes back: the folders and files it created, the git
    config value and the HEAD it changed (newest first)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._undo: list[Callable[[], None]] = []

    def mkdir(self, folder: Path) -> None:
        missing = []
        for parent in (folder, *folder.parents):
            if parent.exists():
                break
            missing.append(parent)
        for made in reversed(missing):
            made.mkdir()
            self._undo.append(made.rmdir)

    def created(self, path: Path) -> None:
        """``path`` is about to be created (a file, or a folder tree such as ``.git``)."""
        import shutil

        def remove() -> None:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            elif path.exists() or path.is_symlink():
                path.unlink()

        self._undo.append(remove)

    def config(self, repo: pygit2.Repository, key: str) -> None:
        before = repo.config[key] if key in repo.config else None  # noqa: SIM401 - no .get
        path = repo.path

        def restore() -> None:
            config = pygit2.Repository(path).config
            if before is None:
                if key in config:
                    del config[key]
            else:
                config[key] = before

        self._undo.append(restore)

    def head(self, repo: pygit2.Repository, target: str | None) -> None:
        path = repo.path

        def restore() -> None:
            if target is not None:
                pygit2.Repository(path).references.create("HEAD", target, force=True)

        self._undo.append(restore)

    def done(self) -> None:
        """Nothing to take back any more (what was written is committed)."""
        self._undo.clear()

    def rollback(self) -> None:
        for step in reversed(self._undo):
            with contextlib.suppress(OSError):  # best effort: the original error matters
                step()
        self._undo.clear()


def layout_report(
    repo: pygit2.Repository,
    main: str,
    layout: Layout = WIKI,
    shown: int = 5,
    *,
    hints: bool = True,
) -> list[str]:
    """What wikigate will treat as pages, sources and attachments on the trunk, and what
    it ignores (markdown that is not a page: notes outside the wiki's root, or excluded;
    the other folders), each with a few names."""
    if gitrepo.ref_target(repo, main) is None:
        return []
    kinds: dict[str, list[str]] = {
        "pages": [],
        "attachments": [],
        "sources": [],
        "notes": [],
        "unknown": [],
    }
    folders: set[str] = set()
    for path in vault.trunk_files(repo, main):
        if path.startswith("raw/"):
            if path != "raw/.gitkeep":
                kinds["sources"].append(path)
        elif layout.is_page(path):
            kinds["pages"].append(path)
        elif is_attachment(path, layout):
            kinds["attachments"].append(path)
        elif path.lower().endswith((".md", ".markdown")):
            kinds["notes"].append(path)
        elif layout.in_wiki(path) and path != CONFIG_FILE:  # neither page nor attachment
            kinds["unknown"].append(path)
        elif "/" in path and not layout.in_wiki(path):
            folders.add(path.split("/", 1)[0] + "/")

    def some(paths: list[str] | set[str]) -> str:
        ordered = sorted(paths)
        more = f", and {len(ordered) - shown} more" if len(ordered) > shown else ""
        return ", ".join(ordered[:shown]) + more

    where = f"{layout.root}**/*.md" if layout.root else "**/*.md"
    out = [f"pages ({where}): {len(kinds['pages'])}: {some(kinds['pages'])}"]
    out.append(f"sources (raw/): {len(kinds['sources'])}")
    if kinds["attachments"]:
        out.append(f"attachments beside the pages: {len(kinds['attachments'])}")
    if kinds["notes"]:
        hint = (
            ": not verified, and runs cannot write them; to have them checked, write them "
            f"in the wiki in a run, or set [wiki] root and exclude in {CONFIG_FILE} "
            "(docs/config.md)"
        )
        outside = f"outside {layout.root} and raw/" if layout.root else "excluded"
        out.append(
            f"ignored: {len(kinds['notes'])} markdown file(s) {outside} "
            f"({some(kinds['notes'])})" + (hint if hints else "")
        )
    if kinds["unknown"]:
        suffixes = sorted({_suffix(p) for p in kinds["unknown"]})
        globs = " ".join(f"--exclude '*{x}'" for x in suffixes[:3] if x)
        out.append(
            f"not pages nor attachments: {len(kinds['unknown'])} file(s) in the wiki "
            f"({some(kinds['unknown'])})"
            + (
                ": runs cannot write them and a pull request changing one is refused "
                "(run.path_acl); take them out of the wiki with [wiki] exclude (globs "
                f"allowed{': ' + globs if globs else ''}), then a run changes them as "
                "repository files a person approves (docs/config.md)"
                if hints
                else ""
            )
        )
    other = folders - {layout.root, "raw/"}
    if other:
        out.append(f"ignored: the other folders ({some(other)})")
    return out


def _refuse_a_vault(
    root: Path,
    repo: pygit2.Repository | None,
    main: str,
    files: list[str],
    say: Callable[[str], None],
) -> None:
    """A repository that looks like a vault whose notes are its pages: init says what it
    would treat as pages at the vault's root and stops before writing anything, unless
    ``--wiki-root`` says where the pages are."""
    why = vault.looks_like_a_vault(root, files)
    if why is None:
        return
    if repo is not None:
        say(
            "with the pages at the root and .obsidian/ excluded (--wiki-root . --exclude .obsidian/):"
        )
        for line in layout_report(repo, main, vault.VAULT, hints=False):
            say(f"  {line}")
    for line in vault.advice(files, vault.VAULT):
        say(line)
    readme = " --exclude README.md" if "README.md" in files else ""
    raise UsageError(
        f"{root}: {why}; init committed nothing. Keep its notes as pages where they are: "
        f"`wikigate init --wiki-root . --exclude .obsidian/{readme}` (exclude other folders "
        "that are not pages too, e.g. --exclude templates/); or put the pages under wiki/: "
        "`wikigate init --wiki-root wiki` (docs/adopt.md)"
    )


def _rules_for_init(
    root: Path, wiki_root: str | None, exclude: tuple[str, ...]
) -> tuple[str, Layout]:
    """The ``wikigate.toml`` init would write and where its pages are: an existing file's
    ``[wiki]`` (``--wiki-root`` may not contradict it: change a committed rule through a
    run), else the defaults with ``[wiki]`` as asked."""
    from .config import WikiSection, parse_config

    existing = root / CONFIG_FILE
    if existing.is_file():
        layout = parse_config(existing.read_text(encoding="utf-8"), str(existing)).wiki.layout()
        asked = (
            WikiSection.model_validate({"root": wiki_root, "exclude": list(exclude)}).layout()
            if wiki_root
            else None
        )
        if (asked is not None and asked != layout) or (exclude and wiki_root is None):
            raise UsageError(
                f"{existing} exists and says where the pages are ([wiki]: root "
                f"{layout.shown}); change it there, through a run, not with init's options"
            )
        return DEFAULT_TOML, layout
    if wiki_root is None and not exclude:
        return DEFAULT_TOML, WIKI
    try:
        # validated as the file will be: "." is the repository's root, a bad path an error
        section = WikiSection.model_validate(
            {"root": wiki_root if wiki_root is not None else "wiki", "exclude": list(exclude)}
        )
    except ValueError as e:
        raise UsageError(f"--wiki-root/--exclude: {e}") from e
    listed = ", ".join(f'"{x}"' for x in section.exclude)
    toml = DEFAULT_TOML + (
        f'\n[wiki]\nroot = "{section.root or "."}"   # where the pages are (docs/config.md)\n'
        f"exclude = [{listed}]\n"
    )
    return toml, section.layout()


def _trunk(repo: pygit2.Repository | None, chosen: str | None) -> str:
    """The trunk ``init`` adopts: the one asked for, the one configured, ``main`` when it
    exists, else the branch HEAD names (checked out or unborn); ``main`` in a new repo."""
    if chosen is not None:
        return gitrepo.check_branch_name(chosen, "--main-branch")
    if repo is None:
        return gitrepo.MAIN
    if gitrepo.MAIN_BRANCH_KEY in repo.config:
        return gitrepo.main_ref(repo)
    if gitrepo.ref_target(repo, gitrepo.MAIN) is not None:
        return gitrepo.MAIN
    head = repo.references.get("HEAD")
    target = head.target if head is not None else None
    if isinstance(target, str) and target.startswith("refs/heads/"):
        return gitrepo.check_branch_name(
            target.removeprefix("refs/heads/"), "the branch checked out"
        )
    return gitrepo.MAIN


class WorkspaceRun(Run):
    """A run as the Python API hands it out (``Workspace.start_run``, ``Workspace.run``):
    the engine's ``Run`` plus ``finalize``, and a failed ``str_replace`` aborts the run."""

    def __init__(self, ws: Workspace, run_id: str, row: RunRow) -> None:
        super().__init__(ws.env, run_id, row)
        self.ws = ws

    def str_replace(self, path: str, old: str, new: str) -> pygit2.Oid:
        """Replace the one occurrence of ``old`` in the staged copy of ``path``.

        Zero or several matches abort the whole run: it is rejected at once,
        with the reason recorded, and nothing reaches main (``ReplaceFailed``).
        """
        try:
            return super().str_replace(path, old, new)
        except NoSingleMatch as e:
            from . import finalize as _finalize

            _finalize.abort(self, e.finding)
            raise ReplaceFailed(f"run {self.run_id} rejected: {e}") from e

    def finalize(
        self,
        *,
        verify: bool = True,
        draft_only: bool = False,
        verifier: Verifier | None = None,
        judge: str | None = None,
        sources: SourceShelf | None = None,
    ) -> FinalizeResult:
        """Verify, then commit / reject / revise (finalize.py). ``verifier``: this call's
        (default: the workspace's, ``Workspace.verifier``; None there: the rules');
        ``sources``: source texts decoded already (an MCP session's: ``Request.sources``)."""
        from . import finalize as _finalize

        return _finalize.finalize(
            self,
            verify=verify,
            draft_only=draft_only,
            verifier=verifier or self.ws.verifier,
            judge=judge,
            sources=sources,
        )


def _advance_adoption(
    repo: pygit2.Repository, parents: list[pygit2.Oid | str], made: pygit2.Oid
) -> None:
    """Init committed right after where this clone's hooks began (git config
    ``wikigate.adoptedAt``, hooks/install.py): its commit holds no wiki content and no
    run, so the hooks begin after it (a push asks it no run note)."""
    try:
        adopted = str(repo.config[gitrepo.ADOPTED_KEY])
    except KeyError:
        return
    if parents and adopted == str(parents[0]):
        repo.config[gitrepo.ADOPTED_KEY] = str(made)


def _suffix(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name[name.rfind(".") :] if "." in name[1:] else ""


def _checked_out(repo: pygit2.Repository) -> str | None:
    """The branch HEAD names (unborn or not), None when HEAD is detached."""
    head = repo.references.get("HEAD")
    target = head.target if head is not None else None
    return target.removeprefix("refs/heads/") if isinstance(target, str) else None
