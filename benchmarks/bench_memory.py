"""Memory hierarchy benchmark, in CPU time (``time.process_time``): one tiled evaluation at
two problem sizes (it should not grow with the size), the tiling search of a ResNet-50 conv3_x
layer on the Eyeriss-like hierarchy, and the DRAM traffic of the best GEMM 1024^3 tiling
against an untiled run (the buffer holding only what the current time-stamp uses).
Tile sizes that the array's PE counts divide keep the relations small; others are exact but
slower (quasi-affine pieces multiply).

Run ``python benchmarks/bench_memory.py`` (``--quick`` for a smaller search).
"""

from __future__ import annotations

import argparse
import time

import islpy as isl

from tenet.api import load_problem
from tenet.dse.tiling.exhaustive import search_tiling
from tenet.dse.tiling.sizes import TilingSpace
from tenet.metrics.memory import MemoryMetrics, evaluate_memory
from tenet.model.problem import Problem


def _cpu(run: object) -> float:
    assert callable(run)
    start = time.process_time()
    run()
    return time.process_time() - start


def _dram(metrics: MemoryMetrics) -> int:
    inner = metrics.levels[1].level
    return sum(r.fills + r.writebacks for r in metrics.records if r.level == inner)


def flat_in_size() -> None:
    """One tiled evaluation of GEMM 64^3 and 4096^3 (same tiles), best of three."""
    times = {}
    for n in (64, 4096):
        problem = load_problem("gemm", "eyeriss", "gemm-os-tiled", params={"M": n, "N": n, "K": n})
        times[n] = min(_cpu(lambda p=problem: evaluate_memory(p, 0)) for _ in range(3))
    ratio = times[4096] / times[64]
    print(
        f"tiled evaluation, GEMM 64^3: {times[64]:.3f} CPU-s, 4096^3: {times[4096]:.3f} "
        f"CPU-s, ratio {ratio:.2f} (target <= 1.5)"
    )


def conv3_search(quick: bool) -> None:
    """Search the global-buffer and register-file tiles (over k and c) of ResNet-50 conv3_x
    (3x3, 128 -> 128 channels, 28x28) under the row-stationary array dataflow."""
    params = {"K": 128, "C": 128, "OX": 28, "OY": 28, "RX": 3, "RY": 3}
    problem = load_problem("conv2d", "eyeriss", "conv2d-rs", params=params)
    choices = [1, 2, 4, 16, 64, 128]
    sizes = {"k": choices, "c": choices} if quick else None
    start = time.process_time()
    found = search_tiling(problem, TilingSpace(["glb", "rf"], ["k", "c"], sizes))
    seconds = time.process_time() - start
    best = found.best
    print(
        f"conv3_x tiling search on eyeriss: {seconds:.1f} CPU-s (target < 60), "
        f"{found.space} candidates, {found.fitting} fit, {found.evaluated} evaluated"
    )
    print(
        f"  best: {best.mapping.describe()}; latency {float(best.value):.0f} cycles "
        f"({best.memory.bottleneck}), DRAM traffic {best.memory.traffic_dram} elements"
    )


def _untiled(problem: Problem) -> MemoryMetrics:
    stamp = problem.dataflow.time_stamp.set_tuple_name(isl.dim_type.out, "GLB")
    return evaluate_memory(problem, 0, [("glb", stamp)])


def gemm_traffic(quick: bool) -> None:
    """DRAM traffic of the best GEMM 1024^3 tiling against the untiled run, on the Simba-like
    chiplet (its 4x4 array divides the power-of-two tiles)."""
    n = 1024
    problem = load_problem("gemm", "simba", "gemm-os", params={"M": n, "N": n, "K": n})
    choices = [64, 128, 256] if quick else [16, 32, 64, 128, 256, 512, 1024]
    start = time.process_time()
    found = search_tiling(problem, TilingSpace(["glb"], sizes=dict.fromkeys("ijk", choices)))
    seconds = time.process_time() - start
    untiled = _untiled(problem)
    best = found.best.memory.traffic_dram
    print(
        f"GEMM 1024^3 on simba: best tiling {found.best.mapping.describe()} moves {best} "
        f"elements to and from DRAM; untiled {_dram(untiled)} "
        f"({_dram(untiled) / best:.1f}x); search {seconds:.1f} CPU-s, "
        f"{found.evaluated} evaluated"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller searches")
    args = parser.parse_args()
    flat_in_size()
    conv3_search(args.quick)
    gemm_traffic(args.quick)


if __name__ == "__main__":
    main()
