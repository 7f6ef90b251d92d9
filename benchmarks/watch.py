"""Watch the wikigate (and lychee) processes other processes start, and print each one's
wall time and CPU time (user + system of it and its waited-for children: workers) when it
ends, read from /proc every half second (Linux). Run C of docs/benchmarks.md used it to keep
the figures of runs whose ``commands.py`` could not finish in the time there was.

    python benchmarks/watch.py PID [PID...]      # the commands.py processes to watch
"""

import os
import sys
import time

parents = [int(p) for p in sys.argv[1:]]
tick = os.sysconf("SC_CLK_TCK")
seen = {}


def stat(pid):
    with open(f"/proc/{pid}/stat") as f:
        s = f.read()
    rest = s[s.rfind(")") + 2 :].split()
    ppid = int(rest[1])
    ut, st, cut, cst = (int(x) for x in rest[11:15])
    return ppid, (ut + st + cut + cst) / tick


while any(os.path.exists(f"/proc/{p}") for p in parents):
    now = time.time()
    alive = set()
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        pid = int(d)
        try:
            ppid, cpu = stat(pid)
            if ppid not in parents:
                continue
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode()[:80]
        except OSError:
            continue
        if "wikigate" not in cmd and "lychee" not in cmd:
            continue
        alive.add(pid)
        if pid not in seen:
            seen[pid] = [cmd, now, now, cpu, os.getloadavg()[0]]
        seen[pid][2] = now
        seen[pid][3] = max(seen[pid][3], cpu)
        seen[pid][4] = max(seen[pid][4], os.getloadavg()[0])
    for pid in list(seen):
        if pid not in alive:
            cmd, t0, t1, cpu, ld = seen.pop(pid)
            print(
                f"{time.strftime('%H:%M:%S')} {cmd} | wall ~{t1 - t0:.1f} s | CPU >= {cpu:.1f} s | load<= {ld:.1f}",
                flush=True,
            )
    time.sleep(0.5)
