"""Time the hook commands on a generated wiki.

    python benchmarks/hooks.py WIKI [--repeat 9]

- `wikigate-citations` on a commit touching 5 pages (target ≤ 0.3 s median, 1,000-page wiki),
  run as the installed console script, like pre-commit runs it.
- Server pre-receive for a 10-page run pushed to a bare clone (target ≤ 1 s, 10,000-page wiki).
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
        (bare / "wikigate.toml").write_text("[verifier]\nverify_on_push = true\n")
        git(
            wiki,
            "remote",
            "remove",
            "bench",
        ) if "bench" in git(wiki, "remote").split() else None
        git(wiki, "remote", "add", "bench", str(bare))
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
            # even pushes carry the verdict notes; odd ones make the server verify itself
            with_notes = i % 2 == 0
            refs = ["main", "refs/notes/wikigate"] if with_notes else ["main"]
            t0 = time.perf_counter()
            proc = subprocess.run(
                ["git", "-C", str(wiki), "push", "-q", "bench", *refs],
                capture_output=True,
                text=True,
            )
            push_times.append((with_notes, time.perf_counter() - t0))
            assert proc.returncode == 0, proc.stderr
        git(wiki, "remote", "remove", "bench")
    noted = ", ".join(f"{t:.2f}s" for n, t in push_times if n)
    verified = ", ".join(f"{t:.2f}s" for n, t in push_times if not n)
    print(f"git push of a 10-page run with its verdict notes (whole push): {noted}")
    print(f"git push of a 10-page run, server verifying it (verify_on_push): {verified}")


if __name__ == "__main__":
    main()
