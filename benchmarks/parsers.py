"""The cold path's parser, measured (issue 25): what parsing a page costs with the verifier's
own ``parse_page`` (markdown-it-py and its plugins, then the verifier's extraction), with
markdown-it-py's token stream alone, and with GitHub's own parser (``cmarkgfm``: cmark-gfm,
in C). cmarkgfm's bindings expose no XML renderer (``cmark_render_xml`` is not in its
cffi library; only ``cmark_render_html``), so its rows are the parse rendered as HTML with
``data-sourcepos`` on each block (``CMARK_OPT_SOURCEPOS``), and that HTML read back with
``html.parser``: the least a port would have to do. Each on the same pages, in one process, CPU time (``time.process_time``) of the best of
``--rounds`` passes. Not in the test suite.

    python benchmarks/make_wiki.py /tmp/w10k --pages 10000 --citations 100000 --raw-mb 1024
    pip install cmarkgfm                       # GitHub's parser (not a wikigate dependency)
    python benchmarks/parsers.py /tmp/w10k --pages 2000 --rounds 3

Markdown-it-pyrs and pyromark are not measured here: issue 25 found them not adoptable
(hangs, panics escaping ``except Exception``; 15% of the test inputs parsed otherwise).
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

from wikigate.verifier.markdown import _ended, _normalize, markdown, parse_page


def best(rounds: int, fn: Callable[[], object]) -> float:
    """The least CPU time of ``rounds`` calls of ``fn`` (the others met the machine's load)."""
    out = []
    for _ in range(rounds):
        t0 = time.process_time()
        fn()
        out.append(time.process_time() - t0)
    return min(out)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("wiki", type=Path)
    p.add_argument("--pages", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=3)
    a = p.parse_args()
    paths = sorted((a.wiki / "wiki").rglob("*.md"))
    paths = random.Random(25).sample(paths, min(a.pages, len(paths)))
    texts = [(str(p.relative_to(a.wiki)), p.read_text()) for p in paths]
    md = markdown()

    def ours() -> None:
        for path, text in texts:
            parse_page(path, text)

    def tokens() -> None:
        for _, text in texts:
            md.parse(_ended(_normalize(text)), {})

    rows = [("wikigate parse_page (markdown-it-py + extraction)", best(a.rounds, ours))]
    rows.append(("markdown-it-py token stream alone", best(a.rounds, tokens)))
    try:
        import cmarkgfm
        from cmarkgfm.cmark import Options
    except ImportError:
        print("cmarkgfm not installed (pip install cmarkgfm): its rows skipped")
    else:
        options = Options.CMARK_OPT_SOURCEPOS | Options.CMARK_OPT_FOOTNOTES
        exts = ["table", "strikethrough", "autolink", "tasklist"]

        def gfm_html() -> None:
            for _, text in texts:
                cmarkgfm.markdown_to_html_with_extensions(text, options, extensions=exts)

        def gfm_read() -> None:
            for _, text in texts:
                html = cmarkgfm.markdown_to_html_with_extensions(text, options, extensions=exts)
                reader = HTMLParser()
                reader.feed(html)
                reader.close()

        rows.append(("cmarkgfm, HTML with source positions", best(a.rounds, gfm_html)))
        rows.append(("cmarkgfm, that HTML read back (html.parser)", best(a.rounds, gfm_read)))
    n = len(texts)
    base = rows[0][1]
    print(f"{n} pages of {a.wiki}, CPU time, best of {a.rounds}, load {os.getloadavg()[0]:.1f}")
    print("| parser | per page | share of parse_page |")
    print("|---|---|---|")
    for what, took in rows:
        print(f"| {what} | {took / n * 1000:.3f} ms | {took / base:.2f} |")


if __name__ == "__main__":
    main()
