"""SSH signatures over bytes, as git makes them for commits (``gpg.format = ssh``):
``ssh-keygen -Y sign`` with a key, ``ssh-keygen -Y find-principals`` and ``-Y verify``
against an ``allowed_signers`` file, in the namespace ``wikigate`` (a signature made for
git, or for anything else, never passes for an attestation). Shard reports of a sharded
``verify --all`` are signed the same way (verifier/shard.py ``statement``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .errors import AttestError

NAMESPACE = "wikigate"
TIMEOUT = 120.0  # seconds; ssh-keygen may ask an agent, or a person, for the key


class Refused(Exception):
    """A signature that does not prove anything here; the message says why."""


def available() -> bool:
    return shutil.which("ssh-keygen") is not None


def sign(data: bytes, key: str) -> bytes:
    """The armored SSH signature of ``data`` by ``key`` (a private key file, or a public
    key whose private half an ssh-agent holds, as git's ``user.signingKey``)."""
    if not available():
        raise AttestError(
            "signing an attestation needs ssh-keygen (OpenSSH 8.2 or later) on PATH; "
            "install OpenSSH, or unset wikigate.signingKey / WIKIGATE_SIGNING_KEY"
        )
    try:
        proc = subprocess.run(
            ["ssh-keygen", "-q", "-Y", "sign", "-n", NAMESPACE, "-f", key],
            input=data,
            capture_output=True,
            timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired as e:
        raise AttestError(f"ssh-keygen -Y sign -f {key} did not finish in {TIMEOUT:g}s") from e
    if proc.returncode != 0 or b"BEGIN SSH SIGNATURE" not in proc.stdout:
        said = proc.stderr.decode(errors="replace").strip() or f"exit {proc.returncode}"
        raise AttestError(
            f"ssh-keygen -Y sign -f {key} failed: {said} (an encrypted key must be in "
            "ssh-agent: `ssh-add KEY`)"
        )
    return proc.stdout


def verify(data: bytes, signature: bytes, allowed_signers: Path) -> str:
    """The principal of ``allowed_signers`` whose key made ``signature`` over ``data`` in
    the namespace ``wikigate``; :class:`Refused` naming why not."""
    if not available():
        raise Refused("ssh-keygen is not installed on this server")
    if not allowed_signers.is_file():  # the operator's to fix; the pusher needs no path
        raise Refused("the server's allowed signers file (wikigate.allowedSigners) is missing")
    with tempfile.TemporaryDirectory(prefix="wikigate-sig-") as folder:
        sig = Path(folder) / "attestation.sig"
        sig.write_bytes(signature)
        found = _run(["-Y", "find-principals", "-s", str(sig), "-f", str(allowed_signers)])
        principals = [p for p in found.stdout.decode(errors="replace").splitlines() if p]
        if found.returncode != 0 or not principals:
            raise Refused("it is signed by a key that is not among the allowed signers")
        for principal in principals:
            checked = _run(
                [
                    "-Y",
                    "verify",
                    "-f",
                    str(allowed_signers),
                    "-I",
                    principal,
                    "-n",
                    NAMESPACE,
                    "-s",
                    str(sig),
                ],
                data,
            )
            if checked.returncode == 0:
                return principal
        said = checked.stderr.decode(errors="replace").strip().splitlines()
        raise Refused(
            "its signature does not verify (what it vouches for was changed after it was "
            "signed, or it was signed for another namespace): "
            f"{said[-1] if said else 'ssh-keygen refused it'}"
        )


def _run(args: list[str], data: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            ["ssh-keygen", *args],
            input=data,
            capture_output=True,
            timeout=TIMEOUT,
            env={**os.environ, "LC_ALL": "C"},
        )
    except subprocess.TimeoutExpired as e:
        raise Refused(f"ssh-keygen {args[1]} did not finish in {TIMEOUT:g}s") from e
