"""One self-contained HTML page: inline CSS and one inline script, a strict
Content-Security-Policy naming their hashes, nothing fetched (docs/report.md).

The HTML report (verifier/reporters/html.py) and ``wikigate stats --html`` are built on
it. Everything a writer or client wrote (pages, quotes, paths, labels, messages) enters
the page through ``esc`` or ``markdown_html`` (raw HTML disabled, images shown as their
alt text, links only to http(s), mailto, relative or in-page targets); the script never
writes markup, it only shows, hides and moves between elements the page already has.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

# the characters marking where a highlight starts and ends in a page's markdown before it
# is rendered (Unicode private use: a page's own are replaced before markers go in)
START, END, CLOSE = "\ue000", "\ue002", "\ue001"
MARKERS = re.compile("[\ue000-\ue002]")
SAFE_URL = re.compile(r"^(?:https?:|mailto:|#|/|\./|\.\./|[^:/?#]*(?:[/?#]|$))", re.IGNORECASE)


def esc(value: object) -> str:
    """Text as HTML text or an attribute value (quotes included)."""
    return html.escape(str(value), quote=True)


def digest(text: str) -> str:
    """The CSP source of an inline script or style: ``'sha256-…'`` of its UTF-8 bytes."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def policy(script: str, style: str) -> str:
    return (
        "default-src 'none'; "
        f"script-src {digest(script)}; "
        f"style-src {digest(style)}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )


def page(title: str, body: str, *, style: str, script: str) -> str:
    """The whole document: ``body`` is markup already escaped by its maker."""
    if "</script" in script.lower() or "</style" in style.lower():
        raise ValueError("an inline script or style may not close its own element")
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{esc(policy(script, style))}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)}</title>\n"
        f"<style>{style}</style>\n"
        f"</head><body>\n{body}\n<script>{script}</script>\n</body></html>\n"
    )


def safe_url(url: str) -> bool:
    """A link target the page may carry: in-page, relative, http(s) or mailto."""
    cleaned = "".join(ch for ch in url if ch.isprintable() and not ch.isspace())
    return bool(SAFE_URL.match(cleaned)) and not cleaned.lower().startswith(
        ("javascript:", "vbscript:", "data:", "file:")
    )


_MD: MarkdownIt | None = None


def _markdown() -> MarkdownIt:
    global _MD
    if _MD is None:
        from markdown_it import MarkdownIt

        md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
        md.enable(["table", "strikethrough"])
        md.validateLink = safe_url  # type: ignore[method-assign]

        def image(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
            tok = tokens[idx]
            alt = self.renderInlineAsText(tok.children or [], options, env)
            return f'<span class="img">[image: {esc(alt)}]</span>'

        def link_open(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
            href = str(tokens[idx].attrGet("href") or "")
            if not safe_url(href):
                return '<a class="unsafe">'
            return f'<a href="{esc(href)}" rel="noopener noreferrer nofollow">'

        md.add_render_rule("image", image)
        md.add_render_rule("link_open", link_open)
        _MD = md
    return _MD


def markdown_html(text: str) -> str:
    """Markdown as HTML with raw HTML shown as text (html disabled)."""
    return str(_markdown().render(text))
