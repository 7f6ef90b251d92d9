"""wikigate: staged runs and a hostile verifier for LLM-written wikis kept in git."""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .workspace import Workspace

__all__ = ["Workspace", "__version__"]


def __getattr__(name: str) -> object:
    # Lazy, so `import wikigate.hooks...` stays cheap on hook paths.
    if name == "Workspace":
        from .workspace import Workspace

        return Workspace
    raise AttributeError(name)
