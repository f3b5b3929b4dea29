"""`scripts/bench clean-large`: a `quotawatch clean --yes` of many files through the daemon.

ROOT/Library/Caches/com.example.bench holds FILES files of 4096 B in directories of 1000; a
daemon runs on ROOT with `--clean`, and `quotawatch clean ROOT --socket S --category caches
--yes --json` deletes them all through it (the daemon plans the selection from its live tree
and its cleanup runner removes each name through the deleter's checks, with an audit intent
synced before each group's unlinks). Measured: the command's wall time, start to exit, and
the daemon's engine thread at its worst meanwhile (the longest a `status` request waited,
asked back to back on another connection: the engine must never block on a cleaner). For
scale, `find DIR -type f -delete` removes a copy of the same tree, unwatched, right after.
"""

import json
import os
import socket
import subprocess
import threading
import time

from .children import Children
from . import stats
from .markdown import table
from .quota_bench import fresh_dir, start

FILE_BYTES = 4096
PER_DIRECTORY = 1000


def make_tree(cache: str, files: int) -> None:
    payload = b"C" * FILE_BYTES
    for index in range(files):
        directory = os.path.join(cache, f"d{index // PER_DIRECTORY:04d}")
        if index % PER_DIRECTORY == 0:
            os.makedirs(directory)
        with open(os.path.join(directory, f"f{index:07d}"), "wb") as file:
            file.write(payload)


def status_seconds(socket_path: str) -> float:
    started = time.perf_counter()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(socket_path)
        connection.sendall(b'{"command":"status","depth":0}\n')
        while connection.recv(1 << 16):
            pass
    return time.perf_counter() - started


def run(children: Children, binary: str, run_dir: str, files: int) -> str:
    root = fresh_dir(run_dir, "clean-large")
    cache = os.path.join(root, "Library", "Caches", "com.example.bench")
    make_tree(cache, files)
    state = fresh_dir(run_dir, "clean-large-state")
    socket_path = os.path.join(run_dir, "clean-large.sock")
    os.environ["STATE_DIRECTORY"] = state
    try:
        watcher = start(children, binary, root, socket_path, ["--clean"])
    finally:
        del os.environ["STATE_DIRECTORY"]
    worst = [0.0]
    done = threading.Event()

    def drain() -> None:
        # The daemon's event lines (a deletion event per name) must not fill the pipe: its
        # writer would wait, and so would its exit.
        while os.read(watcher.process.stdout.fileno(), 1 << 16):
            pass

    threading.Thread(target=drain, daemon=True).start()

    def poll() -> None:
        while not done.is_set():
            try:
                worst[0] = max(worst[0], status_seconds(socket_path))
            except OSError:
                return

    try:
        subprocess.run(["sync"], check=True)
        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
        started = time.perf_counter()
        clean = subprocess.run(
            [binary, "clean", root, "--socket", socket_path, "--category", "caches", "--yes", "--json"],
            capture_output=True,
            check=False,
        )
        seconds = time.perf_counter() - started
        done.set()
        poller.join(timeout=30)
    finally:
        subprocess.run(["kill", "-TERM", str(watcher.process.pid)], check=False)
        children.wait(watcher.process, timeout=30)
    if clean.returncode != 0:
        raise SystemExit(f"clean-large: clean --yes failed ({clean.returncode}): {clean.stderr.decode()[-2000:]}")
    output = clean.stdout.decode().strip()
    try:
        report = json.loads(output)
    except json.JSONDecodeError:
        report = json.loads(output.splitlines()[-1])
    removed = len(report.get("removed", []))
    if report.get("error") or removed != files:
        raise SystemExit(f"clean-large: removed {removed} of {files}; error: {report.get('error')}")
    copy = fresh_dir(run_dir, "clean-large-find")
    make_tree(os.path.join(copy, "c"), files)
    subprocess.run(["sync"], check=True)
    started = time.perf_counter()
    subprocess.run(["find", os.path.join(copy, "c"), "-type", "f", "-delete"], check=True)
    find_seconds = time.perf_counter() - started
    subprocess.run(["rm", "-rf", "--", root, copy, state], check=True)
    load = os.getloadavg()[0]
    rows = [
        [
            str(removed),
            f"{seconds:.2f} s",
            f"{removed / max(seconds, 1e-6):,.0f}/s",
            f"{find_seconds:.2f} s",
            f"{removed / max(find_seconds, 1e-6):,.0f}/s",
            f"{seconds / max(find_seconds, 1e-6):.2f}×",
            f"{worst[0] * 1000:.1f} ms",
        ]
    ]
    return (
        f"#### clean --yes of {files} files of {FILE_BYTES} B through the daemon vs find -delete\n\n"
        + table(
            ["removed", "clean --yes", "files/s", "find -delete", "files/s", "time ratio", "longest status wait"],
            rows,
            {0, 1, 2, 3, 4, 5, 6},
        )
        + f"\n\nOne round (load average {load:.1f} at its end). `clean --yes` is the command's wall time, "
        "start to exit: the daemon plans the selection from its live tree, its cleanup runner checks each name "
        "(walk from ROOT, inode, mount, open writers in /proc: one pass per group) and syncs the group's audit "
        "intents before its first unlink; the report carries every path. `find -type f -delete` removes a copy "
        "of the same tree, unwatched, right after. The longest status wait is the worst time a `status` request, "
        "asked back to back on another connection during the clean, took: how long the engine thread was busy "
        "at a stretch.\n"
        + "\n##### Targets\n\n"
        + table(
            ["case", "figure", "target", "measured", "verdict"],
            [
                [
                    f"clean --yes, {files} files",
                    "removed in one run through the daemon",
                    "all, in one go",
                    f"{removed} of {files}",
                    stats.verdict(removed == files),
                ]
            ],
            {3},
        )
        + "\n"
    )
