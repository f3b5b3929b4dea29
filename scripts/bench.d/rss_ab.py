"""The daemon's memory per file at `ready`, before and after, alternating in one session (issue 32).

    python3 -B scripts/bench.d/rss_ab.py BEFORE AFTER RUN_DIR TREE... [--rounds N]

BEFORE and AFTER are release binaries; each TREE is NAME=PATH. Each round starts, for each
backend (inotify, fanotify) and each binary in turn (the order flips every round), the daemon
on an empty directory and then on the tree, as `scripts/bench live` part (a) does: `quotawatch
run ROOT --socket S --events jsonl --backend B`, /proc/PID/status and /proc/PID/smaps one second
after the `ready` line. Per file is (tree − empty directory) ÷ files, for VmRSS (the target's
figure) and RssAnon (what the daemon allocated; VmRSS adds the program's own pages, whose count
moves with the page cache). The last round's anonymous memory per mapping of AFTER is printed
too, each mapping over 100 kB, which is where a file's bytes go, and the time from start to
`ready` on the tree (a start-up cost, not a CPU figure: the machine may be shared).
"""

import argparse
import os
import select
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qwbench import procfs, stats  # noqa: E402
from qwbench.markdown import table  # noqa: E402

BACKENDS = ["inotify", "fanotify"]


def at_ready(binary: str, root: str, backend: str, run_dir: str) -> dict:
    socket_path = os.path.join(run_dir, "rss-ab.sock")
    argv = [binary, "run", root, "--socket", socket_path, "--events", "jsonl", "--backend", backend]
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        seen = b""
        deadline = time.monotonic() + 120
        while b'"event":"ready"' not in seen:
            ready, _, _ = select.select([process.stdout], [], [], max(0.0, deadline - time.monotonic()))
            chunk = os.read(process.stdout.fileno(), 65536) if ready else b""
            if not chunk:
                raise SystemExit(f"{binary} on {root} ({backend}) stopped before ready: {seen[-500:]!r}")
            seen += chunk
        ready_seconds = time.perf_counter() - started
        time.sleep(1)
        status = procfs.status_kib(process.pid)
        mappings = []
        with open(f"/proc/{process.pid}/smaps") as smaps:
            for line in smaps:
                fields = line.split()
                if "-" in fields[0] and not fields[0].endswith(":"):
                    mappings.append([fields[5] if len(fields) > 5 else "(anonymous)", 0])
                elif fields[0] == "Anonymous:":
                    mappings[-1][1] = int(fields[1])
        return {"status": status, "mappings": mappings, "ready": ready_seconds}
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(60)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("run_dir")
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    empty = os.path.join(args.run_dir, "rss-ab-empty")
    os.makedirs(empty, exist_ok=True)
    trees = [tree.split("=", 1) for tree in args.trees]
    files = {name: sum(len(found) for _, _, found in os.walk(path)) for name, path in trees}
    binaries = {"before": args.before, "after": args.after}
    per_file = {}
    last_mappings = {}
    for number in range(args.rounds):
        order = ["before", "after"] if number % 2 == 0 else ["after", "before"]
        for name, path in trees:
            for backend in BACKENDS:
                for which in order:
                    base = at_ready(binaries[which], empty, backend, args.run_dir)
                    full = at_ready(binaries[which], path, backend, args.run_dir)
                    for field in ("VmRSS", "RssAnon"):
                        growth = (full["status"][field] - base["status"][field]) * 1024 / files[name]
                        per_file.setdefault((name, backend, which, field), []).append(growth)
                    per_file.setdefault((name, backend, which, "ready"), []).append(full["ready"] * 1000)
                    if which == "after":
                        last_mappings[(name, backend)] = full["mappings"]
    rows = []
    for name, _ in trees:
        for backend in BACKENDS:
            row = [name, backend]
            for field in ("VmRSS", "RssAnon"):
                for which in ("before", "after"):
                    values = per_file[(name, backend, which, field)]
                    row.append(f"{stats.median(values):.1f} B ({min(values):.1f}–{max(values):.1f})")
            for which in ("before", "after"):
                values = per_file[(name, backend, which, "ready")]
                row.append(f"{stats.median(values):.0f} ms ({min(values):.0f}–{max(values):.0f})")
            rows.append(row)
    headers = ["tree", "backend", "VmRSS before", "VmRSS after", "RssAnon before", "RssAnon after",
               "ready before", "ready after"]
    print(f"Per file at ready, median (range) of {args.rounds} alternating rounds; {files}.\n")
    print(table(headers, rows, set()))
    for (name, backend), mappings in last_mappings.items():
        large = ", ".join(f"{os.path.basename(path)} {kib:,} kB" for path, kib in mappings if kib > 100)
        print(f"\nAFTER's anonymous memory by mapping, {name}, {backend} (last round): {large}")


if __name__ == "__main__":
    main()
