"""A writer's steps through the MCP server against the same steps through the CLI.

    python benchmarks/mcp.py /tmp/w1k [--rounds 5] [--pages 10]

On a ``git clone --no-local`` of WIKI (made by make_wiki.py; never modified) whose
verifier cache is warm (one untimed ``verify --all``, as in a repository in use), each
round runs two 10-page cascade runs, one after the other, on distinct topic pages:

- **MCP**: the SDK's own client (``stdio_client`` + ``ClientSession``) talking to one
  long-lived ``wikigate -C CLONE mcp`` over stdio, started once for every round: per page
  ``read`` (the whole page), ``anchor`` (8 words of a 10 MB raw source) and
  ``write`` (the page with one more cited sentence), then one ``finalize``;
- **CLI**: the same steps as whole processes: ``git show BRANCH:PAGE`` (a CLI writer reads
  its run's pages with git), ``wikigate anchor SOURCE QUOTE``, ``wikigate run write RUN
  PAGE --from FILE``, ``wikigate run finalize RUN``.

Every run must commit. Wall time of each call (as its client sees it: the MCP round trip,
or the process from start to exit), median and range; CPU time: the CLI's of each process
(``RUSAGE_CHILDREN``), the server's over each step's calls of a run (``/proc/PID/stat``,
threads and reaped children included; Linux) divided by the calls; the load average while
measuring. Goal: tool calls under 20 ms, a 10-page finalize under 0.3 s.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# this file is named like the SDK's package: drop its folder before importing the SDK
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
from mcp import ClientSession, StdioServerParameters  # noqa: E402 (the mcp extra)
from mcp.client.stdio import stdio_client  # noqa: E402

sys.path.append(str(HERE))
from harness import Figure, command, git, load, user_env  # noqa: E402

STEPS = ("start_run", "read", "anchor", "write", "finalize")
TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Side:
    """One side's figures: wall time per call by step, CPU seconds per call by step."""

    name: str
    wall: dict[str, Figure] = field(default_factory=dict)
    cpu: dict[str, list[float]] = field(default_factory=dict)

    def add(self, step: str, seconds: float, cpu: float | None = None) -> None:
        self.wall.setdefault(step, Figure(f"{self.name} {step}")).add(seconds)
        if cpu is not None:
            self.cpu.setdefault(step, []).append(cpu)


@dataclass
class Edit:
    page: str
    source: str
    quote: str


def proc_cpu(pid: int) -> float:
    """CPU seconds of a process: its threads' and its reaped children's."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    return (utime + stime + cutime + cstime) / TICKS


def server_pid() -> int:
    """The server: the child process of this one running ``wikigate … mcp``."""
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if ppid == me and b"mcp" in argv:
            return int(entry)
    raise SystemExit("the MCP server process was not found")


SOURCE = "raw/bench-mcp.txt"


def add_source(clone: Path, rng: random.Random, mb: int) -> str:
    """A source of ``mb`` MB of words in no repeating order, committed to main (untimed, as
    an earlier ingest would have): make_wiki.py's sources repeat themselves every ~1.2 MB,
    so no quote of theirs is unique, and ``anchor`` anchors only a unique quote."""
    from make_wiki import WORDS

    vocab = [w + c for w in WORDS for c in "abcdefghijklmnopqrstuvwxyz"]
    words = rng.choices(vocab, k=mb * 2**20 // 9)
    lines = [" ".join(words[i : i + 12]) for i in range(0, len(words), 12)]
    text = "Benchmark source, unique throughout.\n\n" + ".\n".join(lines) + ".\n"
    (clone / SOURCE).write_text(text, encoding="utf-8")
    git(clone, "add", SOURCE)
    git(clone, "-c", "user.name=bench", "-c", "user.email=bench@example.invalid",
        "commit", "-q", "-m", "bench: a source to quote")  # fmt: skip
    return text


def quotes(text: str, count: int, rng: random.Random) -> list[tuple[str, str]]:
    """``count`` (source, quote) pairs: 8 words on one line of the source, unique in it."""
    out: list[tuple[str, str]] = []
    while len(out) < count:
        at = text.find(" ", rng.randrange(len(text) - 400)) + 1
        words = text[at : at + 400].split(" ")[:8]
        quote = " ".join(words)
        if len(words) == 8 and not any(c in quote for c in ".\n") and text.count(quote) == 1:
            out.append((SOURCE, quote))
    return out


def edits_for(clone: Path, text: str, rounds: int, per_run: int) -> list[list[Edit]]:
    """Distinct topic pages for every run of every round (two runs a round)."""
    pages = sorted(
        p
        for p in git(clone, "ls-tree", "-r", "--name-only", "main", "wiki/topics/").split()
        if p.endswith(".md")
    )
    rng = random.Random(28)
    rng.shuffle(pages)
    runs = 2 * rounds
    if len(pages) < runs * per_run:
        raise SystemExit(f"{len(pages)} topic pages: too few for {runs} runs of {per_run}")
    picked = quotes(text, runs * per_run, rng)
    out = []
    for r in range(runs):
        out.append([Edit(pages[r * per_run + i], *picked[r * per_run + i]) for i in range(per_run)])
    return out


def edited(text: str, quote: str, tail: str) -> str:
    """The page with one more sentence citing ``quote`` (a new footnote label)."""
    label = 1000 + text.count("[^")
    body, _, notes = text.partition("\n[^")
    notes = f"\n[^{notes}" if notes else ""
    sentence = f"\nThe record states that {quote}.[^{label}]\n"
    return body.rstrip("\n") + "\n" + sentence + notes.rstrip("\n") + f"\n[^{label}]: {tail}\n"


def text_of(got: Any) -> str:
    if got.is_error:
        raise SystemExit(f"tool error: {got.content[0].text if got.content else got}")
    return got.content[0].text if got.content else ""


async def mcp_run(s: ClientSession, pid: int, edits: list[Edit], side: Side) -> None:
    async def call(step: str, name: str, args: dict[str, Any]) -> Any:
        t0 = time.perf_counter()
        got = await s.call_tool(name, args)
        side.add(step, time.perf_counter() - t0)
        text_of(got)
        return got

    cpu0 = proc_cpu(pid)
    await call("start_run", "start_run", {"type": "cascade", "triggered_by": "mcp:bench"})
    cpu = {"start_run": proc_cpu(pid) - cpu0}
    pages: dict[str, str] = {}
    cpu0 = proc_cpu(pid)
    for e in edits:
        got = await call("read", "read", {"path": e.page, "length": 8000})
        span = got.structured_content  # the text is the page's characters alone
        if span["end"] != span["total"]:
            raise SystemExit(f"{e.page} is longer than one read: {span['total']} characters")
        pages[e.page] = text_of(got)
    cpu["read"] = (proc_cpu(pid) - cpu0) / len(edits)
    tails: dict[str, str] = {}
    cpu0 = proc_cpu(pid)
    for e in edits:
        got = await call("anchor", "anchor", {"source": e.source, "quote": e.quote})
        tails[e.page] = got.structured_content["tail"]
    cpu["anchor"] = (proc_cpu(pid) - cpu0) / len(edits)
    cpu0 = proc_cpu(pid)
    for e in edits:
        content = edited(pages[e.page], e.quote, tails[e.page])
        await call("write", "write", {"path": e.page, "content": content})
    cpu["write"] = (proc_cpu(pid) - cpu0) / len(edits)
    cpu0 = proc_cpu(pid)
    got = await call("finalize", "finalize", {})
    cpu["finalize"] = proc_cpu(pid) - cpu0
    status = got.structured_content["status"]
    if status != "committed":
        raise SystemExit(f"the MCP run did not commit: {text_of(got)[:2000]}")
    for step, seconds in cpu.items():
        side.cpu.setdefault(step, []).append(seconds)


def timed(argv: list[str], cwd: Path, side: Side, step: str, ok: tuple[int, ...] = (0,)) -> str:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=user_env())
    took = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in ok:
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}:\n{proc.stdout}{proc.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    side.add(step, took, cpu)
    return proc.stdout


def cli_run(clone: Path, edits: list[Edit], side: Side, scratch: Path) -> None:
    wikigate = command("wikigate")
    run_id = timed(
        [wikigate, "run", "start", "--type", "cascade", "--triggered-by", "cli:bench"],
        clone,
        side,
        "start_run",
    ).strip()
    branch = f"wikigate/runs/{run_id}"
    pages = {
        e.page: timed(["git", "show", f"{branch}:{e.page}"], clone, side, "read") for e in edits
    }
    tails = {
        e.page: timed([wikigate, "anchor", e.source, e.quote], clone, side, "anchor").strip()
        for e in edits
    }
    for e in edits:
        new = scratch / "page.md"
        new.write_text(edited(pages[e.page], e.quote, tails[e.page]), encoding="utf-8")
        timed([wikigate, "run", "write", run_id, e.page, "--from", str(new)], clone, side, "write")
    out = timed([wikigate, "run", "finalize", run_id], clone, side, "finalize")
    if not out.startswith("committed"):
        raise SystemExit(f"the CLI run did not commit: {out[:2000]}")


def profile(clone: Path, warm: list[Edit], edits: list[Edit], top: int) -> None:
    """One more run in this process, as the server runs it (the same calls on the
    workspace), its anchors and its finalize each under cProfile: where the time goes."""
    import cProfile
    import pstats

    import pygit2

    from wikigate import ledger
    from wikigate.anchors import anchor_tail
    from wikigate.changes import finalize_judge
    from wikigate.mcp_server import Session
    from wikigate.trace import TraceOp
    from wikigate.workspace import Workspace

    ws = Workspace.open(clone)
    # one run first, unprofiled, as the server's earlier runs: main's term index and the
    # pages' cache rows exist when the profiled run verifies (the gate's usual case)
    first = ws.start_run("cascade", "mcp:bench")
    for e in warm:
        text = (first.read(e.page) or b"").decode()
        first.stage_write(e.page, edited(text, e.quote, anchor_tail(ws, e.source, e.quote)))
    finalize_judge(ws, first, None)
    if first.finalize(judge=None).status != "committed":
        raise SystemExit("the warm-up run did not commit")
    ledger.sync(ws)  # the ledger up to main: the profiled run's finalize does not sync it
    # the server's session, on this thread: every call traced as the server traces it
    session = Session(str(clone))
    args = {"type": "cascade", "triggered_by": "mcp:bench"}
    start = session.start_run
    run_id = session.traced(
        "start_run", args, lambda: start("cascade", "mcp:bench", {}, None, None)
    )
    run = ws.run(run_id)
    pages = {e.page: (run.read(e.page) or b"").decode() for e in edits}
    prof = cProfile.Profile()
    t0, c0 = time.perf_counter(), time.process_time()
    prof.enable()
    tails = {e.page: session.anchor_traced(e.source, e.quote, None) for e in edits}
    prof.disable()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"\nin process: {len(edits)} anchors, {ms(wall / len(edits))} wall and "
          f"{ms(cpu / len(edits))} CPU each (cProfile on)")  # fmt: skip
    pstats.Stats(prof).sort_stats("cumulative").print_stats(top)
    for e in edits:
        content = edited(pages[e.page], e.quote, tails[e.page])
        blob = str(pygit2.hash(content.encode("utf-8")))
        session.traced(
            "write",
            {"path": e.page, "content": content},
            lambda: str(session.open_run().stage_write(e.page, content)),  # noqa: B023
            op=lambda _: TraceOp(kind="write", path=e.page, blob=blob),  # noqa: B023
        )
    prof = cProfile.Profile()
    t0, c0 = time.perf_counter(), time.process_time()
    prof.enable()
    done, _ = session.finalize_traced(None)
    prof.disable()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"\nin process: finalize {done.status}: {ms(wall)} wall, {ms(cpu)} CPU (cProfile on)")
    if done.status != "committed":
        print(f"  not committed: {done.reason}")
    pstats.Stats(prof).sort_stats("cumulative").print_stats(top)
    session._release("the benchmark ended")  # on this thread, as its calls were
    ws.close()


def report(sides: list[Side], runs: int, pages: int, loads: list[float]) -> None:
    print(
        f"\n{runs} runs of {pages} pages a side; load average {min(loads):.1f}–{max(loads):.1f} "
        f"(cores: {os.cpu_count()})"
    )
    heads = {"MCP": "MCP wall | MCP server CPU a call", "CLI": "CLI wall | CLI CPU a call"}
    print("| step | " + " | ".join(heads[side.name] for side in sides) + " |")
    print("|---" * (1 + 2 * len(sides)) + "|")
    for step in STEPS:
        cells = []
        for side in sides:
            fig = side.wall[step]
            lo, hi = min(fig.times), max(fig.times)
            cells.append(f"{ms(fig.median)} ({ms(lo)}–{ms(hi)}, n={len(fig.times)})")
            cpu = sorted(side.cpu.get(step, []))
            cells.append(f"{ms(cpu[len(cpu) // 2])} ({ms(cpu[0])}–{ms(cpu[-1])})" if cpu else "")
        print(f"| `{step}` | " + " | ".join(cells) + " |")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 0.1 else f"{seconds * 1000:.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("wiki", type=Path, help="a wiki made by make_wiki.py (not modified)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pages", type=int, default=10, help="pages a run edits")
    parser.add_argument(
        "--profile", type=int, default=0, metavar="N",
        help="then one more run in process under cProfile: the top N entries",
    )  # fmt: skip
    parser.add_argument("--source-mb", type=int, default=10, help="the size of the source quoted")
    parser.add_argument(
        "--mcp-only", action="store_true",
        help="the MCP side alone (every run through the server; no CLI figures)",
    )  # fmt: skip
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="wikigate-bench-mcp-") as tmp:
        clone = Path(tmp) / "wiki"
        subprocess.run(
            ["git", "clone", "-q", "--no-local", str(args.wiki), str(clone)],
            check=True,
            capture_output=True,
        )
        text = add_source(clone, random.Random(1), args.source_mb)
        # a working repository's cache is warm: verify the wiki once, untimed
        t0 = time.perf_counter()
        subprocess.run(
            [command("wikigate"), "-C", str(clone), "verify", "--all"],
            capture_output=True,
            env=user_env(),
        )
        print(f"warm-up `verify --all`: {time.perf_counter() - t0:.1f} s", flush=True)
        plan = edits_for(clone, text, args.rounds + (1 if args.profile else 0), args.pages)
        mcp_side, cli_side = Side("MCP"), Side("CLI")
        loads: list[float] = []
        scratch = Path(tmp) / "scratch"
        scratch.mkdir()

        async def session() -> None:
            server = StdioServerParameters(
                command=command("wikigate"),
                args=["-C", str(clone), "mcp"],
                env=user_env(),
            )
            async with stdio_client(server) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                pid = server_pid()
                for r in range(args.rounds):
                    loads.append(load())
                    await mcp_run(s, pid, plan[2 * r], mcp_side)
                    loads.append(load())
                    if args.mcp_only:
                        await mcp_run(s, pid, plan[2 * r + 1], mcp_side)
                    else:
                        cli_run(clone, plan[2 * r + 1], cli_side, scratch)
                    loads.append(load())
                    fins = [side.wall["finalize"].times[-1] for side in (mcp_side, cli_side)
                            if "finalize" in side.wall]  # fmt: skip
                    print(
                        f"round {r + 1}: finalize {', '.join(map(ms, fins))} "
                        f"(load {loads[-1]:.1f})",
                        flush=True,
                    )

        if args.rounds:
            asyncio.run(session())
            sides = [mcp_side] if args.mcp_only else [mcp_side, cli_side]
            report(sides, args.rounds * (2 if args.mcp_only else 1), args.pages, loads)
        if args.profile:
            profile(clone, plan[2 * args.rounds], plan[2 * args.rounds + 1], args.profile)


if __name__ == "__main__":
    main()
