"""`scripts/bench live`: the daemon's start-up, burst throughput, change latency and idle cost.

Start-up alternates quotawatch run, watchman and inotifywait round by round after a warm-up
round; the other parts have no peer to alternate with and use their own anchors instead
(the producer without a watcher, the cost of one status round trip).
"""

import json
import os
import random
import shutil
import subprocess
import sys
import time

from . import churn, cleanup_bench, peers, procfs, quota_bench, stats, status_cost, watchers
from .children import Children
from .markdown import table
from .watchers import StatusClient, root_entry

TARGET_BYTES_PER_FILE = 60  # issue 32: scanning and watching
TARGET_P99_SECONDS = 0.050
TARGET_BURST_MICROSECONDS_PER_FILE = 15
TARGET_PRODUCER_SPEED = 0.75
WATCHMAN_BYTES_PER_ENTRY = 380


class LiveBench:
    def __init__(self, children: Children, binary: str, run_dir: str) -> None:
        self.children = children
        self.binary = binary
        self.run_dir = run_dir
        self.socket_path = os.path.join(run_dir, "qw.sock")
        self.watchman_dir = os.path.join(run_dir, "watchman")

    # --- starting and stopping ---------------------------------------------------------------

    def start(self, tool: str, root: str) -> watchers.Watcher:
        if tool == "quotawatch run":
            return watchers.start_quotawatch(self.children, self.binary, root, self.socket_path)
        if tool == "watchman":
            return watchers.start_watchman(self.children, root, self.watchman_dir)
        return watchers.start_inotifywait(self.children, root)

    def fresh_dir(self, name: str, subdirectories: int = 0) -> str:
        path = os.path.join(self.run_dir, name)
        self.remove(path)
        os.makedirs(path)
        for index in range(subdirectories):
            os.mkdir(os.path.join(path, f"d{index}"))
        return path

    @staticmethod
    def remove(path: str) -> None:
        if os.path.exists(path):
            subprocess.run(["rm", "-rf", "--", path], check=True)

    # --- (a) start-up ------------------------------------------------------------------------

    TOOLS = ["quotawatch run", "watchman", "inotifywait -r -m"]

    def startup_round(self, root: str) -> dict[str, dict]:
        results = {}
        for tool in self.TOOLS:
            watcher = self.start(tool, root)
            try:
                memory = procfs.status_kib(watcher.pid)
                results[tool] = {
                    "seconds": watcher.ready_seconds,
                    "rss": memory["VmRSS"],
                    "hwm": memory["VmHWM"],
                    "ready": watcher.ready_event,
                }
            finally:
                watchers.stop(self.children, watcher)
        return results

    def startup(self, trees: dict[str, str], runs: int, million_runs: int) -> str:
        empty_root = self.fresh_dir("empty")
        self.startup_round(empty_root)  # warm-up
        empty = [self.startup_round(empty_root) for _ in range(runs)]
        empty_rss = {tool: stats.median([r[tool]["rss"] for r in empty]) for tool in self.TOOLS}

        rows, target_rows = [], []
        for tree_name, root in trees.items():
            rounds = million_runs if tree_name.startswith("million") else runs
            self.startup_round(root)  # warm-up: the page cache and the dentry and inode caches
            results = [self.startup_round(root) for _ in range(rounds)]
            files = results[0]["quotawatch run"]["ready"]["files"]
            dirs = results[0]["quotawatch run"]["ready"]["dirs"]
            qw_times = [r["quotawatch run"]["seconds"] for r in results]
            for tool in self.TOOLS:
                times = [r[tool]["seconds"] for r in results]
                rss = stats.median([r[tool]["rss"] for r in results])
                hwm = stats.median([r[tool]["hwm"] for r in results])
                per_file = (rss - empty_rss[tool]) * 1024 / files
                rows.append(
                    [
                        f"{tree_name} ({files} files, {dirs} dirs)" if tool == self.TOOLS[0] else "",
                        f"`{tool}`",
                        stats.seconds(stats.median(times)),
                        f"{stats.seconds(min(times))} – {stats.seconds(max(times))}",
                        stats.ratio(stats.paired_ratio(times, qw_times)),
                        stats.mebibytes(rss),
                        stats.mebibytes(hwm),
                        f"{per_file:.0f} B",
                    ]
                )
                if tool == "quotawatch run":
                    target_rows.append(
                        [
                            tree_name,
                            "RSS per file after ready",
                            f"≤ {TARGET_BYTES_PER_FILE} B",
                            f"{per_file:.0f} B",
                            stats.verdict(per_file <= TARGET_BYTES_PER_FILE),
                        ]
                    )
        headers = ["tree", "watcher", "ready after", "range", "÷ quotawatch", "RSS at ready", "VmHWM", "RSS/file"]
        baseline = ", ".join(f"`{tool}` {stats.mebibytes(kib)}" for tool, kib in empty_rss.items())
        text = (
            f"##### (a) Start-up: process start to ready ({runs} alternating rounds"
            + (f", {million_runs} on the million tree" if any(name.startswith("million") for name in trees) else "")
            + ")\n\n"
            + table(headers, rows, {2, 3, 4, 5, 6, 7})
            + "\n\nReady: quotawatch's `ready` line; watchman's reply to a query after `watch` (it answers "
            "only after its crawl and a sync cookie); inotifywait's \"Watches established.\". RSS is "
            "VmRSS read at that moment; RSS/file is (RSS − RSS on an empty directory) ÷ files. "
            f"RSS on an empty directory: {baseline}.\n"
        )
        return text, target_rows

    # --- (b) burst throughput ----------------------------------------------------------------

    def produce(self, root: str, files: int, dirs: int, size: int) -> tuple[dict, float]:
        script = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "producer.py")
        process = self.children.start(
            [sys.executable, script, root, str(files), str(dirs), str(size)], stdout=subprocess.PIPE
        )
        output = process.stdout.read()
        process.stdout.close()
        code = self.children.wait(process)
        stopped = time.perf_counter()
        if code != 0:
            raise RuntimeError(f"the producer exited with status {code}")
        return json.loads(output), stopped

    def cli_status(self, root: str, sync: bool) -> tuple[dict, float]:
        argv = [self.binary, "status", root, "--socket", self.socket_path, "--json"]
        if sync:
            argv.append("--sync")
        started = time.perf_counter()
        output = subprocess.run(argv, check=True, capture_output=True, timeout=600).stdout
        return json.loads(output), time.perf_counter() - started

    def throughput(self, files: int, rounds: int, dirs: int = 4, size: int = 512) -> tuple[str, list]:
        queue = int(open("/proc/sys/fs/inotify/max_queued_events").read())
        rows, alone_rates, watched_rates, target_rows = [], [], [], []
        cpu_per_file = {tool: [] for tool in ["quotawatch run"] + peers.PEERS}
        peer_rates = {tool: [] for tool in peers.PEERS}
        # Nothing is deleted until the harness ends: on this VM (ext4 mounted with `discard`)
        # creating files right after removing many runs up to 20 times slower for a while.
        for index in range(rounds):
            root = self.fresh_dir(f"burst-alone-{index + 1}", dirs)
            alone, _ = self.produce(root, files, dirs, size)

            root = self.fresh_dir(f"burst-watched-{index + 1}", dirs)
            watcher = self.start("quotawatch run", root)
            try:
                anchor = stats.median([self.cli_status(root, sync=True)[1] for _ in range(3)])
                cpu_before = procfs.cpu_split(watcher.pid)
                produced, stopped = self.produce(root, files, dirs, size)
                document, _ = self.cli_status(root, sync=True)
                answered = time.perf_counter() - stopped
                user, system = (after - before for after, before in zip(procfs.cpu_split(watcher.pid), cpu_before))
                hwm = procfs.status_kib(watcher.pid)["VmHWM"]
            finally:
                events = watchers.stop(self.children, watcher)
            du = int(subprocess.run(["du", "-sB1", root], check=True, capture_output=True).stdout.split()[0])

            entry, engine = root_entry(document), document["engine"]
            exact = entry["files"] == files and entry["allocated"] == du
            alone_rate, watched_rate = files / alone["seconds"], files / produced["seconds"]
            alone_rates.append(alone_rate)
            watched_rates.append(watched_rate)
            cpu_per_file["quotawatch run"].append((user + system) / files)
            for tool, result in peers.burst_round(self, files, dirs, size, index).items():
                cpu_per_file[tool].append((result["user"] + result["system"]) / files)
                peer_rates[tool].append(files / result["seconds"])
            kinds = sorted({event.get("event", "?") for event in events})
            rows.append(
                [
                    str(index + 1),
                    f"{alone_rate:,.0f}/s",
                    f"{watched_rate:,.0f}/s",
                    str(engine["events"]),
                    str(engine["overflows"]),
                    str(engine["rescanned_dirs"]),
                    stats.milliseconds(answered),
                    stats.milliseconds(anchor),
                    f"{user + system:.2f} s ({user:.2f} + {system:.2f}), {(user + system) / files * 1e6:.0f} µs/file",
                    stats.mebibytes(hwm),
                    "yes" if exact else f"**no** (files {entry['files']}, allocated {entry['allocated']} vs du {du})",
                    ", ".join(kinds) or "–",
                ]
            )
            target_rows.append(
                [
                    f"burst {index + 1}",
                    f"overflows, {files} files",
                    "0",
                    str(engine["overflows"]),
                    stats.verdict(engine["overflows"] == 0),
                ]
            )
        headers = [
            "round",
            "producer alone",
            "producer, daemon watching",
            "events",
            "overflows",
            "rescanned dirs",
            "`status --sync` after stop",
            "idle `status --sync`",
            "daemon CPU (user + sys)",
            "daemon VmHWM",
            "exact",
            "engine events",
        ]
        slowdown = stats.paired_ratio(alone_rates, watched_rates)
        qw_cost = stats.median(cpu_per_file["quotawatch run"])
        peer_rows = []
        for tool, costs in cpu_per_file.items():
            rates = watched_rates if tool == "quotawatch run" else peer_rates[tool]
            peer_rows.append(
                [
                    f"`{tool}`",
                    f"{stats.median(costs) * 1e6:.1f} µs",
                    f"{min(costs) * 1e6:.1f} – {max(costs) * 1e6:.1f} µs",
                    stats.ratio_of(stats.median(costs), qw_cost),
                    stats.ratio(1 / stats.paired_ratio(alone_rates, rates)),
                ]
            )
        watchman_cost = stats.median(cpu_per_file["watchman"])
        target_rows += [
            [
                "burst",
                "daemon CPU per file",
                f"≤ {TARGET_BURST_MICROSECONDS_PER_FILE} µs",
                f"{qw_cost * 1e6:.1f} µs",
                stats.verdict(qw_cost * 1e6 <= TARGET_BURST_MICROSECONDS_PER_FILE),
            ],
            [
                "burst",
                "producer speed watched ÷ alone",
                f"≥ {TARGET_PRODUCER_SPEED}",
                f"{1 / slowdown:.2f}",
                stats.verdict(1 / slowdown >= TARGET_PRODUCER_SPEED),
            ],
            [
                "burst",
                "CPU per file ÷ watchman's",
                "< 1",
                stats.ratio_of(qw_cost, watchman_cost),
                stats.verdict(qw_cost < watchman_cost),
            ],
        ]
        text = (
            f"##### (b) Burst: {files} files of {size} B into {dirs} existing directories, one Python producer\n\n"
            + table(headers, rows, set(range(1, 10)))
            + f"\n\nfs.inotify.max_queued_events = {queue}. The producer ran alone, then with the daemon "
            "watching a fresh copy of the same empty directories, alternately; its rate with the daemon "
            f"watching is {1 / slowdown:.2f}× its rate alone (median of rounds). `status --sync` after stop "
            "is the wall time from the producer's exit to `quotawatch status --sync --json` returning; the "
            "idle figure is the same command on the idle daemon just before, its floor (process start, "
            "sync cookie, reply). Exact: the status's root files and allocated equal the file count and "
            "`du -sB1`.\n\n"
            + f"The same burst with each peer watching a fresh copy instead ({rounds} rounds, each after "
            "QuotaWatch's):\n\n"
            + table(["watcher", "CPU per file (median)", "range", "÷ quotawatch", "producer speed ÷ alone"], peer_rows, {1, 2, 3, 4})
            + "\n\nCPU is utime + stime from /proc/PID/stat until the watcher had caught up: QuotaWatch "
            "until `status --sync` returned, watchman until a query (which waits for its sync cookie) "
            "returned, inotifywait (printing to /dev/null) until its CPU time stopped growing for 0.25 s.\n"
        )
        return text, target_rows

    # --- (c) latency -------------------------------------------------------------------------

    # The writers the latency loop takes turns with. A file that is appended to and closed
    # gets IN_CLOSE_WRITE; one held open only IN_MODIFY. The "hot" file is written every
    # third iteration, a few ms apart, so it stays inside the daemon's settle window.
    LATENCY_MODES = ["append, close", "append, kept open", "append, kept open, hot file"]

    def latency(self, iterations: int, chunk: int = 4096, files_per_mode: int = 8) -> tuple[str, list]:
        root = self.fresh_dir("latency", 1)
        logs = os.path.join(root, "d0")
        paths = {
            mode: [os.path.join(logs, f"{tag}-{n}.log") for n in range(count)]
            for mode, tag, count in zip(self.LATENCY_MODES, ["closed", "held", "hot"], [files_per_mode, files_per_mode, 1])
        }
        for group in paths.values():
            for path in group:
                open(path, "wb").close()
        payload = b"L" * chunk
        chooser = random.Random(1)
        watcher = self.start("quotawatch run", root)
        descriptors = {
            path: os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
            for mode in self.LATENCY_MODES[1:]
            for path in paths[mode]
        }
        client = StatusClient(self.socket_path)
        samples = {mode: [] for mode in self.LATENCY_MODES}
        round_trips, polls, timeouts, unmeasurable = [], [], 0, 0
        try:
            for _ in range(20):  # warm-up: connections, the daemon's first replies
                client.status()
            for index in range(iterations):
                mode = self.LATENCY_MODES[index % len(self.LATENCY_MODES)]
                group = paths[mode]
                path = group[(index // len(self.LATENCY_MODES)) % len(group)]
                started = time.perf_counter()
                base = root_entry(client.status())["allocated"]
                round_trips.append(time.perf_counter() - started)

                blocks_before = os.stat(path).st_blocks
                written = time.perf_counter()
                if path in descriptors:
                    os.write(descriptors[path], payload)
                else:
                    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
                    os.write(descriptor, payload)
                    os.close(descriptor)
                grown = (os.stat(path).st_blocks - blocks_before) * 512
                if grown <= 0:
                    unmeasurable += 1  # nothing a tally could show; not a sample
                    continue
                expected = base + grown
                count = 0
                while True:
                    count += 1
                    if root_entry(client.status())["allocated"] >= expected:
                        samples[mode].append(time.perf_counter() - written)
                        break
                    if time.perf_counter() - written > 2.0:
                        timeouts += 1
                        break
                polls.append(count)
                # Random, so not in step with any timer of the daemon; short, so the hot file
                # is written again within 20 ms.
                time.sleep(chooser.uniform(0, 0.005))
        finally:
            for descriptor in descriptors.values():
                os.close(descriptor)
            watchers.stop(self.children, watcher)
            self.remove(root)

        rows, target_rows = [], []
        for mode, values in samples.items():
            p50, p99 = stats.percentile(values, 0.5), stats.percentile(values, 0.99)
            rows.append(
                [
                    f"{chunk} B {mode}",
                    str(len(values)),
                    stats.milliseconds(p50),
                    stats.milliseconds(stats.percentile(values, 0.9)),
                    stats.milliseconds(p99),
                    stats.milliseconds(max(values)),
                ]
            )
            target_rows.append(
                [
                    mode,
                    "change → status p99",
                    f"≤ {TARGET_P99_SECONDS * 1000:.0f} ms",
                    stats.milliseconds(p99),
                    stats.verdict(p99 <= TARGET_P99_SECONDS and timeouts == 0),
                ]
            )
        rows.append(
            [
                "anchor: one status round trip",
                str(len(round_trips)),
                stats.milliseconds(stats.percentile(round_trips, 0.5)),
                stats.milliseconds(stats.percentile(round_trips, 0.9)),
                stats.milliseconds(stats.percentile(round_trips, 0.99)),
                stats.milliseconds(max(round_trips)),
            ]
        )
        text = (
            f"##### (c) Latency: a write until a plain `status` shows it ({iterations} iterations)\n\n"
            + table(["change", "n", "p50", "p90", "p99", "max"], rows)
            + "\n\nFrom just before the write to the first `status` reply (non-sync, over the socket from "
            "Python) whose root allocated includes the new blocks; the client polls back to back, so the "
            f"resolution is one round trip. Modes take turns; {stats.median(polls):.0f} polls per change "
            f"(median, mean {sum(polls) / len(polls):.1f}); {timeouts} changes not seen within 2 s; {unmeasurable} "
            "writes that added no blocks.\n"
        )
        return text, target_rows

    # --- (d) idle ----------------------------------------------------------------------------

    def idle(self, tree_name: str, root: str, seconds: float) -> tuple[str, list]:
        running = []
        try:
            for tool in self.TOOLS:
                running.append(self.start(tool, root))
            time.sleep(1.0)  # let any post-ready work finish
            before = {w.name: (procfs.cpu_seconds(w.pid), procfs.context_switches(w.pid)) for w in running}
            time.sleep(seconds)
            rows, target_rows = [], []
            for watcher in running:
                cpu0, switches0 = before[watcher.name]
                cpu = procfs.cpu_seconds(watcher.pid) - cpu0
                wakeups = (procfs.context_switches(watcher.pid) - switches0) / seconds
                memory = procfs.status_kib(watcher.pid)
                rows.append(
                    [
                        f"`{watcher.name}`",
                        f"{cpu * 1000:.0f} ms",
                        f"{wakeups:.1f}",
                        str(procfs.thread_count(watcher.pid)),
                        stats.mebibytes(memory["VmRSS"]),
                    ]
                )
                if watcher.name == "quotawatch run":
                    target_rows.append(
                        [tree_name, f"idle CPU over {seconds:.0f} s", "≈ 0", f"{cpu * 1000:.0f} ms", stats.verdict(cpu <= 0.02)]
                    )
        finally:
            for watcher in running:
                watchers.stop(self.children, watcher)
        text = (
            f"##### (d) Idle: {seconds:.0f} s on {tree_name} with nothing changing, all three watching\n\n"
            + table(["watcher", "CPU (utime+stime)", "wake-ups/s", "threads", "RSS"], rows)
            + f"\n\nCPU from /proc/PID/stat ({procfs.CLOCK_TICKS} ticks/s), from 1 s after ready; wake-ups are "
            "context switches summed over the live threads. \"≈ 0\" is read as at most 20 ms.\n"
        )
        return text, target_rows


def run(
    children: Children,
    binary: str,
    run_dir: str,
    trees: dict[str, str],
    idle_tree: str,
    runs: int,
    million_runs: int,
    burst_files: int,
    burst_rounds: int,
    latency_iterations: int,
    idle_seconds: float,
    churn_cycles: int,
) -> str:
    bench = LiveBench(children, binary, run_dir)

    def phase(method, *arguments):
        before = procfs.MachineLoad()
        text, targets = method(*arguments)
        return text.rstrip("\n") + f" Meanwhile {procfs.MachineLoad().since(before)}.\n", targets

    startup_text, startup_targets = phase(bench.startup, trees, runs, million_runs)
    burst_text, burst_targets = phase(bench.throughput, burst_files, burst_rounds)
    latency_text, latency_targets = phase(bench.latency, latency_iterations)
    idle_text, idle_targets = phase(bench.idle, idle_tree, trees[idle_tree], idle_seconds)
    churn_text, churn_targets = phase(churn.memory, bench, churn_cycles)
    status_text, status_targets = phase(status_cost.measure, children, binary, run_dir, trees["grid-20k"])
    quota_text, quota_targets = phase(
        quota_bench.measure, children, binary, run_dir, bench.produce, latency_iterations, burst_files, burst_rounds
    )
    cleanup_text, cleanup_targets = phase(cleanup_bench.measure, children, binary, run_dir, burst_rounds)
    targets = table(
        ["where", "quotawatch run", "target", "measured", ""],
        startup_targets
        + burst_targets
        + latency_targets
        + idle_targets
        + churn_targets
        + status_targets
        + quota_targets
        + cleanup_targets,
        {3},
    )
    sections = [startup_text, burst_text, latency_text, idle_text, churn_text, status_text, quota_text, cleanup_text]
    return "\n".join(["#### Targets\n", targets + "\n", "#### Runs\n", *sections])
