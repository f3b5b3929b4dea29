"""`scripts/bench live`, part (e): what a status request costs the engine, and whether a client
asking ten times a second slows event handling.

The engine thread's CPU time comes from the daemon itself: every status reply carries
`engine.cpu_seconds`, read with CLOCK_THREAD_CPUTIME_ID on the engine thread as the reply is
made. On an idle daemon the difference over many requests, divided by their number, is what
one request costs the engine (selecting the rows and handing them over; encoding happens on
the connection's thread). The engine thread is the daemon's main thread, so
/proc/PID/task/PID/stat gives the same figure at 10 ms resolution, as a cross-check.
"""

import json
import os
import socket
import threading
import time

from . import procfs, stats, watchers
from .children import Children
from .markdown import table

TARGET_ENGINE_SECONDS = 0.002
TARGET_REPLY_BYTES = 10_000


def request(socket_path: str, fields: dict) -> bytes:
    """One request line with `fields`, the reply line without its newline."""
    line = json.dumps({"command": "status", **fields}).encode() + b"\n"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(socket_path)
        connection.sendall(line)
        chunks = []
        while chunk := connection.recv(1 << 20):
            chunks.append(chunk)
    return b"".join(chunks).rstrip(b"\n")


def reply_root_allocated(reply: bytes) -> int:
    document = json.loads(reply)
    if "error" in document:
        raise RuntimeError(f"the daemon answered: {document['error']}")
    for row in document["rows"]:
        if row[0] == ".":
            return row[1]
    raise KeyError("no root row in the reply")


def main_thread_cpu(pid: int) -> float:
    """utime + stime of the daemon's main thread (the engine thread), in seconds."""
    with open(f"/proc/{pid}/task/{pid}/stat") as stat:
        text = stat.read()
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / procfs.CLOCK_TICKS


SELECTIONS = [
    ("`status --depth 0` (root only)", {"depth": 0}, 500),
    ("`status --depth 1` (the default table)", {"depth": 1}, 500),
    ("`status --top 20`", {"top": 20}, 500),
    ("`status --path g000 --depth 1`", {"path": "g000", "depth": 1}, 500),
    ("`status --json` (the whole tree)", {}, 40),
]


def request_cost(socket_path: str, pid: int) -> tuple[list, list]:
    rows, targets = [], []
    for label, fields, count in SELECTIONS:
        for _ in range(5):  # warm-up
            request(socket_path, fields)
        first = json.loads(request(socket_path, fields))["engine"]
        proc_before = main_thread_cpu(pid)
        round_trips, size = [], 0
        for _ in range(count):
            started = time.perf_counter()
            reply = request(socket_path, fields)
            round_trips.append(time.perf_counter() - started)
            size = len(reply) + 1
        last = json.loads(reply)["engine"]
        proc_per_request = (main_thread_cpu(pid) - proc_before) / count
        answered = last["requests"] - first["requests"]
        per_request = (last["cpu_seconds"] - first["cpu_seconds"]) / answered
        rows.append(
            [
                label,
                str(answered),
                f"{per_request * 1e6:,.0f} µs",
                f"{proc_per_request * 1e6:,.0f} µs",
                f"{size:,} B",
                stats.milliseconds(stats.median(round_trips)),
            ]
        )
        if fields == {"depth": 1}:
            targets.append(
                ["grid-20k", "engine time per `status --depth 1`", "≤ 2 ms", f"{per_request * 1e3:.3f} ms",
                 stats.verdict(per_request <= TARGET_ENGINE_SECONDS)]
            )
            targets.append(
                ["grid-20k", "`status --depth 1` reply", "≤ 10 kB", f"{size:,} B", stats.verdict(size <= TARGET_REPLY_BYTES)]
            )
    return rows, targets


class Poller:
    """A client asking `fields` ten times a second on its own thread, as a live view would."""

    def __init__(self, socket_path: str, fields: dict, hertz: float = 10.0) -> None:
        self.socket_path, self.fields, self.period = socket_path, fields, 1.0 / hertz
        self.stopping = threading.Event()
        self.requests = 0
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        next_at = time.monotonic()
        while not self.stopping.is_set():
            request(self.socket_path, self.fields)
            self.requests += 1
            next_at += self.period
            self.stopping.wait(max(0.0, next_at - time.monotonic()))

    def __enter__(self) -> "Poller":
        self.thread.start()
        return self

    def __exit__(self, *_) -> None:
        self.stopping.set()
        self.thread.join()


def event_latency(socket_path: str, directory: str, iterations: int) -> list[float]:
    """From just before a 64 KiB append until a root-only status shows the new blocks."""
    samples = []
    path = os.path.join(directory, "latency.log")
    open(path, "wb").close()
    payload = b"L" * 65536
    for _ in range(iterations):
        base = reply_root_allocated(request(socket_path, {"depth": 0}))
        blocks_before = os.stat(path).st_blocks
        written = time.perf_counter()
        with open(path, "ab") as file:
            file.write(payload)
        grown = (os.stat(path).st_blocks - blocks_before) * 512
        if grown <= 0:
            continue
        while reply_root_allocated(request(socket_path, {"depth": 0})) < base + grown:
            if time.perf_counter() - written > 2.0:
                break
        samples.append(time.perf_counter() - written)
        time.sleep(0.02)
    os.unlink(path)
    return samples


def measure(children: Children, binary: str, run_dir: str, root: str, iterations: int = 150) -> tuple[str, list]:
    socket_path = os.path.join(run_dir, "qw-status.sock")
    watcher = watchers.start_quotawatch(children, binary, root, socket_path)
    try:
        cost_rows, targets = request_cost(socket_path, watcher.pid)
        latency_rows = []
        leaf = os.path.join(root, "g000", "d00")
        for label, fields in [("no other client", None), ("a client asking `--depth 1` at 10/s", {"depth": 1}),
                              ("a client asking for the whole tree at 10/s", {})]:
            if fields is None:
                samples = event_latency(socket_path, leaf, iterations)
                asked = 0
            else:
                with Poller(socket_path, fields) as poller:
                    samples = event_latency(socket_path, leaf, iterations)
                asked = poller.requests
            latency_rows.append(
                [label, str(len(samples)), str(asked), stats.milliseconds(stats.percentile(samples, 0.5)),
                 stats.milliseconds(stats.percentile(samples, 0.99)), stats.milliseconds(max(samples))]
            )
            if fields == {"depth": 1}:
                p99 = stats.percentile(samples, 0.99)
                targets.append(["grid-20k", "change → status p99, a client at 10/s", "≤ 50 ms",
                                stats.milliseconds(p99), stats.verdict(p99 <= 0.050)])
    finally:
        watchers.stop(children, watcher)
    text = (
        "##### (e) Status requests on the grid tree: engine time, reply size, and event latency under polling\n\n"
        + table(["request", "n", "engine CPU / request (reported)", "main thread / request (/proc)", "reply", "round trip p50"],
                cost_rows, {1, 2, 3, 4, 5})
        + "\n\nEngine CPU is the difference of the replies' `engine.cpu_seconds` (CLOCK_THREAD_CPUTIME_ID on "
        "the engine thread) over the requests, on an idle daemon; /proc is the main thread's utime+stime over the "
        f"same requests ({procfs.CLOCK_TICKS} ticks/s). Requests go over the socket from Python, one connection "
        "each; the reply is the bytes on the socket.\n\n"
        + table(["while", "changes", "requests by the other client", "p50", "p99", "max"], latency_rows, {1, 2, 3, 4, 5})
        + "\n\nA change is a 64 KiB append to a file in `g000/d00`, timed from just before the write to the "
        "first root-only status (`depth` 0) that shows its blocks, 20 ms apart.\n"
    )
    return text, targets
