import os
import sys

# `python -m wikigate` puts the current folder first on sys.path: a wiki's own files (a
# module named like a verifier plug-in, or like a dependency) must never be imported
here = os.getcwd()
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]

from .cli import main  # noqa: E402 - after the path is cleaned

sys.exit(main())
