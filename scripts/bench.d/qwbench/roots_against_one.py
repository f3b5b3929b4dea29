"""`scripts/bench roots --against-one-root`: many small roots in one daemon against one root
holding the same files (issue #31).

--roots directories of --files-per-root files each (20 files a directory) sit side by side
under one parent. One `quotawatch run R1 R2 … RN` serves them as N roots; one `quotawatch run
PARENT` serves the very same files as one root. On each backend, rounds alternating the two:
the time from launch to the last `ready`, RSS at ready, and the daemon's CPU per file while a
writer creates, writes and removes 512-byte files in the last root for --seconds (the same
directory in both cases), up to the `status --sync` that shows its last file. History is off
(--no-history) in both, so the figures are the watching's.

Targets: start-up ≤ 1.2× the single root's; RSS ≤ 1.2× the single root's plus 64 KiB per root;
CPU per file equal within noise (here: the median ratio ≤ 1.10).
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

BACKENDS = ["inotify", "fanotify"]
MODES = ["N roots", "one root"]
READY_TIMEOUT = 1800.0
FILES_PER_DIRECTORY = 20
PER_ROOT_ALLOWANCE_KIB = 64


def writer_path() -> str:
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "writer.py")


def make_tree(trees_dir: str, count: int, files_per_root: int) -> tuple[str, list[str]]:
    """The parent and its roots, built once and reused (the stamp, written last, names the recipe)."""
    parent = os.path.join(trees_dir, f"roots-{count}x{files_per_root}")
    stamp, recipe = parent + ".stamp", f"{count} roots x {files_per_root} files of 100 bytes, 20 a directory"
    roots = [os.path.join(parent, f"r{index:04d}") for index in range(count)]
    if os.path.isdir(parent) and os.path.isfile(stamp) and open(stamp).read() == recipe:
        return parent, roots
    shutil.rmtree(parent, ignore_errors=True)
    print(f"==> {recipe} (into {parent})", file=sys.stderr, flush=True)
    payload = b"x" * 100
    for root in roots:
        for file in range(files_per_root):
            directory = os.path.join(root, f"d{file // FILES_PER_DIRECTORY}")
            if file % FILES_PER_DIRECTORY == 0:
                os.makedirs(directory)
            with open(os.path.join(directory, f"f{file % FILES_PER_DIRECTORY}"), "wb") as handle:
                handle.write(payload)
    subprocess.run(["sync"], check=True)
    with open(stamp, "w") as handle:
        handle.write(recipe)
    return parent, roots


class Daemon:
    """One `quotawatch run` over `roots`, each with its own socket, started and ready."""

    def __init__(self, children: Children, binary: str, backend: str, roots: list[str], run_dir: str):
        self.children, self.binary, self.roots = children, binary, roots
        self.sockets = [os.path.join(run_dir, f"s{index:04d}.sock") for index in range(len(roots))]
        argv = [binary, "run"]
        for root, socket in zip(roots, self.sockets):
            argv += [root, "--socket", socket]
        argv += ["--events", "jsonl", "--backend", backend, "--no-history"]
        started = time.perf_counter()
        self.process = children.start(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        reader = LineReader(self.process.stdout.fileno())
        for _ in roots:
            try:
                reader.read_until(lambda text: b'"event":"ready"' in text, READY_TIMEOUT)
            except EOFError:
                self.stop()
                raise RuntimeError(f"quotawatch run --backend {backend} ({len(roots)} roots) exited before ready") from None
        self.ready_seconds = time.perf_counter() - started
        # The work of starting, which the wall time above mixes with what else the machine runs.
        self.ready_cpu = procfs.cpu_seconds(self.process.pid)

    def sync(self, index: int) -> None:
        subprocess.run(
            [self.binary, "status", self.roots[index], "--socket", self.sockets[index], "--sync", "--json"],
            check=True, stdout=subprocess.DEVNULL, timeout=1800,
        )

    def stop(self) -> None:
        self.children.stop(self.process)


def one_round(children: Children, binary: str, backend: str, roots: list[str], writer_dir: str, run_dir: str,
              seconds: float) -> dict:
    daemon = Daemon(children, binary, backend, roots, run_dir)
    try:
        pid = daemon.process.pid
        ready_rss = procfs.status_kib(pid).get("VmRSS", 0)
        threads = len(os.listdir(f"/proc/{pid}/task"))
        daemon.sync(len(roots) - 1)
        before = procfs.cpu_seconds(pid)
        done = subprocess.run(
            [sys.executable, writer_path(), writer_dir, str(seconds)], check=True, capture_output=True,
            timeout=seconds + 600,
        )
        files = json.loads(done.stdout)["files"]
        daemon.sync(len(roots) - 1)
        per_file = (procfs.cpu_seconds(pid) - before) / files
        shutil.rmtree(writer_dir, ignore_errors=True)
        daemon.sync(len(roots) - 1)
        return {"ready": daemon.ready_seconds, "ready_cpu": daemon.ready_cpu, "rss": ready_rss, "per_file": per_file,
                "threads": threads}
    finally:
        daemon.stop()


def run(children: Children, binary: str, run_dir: str, trees_dir: str, count: int, files_per_root: int,
        seconds: float, rounds: int) -> str:
    parent, roots = make_tree(trees_dir, count, files_per_root)
    writer_dir = os.path.join(roots[-1], "writer")
    shutil.rmtree(writer_dir, ignore_errors=True)
    cases = {MODES[0]: roots, MODES[1]: [parent]}
    results = {(backend, mode): [] for backend in BACKENDS for mode in MODES}
    for _ in range(rounds):
        for backend in BACKENDS:
            for mode in MODES:
                results[(backend, mode)].append(
                    one_round(children, binary, backend, cases[mode], writer_dir, run_dir, seconds))
    rows, ratios = [], []
    for backend in BACKENDS:
        for mode in MODES:
            runs = results[(backend, mode)]
            rows.append([
                backend, f"{count} roots" if mode == MODES[0] else "one root", str(runs[0]["threads"]),
                stats.seconds(stats.median([r["ready"] for r in runs])),
                stats.seconds(stats.median([r["ready_cpu"] for r in runs])),
                stats.mebibytes(stats.median([r["rss"] for r in runs])),
                f"{stats.median([r['per_file'] for r in runs]) * 1e6:.1f} µs",
            ])
        many, one = results[(backend, MODES[0])], results[(backend, MODES[1])]
        start_ratio = stats.paired_ratio([r["ready"] for r in many], [r["ready"] for r in one])
        start_cpu_ratio = stats.paired_ratio([r["ready_cpu"] for r in many], [r["ready_cpu"] for r in one])
        rss_ratio = stats.paired_ratio([r["rss"] for r in many], [r["rss"] for r in one])
        allowed_rss = [1.2 * r["rss"] + PER_ROOT_ALLOWANCE_KIB * count for r in one]
        rss_room = stats.paired_ratio([r["rss"] for r in many], allowed_rss)
        cpu_ratios = sorted(a["per_file"] / b["per_file"] for a, b in zip(many, one))
        cpu_ratio = stats.median(cpu_ratios)
        ratios.append([
            backend,
            f"{stats.ratio(start_ratio)} ({stats.verdict(start_ratio <= 1.2)})",
            stats.ratio(start_cpu_ratio),
            f"{stats.ratio(rss_ratio)}; ÷ allowance {stats.ratio(rss_room)} ({stats.verdict(rss_room <= 1.0)})",
            f"{stats.ratio(cpu_ratio)} [{stats.ratio(cpu_ratios[0])}–{stats.ratio(cpu_ratios[-1])}]"
            f" ({stats.verdict(cpu_ratio <= 1.10)})",
        ])
    return (
        f"{count} roots of {files_per_root} files each ({FILES_PER_DIRECTORY} a directory) served by one "
        f"`quotawatch run R1 … R{count}`, against one `quotawatch run PARENT` over the same "
        f"{count * files_per_root:,} files; a writer creates, writes and removes 512-byte files in the last root "
        f"for {seconds:.0f} s; median of {rounds} rounds alternating the cases.\n\n"
        + table(["backend", "daemon", "threads", "all ready", "CPU to ready", "RSS at ready", "CPU per file written"],
                rows, {2, 3, 4, 5, 6})
        + "\n\nN roots against one root (median of the rounds' ratios; [min–max]). Targets: start-up ≤ 1.2; RSS ≤ "
        f"1.2× the one root's + {PER_ROOT_ALLOWANCE_KIB} KiB per root (the allowance); CPU per file equal within "
        "noise (≤ 1.10). CPU to ready (utime + stime at the last `ready`, the whole process) is the start-up's work, "
        "which the wall time mixes with the rest of a shared machine's load:\n\n"
        + table(["backend", "start-up ratio", "CPU to ready ratio", "RSS ratio", "CPU per file ratio"], ratios)
        + "\n"
    )
