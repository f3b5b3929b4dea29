"""The history recorder's cost on the engine: a burst of quota events with and without
`run --history`, rounds alternating.

N quota directories `q/dNNNNN` (limit 8 kB) each get a 16 KiB file; once every breach is
seen, the files go again: N `quota_breach`, N `quota_ok` and the dry-run `cleanup` events the
breaches trigger. Per run: events per second (from the first write until the last `quota_ok` line is read from the
daemon's `--events jsonl` pipe) and engine-thread CPU per event (`engine.cpu_seconds` of two
`status --sync` around the burst), and the whole daemon's CPU from /proc (the writer thread
included). With history, the rows in `history.sqlite` are counted
after the daemon stopped, against the lines it printed.

Run from scripts/bench.d:  python3 -B -m qwbench.history_bench BINARY RUN_DIR [DIRS] [ROUNDS]
"""

import os
import sqlite3
import sys
import time

from . import procfs, stats, watchers
from .children import Children
from .markdown import table
from .quota_bench import fresh_dir, start


def wait_for(watcher, kind: bytes, count: int) -> int:
    """Reads event lines until `count` of `kind` have come; returns how many lines were read."""
    lines, seen = 0, 0
    deadline = time.monotonic() + 120
    while seen < count:
        line = watcher.reader.readline(deadline)
        if line is None:
            raise EOFError("the daemon's events ended first")
        lines += 1
        if kind in line:
            seen += 1
    return lines


def burst(watcher, root: str, dirs: int) -> tuple[int, float]:
    """Writes a file in every quota directory, waits for every breach, removes them and waits
    for every quota_ok; returns (event lines, seconds)."""
    payload = b"H" * 16384
    started = time.perf_counter()
    for index in range(dirs):
        path = os.path.join(root, "q", f"d{index:05}", "f")
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
        os.write(descriptor, payload)
        os.close(descriptor)
    lines = wait_for(watcher, b'"event":"quota_breach"', dirs)
    for index in range(dirs):
        os.unlink(os.path.join(root, "q", f"d{index:05}", "f"))
    lines += wait_for(watcher, b'"event":"quota_ok"', dirs)
    return lines, time.perf_counter() - started


def run_once(children: Children, binary: str, run_dir: str, dirs: int, history: bool, label: str) -> dict:
    root = fresh_dir(run_dir, f"history-{label}")
    for index in range(dirs):
        os.makedirs(os.path.join(root, "q", f"d{index:05}"))
    state = fresh_dir(run_dir, f"history-state-{label}")
    socket_path = os.path.join(run_dir, "history.sock")
    options = ["--quota", "q/*=8kB"] + (["--history"] if history else [])
    os.environ["STATE_DIRECTORY"] = state
    watcher = start(children, binary, root, socket_path, options)
    client = watchers.StatusClient(socket_path)
    try:
        before = client.status(sync=True)["engine"]
        process_before = sum(procfs.cpu_split(watcher.pid))
        lines, seconds = burst(watcher, root, dirs)
        after = client.status(sync=True)["engine"]
        process_cpu = sum(procfs.cpu_split(watcher.pid)) - process_before
    finally:
        watchers.stop(children, watcher)
    recorded = None
    if history:
        for directory, _, names in os.walk(state):
            if "history.sqlite" in names:
                with sqlite3.connect(os.path.join(directory, "history.sqlite")) as connection:
                    recorded = connection.execute(
                        "SELECT count(*) FROM events WHERE kind IN ('quota_breach', 'quota_ok', 'cleanup')"
                    ).fetchone()[0]
    return {
        "lines": lines,
        "seconds": seconds,
        "engine_cpu": after["cpu_seconds"] - before["cpu_seconds"],
        "process_cpu": process_cpu,
        "recorded": recorded,
    }


def measure(children: Children, binary: str, run_dir: str, dirs: int, rounds: int) -> str:
    results = {False: [], True: []}
    rows = []
    run_once(children, binary, run_dir, dirs, False, "warm-up")
    for index in range(rounds):
        for history in [False, True]:
            result = run_once(children, binary, run_dir, dirs, history, f"{index}-{history}")
            results[history].append(result)
            rows.append(
                [
                    str(index + 1),
                    "on" if history else "off",
                    str(result["lines"]),
                    f"{result['lines'] / result['seconds']:.0f}",
                    f"{result['engine_cpu']:.3f} s",
                    f"{result['engine_cpu'] / result['lines'] * 1e6:.1f} µs",
                    f"{result['process_cpu']:.2f} s",
                    "-" if result["recorded"] is None else str(result["recorded"]),
                ]
            )
    rate = stats.paired_ratio(
        [r["lines"] / r["seconds"] for r in results[True]], [r["lines"] / r["seconds"] for r in results[False]]
    )
    cpu = stats.paired_ratio(
        [r["engine_cpu"] / r["lines"] for r in results[True]], [r["engine_cpu"] / r["lines"] for r in results[False]]
    )
    process = stats.paired_ratio(
        [r["process_cpu"] / r["lines"] for r in results[True]], [r["process_cpu"] / r["lines"] for r in results[False]]
    )
    return (
        table(
            ["round", "history", "event lines", "events/s", "engine CPU", "per event", "daemon CPU", "rows recorded"],
            rows,
            {2, 3, 4, 5, 6, 7},
        )
        + f"\n\nWith history ÷ without (medians of per-round ratios): events/s {rate:.3f}, "
        f"engine-thread CPU per event {cpu:.3f}, daemon CPU (all threads) per event {process:.3f}.\n"
    )


def main() -> None:
    binary, run_dir = sys.argv[1], sys.argv[2]
    dirs = int(sys.argv[3]) if len(sys.argv) > 3 else 5000
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    os.makedirs(run_dir, exist_ok=True)
    print(measure(Children(), binary, run_dir, dirs, rounds))


if __name__ == "__main__":
    main()
