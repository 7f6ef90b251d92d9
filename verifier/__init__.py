"""wikigate.verifier: the hostile verifier (installed from the top-level ``verifier/`` folder).

Kept import-light: the hook paths import this package, so nothing here may
pull in ``anthropic`` or ``github``.
"""

from .protocol import Verifier

__all__ = ["Verifier"]
