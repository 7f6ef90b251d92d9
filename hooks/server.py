"""The server gate, ``pre-receive``: it trusts nothing a client sent.

It verifies OLD → NEW itself under the rules of OLD's committed ``wikigate.toml``
and caches its own verdicts in its git dir, unless a key its own git config trusts
signed an attestation of exactly this change (attested.py).  Pushed notes are stored;
they are read only to find such an attestation, and believed in nothing.
The records' refs (``refs/notes/wikigate``, ``refs/wikigate/artifacts``) only grow: a
push may fast-forward them, and only a server admin may delete or rewrite them.
Its settings, who may override it and who is an admin, come from the server's own
``BARE.git/wikigate.toml`` (docs/hooks.md).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # imported where needed: a hook with nothing to do loads no pygit2, no pydantic
    import sqlite3

    import pygit2

    from wikigate.config import Config

from .common import ARTIFACTS_REF, NOTES_REF, SERVER_NOTES_REF, ZERO, main_ref, ref_updates
from .common import err as _err
from .common import null as _null

OVERRIDE_OPTION = "wikigate-override"
OVERRIDE_HINT = f'git push -o {OVERRIDE_OPTION}="why" ... (users in [server] override_users)'
RECORDS = (NOTES_REF, ARTIFACTS_REF)  # the server's records: they only grow

# ---------------------------------------------------------------- pre-receive (server)


def pre_receive(argv: list[str], stdin: str) -> int:
    """Accept main only as a fast-forward the server verified itself (or a recorded override).

    Pushed notes travel and are stored like any other ref; they never decide.  The
    records' refs only fast-forward, but for a server admin.
    """
    updates = ref_updates(stdin)
    trunk = main_ref()  # the server's own git config: no push can change it
    branch = trunk.removeprefix("refs/heads/")
    if any(ref == SERVER_NOTES_REF for _o, _n, ref in updates):
        _err(
            f"wikigate: {SERVER_NOTES_REF} holds what this server accepted onto {branch}; "
            "only the server writes it.",
            "  Push without it (a plain `git push` does not send it).",
        )
        return 1
    guarded = (trunk, SERVER_NOTES_REF, *RECORDS)
    below = sorted(
        {ref for _o, _n, ref in updates if ref.startswith(tuple(g + "/" for g in guarded))}
    )
    if below:
        _err(
            f"wikigate: refusing {', '.join(below[:5])}: a ref below {branch} or wikigate's "
            "records would stop them being written (git keeps no ref beneath another).",
        )
        return 1
    aliases = _symbolic_refs({ref for _o, _n, ref in updates})
    if aliases:
        _err(
            f"wikigate: refusing {', '.join(sorted(aliases)[:5])}: a symbolic ref on this server "
            "(a push through it moves what it points at, past the gate). Push to the branch "
            "it names."
        )
        return 1
    mains = [(old, new) for old, new, ref in updates if ref == trunk]
    records = [(old, new, ref) for old, new, ref in updates if ref in RECORDS]
    if not mains and not records:
        return 0  # run branches and everything else pass freely
    import pygit2

    from wikigate.gitrepo import repository

    repo = repository(os.environ.get("GIT_DIR", "."))  # sees the quarantined objects
    if records and not _records_grow(repo, records):
        return 1
    if not mains:
        return 0
    old, new = mains[0]
    if _null(new):
        _err(f"wikigate: {branch} cannot be deleted on this server.")
        return 1
    _serialize_pushes(repo.path)
    current = str(repo.references[trunk].target) if trunk in repo.references else ZERO
    if current != old:
        _err(
            f"wikigate: {branch} moved while you were pushing (another push won).",
            f"  Fetch, rebase your run onto the new {branch}, verify again, and push again.",
        )
        return 1
    if not _null(old) and not repo.descendant_of(pygit2.Oid(hex=new), pygit2.Oid(hex=old)):
        _err(
            f"wikigate: {branch} {old[:12]} → {new[:12]} is not a fast-forward.",
            f"  Rebase onto the server's {branch}, verify again, and push again.",
        )
        return 1
    if _null(old):
        return 0  # creating main: the gate applies from the next update on
    notes = next((n for _o, n, ref in updates if ref == NOTES_REF and not _null(n)), None)
    return _gate(repo, old, new, notes, branch)


def _symbolic_refs(refs: set[str]) -> set[str]:
    """Which of ``refs`` are symbolic refs in this repository (``git symbolic-ref
    refs/heads/master refs/heads/main`` on the server: a push to master moves main)."""
    proc = subprocess.run(
        ["git", "for-each-ref", "--format=%(refname)%09%(symref)"],
        capture_output=True,
        text=True,
        check=False,
    )
    symbolic = {
        name
        for name, _, target in (ln.partition("\t") for ln in proc.stdout.splitlines())
        if target
    }
    return refs & symbolic


def post_receive(argv: list[str], stdin: str) -> int:
    """After main moved: bring the server's claim ledger up to it (docs/ledger.md).

    main has landed and nothing here can undo it; the ledger is derived from git, so a
    failure only leaves it behind until the next ``wikigate claims`` on the server."""
    updates = ref_updates(stdin)
    trunk = main_ref()
    if not any(ref == trunk and not _null(new) for _old, new, ref in updates):
        return 0
    for old, new, ref in updates:
        if ref == trunk and not _null(old) and not _null(new):
            _note_accepted(old, new)
    try:
        from wikigate import ledger
        from wikigate.workspace import Workspace

        ws = Workspace.open(os.environ.get("GIT_DIR", "."))
        try:
            ledger.sync(ws)
        finally:
            ws.close()
    except Exception as e:  # noqa: BLE001 - main has landed; the index can wait
        _err(f"wikigate: the claim ledger is behind the gated branch ({type(e).__name__}: {e})")
    return 0


def _note_accepted(old: str, new: str) -> None:
    """Record on ``new`` that this server accepted its trunk's move from ``old``, in
    SERVER_NOTES_REF, which no push may write: a clone whose local hooks guard the trunk
    reads it (as fetched) and fast-forwards to what the server verified (hooks/local.py).
    Main has landed; a failure is said and leaves those clones to refuse the move."""
    note = {
        "status": "committed",
        "verdict": "commit",
        "base_commit": old,
        "run_id": f"accepted by the server gate ({old[:12]} → {new[:12]})",
        "accepted_by": "server",
        "accepted_at": _now(),
    }
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "wikigate server",
        "GIT_AUTHOR_EMAIL": "wikigate@server",
        "GIT_COMMITTER_NAME": "wikigate server",
        "GIT_COMMITTER_EMAIL": "wikigate@server",
    }
    from wikigate.refs import run_git_waiting  # another push's post-receive may hold the lock

    proc = run_git_waiting(
        ["git", "notes", "--ref", SERVER_NOTES_REF, "add", "-f", "-F", "-", new],
        input=json.dumps(note, sort_keys=True),
        env=env,
    )
    if proc.returncode == 0:
        return
    _err(
        f"wikigate: could not record in {SERVER_NOTES_REF} that {new[:12]} was accepted "
        f"({proc.stderr.strip()}); clones with wikigate's local hooks will refuse it"
    )


def _gate(
    repo: pygit2.Repository, old: str, new: str, notes: str | None = None, branch: str = "main"
) -> int:
    from wikigate.config import load_config, server_verifies

    from .attested import attested

    settings = load_config(Path(repo.path))  # the server's own file: no push can change it
    override = _push_option(OVERRIDE_OPTION)
    change = f"{branch} {old[:12]} → {new[:12]}"
    db = GateDB(Path(repo.path))
    try:
        accepted, refused = attested(
            repo, old, new, notes, lambda a: db.claim_attested(a.principal, a.attestation, old, new)
        )
    finally:
        db.close()
    if accepted is not None:
        _err(
            f"wikigate: {change} accepted on attestation {accepted.attestation[:12]}, signed by "
            f"{accepted.principal} ({accepted.verifier}); not verified again here"
        )
        return 0
    if refused:
        _err("wikigate: no attestation accepted; verifying here:", *("  " + r for r in refused))
    if not server_verifies(settings):
        if override is None:
            _err(
                f"wikigate: refusing {change}: this server does not verify pushes "
                "(verify_on_push = false in its wikigate.toml), and a note from a client "
                "proves nothing.",
                f"  {branch} moves here only by an attestation signed by a key in its "
                f"wikigate.allowedSigners, or by a recorded override: {OVERRIDE_HINT}",
            )
            return 1
        return _override(repo, settings, (branch, old, new), override, "unverified")
    verdict, lines = server_verdict(repo, old, new)
    if verdict == "commit":
        return 0
    head = f"refusing {change}:" if override is None else f"{change}:"
    _err(f"wikigate: {head} verification says {verdict}:", *("  " + ln for ln in lines))
    if override is not None:
        return _override(repo, settings, (branch, old, new), override, verdict)
    _err(
        "  Fix it in a run, verify, and push again; an override is recorded with: " + OVERRIDE_HINT
    )
    return 1


def _records_grow(repo: pygit2.Repository, updates: list[tuple[str, str, str]]) -> bool:
    """Whether these updates of the records' refs may land: each one creates the ref or
    fast-forwards it, or the pushing user is in ``[server] admins`` (then it is recorded
    in gate.db, table ``admin_updates``: a deletion also drops the ref's reflog)."""

    from wikigate.config import load_config

    rewrites = []  # (old, new, ref, what it would do)
    for old, new, ref in updates:
        if _null(new):
            rewrites.append((old, new, ref, "a deletion"))
        elif not _is_commit(repo, new):
            rewrites.append((old, new, ref, "not a commit"))
        elif not _null(old) and not _fast_forward(repo, old, new):
            rewrites.append((old, new, ref, "not a fast-forward"))
        elif ref == NOTES_REF and not _null(old) and (lost := _notes_lost(repo, old, new)):
            rewrites.append((old, new, ref, lost))
    if not rewrites:
        return True  # created, or fast-forwarded
    settings = load_config(Path(repo.path))  # the server's own file: no push can change it
    user = _pushing_user(settings)
    if user is not None and user in settings.server.admins:
        db = GateDB(Path(repo.path))
        try:
            for old, new, ref, _what in rewrites:
                db.record_admin_update(user, ref, old, new)
        finally:
            db.close()
        for old, new, ref, what in rewrites:
            _err(f"wikigate: admin {user}: {ref} {old[:12]} → {new[:12]} recorded ({what})")
        return True
    who = f"{user} is not" if user is not None else "the pushing user is not known to be"
    for old, new, ref, what in rewrites:
        _err(
            f"wikigate: refusing {ref} {old[:12]} → {new[:12]}: {what}; it holds the runs' records."
        )
    _err(
        f"  {who} in [server] admins of this server; these refs only fast-forward here.",
        "  Fetch and merge the server's notes, then push again (with `wikigate hooks "
        "install`, pre-push does it: `git fetch origin +refs/notes/wikigate:refs/wikigate/"
        "origin/notes && git notes --ref=wikigate merge -s ours refs/wikigate/origin/notes`)",
    )
    return False


def _notes_lost(repo: pygit2.Repository, old: str, new: str) -> str | None:
    """What a fast-forward of the notes would lose: a note no longer there, or one now
    saying it is another run's (records only grow; a run's record may be brought up to
    date). None when nothing is lost."""
    import json

    from wikigate.errors import GitError
    from wikigate.gitrepo import blob_at, note_entries

    try:
        before, after = note_entries(repo, old), note_entries(repo, new)
    except GitError as e:
        return f"unreadable notes ({e})"
    gone = [name for name in before if name not in after]
    if gone:
        return f"it drops {len(gone)} of {len(before)} run records (the note on {gone[0][:12]})"
    for name, blob in before.items():
        if after[name] == blob:
            continue
        try:
            was = json.loads(blob_at(repo, blob).data).get("run_id")
            now = json.loads(blob_at(repo, after[name]).data).get("run_id")
        except (ValueError, AttributeError):
            was, now = "?", None
        if was is not None and was != now:
            return f"it turns the record of run {was} on {name[:12]} into another"
    return None


def _is_commit(repo: pygit2.Repository, oid: str) -> bool:
    import pygit2

    try:
        return isinstance(repo[oid], pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError):
        return False


def _fast_forward(repo: pygit2.Repository, old: str, new: str) -> bool:
    import pygit2

    try:
        return bool(repo.descendant_of(pygit2.Oid(hex=new), pygit2.Oid(hex=old)))
    except (KeyError, ValueError, pygit2.GitError):  # not commits: no history to keep
        return False


def _pushing_user(settings: Config) -> str | None:
    """The pushing user, from the first set variable of ``[server] user_env``, or None."""
    return next((os.environ[n] for n in settings.server.user_env if os.environ.get(n)), None)


def _push_option(name: str) -> str | None:
    """The value of ``git push -o NAME=VALUE`` ("" for a bare ``-o NAME``), or None."""
    try:
        count = int(os.environ.get("GIT_PUSH_OPTION_COUNT") or 0)
    except ValueError:
        return None
    for i in range(count):
        key, sep, value = os.environ.get(f"GIT_PUSH_OPTION_{i}", "").partition("=")
        if key == name:
            return value if sep else ""
    return None


def _override(
    repo: pygit2.Repository,
    settings: Config,
    move: tuple[str, str, str],
    reason: str,
    verdict: str,
) -> int:
    """Record ``move`` (branch, old, new) as an override by the pushing user, or refuse."""
    branch, old, new = move
    names = settings.server.user_env
    user = _pushing_user(settings)
    if not reason.strip():
        why = f'an override needs a reason: -o {OVERRIDE_OPTION}="why"'
    elif user is None:
        why = f"no pushing user: none of {', '.join(names) or '(no [server] user_env)'} is set"
    elif user not in settings.server.override_users:
        why = f"{user} is not in [server] override_users of this server"
    else:
        db = GateDB(Path(repo.path))
        try:
            db.record_override(user, reason, old, new, verdict)
        finally:
            db.close()
        _err(f"wikigate: override by {user} recorded: {branch} {old[:12]} → {new[:12]}: {reason}")
        return 0
    _err(f"wikigate: override refused: {why}.")
    return 1


# ---------------------------------------------------------------- the server's own verdicts


class VerdictKey(NamedTuple):
    """What a cached verdict was computed from: nothing a client can write."""

    base_tree: str
    tip_tree: str
    version: str  # wikigate's version and a digest of the verifier's code
    rules: str  # config_hash of the base commit's wikigate.toml
    strictness: str


def server_verdict(repo: pygit2.Repository, old: str, new: str) -> tuple[str, list[str]]:
    """Verify OLD → NEW here, under OLD's committed rules: (verdict, blocking finding lines)."""
    from wikigate.config import config_at, config_hash
    from wikigate.gitrepo import commit_at
    from wikigate.verify import DEFAULT, Request, cache_path, spec_for, verify

    base, tip = commit_at(repo, old), commit_at(repo, new)
    try:
        rules: Config | None = config_at(repo, base)
    except Exception:  # noqa: BLE001 - the verification reads it again and says why, failing closed
        rules = None
    db = GateDB(Path(repo.path))
    try:
        key = None
        if rules is not None and spec_for(rules) == DEFAULT:  # a plug-in's code has no digest here
            key = VerdictKey(
                str(base.tree_id),  # ids: libgit2 may refuse to parse a malformed tree
                str(tip.tree_id),
                verifier_version(),
                config_hash(rules),
                rules.verifier.strictness,
            )
            cached = db.lookup(key)
            if cached is not None:
                return cached
        from .precommit import BLOCKING, format_line

        report = verify(Request(repo, tip, base, rules=rules, cache_path=cache_path(repo))).report
        lines = shown_lines([format_line(f) for f in report.findings if f.severity in BLOCKING])
        if key is not None and not any(f.code in TRANSIENT for f in report.findings):
            db.store(key, report.verdict, lines)  # an error may be transient: never cached
        return report.verdict, lines
    finally:
        db.close()


# findings that may not recur on the same trees (a verifier bug, the LLM judge unreachable
# or out of budget): a verdict holding one is never cached
TRANSIENT = ("verifier.error", "citation.inconclusive")
MAX_SHOWN = 50  # blocking findings a refused push prints; one page can hold a million


def shown_lines(lines: list[str]) -> list[str]:
    """The first MAX_SHOWN lines, then how many more there are (what is cached too)."""
    if len(lines) <= MAX_SHOWN:
        return lines
    more = len(lines) - MAX_SHOWN
    return [*lines[:MAX_SHOWN], f"… and {more} more; run `wikigate verify` locally for all"]


def verifier_version() -> str:
    """wikigate's version and a digest of the code a verdict depends on."""
    from wikigate.verifier.version import code_version

    return code_version()


SCHEMA = """
CREATE TABLE IF NOT EXISTS verdicts (
  base_tree TEXT NOT NULL, tip_tree TEXT NOT NULL, version TEXT NOT NULL,
  rules TEXT NOT NULL, strictness TEXT NOT NULL,
  verdict TEXT NOT NULL, findings TEXT NOT NULL, at TEXT NOT NULL,
  PRIMARY KEY (base_tree, tip_tree, version, rules, strictness)
);
CREATE TABLE IF NOT EXISTS overrides (
  id INTEGER PRIMARY KEY, user TEXT NOT NULL, reason TEXT NOT NULL,
  old TEXT NOT NULL, new TEXT NOT NULL, verdict TEXT NOT NULL, at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS attested (
  id INTEGER PRIMARY KEY, principal TEXT NOT NULL, attestation TEXT NOT NULL,
  old TEXT NOT NULL, new TEXT NOT NULL, at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS attested_once ON attested (attestation);
CREATE TABLE IF NOT EXISTS admin_updates (
  id INTEGER PRIMARY KEY, user TEXT NOT NULL, ref TEXT NOT NULL,
  old TEXT NOT NULL, new TEXT NOT NULL, at TEXT NOT NULL
);
"""
KEEP_VERDICTS = 10_000


class GateDB:
    """``BARE.git/wikigate/gate.db``: the server's own verdicts and its recorded overrides.

    It lives in the server's git dir, where no push reaches.
    """

    def __init__(self, git_dir: Path) -> None:
        import sqlite3

        folder = git_dir / "wikigate"
        folder.mkdir(parents=True, exist_ok=True)
        self.db: sqlite3.Connection = sqlite3.connect(folder / "gate.db", timeout=30)
        self.db.executescript(SCHEMA)

    def lookup(self, key: VerdictKey) -> tuple[str, list[str]] | None:
        row = self.db.execute(
            "SELECT verdict, findings FROM verdicts WHERE base_tree = ? AND tip_tree = ? "
            "AND version = ? AND rules = ? AND strictness = ?",
            tuple(key),
        ).fetchone()
        return (str(row[0]), list(json.loads(row[1]))) if row else None

    def store(self, key: VerdictKey, verdict: str, lines: list[str]) -> None:
        with self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (*key, verdict, json.dumps(lines), _now()),
            )
            self.db.execute(
                "DELETE FROM verdicts WHERE rowid <= (SELECT max(rowid) FROM verdicts) - ?",
                (KEEP_VERDICTS,),
            )

    def record_override(self, user: str, reason: str, old: str, new: str, verdict: str) -> None:
        with self.db:
            self.db.execute(
                "INSERT INTO overrides (user, reason, old, new, verdict, at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (user, reason, old, new, verdict, _now()),
            )

    def record_admin_update(self, user: str, ref: str, old: str, new: str) -> None:
        """A deletion or rewrite of a records' ref by a server admin."""
        with self.db:
            self.db.execute(
                "INSERT INTO admin_updates (user, ref, old, new, at) VALUES (?, ?, ?, ?, ?)",
                (user, ref, old, new, _now()),
            )

    def claim_attested(self, principal: str, attestation: str, old: str, new: str) -> str | None:
        """Record an update of main accepted on a signed attestation, not verified here;
        None when recorded, or why not: the attestation was accepted once already (a
        replay), and each is accepted at most once.  Atomic (one write transaction), so two
        pushes that race past the push lock cannot both accept it."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            row = self.db.execute(
                "SELECT old, new, at FROM attested WHERE attestation = ? ORDER BY id LIMIT 1",
                (attestation,),
            ).fetchone()
            if row is None:
                self.db.execute(
                    "INSERT INTO attested (principal, attestation, old, new, at) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (principal, attestation, old, new, _now()),
                )
        except BaseException:
            self.db.rollback()
            raise
        self.db.commit()
        if row is None:
            return None
        return (
            f"it was accepted already (main {str(row[0])[:12]} → {str(row[1])[:12]} at "
            f"{row[2]}), and an attestation is accepted once"
        )

    def close(self) -> None:
        self.db.close()


def _now() -> str:
    from wikigate.runid import now_iso

    return now_iso()


# ---------------------------------------------------------------- serialization


def _serialize_pushes(git_dir: str) -> None:
    """Hold a lock from now until receive-pack has updated the refs and exited.

    Two racing pushes then see each other: the second one's pre-receive waits,
    finds main moved, and tells the pusher to rebase.  A forked child keeps the
    lock (the OS releases it whatever happens) until our parent,
    receive-pack, is gone.
    """
    from wikigate import oslock

    receive_pack = int(os.environ.get("WIKIGATE_GIT_PID") or os.getppid())
    fd = os.open(os.path.join(git_dir, "wikigate-receive.lock"), os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + 60
    while not oslock.try_lock(fd):
        if time.monotonic() > deadline:
            os.close(fd)
            return
        time.sleep(0.02)
    if os.fork() == 0:  # child: detach from git's pipes, wait for receive-pack to exit
        try:
            os.setsid()
            devnull = os.open(os.devnull, os.O_RDWR)
            for std in (0, 1, 2):
                os.dup2(devnull, std)
            os.closerange(3, fd)
            os.closerange(fd + 1, 1024)
            end = time.monotonic() + 120
            while time.monotonic() < end:
                try:
                    os.kill(receive_pack, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.02)
        finally:
            os._exit(0)
    os.close(fd)
