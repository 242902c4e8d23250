"""Hardware alignment of the constructed tiles, each derived by hand on a small GEMM: PE-array
multiples, transaction multiples, bank padding in the footprint, and a tile that does not
divide its extent, evaluated exactly and equal to brute force."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import islpy as isl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tenet.api import load_problem
from tenet.dse.tiling.alignment import (
    LevelAlignment,
    growth_sizes,
    level_alignment,
    padded_footprint,
    pe_units,
)
from tenet.dse.tiling.constructive import build_tilings
from tenet.dse.tiling.rtile import RTile, footprint, traffic
from tenet.mapping import to_stamps
from tenet.metrics.latency import occupancy
from tenet.metrics.memory import evaluate_memory
from tenet.model.problem import Problem
from tenet.oracle.tiles import reference_memory
from tenet.spec import ArchitectureSpec, DataflowSpec, load_dataflow, load_workload
from tenet.spec.layout import ScratchpadSpec

SYSTOLIC = "systolic-levels-8x8"
DIMS = ("i", "j", "k")


def _one_pe(dram: dict[str, Any], glb: int) -> ArchitectureSpec:
    levels = [{"name": "dram", **dram}, {"name": "glb", "capacity": glb}]
    return ArchitectureSpec.from_mapping({"name": "a", "pe": "{PE[i]: i = 0}", "levels": levels})


def _gemm(arch: ArchitectureSpec | str, m: int, n: int, k: int, flow: str) -> Problem:
    return load_problem("gemm", arch, flow, params={"M": m, "N": n, "K": k})


def _glb_sizes(problem: Problem, **kw: Any) -> list[tuple[int, ...]]:
    return [t.tile_sizes(t.levels[1].level) for t in build_tilings(problem, **kw)]


def test_glb_tiles_are_multiples_of_the_array() -> None:
    # PE[i % 8, j % 8] on 8x8, M = N = K = 16: the array spreads i and j over 8 PEs each.
    # The glb feeds the array and is fed by DRAM, 4 elements per cycle: transactions of 4
    # along the last subscripts, k for A[i, k] and j for B[k, j] and C[i, j]. So the glb
    # units are i: 8, j: lcm(8, 4) = 8, k: 4. The per-PE rf is fed by the glb's 16 elements
    # per cycle shared by 64 PEs (0, so 1): no transaction alignment inside the PEs, but its
    # tile is that of all PEs together, a multiple of the array along i and j.
    problem = _gemm(SYSTOLIC, 16, 16, 16, "gemm-os-systolic")
    glb = level_alignment(problem, 1, DIMS)
    assert (glb.units, glb.transaction, glb.banks) == ((8, 8, 4), 4, None)
    rf = level_alignment(problem, 2, DIMS)
    assert (rf.units, rf.transaction) == ((8, 8, 1), 1)
    sizes = _glb_sizes(problem)
    assert sizes
    assert all(s[0] % 8 == 0 and s[1] % 8 == 0 and s[2] % 4 == 0 for s in sizes)


def test_a_per_pe_tile_holds_its_share_of_the_array_tile() -> None:
    # PE[i % 8, j % 8]: an rf tile of sizes (si, sj, sk), multiples of 8 along i and j, gives
    # each PE the instances i = p0 (mod 8), j = p1 (mod 8) of it: si/8 values of i, sj/8 of j
    # and sk of k. Its data tile is A[si/8 x sk], B[sk x sj/8], C[si/8 x sj/8]: the footprint
    # of the rTile (si/8, sj/8, sk). Every constructed rf tile fits its 256 elements that way,
    # and the exact per-PE footprint equals that share's.
    problem = _gemm(SYSTOLIC, 16, 16, 16, "gemm-os-systolic")
    tiling = build_tilings(problem)[0]
    si, sj, sk = tiling.tile_sizes("rf")
    assert si % 8 == 0 and sj % 8 == 0
    share = RTile(problem.workload, {"i": si // 8, "j": sj // 8, "k": sk})
    stamps = [(name, isl.Map(text)) for name, text in to_stamps(tiling).tiles.items()]
    figures = evaluate_memory(problem, tiles=stamps)
    exact = sum(r.footprint for r in figures.records if r.level == "rf")
    assert exact == footprint(share) <= 256


def test_a_small_operator_is_never_tiled_past_its_extent() -> None:
    # M = 4 on 8 rows: the mapping uses 4 PEs along i, and a glb tile is at most 4 along i.
    problem = _gemm(SYSTOLIC, 4, 16, 16, "gemm-os-systolic")
    assert pe_units(problem, DIMS) == (4, 8, 1)
    assert {s[0] for s in _glb_sizes(problem)} == {4}
    assert growth_sizes(3, 8) == [3]


def test_transactions_align_the_contiguous_subscripts() -> None:
    # One PE, DRAM reads 4 elements per cycle: transactions of 4, so j (last subscript of B
    # and C) and k (of A) grow in multiples of 4; the first glb tile is (1, 4, 4).
    # Tile (i, j, k) with j, k multiples of 4, m = n = k = 16, 4-element transactions:
    # A loads mnk/j, B loads mnk/i, C stores mnk/k of which all but mn are reloaded:
    # Q(1, 4, 4) = 4096 (1/4 + 1 + 2/4) - 256 = 6912, 1.6875 per MAC. The bound is DRAM's
    # 4 elements per cycle over the peak of 1 MAC per cycle: 4 >= 1.6875, so the growth
    # stops at its first tile. Unaligned, (1, 1, 4) reads a 4 x 1 block of B in 4
    # transactions (16 elements) and stores 1 element of C as a transaction of 4: per tile
    # 4 + 16 loads, 4 stores; 1024 tiles: 20480 loads, 4096 stores, 4096 - 256 reloads.
    problem = _gemm(_one_pe({"read_bandwidth": 4}, 10**4), 16, 16, 16, "gemm-os-1d:pes=1")
    glb = level_alignment(problem, 1, DIMS)
    assert (glb.units, glb.transaction) == ((1, 4, 4), 4)
    assert _glb_sizes(problem)[0] == (1, 4, 4)
    w = problem.workload
    assert traffic(RTile(w, {"i": 1, "j": 4, "k": 4}), 4).total == 6912
    assert traffic(RTile(w, {"i": 1, "j": 1, "k": 4}), 4).total == 20480 + 4096 + 3840


def test_bank_padding_counts_in_the_footprint() -> None:
    # GEMM M = 3, N = 1, K = 8 on one PE; the glb (4 banks) grows from the 3 x 1 x 1 tile
    # along k (i and j are whole): F(3, 1, k) = 3k (A) + k (B) + 3 (C). A's 3 x k block is
    # read in 3 x 1 pieces: rows k apart put a column in banks 0, 2, 0 (k = 2) or all in one
    # (k = 4, 8); padding the rows by 1 (3k + 3 elements) spreads them: k = 2: 14, k = 4: 22.
    # B (k x 1, read 1 x 1) and C (3 x 1, read whole) need no padding. With 20 elements,
    # unpadded the glb grows to k = 4 (19), padded only to k = 2 (14).
    arch = _one_pe({}, 20)
    problem = _gemm(arch, 3, 1, 8, "gemm-os-1d:pes=1")
    w = problem.workload
    piece = RTile(w, {"i": 3, "j": 1, "k": 1})
    banked = LevelAlignment((1, 1, 1), banks=4)
    assert [footprint(RTile(w, {"k": k})) for k in (2, 4)] == [11, 19]
    assert [padded_footprint(RTile(w, {"k": k}), piece, banked) for k in (2, 4)] == [14, 22]
    assert _glb_sizes(problem, start=(3, 1, 1))[0] == (3, 1, 4)
    scratchpad = ScratchpadSpec(banks=4)
    assert _glb_sizes(problem, start=(3, 1, 1), scratchpad=scratchpad)[0] == (3, 1, 2)


def test_a_non_dividing_tile_is_evaluated_exactly() -> None:
    # M = N = 2, K = 30 on one PE, DRAM reads 4 elements per cycle: k grows in multiples of
    # 4 with at most 3 (10% of 30) of padding: 4, 8, 16 (tiles to 32) and 30; j (2) is
    # under its unit of 4 and stays whole. The first glb tile (1, 2, 4) leaves a partial
    # k tile of 2 at the edge; its figures equal the brute-force walk of tenet.oracle.tiles.
    arch = _one_pe({"read_bandwidth": 4}, 1000)
    problem = _gemm(arch, 2, 2, 30, "gemm-os-1d:pes=1")
    assert growth_sizes(30, 4) == [4, 8, 16, 30]
    tiling = build_tilings(problem)[0]
    assert tiling.tile_sizes("glb") == (1, 2, 4)
    text = to_stamps(tiling).tiles["glb"]
    metrics = evaluate_memory(problem, occupancy(problem).latency_compute, [("glb", isl.Map(text))])
    flow = load_dataflow("gemm-os-1d:pes=1").model_copy(update={"tiles": {"glb": text}})
    assert isinstance(flow, DataflowSpec)
    figures, need = reference_memory(load_workload("gemm"), arch, flow, {"M": 2, "N": 2, "K": 30})
    got = {(r.level, r.tensor): (r.footprint, r.fills, r.writebacks) for r in metrics.records}
    assert got == {key: (f.footprint, f.fills, f.writebacks) for key, f in figures.items()}
    assert metrics.summary("glb").footprint == need["glb"]


def test_without_alignment_inputs_the_sizes_divide() -> None:
    # No bandwidth, no banks and no padding allowed: divisors of the extents only.
    problem = _gemm(_one_pe({}, 40), 8, 8, 8, "gemm-os-1d:pes=1")
    assert all(8 % s == 0 for sizes in _glb_sizes(problem, epsilon=Fraction(0)) for s in sizes)


@pytest.mark.parametrize("epsilon", [Fraction(0), Fraction(1, 10)])
def test_growth_sizes_are_aligned(epsilon: Fraction) -> None:
    for size in growth_sizes(100, 8, epsilon):
        assert size == 100 or (size % 8 == 0 and -100 % size <= epsilon * 100)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(
    extents=st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 12)),
    bandwidth=st.sampled_from([None, 2, 4]),
    epsilon=st.sampled_from([Fraction(1, 10), Fraction(1, 5), Fraction(1, 3)]),
)
def test_constructed_tilings_equal_brute_force(
    extents: tuple[int, int, int], bandwidth: int | None, epsilon: Fraction
) -> None:
    # Whatever the alignment makes of the sizes (partial tiles included), the exact figures
    # of the constructed tilings are those of the brute-force walk.
    arch = _one_pe({} if bandwidth is None else {"read_bandwidth": bandwidth}, 1000)
    params = dict(zip("MNK", extents, strict=True))
    problem = load_problem("gemm", arch, "gemm-os-1d:pes=1", params=params)
    compute = occupancy(problem).latency_compute
    for tiling in build_tilings(problem, epsilon=epsilon)[:3]:
        for size, extent in zip(tiling.tile_sizes("glb"), extents, strict=True):
            assert size == extent or -extent % size <= epsilon * extent
        text = to_stamps(tiling).tiles["glb"]
        metrics = evaluate_memory(problem, compute, [("glb", isl.Map(text))])
        flow = load_dataflow("gemm-os-1d:pes=1").model_copy(update={"tiles": {"glb": text}})
        figures, _ = reference_memory(load_workload("gemm"), arch, flow, params)
        got = {(r.level, r.tensor): (r.footprint, r.fills, r.writebacks) for r in metrics.records}
        assert got == {key: (f.footprint, f.fills, f.writebacks) for key, f in figures.items()}
