"""`scripts/bench backends`: the inotify and fanotify backends side by side, beside inotifywait.

Four comparisons, each in rounds that alternate the tools:
- CPU per file while one Python producer creates a burst of small files in ROOT, beside
  inotifywait and the floor (burst_bench);
- CPU spent while another process writes the same burst next to ROOT, on the same file system
  (fanotify's filesystem mark sees every one of those events and drops it by a table miss);
- kernel memory for the watches of a grid tree (/proc/slabinfo where the kernel keeps the
  caches apart, else /proc/meminfo's Slab);
- start-up and memory on a tree with more directories than fs.inotify.max_user_watches.
"""

import json
import os
import shutil
import subprocess
import sys
import time

from . import burst_bench, procfs, stats
from .children import Children, wait_until
from .lines import LineReader
from .markdown import table

READY_TIMEOUT = 1800.0
# The burst's ratios hold still to 20 % with this many rounds of a paced burst (burst_bench).
BURST_ROUNDS = 5
BURST_PACE = 1000
BURST_MOST_FILES = 20_000
# No watch per directory: ready sooner than inotify on a tree of many directories.
TARGET_START_UP_RATIO = 0.8


def producer_path() -> str:
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "producer.py")


def fresh(run_dir: str, name: str, dirs: int = 4) -> str:
    root = os.path.join(run_dir, name)
    shutil.rmtree(root, ignore_errors=True)
    for index in range(dirs):
        os.makedirs(os.path.join(root, f"d{index}"))
    return root


def produce(root: str, files: int) -> None:
    subprocess.run([sys.executable, producer_path(), root, str(files), "4", "512"], check=True, stdout=subprocess.DEVNULL)


def slab_kib() -> dict[str, int]:
    """Slab caches that hold fsnotify marks, in KiB, plus meminfo's Slab total."""
    result = {}
    try:
        with open("/proc/slabinfo") as slabinfo:
            for line in slabinfo:
                fields = line.split()
                if fields and ("inotify" in fields[0] or "fanotify" in fields[0] or "fsnotify" in fields[0]):
                    result[fields[0]] = int(fields[1]) * int(fields[3]) // 1024
    except OSError:
        pass
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("Slab:"):
                result["Slab (meminfo)"] = int(line.split()[1])
    return result


class Daemon:
    def __init__(self, children: Children, binary: str, backend: str, root: str, socket_path: str):
        self.children, self.binary, self.root, self.socket_path = children, binary, root, socket_path
        argv = [binary, "run", root, "--socket", socket_path, "--events", "jsonl", "--backend", backend]
        started = time.perf_counter()
        self.process = children.start(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        reader = LineReader(self.process.stdout.fileno())
        try:
            line = reader.read_until(lambda text: b'"event":"ready"' in text, READY_TIMEOUT)
        except EOFError:
            children.stop(self.process)
            raise RuntimeError(f"quotawatch run --backend {backend} exited before ready") from None
        self.ready_seconds = time.perf_counter() - started
        self.ready_line = line.decode(errors="replace")
        # The `degraded` event (watches short) follows `ready`; the status says it either way.
        status = subprocess.run(
            [binary, "status", root, "--socket", socket_path, "--json"], check=True, capture_output=True, timeout=600
        )
        self.degraded = bool(json.loads(status.stdout)["engine"].get("degraded"))

    def sync(self) -> None:
        subprocess.run(
            [self.binary, "status", self.root, "--socket", self.socket_path, "--sync", "--json"],
            check=True, stdout=subprocess.DEVNULL, timeout=1800,
        )

    def stop(self) -> None:
        self.children.stop(self.process)


def inotifywait_cpu(children: Children, root: str, work) -> float:
    process = children.start(["inotifywait", "-r", "-m", "-q", root], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # -q drops "Watches established."; wait for its watches by the fd count instead.
    wait_until(lambda: len(os.listdir(f"/proc/{process.pid}/fdinfo")) >= 4, 60)
    time.sleep(0.2)
    before = procfs.cpu_seconds(process.pid)
    work()
    previous = -1.0
    while True:
        now = procfs.cpu_seconds(process.pid)
        if now == previous:
            break
        previous = now
        time.sleep(0.25)
    children.stop(process)
    return previous - before


def quotawatch_cpu(children: Children, binary: str, backend: str, root: str, run_dir: str, work) -> float:
    daemon = Daemon(children, binary, backend, root, os.path.join(run_dir, f"{backend}.sock"))
    try:
        daemon.sync()
        before = procfs.cpu_seconds(daemon.process.pid)
        work()
        daemon.sync()
        return procfs.cpu_seconds(daemon.process.pid) - before
    finally:
        daemon.stop()


def outside(children: Children, binary: str, run_dir: str, files: int, rounds: int) -> str:
    """CPU per file written next to ROOT, on the same file system, while the watcher watches an
    empty ROOT."""
    tools = ["fanotify", "inotify", "inotifywait -r -m"]
    results = {tool: [] for tool in tools}
    for index in range(rounds):
        for tool in tools:
            root = fresh(run_dir, f"outside-{index}-{tool.split()[0]}")
            target = fresh(run_dir, f"outside-{index}-{tool.split()[0]}-writer")
            work = lambda target=target: produce(target, files)  # noqa: E731
            if tool.startswith("inotifywait"):
                cpu = inotifywait_cpu(children, root, work)
            else:
                cpu = quotawatch_cpu(children, binary, tool, root, run_dir, work)
            results[tool].append(cpu / files)
            shutil.rmtree(root, ignore_errors=True)
            shutil.rmtree(target, ignore_errors=True)
    rows = [
        [
            f"`{tool}`" if tool.startswith("inotifywait") else f"`quotawatch run --backend {tool}`",
            f"{stats.median(results[tool]) * 1e6:.2f} µs",
        ]
        for tool in tools
    ]
    return (
        f"##### CPU per file written outside ROOT, {files} files ({rounds} alternating rounds)\n\n"
        + table(["watcher", "CPU per file written outside ROOT"], rows, {1})
        + "\n\nThe same producer writes into a sibling directory on the same file system while the watcher "
        "watches an empty ROOT; fanotify's filesystem mark reports every one of those events and the daemon "
        "drops each by a table miss, inotify and inotifywait never see them. CPU as in the burst (utime + "
        "stime). `fsnotifywait --filesystem` is not measured: Debian bookworm's inotify-tools is 3.22.6, "
        "which has no fsnotifywait.\n"
    )


def kernel_memory(children: Children, binary: str, run_dir: str, grid: str, rounds: int) -> tuple[str, list]:
    rows = []
    ready: dict[str, list[float]] = {"inotify": [], "fanotify": []}
    # A cold first round would time the disk, not the backends.
    subprocess.run([binary, "scan", grid], check=True, stdout=subprocess.DEVNULL)
    for index in range(rounds):
        for backend in ["inotify", "fanotify"]:
            before = slab_kib()
            daemon = Daemon(children, binary, backend, grid, os.path.join(run_dir, f"mem-{backend}.sock"))
            after = slab_kib()
            daemon.stop()
            ready[backend].append(daemon.ready_seconds)
            growth = ", ".join(f"{name} {after.get(name, 0) - before.get(name, 0):+,} KiB" for name in sorted(after))
            rows.append([str(index + 1), backend, stats.seconds(daemon.ready_seconds), growth])
    start_up = stats.paired_ratio(ready["fanotify"], ready["inotify"])
    targets = [
        [
            "start-up",
            f"ready on `{os.path.basename(grid)}`, fanotify ÷ inotify",
            f"≤ {TARGET_START_UP_RATIO}",
            stats.ratio(start_up),
            stats.verdict(start_up <= TARGET_START_UP_RATIO),
        ]
    ]
    return (
        f"##### Kernel memory and start-up on `{os.path.basename(grid)}` ({rounds} alternating rounds)\n\n"
        + table(["round", "backend", "ready after", "slab growth at ready"], rows, {2})
        + "\n\nRead around the start-up: the caches of /proc/slabinfo whose name holds inotify, fanotify "
        "or fsnotify (absent where SLUB merges them into kmalloc caches), and /proc/meminfo's Slab, "
        "which moves with the rest of the machine too (other work ran). The start-up ratio is the "
        "median of each round's own ratio.\n"
    ), targets


def many_directories(children: Children, binary: str, run_dir: str, tree: str, directories: int) -> str:
    limit = int(open("/proc/sys/fs/inotify/max_user_watches").read())
    # Warm the dentry and inode caches first, so that neither backend pays the disk for the
    # other (the tree's inodes are 4 GiB, and the parts before this one evict them).
    subprocess.run([binary, "scan", tree], check=True, stdout=subprocess.DEVNULL)
    rows = []
    for backend in ["fanotify", "inotify"]:
        before = slab_kib().get("Slab (meminfo)", 0)
        try:
            daemon = Daemon(children, binary, backend, tree, os.path.join(run_dir, f"many-{backend}.sock"))
        except RuntimeError as error:
            rows.append([backend, "–", "–", "–", str(error)])
            continue
        rss = procfs.status_kib(daemon.process.pid)["VmRSS"]
        slab = slab_kib().get("Slab (meminfo)", 0) - before
        degraded = daemon.degraded
        daemon.stop()
        rows.append(
            [backend, stats.seconds(daemon.ready_seconds), stats.mebibytes(rss), f"{slab:+,} KiB", "degraded (polls)" if degraded else "watched"]
        )
    return (
        f"##### {directories:,} directories, fs.inotify.max_user_watches = {limit:,}\n\n"
        + table(["backend", "ready after", "RSS at ready", "Slab growth", "state"], rows, {1, 2, 3})
        + "\n\nOne round each, after a `quotawatch scan` of the tree has warmed the caches (the tree is "
        "built once and reused). The state is the status's `engine.degraded`. inotify cannot hold a watch per "
        "directory under the limit and says so (a degraded subtree is polled); fanotify needs one mark.\n"
    )


def run(children: Children, binary: str, run_dir: str, grid: str, many: str, many_dirs: int, files: int, rounds: int,
        with_burst: bool = True) -> str:
    parts, targets = [], []
    if with_burst:
        burst_text, targets = burst_bench.run(
            children, binary, run_dir, min(files, BURST_MOST_FILES), max(rounds, BURST_ROUNDS), pace=BURST_PACE
        )
        parts.append(burst_text)
    outside_text = outside(children, binary, run_dir, files, rounds)
    memory_text, start_up_targets = kernel_memory(children, binary, run_dir, grid, rounds)
    targets += start_up_targets
    parts += [outside_text, memory_text]
    if many:
        parts.append(many_directories(children, binary, run_dir, many, many_dirs))
    parts.append(
        "##### Targets\n\n" + table(["case", "figure", "target", "measured", "verdict"], targets, {3}) + "\n"
    )
    return "\n".join(parts)
