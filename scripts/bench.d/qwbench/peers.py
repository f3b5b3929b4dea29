"""The burst of `scripts/bench live` watched by watchman and by `inotifywait -r -m`, for their
CPU per file beside QuotaWatch's.

Each peer watches a fresh copy of the burst's empty directories while the same producer
runs; its CPU is counted until it has caught up: for watchman until a query (which waits
for a sync cookie) returns, for inotifywait until its CPU time stops growing.
"""

import time

from . import procfs, watchers
from .watchers import WatchmanConnection

PEERS = ["watchman", "inotifywait -r -m"]


def caught_up_cpu(watcher: watchers.Watcher, root: str) -> tuple[float, float]:
    """(utime, stime) of the peer once it has handled everything the producer did."""
    if watcher.name == "watchman":
        connection = WatchmanConnection(watcher.socket_path)
        try:
            connection.command("query", root, {"expression": ["false"], "fields": ["name"]})
        finally:
            connection.close()
        return procfs.cpu_split(watcher.pid)
    # inotifywait has nothing to ask: it is done when a quarter second passes without CPU.
    previous = procfs.cpu_split(watcher.pid)
    while True:
        time.sleep(0.25)
        current = procfs.cpu_split(watcher.pid)
        if current == previous:
            return current
        previous = current


def burst_round(bench, files: int, dirs: int, size: int, index: int) -> dict[str, dict]:
    """One burst per peer: producer seconds and the peer's CPU split."""
    results = {}
    for tool in PEERS:
        slug = "watchman" if tool == "watchman" else "inotifywait"
        root = bench.fresh_dir(f"burst-{slug}-{index + 1}", dirs)
        watcher = bench.start(tool, root)
        try:
            before = procfs.cpu_split(watcher.pid)
            produced, _ = bench.produce(root, files, dirs, size)
            after = caught_up_cpu(watcher, root)
        finally:
            watchers.stop(bench.children, watcher)
        user, system = (a - b for a, b in zip(after, before))
        results[tool] = {"seconds": produced["seconds"], "user": user, "system": system}
    return results
