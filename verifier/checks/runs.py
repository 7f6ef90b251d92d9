"""Per-run checks: well-formed trees, path ACL, raw/ immutability, the append-only log,
convergence, coverage, budget."""

from __future__ import annotations

import collections
import functools
import json
import re
import unicodedata
from collections.abc import Callable, Iterable

from markdown_it import MarkdownIt
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from wikigate.codes import CODES, finding
from wikigate.config import CONFIG_FILE, Config, parse_config
from wikigate.errors import ConfigError
from wikigate.gitrepo import blob_at
from wikigate.models import Finding
from wikigate.paths import (
    ATTACHMENT_SUFFIXES,
    MAX_PAGE_BYTES,
    Layout,
    attachment_problem,
    excluded,
    in_scope,
    is_attachment,
)
from wikigate.text import shown

from ..citation import Citation
from ..claims import CONFLICT_MARKER, Compared, PageClaim, compare, page_claims
from ..judges.protocol import Assessment, ChangeInput
from ..markdown import ParseLimit, _bounded
from ..report import ClaimCheck, DirectionReport, PresentationResult, RubricResult
from ..staged import StagedTree
from ..wiki import SourceError, WikiTree
from .citations import quotes_failing, resolve_source, staleness
from .context import REGULAR, Context
from .pages import invisible_in_path
from .presentation import added_lines, followup_message, pages_failing

STOPWORDS = frozenset(
    [
        "about",
        "above",
        "after",
        "again",
        "against",
        "because",
        "before",
        "being",
        "below",
        "between",
        "both",
        "could",
        "does",
        "doing",
        "during",
        "each",
        "further",
        "having",
        "here",
        "itself",
        "just",
        "more",
        "most",
        "other",
        "ought",
        "ourselves",
        "same",
        "should",
        "some",
        "such",
        "than",
        "that",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "under",
        "until",
        "very",
        "what",
        "when",
        "where",
        "which",
        "while",
        "whom",
        "would",
        "your",
        "yours",
        "which",
        "also",
        "into",
        "over",
        "were",
        "been",
        "have",
        "from",
        "with",
        "will",
        "shall",
        "upon",
    ]
)


def check_tree(ctx: Context) -> list[Finding]:
    """What is malformed in the tip's trees (entries.walk): git and the verifier
    would read different files, so nothing in such a tree counts as verified."""
    return [
        finding("tree.malformed", path, None, f"the tree entry {path} {why}")
        for path, why in ctx.tip.problems
    ]


def check_invisible_paths(ctx: Context) -> list[Finding]:
    """Invisible characters in a changed path that is not a page (a source, say): the
    pages' own are the per-page check's (page.invisible_chars)."""
    pages = set(ctx.tip.pages)
    return [f for p in ctx.changed() if p not in pages for f in invisible_in_path(p)]


NAME_BYTES = 255  # a file name's limit on Linux and macOS file systems
# device names (before the first dot, any case): learn.microsoft.com "Naming Files, Paths,
# and Namespaces", superscript digits and the console's CONIN$/CONOUT$ included
WINDOWS_RESERVED = frozenset(
    ["con", "prn", "aux", "nul", "conin$", "conout$"]
    + [f"{d}{n}" for d in ("com", "lpt") for n in "0123456789\u00b9\u00b2\u00b3"]
)
WINDOWS_FORBIDDEN = frozenset('<>:"|?*')


def check_portable_paths(ctx: Context) -> list[Finding]:
    """tree.unportable: a changed path some clone cannot check out (a name too long, a
    name or character Windows refuses, two paths equal but for case)."""
    changed = [p for p in ctx.changed() if p in ctx.tip.entries]
    if not changed:
        return []
    out: list[Finding] = []
    names: dict[str, str | None] = {}  # each name checked once (folders repeat in paths)
    for path in changed:
        why = _unportable(path, names)
        if why is not None:
            out.append(finding("tree.unportable", path, None, f"{path}: {why}"))
    folded: dict[str, set[str]] = {}
    for place in _places(ctx.tip.entries):  # every place, folders too: "Wiki/" and "wiki/"
        folded.setdefault(_fold(place), set()).add(place)
    if all(len(same) == 1 for same in folded.values()):
        return out  # no two places differ only in case (a whole-wiki verify: the usual)
    flagged: set[str] = set()
    for path in changed:
        parts = path.split("/")
        for i in range(1, len(parts) + 1):
            place = "/".join(parts[:i])
            others = sorted(folded[_fold(place)] - {place})
            if others and place not in flagged:
                flagged.add(place)
                other = others[0]
                out.append(
                    finding(
                        "tree.unportable",
                        path,
                        None,
                        _same_name(place, other),
                    )
                )
    return out


def _same_name(place: str, other: str) -> str:
    if place.casefold() == other.casefold():
        how = f"{place} and {other} differ only in case"
    else:  # they print alike: show the code points
        how = f"{place!a} and {other!a} differ only in how their letters are encoded (NFC, NFD)"
    return f"{how}: on macOS and Windows one overwrites the other in a checkout"


def _fold(place: str) -> str:
    """What macOS and Windows file systems take as the same name: case folded, and
    macOS's Unicode normalization (a precomposed é and e + combining accent are one)."""
    return unicodedata.normalize("NFC", place).casefold()


def _places(paths: Iterable[str]) -> set[str]:
    """Every path and every folder above one, each once (a place in the set has every
    folder above it in the set: the walk up stops at the first place seen)."""
    places: set[str] = set()
    for path in paths:
        place = path
        while place and place not in places:
            places.add(place)
            place = place.rpartition("/")[0]
    return places


def _unportable(path: str, names: dict[str, str | None]) -> str | None:
    for name in path.split("/"):
        if name not in names:
            names[name] = _unportable_name(name)
        if names[name] is not None:
            return names[name]
    return None


def _unportable_name(name: str) -> str | None:
    size = len(name.encode("utf-8", "surrogatepass"))
    if size > NAME_BYTES:
        return (
            f"a name of {size} bytes, past the {NAME_BYTES} a file name may have on Linux and macOS"
        )
    if name.split(".", 1)[0].casefold() in WINDOWS_RESERVED:
        return f"{name!r} is a name Windows reserves for a device"
    bad = sorted(WINDOWS_FORBIDDEN.intersection(name))
    if bad:
        return f"{name!r} holds {' '.join(bad)}, which Windows file names cannot"
    if name.endswith((".", " ")):
        return f"{name!r} ends in a dot or a space, which Windows drops"
    return None


def check_paths(ctx: Context) -> list[Finding]:
    if ctx.base is None:
        return []
    out: list[Finding] = []
    base, tip = ctx.base, ctx.tip
    layout = tip.layout
    for path in ctx.changed():
        if path == CONFIG_FILE:
            out.append(_rules_change(ctx, base, tip))
            out += _rules_followup(ctx, base, tip)
            continue
        where = layout.area(path)
        if where == "other":
            out.append(_repository_file(ctx, base, tip, path))
            continue
        if where == "wiki":
            out += _page_path(tip, path)
            continue
        if path in base.entries and path in tip.entries:
            out.append(
                finding(
                    "run.raw_write",
                    path,
                    None,
                    f"the run modifies the raw source {path}; raw sources are immutable",
                    hint="add a new source file instead",
                )
            )
        elif path in base.entries:
            out.append(
                finding(
                    "run.raw_write",
                    path,
                    None,
                    f"the run deletes or renames the raw source {path}",
                    hint="raw sources are never removed by a run",
                )
            )
        elif ctx.plan is not None and ctx.run_type != "ingest":
            out.append(
                finding(
                    "run.raw_write",
                    path,
                    None,
                    f"a {ctx.run_type} run adds the raw source {path}; only ingest runs may",
                    hint="start an ingest run for new sources",
                )
            )
        elif tip.entries[path].is_link or tip.entries[path].is_submodule:
            out.append(
                finding(
                    "run.raw_write",
                    path,
                    None,
                    f"{path} is a symlink or submodule; raw sources must be files",
                )
            )
    return out


def _not_the_wikis(layout: Layout, path: str) -> str:
    """Why ``path`` is no file of the wiki, in words that hold when the wiki is the
    repository's root (trial 26c: "outside the wiki (the repository's root)" of a file
    there read as a contradiction): excluded by ``[wiki] exclude``, hidden, or outside."""
    if path.startswith(layout.root):
        rule = next((x for x in layout.exclude if excluded(path, x)), None)
        if rule is not None:
            return f"not the wiki's ([wiki] exclude {json.dumps(rule)}) and not under raw/"
        if not layout.root and "/." in "/" + path:
            return "a hidden path, not the wiki's (the wiki is the repository's root)"
    return f"outside the wiki ({layout.shown}) and raw/"


def _repository_file(ctx: Context, base: WikiTree, tip: WikiTree, path: str) -> Finding:
    """A file of the repository outside the wiki and raw/ (``.gitignore``, a workflow,
    ``.pre-commit-config.yaml``, ``.obsidian/``): a person decides
    (``run.repository_file``); critical (``run.path_acl``) when it is no regular file of
    at most a page's size, or lies under a ``.git`` folder."""
    layout = tip.layout
    outside = _not_the_wikis(layout, path)
    entry = tip.entries.get(path)
    problem = None
    if any(part.casefold() == ".git" for part in path.split("/")):
        problem = "a path under .git"
    elif entry is not None and entry.mode not in REGULAR:
        kind = "a symlink" if entry.is_link else "a submodule" if entry.is_submodule else None
        problem = kind or f"of mode {entry.mode:o}"
    elif entry is not None:
        size = int(ctx.repo.odb.read_header(entry.oid)[1])
        if size > MAX_PAGE_BYTES:
            problem = f"{size} bytes, past the {MAX_PAGE_BYTES} a repository file may hold"
    if problem is not None:
        return finding(
            "run.path_acl",
            path,
            None,
            f"the run changes {path}, {outside}: it is {problem}",
        )
    verb = "deletes" if entry is None else "changes" if path in base.entries else "adds"
    return finding(
        "run.repository_file",
        path,
        None,
        f"the run {verb} the repository file {path}, {outside}; a person decides",
    )


RULES_BYTES = 2**20  # a proposed wikigate.toml read at most
RULES_SHOWN = 60  # settings a rules change names one by one (severities last)


def _rules_change(ctx: Context, base: WikiTree, tip: WikiTree) -> Finding:
    """The run proposes new rules: which settings differ, old → new, for a person to
    decide (``run.rules_change`` asks a person); critical when the proposed file does not
    load.  The proposed rules are read, never applied: this verification, the server's
    and the bot's run under the base's."""
    try:
        old = _rules_of(ctx, base)
    except ConfigError:
        old = Config()  # the base's own file is broken: the verification says so elsewhere
    try:
        new = _rules_of(ctx, tip)
    except ConfigError as e:
        return finding(
            "run.rules_change",
            CONFIG_FILE,
            None,
            f"the run proposes rules that do not load: {shown(str(e))[:500]}",
            severity="critical",
            hint=f"write a {CONFIG_FILE} that `wikigate verify` loads (docs/config.md)",
        )
    changes = rules_diff(old, new)
    if not changes:
        what = "the file changes, but no setting's value does"
    else:
        named = [f"{key}: {was} → {now}" for key, was, now in changes[:RULES_SHOWN]]
        more = len(changes) - RULES_SHOWN
        what = "; ".join(named) + (f"; and {more} more" if more > 0 else "")
    verb = "deletes" if CONFIG_FILE not in tip.entries else "changes"
    return finding(
        "run.rules_change",
        CONFIG_FILE,
        None,
        f"the run {verb} the rules ({CONFIG_FILE}): {what}; a person decides",
    )


def _rules_followup(ctx: Context, base: WikiTree, tip: WikiTree) -> list[Finding]:
    """The pages the change leaves against the proposed rules: which the new ``[ledger]``,
    ``[gap_policy]`` or ``[presentation] avoid`` would find fault with that the base's did
    not (run.rules_followup, naming them). Nothing when the proposed file does not load
    (run.rules_change says so, critical)."""
    try:
        old = _rules_of(ctx, base)
    except ConfigError:
        old = Config()
    try:
        new = _rules_of(ctx, tip)
    except ConfigError:
        return []
    failing = pages_failing(tip, old, new)
    for page, what in _moved_wiki(tip, old, new).items():
        failing.setdefault(page, []).extend(what)
    if not failing:
        return []
    return [
        finding(
            "run.rules_followup",
            CONFIG_FILE,
            None,
            f"under the proposed rules {len(failing)} "
            f"{'page fails' if len(failing) == 1 else 'pages fail'} that pass today; a "
            f"follow-up text change must fix them: {followup_message(failing)}",
        )
    ]


MOVED_PAGES_READ = 5000  # pages whose links a moved [wiki] root or exclude reads, at most


def _moved_wiki(tip: WikiTree, old: Config, new: Config) -> dict[str, list[str]]:
    """When the proposed ``[wiki]`` moves the root or changes what is excluded: the pages
    of ``tip`` that would become orphans, or hold links that would break, under the new
    layout and do not under the old (a root moved from ``wiki`` to ``.`` without an
    ``index.md`` at the repository's root leaves every page an orphan)."""
    was, now = old.wiki.layout(), new.wiki.layout()
    if was == now:
        return {}
    from ..links import FileNames
    from .pages import broken_links

    before = tip if tip.layout == was else _relaid(tip, was, old)
    after = _relaid(tip, now, new)
    out: dict[str, list[str]] = {}
    orphaned = after.link_graph().orphans() - before.link_graph().orphans()
    for path in sorted(orphaned):
        out.setdefault(path, []).append(f"an orphan: no chain of links from {now.index} reaches it")
    names = FileNames(after.pages, after.raw, after.entries, after.layout)
    olds = FileNames(before.pages, before.raw, before.entries, before.layout)
    for path in after.pages[:MOVED_PAGES_READ]:
        had = (
            {m for _n, m, _c, _h in broken_links(before, path, olds)}
            if path in before.pages
            else set()
        )
        for line, message, _code, _hint in broken_links(after, path, names):
            if message not in had:
                out.setdefault(path, []).append(f"line {line}: {message}")
    return out


def _relaid(tip: WikiTree, layout: Layout, rules: Config) -> WikiTree:
    return WikiTree(tip.repo, tip.tree_id, tip.cache, tip.workers, rules.limits, layout)


def _rules_of(ctx: Context, tree: WikiTree) -> Config:
    entry = tree.entries.get(CONFIG_FILE)
    if entry is None:
        return Config()
    if entry.mode not in REGULAR:
        raise ConfigError(f"{CONFIG_FILE} is not a regular file")
    size = int(ctx.repo.odb.read_header(entry.oid)[1])
    if size > RULES_BYTES:
        raise ConfigError(f"{CONFIG_FILE} is {size} bytes, past the {RULES_BYTES} rules may hold")
    data = blob_at(ctx.repo, entry.oid).data
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"{CONFIG_FILE}: not UTF-8 ({e})") from e
    return parse_config(text, "the proposed file")


# settings a committed wikigate.toml holds to no effect: the server reads them from its own
# BARE.git/wikigate.toml only (docs/config.md), so a change of them is no rules change
INERT = ("server.", "verifier.verify_on_push")


def rules_diff(old: Config, new: Config) -> list[tuple[str, str, str]]:
    """The settings whose values differ: (``section.key``, old, new), values as JSON."""
    import json

    def flat(data: object, prefix: str, out: dict[str, str]) -> dict[str, str]:
        if isinstance(data, dict) and data:
            for k, v in data.items():
                flat(v, f"{prefix}.{k}" if prefix else str(k), out)
        else:
            out[prefix] = json.dumps(data, ensure_ascii=False, sort_keys=True)
        return out

    was = flat(old.model_dump(mode="json"), "", {})
    now = flat(new.model_dump(mode="json"), "", {})

    def filled(key: str, other: dict[str, str]) -> bool:
        """An empty table on one side whose keys the other side sets: its keys say it."""
        return any(k.startswith(key + ".") for k in other)

    severity = "verifier.severity."

    def preset(side: dict[str, str], key: str) -> str | None:
        """What a code's severity is on ``side`` without a pin: its preset under that
        side's strictness (a pin equal to it changes nothing)."""
        entry = CODES.get(key.removeprefix(severity))
        if entry is None:
            return None
        level = json.loads(side.get("verifier.strictness", '"SKEPTICAL"'))
        return json.dumps(dict(entry.presets).get(level, entry.severity))

    def changes(key: str) -> bool:
        if key.startswith(INERT):
            return False  # read only from the server's own file: no effect when committed
        if not key.startswith(severity):
            return was.get(key) != now.get(key)
        if was.get(key) == now.get(key):
            return False
        # a pin is no change only where it equals its own side's preset and the other side
        # pins nothing: a strictness change between them is listed on its own
        pins = [(side, side[key]) for side in (was, now) if key in side]
        return not (len(pins) == 1 and pins[0][1] == preset(pins[0][0], key))

    def said(side: dict[str, str], key: str) -> str:
        if key == "wiki.root" and side.get(key) == '""':
            return '"."'  # the repository's root, as `--wiki-root .` and the docs write it
        if key in side:
            return side[key]
        if key.startswith(severity) and (default := preset(side, key)) is not None:
            return f"(unset: {default})"
        return "(unset)"

    keys = {k for k in was if not (was[k] == "{}" and filled(k, now))} | {
        k for k in now if not (now[k] == "{}" and filled(k, was))
    }
    # what a person must see first: every setting but the per-code severities, then those
    ordered = sorted(keys, key=lambda k: (k.startswith(severity), k))
    return [
        (shown(k)[:120], shown(said(was, k))[:120], shown(said(now, k))[:120])
        for k in ordered
        if changes(k)
    ]


def _head(tip: WikiTree, oid: str) -> bytes:
    """The first bytes of a blob (an attachment's signature); nothing when unreadable."""
    try:
        return bytes(tip.repo[oid].read_raw()[:16])
    except (KeyError, ValueError):
        return b""


def _page_path(tip: WikiTree, path: str) -> list[Finding]:
    """An added or changed path under wiki/ must be a page (a regular file named *.md) or
    an attachment (a regular file of an attachment type that starts as that type does)."""
    entry = tip.entries.get(path)
    if entry is None:
        return []  # deleted: the convergence check judges what a deletion loses
    if path.endswith(".md") and entry.mode in REGULAR:
        return []
    if is_attachment(path, tip.layout) and entry.mode in REGULAR:
        problem = attachment_problem(path, _head(tip, entry.oid))
        if problem is None:
            return []
        return [
            finding(
                "run.path_acl",
                path,
                None,
                f"{path}: {problem}; an attachment in the wiki must be what its name says",
            )
        ]
    kind = "a symlink" if entry.is_link else "a submodule" if entry.is_submodule else None
    if kind is None and entry.mode not in REGULAR:
        kind = f"of mode {entry.mode:o}"
    what = f"{path} is {kind}" if kind else f"{path} is neither a page (*.md) nor an attachment"
    root = tip.layout.root
    return [
        finding(
            "run.path_acl",
            path,
            None,
            f"{what}; {root or 'the wiki at the repository root'} holds pages (*.md regular "
            f"files) and their attachments ({' '.join(ATTACHMENT_SUFFIXES)}) only",
            hint=f"write pages as {root}NAME.md regular files; a file of another kind (an "
            "Obsidian .canvas or .base) belongs outside the wiki: exclude it in [wiki] "
            'exclude (a glob such as "*.canvas"), and a run writes it as a repository file '
            "a person approves",
        )
    ]


def check_log(ctx: Context) -> list[Finding]:
    """The log (``log.md`` in the wiki's root) is append-only: a change to an existing log
    must keep all of it."""
    LOG = ctx.log  # noqa: N806 - the log of [wiki] root
    if ctx.base is None or LOG not in ctx.base.entries or LOG not in ctx.changed():
        return []
    if LOG not in ctx.tip.entries:
        moved = _log_moved_to(ctx)
        why = (
            f"; the rules it proposes move the log to {moved}, but a run is judged by the "
            f"rules it starts from, where {LOG} is the log"
            if moved
            else ""
        )
        hint = (
            f"keep {LOG} in this run (link it from the new index); once the new rules have "
            "landed it is a page like any other, which a later run may delete"
            if moved
            else f"only append lines to the end of {LOG}"
        )
        return [
            finding(
                "run.log_rewrite",
                LOG,
                None,
                f"the run deletes {LOG}, an append-only log{why}",
                hint=hint,
            )
        ]
    if ctx.log_appended():
        before = blob_at(ctx.repo, ctx.base.entries[LOG].oid).data
        after = blob_at(ctx.repo, ctx.tip.entries[LOG].oid).data
        said = log_continued(LOG, before, after)
        if said is None:
            return []
        line, message = said
        return [finding("run.log_rewrite", LOG, line, message, hint=CONTINUED_HINT)]
    return [
        finding(
            "run.log_rewrite",
            LOG,
            None,
            f"the run rewrites {LOG}; the log is append-only, so a change may only add to its end",
            hint=f"only append lines to the end of {LOG}",
        )
    ]


# what markdown-it reads as one entry: a block an appended line joining it changes as it
# renders (a paragraph's lazy continuation, a setext heading's underline, a fence or an HTML
# block left open, a list item's indented continuation); a list, a block quote or a table
# taking one more item is the log growing, not an entry changing
_ENTRIES = frozenset(
    (
        "paragraph_open",
        "heading_open",
        "fence",
        "code_block",
        "html_block",
        "list_item_open",
        "footnote_reference_open",
        "front_matter",
    )
)
CONTINUED_HINT = (
    "leave a blank line between the log's last entry and the new one, and start the new "
    "entry at the left margin (or as a list item of its own, `- `)"
)


def log_continued(log: str, before: bytes, after: bytes) -> tuple[int, str] | None:
    """Whether an append to the log (``after`` starts with ``before``) changes the log's
    last entry as markdown renders it (trial 28c M2: a line appended right under it, no
    blank line between, reads as more of it): the first appended line it swallows (from
    1) and a message saying so, else None. A log markdown-it cannot parse in linear time
    (ParseLimit) is not decided: said so, as a change to its last entry (fail closed).
    One parse of the log as pages are parsed: linear in its size."""
    old = _newlines(before.decode("utf-8", "replace"))
    new = _newlines(after.decode("utf-8", "replace"))
    if not old.strip():
        return None  # no entry to continue
    if not new.startswith(old):  # a character split at the old end: compared as decoded
        old = new[: len(old.rstrip("\ufffd"))]
    lines = new.split("\n")
    first = old.count("\n")  # the line the appended text starts on (from 0)
    if not old.endswith("\n"):
        if new[len(old) : len(old) + 1] not in ("", "\n") and lines[first].strip(" \t"):
            return first + 1, (
                f"the appended text goes on line {first + 1} of {log}, the last line of its "
                "last entry (the log did not end in a newline), so the append changes an "
                "entry already in the append-only log: start the new entry on a line of its "
                "own, after a blank line"
            )
        first += 1 if new[len(old) : len(old) + 1] == "\n" else 0
    try:
        _bounded(new)  # the page parse's own bound: markdown-it's quadratic constructs
    except ParseLimit as e:
        return first + 1, (
            f"{log} is not read as markdown ({e}): whether the appended text changes the "
            "log's last entry is not known"
        )
    tokens = _blocks().parse(new if new.endswith("\n") else new + "\n", {})
    for tok in tokens:
        if tok.type not in _ENTRIES or tok.map is None:
            continue
        start, end = tok.map
        if start >= first or end <= first:
            continue
        swallowed = next((n for n in range(first, min(end, len(lines))) if lines[n].strip()), None)
        if swallowed is None:
            continue
        if tok.type in ("fence", "html_block"):
            fix = "that entry leaves a fence or an HTML block open, taking in every line after it"
        elif any(not lines[n].strip() for n in range(first, swallowed)):
            fix = "start the new entry at the left margin (indented, it is more of that entry)"
        else:
            fix = "leave a blank line before the new entry"
        return swallowed + 1, (
            f"line {swallowed + 1} of {log}, appended after the entry starting on line "
            f"{start + 1}, renders as part of that entry (markdown reads it as more of it), "
            f"so the append changes an entry already in the append-only log: {fix}"
        )
    return None


@functools.lru_cache(maxsize=1)
def _blocks() -> MarkdownIt:
    """markdown-it as pages are parsed (verifier/markdown.py: its block rules and plugins),
    reading blocks only: where a block starts and ends needs no inline parse (a quarter of
    the time on a 1 MB log)."""
    md = (
        MarkdownIt("commonmark")
        .use(front_matter_plugin)
        .use(footnote_plugin)
        .use(container_plugin, "disputed")
        .enable("table")
    )
    md.core.ruler.disable(["inline", "footnote_tail", "text_join"])
    return md


def _newlines(text: str) -> str:
    """markdown-it's newlines (its line numbers count these)."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def _log_moved_to(ctx: Context) -> str | None:
    """The log the change's proposed rules name (a ``[wiki] root`` moved), when it is not
    the base's; None when the rules stay or do not load (run.rules_change says so)."""
    try:
        log = _rules_of(ctx, ctx.tip).wiki.layout().log
    except Exception:  # noqa: BLE001 - unreadable rules: reported by the rules check
        return None
    return log if log != ctx.log else None


def check_convergence(ctx: Context) -> list[Finding]:
    """Every cited claim on a page the run changes: kept (pass), reworded around its quote
    (warn) or removed/altered (fail: run.convergence). Each claim's result goes into the
    report's ``claim_checks``.

    ``[ledger] frozen``: a frozen page (or a page in a frozen folder) may not change at all,
    in any run type (claim.frozen: added text, a new page in a frozen folder and a deletion,
    an archive run's included). A frozen claim may not be removed, altered, relabelled or put
    in a disputed block (claim.frozen): the entry names it by its label, so a relabel would
    unfreeze it; reworded around its quote, claim.frozen_reworded asks a person. An entry
    naming a label the base's page does not cite cannot say which claim it protects: its page
    may not change until a maintainer fixes the entry."""
    if ctx.base is None:
        return []
    out: list[Finding] = []
    base, tip, ledger = ctx.base, ctx.tip, ctx.config.ledger
    changed = set(ctx.changed())
    archived = ctx.run_type == "archive"
    pages = [p for p in sorted(set(base.pages) | set(tip.pages)) if p in changed]
    base.load([p for p in pages if p in base.entries])
    for path in pages:
        before = page_claims(base.page(path), _resolver(base, path)) if path in base.entries else []
        after = page_claims(tip.page(path), _resolver(tip, path)) if path in tip.entries else []
        deleted = path not in tip.entries
        frozen_page = ledger.frozen_page(path)
        if frozen_page is not None:
            out.append(_frozen_page_change(ctx, path, frozen_page))
        elif before and not after and deleted and not archived:
            out.append(
                finding(
                    "run.convergence",
                    path,
                    None,
                    f"the run deletes {path}, which holds {len(before)} cited claims",
                    hint="only archive runs may delete pages with cited claims",
                )
            )
        out += _dangling_frozen(path, before, ledger.frozen)
        compared = _compare(before, after, archived=archived and frozen_page is None)
        failed = _failing(ctx, path, [c.claim for c in compared if c.result == "fail"])
        for c in compared:
            frozen = ledger.frozen_claim(path, c.claim.label)
            why = failed.get(c.claim.id)
            if why is not None and frozen is None and not deleted:
                c = c._replace(result="warn", reason=f"{c.reason}: {why}")
            ctx.claim_checks.append(ClaimCheck.of(c, frozen))
            out += _claim_finding(c, frozen, deleted=deleted, page_frozen=frozen_page is not None)
    for path in sorted(changed - set(pages)):  # a frozen folder's other files
        frozen_page = ledger.frozen_page(path)
        if frozen_page is not None:
            out.append(_frozen_page_change(ctx, path, frozen_page))
    return out


MARKED = "its [conflict: …] marker changed"


def _compare(before: list[PageClaim], after: list[PageClaim], *, archived: bool) -> list[Compared]:
    """``compare``, each claim's ``[conflict: raw/…]`` marker left out of its sentence: the
    marker's words are the page's note, not the claim's (docs/format.md), so a run adding,
    correcting or removing one has not altered the claim (trial 41: the marker's figure
    corrected as the gate asked was critical run.convergence). The consistency check still
    holds the marker to the sources. The results name the claims as written."""
    if not any(CONFLICT_MARKER.search(c.sentence) for c in (*before, *after)):
        return compare(before, after, archived=archived)
    written = {(a.label, a.use): a for a in after}
    got = compare([_unmarked(b) for b in before], [_unmarked(a) for a in after], archived=archived)
    out: list[Compared] = []
    for b, c in zip(before, got, strict=True):
        now = written[(c.now.label, c.now.use)] if c.now is not None else None
        reason = c.reason
        if now is not None and now.sentence != b.sentence:
            if c.result == "warn" and c.reason.startswith("reworded"):
                reason = f"reworded around the same quote: {now.sentence!r}; {MARKED}"
            elif c.reason == "unchanged":
                reason = f"kept; {MARKED}"
            else:
                reason = f"{c.reason}; {MARKED}"
        out.append(Compared(b, c.result, reason, now))
    return out


def _unmarked(c: PageClaim) -> PageClaim:
    """``c`` with its sentence's ``[conflict: raw/…]`` markers left out, the space before
    each too ("… in 1899 [conflict: raw/a.txt says 1894]." reads "… in 1899."); a marker
    between two words leaves a space, so that it joins no two words into one."""
    s = c.sentence
    pieces: list[str] = []
    at = 0
    for m in CONFLICT_MARKER.finditer(s):
        pieces.append(s[at : m.start()].rstrip())
        after = s[m.end() : m.end() + 1]
        pieces.append("" if not after or after.isspace() or after in ".,;:!?)" else " ")
        at = m.end()
    if not at:
        return c
    pieces.append(s[at:])
    return c._replace(sentence=" ".join("".join(pieces).split()))


STALE = (
    "it was stale on main (its source changed and its quote is no longer in it), so the "
    "run may update or remove it"
)
FAILED = (
    "its quote did not verify on main (it never did: its source did not change under it), "
    "so the run may update or remove it"
)


def _failing(ctx: Context, path: str, claims: list[PageClaim]) -> dict[str, str]:
    """Of the claims of the base's page ``path`` the run removes or alters, those it may:
    their quote fails against the base's own source (decided from the base, never from what
    the run wrote), each with why: stale (citations.staleness, the one rule) or never
    verified. A claim sharing its sentence with such a claim (``[^1][^2]``, one source
    changed) may go with it: the sentence is one statement, and a run can update or remove
    it only whole. Each source is read once."""
    base = ctx.base
    page = base.page(path) if base is not None and claims else None
    if base is None or page is None:
        return {}
    defs: dict[str, Citation] = {}
    for d in page.definitions:
        if d.label not in defs and d.citation is not None:
            defs[d.label] = d.citation
    mine = [c for c in claims if c.label in defs]
    failing = quotes_failing(base, path, [defs[c.label] for c in mine])
    bad = [c for c, fails in zip(mine, failing, strict=True) if fails]
    if not bad:
        return {}
    said = (
        staleness(
            ctx.repo,
            ctx.base_commit,
            base,
            path,
            [(c.label, defs[c.label]) for c in bad],
            ctx.config.limits,
        )
        if ctx.base_commit is not None
        else {}
    )
    out: dict[str, str] = {}
    for c in bad:
        stale = said.get(c.label)
        out[c.id] = STALE if stale is not None and stale.stale else FAILED
    sentences = {(c.line, c.sentence): c for c in bad}
    for c in claims:
        first = sentences.get((c.line, c.sentence))
        if c.id not in out and first is not None:
            how = "was stale" if out[first.id] == STALE else "did not verify"
            out[c.id] = (
                f"it shares its sentence with [^{first.label}], whose quote {how} on main, so "
                "the run may update or remove the sentence"
            )
    return out


def _resolver(tree: WikiTree, path: str) -> Callable[[Citation], str]:
    """The path under raw/ a citation on ``path`` names in ``tree``, when it names one."""

    def source_of(c: Citation) -> str:
        hits, acl = resolve_source(tree, path, c)
        return hits[0] if len(hits) == 1 and not acl else c.source

    return source_of


def _frozen_page_change(ctx: Context, path: str, entry: str) -> Finding:
    """One finding for a change to a frozen page or a file in a frozen folder, at the first
    line that differs."""
    assert ctx.base is not None
    where = f"({entry!r} in [ledger] frozen)"
    if path not in ctx.tip.entries:
        return finding("claim.frozen", path, None, f"the run deletes the frozen {path} {where}")
    if path not in ctx.base.entries:
        return finding("claim.frozen", path, 1, f"the run adds {path} to a frozen folder {where}")
    line = _first_changed_line(ctx, path)
    return finding(
        "claim.frozen",
        path,
        line,
        f"the run changes the frozen {path} {where}"
        + (f" from line {line}" if line is not None else ""),
    )


def _first_changed_line(ctx: Context, path: str) -> int | None:
    assert ctx.base is not None
    old, new = ctx.base.entries[path], ctx.tip.entries[path]
    if old.is_link or old.is_submodule or new.is_link or new.is_submodule:
        return None
    a = blob_at(ctx.repo, old.oid).data.split(b"\n")
    b = blob_at(ctx.repo, new.oid).data.split(b"\n")
    for n, (x, y) in enumerate(zip(a, b, strict=False), 1):
        if x != y:
            return n
    return min(len(a), len(b)) + 1 if len(a) != len(b) else None


def _dangling_frozen(path: str, before: list[PageClaim], frozen: list[str]) -> list[Finding]:
    """Entries freezing a claim of ``path`` by a label its base page does not cite."""
    labels = {c.label for c in before}
    out = []
    for item in frozen:
        page, hashed, label = item.partition("#^")
        if hashed and page == path and label not in labels:
            out.append(
                finding(
                    "claim.frozen",
                    path,
                    None,
                    f"{item!r} in [ledger] frozen names no cited claim of {path} on the base "
                    "(relabelled or removed?): the freeze cannot tell which claim it "
                    "protects, so the page may not change",
                    hint="a maintainer updates the entry in wikigate.toml to the claim's "
                    "current label (or removes it)",
                )
            )
    return out


def _claim_finding(
    c: Compared, frozen: str | None, *, deleted: bool, page_frozen: bool
) -> list[Finding]:
    b = c.claim
    if frozen is not None:
        why = _frozen_change(c)
        if why is None or (page_frozen and deleted):  # a deleted page: one finding for it
            return []
        code = "claim.frozen_reworded" if c.result == "warn" and not page_frozen else "claim.frozen"
        return [
            finding(
                code,
                b.page,
                b.line,
                f"the frozen claim [^{b.label}] ({frozen!r} in [ledger] frozen): {why}",
                claim=b.sentence,
            )
        ]
    if c.result != "fail" or deleted:  # a deleted page: one finding for the page
        return []
    return [
        finding(
            "run.convergence",
            b.page,
            b.line,
            f"the cited claim {b.sentence[:80]!r} ({b.source}) was removed or altered",
            claim=b.sentence,
        )
    ]


def _frozen_change(c: Compared) -> str | None:
    """What a run did to a frozen claim, when it did more than move it or update its
    anchor; None when it is kept."""
    if c.result != "pass":
        return c.reason
    now = c.now
    if now is None:  # its page archived
        return c.reason
    if now.label != c.claim.label:
        return (
            f"relabelled as [^{now.label}]; [ledger] frozen names it by its label, so the "
            "label may not change either"
        )
    if now.disputed and not c.claim.disputed:
        return "put in a disputed block"
    if now.sentence != c.claim.sentence:  # its [conflict: …] marker only: a person's word
        return f"{MARKED}; a frozen claim's sentence may not change"
    return None


# a whitespace-separated word of 7+ letters, maybe wrapped in punctuation (plain text)
_TERM = re.compile(r"""(?<!\S)[.,;:!?()\[\]"']*([^\W\d_]{7,})[.,;:!?()\[\]"']*(?!\S)""")


def key_terms(text: str, limit: int = 8) -> list[str]:
    """A source's most frequent long words: what pages about it would mention.

    A big source is sampled (16 evenly spread windows, 1 MB in all): word
    frequencies of a sample rank the top words the same, at a tenth of the cost.
    """
    words = collections.Counter(_TERM.findall(_sample(text).lower()))
    for stop in STOPWORDS:
        words.pop(stop, None)
    return [w for w, n in words.most_common(limit) if n >= 2]


def _sample(text: str, size: int = 2**20, windows: int = 16) -> str:
    if len(text) <= size:
        return text
    step, width = len(text) // windows, size // windows
    return "\n".join(text[i * step : i * step + width] for i in range(windows))


def check_coverage(ctx: Context) -> list[Finding]:
    if ctx.base is None:
        return []
    tip = ctx.tip.entries
    new_sources = [  # a symlink or submodule is no source: the path check reports it
        p
        for p in ctx.changed()
        if p.startswith("raw/")
        and p not in ctx.base.entries
        and p in tip
        and not (tip[p].is_link or tip[p].is_submodule)
    ]
    if not new_sources:
        return []
    terms: set[str] = set()
    for source in new_sources:
        try:
            terms.update(key_terms(ctx.tip.source_text(source, None)))
        except SourceError:
            continue
    if not terms:
        return []
    touched = set(ctx.changed())
    untouched = [p for p in ctx.tip.pages if p not in touched]
    out = []
    for path, hits in sorted(ctx.tip.mentions(untouched, sorted(terms)).items()):
        if len(hits) >= 2:
            out.append(
                finding(
                    "run.coverage",
                    path,
                    None,
                    f"mentions {', '.join(hits[:5])} from the new source but was not updated",
                )
            )
    return out


def check_scope(ctx: Context) -> list[Finding]:
    """A run that declared its scope (``run start --scope``, a pull request's
    ``Wikigate-Scope:`` line) changes nothing outside it. Appending to wiki/log.md is
    always in scope."""
    scope = ctx.declared_scope
    if scope is None and ctx.plan is not None:
        scope = ctx.plan.meta.scope
    if ctx.base is None or scope is None:
        return []
    return [
        finding(
            "run.scope",
            path,
            None,
            f"the run changes {path}, outside the scope it declared "
            f"({', '.join(scope) or 'no valid path'})",
        )
        for path in ctx.changed()
        if not in_scope(path, scope) and not (path == ctx.log and ctx.log_appended())
    ]


def check_required(ctx: Context) -> list[Finding]:
    """``[runs.required.TYPE]``: the steps every run of its type must take."""
    if ctx.base is None or ctx.run_type is None:
        return []
    steps = ctx.config.runs.required.get(ctx.run_type)  # type: ignore[call-overload]
    if steps is None:
        return []
    base, tip = ctx.base, ctx.tip
    changed = set(ctx.changed())
    out: list[Finding] = []

    article = "an" if str(ctx.run_type)[0] in "aeiou" else "a"

    def missing(path: str | None, message: str) -> None:
        out.append(
            finding("run.required_step", path, None, f"{article} {ctx.run_type} run must {message}")
        )

    for page in steps.append:
        if page not in tip.entries:
            missing(page, f"append to {page}, which it does not have")
        elif page not in changed or not _appended(ctx, page):
            missing(page, f"append to {page} (it did not add to its end)")
    for page in steps.change:
        if page not in changed or page not in tip.entries:
            missing(page, f"change {page}")
    new_pages = [p for p in tip.pages if p not in base.entries]
    for listing in steps.link_new_pages_from:
        linked = _linked_from(tip, listing)
        for page in new_pages:
            if page != listing and page not in linked:
                missing(page, f"link its new page {page} from {listing}")
    return out


def _appended(ctx: Context, path: str) -> bool:
    old, new = ctx.base.entries.get(path) if ctx.base else None, ctx.tip.entries.get(path)
    if new is None:
        return False
    if old is None:
        return True  # a new page: all of it is added
    before = ctx.repo[old.oid].data  # type: ignore[attr-defined]
    after = ctx.repo[new.oid].data  # type: ignore[attr-defined]
    return len(after) > len(before) and after.startswith(before)


def _linked_from(tree: WikiTree, listing: str) -> set[str]:
    page = tree.nav_page(listing) if listing in tree.entries else None
    if page is None:
        return set()
    return {t for link in page.links if (t := tree.resolve(listing, link)) is not None}


NOT_CHECKED = (
    "the direction, the [rubric] and the [presentation] voice and register are assessed by "
    'the LLM judge ([judge] provider = "anthropic", or --judge anthropic); the offline judge '
    "cannot: not checked"
)


def check_direction(ctx: Context) -> list[Finding]:
    """The change against what it said it would do (``run start --direction``, a pull
    request's description) and the base's ``[rubric]``: the LLM judge's assessment
    (run.direction, run.direction_unclear, run.rubric), or the report says why not."""
    direction = ctx.declared_direction
    if direction is None and ctx.plan is not None:
        direction = ctx.plan.meta.direction
    rubric = ctx.config.rubric
    look = ctx.config.presentation
    asked = direction is not None or rubric.goals or rubric.non_goals or look.voice or look.register
    if ctx.base is None or not asked:
        return []
    assess = getattr(ctx.judge, "assess", None)
    if assess is None:
        ctx.direction = DirectionReport(checked=False, reason=NOT_CHECKED, direction=direction)
        return []
    diff, clipped = _diff(ctx)
    change = ChangeInput(
        direction,
        tuple(rubric.goals),
        tuple(rubric.non_goals),
        diff,
        voice=look.voice or None,
        register=look.register or None,
    )
    staged = StagedTree(ctx.repo, ctx.tip, ctx.tip_commit, ctx.heartbeat)
    got: Assessment = assess(change, staged)
    changed = set(ctx.changed())
    if ctx.judgment is None and hasattr(ctx.judge, "judge"):  # its artifacts go with it
        ctx.judgment = ctx.judge.judge([], staged)
    if got.error is not None:
        ctx.direction = DirectionReport(
            checked=False, reason=got.error, direction=direction, clipped=clipped
        )
        return [
            finding(
                "run.direction",
                None,
                None,
                f"the change's direction and rubric could not be assessed: {got.error}",
                hint="verify again when the judge is reachable, or raise the judge's budget",
            )
        ]
    ctx.direction = DirectionReport(
        checked=True,
        direction=direction,
        clipped=clipped,
        effect=got.direction,
        effect_reason=got.direction_reason,
        rubric=[
            RubricResult(kind=r.kind, item=r.item, effect=r.effect, reason=r.reason)
            for r in got.rubric
        ],
        presentation=[
            PresentationResult(
                aspect=p.aspect,
                wanted=(look.voice if p.aspect == "voice" else look.register) or "",
                fits=p.fits,
                page=p.page if p.page in changed else None,
                reason=p.reason,
            )
            for p in got.presentation
        ],
    )
    out: list[Finding] = []
    if got.direction == "worsens":
        out.append(
            finding(
                "run.direction",
                None,
                None,
                f"the change works against its direction: {got.direction_reason}",
            )
        )
    elif got.direction == "unchanged":
        out.append(
            finding(
                "run.direction",
                None,
                None,
                f"the change does none of what its direction says: {got.direction_reason}",
                severity="minor",
            )
        )
    elif got.direction == "ambiguous":
        out.append(
            finding(
                "run.direction_unclear",
                None,
                None,
                f"the direction is unclear: {got.direction_reason}",
            )
        )
    for r in got.rubric:
        if (r.kind == "goal" and r.effect == "worsens") or (
            r.kind == "non_goal" and r.effect == "improves"
        ):
            what = "sets back the goal" if r.kind == "goal" else "pursues the non-goal"
            out.append(
                finding("run.rubric", None, None, f"the change {what} {r.item!r}: {r.reason}")
            )
    goals = [r for r in got.rubric if r.kind == "goal"]
    # none improves and none is set back (that asks a person: run.rubric above)
    if rubric.require_gain and goals and all(r.effect == "unchanged" for r in goals):
        said = "; ".join(f"{r.item!r}: {r.effect} ({r.reason})" for r in goals[:5])
        out.append(
            finding(
                "run.rubric_no_gain",
                None,
                None,
                f"the change improves none of the [rubric] goals: {said}",
            )
        )
    for p in ctx.direction.presentation:
        if p.fits:
            continue
        line = _first_added_line(ctx, p.page) if p.page is not None else None
        out.append(
            finding(
                "page.presentation",
                p.page,
                line,
                f"the change's text departs from the [presentation] {p.aspect} "
                f"({p.wanted!r}): {p.reason}",
            )
        )
    return out


def _first_added_line(ctx: Context, path: str) -> int | None:
    assert ctx.base is not None
    added = added_lines(ctx.base.text_or_empty(path), ctx.tip.text_or_empty(path))
    return next((n for n, line in added if line.strip()), None)


DIFF_PAGE_CHARS = 8000  # of one page's diff
DIFF_INPUT_CHARS = 100_000  # of each side of a page diffed


def _diff(ctx: Context) -> tuple[str, list[str]]:
    """The changed pages as a unified diff (each clipped), new sources by name, within the
    judge's claims budget of characters; and the pages the judge sees only in part, or not
    at all (a blind spot the report names)."""
    import pygit2

    assert ctx.base is not None
    cap = ctx.config.judge.max_claims_chars
    parts: list[tuple[str, str]] = []  # (path, what the judge reads of it)
    clipped: list[str] = []
    size = 0
    for path in ctx.changed():
        if path.startswith("raw/"):
            state = "added" if path not in ctx.base.entries else "changed"
            parts.append((path, f"(source {path} {state})"))
            continue
        if not path.endswith(".md"):
            continue
        if size > cap:  # the rest would be clipped: not diffed at all
            clipped.append(path)
            continue
        old = ctx.base.text_or_empty(path)
        new = ctx.tip.text_or_empty(path)
        # libgit2's diff (Myers, in C; difflib's was quadratic on a long page: review 36a)
        # of at most DIFF_INPUT_CHARS a side: Myers is O(size x edits), and only the
        # first DIFF_PAGE_CHARS of the diff are shown
        cut = len(old) > DIFF_INPUT_CHARS or len(new) > DIFF_INPUT_CHARS
        old, new = old[:DIFF_INPUT_CHARS], new[:DIFF_INPUT_CHARS]
        # (the patch points into both buffers: they are held until its text is read)
        old_bytes = old.encode("utf-8", "surrogatepass")
        new_bytes = new.encode("utf-8", "surrogatepass")
        patch = pygit2.Patch.create_from(
            old_bytes, new_bytes, old_as_path=path, new_as_path=path, context_lines=2
        )
        text = patch.text or ""
        del patch, old_bytes, new_bytes
        text = text[text.find("\n--- ") + 1 :] if "\n--- " in text else text
        size += len(text)
        if len(text) > DIFF_PAGE_CHARS or cut:
            text = text[:DIFF_PAGE_CHARS] + f"\n(… the diff of {path} is clipped)"
            clipped.append(path)
        parts.append((path, text))
    out = "\n".join(text for _, text in parts)
    if len(out) > cap:
        out = out[:cap] + "\n(… the rest of the change is clipped)"
        start = 0
        for path, text in parts:  # a page whose diff runs past the cap is seen in part
            if start + len(text) > cap and path.endswith(".md") and path not in clipped:
                clipped.append(path)
            start += len(text) + 1
    return out, sorted(clipped)


def check_budget(ctx: Context) -> list[Finding]:
    if ctx.plan is None:
        return []
    budget, usage = ctx.plan.meta.budget, ctx.plan.meta.usage
    if budget.is_empty():
        return []
    if usage.is_empty():  # nothing to check yet: the writer attests, then finalizes again
        declared = ", ".join(
            f"{name.replace('_', ' ')} {value:g}"
            for name in ("input_tokens", "output_tokens", "usd")
            if (value := getattr(budget, name)) is not None
        )
        return [
            finding(
                "run.usage_missing",
                None,
                None,
                f"the run declares a budget ({declared}) but the writer attested no usage: "
                f"attest what it spent with `wikigate run usage {ctx.plan.meta.run_id} "
                "--input-tokens N --output-tokens N --usd X`, then finalize again",
            )
        ]
    out = []
    for name in ("input_tokens", "output_tokens", "usd"):
        cap, used = getattr(budget, name), getattr(usage, name)
        if cap is not None and used is not None and used > cap:
            out.append(
                finding(
                    "run.budget",
                    None,
                    None,
                    f"{name.replace('_', ' ')}: used {used:g}, budget {cap:g}",
                    hint="the run overspent its declared budget",
                )
            )
    return out
