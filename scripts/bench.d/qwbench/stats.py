"""Medians, percentiles and the number formats the tables use."""

import math
import statistics


def median(values):
    return statistics.median(values)


def percentile(values, fraction: float):
    """Nearest-rank percentile: the smallest sample with at least `fraction` of samples at or below it."""
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def paired_ratio(numerators, denominators):
    """The median of per-round ratios: each round's runs were back to back, so drift cancels."""
    return median([n / d for n, d in zip(numerators, denominators)])


def seconds(value: float) -> str:
    return f"{value:.3f} s" if value >= 1 else f"{value * 1000:.1f} ms"


def milliseconds(value: float) -> str:
    return f"{value * 1000:.2f} ms"


def mebibytes(kib: float) -> str:
    return f"{kib / 1024:.1f} MiB"


def ratio(value: float) -> str:
    return f"{value:.2f}"


def ratio_of(numerator: float, denominator: float) -> str:
    """The ratio, or a dash when the anchor measured nothing (a burst too small for the clock's ticks)."""
    return ratio(numerator / denominator) if denominator > 0 else "—"


def verdict(met: bool) -> str:
    return "met" if met else "**not met**"
