"""The one mechanical fix a finding carries: an anchor finding's footnote definition line
with the anchor the verifier computed (``Finding.suggested_tail``, what ``wikigate anchor``
prints).  rdjson's ``suggestions``, SARIF's ``fixes`` and the bot's GitHub suggestion block
are all made here, from the tail and, when the caller read it, the page line it replaces.

The fix replaces exactly one line, the footnote's definition (the finding's ``line``).  A
line that would be unsafe to offer as a one-click change (a code fence, an ``@`` other than an anchor's ``{@offset``, an HTML
comment, ``::``, a control, line-separator or invisible character, a carriage return,
overlong) is never offered: the finding's text still says what to write.
"""

from __future__ import annotations

import re

from wikigate.models import Finding

MAX_FIX = 2000  # characters of a fixed line: past that, no suggestion
_LABEL = re.compile(r"\A\[\^([^\]\s]+)\]:")
_UNSAFE = re.compile(
    r"```|~~~|@|<!--|::|[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]"
)
_ANCHOR_AT = re.compile(r"\{@(?=\d)")  # an anchor's `{@offset`: the one @ a footnote holds


def fixed_line(f: Finding, written: str | None = None) -> str | None:
    """The footnote definition line ``f`` names, with its correct anchor: the line as
    ``written`` up to its ``[^label]:`` (indentation kept), then the tail; without
    ``written``, ``[^label]: tail``.  None: ``f`` carries no fix, ``written`` is not that
    footnote's definition, or either line is unsafe to offer."""
    if not f.suggested_tail or f.line is None or f.line < 1:
        return None
    label = _LABEL.match(f.message)
    if label is None:
        return None
    prefix = f"[^{label.group(1)}]:"
    if written is None:
        head = prefix
    else:
        indent = written[: len(written) - len(written.lstrip(" "))]
        if not written.startswith(indent + prefix) or _unsafe(written):
            return None
        head = indent + prefix
    line = f"{head} {f.suggested_tail}"
    return None if _unsafe(line) else line


def _unsafe(line: str) -> bool:
    return len(line) > MAX_FIX or _UNSAFE.search(_ANCHOR_AT.sub("{", line)) is not None
