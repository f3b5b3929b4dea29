"""What /proc says about a running process: memory, CPU time, wake-ups."""

import os
import resource
import time

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def status_kib(pid: int) -> dict[str, int]:
    """The `kB` fields of /proc/PID/status (VmRSS, VmHWM, …), in KiB."""
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            parts = value.split()
            if len(parts) == 2 and parts[1] == "kB":
                fields[name] = int(parts[0])
    return fields


def cpu_split(pid: int) -> tuple[float, float]:
    """(utime, stime) of the whole process in seconds, threads that have exited included."""
    with open(f"/proc/{pid}/stat") as stat:
        text = stat.read()
    # The command name may hold spaces and parentheses; the fields start after the last ')'.
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[11]) / CLOCK_TICKS, int(fields[12]) / CLOCK_TICKS


def cpu_seconds(pid: int) -> float:
    """utime + stime of the whole process, threads that have exited included."""
    return sum(cpu_split(pid))


def cpu_nanoseconds(pid: int) -> int:
    """Nanoseconds on CPU of the live threads of `pid` (/proc/PID/task/*/schedstat): exact, where
    /proc/PID/stat counts 10 ms ticks. Threads that have exited are not counted."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as schedstat:
                total += int(schedstat.read().split()[0])
        except FileNotFoundError:
            pass  # the thread exited while we read
    return total


def context_switches(pid: int) -> int:
    """Voluntary and involuntary context switches summed over the live threads: wake-ups."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/status") as status:
                for line in status:
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        total += int(line.split()[1])
        except FileNotFoundError:
            pass  # the thread exited while we read
    return total


def thread_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


class MachineLoad:
    """How busy the whole machine was between two snapshots, and how much of that was not us.

    The VM is shared: builds and tests of other sessions run beside the benchmark. The CPU
    time the kernel counts for everyone, less what this harness and its reaped children used,
    is what others took; steal is what the hypervisor gave to other VMs.
    """

    def __init__(self) -> None:
        self.wall = time.monotonic()
        with open("/proc/stat") as stat:
            values = [int(v) for v in stat.readline().split()[1:9]]
        user, nice, system, _idle, _iowait, irq, softirq, steal = values
        self.busy = (user + nice + system + irq + softirq) / CLOCK_TICKS
        self.steal = steal / CLOCK_TICKS
        mine = resource.getrusage(resource.RUSAGE_SELF)
        reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.own = mine.ru_utime + mine.ru_stime + reaped.ru_utime + reaped.ru_stime

    def since(self, earlier: "MachineLoad") -> str:
        wall = self.wall - earlier.wall
        others = max(0.0, (self.busy - earlier.busy) - (self.own - earlier.own)) / wall
        steal = (self.steal - earlier.steal) / wall
        return f"other processes kept {others:.2f} of {os.cpu_count()} CPUs busy, steal {steal:.2f} CPUs"
