"""Creates small files as fast as one Python process can: the burst for `scripts/bench live`.

    python3 producer.py ROOT FILES DIRS SIZE [RATE]

Spreads FILES files of SIZE bytes round-robin over ROOT/d0 … ROOT/d{DIRS-1}, which must
exist, and prints {"files": N, "seconds": S} for the creating loop alone. With RATE, at most
RATE files a second (checked every 50 files): a watcher's CPU per file follows how many files
each of its wake-ups finds, so a paced burst measures the same thing whatever the load.
"""

import json
import os
import sys
import time


def main() -> None:
    root, files, dirs, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    rate = float(sys.argv[5]) if len(sys.argv) > 5 else 0.0
    payload = b"q" * size
    directories = [os.path.join(root, f"d{index}") for index in range(dirs)]
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    started = time.perf_counter()
    for index in range(files):
        if rate and index % 50 == 0:
            ahead = started + index / rate - time.perf_counter()
            if ahead > 0:
                time.sleep(ahead)
        descriptor = os.open(os.path.join(directories[index % dirs], f"f{index:07d}"), flags, 0o644)
        os.write(descriptor, payload)
        os.close(descriptor)
    elapsed = time.perf_counter() - started
    print(json.dumps({"files": files, "seconds": elapsed}), flush=True)


if __name__ == "__main__":
    main()
