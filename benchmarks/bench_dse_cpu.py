"""CPU time of design-space searches, evaluated in this process (so that ``time.process_time``
covers every count): GEMM 256³ and TENET's conv2d layer (K=128, C=64, 112×112, 3×3) on
the 8×8 systolic array, the full space, ranked by latency.

For each: every figure of every candidate, then only what the ranking of the best 10 needs
(``explore(best=("latency", 10))``), with the rate in candidates per CPU-second and a check
that both give the same ranking. Run from the repository root:
``python benchmarks/bench_dse_cpu.py [--quick]`` (``--quick``: GEMM only, pruned search only).
"""

from __future__ import annotations

import sys
import time
from typing import Any

from tenet.dse.explore import Exploration, explore
from tenet.dse.run.engines import InProcessEngine
from tenet.dse.run.execution import ExecutionOptions
from tenet.spec import WorkloadSpec, load_workload

CONV_PARAMS = {"K": 128, "C": 64, "OX": 112, "OY": 112, "RX": 3, "RY": 3}
ARRAY = "systolic-2d-8x8"
TOP = 10
COLUMNS = ["index", "name", "latency_cycles"]


def _search(workload: WorkloadSpec, params: dict[str, int], best: Any) -> tuple[Exploration, float]:
    start = time.process_time()
    result = explore(
        workload,
        ARRAY,
        params=params,
        best=best,
        execution=ExecutionOptions(engine=InProcessEngine()),
    )
    return result, time.process_time() - start


def _compare(name: str, workload: WorkloadSpec, params: dict[str, int], full: bool) -> None:
    pruned, seconds = _search(workload, params, ("latency", TOP))
    n = len(pruned.results)
    counted = int((pruned.results["status"] == "ok").sum())
    print(
        f"{name}: {n} candidates in {seconds:.2f} CPU-s ({n / seconds:.1f} per CPU-s), "
        f"{counted} counted fully, {n - counted} pruned (best {TOP} by latency)"
    )
    if not full:
        return
    every, every_seconds = _search(workload, params, None)
    print(
        f"{name}, every figure of every candidate: {every_seconds:.2f} CPU-s "
        f"({n / every_seconds:.1f} per CPU-s)"
    )
    same = pruned.ranked("latency", TOP)[COLUMNS].to_dict(orient="records") == every.ranked(
        "latency", TOP
    )[COLUMNS].to_dict(orient="records")
    print(f"  same best {TOP} as full evaluation: {same}")


def main() -> int:
    quick = "--quick" in sys.argv
    gemm = {"M": 256, "N": 256, "K": 256}
    _compare("GEMM 256^3 on systolic-2d-8x8", load_workload("gemm"), gemm, not quick)
    if not quick:
        conv = load_workload("conv2d")
        _compare("conv2d K=128 C=64 112x112 3x3 on systolic-2d-8x8", conv, CONV_PARAMS, False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
