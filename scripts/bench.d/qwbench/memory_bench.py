"""`scripts/bench memory`: the daemon's memory where names come and go, and in one huge directory.

(a) Unique names: files with names that never repeat are written and deleted in one
directory (scripts/bench.d/names.py). The tree is empty at every checkpoint, so RssAnon, what
the daemon allocated, must stay where it was after the warm-up: every name ever seen must
not leave something behind.

(b) One huge directory: RSS at ready on a directory holding N empty files, less RSS on an
empty directory, per file, in alternating rounds; and the same once the daemon has trimmed
its heap.
"""

import json
import os
import subprocess
import sys
import time

from . import procfs, stats, watchers
from .markdown import table

TARGET_GROWTH_KIB = 4 * 1024
TARGET_BYTES_PER_FILE = 60  # issue 32: scanning and watching
# The daemon returns free heap pages to the kernel once events have stopped for 1 s.
QUIET_SECONDS = 1.5
CHECKPOINTS = 10


def run_names(bench, directory: str, count: int, first: int) -> float:
    script = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "names.py")
    process = bench.children.start([sys.executable, script, directory, str(count), str(first)], stdout=subprocess.PIPE)
    output = process.stdout.read()
    process.stdout.close()
    if bench.children.wait(process) != 0:
        raise RuntimeError("the unique-name producer failed")
    return json.loads(output)["seconds"]


def unique_names(bench, names: int) -> tuple[str, list]:
    warm_up = max(1000, names // 20)
    root = bench.fresh_dir("names")
    directory = os.path.join(root, "tmp")
    os.mkdir(directory)
    watcher = bench.start("quotawatch run", root)
    samples = []
    try:
        run_names(bench, directory, warm_up, 0)
        bench.cli_status(root, sync=True)
        time.sleep(QUIET_SECONDS)
        start = procfs.status_kib(watcher.pid)
        done, seconds = 0, 0.0
        for checkpoint in range(CHECKPOINTS):
            chunk = names * (checkpoint + 1) // CHECKPOINTS - done
            seconds += run_names(bench, directory, chunk, warm_up + done)
            done += chunk
            document, _ = bench.cli_status(root, sync=True)
            time.sleep(QUIET_SECONDS)
            samples.append((done, procfs.status_kib(watcher.pid)))
        hwm = procfs.status_kib(watcher.pid)["VmHWM"]
    finally:
        events = watchers.stop(bench.children, watcher)
    entry, engine = watchers.root_entry(document), document["engine"]
    rows = [["after warm-up", "0", stats.mebibytes(start["RssAnon"]), "–", stats.mebibytes(start["VmRSS"])]]
    for count, memory in samples:
        growth = memory["RssAnon"] - start["RssAnon"]
        rows.append([f"{count:,} names", f"{count:,}", stats.mebibytes(memory["RssAnon"]), f"{growth / 1024:+.2f} MiB", stats.mebibytes(memory["VmRSS"])])
    growths = [memory["RssAnon"] - start["RssAnon"] for _, memory in samples]
    worst = max(growths)
    exact = entry["files"] == 0
    kinds = sorted({event.get("event", "?") for event in events})
    text = (
        f"##### Unique names: {names:,} files written and deleted in one directory after {warm_up:,} of warm-up\n\n"
        + table(["when", "names", "RssAnon", "vs warm-up", "VmRSS"], rows, {1, 2, 3, 4})
        + f"\n\nEach name (scripts/bench.d/names.py) is `CFNetworkDownload_%08x.tmp`, never repeated: "
        f"created, 100 B written, closed, deleted. Memory read 1.5 s after `status --sync` at each "
        f"checkpoint. Producer {seconds:.0f} s ({names / seconds:,.0f} names/s), {engine['events']:,} events, "
        f"{engine['overflows']} overflows, VmHWM {stats.mebibytes(hwm)}; largest RssAnon growth "
        f"{worst / 1024:+.2f} MiB ({worst * 1024 / names:.2f} B per name); tree empty at the end: "
        f"{'yes' if exact else '**no**'}; engine events: {', '.join(kinds) or '–'}.\n"
    )
    targets = [[
        f"unique names, {names:,}",
        "largest RssAnon growth after warm-up",
        f"≤ {TARGET_GROWTH_KIB // 1024} MiB",
        f"{worst / 1024:+.2f} MiB",
        stats.verdict(worst <= TARGET_GROWTH_KIB and exact and engine["overflows"] == 0),
    ]]
    return text, targets


def make_huge_directory(work: str, files: int) -> str:
    """`files` empty files in one directory, built once: the stamp, written last, says it is whole."""
    root = os.path.join(work, f"huge-{files}")
    stamp = root + ".stamp"
    if os.path.isdir(root) and os.path.exists(stamp):
        return root
    subprocess.run(["rm", "-rf", "--", root, stamp], check=True)
    directory = os.path.join(root, "one")
    os.makedirs(directory)
    print(f"==> {files:,} empty files in {directory}", file=sys.stderr, flush=True)
    for number in range(files):
        os.close(os.open(os.path.join(directory, f"file{number:07d}"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    with open(stamp, "w") as handle:
        handle.write(f"{files}\n")
    return root


def ready_memory(bench, root: str) -> tuple[dict, dict, float]:
    """Memory at ready, and after an event and a quiet second (the daemon trims its heap then)."""
    watcher = bench.start("quotawatch run", root)
    try:
        at_ready = procfs.status_kib(watcher.pid)
        poke = os.path.join(root, ".bench-poke")
        os.close(os.open(poke, os.O_WRONLY | os.O_CREAT, 0o644))
        os.unlink(poke)
        bench.cli_status(root, sync=True)
        time.sleep(QUIET_SECONDS)
        trimmed = procfs.status_kib(watcher.pid)
    finally:
        watchers.stop(bench.children, watcher)
    return at_ready, trimmed, watcher.ready_seconds


def set_mtimes(root: str, seconds_ago: float) -> None:
    """Every file of the huge directory modified `seconds_ago`: inside the daemon's 35 s
    writeback window (0) each is owed two re-stats, outside it none."""
    directory = os.path.join(root, "one")
    moment = time.time() - seconds_ago
    for name in os.listdir(directory):
        os.utime(os.path.join(directory, name), (moment, moment))


def huge_directory(bench, work: str, files: int, runs: int) -> tuple[str, list]:
    root = make_huge_directory(work, files)
    empty = bench.fresh_dir("empty-huge")
    set_mtimes(root, 3600)
    ready_memory(bench, root)  # warm-up: dentries and inodes
    cases = {"written an hour ago": 3600, "written just now": 0}
    per_file = {case: {"VmRSS": [], "RssAnon": [], "trimmed": [], "VmHWM": []} for case in cases}
    seconds = []
    for _ in range(runs):
        for case, age in cases.items():
            base, base_trimmed, _ = ready_memory(bench, empty)
            set_mtimes(root, age)
            memory, trimmed, ready = ready_memory(bench, root)
            if age:
                seconds.append(ready)
            for field in ("VmRSS", "RssAnon", "VmHWM"):
                per_file[case][field].append((memory[field] - base[field]) * 1024 / files)
            per_file[case]["trimmed"].append((trimmed["RssAnon"] - base_trimmed["RssAnon"]) * 1024 / files)

    def cell(values: list[float]) -> str:
        return f"{stats.median(values):.0f} B ({min(values):.0f}–{max(values):.0f})"

    labels = [
        ("VmRSS", "VmRSS at ready"),
        ("RssAnon", "RssAnon at ready"),
        ("trimmed", "RssAnon 1.5 s after an event and a sync"),
        ("VmHWM", "VmHWM (peak during the crawl)"),
    ]
    rows = [[label] + [cell(per_file[case][field]) for case in cases] for field, label in labels]
    text = (
        f"##### One huge directory: {files:,} empty files in one directory, {runs} rounds\n\n"
        + table(["per file (tree − empty directory), median (range)"] + [f"files {case}" for case in cases], rows)
        + f"\n\nReady in {stats.seconds(stats.median(seconds))} (median, old files). Each round starts the "
        "daemon on an empty directory, then on the huge one, for each case, and reads /proc/PID/status "
        "at `ready`, then after one event, `status --sync` and 1.5 s of quiet. Files written within "
        "35 s are each owed a late and a writeback re-stat, which the sync runs at once.\n"
    )
    targets = [
        [
            f"one directory, {files:,} files {case}",
            "daemon RSS per file after ready",
            f"≤ {TARGET_BYTES_PER_FILE} B",
            f"{stats.median(per_file[case]['VmRSS']):.0f} B",
            stats.verdict(stats.median(per_file[case]["VmRSS"]) <= TARGET_BYTES_PER_FILE),
        ]
        for case in cases
    ]
    return text, targets


def run(children, binary: str, run_dir: str, work: str, names: int, huge_files: int, runs: int) -> str:
    from .live import LiveBench

    bench = LiveBench(children, binary, run_dir)
    load = procfs.MachineLoad()
    names_text, names_targets = unique_names(bench, names)
    names_load = procfs.MachineLoad().since(load)
    load = procfs.MachineLoad()
    huge_text, huge_targets = huge_directory(bench, work, huge_files, runs)
    huge_load = procfs.MachineLoad().since(load)
    summary = table(["case", "measure", "target", "result", "verdict"], names_targets + huge_targets, set())
    return (
        "#### Memory\n\n" + summary + "\n\n" + names_text + f"\nMeanwhile {names_load}.\n\n"
        + huge_text + f"\nMeanwhile {huge_load}.\n"
    )
