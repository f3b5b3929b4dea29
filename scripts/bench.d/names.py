"""Writes and deletes files with names that never repeat, in one directory: the unique-name
churn for `scripts/bench memory`, as a download manager or a hashed cache makes them.

    python3 names.py DIRECTORY COUNT FIRST

Each file is `CFNetworkDownload_%08x.tmp` with the number from FIRST on: created, 100 B
written, closed, deleted. The directory ends as it began. Prints {"names": N, "seconds": S}.
"""

import json
import os
import sys
import time


def main() -> None:
    directory, count, first = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    payload = b"x" * 100
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    started = time.perf_counter()
    for number in range(first, first + count):
        path = os.path.join(directory, f"CFNetworkDownload_{number:08x}.tmp")
        descriptor = os.open(path, flags, 0o644)
        os.write(descriptor, payload)
        os.close(descriptor)
        os.unlink(path)
    print(json.dumps({"names": count, "seconds": time.perf_counter() - started}), flush=True)


if __name__ == "__main__":
    main()
