"""A client of the quotawatch control socket for programs that clean their own caches.

Standard library only. One connection registers a cleaner, answers the daemon's contexts,
asks for its quotas and hears its level and quota events:

    from quotawatch_client import RegisteredCleaner

    def clean(context):
        removed, freed = [], 0
        for candidate in sorted(context["candidates"], key=lambda c: c["modified_ms"]):
            ...  # remove the file through the program's own index
        return {"freed": freed, "removed": removed}

    # The daemon's socket: its --socket, or the per-root default (see below).
    with RegisteredCleaner(socket_path, "feed", ["Library/Caches/com.example.feed"]) as cleaner:
        print(cleaner.quotas())            # the rows of its paths and the disk level
        cleaner.serve(clean, on_event=lambda event: print(event["event"]))

Paths are relative to ROOT and escaped as the daemon escapes them in JSON: a byte that is
not part of valid UTF-8 is written \\xNN and a backslash \\\\ (``escape``/``unescape`` convert).
Without --socket the daemon listens at $XDG_RUNTIME_DIR/quotawatch/<name>.sock,
/run/quotawatch/<name>.sock when it runs as root, or /tmp/quotawatch-<uid>/<name>.sock, where
<name> is ROOT's last component and a hash of its absolute path (docs/service.md, "Socket
paths and whose socket it is"); `quotawatch status ROOT` finds it the same way.
The protocol is described in docs/json.md, "Control socket".
"""

import json
import os
import socket

__all__ = ["QuotaWatchError", "RegisteredCleaner", "escape", "unescape"]


class QuotaWatchError(Exception):
    """The daemon answered with an error, or the connection broke."""


def escape(path):
    """Raw path bytes (or a str) as the daemon writes them in JSON."""
    if isinstance(path, str):
        path = path.encode("utf-8", "surrogateescape")
    text = path.decode("utf-8", "surrogateescape")
    out = []
    for char in text:
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:
            out.append("\\x%02x" % (code - 0xDC00))
        elif char == "\\":
            out.append("\\\\")
        else:
            out.append(char)
    return "".join(out)


def unescape(text):
    """An escaped path from the daemon back to raw bytes."""
    raw = bytearray()
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and text.startswith("\\\\", index):
            raw += b"\\"
            index += 2
        elif char == "\\" and text.startswith("\\x", index) and len(text) >= index + 4:
            raw.append(int(text[index + 2:index + 4], 16))
            index += 4
        else:
            raw += char.encode("utf-8")
            index += 1
    return bytes(raw)


class RegisteredCleaner:
    """One registered cleaner: a connection that stays open until ``close``.

    ``timeout_ms`` is how long the daemon waits for each reply (its default otherwise).
    Raises ``QuotaWatchError`` when the daemon refuses the registration (a name already
    taken, too many cleaners, a path outside ROOT).
    """

    def __init__(self, socket_path, name, paths, timeout_ms=None, connect_timeout=10.0):
        self.name = name
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._socket.settimeout(connect_timeout)
        self._socket.connect(socket_path)
        self._buffer = b""
        self.pending_events = []
        request = {"command": "register_cleaner", "name": name, "paths": [escape(p) for p in paths]}
        if timeout_ms is not None:
            request["timeout_ms"] = int(timeout_ms)
        self._send(request)
        greeting = self._read()
        if greeting is None:
            raise QuotaWatchError("the daemon closed the connection without answering the registration")
        if "error" in greeting and len(greeting) == 1:
            self.close()
            raise QuotaWatchError(greeting["error"])
        if greeting.get("event") != "registered":
            self.close()
            raise QuotaWatchError("unexpected first line from the daemon: %r" % greeting)
        self.greeting = greeting
        self._socket.settimeout(None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Unregisters the cleaner (the daemon does so when the connection closes)."""
        try:
            self._socket.close()
        except OSError:
            pass

    def fileno(self):
        return self._socket.fileno()

    def _send(self, document):
        self._socket.sendall(json.dumps(document, separators=(",", ":")).encode("utf-8") + b"\n")

    def _read_line(self):
        while b"\n" not in self._buffer:
            chunk = self._socket.recv(65536)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def _read(self):
        line = self._read_line()
        if line is None:
            return None
        return json.loads(line.decode("utf-8"))

    def next_message(self, timeout=None):
        """The next line from the daemon as a dict: a context (``event`` "context"), an event
        (``level``, ``quota_*``, ``cleanup``), a quota status (``quotas``), or an error.
        None when the daemon closed the connection, or nothing came within ``timeout`` seconds
        (then ``TimeoutError`` is raised)."""
        if self.pending_events:
            return self.pending_events.pop(0)
        self._socket.settimeout(timeout)
        try:
            return self._read()
        except socket.timeout:
            raise TimeoutError("nothing came from the daemon within %s s" % timeout)
        finally:
            self._socket.settimeout(None)

    def reply(self, context, freed=0, removed=(), error=None):
        """Answers ``context``: what was removed (paths relative to ROOT: escaped str as the
        context names them, or raw bytes) and the bytes freed,
        or an error message."""
        if error is not None:
            document = {"error": str(error), "context": context["context"]}
        else:
            document = {
                "context": context["context"],
                "freed": int(freed),
                "removed": [p if isinstance(p, str) else escape(p) for p in removed],
            }
        self._send(document)

    def quotas(self, sync=False):
        """The quota rows of this cleaner's paths (and of the directories above and below
        them) and the disk level, as ``status --quotas --json`` shows them. Events that come
        meanwhile are kept for ``next_message``; a context that comes meanwhile is kept too."""
        request = {"command": "status", "select": "quotas"}
        if sync:
            request["sync"] = True
        self._send(request)
        while True:
            message = self._read()
            if message is None:
                raise QuotaWatchError("the daemon closed the connection")
            if "quotas" in message and "level" in message:
                return message
            if "error" in message and "event" not in message and len(message) == 1:
                raise QuotaWatchError(message["error"])
            self.pending_events.append(message)

    def serve(self, handler, on_event=None, stop=None):
        """Answers every context with ``handler(context)``, which returns
        ``{"freed": N, "removed": [paths]}`` (or raises: the error is the reply). Other lines go
        to ``on_event``. Returns when the daemon closes the connection or ``stop(message)``
        returns true after a message."""
        while True:
            message = self.next_message()
            if message is None:
                return
            if message.get("event") == "context":
                try:
                    result = handler(message) or {}
                    self.reply(message, freed=result.get("freed", 0), removed=result.get("removed", ()))
                except Exception as error:  # the daemon reports it in the cleanup event
                    self.reply(message, error="%s: %s" % (type(error).__name__, error))
            elif on_event is not None:
                on_event(message)
            if stop is not None and stop(message):
                return
