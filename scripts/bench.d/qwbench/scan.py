"""`scripts/bench scan`: quotawatch scan against du -s and gdu on the same warm trees.

Every round runs each command once, back to back, in the same order; a warm-up round
comes first and is not counted. Times are wall-clock from start to exit; peak RSS is the
%M of /usr/bin/time, which is the child's ru_maxrss. The child must be forked by a
small process: Linux carries the pre-exec image's high-water mark into ru_maxrss, so a
child forked straight from Python would report at least Python's own RSS.
"""

import json
import os
import subprocess
import tempfile
import time
from dataclasses import dataclass

from . import procfs, stats
from .children import Children
from .markdown import table
from .watchers import root_entry

# Wall time on two idle cores, and CPU: on a busy machine, where the crawl cannot use both
# cores, only spending no more CPU than du keeps it from being slower than du.
TARGET_VS_DU = 0.5
TARGET_CPU_VS_DU = 1.0
TARGET_VS_GDU = 0.6
TARGET_BYTES_PER_FILE = 60  # issue 32: scanning and watching


@dataclass
class Sample:
    seconds: float
    cpu_seconds: float
    peak_kib: int


def commands(binary: str, root: str) -> dict[str, list[str]]:
    return {
        "quotawatch scan": [binary, "scan", root],
        "quotawatch scan --workers 1": [binary, "scan", root, "--workers", "1"],
        "du -s": ["du", "-s", root],
        "gdu -np": ["gdu", "-np", root],
    }


PEAK_FILE = os.path.join(tempfile.gettempdir(), f"quotawatch-bench-peak.{os.getpid()}")


def measure(children: Children, argv: list[str]) -> Sample:
    timed = ["/usr/bin/time", "-f", "%M", "-o", PEAK_FILE] + argv
    started = time.perf_counter()
    process = children.start(timed, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    code, usage = children.wait_with_usage(process)
    elapsed = time.perf_counter() - started
    errors = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    if code != 0:
        raise RuntimeError(f"{' '.join(argv)} exited with status {code}: {errors.strip()}")
    with open(PEAK_FILE) as file:
        peak_kib = int(file.read().split()[-1])
    # rusage of /usr/bin/time includes its waited-for child; its own share is negligible.
    return Sample(elapsed, usage.ru_utime + usage.ru_stime, peak_kib)


def alternate(children: Children, argvs: dict[str, list[str]], runs: int) -> dict[str, list[Sample]]:
    for argv in argvs.values():
        measure(children, argv)  # warm-up: the page cache, dentries and inodes
    samples: dict[str, list[Sample]] = {name: [] for name in argvs}
    for _ in range(runs):
        for name, argv in argvs.items():
            samples[name].append(measure(children, argv))
    return samples


def tree_size(children: Children, binary: str, root: str) -> tuple[int, int]:
    output = subprocess.run([binary, "scan", root, "--json"], check=True, capture_output=True).stdout
    entry = root_entry(json.loads(output))
    return entry["files"], entry["dirs"]


def run(children: Children, binary: str, trees: dict[str, str], empty_dir: str, runs: int) -> str:
    empty = alternate(children, commands(binary, empty_dir), runs)
    empty_peak = {name: stats.median([s.peak_kib for s in samples]) for name, samples in empty.items()}

    sections = []
    summary_rows = []
    for tree_name, root in trees.items():
        files, dirs = tree_size(children, binary, root)
        load_before = procfs.MachineLoad()
        samples = alternate(children, commands(binary, root), runs)
        load = procfs.MachineLoad().since(load_before)
        du_times = [s.seconds for s in samples["du -s"]]
        gdu_times = [s.seconds for s in samples["gdu -np"]]
        du_cpu = [s.cpu_seconds for s in samples["du -s"]]
        rows = []
        for name, series in samples.items():
            times = [s.seconds for s in series]
            peak = stats.median([s.peak_kib for s in series])
            per_file = (peak - empty_peak[name]) * 1024 / files
            rows.append(
                [
                    f"`{name}`",
                    stats.seconds(stats.median(times)),
                    f"{stats.seconds(min(times))} – {stats.seconds(max(times))}",
                    stats.ratio(stats.paired_ratio(times, du_times)),
                    stats.ratio(stats.paired_ratio(times, gdu_times)),
                    stats.seconds(stats.median([s.cpu_seconds for s in series])),
                    stats.ratio(stats.paired_ratio([s.cpu_seconds for s in series], du_cpu)),
                    stats.ratio(stats.median([s.cpu_seconds / s.seconds for s in series])),
                    stats.mebibytes(peak),
                    f"{per_file:.0f} B",
                ]
            )
        headers = ["command", "median", "range", "÷ du", "÷ gdu", "CPU (user+sys)", "CPU ÷ du's", "CPU ÷ wall", "peak RSS", "RSS/file"]
        sections.append(
            f"**{tree_name}** ({files} files, {dirs} dirs, {runs} round{'s' if runs != 1 else ''}; meanwhile {load})\n\n"
            + table(headers, rows, set(range(1, 10)))
        )

        qw_times = [s.seconds for s in samples["quotawatch scan"]]
        qw_peak = stats.median([s.peak_kib for s in samples["quotawatch scan"]])
        vs_du = stats.paired_ratio(qw_times, du_times)
        vs_gdu = stats.paired_ratio(qw_times, gdu_times)
        cpu_vs_du = stats.paired_ratio([s.cpu_seconds for s in samples["quotawatch scan"]], du_cpu)
        per_file = (qw_peak - empty_peak["quotawatch scan"]) * 1024 / files
        summary_rows += [
            [tree_name, "time ÷ du -s", f"≤ {TARGET_VS_DU}", stats.ratio(vs_du), stats.verdict(vs_du <= TARGET_VS_DU)],
            [tree_name, "time ÷ gdu -np", f"≤ {TARGET_VS_GDU}", stats.ratio(vs_gdu), stats.verdict(vs_gdu <= TARGET_VS_GDU)],
            [
                tree_name,
                "CPU ÷ du -s's CPU",
                f"≤ {TARGET_CPU_VS_DU}",
                stats.ratio(cpu_vs_du),
                stats.verdict(cpu_vs_du <= TARGET_CPU_VS_DU),
            ],
            [
                tree_name,
                "RSS per file",
                f"≤ {TARGET_BYTES_PER_FILE} B",
                f"{per_file:.0f} B",
                stats.verdict(per_file <= TARGET_BYTES_PER_FILE),
            ],
        ]

    baseline = ", ".join(f"`{name}` {stats.mebibytes(kib)}" for name, kib in empty_peak.items())
    notes = (
        "Median of the rounds; ÷ du and ÷ gdu are the medians of each round's own ratio (lower is "
        "faster). RSS/file is (peak RSS − peak RSS on an empty directory) ÷ files. "
        f"Peak RSS on an empty directory: {baseline}."
    )
    if os.path.exists(PEAK_FILE):
        os.unlink(PEAK_FILE)
    targets = table(["tree", "quotawatch scan", "target", "measured", ""], summary_rows, {3})
    return "\n\n".join(["#### Targets", targets] + ["#### Runs"] + sections + [notes]) + "\n"
