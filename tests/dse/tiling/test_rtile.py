"""rTiles: Roller's worked examples derived by hand, and Q(T), F(T) against brute force."""

from __future__ import annotations

from fractions import Fraction

import islpy as isl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tenet.api import load_problem
from tenet.dse.tiling.rtile import (
    RTile,
    aligned_sizes,
    bank_conflicts,
    bank_padding,
    footprint,
    fuse_axes,
    fused_extents,
    next_aligned,
    reuse_score,
    traffic,
)
from tenet.errors import SpecError
from tenet.mapping import tiled_nest, to_stamps
from tenet.metrics.memory import evaluate_memory
from tenet.model import Workload
from tenet.spec import ArchitectureSpec

M = N = K = 16


def _gemm(m: int = M, n: int = N, k: int = K) -> Workload:
    return load_problem(
        "gemm", "systolic-2d-8x8", "gemm-os-systolic", params={"M": m, "N": n, "K": k}
    ).workload


def test_gemm_reads_shrink_with_the_output_tile() -> None:
    # Output tile i x j over the whole k: a tile reads i rows of A (i*k) and j columns of B
    # (k*j); there are mn/(ij) tiles, so reads = mnk (1/j + 1/i).
    #   1x1: 2mnk;  1x4: mnk (1 + 1/4) = 1.25mnk;  4x4: mnk (1/4 + 1/4) = 0.5mnk.
    w = _gemm()
    mnk = M * N * K
    assert traffic(RTile(w, {"i": 1, "j": 1})).loads == 2 * mnk
    assert traffic(RTile(w, {"i": 1, "j": 4})).loads == Fraction(5, 4) * mnk
    assert traffic(RTile(w, {"i": 4, "j": 4})).loads == Fraction(1, 2) * mnk
    # C is stored once per tile, each element once: mn stores, no partial sums reloaded.
    assert traffic(RTile(w, {"i": 4, "j": 4})).stores == M * N
    assert traffic(RTile(w, {"i": 4, "j": 4})).reloads == 0
    # Cutting k in two halves stores every element of C twice and loads it back once.
    assert traffic(RTile(w, {"i": 4, "j": 4, "k": K // 2})).reloads == M * N


def test_transactions_of_four_make_the_column_of_b_cost_four_times() -> None:
    # 4-element transactions, row-major: a 1x1 tile's row of A (k elements, k a multiple of
    # 4) costs k; its column of B touches k rows, one transaction of 4 each: 4k. Per tile 5k,
    # over mn tiles: 5mnk. The 4x4 tile reads 4 rows of A (4k) and a k x 4 block of B whose
    # rows are one aligned transaction each (4k): 8k per tile, mn/16 tiles: 0.5mnk; 10x less.
    w = _gemm()
    mnk = M * N * K
    one = traffic(RTile(w, {"i": 1, "j": 1}), transaction=4).loads
    four = traffic(RTile(w, {"i": 4, "j": 4}), transaction=4).loads
    assert one == 5 * mnk
    assert four == mnk // 2
    assert one == 10 * four


def test_rtile_4_4_2_loads_and_stores() -> None:
    # rTile (i=4, j=4, k=2): A[i, k] over 4x2, B[k, j] over 2x4, 4*4*2 = 32 MACs, C 4x4.
    tile = RTile(_gemm(), {"i": 4, "j": 4, "k": 2})
    tiles = tile.data_tiles()
    assert tiles["A"].is_equal(isl.Set("{A[i, k]: 0 <= i < 4 and 0 <= k < 2}"))
    assert tiles["B"].is_equal(isl.Set("{B[k, j]: 0 <= k < 2 and 0 <= j < 4}"))
    assert tiles["C"].is_equal(isl.Set("{C[i, j]: 0 <= i < 4 and 0 <= j < 4}"))
    assert tile.macs == 32
    assert footprint(tile) == 8 + 8 + 16


def test_axis_fusion() -> None:
    # 17, 11 and 3 are all awkward for units of 4: one axis of 17 * 11 * 3 = 561.
    assert fuse_axes([17, 11, 3], 4) == [(0, 1, 2)]
    assert fused_extents([17, 11, 3], 4) == [561]
    # An aligned axis stays; the awkward run after it fuses.
    assert fused_extents([64, 7, 7], 4) == [64, 49]


def test_bank_conflicts_and_padding() -> None:
    # [3, 4] block, 4 banks of one element, rows 4 apart: element (r, c) in bank c. A [3, 1]
    # piece (one column) puts its 3 elements in one bank: 2 extra cycles, 4 pieces: 8.
    # Padding by 1: rows 5 apart, bank (5r + c) % 4 = (r + c) % 4, distinct for r = 0, 1, 2.
    assert bank_conflicts((3, 4), (3, 1), 4) == 8
    assert bank_conflicts((3, 4), (3, 1), 4, padding=1) == 0
    assert bank_padding((3, 4), (3, 1), 4) == 1
    # Reading whole rows never conflicts.
    assert bank_conflicts((3, 4), (1, 4), 4) == 0


def test_alignment_bounds_the_padding() -> None:
    # 30 in multiples of 4 with 10% padding (3 elements): 4, 8, 16 pad 30 to 32 (2 extra),
    # 12 pads to 36 (6), 20 and 24 pad to 40 and 48; and the whole extent.
    assert aligned_sizes(30, 4, Fraction(1, 10)) == [4, 8, 16, 30]
    assert aligned_sizes(30, 4, Fraction(0)) == [30]
    assert next_aligned(30, 8, 4) == 16
    assert next_aligned(30, 30, 4) == 30


def test_reuse_score_prefers_the_square_tile() -> None:
    # From the 1x4 output tile (whole k), growing i to 2 saves more reads per element of
    # footprint than growing j to 8: with k = 16, Q(1x4) = 1.25 mnk + mn;
    # Q(2x4) = mnk (1/4 + 1/2) + mn, ΔQ = -0.5 mnk = -2048, ΔF = 16 (A row) + 4 (C) = 20;
    # Q(1x8) = mnk (1/8 + 1) + mn, ΔQ = -0.125 mnk = -512, ΔF = 64 (B) + 4 (C) = 68.
    tile = RTile(_gemm(), {"i": 1, "j": 4})
    assert reuse_score(tile, "i", 2) == Fraction(2048, 20)
    assert reuse_score(tile, "j", 8) == Fraction(512, 68)
    assert reuse_score(tile, "k", 16) is None


def test_unknown_axis_and_bad_sizes() -> None:
    with pytest.raises(SpecError, match="no loop 'x' to tile"):
        _ = RTile(_gemm(), {"x": 2}).shape
    with pytest.raises(SpecError, match="tile sizes are positive"):
        _ = RTile(_gemm(), {"i": 0}).shape
    with pytest.raises(SpecError, match="extents and units are positive"):
        aligned_sizes(0, 4)


def _points(obj: isl.Set) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []

    def visit(point: isl.Point) -> None:
        n = point.get_space().dim(isl.dim_type.set)
        out.append(
            tuple(point.get_coordinate_val(isl.dim_type.set, k).to_python() for k in range(n))
        )

    obj.foreach_point(visit)
    return out


def _brute(w: Workload, shape: dict[str, int], transaction: int) -> tuple[int, int, int, int]:
    """Walk every instance: per tile, the set of (tensor, row, segment) it touches."""
    n_dims = w.domain.dim(isl.dim_type.set)
    names = [w.domain.get_dim_name(isl.dim_type.set, k) for k in range(n_dims)]
    per_tile: dict[tuple[int, ...], dict[str, set[tuple[int, ...]]]] = {}
    exact: dict[tuple[int, ...], dict[str, set[tuple[int, ...]]]] = {}
    for point in _points(w.domain):
        tile = tuple(v // shape.get(n, 10**9) for v, n in zip(point, names, strict=True))
        here = isl.Set(f"{{{w.domain.get_tuple_name()}[{', '.join(map(str, point))}]}}")
        for tensor, _access, relation in w.accesses:
            kind = "out" if tensor in w.writes else "in"
            for element in _points(here.apply(relation)):
                seg = (*element[:-1], element[-1] // transaction)
                per_tile.setdefault(tile, {}).setdefault(kind + tensor, set()).add(seg)
                exact.setdefault(tile, {}).setdefault(tensor, set()).add(element)
    loads = sum(len(s) for t in per_tile.values() for k, s in t.items() if k.startswith("in"))
    stores = sum(len(s) for t in per_tile.values() for k, s in t.items() if k.startswith("out"))
    distinct: set[tuple[object, ...]] = set()
    for t in per_tile.values():
        for k, s in t.items():
            if k.startswith("out"):
                distinct |= {(k, *e) for e in s}
    first = tuple(0 for _ in names)
    largest = sum(len(s) for s in exact[first].values())
    reloads = stores - len(distinct)
    return loads * transaction, reloads * transaction, stores * transaction, largest


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    conv=st.booleans(),
    sizes=st.lists(st.integers(1, 4), min_size=6, max_size=6),
    extents=st.lists(st.integers(1, 4), min_size=6, max_size=6),
    transaction=st.integers(1, 3),
)
def test_traffic_and_footprint_equal_brute_force(
    conv: bool, sizes: list[int], extents: list[int], transaction: int
) -> None:
    if conv:
        keys = ["K", "C", "OX", "OY", "RX", "RY"]
        params = dict(zip(keys, [min(e, 2) for e in extents], strict=True))
        w = load_problem("conv2d", "systolic-2d-8x8", "conv2d-os", params=params).workload
        dims = ["k", "c", "ox", "oy", "rx", "ry"]
    else:
        w = _gemm(*extents[:3])
        dims = ["i", "j", "k"]
    shape = dict(zip(dims, sizes, strict=False))
    tile = RTile(w, shape)
    loads, reloads, stores, largest = _brute(w, shape, transaction)
    q = traffic(tile, transaction)
    assert (q.loads, q.reloads, q.stores) == (loads, reloads, stores)
    assert footprint(tile) == largest


def test_rtile_of_a_loop_nest_level() -> None:
    # GEMM 8^3 tiled 4 x 4 x 2 at glb: the rTile read off the nest has those sizes, and its
    # footprint A 4*2 + B 2*4 + C 4*4 = 32 is the exact per-level footprint of that tiling.
    problem = load_problem(
        "gemm",
        ArchitectureSpec.from_mapping(
            {"name": "a", "pe": "{PE[i]: i = 0}", "levels": [{"name": "dram"}, {"name": "glb"}]}
        ),
        "gemm-os-1d:pes=1",
        params={"M": 8, "N": 8, "K": 8},
    )
    nest = tiled_nest(
        ("i", "j", "k"), (8, 8, 8), "dram", [("glb", (4, 4, 2), (2, 0, 1))], (0, 1, 2)
    )
    tile = RTile.of(problem.workload, nest, "glb")
    assert tile.shape == (4, 4, 2)
    assert footprint(tile) == 4 * 2 + 2 * 4 + 4 * 4
    stamps = [(name, isl.Map(text)) for name, text in to_stamps(nest).tiles.items()]
    exact = evaluate_memory(problem, tiles=stamps).summary("glb").footprint
    assert exact == footprint(tile)


def test_counts_of_one_shape_follow_the_workloads_sizes() -> None:
    # Same tile (i=4, j=4, k=2) on GEMM 8³ then 16³ (the counts are kept per workload text):
    # A and B are loaded once per tile, mnk/32 tiles of 8 + 8 elements: mnk/2; C stored once
    # per tile, 16 elements: mnk/2. 8³: 256 each; 16³: 2048 each.
    for n in (8, 16, 8):
        w = load_problem(
            "gemm", "systolic-2d-8x8", "gemm-os-systolic", params={"M": n, "N": n, "K": n}
        ).workload
        moved = traffic(RTile(w, {"i": 4, "j": 4, "k": 2}))
        assert (moved.loads, moved.stores) == (n**3 // 2, n**3 // 2)
        assert RTile(w, {"i": 4, "j": 4, "k": 2}).extents == (n, n, n)
