"""The `watch` view's cost to the engine, and whether a flood of files makes it fall behind.

    python3 scripts/bench.d/watch_bench.py --binary .build/release/quotawatch [--files 100000]
        [--children 1000] [--idle-seconds 20] [--rounds 3] [--work DIR]

Two set-ups on the same tree, alternated over the rounds:

  run     `quotawatch run ROOT` alone: the anchor.
  watch   `quotawatch watch ROOT` on a terminal (a detached tmux window of 120x40), showing
          the root, which has CHILDREN subdirectories: every 200 ms while the tree changes (once
          a second while it does not) the engine copies and sorts their tallies for the screen.

For each it measures, from the engine's own CPU clock (`engine.cpu_seconds` of a status reply):
  - idle: engine CPU per second while nothing changes; the difference between the two is what
    the view costs an idle engine (one frame a second, and four turns that find nothing new);
  - flood: FILES empty files created back to back in one new directory by one Python process;
    the writer's time, the engine CPU it cost, and the lag from the writer's last file to a
    `status --sync` reply (the engine caught up) and, for watch, to the screen showing the
    directory's final file count (capture-pane every 20 ms: the view caught up).

Prints a Markdown section. Needs tmux.
"""

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def request(socket_path: str, fields: dict, timeout: float = 120) -> dict:
    line = json.dumps(fields).encode() + b"\n"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(timeout)
        connection.connect(socket_path)
        connection.sendall(line)
        chunks = []
        while chunk := connection.recv(1 << 20):
            chunks.append(chunk)
    document = json.loads(b"".join(chunks))
    if "error" in document and len(document) == 1:
        raise RuntimeError(document["error"])
    return document


def engine_cpu(socket_path: str) -> float:
    return request(socket_path, {"command": "status", "depth": 0})["engine"]["cpu_seconds"]


def process_cpu(pid: int) -> float:
    """utime + stime of every thread of `pid`, in seconds."""
    with open(f"/proc/{pid}/stat") as stat:
        text = stat.read()
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_for_socket(socket_path: str, deadline: float) -> None:
    while time.monotonic() < deadline:
        try:
            engine_cpu(socket_path)
            return
        except (OSError, RuntimeError, KeyError, json.JSONDecodeError):
            time.sleep(0.05)
    raise RuntimeError(f"nothing answered on {socket_path}")


class Tmux:
    def __init__(self, work: str) -> None:
        self.base = ["tmux", "-S", os.path.join(work, "tmux.sock"), "-f", "/dev/null"]

    def run(self, *arguments: str) -> str:
        return subprocess.run(self.base + list(arguments), check=True, capture_output=True, text=True).stdout

    def start(self, command: str) -> None:
        self.run("new-session", "-d", "-s", "bench", "-x", "120", "-y", "40", command)

    def capture(self) -> str:
        return self.run("capture-pane", "-p", "-t", "bench")

    def pane_pid(self) -> int:
        return int(self.run("display-message", "-p", "-t", "bench", "#{pane_pid}").strip())

    def kill(self) -> None:
        subprocess.run(self.base + ["kill-server"], capture_output=True)


def build_tree(root: str, children: int) -> None:
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    for index in range(children):
        directory = os.path.join(root, f"c{index:04d}")
        os.mkdir(directory)
        with open(os.path.join(directory, "file"), "wb") as file:
            file.write(b"x" * (index + 1) * 100)


def flood(directory: str, files: int) -> tuple[float, float]:
    """Creates `files` empty files; returns (seconds, monotonic time of the last one)."""
    os.mkdir(directory)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    started = time.monotonic()
    for index in range(files):
        os.close(os.open(os.path.join(directory, f"f{index:07d}"), flags, 0o644))
    ended = time.monotonic()
    return ended - started, ended


def one_round(mode: str, binary: str, work: str, arguments) -> dict:
    root = os.path.join(work, "root")
    socket_path = os.path.join(work, "bench.sock")
    build_tree(root, arguments.children)
    command = [binary, mode, root, "--socket", socket_path]
    tmux = Tmux(work)
    process = None
    if mode == "watch":
        tmux.start("LANG=C.UTF-8 " + " ".join(f"'{part}'" for part in command))
    else:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_socket(socket_path, time.monotonic() + 60)
        time.sleep(1)  # past the first frames and the policy's start
        before = engine_cpu(socket_path)
        time.sleep(arguments.idle_seconds)
        idle = (engine_cpu(socket_path) - before) / arguments.idle_seconds

        pid = tmux.pane_pid() if mode == "watch" else process.pid
        before = engine_cpu(socket_path)
        before_process = process_cpu(pid)
        seconds, last = flood(os.path.join(root, "flood"), arguments.files)
        request(socket_path, {"command": "status", "depth": 0, "sync": True})
        engine_lag = time.monotonic() - last
        flood_cpu = engine_cpu(socket_path) - before
        process_flood_cpu = process_cpu(pid) - before_process
        view_lag = None
        if mode == "watch":
            wanted = f" {arguments.files} "
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                row = next((line for line in tmux.capture().splitlines() if "flood/" in line), "")
                if wanted in row:
                    view_lag = time.monotonic() - last
                    break
                time.sleep(0.02)
        return {
            "idle": idle,
            "writer": seconds,
            "flood_cpu": flood_cpu,
            "process_flood_cpu": process_flood_cpu,
            "engine_lag": engine_lag,
            "view_lag": view_lag,
        }
    finally:
        if process is not None:
            process.terminate()
            process.wait(30)
        tmux.kill()
        shutil.rmtree(root, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--children", type=int, default=1000)
    parser.add_argument("--idle-seconds", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work", default=None)
    arguments = parser.parse_args()
    if shutil.which("tmux") is None:
        print("Error: tmux is not installed; scripts/lib/deps.sh installs it", file=sys.stderr)
        return 1
    work = arguments.work or tempfile.mkdtemp(prefix="qw-watch-bench.")
    os.makedirs(work, exist_ok=True)
    results = {"run": [], "watch": []}
    for _ in range(arguments.rounds):
        for mode in ("run", "watch"):
            results[mode].append(one_round(mode, os.path.abspath(arguments.binary), work, arguments))
            print(mode, results[mode][-1], file=sys.stderr, flush=True)

    def median(mode: str, key: str) -> float:
        return statistics.median(result[key] for result in results[mode])

    # Idle, the view takes five turns a second and makes one frame (the others find nothing
    # changed), so the difference per second is one frame plus four cheap turns.
    per_idle_second = median("watch", "idle") - median("run", "idle")
    print(f"| | run (anchor) | watch | watch / run |")
    print(f"|---|---|---|---|")
    for key, label, scale, unit in [
        ("idle", "engine CPU while idle, per second", 1000, "ms"),
        ("writer", f"writer: {arguments.files} files back to back", 1, "s"),
        ("flood_cpu", "engine CPU for the flood", 1, "s"),
        ("process_flood_cpu", "whole process CPU for the flood (all threads, 10 ms ticks)", 1, "s"),
        ("engine_lag", "last file → `status --sync` reply", 1000, "ms"),
    ]:
        run, watch = median("run", key), median("watch", key)
        ratio = f"{watch / run:.2f}" if run > 0 else "–"
        print(f"| {label} | {run * scale:.3f} {unit} | {watch * scale:.3f} {unit} | {ratio} |")
    lags = [result["view_lag"] for result in results["watch"] if result["view_lag"] is not None]
    view = f"{statistics.median(lags) * 1000:.0f} ms" if lags else "not seen"
    print(f"| last file → the screen shows all {arguments.files} | – | {view} | – |")
    print()
    print(
        f"The view's engine CPU per idle second ({arguments.children} children on the level shown): "
        f"{per_idle_second * 1e6:.1f} µs (median of {arguments.rounds} rounds)."
    )
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
