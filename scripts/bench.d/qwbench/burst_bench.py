"""`scripts/bench burst` (and the first table of `backends`): CPU per file of one burst, the
daemon on both backends against `inotifywait -r -m` and against the floor, in one run.

The floor (scripts/bench.d/floor.c) reads the same burst's kernel events with the daemon's
mask, on inotify and on fanotify, and `statx`es each file once at its close-after-write
event: what any watcher that reads sizes must pay.

Why one figure swung by up to 3× (2026-12-03): CPU per file of every watcher here is mostly
per wake-up (a read, a hand-off between threads, a poll), not per event; how many events one
wake-up finds depends on how fast the producer runs, and that is set by the load of the shared
machine (the same 20 000-file burst took 3 s and 44 s within ten minutes). When the tools ran
one after the other, each met another producer speed, so their ratio moved with it. For the
daemon a slow burst also let timers fire during it (each file's late re-stat 3 s after its last
write, its writeback re-stat 32 s after that), where a fast one left them to the final sync.

So (`together`, the default) each round is ONE burst watched by all five at once: the same
events, the same producer speed, the same moment of the machine; CPU is read from
/proc/PID/task/*/schedstat (nanoseconds on CPU, not 10 ms ticks), and the figure is the median
of the rounds' ratios, with their spread. `rotate` runs the tools one after the other in an
order that rotates from round to round, as before, for comparison.
"""

import json
import os
import shutil
import subprocess
import sys
import time

from . import procfs, stats
from .children import Children
from .lines import LineReader
from .markdown import table

READY_TIMEOUT = 1800.0
# Issue #32: ahead of every peer, and within 3× of the floor.
TARGET_PEER_RATIO = 1.0
TARGET_FLOOR_RATIO = 3.0
DAEMONS = ["fanotify", "inotify"]
TOOLS = ["fanotify", "inotify", "inotifywait -r -m", "floor inotify", "floor fanotify"]


def producer_path() -> str:
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "producer.py")


def floor_source() -> str:
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "floor.c")


def build_floor(run_dir: str) -> str:
    binary = os.path.join(run_dir, "floor")
    subprocess.run(["cc", "-O2", "-o", binary, floor_source()], check=True)
    return binary


def fresh(run_dir: str, name: str, dirs: int = 4) -> str:
    root = os.path.join(run_dir, name)
    shutil.rmtree(root, ignore_errors=True)
    for index in range(dirs):
        os.makedirs(os.path.join(root, f"d{index}"))
    return root


# Files a second the producer is held to (0: as fast as it can); set by run().
PACE = [0]


def produce(root: str, files: int) -> float:
    """The producer's own seconds for the burst."""
    argv = [sys.executable, producer_path(), root, str(files), "4", "512"]
    if PACE[0]:
        argv.append(str(PACE[0]))
    output = subprocess.run(argv, check=True, capture_output=True).stdout
    return float(json.loads(output)["seconds"])


def until_idle(pid: int) -> float:
    """CPU nanoseconds of `pid` once they stopped growing for a quarter second."""
    previous = procfs.cpu_nanoseconds(pid)
    while True:
        time.sleep(0.25)
        current = procfs.cpu_nanoseconds(pid)
        if current == previous:
            return current
        previous = current


def run_daemon(children: Children, binary: str, backend: str, root: str, run_dir: str, files: int):
    socket_path = os.path.join(run_dir, f"burst-{backend}.sock")
    argv = [binary, "run", root, "--socket", socket_path, "--events", "jsonl", "--backend", backend]
    process = children.start(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        LineReader(process.stdout.fileno()).read_until(lambda text: b'"event":"ready"' in text, READY_TIMEOUT)
        sync = [binary, "status", root, "--socket", socket_path, "--sync", "--json"]
        subprocess.run(sync, check=True, stdout=subprocess.DEVNULL, timeout=1800)
        before = procfs.cpu_nanoseconds(process.pid)
        seconds = produce(root, files)
        subprocess.run(sync, check=True, stdout=subprocess.DEVNULL, timeout=1800)
        return procfs.cpu_nanoseconds(process.pid) - before, seconds
    finally:
        children.stop(process)


def run_inotifywait(children: Children, root: str, files: int):
    process = children.start(["inotifywait", "-r", "-m", root], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    LineReader(process.stderr.fileno()).read_until(lambda text: b"Watches established" in text, READY_TIMEOUT)
    try:
        before = procfs.cpu_nanoseconds(process.pid)
        seconds = produce(root, files)
        return until_idle(process.pid) - before, seconds
    finally:
        children.stop(process)


def run_floor(children: Children, floor: str, backend: str, root: str, files: int):
    """Until the floor says it has stat'ed every file: under a filesystem mark, the rest of the
    machine's writes would keep it from ever going idle."""
    process = children.start([floor, backend, root, str(files)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    reader = LineReader(process.stdout.fileno())
    try:
        reader.read_until(lambda text: b"ready" in text, READY_TIMEOUT)
        before = procfs.cpu_nanoseconds(process.pid)
        seconds = produce(root, files)
        reader.read_until(lambda text: b"done" in text, READY_TIMEOUT)
        return procfs.cpu_nanoseconds(process.pid) - before, seconds
    finally:
        children.stop(process)


def together(children: Children, binary: str, floor: str, root: str, run_dir: str, files: int, index: int):
    """One burst watched by all five at once: the same events, at the same producer speed and
    the same moment of the shared machine. CPU nanoseconds per tool, and the producer's time.

    One daemon per root: one of the two watches ROOT, the other ROOT's parent, which holds
    nothing else (the two swap from round to round)."""
    started, cpu = {}, {}
    parent = os.path.dirname(root)
    watched = {"inotify": root, "fanotify": parent} if index % 2 == 0 else {"inotify": parent, "fanotify": root}
    try:
        for backend in DAEMONS:
            socket_path = os.path.join(run_dir, f"together-{backend}.sock")
            argv = [binary, "run", watched[backend], "--socket", socket_path, "--events", "jsonl", "--backend", backend]
            process = children.start(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            started[backend] = (process, LineReader(process.stdout.fileno()), socket_path)
            started[backend][1].read_until(lambda text: b'"event":"ready"' in text, READY_TIMEOUT)
        process = children.start(["inotifywait", "-r", "-m", root], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        started["inotifywait -r -m"] = (process, LineReader(process.stderr.fileno()), "")
        started["inotifywait -r -m"][1].read_until(lambda text: b"Watches established" in text, READY_TIMEOUT)
        for backend in DAEMONS:
            process = children.start([floor, backend, root, str(files)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            started[f"floor {backend}"] = (process, LineReader(process.stdout.fileno()), "")
            started[f"floor {backend}"][1].read_until(lambda text: b"ready" in text, READY_TIMEOUT)
        sync = {
            backend: [binary, "status", watched[backend], "--socket", started[backend][2], "--sync", "--json"]
            for backend in DAEMONS
        }
        for backend in DAEMONS:
            subprocess.run(sync[backend], check=True, stdout=subprocess.DEVNULL, timeout=1800)
        before = {tool: procfs.cpu_nanoseconds(started[tool][0].pid) for tool in TOOLS}
        seconds = produce(root, files)
        for backend in DAEMONS:
            subprocess.run(sync[backend], check=True, stdout=subprocess.DEVNULL, timeout=1800)
            cpu[backend] = procfs.cpu_nanoseconds(started[backend][0].pid) - before[backend]
        for backend in DAEMONS:
            tool = f"floor {backend}"
            started[tool][1].read_until(lambda text: b"done" in text, READY_TIMEOUT)
            cpu[tool] = procfs.cpu_nanoseconds(started[tool][0].pid) - before[tool]
        tool = "inotifywait -r -m"
        cpu[tool] = until_idle(started[tool][0].pid) - before[tool]
        return cpu, seconds
    finally:
        for process, _, _ in started.values():
            children.stop(process)


def one(children: Children, binary: str, floor: str, tool: str, root: str, run_dir: str, files: int):
    if tool in DAEMONS:
        return run_daemon(children, binary, tool, root, run_dir, files)
    if tool.startswith("inotifywait"):
        return run_inotifywait(children, root, files)
    return run_floor(children, floor, tool.split()[1], root, files)


def label(tool: str) -> str:
    if tool in DAEMONS:
        return f"`quotawatch run --backend {tool}`"
    if tool.startswith("floor"):
        return f"floor ({tool.split()[1]}: events + one `statx` per file)"
    return f"`{tool}`"


def spread(values: list[float]) -> str:
    return f"{min(values):.2f} – {max(values):.2f}"


def run(
    children: Children, binary: str, run_dir: str, files: int, rounds: int, method: str = "together", pace: int = 0
) -> tuple[str, list]:
    floor = build_floor(run_dir)
    PACE[0] = pace
    cpu = {tool: [] for tool in TOOLS}
    producer = {tool: [] for tool in TOOLS}
    for index in range(rounds):
        if method == "together":
            root = fresh(run_dir, os.path.join(f"burst-{index}-together", "root"))
            nanoseconds, seconds = together(children, binary, floor, root, run_dir, files, index)
            for tool in TOOLS:
                cpu[tool].append(nanoseconds[tool] / files / 1000)
                producer[tool].append(seconds)
            print(f"burst round {index + 1} together, producer {seconds:.1f} s: "
                  + ", ".join(f"{tool} {cpu[tool][-1]:.1f}" for tool in TOOLS), file=sys.stderr, flush=True)
            shutil.rmtree(os.path.dirname(root), ignore_errors=True)
            continue
        # Rotated, so that no tool always runs first (a warmer or colder page cache, a quieter
        # or busier minute of the shared machine).
        order = TOOLS[index % len(TOOLS) :] + TOOLS[: index % len(TOOLS)]
        for tool in order:
            root = fresh(run_dir, f"burst-{index}-{tool.replace(' ', '-')}")
            nanoseconds, seconds = one(children, binary, floor, tool, root, run_dir, files)
            cpu[tool].append(nanoseconds / files / 1000)
            producer[tool].append(seconds)
            print(f"burst round {index + 1} {tool}: {cpu[tool][-1]:.1f} µs/file, producer {seconds:.1f} s",
                  file=sys.stderr, flush=True)
            shutil.rmtree(root, ignore_errors=True)

    def ratios(tool: str, anchor: str) -> list[float]:
        return [a / b for a, b in zip(cpu[tool], cpu[anchor])]

    rows = []
    for tool in TOOLS:
        rows.append(
            [
                label(tool),
                f"{stats.median(cpu[tool]):.1f} µs",
                f"{min(cpu[tool]):.1f} – {max(cpu[tool]):.1f} µs",
                f"{stats.median(producer[tool]):.1f} s ({min(producer[tool]):.1f} – {max(producer[tool]):.1f})",
            ]
        )
    ratio_rows, targets = [], []
    for backend in DAEMONS:
        for anchor, target in (("inotifywait -r -m", TARGET_PEER_RATIO), (f"floor {backend}", TARGET_FLOOR_RATIO)):
            values = ratios(backend, anchor)
            median = stats.median(values)
            ratio_rows.append(
                [f"{backend} ÷ {label(anchor)}", stats.ratio(median), spread(values),
                 " ".join(f"{value:.2f}" for value in values)]
            )
            targets.append(
                ["burst", f"CPU per file ({backend}) ÷ {anchor}", f"≤ {target}", stats.ratio(median),
                 stats.verdict(median <= target)]
            )
    for backend in DAEMONS:
        values = ratios(f"floor {backend}", "inotifywait -r -m")
        ratio_rows.append([f"floor {backend} ÷ `inotifywait -r -m`", stats.ratio(stats.median(values)), spread(values),
                           " ".join(f"{value:.2f}" for value in values)])
    text = (
        f"##### Burst: CPU per file, {files} files of 512 B in 4 directories, {rounds} rounds, "
        + ("all five watching each burst at once" if method == "together" else "the tools' order rotating")
        + (f", the producer held to {pace} files/s" if pace else "")
        + "\n\n"
        + table(["watcher", "CPU per file (median)", "range", "producer's time (median, range)"], rows, {1, 2, 3})
        + "\n\n"
        + table(["ratio, per round", "median", "spread", "each round"], ratio_rows, {1, 2})
        + "\n\nCPU is the nanoseconds on CPU of every thread of the watcher (/proc/PID/task/*/schedstat) "
        "from before the burst until it had caught up: the daemon until `status --sync` returned, "
        "inotifywait (printing to /dev/null) until its CPU stopped growing for 0.25 s, the floor until it "
        "had stat'ed every file of the burst. "
        "The floor is scripts/bench.d/floor.c: the daemon's event mask, one `statx` per file at its "
        "close-after-write event, nothing else. A ratio is taken within a round (the tools ran back to "
        "back, or, `together`, watched the same burst at once), and the figure is the median of the "
        "rounds' ratios.\n"
    )
    return text, targets
