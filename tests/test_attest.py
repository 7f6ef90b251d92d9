"""Green-thread artifacts and signed attestations (docs/attest.md): what each verification
leaves in git, how a user reads it back, and the server gate accepting a pushed main without
verifying it again only on an attestation that a key it trusts signed for exactly that
change.  Real ``ssh-keygen`` keys made in temp dirs, real ``git push`` to a bare repository
with the server hook installed; the LLM judge talks to the emulator on 127.0.0.1."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pygit2
import pytest
from support.helpers import git
from support.wiki_runs import SOURCE, SOURCE_TEXT, cited_page, fabricated_page, page_run

from wikigate import attest, sshsig
from wikigate.cli.main import main
from wikigate.config import Config, ConfigError, config_at, config_hash, parse_config
from wikigate.gitrepo import NOTES_REF, commit_at, notes_commit_with, read_note, ref_target
from wikigate.hooks import attested
from wikigate.hooks.attested import server_verifier
from wikigate.hooks.install import install_server
from wikigate.models import Finding, VerificationRef, VerifierVerdict
from wikigate.runid import now_iso
from wikigate.verifier.judges.llm.prompt import PROMPT_VERSION
from wikigate.workspace import Workspace

pytestmark = pytest.mark.skipif(
    shutil.which("ssh-keygen") is None,
    reason="ssh-keygen (OpenSSH 8.2+) is not installed: signed attestations need it",
)

API_KEY = "sk-ant-emulated-attest-SECRET-7"
JUDGE_TOML = 'provider = "anthropic"\nmax_retries = 1\nmax_tool_turns = 0'
SIGNER = "ci@example.invalid"
FILE = pygit2.GIT_FILEMODE_BLOB
JUDGE_FILES = {"judge/requests.jsonl", "judge/responses.jsonl", "judge/votes.json"}


@dataclass
class Keys:
    trusted: Path  # its public half is in `allowed`
    stranger: Path  # a valid key the server was never told about
    allowed: Path  # an allowed_signers file naming SIGNER


@pytest.fixture
def keys(tmp_path: Path) -> Keys:
    folder = tmp_path / "keys"
    folder.mkdir()
    for name in ("trusted", "stranger"):
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(folder / name)],
            check=True,
        )
    allowed = folder / "allowed_signers"
    allowed.write_text(f"{SIGNER} {(folder / 'trusted.pub').read_text()}")
    return Keys(folder / "trusted", folder / "stranger", allowed)


@pytest.fixture
def emulator(monkeypatch: pytest.MonkeyPatch):
    from support.anthropic_emulator import serving

    yield from serving(monkeypatch, API_KEY)


def workspace(tmp_path: Path, judge_toml: str = "") -> Workspace:
    """A workspace whose main holds the owls source (the product's own verifier)."""
    ws = Workspace.init(tmp_path / "client")
    if judge_toml:
        cfg = ws.root / "wikigate.toml"
        cfg.write_text(cfg.read_text().replace('provider = "offline"', judge_toml))
        git(ws.root, "-c", "core.hooksPath=/dev/null", "commit", "-qam", "judge config")
        ws = Workspace.open(ws.root)
    run = ws.start_run("ingest", "cli:test")
    run.stage_write(SOURCE, SOURCE_TEXT)
    assert run.finalize(verify=False).status == "committed"
    return ws


def server(tmp_path: Path, ws: Workspace, name: str, allowed: Path | None) -> Path:
    """A bare clone of the workspace with the server gate installed, as remote ``name``;
    trusting ``allowed`` (git config wikigate.allowedSigners) when given."""
    bare = tmp_path / f"{name}.git"
    git(tmp_path, "clone", "-q", "--bare", str(ws.root), str(bare))
    install_server(str(bare))
    if allowed is not None:
        git(bare, "config", "wikigate.allowedSigners", str(allowed))
    git(ws.root, "remote", "add", name, str(bare))
    return bare


def gate_rows(bare: Path, table: str) -> int:
    db = bare / "wikigate" / "gate.db"
    if not db.exists():
        return 0
    with sqlite3.connect(db) as conn:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def all_objects(root: Path) -> bytes:
    return subprocess.run(
        ["git", "-C", str(root), "cat-file", "--batch-all-objects", "--batch"],
        capture_output=True,
        check=True,
    ).stdout


def attested_notes(
    ws: Workspace,
    commit: pygit2.Oid,
    text: bytes,
    sig: bytes | None,
    notes_parent: pygit2.Oid | None,
) -> pygit2.Oid:
    """A notes commit with a hand-written note on ``commit`` naming the attestation
    ``text`` (signed with ``sig``), whose blobs ride along in the notes' history (as
    finalize puts them there); the client's notes ref points at it."""
    repo = ws.repo
    tree = repo.TreeBuilder()
    pointer = {"attestation": str(repo.create_blob(text))}
    tree.insert("attestation.json", pygit2.Oid(hex=pointer["attestation"]), FILE)
    if sig is not None:
        pointer["signature"] = str(repo.create_blob(sig))
        tree.insert("attestation.json.sig", pygit2.Oid(hex=pointer["signature"]), FILE)
    sign = repo.default_signature
    carried = repo.create_commit(None, sign, sign, "artifacts", tree.write(), [])
    record = {"verifications": [pointer]}
    notes = notes_commit_with(repo, commit, record, notes_parent, also=carried)
    git(ws.root, "update-ref", NOTES_REF, str(notes))
    return notes


def push_attested(
    ws: Workspace,
    commit: pygit2.Oid,
    text: bytes,
    sig: bytes | None,
    notes_parent: pygit2.Oid | None,
    push: str = "main",
) -> subprocess.CompletedProcess[str]:
    """Push ``push`` (main, or SRC:main) to origin with ``attested_notes``."""
    attested_notes(ws, commit, text, sig, notes_parent)
    return git(ws.root, "push", "origin", push, f"+{NOTES_REF}", check=False)


def unverified_change(ws: Workspace) -> tuple[pygit2.Commit, pygit2.Commit]:
    """main OLD → NEW on the client: NEW adds a page the server's verification refuses
    (citation.source_missing), committed past the local gate."""
    repo = ws.repo
    old = commit_at(repo, ref_target(repo, "refs/heads/main"))
    (ws.root / "wiki" / "bad.md").write_text(fabricated_page("bad"))  # a source that is not there
    index = ws.root / "wiki" / "index.md"
    index.write_text(index.read_text() + "- [[bad]]\n")
    git(ws.root, "add", "wiki")
    git(ws.root, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "unverified page")
    return old, commit_at(repo, ref_target(repo, "refs/heads/main"))


def attestation_of(repo: pygit2.Repository, old: pygit2.Commit, new: pygit2.Commit):
    """A PASS of OLD → NEW under OLD's rules, as a trusted signer's verifier would write it."""
    return attest.Attestation(
        verifier=server_verifier(),
        config_hash=config_hash(config_at(repo, old)),
        strictness="SKEPTICAL",
        base_tree=str(old.tree_id),
        tip_tree=str(new.tree_id),
        base_commit=str(old.id),
        tip_commit=str(new.id),
        judge=attest.JudgeInfo(provider="offline"),
        artifacts={},
        report=None,
        result="PASS",
        verdict="commit",
        created_at=now_iso(),
    )


# ---------------------------------------------------------------- what finalize leaves in git


@pytest.mark.slow
def test_finalize_leaves_the_judges_record_and_a_signed_attestation_in_git_free_of_the_key(
    tmp_path, keys, emulator, capsys
):
    ws = workspace(tmp_path, JUDGE_TOML)
    git(ws.root, "config", "wikigate.signingKey", str(keys.trusted))
    run = ws.start_run("cascade", "cli:test")
    run.stage_write("wiki/owls.md", cited_page("owls"))
    run.stage_write("wiki/index.md", (run.read("wiki/index.md") or b"").decode() + "- [[owls]]\n")
    base = commit_at(ws.repo, run.plan().meta.base)
    assert main(["-C", str(ws.root), "run", "finalize", run.run_id]) == 0
    printed = capsys.readouterr()
    ws = Workspace.open(ws.root)
    (row,) = ws.store.verifications(run.run_id)
    assert row["result"] == "PASS" and row["signature"]
    ref = VerificationRef.model_validate(row)
    files = attest.files(ws.repo, ref)
    assert set(files) == {"attestation.json", "attestation.json.sig", "report.json", *JUDGE_FILES}

    # the exact requests and raw responses, as the emulator received and sent them
    sent = [json.loads(line) for line in files["judge/requests.jsonl"].data.splitlines()]
    assert sent == [m.body for m in emulator.messages] and len(sent) == 1
    (answer,) = files["judge/responses.jsonl"].data.splitlines()
    assert json.loads(answer)["content"][0]["name"] == "record_votes"
    assert json.loads(files["judge/votes.json"].data)[0]["claim_id"] == "wiki/owls.md#^1"

    # the attestation names every artifact by its blob id and SHA-256, and what was verified
    att = attest.parse(files["attestation.json"].data)
    for name in JUDGE_FILES:
        assert att.artifacts[name].git == str(files[name].id)
    assert att.report is not None and att.report.git == str(files["report.json"].id)
    tip = commit_at(ws.repo, ws.store.get(run.run_id)["tip_commit"])
    assert (att.base_tree, att.tip_tree) == (str(base.tree_id), str(tip.tree_id))
    assert att.config_hash == config_hash(config_at(ws.repo, base))
    assert (att.judge.provider, att.judge.model) == ("anthropic", "claude-sonnet-5")
    assert att.judge.prompt_version == PROMPT_VERSION
    assert (att.result, att.run_id, att.loop) == ("PASS", run.run_id, 1)
    assert att.verifier == server_verifier()  # the class that ran, then its version
    signed = bytes(files["attestation.json"].data)
    sig = bytes(files["attestation.json.sig"].data)
    assert sshsig.verify(signed, sig, keys.allowed) == SIGNER
    note = read_note(ws.repo, tip.id)
    assert note is not None and note["verifications"][0]["attestation"] == ref.attestation  # type: ignore[index]

    # only the structured votes reach the report and telemetry, never the conversation
    report = json.loads(files["report.json"].data)
    assert report["judge"]["votes"][0]["vote"] == "supports"
    telemetry = (ws.git_dir / "wikigate" / "telemetry.db").read_bytes()
    for prose in (b"find the error in this write", b"record_votes"):
        assert prose in files["judge/requests.jsonl"].data
        assert prose not in files["report.json"].data and prose not in telemetry

    # reachable from refs: git gc keeps them, and they travel with refs/notes/wikigate
    travels = git(ws.root, "rev-list", "--objects", NOTES_REF).stdout
    for blob in files.values():
        assert str(blob.id) in travels
    assert ref.tree in git(ws.root, "rev-list", "--objects", "refs/wikigate/artifacts").stdout
    git(ws.root, "gc", "-q", "--prune=now")
    git(ws.root, "cat-file", "-e", ref.attestation)

    # no key anywhere: not the API key, not the private signing key
    secret = keys.trusted.read_text().splitlines()[2].encode()  # a line of the key's body
    everything = all_objects(ws.root)
    for blob in (everything, telemetry, printed.out.encode(), printed.err.encode()):
        assert API_KEY.encode() not in blob and secret not in blob

    # telemetry rebuilt from git finds the same verifications
    assert main(["-C", str(ws.root), "telemetry", "rebuild", "--no-fetch"]) == 0
    rebuilt = Workspace.open(ws.root).store.verifications(run.run_id)
    assert [{**r, "id": 0} for r in rebuilt] == [{**row, "id": 0}]


def test_runs_show_artifacts_lists_each_verification_and_runs_artifact_prints_one(tmp_path, capsys):
    ws = workspace(tmp_path)  # offline judge, no signing key: attested, unsigned
    run = ws.start_run("cascade", "cli:test")
    run.stage_write("wiki/owls.md", cited_page("owls"))  # not linked: page.orphan, revise
    assert run.finalize().status == "pending"
    run.stage_write("wiki/index.md", (run.read("wiki/index.md") or b"").decode() + "- [[owls]]\n")
    assert run.finalize().status == "committed"
    capsys.readouterr()

    assert main(["-C", str(ws.root), "runs", "show", run.run_id]) == 0
    assert "verifications" not in capsys.readouterr().out
    assert main(["-C", str(ws.root), "runs", "show", run.run_id, "--artifacts"]) == 0
    out = capsys.readouterr().out
    assert "  1. loop 1 FAIL at " in out and "  2. loop 2 PASS at " in out
    assert "(unsigned)" in out and "attestation.json " in out and "report.json " in out
    assert "judge/" not in out  # the offline judge sends nothing, so keeps no record

    assert (
        main(["-C", str(ws.root), "runs", "show", run.run_id, "--artifacts", "--format", "json"])
        == 0
    )
    listed = json.loads(capsys.readouterr().out)["verifications"]
    assert [v["result"] for v in listed] == ["FAIL", "PASS"]
    first_report = listed[0]["artifacts"]["report.json"]["blob"]

    assert main(["-C", str(ws.root), "runs", "artifact", run.run_id, "attestation.json"]) == 0
    last = attest.parse(capsys.readouterr().out.encode())
    assert (last.loop, last.result) == (2, "PASS")
    assert (
        main(
            [
                "-C",
                str(ws.root),
                "runs",
                "artifact",
                run.run_id,
                "attestation.json",
                "--verification",
                "1",
            ]
        )
        == 0
    )
    assert attest.parse(capsys.readouterr().out.encode()).result == "FAIL"
    assert main(["-C", str(ws.root), "runs", "artifact", run.run_id, first_report[:10]]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] == "revise" and report["findings"][0]["code"] == "page.orphan"

    assert main(["-C", str(ws.root), "runs", "artifact", run.run_id, "judge/votes.json"]) == 2
    assert "it has: attestation.json, report.json" in capsys.readouterr().err


def test_a_signing_key_that_cannot_sign_stops_finalize_and_loses_nothing(tmp_path, capsys):
    ws = workspace(tmp_path)
    main_before = ref_target(ws.repo, "refs/heads/main")
    run = ws.start_run("cascade", "cli:test")
    run.stage_write("wiki/owls.md", cited_page("owls"))
    run.stage_write("wiki/index.md", (run.read("wiki/index.md") or b"").decode() + "- [[owls]]\n")
    git(ws.root, "config", "wikigate.signingKey", str(tmp_path / "no-such-key"))
    assert main(["-C", str(ws.root), "run", "finalize", run.run_id]) == 1
    assert "no-such-key: no such key file" in capsys.readouterr().err
    garbage = tmp_path / "not-a-key"
    garbage.write_text("not a key\n")
    garbage.chmod(0o600)
    git(ws.root, "config", "wikigate.signingKey", str(garbage))
    assert main(["-C", str(ws.root), "run", "finalize", run.run_id]) == 1  # verified, then
    assert "ssh-keygen -Y sign" in capsys.readouterr().err  # signing failed: nothing lands
    ws = Workspace.open(ws.root)
    assert ws.run(run.run_id).refresh()["status"] == "pending"
    assert ref_target(ws.repo, "refs/heads/main") == main_before
    assert ws.store.verifications(run.run_id) == []


def test_results_and_the_committed_config_cannot_name_a_key():
    def vote(verdict: str, *codes: str) -> VerifierVerdict:
        found = [Finding(code=c, severity="major", message="m") for c in codes]
        return VerifierVerdict(verdict=verdict, per_claim_findings=found)  # type: ignore[arg-type]

    assert attest.result_of(vote("commit")) == "PASS"
    assert attest.result_of(vote("revise", "citation.inconclusive")) == "INCONCLUSIVE"
    assert attest.result_of(vote("revise", "citation.flaky", "citation.inconclusive")) == "FLAKY"
    assert attest.result_of(vote("revise", "citation.flaky", "page.orphan")) == "FAIL"
    assert attest.result_of(vote("reject", "verifier.error")) == "INCONCLUSIVE"
    with pytest.raises(ConfigError, match="git config wikigate.signingKey"):
        parse_config('[attest]\nsigning_key = "~/.ssh/id_ed25519"\n', "wikigate.toml")


# ---------------------------------------------------------------- the server gate


@pytest.mark.slow
def test_a_run_finalized_with_a_signing_key_lands_on_a_trusting_server_without_reverifying(
    tmp_path, keys, monkeypatch
):
    ws = workspace(tmp_path)
    trusting = server(tmp_path, ws, "origin", keys.allowed)
    plain = server(tmp_path, ws, "plain", None)  # the same gate, trusting no key
    assert main(["-C", str(ws.root), "hooks", "install"]) == 0  # pre-push sends the notes first
    monkeypatch.setenv("WIKIGATE_SIGNING_KEY", str(keys.trusted))
    tip = page_run(ws, "owls").tip
    pushed = git(ws.root, "push", "origin", "main", check=False)
    assert pushed.returncode == 0, pushed.stderr
    assert "accepted on attestation" in pushed.stderr and f"signed by {SIGNER}" in pushed.stderr
    assert git(trusting, "rev-parse", "main").stdout.strip() == tip
    assert gate_rows(trusting, "verdicts") == 0  # the server's verifier never ran
    assert gate_rows(trusting, "attested") == 1
    pushed = git(ws.root, "push", "plain", "main", check=False)
    assert pushed.returncode == 0, pushed.stderr
    assert "attestation" not in pushed.stderr
    assert gate_rows(plain, "verdicts") == 1  # it verified the change itself


@dataclass
class Cases:
    """A change the server's verification refuses (OLD → NEW), its good attestation, and
    attestations short of it: (label, text, signature, why it is refused)."""

    old: pygit2.Commit
    new: pygit2.Commit
    good: attest.Attestation
    good_signature: bytes
    refused: dict[str, tuple[bytes, bytes | None, str]]


def attestation_cases(ws: Workspace, keys: Keys) -> Cases:
    """Forged, unsigned, signed by a stranger or for another namespace, a failure, from
    before attestations named their commits, or stale in each thing they bind."""
    repo = ws.repo
    old, new = unverified_change(ws)
    elsewhere = commit_at(
        repo,
        git(
            ws.root, "commit-tree", "-p", str(old.id), "-m", "x", str(repo.TreeBuilder().write())
        ).stdout.strip(),
    )
    good = attestation_of(repo, old, new)

    def signed(att: attest.Attestation, key: Path = keys.trusted) -> bytes:
        return sshsig.sign(att.to_bytes(), str(key))

    failed = good.model_copy(update={"result": "FAIL", "verdict": "revise"})
    other_rules = Config.model_validate({"judge": {"window_chars": 1}})
    for_git = subprocess.run(
        ["ssh-keygen", "-q", "-Y", "sign", "-n", "git", "-f", str(keys.trusted)],
        input=good.to_bytes(),
        capture_output=True,
        check=True,
    ).stdout
    refused = {
        "forged": (good.to_bytes(), signed(failed), "signature does not verify"),
        "unsigned": (good.to_bytes(), None, "it is not signed"),
        "a stranger's key": (good.to_bytes(), signed(good, keys.stranger), "not among the allowed"),
        "signed for git": (good.to_bytes(), for_git, "signature does not verify"),
        "a failure": (failed.to_bytes(), signed(failed), "its result is FAIL"),
    }
    uncommitted = {k: v for k, v in good.model_dump(mode="json").items() if "commit" not in k}
    text = json.dumps(uncommitted, indent=2, sort_keys=True).encode() + b"\n"
    # as attestations were before they named their commits
    refused["no commit ids"] = (text, sshsig.sign(text, str(keys.trusted)), "naming the commits")
    stale = {
        "another tree": ({"tip_tree": str(elsewhere.tree_id)}, "not the pushed tree"),
        "another base": ({"base_tree": str(elsewhere.tree_id)}, "not from the gated branch's tree"),
        "another commit": ({"tip_commit": str(elsewhere.id)}, "not the pushed commit"),
        "another base commit": (
            {"base_commit": str(elsewhere.id)},
            "not from the gated branch's commit",
        ),
        "other rules": ({"config_hash": config_hash(other_rules)}, "under other rules"),
    }
    for label, (change, why) in stale.items():
        att = good.model_copy(update=change)
        refused[label] = (att.to_bytes(), signed(att), why)
    return Cases(old, new, good, signed(good), refused)


def test_only_an_attestation_a_trusted_key_signed_for_exactly_this_change_vouches(tmp_path, keys):
    """What the server gate asks of a pushed note (``hooks.attested.attested``, in this
    process, on the client's repository trusting the same keys): every attestation short
    of the good one is refused, saying why; the good one is accepted, naming its signer.
    The next test pushes some of these to a real server."""
    ws = workspace(tmp_path)
    git(ws.root, "config", "wikigate.allowedSigners", str(keys.allowed))
    notes_before = ref_target(ws.repo, NOTES_REF)
    cases = attestation_cases(ws, keys)
    old, new = str(cases.old.id), str(cases.new.id)

    def check(text: bytes, sig: bytes | None) -> tuple[attested.Accepted | None, list[str]]:
        notes = attested_notes(ws, cases.new.id, text, sig, notes_before)
        repo = pygit2.Repository(str(ws.root))  # as the server opens it: the config as set
        return attested.attested(repo, old, new, str(notes), claim=lambda _accepted: None)

    for label, (text, sig, why) in cases.refused.items():
        accepted, reasons = check(text, sig)
        assert accepted is None, label
        assert len(reasons) == 1 and why in reasons[0], (label, reasons)
    accepted, reasons = check(cases.good.to_bytes(), cases.good_signature)
    assert accepted is not None and reasons == []
    assert accepted.principal == SIGNER and accepted.verifier == server_verifier()


PUSHED = ("a stranger's key", "another base commit")  # the server's own signers, its own main


@pytest.mark.slow
def test_the_server_verifies_unless_a_trusted_key_attests_exactly_this_change(tmp_path, keys):
    """A commit the server's own verification refuses, pushed with an attestation signed by
    a key the server does not trust, or stale for the server's main: refused, by the server's
    own findings (the previous test refuses every other kind in this process).  The same
    commit with a good attestation lands: so acceptance on an attestation is visible, and
    nothing short of a good one gets it."""
    ws = workspace(tmp_path)
    bare = server(tmp_path, ws, "origin", keys.allowed)
    notes_before = ref_target(ws.repo, NOTES_REF)
    cases = attestation_cases(ws, keys)

    def push_with(text: bytes, sig: bytes | None) -> subprocess.CompletedProcess[str]:
        return push_attested(ws, cases.new.id, text, sig, notes_before)

    for label in PUSHED:
        text, sig, why = cases.refused[label]
        pushed = push_with(text, sig)
        assert pushed.returncode != 0, label
        assert why in pushed.stderr, (label, pushed.stderr)
        assert "citation.source_missing" in pushed.stderr, label  # the server verified it
        assert git(bare, "rev-parse", "main").stdout.strip() == str(cases.old.id), label
    assert gate_rows(bare, "attested") == 0

    pushed = push_with(cases.good.to_bytes(), cases.good_signature)
    assert pushed.returncode == 0, pushed.stderr
    assert "accepted on attestation" in pushed.stderr and f"({server_verifier()})" in pushed.stderr
    assert git(bare, "rev-parse", "main").stdout.strip() == str(cases.new.id)
    assert gate_rows(bare, "attested") == 1


@pytest.mark.slow
def test_a_server_that_verifies_nothing_lands_only_attested_runs(tmp_path, keys, monkeypatch):
    ws = workspace(tmp_path)
    bare = server(tmp_path, ws, "origin", keys.allowed)
    (bare / "wikigate.toml").write_text("[server]\nverify_on_push = false\n")
    monkeypatch.setenv("WIKIGATE_SIGNING_KEY", str(keys.trusted))
    tip = page_run(ws, "owls").tip
    pushed = git(ws.root, "push", "origin", "main", NOTES_REF, check=False)  # one push
    assert pushed.returncode == 0, pushed.stderr
    assert "accepted on attestation" in pushed.stderr
    assert git(bare, "rev-parse", "main").stdout.strip() == tip
    monkeypatch.setenv("WIKIGATE_SIGNING_KEY", "")  # attested, unsigned
    assert page_run(ws, "larks").status == "committed"
    pushed = git(ws.root, "push", "origin", "main", NOTES_REF, check=False)
    assert pushed.returncode != 0 and "it is not signed" in pushed.stderr
    assert "does not verify pushes" in pushed.stderr and "wikigate.allowedSigners" in pushed.stderr
    assert git(bare, "rev-parse", "main").stdout.strip() == tip


@pytest.mark.slow
def test_an_attestation_vouches_for_its_own_commits_once_and_cannot_be_replayed(tmp_path, keys):
    """issue 21, item 3.  A trusted signer attested main OLD → NEW (a change the server's
    own verification refuses), and it landed on that attestation.  Then main was reverted
    (an admin on the server).  A writer's fresh commit with NEW's tree on the revert, with a
    hand-written note naming the old attestation, is verified by the server and refused;
    and when main is put back to OLD, pushing NEW again with its own attestation is
    verified too: the server accepts each attestation once."""
    ws = workspace(tmp_path)
    bare = server(tmp_path, ws, "origin", keys.allowed)
    repo = ws.repo
    notes_before = ref_target(repo, NOTES_REF)
    old, new = unverified_change(ws)
    att = attestation_of(repo, old, new)
    text, sig = att.to_bytes(), sshsig.sign(att.to_bytes(), str(keys.trusted))
    pushed = push_attested(ws, new.id, text, sig, notes_before)
    assert pushed.returncode == 0, pushed.stderr
    assert "accepted on attestation" in pushed.stderr
    assert gate_rows(bare, "attested") == 1

    # the revert: main gets OLD's tree back (landed on the server by its admin)
    sign = repo.default_signature
    revert = repo.create_commit(None, sign, sign, "revert bad", old.tree_id, [new.id])
    git(ws.root, "push", "origin", f"{revert}:refs/heads/reverted")  # not main: passes
    git(bare, "update-ref", "refs/heads/main", str(revert), str(new.id))
    # the replay: NEW's tree again, on the revert, with a note naming the old attestation
    replay = repo.create_commit(None, sign, sign, "bad, again", new.tree_id, [revert])
    notes = ref_target(repo, NOTES_REF)
    pushed = push_attested(ws, replay, text, sig, notes, push=f"{replay}:refs/heads/main")
    assert pushed.returncode != 0, pushed.stderr
    assert "no attestation accepted; verifying here" in pushed.stderr
    assert "not the pushed commit" in pushed.stderr
    assert "citation.source_missing" in pushed.stderr  # the server verified it, and refused
    assert git(bare, "rev-parse", "main").stdout.strip() == str(revert)
    assert gate_rows(bare, "attested") == 1

    # the same attestation for exactly its own change, a second time: refused as a replay
    git(bare, "update-ref", "refs/heads/main", str(old.id), str(revert))
    pushed = push_attested(ws, new.id, text, sig, ref_target(repo, NOTES_REF))
    assert pushed.returncode != 0, pushed.stderr
    assert "it was accepted already" in pushed.stderr
    assert "an attestation is accepted once" in pushed.stderr
    assert "citation.source_missing" in pushed.stderr
    assert git(bare, "rev-parse", "main").stdout.strip() == str(old.id)
    assert gate_rows(bare, "attested") == 1


def test_an_artifacts_tree_bomb_is_refused_unread(tmp_path):
    """Notes a stranger pushed may name an artifacts tree whose subtrees name each other ten
    times (four trees: 10^4 files): reading a verification's artifacts stops past MAX_ARTIFACTS entries
    (and a chain deeper than Python recurses stops at MAX_ARTIFACT_DEPTH) with a GitError."""
    repo = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    blob = repo.create_blob(b"[]")
    tree = None
    for _ in range(4):
        builder = repo.TreeBuilder()
        for k in range(10):
            if tree is None:
                builder.insert(f"f{k}.json", blob, pygit2.GIT_FILEMODE_BLOB)
            else:
                builder.insert(f"d{k}", tree, pygit2.GIT_FILEMODE_TREE)
        tree = builder.write()
    deep = repo.TreeBuilder().write()
    for _ in range(5000):
        builder = repo.TreeBuilder()
        builder.insert("d", deep, pygit2.GIT_FILEMODE_TREE)
        deep = builder.write()
    for root, says in ((tree, "hold more than 1,000 entries"), (deep, "nest folders deeper")):
        ref = VerificationRef(
            loop=1, result="PASS", tree=str(root), attestation=str(blob), at=now_iso()
        )
        with pytest.raises(attest.GitError, match=says):
            attest.files(repo, ref)


def test_an_attestation_by_another_verifier_is_no_shortcut(tmp_path):
    """A plug-in verifier (named by WIKIGATE_VERIFIER on the writer's side) that says
    "commit" to anything, its attestation signed by a trusted key: the server names the
    verifier it wanted and verifies the push itself."""
    assert "not by this server's" in (
        attest.mismatch(
            attestation_of_plugin(),
            attest.Binding(
                base_commit="a" * 40, tip_commit="b" * 40, base_tree="c" * 40, tip_tree="d" * 40
            ),
            rules=Config(),
            verifier=server_verifier(),
        )
        or ""
    )


def attestation_of_plugin() -> attest.Attestation:
    return attest.Attestation(
        verifier="evilver:Verifier wikigate 0.1.0",
        config_hash=config_hash(Config()),
        strictness="SKEPTICAL",
        base_tree="c" * 40,
        tip_tree="d" * 40,
        base_commit="a" * 40,
        tip_commit="b" * 40,
        judge=attest.JudgeInfo(provider="offline"),
        artifacts={},
        report=None,
        result="PASS",
        verdict="commit",
        created_at="2026-01-01T00:00:00Z",
    )
