"""`scripts/bench verify`: what the background verification sweep costs on an idle tree.

The daemon runs with `--verify-every 1s`, so a pass follows the last one as soon as its
period allows and the sweep is always at work, within `--verify-budget`; the anchor is the
same daemon with `--verify-every 0`, alternating round by round. Both are idle otherwise.
"""

import os
import time

from . import procfs, stats, watchers
from .children import Children
from .markdown import table


def _measure(children: Children, binary: str, root: str, socket_path: str, budget: str, seconds: float):
    options = ("--verify-every", "1s", "--verify-budget", budget) if budget else ("--verify-every", "0")
    watcher = watchers.start_quotawatch(children, binary, root, socket_path, options)
    try:
        client = watchers.StatusClient(socket_path)
        time.sleep(2.0)  # the first pass is due 1 s after ready
        cpu0 = procfs.cpu_seconds(watcher.pid)
        checked0 = (client.status()["engine"].get("verification") or {}).get("checked", 0)
        time.sleep(seconds)
        cpu = procfs.cpu_seconds(watcher.pid) - cpu0
        verification = client.status()["engine"].get("verification") or {}
        checked = verification.get("checked", 0) - checked0
        corrections = sum(verification.get("corrections", {}).values())
        return cpu, checked, corrections
    finally:
        watchers.stop(children, watcher)


def run(children: Children, binary: str, run_dir: str, root: str, tree_name: str, runs: int, seconds: float) -> str:
    socket_path = os.path.join(run_dir, "verify.sock")
    budgets = ["1%", "10%"]
    samples: dict[str, list] = {budget: [] for budget in ["", *budgets]}
    for _ in range(runs):
        for budget in samples:
            samples[budget].append(_measure(children, binary, root, socket_path, budget, seconds))
    files = None
    rows = []
    off_cpu = stats.median([cpu for cpu, _, _ in samples[""]])
    verdicts = []
    for budget in budgets:
        cpu = stats.median([c for c, _, _ in samples[budget]])
        checked = stats.median([n for _, n, _ in samples[budget]])
        corrections = max(n for _, _, n in samples[budget])
        share = (cpu - off_cpu) / seconds
        allowed = float(budget.rstrip("%")) / 100
        rate = checked / seconds
        files = files or checked
        rows.append(
            [
                f"`--verify-budget {budget}`",
                f"{cpu * 1000:.0f} ms",
                f"{share * 100:.2f} %",
                f"{rate:,.0f}",
                f"{checked / max(cpu - off_cpu, 1e-9):,.0f}",
                str(corrections),
                stats.verdict(share <= allowed * 1.1),
            ]
        )
        verdicts.append((budget, share, allowed))
    rows.insert(0, ["`--verify-every 0` (anchor)", f"{off_cpu * 1000:.0f} ms", "—", "—", "—", "—", ""])
    # Issue 32: the sweep within its budget, the default's (1 %), with no allowance for noise.
    budget, share, allowed = verdicts[0]
    targets = [["sweep", f"share of a core above the anchor, idle {tree_name}, `--verify-budget {budget}`",
                f"≤ {allowed * 100:g} %", f"{share * 100:.2f} %", stats.verdict(share <= allowed)]]
    return (
        f"##### Verification sweep on idle {tree_name}, {seconds:.0f} s per run, median of {runs} alternating rounds\n\n"
        + table(
            ["daemon", "CPU over the run", "share of a core above the anchor", "names/s", "names per CPU s",
             "corrections", "within budget (+10 %)"],
            rows,
        )
        + "\n\nCPU is utime + stime of the whole daemon from /proc/PID/stat, from 2 s after ready; the share is "
        "the difference from the anchor (the same daemon with the sweep off, same tree, same length) divided "
        "by the run's length. Names are directories and files stat'ed, from `status --json`'s "
        "`engine.verification.checked`. An idle tree has nothing to correct: corrections should be 0.\n\n"
        + table(["case", "figure", "target", "measured", "verdict"], targets, {3})
        + "\n"
    )
