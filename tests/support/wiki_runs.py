"""Runs whose pages pass (or fail) the real, default verifier: cited, anchored, linked."""

from __future__ import annotations

from typing import Any

from wikigate.verifier.citation import format_tail

SOURCE = "raw/owls.txt"
SOURCE_TEXT = (
    "Owls hunt at night and rest by day.\n"
    "A barn owl can hear a mouse under snow.\n"
    "Ravens gather at dusk in large roosts.\n"
)
QUOTE = "A barn owl can hear a mouse under snow."


def cited_page(name: str, source: str = SOURCE, quote: str = QUOTE) -> str:
    """A page citing ``quote`` with a correct anchor into ``SOURCE_TEXT`` (when it is there)."""
    offset = SOURCE_TEXT.find(quote)
    tail = format_tail(source, None, quote, offset if offset >= 0 else None)
    return f"# {name.title()}\n\n{quote}[^1]\n\n[^1]: {tail}\n"


def fabricated_page(name: str) -> str:
    """A page citing a source that does not exist (citation.source_missing, critical)."""
    return cited_page(name, source="raw/made-up.txt")


def page_run(ws: Any, name: str, text: str | None = None, *, verify: bool = True) -> Any:
    """One run writing ``wiki/NAME.md`` and linking it from the index; finalized.

    The first run of a wiki also ingests the source.  With ``verify`` the run goes
    through the workspace's verifier (the product default unless a test set one).
    """
    tree = ws.repo[ws.repo.references[ws.env.main].target].tree
    ingest = SOURCE not in tree
    run = ws.start_run("ingest" if ingest else "cascade", "cli:test")
    if ingest:
        run.stage_write(SOURCE, SOURCE_TEXT)
    run.stage_write(f"wiki/{name}.md", text if text is not None else cited_page(name))
    index = (run.read("wiki/index.md") or b"").decode()
    run.stage_write("wiki/index.md", index + f"- [[{name}]]\n")
    return run.finalize(verify=verify)
