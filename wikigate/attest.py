"""What a verification leaves in git (the seed's "green threads"): its raw artifacts as
blobs in one tree, and an attestation naming them, signed when a key is configured.

A verification's tree (docs/attest.md)::

    attestation.json       the attestation (JSON), addressed by its blob id
    attestation.json.sig   its SSH signature (namespace wikigate), when signed
    report.json            the verification report
    judge/requests.jsonl   the LLM judge's exact request bodies, one per line
    judge/responses.jsonl  its raw responses (or the failure of a request), same order
    judge/votes.json       its structured votes

When the run's record is published, each tree is committed onto ``refs/wikigate/artifacts``
(one commit per verification, oldest first) and the notes commit holding the record takes
the newest as its second parent: the artifacts go wherever ``refs/notes/wikigate`` goes, and
``git gc`` keeps them.  Only the structured votes enter the report and telemetry.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from typing import Any, Literal

import pygit2

from . import sshsig
from .config import Config, config_at, config_hash
from .errors import AttestError, GitError, UsageError
from .gitrepo import blob_at, signature, tree_at
from .models import Result, VerificationRef, VerifierVerdict
from .plain import Plain, plain, rule
from .runid import now_iso

ATTESTATION = "attestation.json"
SIGNATURE = "attestation.json.sig"
REPORT = "report.json"
KEY_ENV = "WIKIGATE_SIGNING_KEY"
KEY_CONFIG = "wikigate.signingKey"
# findings that say the verifier could not decide, rather than that the change is wrong
UNDECIDED = frozenset({"citation.inconclusive", "verifier.error"})
FLAKY = frozenset({"citation.flaky"})


@plain(frozen=True, extra="forbid", validate=True)
class Artifact(Plain):
    """One artifact: its git blob id and the SHA-256 of its bytes."""

    git: str
    sha256: str


@plain(frozen=True, extra="forbid", validate=True)
class JudgeInfo(Plain):
    """The semantic judge that voted: ``offline`` (the heuristic), ``anthropic`` with its
    model and prompt version, or None (a plug-in verifier that says nothing of one)."""

    provider: str | None = None
    model: str | None = None
    prompt_version: str | None = None


@plain(frozen=True, extra="forbid")
class Binding(Plain):
    """The commits and trees an attestation vouches for: a change from ``base`` to ``tip``."""

    base_commit: str
    tip_commit: str
    base_tree: str
    tip_tree: str

    @staticmethod
    def of(base: pygit2.Commit, tip: pygit2.Commit) -> Binding:
        return Binding(
            base_commit=str(base.id),
            tip_commit=str(tip.id),
            base_tree=str(base.tree_id),
            tip_tree=str(tip.tree_id),
        )


@plain(frozen=True, extra="forbid", validate=True)
class Attestation(Binding):
    """What one verification found, and of what (the Binding's fields: the change it
    vouches for): the authoritative, signable record."""

    kind: Literal["wikigate.attestation"] = "wikigate.attestation"
    schema_version: Literal[1] = 1
    verifier: str = rule(description="what verified, with its version")
    config_hash: str | None = rule(description="config_hash of the base commit's rules")
    strictness: str | None
    run_id: str | None = None
    loop: int | None = None
    judge: JudgeInfo
    artifacts: dict[str, Artifact] = rule(description="the judge's raw record, by name")
    report: Artifact | None = rule(description="report.json")
    result: Result
    verdict: str
    created_at: str

    def to_bytes(self) -> bytes:
        return json.dumps(self.model_dump(mode="json"), indent=2, sort_keys=True).encode() + b"\n"


def result_of(verdict: VerifierVerdict) -> Result:
    """PASS when it may commit; else FAIL when something is wrong, FLAKY when the judge
    disagreed with itself, INCONCLUSIVE when the verifier could not decide."""
    if verdict.verdict == "commit":
        return "PASS"
    codes = {f.code for f in verdict.findings if f.severity != "minor"}
    if not codes or codes - UNDECIDED - FLAKY:
        return "FAIL"
    return "FLAKY" if codes & FLAKY else "INCONCLUSIVE"


def signing_key(repo: pygit2.Repository) -> str | None:
    """The SSH key that signs attestations: ``WIKIGATE_SIGNING_KEY``, else git config
    ``wikigate.signingKey``; None when neither is set.  Never the committed wikigate.toml:
    which key signs is this machine's business, not something a change may choose."""
    value = os.environ.get(KEY_ENV)
    where = KEY_ENV
    if value is None:
        try:
            value = str(repo.config[KEY_CONFIG])
        except (KeyError, pygit2.GitError):
            return None
        where = f"git config {KEY_CONFIG}"
    if not value:
        return None
    path = os.path.expanduser(value)
    if not os.path.isfile(path):
        raise AttestError(
            f"{where} = {value}: no such key file; name an SSH key "
            f"(`git config {KEY_CONFIG} ~/.ssh/id_ed25519`), or unset it to attest unsigned"
        )
    return path


def attest(
    repo: pygit2.Repository,
    verdict: VerifierVerdict,
    *,
    base: pygit2.Commit,
    tip: pygit2.Commit,
    verifier: str,
    run_id: str | None = None,
    loop: int | None = None,
    key: str | None = None,
) -> VerificationRef:
    """Write one verification's artifacts, report and attestation (signed with ``key``)
    as git objects: its tree, not yet on any ref (:func:`chain` puts it there)."""
    files: dict[str, bytes] = dict(verdict.artifacts)
    report = None
    if verdict.report is not None:
        files[REPORT] = json.dumps(verdict.report, indent=2, sort_keys=True).encode() + b"\n"
    blobs = {name: repo.create_blob(data) for name, data in files.items()}
    described = {name: _artifact(blobs[name], data) for name, data in files.items()}
    report = described.pop(REPORT, None)
    try:
        rules: Config | None = config_at(repo, base)
    except Exception:  # noqa: BLE001 - unreadable rules: the verdict already failed closed
        rules = None
    data = verdict.report or {}
    judged = data.get("judge")
    judge = (
        JudgeInfo(
            provider=str(judged.get("name")),
            model=judged.get("model"),
            prompt_version=judged.get("prompt_version"),
        )
        if isinstance(judged, dict)
        else JudgeInfo(provider="offline" if verdict.report is not None else None)
    )
    strictness = data.get("strictness")
    attestation = Attestation(
        verifier=verifier,
        config_hash=config_hash(rules) if rules is not None else None,
        strictness=str(strictness) if strictness else None,
        **Binding.of(base, tip).model_dump(),
        run_id=run_id,
        loop=loop,
        judge=judge,
        artifacts=described,
        report=report,
        result=result_of(verdict),
        verdict=verdict.verdict,
        created_at=now_iso(),
    )
    text = attestation.to_bytes()
    blobs[ATTESTATION] = repo.create_blob(text)
    signed = sshsig.sign(text, key) if key else None
    if signed is not None:
        blobs[SIGNATURE] = repo.create_blob(signed)
    return VerificationRef(
        loop=loop or 1,
        result=attestation.result,
        tree=str(_tree(repo, blobs)),
        attestation=str(blobs[ATTESTATION]),
        signature=str(blobs[SIGNATURE]) if signed is not None else None,
        at=attestation.created_at,
    )


def _artifact(blob: pygit2.Oid, data: bytes) -> Artifact:
    return Artifact(git=str(blob), sha256=hashlib.sha256(data).hexdigest())


def _tree(repo: pygit2.Repository, blobs: dict[str, pygit2.Oid]) -> pygit2.Oid:
    folders: dict[str, dict[str, pygit2.Oid]] = {}
    top = repo.TreeBuilder()
    for name, blob in blobs.items():
        folder, sep, leaf = name.rpartition("/")
        if sep:
            folders.setdefault(folder, {})[leaf] = blob
        else:
            top.insert(name, blob, pygit2.GIT_FILEMODE_BLOB)
    for folder, inside in folders.items():
        sub = repo.TreeBuilder()
        for leaf, blob in inside.items():
            sub.insert(leaf, blob, pygit2.GIT_FILEMODE_BLOB)
        top.insert(folder, sub.write(), pygit2.GIT_FILEMODE_TREE)
    return top.write()


def chain(
    repo: pygit2.Repository,
    run_id: str,
    done: Sequence[VerificationRef],
    parent: pygit2.Oid | None,
) -> pygit2.Oid:
    """Commit each verification's tree onto ``parent`` (the artifacts ref's tip), oldest
    first; returns the newest commit."""
    sig = signature(repo)
    for ref in done:
        message = (
            f"wikigate: verification of run {run_id}, loop {ref.loop}: {ref.result}\n\n"
            f"Wikigate-Run: {run_id}\nWikigate-Attestation: {ref.attestation}\n"
        )
        parents = [parent] if parent is not None else []
        parent = repo.create_commit(None, sig, sig, message, pygit2.Oid(hex=ref.tree), parents)
    assert parent is not None
    return parent


# what an artifacts tree may hold: wikigate writes a few files one folder deep, and a tree a
# stranger pushed in the notes may name its subtrees a million times (a tree bomb)
MAX_ARTIFACTS = 1000  # entries, files and folders, counted each time they are reached
MAX_ARTIFACT_DEPTH = 4


def files(repo: pygit2.Repository, ref: VerificationRef) -> dict[str, pygit2.Blob]:
    """A verification's artifacts by name (``judge/votes.json``…), from its tree; a tree
    past MAX_ARTIFACTS entries or MAX_ARTIFACT_DEPTH folders deep is a GitError, read no
    further."""
    out: dict[str, pygit2.Blob] = {}
    seen = 0

    def walk(tree: pygit2.Tree, prefix: str, depth: int) -> None:
        nonlocal seen
        if depth > MAX_ARTIFACT_DEPTH:
            raise GitError(
                f"the artifacts of loop {ref.loop}'s verification (tree {ref.tree[:12]}) nest "
                f"folders deeper than {MAX_ARTIFACT_DEPTH}: wikigate never wrote that tree"
            )
        for entry in tree:
            seen += 1
            if seen > MAX_ARTIFACTS:
                raise GitError(
                    f"the artifacts of loop {ref.loop}'s verification (tree {ref.tree[:12]}) "
                    f"hold more than {MAX_ARTIFACTS:,} entries: wikigate never wrote that tree"
                )
            if entry.type_str == "tree":
                walk(tree_at(repo, entry.id), f"{prefix}{entry.name}/", depth + 1)
            elif entry.type_str == "blob":
                out[f"{prefix}{entry.name}"] = blob_at(repo, entry.id)

    try:
        root = tree_at(repo, ref.tree)
    except (KeyError, ValueError) as e:
        raise GitError(
            f"the artifacts of loop {ref.loop}'s verification (tree {ref.tree[:12]}) are not "
            "in this clone: fetch the notes that recorded it (`git fetch origin "
            "+refs/notes/wikigate:refs/wikigate/origin/notes`)"
        ) from e
    walk(root, "", 0)
    return dict(sorted(out.items()))


def listing(repo: pygit2.Repository, done: Sequence[VerificationRef]) -> list[dict[str, Any]]:
    """Each verification with its artifacts (name → blob id and size), as
    ``wikigate runs show --artifacts`` prints them."""
    return [
        {
            **ref.model_dump(),
            "artifacts": {
                name: {"blob": str(blob.id), "size": blob.size}
                for name, blob in files(repo, ref).items()
            },
        }
        for ref in done
    ]


def artifact(
    repo: pygit2.Repository, done: Sequence[VerificationRef], name: str, number: int | None
) -> bytes:
    """One artifact's bytes: by name in the ``number``-th verification (1-based; default
    the last), or by its blob id (or a prefix of 7 or more hex digits) in any of them."""
    if not done:
        raise UsageError("this run has no verifications: nothing was attested")
    if number is not None and number > len(done):
        raise UsageError(f"--verification {number}: the run has {len(done)} verifications")
    chosen = [done[number - 1]] if number is not None else list(done)
    by_id = len(name) >= 7 and all(c in "0123456789abcdef" for c in name.lower())
    if by_id:
        for ref in chosen:
            for blob in files(repo, ref).values():
                if str(blob.id).startswith(name.lower()):
                    return bytes(blob.data)
    found = files(repo, chosen[-1])
    if name in found:
        return bytes(found[name].data)
    raise UsageError(
        f"{name!r} is not an artifact of this verification; it has: {', '.join(found)}"
    )


def reported_findings(
    repo: pygit2.Repository, ref: VerificationRef, key: str = "findings"
) -> list[dict[str, Any]]:
    """The findings of a verification's stored report (``report.json``): what an
    override committed despite (``key="suppressed"``: what an inline suppression set
    aside).  Empty when it kept no report; a GitError when its artifacts are not in this
    clone or are not wikigate's."""
    found = files(repo, ref).get(REPORT)
    if found is None:
        return []
    try:
        data = json.loads(found.data)
    except ValueError as e:
        raise GitError(f"loop {ref.loop}'s report.json is not JSON: {e}") from e
    listed = data.get(key) if isinstance(data, dict) else None
    return [f for f in listed if isinstance(f, dict)] if isinstance(listed, list) else []


def parse(data: bytes) -> Attestation:
    """An attestation from its bytes; ValueError saying what is wrong."""
    return Attestation.model_validate_json(data)


def mismatch(
    att: Attestation,
    change: Binding,
    *,
    rules: Config,
    verifier: str | None = None,
) -> str | None:
    """Why ``att`` does not vouch for this change (base → tip under ``rules``), or None.

    It must be a PASS of exactly these commits (a commit with the same tree is another
    change: it may replay a verification of something reverted since) and their trees,
    under exactly these rules (their hash and strictness), by the judge the rules name
    when they name the LLM judge, and (``verifier``) by this verifier, at this version."""
    base_commit, tip_commit = change.base_commit, change.tip_commit
    base_tree, tip_tree = change.base_tree, change.tip_tree
    if att.result != "PASS" or att.verdict != "commit":
        return f"its result is {att.result} ({att.verdict}), not PASS"
    if att.tip_commit != tip_commit:
        return (
            f"it is for the commit {att.tip_commit[:12]}, not the pushed commit {tip_commit[:12]}"
        )
    if att.base_commit != base_commit:
        return (
            f"it verified a change from the commit {att.base_commit[:12]}, not from the "
            f"gated branch's commit {base_commit[:12]}"
        )
    if att.tip_tree != tip_tree:
        return f"it is for the tree {att.tip_tree[:12]}, not the pushed tree {tip_tree[:12]}"
    if att.base_tree != base_tree:
        return (
            f"it verified a change from the tree {att.base_tree[:12]}, not from the gated branch's "
            f"tree {base_tree[:12]}"
        )
    if verifier is not None and att.verifier != verifier:
        return f"it was made by the verifier {att.verifier!r}, not by this server's ({verifier!r})"
    if att.config_hash != config_hash(rules):
        return "it was verified under other rules than the gated branch's wikigate.toml"
    if att.strictness != rules.verifier.strictness:
        return f"it was verified at {att.strictness}, not at {rules.verifier.strictness}"
    wanted = rules.judge
    if wanted.provider == "anthropic" and (
        att.judge.provider != "anthropic" or att.judge.model != wanted.model
    ):
        return (
            f"the rules ask for the anthropic judge ({wanted.model}); it was judged by "
            f"{att.judge.provider} {att.judge.model or ''}".rstrip()
        )
    return None


def check_key(repo: pygit2.Repository) -> None:
    """Fail before verifying when the configured signing key cannot be used."""
    if signing_key(repo) is not None and not sshsig.available():
        raise AttestError(
            f"{KEY_CONFIG} is set but ssh-keygen is not on PATH: install OpenSSH, or unset it"
        )
