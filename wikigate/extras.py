"""The optional parts of wikigate (pyproject's extras): is one installed, and the error
that names the extra to install when a command needs one that is not.

The core install carries only what the gate needs; PDF sources (``pdf``), the GitHub bot
(``github``), the LLM judge (``anthropic``), progress bars (``progress``) and the MCP
server (``mcp``, not in ``all``: a server, not a part of the gate) are extras.
"""

from __future__ import annotations

import importlib.util
import sys

from .errors import WikigateError

# the module a part imports → (the extra that installs it, the distribution's name)
EXTRAS: dict[str, tuple[str, str]] = {
    "pypdf": ("pdf", "pypdf"),
    "github": ("github", "PyGithub"),
    "pathspec": ("github", "pathspec"),
    "anthropic": ("anthropic", "anthropic"),
    "rich": ("progress", "rich"),
    "mcp": ("mcp", "mcp"),
}


class MissingExtra(WikigateError):
    """A command needs an optional part that is not installed; the message names the
    extra to install.  A setup error, as a usage error is (exit 2): nothing was decided."""

    exit_code = 2


def installed(module: str) -> bool:
    """Can ``module`` be imported here (without importing it)?"""
    if module in sys.modules:
        return sys.modules[module] is not None  # None: import blocked
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def install_hint(module: str) -> str:
    extra, _ = EXTRAS[module]
    return f"pip install 'wikigate[{extra}]'"


def require(module: str, what: str) -> None:
    """Raise MissingExtra, saying what to install, unless ``module`` is installed."""
    if not installed(module):
        extra, dist = EXTRAS[module]
        raise MissingExtra(
            f"{what} needs the {extra} extra ({dist}), which is not installed here: "
            f"{install_hint(module)}"
        )
