"""Every process the harness starts, so that none outlives it.

Each child is registered as it is started and forgotten once it has been reaped. On exit,
normal or by SIGINT/SIGTERM/SIGHUP, whatever is still registered gets SIGTERM, a grace
period, then SIGKILL.
"""

import atexit
import os
import signal
import subprocess
import time


class Children:
    def __init__(self) -> None:
        self._live: dict[int, subprocess.Popen] = {}
        atexit.register(self.stop_all)
        for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(number, self._on_signal)

    def _on_signal(self, number, _frame) -> None:
        # Unwinds through every `finally`, then atexit stops what is left.
        raise SystemExit(128 + number)

    def start(self, argv: list[str], **options) -> subprocess.Popen:
        options.setdefault("stdin", subprocess.DEVNULL)
        process = subprocess.Popen(argv, **options)
        self._live[process.pid] = process
        return process

    def wait_with_usage(self, process: subprocess.Popen):
        """Reaps the child and returns (exit code, resource usage): ru_maxrss is its peak RSS."""
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        self._live.pop(process.pid, None)
        return process.returncode, usage

    def wait(self, process: subprocess.Popen, timeout: float | None = None) -> int:
        code = process.wait(timeout)
        self._live.pop(process.pid, None)
        return code

    def stop(self, process: subprocess.Popen, grace: float = 5.0) -> int:
        """SIGTERM, then SIGKILL after `grace` seconds; returns the exit code."""
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(grace)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
        self._live.pop(process.pid, None)
        return process.returncode

    def stop_all(self) -> None:
        for process in list(self._live.values()):
            self.stop(process, grace=2.0)


def wait_until(predicate, timeout: float, interval: float = 0.001):
    """Polls `predicate` until it returns something truthy; raises TimeoutError after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError("gave up waiting")
        time.sleep(interval)
