"""What scraping /metrics costs the engine: event latency and engine-thread CPU with a scraper
hammering the endpoint as fast as it can, against the same daemon with nobody scraping, in
alternating rounds.

A scrape reads the snapshot the exporter last published and renders it on libmicrohttpd's
thread; the engine only makes the snapshot once a second (and after events that change a
count). So the expected cost to the engine is nothing but the CPU the scraper and the
rendering take from a 2-core machine.

Run alone (the grid tree `scripts/bench live` builds; any tree works):

    cd scripts/bench.d && python3 -B -m qwbench.metrics_bench BIN RUN_DIR TREE [ROUNDS] [CHANGES]
"""

import json
import os
import re
import subprocess
import sys
import time

from . import procfs, stats, status_cost
from .children import Children
from .lines import LineReader
from .markdown import table

READY_TIMEOUT = 600.0

SCRAPER = r"""
import http.client, sys, signal
port = int(sys.argv[1]); count = 0; size = 0
def stop(*_):
    print(count, size, flush=True); sys.exit(0)
signal.signal(signal.SIGTERM, stop)
while True:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/metrics")
    size = len(connection.getresponse().read())
    connection.close()
    count += 1
"""


def process_cpu(pid: int) -> float:
    """utime + stime of every thread of the daemon, in seconds."""
    with open(f"/proc/{pid}/stat") as stat:
        text = stat.read()
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / procfs.CLOCK_TICKS


def start(children: Children, binary: str, root: str, socket_path: str, quota: str):
    argv = [binary, "run", root, "--socket", socket_path, "--events", "jsonl", "--quota", quota,
            "--metrics-listen", "127.0.0.1:0"]
    process = children.start(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    errors = LineReader(process.stderr.fileno())
    line = errors.read_until(lambda text: b"/metrics" in text, READY_TIMEOUT)
    port = int(re.search(rb":([0-9]+)/metrics", line).group(1))
    LineReader(process.stdout.fileno()).read_until(lambda text: b'"event":"ready"' in text, READY_TIMEOUT)
    return process, port


def one_window(pid: int, socket_path: str, leaf: str, changes: int) -> dict:
    engine_before, all_before = status_cost.main_thread_cpu(pid), process_cpu(pid)
    started = time.perf_counter()
    samples = status_cost.event_latency(socket_path, leaf, changes)
    elapsed = time.perf_counter() - started
    return {
        "p50": stats.percentile(samples, 0.5),
        "p99": stats.percentile(samples, 0.99),
        "engine": status_cost.main_thread_cpu(pid) - engine_before,
        "all": process_cpu(pid) - all_before,
        "seconds": elapsed,
        "changes": len(samples),
    }


def measure(children: Children, binary: str, run_dir: str, root: str, rounds: int = 5, changes: int = 100):
    socket_path = os.path.join(run_dir, "qw-metrics.sock")
    load_before = procfs.MachineLoad()
    process, port = start(children, binary, root, socket_path, "g0*=1GB")
    alone, scraped, scrapes = [], [], []
    leaf = os.path.join(root, "g000", "d00")
    try:
        one_window(process.pid, socket_path, leaf, 20)  # warm-up
        for _ in range(rounds):
            alone.append(one_window(process.pid, socket_path, leaf, changes))
            scraper = children.start([sys.executable, "-c", SCRAPER, str(port)], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
            time.sleep(0.5)  # let it reach full speed
            window = one_window(process.pid, socket_path, leaf, changes)
            scraper.terminate()
            count, size = (int(value) for value in scraper.stdout.read().split())
            children.wait(scraper)
            window["scrapes"] = count
            window["scrapes_per_second"] = count / (window["seconds"] + 0.5)
            window["bytes"] = size
            scraped.append(window)
    finally:
        children.stop(process)

    def per_change(window, key):
        return window[key] / max(1, window["changes"])

    rows = []
    for label, windows in [("nobody scraping", alone), ("a scraper hammering /metrics", scraped)]:
        rows.append([
            label, str(len(windows)), str(sum(window["changes"] for window in windows)),
            stats.milliseconds(stats.median([window["p50"] for window in windows])),
            stats.milliseconds(stats.median([window["p99"] for window in windows])),
            f"{stats.median([per_change(window, 'engine') for window in windows]) * 1e3:.2f} ms",
            f"{stats.median([per_change(window, 'all') for window in windows]) * 1e3:.2f} ms",
        ])
    ratios = {
        "p50": stats.paired_ratio([w["p50"] for w in scraped], [w["p50"] for w in alone]),
        "p99": stats.paired_ratio([w["p99"] for w in scraped], [w["p99"] for w in alone]),
        "engine": stats.paired_ratio([w["engine"] + 1e-9 for w in scraped], [w["engine"] + 1e-9 for w in alone]),
    }
    rate = stats.median([window["scrapes_per_second"] for window in scraped])
    size = scraped[-1]["bytes"]
    # The daemon's CPU beyond the engine thread's, per scrape: libmicrohttpd's thread rendering
    # (the scraper started 0.5 s before the window, so this slightly overstates it).
    render = stats.median([(w["all"] - w["engine"] - (a["all"] - a["engine"])) / w["scrapes"]
                           for w, a in zip(scraped, alone)])
    load = procfs.MachineLoad().since(load_before)
    text = (
        table(["while", "rounds", "changes", "latency p50", "latency p99", "engine CPU / change", "daemon CPU / change"],
              rows, {1, 2, 3, 4, 5, 6})
        + f"\n\nScraper: {rate:,.0f} scrapes/s of {size:,} B each, {render * 1e3:.2f} ms of the daemon's CPU "
        f"(off the engine thread) per scrape. Meanwhile {load}. Ratios scraped ÷ alone (median of the rounds' "
        f"own ratios): latency p50 {ratios['p50']:.2f}, p99 {ratios['p99']:.2f}, engine-thread CPU "
        f"{ratios['engine']:.2f}.\n"
    )
    return text, ratios


if __name__ == "__main__":
    binary, run_dir, root = sys.argv[1:4]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    changes = int(sys.argv[5]) if len(sys.argv) > 5 else 100
    children = Children()
    try:
        print(measure(children, binary, run_dir, root, rounds, changes)[0])
    finally:
        children.stop_all()
