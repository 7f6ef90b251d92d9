"""``wikigate demo``: three runs on a bundled public-domain corpus, no API key, no network."""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from pathlib import Path

from ..errors import UsageError, WikigateError
from ..finalize import FinalizeResult
from ..present import outcome, runs_table
from ..workspace import Workspace

Echo = Callable[[str], None]

GETTYSBURG = "raw/gettysburg-address.txt"
DECLARATION = "raw/declaration-preamble.txt"


def corpus(name: str) -> bytes:
    return resources.files(__package__).joinpath("corpus", name).read_bytes()


def run_demo(target: Path, echo: Echo) -> int:
    from wikigate.anchors import anchor_fix, anchor_tail
    from wikigate.verifier.wiki import PageCache, WikiTree

    if target.exists() and any(target.iterdir()):
        raise UsageError(f"{target} is not empty; give the demo a new folder")
    ws = Workspace.init(target)
    echo(f"== workspace {ws.root} (git repo: raw/, wiki/index.md, wiki/log.md, wikigate.toml)\n")

    # 1 --------------------------------------------------------------------------
    echo("== 1. ingest run: two sources, a page whose quotes carry anchors")
    run = ws.start_run("ingest", "cli:demo")
    run.stage_write(GETTYSBURG, corpus("gettysburg-address.txt"))
    run.stage_write(DECLARATION, corpus("declaration-preamble.txt"))
    tree = WikiTree(ws.repo, run.staged_tree(), PageCache(None))

    def cite(source: str, quote: str) -> str:
        return str(anchor_tail(ws, source, quote, None, tree))

    q1 = "Four score and seven years ago our fathers brought forth on this continent, a new nation"
    q2 = "government of the people, by the people, for the people, shall not perish from the earth"
    q3 = "all men are created equal"
    page = (
        "---\ntitle: Gettysburg Address\naliases: [Gettysburg]\n---\n"
        "# Gettysburg Address\n\n"
        "Lincoln opened by recalling that four score and seven years ago our fathers brought "
        "forth on this continent, a new nation.[^1]\n\n"
        "## Closing\n\n"
        "He closed on the hope that government of the people, by the people, for the people, "
        "shall not perish from the earth.[^2] The phrase about equality echoes the Declaration "
        "of Independence, which holds that all men are created equal.[^3]\n\n"
        f"[^1]: {cite(GETTYSBURG, q1)}\n[^2]: {cite(GETTYSBURG, q2)}\n"
        f"[^3]: {cite(DECLARATION, q3)}\n"
    )
    run.stage_write("wiki/gettysburg-address.md", page)
    index = run.read("wiki/index.md") or b""
    run.stage_write("wiki/index.md", index.decode() + "\n- [[Gettysburg Address]]\n")
    _show(echo, run.finalize())

    # 2 --------------------------------------------------------------------------
    echo("\n== 2. a sloppy cascade: fabricated quote, paraphrase, broken link, raw/ edit")
    bad = ws.start_run("cascade", "cli:demo")
    bad.str_replace(
        "wiki/gettysburg-address.md",
        "## Closing\n",
        "Lincoln said the battle was the greatest of the war.[^4] He also said the world "
        "would long remember the speech.[^5] See [[Battle of Gettysburg]].\n\n## Closing\n",
    )
    bad.str_replace(
        "wiki/gettysburg-address.md",
        "\n[^1]:",
        f'\n[^4]: {GETTYSBURG} — "This was the greatest battle of the war."\n'
        f'[^5]: {GETTYSBURG} — "The world will long remember what we say here"\n[^1]:',
    )
    echo(f"$ wikigate run write {bad.run_id} {GETTYSBURG} ...   # refused at once:")
    try:
        bad.stage_write(GETTYSBURG, corpus("gettysburg-address.txt") + b"\nAn edit.\n")
    except WikigateError as e:
        echo(f"error: {e}")
    _show(echo, bad.finalize())

    # 3 --------------------------------------------------------------------------
    echo("\n== 3. a quote without an anchor: revise, then `wikigate anchor --fix`")
    weak = ws.start_run("synthesis", "cli:demo")
    weak.stage_write(
        "wiki/declaration.md",
        (
            "---\ntitle: Declaration of Independence\n---\n# Declaration of Independence\n\n"
            "The preamble names Life, Liberty and the pursuit of Happiness among unalienable "
            "rights.[^1]\n\n"
            '[^1]: declaration-preamble.txt — "among these are Life, Liberty and the pursuit of '
            'Happiness"\n'
        ),
    )
    weak.str_replace(
        "wiki/index.md",
        "- [[Gettysburg Address]]\n",
        "- [[Gettysburg Address]]\n- [[Declaration of Independence]]\n",
    )
    _show(echo, weak.finalize())
    echo(f"$ wikigate anchor --fix --run {weak.run_id}")
    for fix in anchor_fix(weak, []):
        echo(f"  {fix.path}:{fix.line}: [^{fix.label}] {fix.status}")
    _show(echo, weak.finalize())

    echo("\n== runs, from telemetry (.git/wikigate/telemetry.db)")
    echo(runs_table(ws.runs()))
    echo(f"\nTry: cd {ws.root} && wikigate runs show {bad.run_id} && wikigate verify --all")
    ws.close()
    return 0


def _show(echo: Echo, result: FinalizeResult) -> None:
    echo(outcome(result))
