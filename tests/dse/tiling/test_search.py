"""The tiling search: its optimum equals brute force over every divisor tile size and loop
order; 216 orders for a two-level tiled GEMM; a hierarchy where nothing fits."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import islpy as isl
import pytest

from tenet.api import load_problem
from tenet.dse.tiling.exhaustive import search_tiling
from tenet.dse.tiling.sizes import TilingSpace, tilings
from tenet.errors import CapacityError, SpecError
from tenet.mapping import to_stamps
from tenet.metrics.assessment import objective_value
from tenet.metrics.latency import occupancy
from tenet.metrics.memory import evaluate_memory
from tenet.model.problem import Problem
from tenet.spec import ArchitectureSpec, DataflowSpec, load_workload
from tenet.vocab import MemoryObjective


def _arch(glb: int, rf: int | None = None) -> ArchitectureSpec:
    levels: list[dict[str, Any]] = [
        {"name": "dram", "read_bandwidth": 1, "write_bandwidth": 1, "energy_read": 100},
        {
            "name": "glb",
            "capacity": glb,
            "read_bandwidth": 4,
            "write_bandwidth": 2,
            "energy_read": 3,
            "energy_write": 4,
        },
    ]
    if rf is not None:
        levels.append({"name": "rf", "capacity": rf, "energy_read": 1, "energy_write": 1})
    return ArchitectureSpec.from_mapping({"name": "a", "pe": "{PE[i]: i = 0}", "levels": levels})


def _gemm(n: int, arch: ArchitectureSpec) -> Problem:
    return load_problem("gemm", arch, "gemm-os-1d:pes=1", params={"M": n, "N": n, "K": n})


def _brute_force(
    problem: Problem, space: TilingSpace, objective: MemoryObjective
) -> tuple[Fraction, int, str]:
    """Evaluate every tiling in full (the same stamp text once), keep the best that fits."""
    compute = occupancy(problem).latency_compute
    seen: dict[tuple[tuple[str, str], ...], Any] = {}
    best: tuple[Fraction, int, int, str] | None = None
    for index, tiling in enumerate(tilings(problem, space)):
        stamps = tuple(to_stamps(tiling).tiles.items())
        if stamps not in seen:
            seen[stamps] = evaluate_memory(
                problem, compute, [(level, isl.Map(text)) for level, text in stamps]
            )
        metrics = seen[stamps]
        if not metrics.fits:
            continue
        dram = sum(
            r.fills + r.writebacks for r in metrics.records if r.level == metrics.levels[1].level
        )
        rank = (objective_value(metrics, objective), dram, index, tiling.describe())
        if best is None or rank < best:
            best = rank
    assert best is not None
    return best[0], best[1], best[3]


def check_search(problem: Problem, space: TilingSpace, objective: MemoryObjective) -> None:
    found = search_tiling(problem, space, objective=objective)
    value, dram, described = _brute_force(problem, space, objective)
    assert (found.best.value, found.best.memory.traffic_dram) == (value, dram)
    assert found.best.mapping.describe() == described
    assert found.evaluated <= found.fitting <= found.space


def test_search_two_level_gemm_has_216_orders() -> None:
    problem = _gemm(4, _arch(64, 8))
    orders = [
        t
        for t in tilings(problem, TilingSpace(["glb", "rf"]))
        if t.tile_sizes("glb") == (4, 4, 4) and t.tile_sizes("rf") == (2, 2, 2)
    ]
    assert len(orders) == 3 * 2 * 3 * 2 * 3 * 2
    assert len({tuple(tuple(x.dim for x in lv.loops) for lv in t.levels) for t in orders}) == 216


@pytest.mark.parametrize(
    "objective",
    [
        "latency",
        pytest.param("energy", marks=pytest.mark.slow),
        pytest.param("edp", marks=pytest.mark.slow),
    ],
)
def test_search_equals_brute_force_small_gemm(objective: MemoryObjective) -> None:
    # glb holds 12 elements: tiles up to 2x2x2 (or 4x1x1-like shapes) fit, not 4x4x4.
    check_search(_gemm(4, _arch(12)), TilingSpace(["glb"]), objective)


@pytest.mark.slow
def test_search_equals_brute_force_gemm_32() -> None:
    # GEMM 32^3 on DRAM -> global buffer of 768 elements: 6^3 divisor tile sizes x 3! x 3!
    # orders (band and point loops).
    check_search(_gemm(32, _arch(768)), TilingSpace(["glb"]), "latency")


@pytest.mark.slow
def test_search_equals_brute_force_gemm_two_tiled_levels() -> None:
    # rf tiles keep j whole: the smallest needs 1 + 4 + 4 = 9 elements.
    check_search(_gemm(4, _arch(24, 12)), TilingSpace(["glb", "rf"], ["i", "k"]), "energy")


@pytest.mark.slow
def test_search_equals_brute_force_small_conv() -> None:
    arch = _arch(40)
    dataflow = DataflowSpec.from_mapping(
        {
            "name": "one",
            "space_stamp": "{S[k, c, ox, oy, rx, ry] -> PE[0]}",
            "time_stamp": "{S[k, c, ox, oy, rx, ry] -> T[k, c, ox, oy, rx, ry]}",
        }
    )
    params = {"K": 4, "C": 2, "OX": 4, "OY": 1, "RX": 3, "RY": 1}
    problem = load_problem(load_workload("conv2d:stride=2"), arch, dataflow, params=params)
    check_search(problem, TilingSpace(["glb"], ["k", "c", "ox"]), "latency")


def test_search_nothing_fits_names_smallest_need() -> None:
    # the smallest tile, one instance, holds one element each of A, B and C.
    with pytest.raises(CapacityError, match="smallest tile of glb needs 3 elements, glb holds 2"):
        search_tiling(_gemm(2, _arch(2)))


def test_search_unknown_level() -> None:
    with pytest.raises(SpecError, match="no memory level 'l3' to tile"):
        search_tiling(_gemm(2, _arch(8)), TilingSpace(["l3"]))


def test_search_unknown_loop() -> None:
    with pytest.raises(SpecError, match="no loop 'x' to tile"):
        search_tiling(_gemm(2, _arch(8)), TilingSpace(dims=["x"]))


def test_search_with_aligned_sizes_equals_brute_force() -> None:
    # GEMM 8^3, tiles of i and k: divisors 1, 2, 4, 8 plus the non-dividing multiples of 3
    # (3 and 6, whose last tile is partial); the search over them equals brute force, and its
    # optimum is at least as good as the divisors-only one (a superset of tilings)
    problem = _gemm(8, _arch(40))
    space = TilingSpace(["glb"], ["i", "k"], aligned=3)
    sizes = {t.tile_sizes("glb") for t in tilings(problem, space)}
    assert {s[0] for s in sizes} == {1, 2, 3, 4, 6, 8}
    check_search(problem, space, "latency")
    with_aligned = search_tiling(problem, space).best.value
    assert with_aligned <= search_tiling(problem, replace(space, aligned=None)).best.value
