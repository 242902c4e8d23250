"""The analytic DF/DM model: the method's algorithm by hand, equal to the exact figures for
GEMM with dividing tiles that fit, and the convolution halo where the two differ."""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations, product

import pytest

from tenet.api import load_problem
from tenet.mapping import Loop, LoopNest, tiled_nest
from tenet.metrics.analytic import AnalyticLevel, analytic_figures, movement
from tenet.metrics.analytic_gap import HALO, compare_tiling
from tenet.spec import ArchitectureSpec, DataflowSpec, load_workload

GEMM_INDICES = {"A": frozenset("ik"), "B": frozenset("kj"), "C": frozenset("ij")}


def _gemm_tiling(n: int, sizes: tuple[int, int, int], order: tuple[int, ...]) -> LoopNest:
    return tiled_nest(("i", "j", "k"), (n, n, n), "dram", [("glb", sizes, order)], (0, 1, 2))


@pytest.mark.parametrize(("capacity", "expected"), [(64, (128, 128, 64)), (40, (128, 128, 128))])
def test_analytic_gemm_by_hand(capacity: int, expected: tuple[int, int, int]) -> None:
    # GEMM N = 8, tiles T = 4, loops i2 j2 k2 (2 trips) then i1 j1 k1 (4 trips). Walking out:
    # k1: A 4/4, B 4/4, C DF 1 (sum of DFs 3 fits: DM 1). j1: A DF 4, sum 9 fits: DM 4;
    # B 16/16; C 4/4. i1: A 16/16; B DF 16, sum 24 fits: DM 16; C 16/16.
    # k2: A 32/32, B 32/32; C: sum of DFs after i1 is 48: < 64 keeps DM 16, >= 40 gives 32.
    # j2: A: sum after k2 is 80 >= both: DM 64; B 64; C 32 (cap 64) or 64 (cap 40).
    # i2: A 128; B: sum 128 >= both: DM 128; C 64 (cap 64) or 128 (cap 40).
    nest = [Loop(d, 2) for d in "ijk"] + [Loop(d, 4) for d in "ijk"]
    df, dm = movement(nest, GEMM_INDICES, capacity)
    assert (dm[-1]["A"], dm[-1]["B"], dm[-1]["C"]) == expected
    assert df[3] == {"A": 16, "B": 16, "C": 16}
    figures = analytic_figures(
        _gemm_tiling(8, (4, 4, 4), (0, 1, 2)),
        GEMM_INDICES,
        [AnalyticLevel("glb", capacity, Fraction(2))],
    )
    assert figures.fits["glb"] is (capacity >= 48)
    assert figures.time["glb"] == Fraction(sum(expected), 2)


def _one_level(capacity: int) -> ArchitectureSpec:
    return ArchitectureSpec.from_mapping(
        {
            "name": "a",
            "pe": "{PE[i]: i = 0}",
            "levels": [{"name": "dram"}, {"name": "glb", "capacity": capacity}],
        }
    )


@pytest.mark.parametrize("sizes", list(product((2, 4), repeat=3)))
def test_analytic_equals_exact_for_dividing_tiles_that_fit(sizes: tuple[int, int, int]) -> None:
    ti, tj, tk = sizes
    footprint = ti * tk + tk * tj + ti * tj
    problem = load_problem(
        "gemm", _one_level(footprint + 1), "gemm-os-1d:pes=1", params={"M": 8, "N": 8, "K": 8}
    )
    for order in permutations(range(3)):
        table = compare_tiling(problem, _gemm_tiling(8, sizes, order))
        assert (table["footprint_exact"] == table["footprint_analytic"]).all(), order
        assert (table["movement_exact"] == table["movement_analytic"]).all(), order


def test_analytic_conv_halo_differs_as_stated() -> None:
    # One output row OX = 8 in tiles of 4, RX = 3: the exact input tile holds T_ox + R - 1 = 6
    # elements, the model multiplies T_ox * R = 12.
    arch = _one_level(1000)
    dataflow = DataflowSpec.from_mapping(
        {
            "name": "rows",
            "space_stamp": "{S[k, c, ox, oy, rx, ry] -> PE[0]}",
            "time_stamp": "{S[k, c, ox, oy, rx, ry] -> T[ox, rx]}",
        }
    )
    params = {"K": 1, "C": 1, "OX": 8, "OY": 1, "RX": 3, "RY": 1}
    problem = load_problem(load_workload("conv2d"), arch, dataflow, params=params)
    dims = ("k", "c", "ox", "oy", "rx", "ry")
    tiling = tiled_nest(
        dims,
        (1, 1, 8, 1, 3, 1),
        "dram",
        [("glb", (1, 1, 4, 1, 3, 1), (0, 1, 2, 3, 4, 5))],
        tuple(range(6)),
    )
    row = compare_tiling(problem, tiling).loc[("glb", "I")]
    assert (row["footprint_exact"], row["footprint_analytic"]) == (4 + 3 - 1, 4 * 3)
    assert HALO in row["reason"]
