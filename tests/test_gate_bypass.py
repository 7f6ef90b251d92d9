"""The push gates decide from what they verified themselves: forged notes, unverified runs
under a verified tip, and server-side overrides. Real `git push` to a real local bare repo."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import pytest
from support.helpers import git, in_process
from support.wiki_runs import cited_page, fabricated_page, page_run

from wikigate.gitrepo import read_note
from wikigate.workspace import Workspace

FORGED = '{"status":"committed","verdict":"commit"}'
MISSING = "wiki/fake.md:5: citation.source_missing: [^1]: source raw/made-up.txt does not exist"


def wikigate_cli(cwd, *args):
    return in_process(["-C", str(cwd), *args])


def push(cwd, *args, user=None):
    """`git push` as a client; ``user`` is what the server's auth layer would set (GL_USER)."""
    env = {k: v for k, v in os.environ.items() if k not in ("GL_USER", "REMOTE_USER")}
    if user is not None:
        env["GL_USER"] = user
    return subprocess.run(
        ["git", "-C", str(cwd), "push", *args], capture_output=True, text=True, env=env
    )


def main_of(repo) -> str:
    return git(repo, "rev-parse", "main").stdout.strip()


@pytest.fixture
def origin(tmp_path):
    """A workspace with one verified run, a bare server cloned from it, pushing to it."""
    ws = Workspace.init(tmp_path / "client")
    assert page_run(ws, "owls").status == "committed"
    bare = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(ws.root), str(bare))
    git(ws.root, "remote", "add", "origin", str(bare))
    git(ws.root, "fetch", "-q", "origin")
    yield ws, bare
    ws.close()


@pytest.fixture
def server(origin):
    ws, bare = origin
    proc = wikigate_cli(ws.root, "hooks", "install", "--server", str(bare))
    assert proc.returncode == 0, proc.stderr
    return ws, bare


def unverified_then_verified(ws):
    """A --no-verify run with a fabricated citation, then a verified run on another page."""
    fake = page_run(ws, "fake", fabricated_page("fake"), verify=False)
    assert fake.status == "committed" and fake.verdict is None
    good = page_run(ws, "herons")
    assert good.status == "committed" and good.verdict == "commit"
    return fake, good


def commit_on_main(root, name, text):
    """A plain git commit on main, client hooks bypassed."""
    (root / "wiki" / f"{name}.md").write_text(text)
    index = root / "wiki" / "index.md"
    index.write_text(index.read_text() + f"- [[{name}]]\n")
    git(root, "add", "wiki")
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-qm", f"add {name}")
    return main_of(root)


# ---------------------------------------------------------------- 1. forged notes


@pytest.mark.parametrize("server_toml", [None, "[verifier]\nverify_on_push = true\n"])
def test_server_refuses_a_forged_verdict_note(server, server_toml):
    ws, bare = server
    if server_toml is not None:  # the legacy spelling keeps working
        (bare / "wikigate.toml").write_text(server_toml)
    before = main_of(bare)
    commit_on_main(ws.root, "fake", fabricated_page("fake"))
    git(ws.root, "notes", "--ref=wikigate", "add", "-m", FORGED, "HEAD")
    proc = push(ws.root, "origin", "main", "refs/notes/wikigate")
    assert proc.returncode != 0
    assert f"remote:   {MISSING}" in proc.stderr
    assert main_of(bare) == before


def test_a_pushed_note_is_stored_but_never_trusted(server):
    ws, bare = server
    before = main_of(bare)
    tip = commit_on_main(ws.root, "fake", fabricated_page("fake"))
    git(ws.root, "notes", "--ref=wikigate", "add", "-m", FORGED, "HEAD")
    notes = push(ws.root, "origin", "refs/notes/wikigate")  # notes alone: free, stored
    assert notes.returncode == 0, notes.stderr
    assert read_note(Workspace.open(bare).repo, tip) == json.loads(FORGED)
    proc = push(ws.root, "origin", "main")
    assert proc.returncode != 0 and MISSING in proc.stderr
    assert main_of(bare) == before


def test_server_install_verifies_on_push_and_advertises_push_options(origin):
    ws, bare = origin
    proc = wikigate_cli(ws.root, "hooks", "install", "--server", str(bare))
    assert proc.returncode == 0, proc.stderr
    assert "verify_on_push = true" in (bare / "wikigate.toml").read_text()
    assert git(bare, "config", "receive.advertisePushOptions").stdout.strip() == "true"
    # an operator's explicit choice is kept, and said out loud
    (bare / "wikigate.toml").write_text("[server]\nverify_on_push = false\n")
    proc = wikigate_cli(ws.root, "hooks", "install", "--server", str(bare))
    assert proc.returncode == 0, proc.stderr
    assert "verify_on_push = false" in (bare / "wikigate.toml").read_text()
    assert "verify_on_push = false" in proc.stdout + proc.stderr


def test_server_that_does_not_verify_refuses_main_updates(server):
    """With verify_on_push = false nothing proves a change: main moves only by override."""
    ws, bare = server
    (bare / "wikigate.toml").write_text("[server]\nverify_on_push = false\n")
    before = main_of(bare)
    page_run(ws, "herons")
    proc = push(ws.root, "origin", "main", "refs/notes/wikigate")
    assert proc.returncode != 0 and "verify_on_push = false" in proc.stderr
    assert main_of(bare) == before


def test_a_push_cannot_bring_its_own_rules(server):
    ws, bare = server
    before = main_of(bare)
    toml = ws.root / "wikigate.toml"
    toml.write_text(
        toml.read_text().replace(
            "[verifier.severity]\n", '[verifier.severity]\n"citation.source_missing" = "off"\n'
        )
        + "\n[server]\nverify_on_push = false\n"
    )
    git(ws.root, "add", "wikigate.toml")
    commit_on_main(ws.root, "fake", fabricated_page("fake"))
    proc = push(ws.root, "origin", "main")
    assert proc.returncode != 0 and MISSING in proc.stderr
    assert main_of(bare) == before


@pytest.mark.slow
def test_server_caches_its_own_verdict_by_trees_and_rules(server):
    ws, bare = server
    old = main_of(bare)
    page_run(ws, "herons")
    proc = push(ws.root, "origin", "main")
    assert proc.returncode == 0, proc.stderr
    new = main_of(bare)
    db = sqlite3.connect(bare / "wikigate" / "gate.db")
    rows = db.execute("SELECT base_tree, tip_tree, verdict FROM verdicts").fetchall()
    db.close()
    tree = {c: git(bare, "rev-parse", f"{c}^{{tree}}").stdout.strip() for c in (old, new)}
    assert rows == [(tree[old], tree[new], "commit")]


def test_server_verdict_cache_key_names_what_was_verified(tmp_path):
    from wikigate.hooks.server import GateDB, VerdictKey

    cache = GateDB(tmp_path)
    a, b = "a" * 40, "b" * 40
    key = VerdictKey(a, b, "0.1.0", "rules-1", "SKEPTICAL")
    cache.store(key, "reject", ["wiki/x.md:1: ..."])
    assert cache.lookup(key) == ("reject", ["wiki/x.md:1: ..."])
    for other in [
        (b, b, "0.1.0", "rules-1", "SKEPTICAL"),  # another base tree
        (a, a, "0.1.0", "rules-1", "SKEPTICAL"),  # another tip tree
        (a, b, "0.2.0", "rules-1", "SKEPTICAL"),  # another verifier
        (a, b, "0.1.0", "rules-2", "SKEPTICAL"),  # other rules
        (a, b, "0.1.0", "rules-1", "PARANOID"),  # another strictness
    ]:
        assert cache.lookup(VerdictKey(*other)) is None
    cache.close()


# ---------------------------------------------------------------- 2. the whole range


def test_pre_push_refuses_an_unverified_run_under_a_verified_tip(origin):
    ws, bare = origin
    before = main_of(bare)
    fake, _good = unverified_then_verified(ws)
    assert wikigate_cli(ws.root, "hooks", "install").returncode == 0
    proc = push(ws.root, "origin", "main")
    assert proc.returncode != 0
    assert fake.tip[:12] in proc.stderr and fake.run_id in proc.stderr
    assert "--no-verify" in proc.stderr
    assert main_of(bare) == before


def test_pre_push_refuses_a_plain_commit_under_a_verified_tip(origin):
    ws, bare = origin
    plain = commit_on_main(ws.root, "plain", cited_page("plain"))
    page_run(ws, "herons")
    assert wikigate_cli(ws.root, "hooks", "install").returncode == 0
    proc = push(ws.root, "origin", "main")
    assert proc.returncode != 0 and plain[:12] in proc.stderr
    assert "no wikigate run" in proc.stderr


def test_reference_transaction_refuses_an_unverified_run_under_a_verified_tip(origin, tmp_path):
    ws, bare = origin
    teammate = tmp_path / "teammate"
    git(tmp_path, "clone", "-q", str(bare), str(teammate))
    assert wikigate_cli(teammate, "hooks", "install").returncode == 0
    fake, good = unverified_then_verified(ws)
    assert push(ws.root, "origin", "main", "refs/notes/wikigate").returncode == 0  # no gates
    git(teammate, "fetch", "-q", "origin")
    before = main_of(teammate)
    merge = git(teammate, "merge", "--ff-only", "origin/main", check=False)
    assert merge.returncode != 0
    assert fake.tip[:12] in merge.stderr and fake.run_id in merge.stderr
    assert main_of(teammate) == before


def test_an_overridden_run_passes_the_local_hooks(origin):
    ws, bare = origin
    fake, good = unverified_then_verified(ws)
    assert wikigate_cli(ws.root, "hooks", "install").returncode == 0
    assert push(ws.root, "origin", "main").returncode != 0
    why = "the source arrives tomorrow"
    proc = wikigate_cli(ws.root, "verify", "override", fake.run_id, "--reason", why)
    assert proc.returncode == 0, proc.stderr
    assert read_note(ws.repo, fake.tip)["verdict"] == "commit_override"
    proc = push(ws.root, "origin", "main")
    assert proc.returncode == 0, proc.stderr
    assert main_of(bare) == good.tip


def test_server_verifies_the_whole_range_not_the_tip(server):
    ws, bare = server
    before = main_of(bare)
    unverified_then_verified(ws)
    proc = push(ws.root, "origin", "main", "refs/notes/wikigate")
    assert proc.returncode != 0 and f"remote:   {MISSING}" in proc.stderr
    assert main_of(bare) == before


@pytest.mark.slow
def test_server_override_needs_a_listed_user_and_is_recorded(server):
    ws, bare = server
    (bare / "wikigate.toml").write_text('[server]\noverride_users = ["alice"]\n')
    before = main_of(bare)
    _fake, good = unverified_then_verified(ws)
    refused = push(ws.root, "origin", "main", user="alice")
    assert refused.returncode != 0 and MISSING in refused.stderr
    assert "wikigate-override" in refused.stderr  # the message names the way out
    reason = "the source arrives tomorrow"
    bob = push(ws.root, "-o", f"wikigate-override={reason}", "origin", "main", user="bob")
    assert bob.returncode != 0 and "bob" in bob.stderr
    nobody = push(ws.root, "-o", f"wikigate-override={reason}", "origin", "main")
    assert nobody.returncode != 0
    assert main_of(bare) == before
    alice = push(ws.root, "-o", f"wikigate-override={reason}", "origin", "main", user="alice")
    assert alice.returncode == 0, alice.stderr
    assert main_of(bare) == good.tip
    assert "remote: wikigate: override by alice" in alice.stderr
    db = sqlite3.connect(bare / "wikigate" / "gate.db")
    rows = db.execute('SELECT "user", reason, old, new, at FROM overrides').fetchall()
    db.close()
    assert [r[:4] for r in rows] == [("alice", reason, before, good.tip)]
    assert rows[0][4]  # a timestamp


def test_updates_of_other_refs_stay_free(server):
    ws, bare = server
    tip = commit_on_main(ws.root, "fake", fabricated_page("fake"))
    git(ws.root, "notes", "--ref=wikigate", "add", "-m", FORGED, "HEAD")
    proc = push(ws.root, "origin", "main:refs/heads/wikigate/runs/x", "refs/notes/wikigate")
    assert proc.returncode == 0, proc.stderr
    assert git(bare, "rev-parse", "wikigate/runs/x").stdout.strip() == tip
    assert not (bare / "wikigate" / "gate.db").exists()  # nothing verified, nothing stored


NOTES = "refs/notes/wikigate"
ARTIFACTS = "refs/wikigate/artifacts"


@pytest.mark.slow
def test_the_servers_records_only_fast_forward_but_for_an_admin(server):
    """issue 21, item 12: no pusher but an admin deletes or rewrites the records' refs."""
    ws, bare = server
    toml = bare / "wikigate.toml"
    toml.write_text(toml.read_text() + 'admins = ["carol"]\n')
    first = push(ws.root, "origin", NOTES, ARTIFACTS, user="mallory")  # creating them: free
    assert first.returncode == 0, first.stderr
    page_run(ws, "herons")  # a verified run: the notes and the artifacts grow
    grown = push(ws.root, "origin", "main", NOTES, ARTIFACTS, user="mallory")
    assert grown.returncode == 0, grown.stderr  # fast-forwards
    records = {ref: git(bare, "rev-parse", ref).stdout.strip() for ref in (NOTES, ARTIFACTS)}
    assert records == {ref: git(ws.root, "rev-parse", ref).stdout.strip() for ref in records}

    # one push rewinds one of the refs and deletes the other: each is refused on its own line
    for rewind, delete in ((NOTES, ARTIFACTS), (ARTIFACTS, NOTES)):
        for user in ("mallory", None):
            refused = push(
                ws.root, "origin", f"+{records[rewind]}~1:{rewind}", f":{delete}", user=user
            )
            assert refused.returncode != 0
            lines = refused.stderr.splitlines()
            rewound = [line for line in lines if f"refusing {rewind} " in line]
            assert len(rewound) == 1
            assert ": not a fast-forward; it holds the runs' records" in rewound[0]
            deleted = [line for line in lines if f"refusing {delete} " in line]
            assert len(deleted) == 1 and ": a deletion; it holds the runs' records" in deleted[0]
            who = "mallory is not" if user else "the pushing user is not known to be"
            assert f"{who} in [server] admins" in refused.stderr
            assert "only fast-forward here" in refused.stderr
            for ref in (NOTES, ARTIFACTS):
                assert git(bare, "rev-parse", ref).stdout.strip() == records[ref]

    deleted = push(
        ws.root, "origin", f":{NOTES}", f"+{records[ARTIFACTS]}~1:{ARTIFACTS}", user="carol"
    )
    assert deleted.returncode == 0, deleted.stderr
    assert f"admin carol: {NOTES} " in deleted.stderr
    assert git(bare, "rev-parse", "--verify", "-q", NOTES, check=False).returncode != 0
    rewound = git(bare, "rev-parse", ARTIFACTS).stdout.strip()
    assert rewound == git(bare, "rev-parse", f"{records[ARTIFACTS]}~1").stdout.strip()
    db = sqlite3.connect(bare / "wikigate" / "gate.db")
    rows = db.execute('SELECT "user", ref, old, new FROM admin_updates ORDER BY id').fetchall()
    db.close()
    assert rows == [
        ("carol", NOTES, records[NOTES], "0" * 40),
        ("carol", ARTIFACTS, records[ARTIFACTS], rewound),
    ]
    blob = str(ws.repo.create_blob(b"not a record\n"))
    planted = push(ws.root, "origin", f"{blob}:{NOTES}", user="mallory")
    assert planted.returncode != 0 and ": not a commit;" in planted.stderr
    recreated = push(ws.root, "origin", NOTES, user="mallory")  # created again: free
    assert recreated.returncode == 0, recreated.stderr


def test_a_fast_forward_of_the_servers_notes_may_not_drop_or_repurpose_a_record(server):
    """A fast-forward to a commit whose tree is empty (or holds another run's record in a
    note's place) would wipe the records every clone rebuilds from: refused. A run's own
    record brought up to date (an override vouching for it) is a fast-forward like any."""
    ws, _bare = server
    run = ws.start_run("cascade", "cli:test")
    run.stage_write("wiki/herons.md", "# Herons\n")
    tip = run.finalize(verify=False).tip
    assert push(ws.root, "origin", NOTES, user="mallory").returncode == 0
    notes = git(ws.root, "rev-parse", NOTES).stdout.strip()
    empty = subprocess.run(
        ["git", "-C", str(ws.root), "mktree"], input="", capture_output=True, text=True
    ).stdout.strip()
    wiped = git(ws.root, "commit-tree", "-p", notes, "-m", "wipe", empty).stdout.strip()
    proc = push(ws.root, "origin", f"{wiped}:{NOTES}", user="mallory")
    assert proc.returncode != 0 and f"refusing {NOTES} " in proc.stderr
    assert "it drops 2 of 2 run records" in proc.stderr  # the fixture's run and this one

    ws.override(run.run_id, "read it myself")  # the same run's record, vouched for
    assert push(ws.root, "origin", NOTES, user="mallory").returncode == 0

    git(ws.root, "notes", "--ref", "wikigate", "add", "-f", "-m", '{"run_id": "other"}', tip)
    proc = push(ws.root, "origin", NOTES, user="mallory")
    assert proc.returncode != 0 and f"turns the record of run {run.run_id}" in proc.stderr


def test_server_install_keeps_a_reflog_of_every_ref(origin):
    ws, bare = origin
    proc = wikigate_cli(ws.root, "hooks", "install", "--server", str(bare))
    assert proc.returncode == 0, proc.stderr
    assert git(bare, "config", "core.logAllRefUpdates").stdout.strip() == "always"
    assert push(ws.root, "origin", NOTES).returncode == 0
    reflog = git(bare, "reflog", "show", NOTES).stdout
    assert git(bare, "rev-parse", "--short", NOTES).stdout.strip() in reflog


def test_a_hook_with_nothing_to_do_loads_neither_pygit2_nor_pydantic():
    """reference-transaction runs on every ref update, pre-receive on every push: fast paths."""
    from wikigate import gitrepo
    from wikigate.hooks import git_hooks

    assert (git_hooks.MAIN, git_hooks.NOTES_REF) == (gitrepo.MAIN, gitrepo.NOTES_REF)
    code = (
        "import sys\n"
        "from wikigate.hooks import local, server\n"
        f"line = '{'0' * 40} {'1' * 40} refs/heads/wikigate/runs/x'\n"
        "assert server.pre_receive([], line) == 0\n"
        "assert local.reference_transaction(['prepared'], line) == 0\n"
        "assert local.reference_transaction(['committed'], line) == 0\n"
        "print(sorted(m for m in ('pygit2', 'pydantic', 'sqlite3') if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_hooks_never_import_code_from_the_repository(origin, tmp_path):
    """Hooks run in the work tree (or the bare git dir, which holds a wikigate/ folder):
    a file there named like a module must not be imported in place of it."""
    ws, _bare = origin
    marker = tmp_path / "imported"
    (ws.root / "pygit2.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    page_run(ws, "herons")
    assert wikigate_cli(ws.root, "hooks", "install").returncode == 0
    proc = push(ws.root, "origin", "main")
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()


# ---------------------------------------------------------------- malformed trees, hooks kept


def test_git_itself_refuses_a_tree_with_duplicate_or_dot_entries(server):
    """A hand-built tree with two `wiki/p.md` entries (git's lookup sees the first, a reader
    may see the last) or a `..` entry (clones then fail to check out) never reaches main."""
    ws, bare = server
    root = ws.root
    good = cited_page("p")
    fake = fabricated_page("p")
    before = main_of(bare)
    for entries in (
        [("p.md", fake), ("p.md", good)],
        [("..", good), ("p.md", good)],
        [(".git", good), ("p.md", good)],
    ):
        wiki_tree = git(root, "rev-parse", "main:wiki").stdout.strip()
        listing = git(root, "ls-tree", wiki_tree).stdout
        for name, text in entries:
            blob = subprocess.run(
                ["git", "-C", str(root), "hash-object", "-w", "--stdin"],
                input=text,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            listing += f"100644 blob {blob}\t{name}\n"
        new_wiki = subprocess.run(
            ["git", "-C", str(root), "mktree", "--missing"],
            input=listing,
            capture_output=True,
            text=True,
        )
        if new_wiki.returncode != 0:  # mktree refuses some names itself: build it literally
            new_wiki = _literal_tree(root, listing)
        else:
            new_wiki = new_wiki.stdout.strip()
        top = git(root, "ls-tree", "main").stdout.replace(wiki_tree, new_wiki)
        tree = subprocess.run(
            ["git", "-C", str(root), "mktree"], input=top, capture_output=True, text=True
        ).stdout.strip()
        commit = git(root, "commit-tree", tree, "-p", "main", "-m", "hand-built").stdout.strip()
        pushed = push(root, "origin", f"{commit}:refs/heads/main")
        assert pushed.returncode != 0, entries
        assert main_of(bare) == before


def _literal_tree(root, listing: str) -> str:
    """A tree object exactly as listed (git's own tools refuse to make bad ones)."""
    import hashlib

    body = b""
    for line in listing.splitlines():
        meta, name = line.split("\t", 1)
        mode, _kind, sha = meta.split()
        body += mode.encode() + b" " + name.encode() + b"\0" + bytes.fromhex(sha)
    obj = b"tree %d\0" % len(body) + body
    proc = subprocess.run(
        ["git", "-C", str(root), "hash-object", "-t", "tree", "--literally", "-w", "--stdin"],
        input=body,
        capture_output=True,
        check=True,
    )
    assert proc.stdout.decode().strip() == hashlib.sha1(obj).hexdigest()
    return proc.stdout.decode().strip()


def test_install_never_loses_an_existing_hook(origin):
    ws, _bare = origin
    hooks = ws.git_dir / "hooks"
    (hooks / "pre-push").write_text("#!/bin/sh\necho mine\n")
    (hooks / "pre-push.legacy").write_text("#!/bin/sh\necho older\n")
    proc = wikigate_cli(ws.root, "hooks", "install")
    assert proc.returncode == 1 and "merge them into one pre-push.legacy by hand" in proc.stderr
    assert (hooks / "pre-push").read_text() == "#!/bin/sh\necho mine\n"
    assert (hooks / "pre-push.legacy").read_text() == "#!/bin/sh\necho older\n"
    assert not (hooks / "reference-transaction").exists()  # nothing half-installed


def test_server_install_points_an_unborn_head_at_main(tmp_path):
    """`git init --bare` names master; a clone would check out an ungated branch."""
    bare = tmp_path / "srv.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "master", str(bare))
    done = in_process(["hooks", "install", "--server", str(bare)])
    assert done.returncode == 0, done.stderr
    assert git(bare, "symbolic-ref", "HEAD").stdout.strip() == "refs/heads/main"
    assert "what clones check out is gated" in done.stdout
