"""CPU time of this process and of its finished child processes (workers, subprocesses), in
seconds: the machines these benchmarks run on are shared, so wall time measures the neighbours
as much as the program."""

from __future__ import annotations

import os
import resource
import statistics
import time
from collections.abc import Callable

__all__ = ["cpu_seconds", "median_cpu_ms", "load_text"]


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and of every child it has waited for."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def median_cpu_ms(run: Callable[[], object], repeats: int) -> float:
    """Median CPU milliseconds of ``repeats`` calls of ``run`` (children included)."""
    times = []
    for _ in range(repeats):
        start = cpu_seconds()
        run()
        times.append((cpu_seconds() - start) * 1000)
    return statistics.median(times)


def load_text() -> str:
    """The machine's load averages over 1, 5 and 15 minutes, to print beside a CPU time."""
    return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg())
