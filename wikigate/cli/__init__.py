"""The ``wikigate`` command: a thin click layer over the Python API.

Each command parses its arguments, calls the library and sets the exit code
(``main()`` maps errors).  Commands live by topic: runs.py (``run``, ``runs``),
verify.py (``verify``, ``anchor``), adopt.py (``adopt``), report.py (``report merge``,
``report html``), stats.py (``stats``), health.py (``health``), pages.py (``pages``),
admin.py (``init``, ``demo``, ``hooks``, ``sweep``, ``telemetry``).
"""

from . import (  # noqa: F401 - each registers on ``cli``
    admin,
    adopt,
    claims,
    doctor,
    github,
    health,
    mcp,
    pages,
    report,
    runs,
    stats,
    verify,
)
from .app import cli
from .main import main

__all__ = ["cli", "main"]
