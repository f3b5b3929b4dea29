"""Reading lines from a pipe or socket with a deadline, so a stuck tool cannot hang the run."""

import os
import select
import time


class LineReader:
    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""

    def readline(self, deadline: float) -> bytes | None:
        """The next line without its newline, or None at end of file. Raises TimeoutError."""
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no complete line before the deadline")
            ready, _, _ = select.select([self.fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(self.fd, 65536)
            if not chunk:
                if self.buffer:
                    line, self.buffer = self.buffer, b""
                    return line
                return None
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def read_until(self, predicate, timeout: float) -> bytes:
        """Reads lines until one satisfies `predicate`; returns it."""
        deadline = time.monotonic() + timeout
        while True:
            line = self.readline(deadline)
            if line is None:
                raise EOFError("the stream ended first")
            if predicate(line):
                return line
