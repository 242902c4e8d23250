"""By energy, the joint search searches one array mapping per placement: a tiling's energy
counts each level's fills and writebacks over its tiles (keyed by PE for a per-PE level) and
the MACs' operands, never the time-stamp. Random small GEMMs and convolutions, hierarchies with
a per-PE level, links and bypass: two time-stamps of one space-stamp give the same energy; and
the search over two mappings of one placement finds the brute-force best of both."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings

from tenet.api import load_problem
from tenet.dse.joint.tree import joint_search
from tenet.dse.tiling.exhaustive import search_tiling
from tenet.dse.tiling.sizes import TilingSpace
from tenet.mapping import tile_maps
from tenet.metrics.memory import evaluate_memory
from tenet.spec import DataflowSpec
from tests.dse.joint.test_bounds import cases
from tests.dse.joint.test_search import ARCH

OTHER_TIME = {
    "gemm": "{S[i, j, k] -> T[k, floor(j / 2), i]}",
    "conv2d": "{S[k, c, ox, oy, rx, ry] -> T[ry, rx, oy, ox, c]}",
}


@settings(max_examples=60)
@given(cases())
def test_the_energy_of_a_tiling_never_depends_on_the_time_stamp(case: tuple[Any, ...]) -> None:
    problem, nest, _, (workload, dataflow, params), arch = case
    other = dataflow.model_copy(update={"time_stamp": OTHER_TIME[workload.name]})
    again = load_problem(workload, arch, other, params)
    first = evaluate_memory(problem, 0, tile_maps(nest))
    second = evaluate_memory(again, 0, tile_maps(nest))
    assert first.energy == second.energy


def test_one_mapping_per_placement_finds_the_best_of_both() -> None:
    # GEMM 8x8x8 on 2x2 PEs PE[i % 2, j % 2], k innermost or outermost in time: the search by
    # energy over both (one placement) finds the least energy over the tilings of both
    mappings = [
        DataflowSpec(
            name=f"os-{n}",
            space_stamp="{S[i, j, k] -> PE[i % 2, j % 2]}",
            time_stamp=time,
        )
        for n, time in enumerate(
            [
                "{S[i, j, k] -> T[floor(i / 2), floor(j / 2), k]}",
                "{S[i, j, k] -> T[k, floor(i / 2), floor(j / 2)]}",
            ]
        )
    ]
    params = {"M": 8, "N": 8, "K": 8}
    space = TilingSpace(["glb"])
    found = joint_search(
        "gemm", ARCH, mappings, params, space, objective="energy", bypass=False, seed=False
    )
    best = min(
        search_tiling(load_problem("gemm", ARCH, m, params), space, objective="energy").best.value
        for m in mappings
    )
    assert found.best.value == best == found.bound and found.complete
