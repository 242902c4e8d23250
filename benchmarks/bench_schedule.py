"""Dataflows made from schedules against the design space's skews in {-1, 0, 1}.

For Jacobi-1D and Seidel-2D (with their time loops) on a 1D and a 2D systolic array, prints the
best legal dataflow (by latency) made from the workload's schedule (``tenet dse
--from-schedule``) next to the best of the design space with skews {-1, 0, 1}, their latency
and energy, the number of candidates of each, and the CPU time of each search (both evaluated
in this process). ``--quick`` runs smaller sizes in well under a minute. Run from the repository
root: ``python benchmarks/bench_schedule.py [--quick]``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

import pandas as pd

from tenet.dse.ranking.objectives import rank
from tenet.dse.run.worker import Context, evaluate_tasks
from tenet.dse.schedules import explore_schedule
from tenet.dse.space.design import DesignSpace, SpaceOptions

CASES = {
    "jacobi-1d": ({"T": 4, "N": 10}, {"T": 8, "N": 32}),
    "seidel-2d": ({"T": 2, "N": 4}, {"T": 3, "N": 6}),
}
ARRAYS = ("systolic-1d-16", "systolic-2d-8x8")


def _timed(
    run: Callable[..., pd.DataFrame], *args: Any, **kwargs: Any
) -> tuple[pd.DataFrame, float]:
    start = time.process_time()
    table = run(*args, **kwargs)
    return table, time.process_time() - start


def _space(workload: str, arch: str, params: dict[str, int]) -> pd.DataFrame:
    """Every point of the design space with skews {-1, 0, 1}, evaluated in this process by
    the function the design-space workers run (so that its CPU time is this process's)."""
    space = DesignSpace.build(workload, arch, params, SpaceOptions(skew=(-1, 0, 1)))
    context = Context.make(space.specs, space.specs.workload.reductions)
    tasks = [(c.index, c.name, *c.mapping.stamp_texts) for c in space]
    return pd.DataFrame(evaluate_tasks(context.text, tasks))


def _line(source: str, table: pd.DataFrame, seconds: float) -> str:
    legal = int((table["status"] == "ok").sum())
    head = f"  {source:9} {legal:4} legal of {len(table):4} candidates {seconds:7.1f} s CPU"
    if not legal:
        return head
    row = rank(table, "latency", 1).iloc[0]
    return (
        f"{head}  latency {int(row['latency_cycles']):6}  energy {row['energy']:10.1f}  "
        f"{row['name']}"
    )


def main(quick: bool) -> None:
    for workload, sizes in CASES.items():
        params = sizes[0] if quick else sizes[1]
        for arch in ARRAYS:
            print(f"{workload} {params} on {arch}", flush=True)
            scheduled, seconds = _timed(explore_schedule, workload, arch, params=params)
            print(_line("schedule", scheduled, seconds), flush=True)
            space, seconds = _timed(_space, workload, arch, params)
            print(_line("space", space, seconds), flush=True)


if __name__ == "__main__":
    main("--quick" in sys.argv[1:])
