"""The local improvement of a seed (:func:`tenet.dse.joint.local.improve`): from a poor tiling
of a GEMM 8³ on 2x2 PEs (a 64-element buffer), it ends no worse, at a tiling whose figures
counting gives again, where no neighbouring tiling that fits is better (every neighbour counted
exactly)."""

from __future__ import annotations

import pytest

from tenet.api import load_problem
from tenet.dse.joint.bounds import BoundContext, bands_of
from tenet.dse.joint.local import _neighbours, improve
from tenet.mapping import array_blocks, tile_maps, tiled_nest
from tenet.metrics.assessment import Evaluated, objective_value
from tenet.metrics.latency import occupancy
from tenet.metrics.memory import evaluate_memory, level_needs
from tenet.vocab import MemoryObjective
from tests.dse.joint.test_search import ARCH, GEMM


@pytest.mark.parametrize("objective", ["latency", "energy"])
def test_improve_ends_at_a_local_optimum(objective: MemoryObjective) -> None:
    workload, _, mappings, _ = GEMM
    problem = load_problem(workload, ARCH, mappings[0], {"M": 8, "N": 8, "K": 8})
    context = BoundContext.from_problem(problem)
    compute = occupancy(problem).latency_compute

    def point(bands: list[tuple[str, tuple[int, ...], tuple[int, ...]]]) -> Evaluated:
        nest = tiled_nest(context.dims, context.extents, "dram", bands, (0, 1, 2))
        return Evaluated.of(problem, nest, objective, compute)

    start = point([("glb", (1, 1, 1), (0, 1, 2))])
    found = improve(problem, start, objective, evaluations=10_000)
    assert found.value < start.value
    again = evaluate_memory(problem, compute, tile_maps(found.mapping))
    assert objective_value(again, objective) == found.value and again.fits
    per_dim = array_blocks(problem.dataflow.space_stamp, problem.workload.domain)
    blocks = [per_dim[d] for d in context.dims]
    for bands in _neighbours(context, bands_of(found.mapping), blocks, {"dram": True, "glb": True}):
        nest = tiled_nest(context.dims, context.extents, "dram", bands, (0, 1, 2))
        if level_needs(problem, tile_maps(nest))[1]:
            assert point(bands).value >= found.value, bands


def test_improve_stops_when_the_time_budget_has_run_out() -> None:
    workload, _, mappings, _ = GEMM
    problem = load_problem(workload, ARCH, mappings[0], {"M": 8, "N": 8, "K": 8})
    context = BoundContext.from_problem(problem)
    compute = occupancy(problem).latency_compute
    nest = tiled_nest(
        context.dims, context.extents, "dram", [("glb", (1, 1, 1), (0, 1, 2))], (0, 1, 2)
    )
    start = Evaluated.of(problem, nest, "energy", compute)
    counted = []

    def expired() -> bool:  # the budget runs out after two exact counts
        counted.append(1)
        return len(counted) > 2

    found = improve(problem, start, "energy", evaluations=10_000, expired=expired)
    assert len(counted) == 3 and found.value <= start.value
    assert improve(problem, start, "energy", expired=lambda: True) is start
