"""`scripts/bench roots`: many roots in one daemon against one daemon per root.

--roots small trees side by side (each --dirs directories of 4 files), watched either by one
`quotawatch run R1 R2 …` (one inotify instance or one fanotify group for all, issue #31) or by
as many `quotawatch run R` processes (what one `quotawatch@` instance per root runs), on each
backend, rounds alternating the four. For each: the total RSS of the daemons at ready, and
their total share of a core while a writer creates, writes and removes files in the last
root as fast as one Python process can for --seconds. History is off (--no-history) in both,
so the figures are the watching's.
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
MODES = ["one daemon", "one per root"]
READY_TIMEOUT = 600.0


def writer_path() -> str:
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "writer.py")


def make_roots(run_dir: str, count: int, dirs: int) -> list[str]:
    base = os.path.join(run_dir, "roots")
    shutil.rmtree(base, ignore_errors=True)
    roots = []
    for index in range(count):
        root = os.path.join(base, f"r{index:04d}")
        for directory in range(dirs):
            path = os.path.join(root, f"d{directory}")
            os.makedirs(path)
            for file in range(4):
                with open(os.path.join(path, f"f{file}"), "wb") as handle:
                    handle.write(b"x" * 2048)
        roots.append(root)
    return roots


class Fleet:
    """The daemons of one mode, started and ready."""

    def __init__(self, children: Children, binary: str, backend: str, mode: str, roots: list[str], run_dir: str):
        self.children, self.binary, self.roots = children, binary, roots
        self.sockets = [os.path.join(run_dir, f"s{index:04d}.sock") for index in range(len(roots))]
        common = ["--events", "jsonl", "--backend", backend, "--no-history"]
        started = time.perf_counter()
        if mode == "one daemon":
            argv = [binary, "run"]
            for root, socket in zip(roots, self.sockets):
                argv += [root, "--socket", socket]
            self.processes = [children.start(argv + common, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)]
            readies = len(roots)
        else:
            self.processes = [
                children.start(
                    [binary, "run", root, "--socket", socket] + common, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
                )
                for root, socket in zip(roots, self.sockets)
            ]
            readies = 1
        for process in self.processes:
            reader = LineReader(process.stdout.fileno())
            seen = 0
            while seen < readies:
                try:
                    reader.read_until(lambda text: b'"event":"ready"' in text, READY_TIMEOUT)
                except EOFError:
                    self.stop()
                    raise RuntimeError(f"quotawatch run --backend {backend} ({mode}) exited before ready") from None
                seen += 1
        self.ready_seconds = time.perf_counter() - started

    def sync(self, index: int) -> None:
        subprocess.run(
            [self.binary, "status", self.roots[index], "--socket", self.sockets[index], "--sync", "--json"],
            check=True, stdout=subprocess.DEVNULL, timeout=1800,
        )

    def rss_kib(self) -> int:
        return sum(procfs.status_kib(process.pid).get("VmRSS", 0) for process in self.processes)

    def cpu_seconds(self) -> float:
        return sum(procfs.cpu_seconds(process.pid) for process in self.processes)

    def stop(self) -> None:
        for process in self.processes:
            self.children.stop(process)


def one_round(children: Children, binary: str, backend: str, mode: str, roots: list[str], run_dir: str, seconds: float):
    fleet = Fleet(children, binary, backend, mode, roots, run_dir)
    try:
        for index in range(len(roots)):
            fleet.sync(index)
        ready_rss = fleet.rss_kib()
        before = fleet.cpu_seconds()
        started = time.monotonic()
        target = os.path.join(roots[-1], "writer")
        done = subprocess.run(
            [sys.executable, writer_path(), target, str(seconds)], check=True, capture_output=True, timeout=seconds + 600
        )
        files = json.loads(done.stdout)["files"]
        fleet.sync(len(roots) - 1)
        elapsed = time.monotonic() - started
        share = (fleet.cpu_seconds() - before) / elapsed
        shutil.rmtree(target, ignore_errors=True)
        return {"ready": fleet.ready_seconds, "rss": ready_rss, "share": share, "rate": files / elapsed,
                "after_rss": fleet.rss_kib()}
    finally:
        fleet.stop()


def run(children: Children, binary: str, run_dir: str, count: int, dirs: int, seconds: float, rounds: int) -> str:
    roots = make_roots(run_dir, count, dirs)
    results = {(backend, mode): [] for backend in BACKENDS for mode in MODES}
    for _ in range(rounds):
        for backend in BACKENDS:
            for mode in MODES:
                results[(backend, mode)].append(one_round(children, binary, backend, mode, roots, run_dir, seconds))
    rows = []
    for backend in BACKENDS:
        for mode in MODES:
            runs = results[(backend, mode)]
            rows.append([
                backend, mode,
                stats.seconds(stats.median([r["ready"] for r in runs])),
                stats.mebibytes(stats.median([r["rss"] for r in runs])),
                stats.mebibytes(stats.median([r["after_rss"] for r in runs])),
                f"{100 * stats.median([r['share'] for r in runs]):.1f} %",
                f"{stats.median([r['rate'] for r in runs]):.0f}",
            ])
    ratios = []
    for backend in BACKENDS:
        one, many = results[(backend, MODES[0])], results[(backend, MODES[1])]
        ratios.append([
            backend,
            stats.ratio(stats.median([a["rss"] / b["rss"] for a, b in zip(one, many)])),
            stats.ratio(stats.median([a["share"] / b["share"] for a, b in zip(one, many)])),
        ])
    text = (
        f"{count} roots of {dirs} directories × 4 files each; a writer creates, writes and removes 512-byte files in the "
        f"last root for {seconds:.0f} s; median of {rounds} rounds alternating the four cases.\n\n"
        + table(
            ["backend", "daemons", "all ready", "total RSS at ready", "total RSS after", "total CPU (share of a core)",
             "writer files/s"],
            rows, {2, 3, 4, 5, 6},
        )
        + "\n\nOne daemon against one per root (median of the rounds' ratios):\n\n"
        + table(["backend", "RSS ratio", "CPU ratio"], ratios, {1, 2})
        + "\n"
    )
    return text
