"""Design-space exploration on this machine: how fast candidates are generated, pruned and
evaluated, and the full sweeps of GEMM 256³ and of TENET's conv2d layer (K=128, C=64, 112×112,
3×3) on the 8×8 2D systolic array, with the best latency found among all
candidates against the best among the data-centric-expressible (rectangular) ones.

Run from the repository root: ``python benchmarks/bench_dse.py`` (``--quick`` skips the conv
sweep). The conv sweep takes minutes on two cores. Times are CPU seconds of this process and
of its worker processes.
"""

from __future__ import annotations

import sys

from cputime import cpu_seconds

from tenet.dse.explore import Exploration, explore
from tenet.dse.ranking.objectives import rank
from tenet.dse.run.execution import ExecutionOptions
from tenet.dse.space.design import DesignSpace, SpaceOptions
from tenet.spec import Specs, WorkloadSpec, load_architecture, load_workload
from tenet.vocab import Neighbourhood

CONV_PARAMS = {"K": 128, "C": 64, "OX": 112, "OY": 112, "RX": 3, "RY": 3}
ARRAY = "systolic-2d-8x8"
WORKERS = 2


def _rates(workload: WorkloadSpec, params: dict[str, int]) -> None:
    arch = load_architecture(ARRAY)
    space = DesignSpace(Specs(workload, arch, None, params), SpaceOptions())
    space.extents, space.directions, space.symmetries  # noqa: B018  (isl set-up, not timed)
    start = cpu_seconds()
    generated = sum(1 for p, s in space.spaces() for _ in space.space_mappings(p, s))
    generating = cpu_seconds() - start
    start = cpu_seconds()
    kept = sum(1 for _ in space)
    pruning = cpu_seconds() - start
    print(
        f"  generated {generated} in {generating:.2f} CPU-s ({generated / generating:,.0f}/s); "
        f"symmetry + movement classification {generated / pruning:,.0f} candidates/s "
        f"({kept} kept)"
    )


def _report(name: str, result: Exploration, seconds: float) -> None:
    s = result.sizes
    table = result.results
    ok = table[table["status"] == "ok"]
    print(f"{name}: {seconds:.1f} CPU-s for {len(table)} candidates ({len(table) / seconds:.1f}/s)")
    print(
        f"  space: {s.every_order} with every order, {s.generated} generated, {s.distinct} "
        f"without symmetric duplicates, {s.scratchpad_fed} scratchpad-fed, "
        f"{s.distinct - s.scratchpad_fed} left after scratchpad pruning, "
        f"{s.data_centric} data-centric"
    )
    print(f"  status: {dict(table['status'].value_counts())}")
    best = rank(ok, "latency", 1)
    centric = rank(ok[ok["data_centric"].astype(bool)], "latency", 1)
    value = best["latency_cycles"].iloc[0]
    print(f"  best of all:        {value:>12,} cycles  {best['name'].iloc[0]}")
    if centric.empty:
        print("  no data-centric candidate in this space")
        return
    centric_value = centric["latency_cycles"].iloc[0]
    print(f"  best data-centric:  {centric_value:>12,} cycles  {centric['name'].iloc[0]}")
    print(f"  lower latency:      {1 - value / centric_value:.1%}")


def _sweep(
    name: str,
    workload: WorkloadSpec,
    params: dict[str, int],
    neighbourhood: Neighbourhood = "links",
    options: SpaceOptions | None = None,
) -> None:
    start = cpu_seconds()
    result = explore(
        workload,
        ARRAY,
        params=params,
        options=options,
        neighbourhood=neighbourhood,
        execution=ExecutionOptions(workers=WORKERS),
    )
    _report(name, result, cpu_seconds() - start)


def main() -> int:
    gemm = load_workload("gemm")
    gemm_params = {"M": 256, "N": 256, "K": 256}
    conv = load_workload("conv2d")
    print(f"candidate rates on {ARRAY}:")
    print(" GEMM 256^3")
    _rates(gemm, gemm_params)
    print(" conv2d K=128 C=64 112x112 3x3")
    _rates(conv, CONV_PARAMS)
    _sweep("GEMM 256^3 full sweep, neighbourhood 'links'", gemm, gemm_params)
    _sweep(
        "GEMM 256^3 full sweep, neighbourhood 'window' (the original's unique volume)",
        gemm,
        gemm_params,
        neighbourhood="window",
    )
    _sweep(
        "GEMM 256^3 scratchpad-pruned sweep",
        gemm,
        gemm_params,
        options=SpaceOptions(prune_scratchpad=True),
    )
    if "--quick" not in sys.argv:
        _sweep("conv2d full sweep", conv, CONV_PARAMS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
