"""Exact memory figures: hand-derived tiled GEMM and conv halos, the oracle on random tilings
(two and three levels, per-PE levels, non-dividing tiles, stride and dilation), capacity
violations with their witness."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import islpy as isl
import pytest
from hypothesis import given, settings

from tenet.api import load_problem
from tenet.errors import DomainNotCoveredError, NotAFunctionError, SpecError, UnknownTensorError
from tenet.metrics.memory import _maximum, evaluate_memory
from tenet.oracle.tiles import reference_memory
from tenet.spec import ArchitectureSpec, DataflowSpec, Specs, load_architecture, load_workload
from tenet.testing.strategies import tiled_problems

HERE = Path(__file__).parent
LINE4 = str(HERE / "line4.yaml")
GEMM_TILED = str(HERE / "gemm-tiled.yaml")


def _dataflow(glb: str, rf: str | None = None, name: str = "t") -> DataflowSpec:
    tiles = {"glb": glb} | ({"rf": rf} if rf else {})
    return DataflowSpec.from_mapping(
        {
            "name": name,
            "space_stamp": "{S[i, j, k] -> PE[j % 4]}",
            "time_stamp": "{S[i, j, k] -> T[i, floor(j / 4), k]}",
            "tiles": tiles,
        }
    )


def _figures(problem_dataflow: DataflowSpec, arch: str = LINE4, **params: int) -> dict:
    p = load_problem("gemm", arch, problem_dataflow, params=params)
    m = evaluate_memory(p)
    return {(r.level, r.tensor): (r.footprint, r.fills, r.writebacks) for r in m.records}


def test_memory_gemm_by_hand_ijk() -> None:
    # GEMM 4x4x4, glb tiles 2x2x2 in the order (i, j, k): 8 tiles. A[i,k] depends on the
    # i and k tiles and k changes at every step: 8 tiles x 4 elements = 32 fills; B[k,j]
    # likewise 32. C[i,j] stays for the two k tiles, is never needed again: no fills; each
    # of the 4 C tiles leaves once: 16 writebacks. Footprints 4 each, 12 in all.
    p = load_problem("gemm", LINE4, GEMM_TILED, params={"M": 4, "N": 4, "K": 4})
    m = evaluate_memory(p)
    got = {(r.level, r.tensor): (r.footprint, r.fills, r.writebacks) for r in m.records}
    assert got[("glb", "A")] == (4, 32, 0)
    assert got[("glb", "B")] == (4, 32, 0)
    assert got[("glb", "C")] == (4, 0, 16)
    assert got[("dram", "A")] == (16, 0, 0)
    glb = m.summary("glb")
    assert (glb.footprint, glb.capacity, glb.fits) == (12, 12, True)
    # dram is read 64 times (the glb's fills) and written 16 (its writebacks), at 1/cycle.
    dram = m.summary("dram")
    assert (dram.accesses_read, dram.accesses_write, dram.latency) == (64, 16, Fraction(80))
    assert dram.energy == 200 * 80
    # glb: written 64 (fills), read 16 (writebacks) + what the rf level takes: the rf keeps
    # the glb tiles (no stamp of its own) per PE; j is spread over PEs.
    assert m.bottleneck == "dram" and m.latency == 80


def test_memory_gemm_by_hand_kij() -> None:
    # Order (k, i, j): A[i,k] stays over the two j tiles: 4 (i,k) tiles x 4 = 16 fills;
    # B[k,j] changes at each step: 32. C changes at each step: its 4 tiles of the second k
    # tile bring back partial sums: 16 fills; every tile writes C back: 8 x 4 = 32.
    got = _figures(
        _dataflow("{S[i, j, k] -> GLB[floor(k / 2), floor(i / 2), floor(j / 2)]}"), M=4, N=4, K=4
    )
    assert got[("glb", "A")] == (4, 16, 0)
    assert got[("glb", "B")] == (4, 32, 0)
    assert got[("glb", "C")] == (4, 16, 32)


def test_memory_gemm_tiles_that_do_not_divide() -> None:
    # M = N = K = 3, tiles of 2 in (i, j, k) order: i tiles {0,1},{2}; same for j and k.
    # A fills = sum over (i tile, j tile, k tile) of |A tile| = 2 (j tiles) x 9 = 18;
    # B fills = 2 (i tiles) x 9 = 18; C leaves once per (i, j) tile: 9 writebacks.
    # Largest tile: 4 + 4 + 4 = 12.
    got = _figures(
        _dataflow("{S[i, j, k] -> GLB[floor(i / 2), floor(j / 2), floor(k / 2)]}"), M=3, N=3, K=3
    )
    assert got[("glb", "A")] == (4, 18, 0)
    assert got[("glb", "B")] == (4, 18, 0)
    assert got[("glb", "C")] == (4, 0, 9)


@pytest.mark.parametrize(("stride", "dilation"), [(1, 1), (2, 1), (1, 2), (3, 1)])
def test_memory_conv_halo_exact(stride: int, dilation: int) -> None:
    # One row: O[ox] += I[s*ox + d*rx] * W[rx], OX = 8, RX = 3, tiles of 4 outputs. An input
    # tile spans s*(4 - 1) + d*(3 - 1) + 1 elements (the halo; T_ox + R - 1 when s = d = 1;
    # contiguous when s = 1 or d = 1, the random cases of the oracle test cover the rest).
    # The second tile starts at input 4s and the first ends at 3s + 2d: they share
    # max(0, 3s + 2d - 4s + 1) elements, so fills = 2 * span - shared.
    arch = ArchitectureSpec.from_mapping(
        {"name": "one", "pe": "{PE[p]: p = 0}", "levels": [{"name": "dram"}, {"name": "glb"}]}
    )
    dataflow = DataflowSpec.from_mapping(
        {
            "name": "rows",
            "space_stamp": "{S[k, c, ox, oy, rx, ry] -> PE[0]}",
            "time_stamp": "{S[k, c, ox, oy, rx, ry] -> T[ox, rx]}",
            "tiles": {"glb": "{S[k, c, ox, oy, rx, ry] -> GLB[floor(ox / 4)]}"},
        }
    )
    params = {"K": 1, "C": 1, "OX": 8, "OY": 1, "RX": 3, "RY": 1}
    workload = load_workload(f"conv2d:stride={stride},dilation={dilation}")
    p = load_problem(workload, arch, dataflow, params=params)
    m = evaluate_memory(p)
    span = stride * 3 + dilation * 2 + 1
    shared = max(0, 3 * stride + 2 * dilation - 4 * stride + 1)
    assert m.record("glb", "I").footprint == span
    assert m.record("glb", "I").fills == 2 * span - shared
    assert m.record("glb", "W").fills == 3
    assert m.record("glb", "O").writebacks == 8


@settings(max_examples=80)
@given(tiled_problems())
def test_memory_equals_oracle(drawn: Specs) -> None:
    problem, params = drawn, dict(drawn.params)
    p = load_problem(problem.workload, problem.architecture, problem.dataflow, params=params)
    m = evaluate_memory(p, latency_compute=0)
    figures, need = reference_memory(
        problem.workload, problem.architecture, problem.dataflow, params
    )
    got = {(r.level, r.tensor): (r.footprint, r.fills, r.writebacks) for r in m.records}
    assert got == {k: (f.footprint, f.fills, f.writebacks) for k, f in figures.items()}
    assert {s.level: s.footprint for s in m.levels} == need


def test_memory_capacity_violation_names_the_tile() -> None:
    arch = load_architecture(LINE4).model_copy(
        update={
            "levels": tuple(
                lv.model_copy(update={"capacity": 11}) if lv.name == "glb" else lv
                for lv in load_architecture(LINE4).levels
            )
        }
    )
    p = load_problem("gemm", arch, GEMM_TILED, params={"M": 4, "N": 4, "K": 4})
    m = evaluate_memory(p)
    assert not m.fits
    (violation,) = m.violations
    assert violation.level == "glb" and violation.need == 12
    assert not m.record("glb", "A").fits and m.record("rf", "A").fits
    assert violation.message.startswith("tile glb[")
    assert "needs 12 elements of glb, which holds 11" in violation.message


def test_memory_split_capacity_per_tensor() -> None:
    arch = ArchitectureSpec.from_mapping(
        {
            "name": "split",
            "pe": "{PE[p]: 0 <= p < 4}",
            "levels": [{"name": "dram"}, {"name": "glb", "split": {"A": 4, "B": 4, "C": 3}}],
        }
    )
    p = load_problem("gemm", arch, GEMM_TILED, params={"M": 4, "N": 4, "K": 4})
    m = evaluate_memory(p)
    assert [(v.tensor, v.need, v.capacity) for v in m.violations] == [("C", 4, 3)]
    assert m.record("glb", "A").capacity == 4 and m.record("glb", "A").fits


def test_memory_split_names_unknown_tensor() -> None:
    arch = ArchitectureSpec.from_mapping(
        {
            "name": "split",
            "pe": "{PE[p]: 0 <= p < 4}",
            "levels": [{"name": "dram"}, {"name": "glb", "split": {"X": 4}}],
        }
    )
    p = load_problem("gemm", arch, GEMM_TILED, params={"M": 4, "N": 4, "K": 4})
    with pytest.raises(UnknownTensorError, match="'X' is not in the workload"):
        evaluate_memory(p)


def test_memory_untiled_architecture_has_one_dram() -> None:
    p = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic", params={"M": 8, "N": 8})
    m = evaluate_memory(p)
    assert [s.level for s in m.levels] == ["dram"]
    # the whole of A (8 x 64), B (64 x 8) and C (8 x 8) lies in DRAM.
    assert [r.footprint for r in m.records] == [8 * 64, 64 * 8, 8 * 8]


def test_memory_stamp_for_unknown_level() -> None:
    p = load_problem(
        "gemm",
        LINE4,
        _dataflow("{S[i, j, k] -> X[i]}").model_copy(
            update={"tiles": {"l3": "{S[i, j, k] -> X[i]}"}}
        ),
        params={"M": 2, "N": 2, "K": 2},
    )
    with pytest.raises(SpecError, match=r"tiles\.l3: the architecture has no memory level"):
        evaluate_memory(p)


def test_memory_stamp_for_outermost_level() -> None:
    df = _dataflow("{S[i, j, k] -> X[i]}").model_copy(
        update={"tiles": {"dram": "{S[i,j,k] -> D[i]}"}}
    )
    p = load_problem("gemm", LINE4, df, params={"M": 2, "N": 2, "K": 2})
    with pytest.raises(SpecError, match="outermost level"):
        evaluate_memory(p)


def test_memory_stamp_missing_instances() -> None:
    p = load_problem(
        "gemm", LINE4, _dataflow("{S[i, j, k] -> G[i]: i < 1}"), params={"M": 2, "N": 2, "K": 2}
    )
    with pytest.raises(DomainNotCoveredError, match=r"tiles\.glb: instance S\[1, .*has no tile"):
        evaluate_memory(p)


def test_memory_stamp_not_a_function() -> None:
    p = load_problem(
        "gemm",
        LINE4,
        _dataflow("{S[i, j, k] -> G[t]: 0 <= t <= 1}"),
        params={"M": 2, "N": 2, "K": 2},
    )
    with pytest.raises(NotAFunctionError, match=r"tiles\.glb: an instance of tile"):
        evaluate_memory(p)


def test_memory_stamp_wrong_statement() -> None:
    p = load_problem("gemm", LINE4, _dataflow("{S[i, j] -> G[i]}"), params={"M": 2, "N": 2, "K": 2})
    with pytest.raises(SpecError, match=r"tiles\.glb: maps S with 2 indices"):
        evaluate_memory(p)


@pytest.mark.parametrize(
    ("counts", "largest"),
    [
        # i (10 - i) peaks at i = 5: isl's bound (50) is not tight, the maximum is searched
        ("{ [i] -> i * (10 - i) : 0 <= i <= 10 }", 25),
        # floor(i / 3) (7 - i): 1 * 4 at i = 3, 2 * 1 at i = 6 (bound 49/6, not tight)
        ("{ [i] -> floor(i / 3) * (7 - i) : 0 <= i <= 7 }", 4),
        # per PE p < 4 over i in [p, 6): (p + 1)(5 - p) is 5, 8, 9, 8: a tight bound per PE
        ("{ [P[p] -> L[i]] -> (p + 1) * (i - p) : 0 <= p < 4 and p <= i < 6 }", 9),
        # the count of a per-PE level of a modulo placement: 3 for p < 8, 2 after
        ("{ [P[p] -> L[i]] -> 3 - floor((p + 8) / 16) : 0 <= p < 16 and 0 <= i < 2 }", 3),
        ("{ [P[p] -> L[i]] -> 7 : p < 0 and p > 0 }", 0),
    ],
)
def test_the_largest_count_per_key(counts: str, largest: int) -> None:
    # against the hand values above and every point listed
    per_key = isl.PwQPolynomial(counts)
    values: list[int] = []
    for domain, poly in per_key.get_pieces():
        points: list[isl.Point] = []
        domain.foreach_point(points.append)
        values += [int(poly.eval(point).to_python()) for point in points]
    assert _maximum(per_key) == largest == max(values, default=0)
