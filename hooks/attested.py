"""The server gate's one shortcut: an update of main that a trusted key attests.

The server looks for the attestation through the note on NEW, in the notes commit pushed
along with main (else its own ``refs/notes/wikigate``): the note's ``verifications`` name
attestation and signature blobs.  The note is only a pointer; nothing in it is believed.
An attestation is accepted only when its SSH signature verifies against the allowed
signers file the server's own git config names (``wikigate.allowedSigners``), it is a
PASS of exactly this change: the commits OLD → NEW and their trees, under OLD's rules
(``wikigate.attest.mismatch``), and the server never accepted it before (each attestation
is accepted at most once: ``claim``).  Anything else is verified here, as without it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pygit2

    from wikigate.config import Config

ALLOWED_SIGNERS = "wikigate.allowedSigners"
MAX_CANDIDATES = 8  # attestations of one note looked at, newest first
MAX_BYTES = 256 * 1024  # an attestation or a signature is a few kilobytes


@dataclass(frozen=True)
class Accepted:
    attestation: str  # its blob id
    principal: str  # who signed it, as the allowed signers file names them
    verifier: str  # what verified, as the attestation says


def allowed_signers(repo: pygit2.Repository) -> Path | None:
    """The file named by the server's git config ``wikigate.allowedSigners`` (relative
    to the git dir), or None: then no attestation is ever accepted."""
    import pygit2

    try:
        value = str(repo.config[ALLOWED_SIGNERS])
    except (KeyError, pygit2.GitError):
        return None
    if not value:
        return None
    path = Path(os.path.expanduser(value))
    return path if path.is_absolute() else Path(repo.path) / path


def attested(
    repo: pygit2.Repository,
    old: str,
    new: str,
    notes: str | None,
    claim: Callable[[Accepted], str | None],
) -> tuple[Accepted | None, list[str]]:
    """The attestation that vouches for main OLD → NEW, or None with why each one the
    note on NEW names does not (empty when there is none, or no allowed signers).

    ``claim`` records an attestation that passed every check as accepted, atomically,
    and returns None; or, when it was accepted before, returns why it is refused now."""
    signers = allowed_signers(repo)
    if signers is None:
        return None, []
    from wikigate.config import config_at
    from wikigate.gitrepo import NOTES_REF, commit_at, read_note, ref_target

    if notes is None:
        current = ref_target(repo, NOTES_REF)
        notes = str(current) if current is not None else None
    note = read_note(repo, new, notes) if notes is not None else None
    pointers = note.get("verifications") if note is not None else None
    if not isinstance(pointers, list) or not pointers:
        return None, []
    base, tip = commit_at(repo, old), commit_at(repo, new)
    try:
        rules = config_at(repo, base)
    except Exception as e:  # noqa: BLE001 - verification reports it, failing closed
        return None, [f"the rules of {old[:12]} cannot be read ({e})"]
    reasons: list[str] = []
    for pointer in reversed(pointers[-MAX_CANDIDATES:]):
        accepted, why = _check(repo, pointer, base, tip, rules, signers)
        if accepted is not None:
            why = claim(accepted) or ""
            if not why:
                return accepted, reasons
            why = f"attestation {accepted.attestation[:12]}: {why}"
        reasons.append(why)
    return None, reasons


def _check(
    repo: pygit2.Repository,
    pointer: object,
    base: pygit2.Commit,
    tip: pygit2.Commit,
    rules: Config,
    signers: Path,
) -> tuple[Accepted | None, str]:
    from wikigate import sshsig
    from wikigate.attest import Binding, mismatch, parse

    if not isinstance(pointer, dict):
        return None, "the note's verifications are malformed"
    name = str(pointer.get("attestation"))[:12]
    data = _blob(repo, pointer.get("attestation"))
    if data is None:
        return None, f"attestation {name}: no such blob"
    try:
        att = parse(data)
    except ValueError:
        return None, (
            f"attestation {name}: not a wikigate attestation naming the commits it verified"
        )
    own = server_verifier(rules)
    if own is None:
        return None, (
            f"attestation {name}: this server cannot load the verifier its rules name, so no "
            "attestation vouches for a change (only its own verifier's would)"
        )
    why = mismatch(att, Binding.of(base, tip), rules=rules, verifier=own)
    if why is not None:
        return None, f"attestation {name}: {why}"
    signature = _blob(repo, pointer.get("signature"))
    if signature is None:
        return None, f"attestation {name}: it is not signed"
    try:
        principal = sshsig.verify(data, signature, signers)
    except sshsig.Refused as e:
        return None, f"attestation {name}: {e}"
    return Accepted(str(pointer.get("attestation")), principal, att.verifier), ""


def server_verifier(rules: Config | None = None) -> str | None:
    """What an attestation must name as its verifier: the one this server runs under
    ``rules`` (the base's; ``WIKIGATE_VERIFIER``, the plug-in they name, or the default),
    at the code this server runs (`wikigate.verify.name_for`); None when it cannot load
    it (then no attestation is taken)."""
    from wikigate.verify import named, spec_for

    return named(spec_for(rules))


def _blob(repo: pygit2.Repository, oid: object) -> bytes | None:
    import pygit2

    if not isinstance(oid, str):
        return None
    try:
        obj = repo[oid]
    except (KeyError, ValueError, pygit2.GitError):
        return None
    if not isinstance(obj, pygit2.Blob) or obj.size > MAX_BYTES:
        return None
    return bytes(obj.data)
