"""A golden check of readme_table.py, without running the hour-long `scripts/bench all`:

    python3 -B scripts/bench.d/readme_table_test.py

A made-up `all` section with one target table per part (as each part prints it) must become
exactly the README block below, and only the block may change. Exits 1 with a diff if not.
"""

import difflib
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import readme_table  # noqa: E402

SECTION = """### all — 2026-12-03 12:00 UTC

- Command: `scripts/bench all` (work dir `/tmp/x`)

#### scan — `scripts/bench scan --runs 3`

| tree | figure | target | measured | verdict |
| --- | --- | --- | ---: | --- |
| sandbox-200k | RSS per file | ≤ 60 B | 52 B | met |

#### eviction — `scripts/bench eviction --runs 3 --files 20000`

Median: eviction 26,633 files/s, find -delete 11,022 files/s: 0.43× find's time per file, counting only the
cleaner's own run (its `seconds`); from the breach to `quota_ok`, what a user waits for, **2.10×** find's time.

| case | figure | target | measured | verdict |
| --- | --- | --- | ---: | --- |
| eviction | breach → quota_ok ÷ find -delete's time, as many files | ≤ 2.0 | 2.10 | **not met** |

#### burst — `scripts/bench burst --runs 7 --burst-files 10000 --pace 1000`

| ratio, per round | median | spread | each round |
| --- | ---: | ---: | --- |
| inotify ÷ `inotifywait -r -m` | 0.95 | 10 % | 0.90 0.95 1.00 |

##### Targets

| case | figure | target | measured | verdict |
| --- | --- | ---: | --- | --- |
| burst | CPU per file (inotify) ÷ inotifywait -r -m | ≤ 1.0 | 0.95 | met |
| burst | CPU per file (inotify) ÷ floor inotify | ≤ 3.0 | 2.50 | met |

#### verify — `scripts/bench verify --runs 3 --idle-seconds 20`

| daemon | CPU over the run | share of a core above the anchor | names/s | names per CPU s | corrections | within budget (+10 %) |
| --- | ---: | ---: | ---: | ---: | ---: | ---: |
| `--verify-budget 1%` | 240 ms | 0.95 % | 5,018 | 456,145 | 0 | met |

| case | figure | target | measured | verdict |
| --- | --- | --- | ---: | --- |
| sweep | share of a core above the anchor, idle sandbox-200k, `--verify-budget 1%` | ≤ 1 % | 0.95 % | met |
"""

README = """# QuotaWatch

Before.

<!-- scripts/bench all: comparison table, generated; do not edit by hand -->
stale
<!-- end of the generated comparison table -->

After.
"""

EXPECTED = """# QuotaWatch

Before.

<!-- scripts/bench all: comparison table, generated; do not edit by hand -->
From `all — 2026-12-03 12:00 UTC` in [docs/BENCHMARKS.md](docs/BENCHMARKS.md), where each figure has its
reproducing command and its peers' figures:

| part | case | figure | target | measured | verdict |
|---|---|---|---|---|---|
| scan | sandbox-200k | RSS per file | ≤ 60 B | 52 B | met |
| eviction | eviction | breach → quota_ok ÷ find -delete's time, as many files | ≤ 2.0 | 2.10 | **not met** |
| burst | burst | CPU per file (inotify) ÷ inotifywait -r -m | ≤ 1.0 | 0.95 | met |
| burst | burst | CPU per file (inotify) ÷ floor inotify | ≤ 3.0 | 2.50 | met |
| verify | sweep | share of a core above the anchor, idle sandbox-200k, `--verify-budget 1%` | ≤ 1 % | 0.95 % | met |
<!-- end of the generated comparison table -->

After.
"""


def main() -> int:
    with tempfile.TemporaryDirectory() as scratch:
        section, readme = os.path.join(scratch, "all.md"), os.path.join(scratch, "README.md")
        open(section, "w", encoding="utf-8").write(SECTION)
        open(readme, "w", encoding="utf-8").write(README)
        sys.argv = ["readme_table.py", section, readme]
        readme_table.main()
        got = open(readme, encoding="utf-8").read()
    if got != EXPECTED:
        sys.stdout.writelines(difflib.unified_diff(EXPECTED.splitlines(True), got.splitlines(True), "expected", "got"))
        return 1
    print("readme_table.py: the made-up section gives the expected block")
    return 0


if __name__ == "__main__":
    sys.exit(main())
