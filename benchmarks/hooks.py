"""Time the hook commands on a generated wiki.

    python benchmarks/hooks.py WIKI [--repeat 9]

- `wikigate-citations` on a commit touching 5 pages (target ≤ 0.3 s median, 1,000-page wiki),
  run as the installed console script, like pre-commit runs it.
- Server pre-receive for a 10-page run pushed to a bare clone (target ≤ 1 s, 10,000-page wiki).
  The server verifies every update of main itself (`hooks install --server` turns
  verify_on_push on): the first push fills its page cache, later ones are warm; a push of
  the same trees again is answered from its verdict cache; a push of only a run branch and
  the notes is not verified at all.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from wikigate.models import VerifierVerdict
from wikigate.workspace import Workspace


class CommitVerifier:
    def verify(self, run_id, workspace, plan, staged_tree):  # type: ignore[no-untyped-def]
        return VerifierVerdict(verdict="commit")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(cwd), *args], check=True, capture_output=True, text=True
    ).stdout


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("wiki", type=Path)
    p.add_argument("--repeat", type=int, default=9)
    a = p.parse_args()
    wiki = a.wiki
    hook = shutil.which("wikigate-citations") or str(
        Path(sys.executable).parent / "wikigate-citations"
    )
    pages = sorted(str(x.relative_to(wiki)) for x in (wiki / "wiki" / "topics").rglob("*.md"))[:5]
    for page in pages:
        path = wiki / page
        path.write_text(path.read_text().replace("## Details", "## Details\n\nEdited.", 1))
    git(wiki, "add", *pages)
    times = []
    for _ in range(a.repeat + 1):
        t0 = time.perf_counter()
        proc = subprocess.run([hook, *pages], cwd=wiki, capture_output=True, text=True)
        times.append(time.perf_counter() - t0)
    git(wiki, "reset", "-q", "--hard", "HEAD")
    print(
        f"wikigate-citations, 5 staged pages: median {statistics.median(times[1:]):.3f}s "
        f"(first {times[0]:.3f}s, exit {proc.returncode})"
    )

    with tempfile.TemporaryDirectory() as tmp:
        bare = Path(tmp) / "server.git"
        git(Path(tmp), "clone", "-q", "--bare", str(wiki), str(bare))
        subprocess.run(
            [sys.executable, "-m", "wikigate", "hooks", "install", "--server", str(bare)],
            check=True,
            capture_output=True,
        )
        if "bench" in git(wiki, "remote").split():
            git(wiki, "remote", "remove", "bench")
        git(wiki, "remote", "add", "bench", str(bare))

        def timed_push(*refs: str) -> float:
            t0 = time.perf_counter()
            proc = subprocess.run(
                ["git", "-C", str(wiki), "push", "-q", "bench", *refs],
                capture_output=True,
                text=True,
            )
            assert proc.returncode == 0, proc.stderr
            return time.perf_counter() - t0

        push_times = []
        for i in range(6):
            ws = Workspace.open(wiki)
            ws.verifier = CommitVerifier()
            run = ws.start_run("cascade", "cli:bench")
            for page in sorted(pages + [p.replace("page-0000", "page-0001") for p in pages])[:10]:
                text = (run.read(page) or b"").decode()
                run.stage_write(page, text.replace("## Details", f"## Details\n\nPush {i}.", 1))
            run.finalize()
            ws.close()
            old = git(bare, "rev-parse", "main").strip()
            push_times.append(timed_push("main", "refs/notes/wikigate"))
        # the same change again (main put back on the server): the verdict cache answers
        new = git(bare, "rev-parse", "main").strip()
        git(bare, "update-ref", "refs/heads/main", old, new)
        again = timed_push("main")
        # only a run branch and the notes: no verification
        free = timed_push(f"{new}:refs/heads/wikigate/runs/bench", "refs/notes/wikigate")
        git(wiki, "remote", "remove", "bench")
    first, warm = push_times[0], ", ".join(f"{t:.2f}s" for t in push_times[1:])
    print(f"git push of a 10-page run, server verifying it: first {first:.2f}s, warm {warm}")
    print(f"same trees pushed again (server verdict cache): {again:.2f}s")
    print(f"git push of a run branch and the notes only (no verification): {free:.2f}s")


if __name__ == "__main__":
    main()
