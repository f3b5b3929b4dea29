"""The memory check of `scripts/bench live`: after a warm-up, many create/delete cycles of
directories, files, hard links and renames must leave the daemon's RSS where it was.

The producer is scripts/bench.d/churn.py; each cycle leaves the tree as it found it, so
any growth is the daemon's own. VmRSS is the sum of RssAnon, what the daemon allocated, and
RssFile, the pages of its binary and shared libraries (Foundation alone is most of it) that
happen to be resident, which come and go with the page cache of a shared machine. The
verdict is on VmRSS, as the target is stated; RssAnon beside it tells a leak from the page
cache.
"""

import json
import os
import subprocess
import sys
import time

from . import procfs, stats, watchers
from .markdown import table
from .watchers import root_entry

TARGET_GROWTH = 0.10
# The daemon returns free heap pages to the kernel once events have stopped for 1 s: memory
# is read after that, as it stands between storms.
QUIET_SECONDS = 1.5


def run_cycles(bench, root: str, cycles: int, first: int) -> float:
    script = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "churn.py")
    process = bench.children.start(
        [sys.executable, script, root, str(cycles), str(first)], stdout=subprocess.PIPE
    )
    output = process.stdout.read()
    process.stdout.close()
    if bench.children.wait(process) != 0:
        raise RuntimeError("the churn producer failed")
    return json.loads(output)["seconds"]


def memory(bench, cycles: int) -> tuple[str, list]:
    warm_up = max(1000, cycles // 10)
    root = bench.fresh_dir("churn")
    watcher = bench.start("quotawatch run", root)
    checkpoints = 4
    samples = []
    try:
        run_cycles(bench, root, warm_up, 0)
        bench.cli_status(root, sync=True)
        time.sleep(QUIET_SECONDS)
        start = procfs.status_kib(watcher.pid)
        cpu_before = procfs.cpu_seconds(watcher.pid)
        done, seconds = 0, 0.0
        for checkpoint in range(checkpoints):
            chunk = cycles * (checkpoint + 1) // checkpoints - done
            seconds += run_cycles(bench, root, chunk, warm_up + done)
            done += chunk
            document, _ = bench.cli_status(root, sync=True)
            time.sleep(QUIET_SECONDS)
            samples.append((done, procfs.status_kib(watcher.pid)))
        cpu = procfs.cpu_seconds(watcher.pid) - cpu_before
        hwm = procfs.status_kib(watcher.pid)["VmHWM"]
    finally:
        events = watchers.stop(bench.children, watcher)
    entry, engine = root_entry(document), document["engine"]
    def change(memory: dict, field: str) -> float:
        return (memory[field] - start[field]) / start[field]

    end = samples[-1][1]
    growth, total_growth = change(end, "RssAnon"), change(end, "VmRSS")
    exact = entry["files"] == 0 and entry["dirs"] == 0
    rows = [["after warm-up", "0", stats.mebibytes(start["RssAnon"]), "–", stats.mebibytes(start["RssFile"]), stats.mebibytes(start["VmRSS"]), "–"]]
    rows += [
        [
            f"checkpoint {n + 1}",
            f"{count:,}",
            stats.mebibytes(memory["RssAnon"]),
            f"{change(memory, 'RssAnon') * 100:+.1f} %",
            stats.mebibytes(memory["RssFile"]),
            stats.mebibytes(memory["VmRSS"]),
            f"{change(memory, 'VmRSS') * 100:+.1f} %",
        ]
        for n, (count, memory) in enumerate(samples)
    ]
    kinds = sorted({event.get("event", "?") for event in events})
    text = (
        f"##### (e) Memory under churn: {cycles:,} create/delete cycles after {warm_up:,} of warm-up\n\n"
        + table(["when", "cycles", "RssAnon", "vs warm-up", "RssFile", "VmRSS", "vs warm-up"], rows, {1, 2, 3, 4, 5, 6})
        + f"\n\nEach cycle (scripts/bench.d/churn.py): mkdir a directory and a subdirectory, a file of "
        "100 B, a hard link to it renamed once, the directory renamed, a file in the root made, "
        "renamed and deleted, then everything deleted; names never repeat. Memory read 1.5 s after "
        f"`status --sync` at each checkpoint (the daemon trims its heap after 1 s without events). Producer {seconds:.0f} s for the cycles, daemon CPU "
        f"{cpu:.1f} s ({cpu / cycles * 1e6:.0f} µs per cycle), {engine['events']:,} events, "
        f"{engine['overflows']} overflows, VmHWM {stats.mebibytes(hwm)}; tree empty at the end: "
        f"{'yes' if exact else '**no**'}; engine events: {', '.join(kinds) or '–'}.\n"
    )
    targets = [
        [
            f"churn, {cycles:,} cycles",
            "VmRSS growth after warm-up (RssAnon)",
            f"≤ {TARGET_GROWTH * 100:.0f} %",
            f"{total_growth * 100:+.1f} % ({growth * 100:+.1f} %)",
            stats.verdict(total_growth <= TARGET_GROWTH and exact),
        ]
    ]
    return text, targets
