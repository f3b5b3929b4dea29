"""Starting each watcher and telling when it is ready: quotawatch run, watchman, inotifywait.

Each `start_*` returns a `Watcher` once the tool can answer for the whole tree, with the
seconds from just before the process was started to that moment.
"""

import json
import os
import socket
import subprocess
import time
from dataclasses import dataclass, field

from .children import Children, wait_until
from .lines import LineReader

READY_TIMEOUT = 600.0


@dataclass
class Watcher:
    name: str
    process: subprocess.Popen
    ready_seconds: float
    # What the tool itself said when it was ready, for quotawatch its `ready` event.
    ready_event: dict = field(default_factory=dict)
    socket_path: str = ""
    # The tool's stdout, for quotawatch its later engine events (overflow, resynced, …).
    reader: LineReader | None = None

    @property
    def pid(self) -> int:
        return self.process.pid


def start_quotawatch(
    children: Children, binary: str, root: str, socket_path: str, options: tuple[str, ...] = ()
) -> Watcher:
    argv = [binary, "run", root, "--socket", socket_path, "--events", "jsonl", *options]
    started = time.perf_counter()
    process = children.start(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    reader = LineReader(process.stdout.fileno())
    line = reader.read_until(lambda text: b'"event":"ready"' in text, READY_TIMEOUT)
    ready = time.perf_counter() - started
    # Later events are rare (overflow, resynced, degraded): a pipe's 64 KiB holds hundreds, so
    # they are read only when the daemon is stopped.
    return Watcher("quotawatch run", process, ready, json.loads(line), socket_path, reader)


class WatchmanConnection:
    """watchman's JSON protocol over its Unix socket: one JSON value per line each way."""

    def __init__(self, socket_path: str) -> None:
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.connect(socket_path)
        self.reader = LineReader(self.socket.fileno())

    def command(self, *arguments, timeout: float = READY_TIMEOUT) -> dict:
        self.socket.sendall(json.dumps(list(arguments)).encode() + b"\n")
        line = self.reader.readline(time.monotonic() + timeout)
        if line is None:
            raise EOFError("watchman closed the connection")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"watchman: {reply['error']}")
        return reply

    def close(self) -> None:
        self.socket.close()


def start_watchman(children: Children, root: str, state_dir: str) -> Watcher:
    """A private watchman server (own socket, state and log), watching `root`.

    Ready means a query has returned: watchman answers queries only once its crawl of the
    root is complete and a sync cookie has come back through inotify.
    """
    os.makedirs(state_dir, exist_ok=True)
    socket_path = os.path.join(state_dir, "sock")
    if os.path.exists(socket_path):
        os.unlink(socket_path)
    argv = [
        "watchman",
        "--foreground",
        "--no-save-state",
        f"--sockname={socket_path}",
        f"--statefile={os.path.join(state_dir, 'state')}",
        f"--logfile={os.path.join(state_dir, 'log')}",
        f"--pidfile={os.path.join(state_dir, 'pid')}",
    ]
    # An empty global configuration, whatever /etc/watchman.json says.
    config = os.path.join(state_dir, "watchman.json")
    with open(config, "w") as file:
        file.write("{}\n")
    environment = dict(os.environ, WATCHMAN_CONFIG_FILE=config)
    started = time.perf_counter()
    process = children.start(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)

    def connect():
        if process.poll() is not None:
            raise RuntimeError(f"watchman exited with status {process.returncode}; see {state_dir}/log")
        try:
            return WatchmanConnection(socket_path)
        except (FileNotFoundError, ConnectionRefusedError):
            return None

    connection = wait_until(connect, timeout=30)
    try:
        connection.command("watch", root)
        connection.command("query", root, {"expression": ["false"], "fields": ["name"]})
        ready = time.perf_counter() - started
    finally:
        connection.close()
    return Watcher("watchman", process, ready, socket_path=socket_path)


def stop_watchman(children: Children, watcher: Watcher) -> None:
    # SIGTERM makes watchman 4.9 log a backtrace; asking it to shut down is cleaner.
    try:
        connection = WatchmanConnection(watcher.socket_path)
        try:
            connection.command("shutdown-server", timeout=5)
        finally:
            connection.close()
        children.wait(watcher.process, timeout=10)
    except (OSError, EOFError, RuntimeError, TimeoutError, subprocess.TimeoutExpired, ValueError):
        pass
    children.stop(watcher.process)


def start_inotifywait(children: Children, root: str) -> Watcher:
    """`inotifywait -r -m ROOT`, ready when it prints "Watches established." on stderr."""
    started = time.perf_counter()
    process = children.start(
        ["inotifywait", "-r", "-m", root], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    reader = LineReader(process.stderr.fileno())
    reader.read_until(lambda text: b"Watches established" in text, READY_TIMEOUT)
    return Watcher("inotifywait -r -m", process, time.perf_counter() - started)


def stop(children: Children, watcher: Watcher) -> list[dict]:
    """Stops the tool; for quotawatch, returns the engine events it printed after `ready`."""
    if watcher.name == "watchman":
        stop_watchman(children, watcher)
        return []
    events = []
    if watcher.reader is not None:
        watcher.process.terminate()
        deadline = time.monotonic() + 10
        try:
            while (line := watcher.reader.readline(deadline)) is not None:
                if line.strip():
                    events.append(json.loads(line))
        except TimeoutError:
            pass
    children.stop(watcher.process)
    return events


class StatusClient:
    """quotawatch's control protocol: one request line, one JSON document until EOF."""

    def __init__(self, socket_path: str) -> None:
        self.socket_path = socket_path

    def raw_status(self, sync: bool = False) -> bytes:
        request = json.dumps({"command": "status", "sync": sync}).encode() + b"\n"
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.connect(self.socket_path)
            connection.sendall(request)
            chunks = []
            while True:
                chunk = connection.recv(1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
        return b"".join(chunks)

    def status(self, sync: bool = False) -> dict:
        return json.loads(self.raw_status(sync))


def root_entry(document: dict) -> dict:
    """The root's row of a scan or status document: the directory whose path is ".".

    A reply read straight from the socket lists rows as arrays named by its "columns"."""
    if "rows" in document:
        columns = document["columns"]
        for row in document["rows"]:
            if row[0] == ".":
                return dict(zip(columns, row))
        raise KeyError("no root row in the reply")
    for directory in document["directories"]:
        if directory["path"] == ".":
            return directory
    raise KeyError("no root directory in the document")
