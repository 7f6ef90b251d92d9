"""Git hooks: local ``pre-push`` and ``reference-transaction``, server ``pre-receive``
and ``post-receive`` (the claim ledger follows main).

Shims installed by ``wikigate hooks install`` run ``python -m wikigate.hooks.git_hooks
HOOK ARGS...`` with git's stdin; this module dispatches to local.py or server.py.
Nothing here imports anthropic or github.

What each gate trusts (docs/hooks.md):

- The local hooks trust the local verdict notes (``refs/notes/wikigate``): they are the
  user's own, and client hooks stop mistakes, not adversaries.  Moving main from OLD to
  NEW needs a passing note on every run in OLD..NEW (:func:`unpassed_run`).
- The server's ``pre-receive`` trusts nothing a client sent.  It verifies OLD → NEW
  itself under the rules of OLD's committed ``wikigate.toml`` and caches its own verdicts
  in its git dir; pushed notes are stored and never read.  Its settings, and who may
  override it, come from the server's own ``BARE.git/wikigate.toml``.
"""

from __future__ import annotations

import importlib
import os
import sys

from .common import MAIN, NOTES_REF, ZERO
from .common import err as _err

__all__ = ["HOOKS", "MAIN", "NOTES_REF", "ZERO", "main"]


HOOKS = {  # hook → (module, function): only the one a hook needs is imported
    "pre-push": ("local", "pre_push"),
    "reference-transaction": ("local", "reference_transaction"),
    "pre-receive": ("server", "pre_receive"),
    "post-receive": ("server", "post_receive"),
}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] not in HOOKS:
        _err(f"usage: python -m wikigate.hooks.git_hooks {{{','.join(HOOKS)}}} [ARGS]")
        return 2
    # A hook runs in a work tree or a git dir: nothing there may stand in for a module
    # (the shim's `python -P` keeps the cwd out too; an empty PYTHONPATH entry would not).
    here = os.getcwd()
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    stdin = sys.stdin.read() if not sys.stdin.isatty() else ""
    module, function = HOOKS[args[0]]
    try:
        run = getattr(importlib.import_module(f"wikigate.hooks.{module}"), function)
        return int(run(args[1:], stdin))
    except (Exception, SystemExit) as e:  # noqa: BLE001 - a gate that cannot decide refuses
        _err(f"wikigate: {args[0]} hook failed, refusing: {type(e).__name__}: {e}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
