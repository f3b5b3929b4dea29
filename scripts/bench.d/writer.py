"""Creates, writes and removes small files as fast as one Python process can, for a while:
the writer elsewhere on the file system for `scripts/bench fanotify-idle`.

    python3 writer.py DIR SECONDS

Writes 512-byte files in batches of 1000 under DIR (made if missing), removing each batch
before the next so the disk never fills, and prints {"files": N, "seconds": S}.
"""

import json
import os
import sys
import time


def main() -> None:
    root, seconds = sys.argv[1], float(sys.argv[2])
    os.makedirs(root, exist_ok=True)
    payload = b"w" * 512
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC
    names = [os.path.join(root, f"w{index:04d}") for index in range(1000)]
    files = 0
    started = time.perf_counter()
    deadline = started + seconds
    while time.perf_counter() < deadline:
        for name in names:
            descriptor = os.open(name, flags, 0o644)
            os.write(descriptor, payload)
            os.close(descriptor)
        for name in names:
            os.unlink(name)
        files += len(names)
    print(json.dumps({"files": files, "seconds": time.perf_counter() - started}), flush=True)


if __name__ == "__main__":
    main()
