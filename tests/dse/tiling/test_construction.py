"""Constructive search: its top K holds the exhaustive optimum on small instances while
evaluating a fraction of the candidates exactly."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from tenet.api import load_problem
from tenet.dse.explore import explore
from tenet.dse.run.execution import ExecutionOptions
from tenet.dse.run.worker import Context, evaluate_tasks
from tenet.dse.space.design import DesignSpace
from tenet.dse.strategies import resolve
from tenet.dse.tiling.constructive import (
    construct_tilings,
    micro_estimate,
    rank_mappings,
)
from tenet.dse.tiling.exhaustive import search_tiling
from tenet.errors import CapacityError
from tenet.spec import ArchitectureSpec


def _arch(glb: int, rf: int | None = None) -> ArchitectureSpec:
    levels: list[dict[str, Any]] = [
        {"name": "dram", "read_bandwidth": 1, "write_bandwidth": 1, "energy_read": 100},
        {"name": "glb", "capacity": glb, "read_bandwidth": 4, "write_bandwidth": 2},
    ]
    if rf is not None:
        levels.append({"name": "rf", "capacity": rf})
    return ArchitectureSpec.from_mapping({"name": "a", "pe": "{PE[i]: i = 0}", "levels": levels})


@pytest.mark.slow
def test_constructed_tiling_reaches_the_exhaustive_optimum() -> None:
    problem = load_problem("gemm", _arch(40), "gemm-os-1d:pes=1", params={"M": 8, "N": 8, "K": 8})
    exhaustive = search_tiling(problem)
    built = construct_tilings(problem, top_k=10)
    assert len(built) <= 10 < exhaustive.evaluated
    assert built[0].value == exhaustive.best.value
    assert all(r.memory.fits for r in built)


def test_nothing_fits() -> None:
    problem = load_problem("gemm", _arch(2), "gemm-os-1d:pes=1", params={"M": 4, "N": 4, "K": 4})
    with pytest.raises(CapacityError, match="no constructed tiling fits"):
        construct_tilings(problem)


def test_micro_model_of_the_systolic_gemm() -> None:
    # PE[i % 8, j % 8] T[floor(i/8), floor(j/8), i % 8 + j % 8 + k] on 8x8, m = n = k = 32:
    # the array tile is i:8, j:8, k:32; 16 tiles; steps = 4 * 4 * (32 + 7 + 7) = 736.
    # B[k, j] (32 x 8) enters every tile: 16 * 256 = 4096; A[i, k] (8 x 32) does not depend
    # on the innermost outer digit floor(j/8) and stays while its 4 values run: 16 * 256 / 4
    # = 1024; C (8 x 8) is stored and loaded back: 16 * 64 * 2 = 2048. 7168 elements through
    # 64/16 = 4 per cycle: 1792 cycles, more than the 736 steps.
    space = DesignSpace.build("gemm", "systolic-2d-8x8", {"M": 32, "N": 32, "K": 32})
    found = [
        c
        for c in space
        if c.name == "PE[i % 8, j % 8] T[floor(i/8), floor(j/8), i % 8 + j % 8 + k]"
    ]
    e = micro_estimate(space, found[0])
    assert (e.steps, e.traffic, e.latency) == (736, 7168, 1792)
    assert e.spread_reductions == 0 and e.utilisation == 1


def test_strategy_choice() -> None:
    assert resolve("auto", "mappings", 500).name == "exhaustive"
    assert resolve("auto", "mappings", 501).name == "constructive"
    assert resolve("exhaustive", "mappings", 10**6).name == "exhaustive"


@pytest.mark.slow
def test_constructive_top_k_holds_the_exhaustive_best() -> None:
    params = {"M": 32, "N": 32, "K": 32}
    full = explore("gemm", "systolic-2d-8x8", params=params, execution=ExecutionOptions(workers=1))
    built = explore(
        "gemm",
        "systolic-2d-8x8",
        params=params,
        strategy="constructive",
        top_k=10,
        execution=ExecutionOptions(workers=1),
    )
    assert len(built.results) == 10
    best = full.ranked("latency", 1)["latency_cycles"].iloc[0]
    assert built.ranked("latency", 1)["latency_cycles"].iloc[0] == best


def test_links_model_of_a_5x5_convolution() -> None:
    # PE[rx, ox] T[c, oy, k, ox + ry] on the 8x8 switch array, K = C = 4, OX = OY = 8,
    # RX = RY = 5: 25,600 points, one instance each; steps = 4 * 8 * 4 * (5 + 7) = 1536.
    # I[c, ox + rx, oy + ry] passes along the diagonal link (ox + 1, rx - 1): a point finds it
    # one step back unless ox = 0 or rx = 4, 25,600 * (1 - 7/8 * 4/5) = 7680 reads; oy and k
    # are outer digits (a PE's previous time-stamp is the end of the last span): no reuse.
    # W[k, c, rx, ry] passes along the row (ox + 1): 25,600 / 8 = 3200 reads. O[k, ox, oy]
    # stays on its PE along ry (the inner time-stamp) but rx spreads it over 5 PEs at one
    # time-stamp: 25,600 / 5 = 5120 writes. Through 4 elements per cycle the reads take 2720
    # cycles, more than the steps and the 1280 of the writes.
    params = {"K": 4, "C": 4, "OX": 8, "OY": 8, "RX": 5, "RY": 5}
    space = DesignSpace.build("conv2d", "switch-2d-8x8", params)
    [found] = [c for c in space if c.name == "PE[rx, ox] T[c, oy, k, ox + ry]"]
    e = micro_estimate(space, found, links=True)
    assert (e.steps, e.traffic, e.latency) == (1536, 7680 + 3200 + 5120, 2720)
    # the exact evaluation moves as many: 10,880 elements in and 5120 out, each through the
    # port with its pipeline latency (16 - 1 cycles)
    context = Context.make(space.specs, ("O",))
    [row] = evaluate_tasks(context.text, [(found.index, found.name, *found.mapping.stamp_texts)])
    lag = space.specs.architecture.latency - 1
    assert row["latency_ingress_cycles"] == 2720 + lag
    assert row["latency_egress_cycles"] == 1280 + lag


@pytest.mark.slow
@pytest.mark.parametrize(
    ("workload", "array", "params"),
    [
        ("conv2d", "switch-2d-8x8", {"K": 4, "C": 4, "OX": 8, "OY": 8, "RX": 5, "RY": 5}),
        ("conv2d", "mesh4-8x8", {"K": 4, "C": 4, "OX": 8, "OY": 8, "RX": 5, "RY": 5}),
        ("conv2d", "switch-2d-4x4", {"K": 8, "C": 8, "OX": 4, "OY": 4, "RX": 5, "RY": 5}),
        ("conv2d", "switch-2d-8x8", {"K": 4, "C": 4, "OX": 8, "OY": 8, "RX": 3, "RY": 3}),
        ("conv2d", "mesh4-8x8", {"K": 4, "C": 4, "OX": 8, "OY": 8, "RX": 3, "RY": 3}),
        ("gemm", "systolic-2d-8x8", {"M": 32, "N": 32, "K": 32}),
    ],
)
def test_constructive_best_is_the_exhaustive_best(
    workload: str, array: str, params: dict[str, int]
) -> None:
    execution = ExecutionOptions(workers=1)
    full = explore(workload, array, params=params, best=("latency", 1), execution=execution)
    built = explore(
        workload, array, params=params, strategy="constructive", top_k=10, execution=execution
    )
    assert len(built.results) == 10
    best = full.ranked("latency", 1)["latency_cycles"].iloc[0]
    assert built.ranked("latency", 1)["latency_cycles"].iloc[0] == best


def test_rank_keeps_the_spaces_order() -> None:
    space = DesignSpace.build("gemm", "systolic-2d-8x8", {"M": 16, "N": 16, "K": 16})
    chosen = rank_mappings(space, list(space), 5)
    assert len(chosen) == 5
    assert [c.index for c in chosen] == sorted(c.index for c in chosen)


def test_dram_traffic_without_levels_is_every_distinct_element() -> None:
    from tenet.dse.rows import tiled_figures
    from tenet.vocab import column

    # No level inside DRAM: A, B and C (4 x 4 each) move once, 3 * 16 elements; the row
    # keeps the array's latency and energy (given by the design point's row).
    row = {
        "name": "os",
        "space_stamp": "{ S[i, j, k] -> PE[i, j] }",
        "time_stamp": "{ S[i, j, k] -> T[i + j + k] }",
        column("latency"): 30,
        "energy": 1.5,
    }
    params = {"M": 4, "N": 4, "K": 4}
    figures = tiled_figures("gemm", "systolic-2d-8x8", params)(row)
    assert figures[column("traffic_dram")] == 48
    assert (figures[column("latency")], figures["energy"], figures["tiles"]) == (30, 1.5, {})


def test_a_bound_leaves_out_tilings_that_cannot_come_first() -> None:
    from tenet.dse.joint.bounds import BoundContext, bands_of, lower_bound

    problem = load_problem("gemm", _arch(40), "gemm-os-1d:pes=1", params={"M": 8, "N": 8, "K": 8})
    context = BoundContext.from_problem(problem, per_pe=False)
    compute = 8**3  # one PE: a MAC per cycle

    def bound(nest: Any) -> Any:
        return lower_bound(context, compute, bands_of(nest)).latency

    every = construct_tilings(problem, top_k=10)
    pruned = construct_tilings(problem, top_k=10, bound=bound)
    assert pruned[0].value == every[0].value
    assert pruned[0].memory.traffic_dram == every[0].memory.traffic_dram
    assert len(pruned) < len(every)
    # An incumbent below every bound (the compute latency bounds every tiling): none evaluated.
    assert construct_tilings(problem, top_k=10, bound=bound, incumbent=Fraction(compute - 1)) == []
