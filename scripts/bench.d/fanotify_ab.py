"""fanotify before and after, alternating in one session (issue 31): what a writer elsewhere on
the file system costs the daemon, with and without our writer, and memory at ready.

    python3 -B scripts/bench.d/fanotify_ab.py BEFORE AFTER RUN_DIR TREE [--rounds N] [--seconds S]

BEFORE and AFTER are release binaries. Each round runs both, in alternating order, each as a
fanotify daemon on a root of 2 files: S seconds with no writer of ours (the background: other
processes' writes on the same file system), then S seconds with scripts/bench.d/writer.py
writing next to ROOT; the writer's own cost is the difference. Wake-ups are the voluntary
context switches of all the daemon's threads. Then memory at `ready` on TREE for fanotify
(both binaries) and inotify (AFTER): VmRSS, and the kernel's objects in the caches that hold
inotify's marks (inotify_inode_mark, fsnotify_mark_connector), counted from /sys/kernel/slab.
"""

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qwbench import procfs, stats  # noqa: E402
from qwbench.backends_bench import Daemon  # noqa: E402
from qwbench.children import Children  # noqa: E402
from qwbench.fanotify_idle import small_root, writer_path  # noqa: E402

CACHES = ["inotify_inode_mark", "fsnotify_mark_connector"]


def switches(pid: int) -> int:
    total = 0
    for path in glob.glob(f"/proc/{pid}/task/*/status"):
        try:
            with open(path) as status:
                for line in status:
                    if line.startswith("voluntary_ctxt_switches"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def slab_objects() -> dict[str, tuple[int, int]]:
    """(objects, bytes per slot) of each cache; merged caches count their aliases too."""
    result = {}
    for cache in CACHES:
        base = f"/sys/kernel/slab/{cache}"
        with open(f"{base}/objects") as objects, open(f"{base}/slab_size") as size:
            result[cache] = (int(objects.read().split()[0]), int(size.read()))
    return result


def idle_round(children: Children, binary: str, run_dir: str, seconds: float) -> dict:
    root = small_root(run_dir, "ab-root")
    target = os.path.join(run_dir, "ab-writer")
    daemon = Daemon(children, binary, "fanotify", root, os.path.join(run_dir, "ab.sock"))
    try:
        result = {}
        for writer in (False, True):
            daemon.sync()
            cpu0, wake0, started = procfs.cpu_seconds(daemon.process.pid), switches(daemon.process.pid), time.monotonic()
            files = 0
            if writer:
                done = subprocess.run([sys.executable, writer_path(), target, str(seconds)], check=True, capture_output=True)
                files = json.loads(done.stdout)["files"]
            else:
                time.sleep(seconds)
            daemon.sync()
            wall = time.monotonic() - started
            key = "writer" if writer else "background"
            result[key] = (procfs.cpu_seconds(daemon.process.pid) - cpu0) / wall
            result[key + " wakeups"] = (switches(daemon.process.pid) - wake0) / wall
            if writer:
                result["files/s"] = files / wall
        return result
    finally:
        daemon.stop()
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(target, ignore_errors=True)


def memory(children: Children, binary: str, backend: str, run_dir: str, tree: str) -> tuple[int, int]:
    before = slab_objects()
    daemon = Daemon(children, binary, backend, tree, os.path.join(run_dir, "mem.sock"))
    time.sleep(1)
    rss = procfs.status_kib(daemon.process.pid)["VmRSS"]
    after = slab_objects()
    daemon.stop()
    kernel = sum((after[c][0] - before[c][0]) * after[c][1] for c in CACHES)
    return rss, kernel


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("run_dir")
    parser.add_argument("tree")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10)
    arguments = parser.parse_args()
    os.makedirs(arguments.run_dir, exist_ok=True)
    children = Children()
    binaries = {"before": arguments.before, "after": arguments.after}
    idle = {name: [] for name in binaries}
    for index in range(arguments.rounds):
        for name in (["before", "after"] if index % 2 == 0 else ["after", "before"]):
            idle[name].append(idle_round(children, binaries[name], arguments.run_dir, arguments.seconds))
            print(name, idle[name][-1], file=sys.stderr, flush=True)
    print(f"| fanotify, ROOT of 2 files, {arguments.rounds} alternating rounds of {arguments.seconds:g} s | before | after |")
    print("|---|---:|---:|")
    for key, unit in [("background", "%"), ("writer", "%"), ("background wakeups", "/s"), ("writer wakeups", "/s"), ("files/s", "")]:
        cells = []
        for name in binaries:
            values = [r[key] * (100 if unit == "%" else 1) for r in idle[name]]
            cells.append(f"{stats.median(values):,.2f}{' %' if unit == '%' else ''} ({', '.join(f'{v:,.2f}' for v in values)})")
        print(f"| {key} | {cells[0]} | {cells[1]} |")
    for name in binaries:
        extra = [r["writer"] - r["background"] for r in idle[name]]
        per_file = [(r["writer"] - r["background"]) / r["files/s"] * 1e6 for r in idle[name]]
        print(f"| {name}: the writer's own share (writer − background) | {stats.median(extra) * 100:.2f} % | {stats.median(per_file):.2f} µs a file |")
    dirs = int(subprocess.run(["find", arguments.tree, "-type", "d"], capture_output=True, text=True).stdout.count("\n"))
    mem = {("fanotify", "before"): [], ("fanotify", "after"): [], ("inotify", "after"): []}
    for _ in range(arguments.rounds):
        for backend, name in mem:
            mem[(backend, name)].append(memory(children, binaries[name], backend, arguments.run_dir, arguments.tree))
    print(f"\n| on {os.path.basename(arguments.tree)} ({dirs:,} directories) | RSS at ready | RSS per directory | kernel mark objects per directory | total per directory |")
    print("|---|---:|---:|---:|---:|")
    for (backend, name), values in mem.items():
        rss = stats.median([v[0] for v in values])
        kernel = stats.median([v[1] for v in values])
        print(f"| {backend} ({name}) | {rss / 1024:.1f} MiB | {rss * 1024 / dirs:.0f} B | {kernel / dirs:.0f} B | {(rss * 1024 + kernel) / dirs:.0f} B |")


if __name__ == "__main__":
    main()
