"""Where fills come from, in CPU time (``time.process_time``): one tiled evaluation of the memory
figures (``evaluate_memory`` on a loaded problem, best of five) with the interconnect and the
network in the hierarchy (forwarding over the systolic links, multicast and reduction from the
buffer) against the same evaluation with no links and a unicast network (the figures of a
hierarchy that ignores the interconnect), for GEMM 64³ and 4096³ with the same tiles on the
16×16 three-level systolic array.

Run ``python benchmarks/bench_sources.py``.
"""

from __future__ import annotations

import os
import time

from tenet.api import load_problem
from tenet.metrics.memory import MemoryMetrics, evaluate_memory
from tenet.spec import ArchitectureSpec, DataflowSpec, load_architecture, load_dataflow

ARRAY = "systolic-levels-16x16"
FLOW = "gemm-os-systolic:rows=16,cols=16"
SIZES = (64, 4096)
REPEATS = 5


def _architectures() -> dict[str, ArchitectureSpec]:
    linked = load_architecture(ARRAY)
    plain_levels = tuple(
        level.model_copy(
            update={
                "network": level.network.model_copy(update={"multicast": False, "reduction": False})
            }
        )
        for level in linked.levels
    )
    plain = linked.model_copy(update={"interconnect": (), "levels": plain_levels})
    return {"interconnect": linked, "unicast": plain}


def _dataflow() -> DataflowSpec:
    """The output-stationary systolic GEMM, a 32³ block per buffer tile (several tiles along
    every loop at both sizes), one time-stamp per register-file tile."""
    flow = load_dataflow(FLOW)
    glb = "{S[i, j, k] -> GLB[floor(i / 32), floor(j / 32), floor(k / 32)]}"
    return flow.model_copy(update={"tiles": {"glb": glb, "rf": flow.time_stamp}})


def _evaluate(architecture: ArchitectureSpec, n: int) -> tuple[float, MemoryMetrics]:
    best, metrics = float("inf"), None
    for _ in range(REPEATS):
        problem = load_problem("gemm", architecture, _dataflow(), params=dict(M=n, N=n, K=n))
        start = time.process_time()
        metrics = evaluate_memory(problem, latency_compute=0)
        best = min(best, time.process_time() - start)
    assert metrics is not None
    return best, metrics


def main() -> None:
    times: dict[tuple[str, int], float] = {}
    for kind, architecture in _architectures().items():
        for n in SIZES:
            seconds, metrics = _evaluate(architecture, n)
            times[(kind, n)] = seconds
            rf = [r for r in metrics.records if r.level == "rf"]
            glb = metrics.summary("glb")
            print(
                f"{kind:<12} GEMM {n}³: {seconds:6.2f} CPU-s (best of {REPEATS}), "
                f"rf fills {sum(r.fills for r in rf):,} "
                f"(neighbour {sum(r.fills_neighbour for r in rf):,}), "
                f"buffer reads {glb.accesses_read:,}, load {os.getloadavg()[0]:.2f}"
            )
    for n in SIZES:
        ratio = times[("interconnect", n)] / times[("unicast", n)]
        print(f"GEMM {n}³: interconnect / unicast = {ratio:.2f} (at most 2)")
    for kind in ("interconnect", "unicast"):
        ratio = times[(kind, SIZES[1])] / times[(kind, SIZES[0])]
        print(f"{kind}: {SIZES[1]}³ / {SIZES[0]}³ = {ratio:.2f} (at most 1.5)")


if __name__ == "__main__":
    main()
