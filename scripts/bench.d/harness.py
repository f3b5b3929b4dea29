"""Entry point for scripts/bench: runs one benchmark and prints its Markdown section body.

    python3 harness.py scan --binary BIN --empty DIR --runs N NAME=ROOT...
    python3 harness.py live --binary BIN --run-dir DIR [options] NAME=ROOT...
    python3 harness.py memory --binary BIN --run-dir DIR --work DIR [--names N] [--huge-files N] [--runs N]
    python3 harness.py eviction --binary BIN --run-dir DIR [--files N] [--runs N]
    python3 harness.py burst --binary BIN --run-dir DIR [--burst-files N] [--runs N] [--method together|rotate] [--pace FILES_PER_S]
    python3 harness.py backends --binary BIN --run-dir DIR --grid ROOT [--many ROOT --many-dirs N] [--burst-files N] [--runs N]
    python3 harness.py fanotify-idle --binary BIN --run-dir DIR [--seconds S] [--burst-files N] [--tree ROOT --dirs N] [--runs N]
    python3 harness.py roots --binary BIN --run-dir DIR [--roots N] [--seconds S] [--runs N]
        [--against-one-root --trees DIR --files-per-root N]
    python3 harness.py clean-large --binary BIN --run-dir DIR [--files N]
    python3 harness.py verify --binary BIN --run-dir DIR --tree NAME=ROOT [--seconds S] [--runs N]

scripts/bench builds, makes the trees, and adds the dated heading and machine facts.
"""

import argparse
import sys

from qwbench import (
    backends_bench, burst_bench, clean_large, cleanup_bench, fanotify_idle, live, memory_bench, roots_against_one,
    roots_bench, scan, verify_bench,
)
from qwbench.children import Children
from qwbench.markdown import table


def trees(pairs: list[str]) -> dict[str, str]:
    result = {}
    for pair in pairs:
        name, separator, root = pair.partition("=")
        if not separator:
            raise SystemExit(f"harness: expected NAME=ROOT, got {pair!r}")
        result[name] = root
    return result


def main() -> int:
    parser = argparse.ArgumentParser(prog="harness.py")
    commands = parser.add_subparsers(dest="command", required=True)

    scan_parser = commands.add_parser("scan")
    scan_parser.add_argument("--binary", required=True)
    scan_parser.add_argument("--empty", required=True)
    scan_parser.add_argument("--runs", type=int, default=7)
    scan_parser.add_argument("trees", nargs="+")

    live_parser = commands.add_parser("live")
    live_parser.add_argument("--binary", required=True)
    live_parser.add_argument("--run-dir", required=True)
    live_parser.add_argument("--runs", type=int, default=5)
    live_parser.add_argument("--million-runs", type=int, default=3)
    live_parser.add_argument("--burst-files", type=int, default=100_000)
    live_parser.add_argument("--burst-rounds", type=int, default=3)
    live_parser.add_argument("--latency-iterations", type=int, default=400)
    live_parser.add_argument("--idle-seconds", type=float, default=60)
    live_parser.add_argument("--idle-tree", default="sandbox-200k")
    live_parser.add_argument("--churn-cycles", type=int, default=1_000_000)
    live_parser.add_argument("trees", nargs="+")

    memory_parser = commands.add_parser("memory")
    memory_parser.add_argument("--binary", required=True)
    memory_parser.add_argument("--run-dir", required=True)
    memory_parser.add_argument("--work", required=True)
    memory_parser.add_argument("--names", type=int, default=1_000_000)
    memory_parser.add_argument("--huge-files", type=int, default=200_000)
    memory_parser.add_argument("--runs", type=int, default=3)

    eviction_parser = commands.add_parser("eviction")
    eviction_parser.add_argument("--binary", required=True)
    eviction_parser.add_argument("--run-dir", required=True)
    eviction_parser.add_argument("--files", type=int, default=20_000)
    eviction_parser.add_argument("--runs", type=int, default=3)

    backends_parser = commands.add_parser("backends")
    backends_parser.add_argument("--binary", required=True)
    backends_parser.add_argument("--run-dir", required=True)
    backends_parser.add_argument("--grid", required=True)
    backends_parser.add_argument("--many", default="")
    backends_parser.add_argument("--many-dirs", type=int, default=0)
    backends_parser.add_argument("--burst-files", type=int, default=100_000)
    backends_parser.add_argument("--runs", type=int, default=3)
    backends_parser.add_argument("--without-burst", action="store_true")

    burst_parser = commands.add_parser("burst")
    burst_parser.add_argument("--binary", required=True)
    burst_parser.add_argument("--run-dir", required=True)
    burst_parser.add_argument("--burst-files", type=int, default=50_000)
    burst_parser.add_argument("--runs", type=int, default=5)
    burst_parser.add_argument("--method", choices=["together", "rotate"], default="together")
    burst_parser.add_argument("--pace", type=int, default=0)

    idle_parser = commands.add_parser("fanotify-idle")
    idle_parser.add_argument("--binary", required=True)
    idle_parser.add_argument("--run-dir", required=True)
    idle_parser.add_argument("--seconds", type=float, default=60)
    idle_parser.add_argument("--burst-files", type=int, default=100_000)
    idle_parser.add_argument("--tree", default="")
    idle_parser.add_argument("--dirs", type=int, default=0)
    idle_parser.add_argument("--runs", type=int, default=3)

    roots_parser = commands.add_parser("roots")
    roots_parser.add_argument("--binary", required=True)
    roots_parser.add_argument("--run-dir", required=True)
    roots_parser.add_argument("--roots", type=int, default=100)
    roots_parser.add_argument("--dirs", type=int, default=10)
    roots_parser.add_argument("--seconds", type=float, default=20)
    roots_parser.add_argument("--runs", type=int, default=3)
    roots_parser.add_argument("--files-per-root", type=int, default=0)
    roots_parser.add_argument("--against-one-root", action="store_true")
    roots_parser.add_argument("--trees", default="")

    clean_large_parser = commands.add_parser("clean-large")
    clean_large_parser.add_argument("--binary", required=True)
    clean_large_parser.add_argument("--run-dir", required=True)
    clean_large_parser.add_argument("--files", type=int, default=60_000)

    verify_parser = commands.add_parser("verify")
    verify_parser.add_argument("--binary", required=True)
    verify_parser.add_argument("--run-dir", required=True)
    verify_parser.add_argument("--tree", required=True)
    verify_parser.add_argument("--seconds", type=float, default=30)
    verify_parser.add_argument("--runs", type=int, default=3)

    arguments = parser.parse_args()
    children = Children()
    if arguments.command == "backends":
        body = backends_bench.run(
            children, arguments.binary, arguments.run_dir, arguments.grid, arguments.many, arguments.many_dirs,
            arguments.burst_files, arguments.runs, with_burst=not arguments.without_burst,
        )
    elif arguments.command == "burst":
        text, targets = burst_bench.run(
            children, arguments.binary, arguments.run_dir, arguments.burst_files, arguments.runs, arguments.method,
            arguments.pace,
        )
        body = text + "\n##### Targets\n\n" + table(["case", "figure", "target", "measured", "verdict"], targets, {3}) + "\n"
    elif arguments.command == "fanotify-idle":
        body = fanotify_idle.run(
            children, arguments.binary, arguments.run_dir, arguments.burst_files, arguments.seconds, arguments.runs,
            arguments.tree, arguments.dirs,
        )
    elif arguments.command == "roots" and arguments.against_one_root:
        body = roots_against_one.run(
            children, arguments.binary, arguments.run_dir, arguments.trees, arguments.roots,
            arguments.files_per_root or 200, arguments.seconds, arguments.runs,
        )
    elif arguments.command == "roots":
        body = roots_bench.run(
            children, arguments.binary, arguments.run_dir, arguments.roots, arguments.dirs, arguments.seconds,
            arguments.runs,
        )
    elif arguments.command == "clean-large":
        body = clean_large.run(children, arguments.binary, arguments.run_dir, arguments.files)
    elif arguments.command == "eviction":
        body = cleanup_bench.side_by_side(children, arguments.binary, arguments.run_dir, arguments.runs, arguments.files)
    elif arguments.command == "memory":
        body = memory_bench.run(
            children, arguments.binary, arguments.run_dir, arguments.work, arguments.names, arguments.huge_files,
            arguments.runs,
        )
    elif arguments.command == "verify":
        ((name, root),) = trees([arguments.tree]).items()
        body = verify_bench.run(children, arguments.binary, arguments.run_dir, root, name, arguments.runs, arguments.seconds)
    elif arguments.command == "scan":
        body = scan.run(children, arguments.binary, trees(arguments.trees), arguments.empty, arguments.runs)
    else:
        body = live.run(
            children,
            arguments.binary,
            arguments.run_dir,
            trees(arguments.trees),
            arguments.idle_tree,
            arguments.runs,
            arguments.million_runs,
            arguments.burst_files,
            arguments.burst_rounds,
            arguments.latency_iterations,
            arguments.idle_seconds,
            arguments.churn_cycles,
        )
    sys.stdout.write(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
