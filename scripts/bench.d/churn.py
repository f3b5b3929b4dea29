"""Creates and deletes directories, files, hard links and renames in a loop: the memory
churn for `scripts/bench live`.

    python3 churn.py ROOT CYCLES FIRST

ROOT must exist. Each cycle makes a directory holding a file, a hard link to it and a
subdirectory, renames the link and then the directory, makes and renames a file in ROOT,
then deletes all of it, so the tree ends as it began. Names carry the cycle number, from
FIRST on, so no name repeats across runs. Prints {"cycles": N, "seconds": S}.
"""

import json
import os
import sys
import time


def main() -> None:
    root, cycles, first = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    payload = b"c" * 100
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    started = time.perf_counter()
    for number in range(first, first + cycles):
        directory = os.path.join(root, f"dir{number}")
        os.mkdir(directory)
        os.mkdir(os.path.join(directory, "sub"))
        file = os.path.join(directory, f"file{number}")
        descriptor = os.open(file, flags, 0o644)
        os.write(descriptor, payload)
        os.close(descriptor)
        os.link(file, os.path.join(directory, f"link{number}"))
        os.rename(os.path.join(directory, f"link{number}"), os.path.join(directory, f"moved{number}"))
        renamed = os.path.join(root, f"renamed{number}")
        os.rename(directory, renamed)
        loose = os.path.join(root, f"loose{number}")
        descriptor = os.open(loose, flags, 0o644)
        os.write(descriptor, payload)
        os.close(descriptor)
        os.rename(loose, loose + ".old")
        os.unlink(loose + ".old")
        os.unlink(os.path.join(renamed, f"file{number}"))
        os.unlink(os.path.join(renamed, f"moved{number}"))
        os.rmdir(os.path.join(renamed, "sub"))
        os.rmdir(renamed)
    elapsed = time.perf_counter() - started
    print(json.dumps({"cycles": cycles, "seconds": elapsed}), flush=True)


if __name__ == "__main__":
    main()
