"""Exact counts of fused chains against hand derivations: two matrix multiplies fused over the
rows at three tile sizes (weights streamed and resident), and two 3x3 convolutions fused over
the output rows with the halo kept and recomputed."""

from __future__ import annotations

import pytest

from tenet.errors import CapacityError
from tenet.mapping.fusion import FusedNest
from tenet.metrics.fusion import FusedCounts, assess_fusion
from tenet.model.chain import Chain
from tenet.spec.chain import load_chain

MM = {"M": 6, "K": 3, "N": 4, "P": 5}
"""C = A B (6 x 3 times 3 x 4), then E = C D (6 x 4 times 4 x 5)."""

CONV = {"CI": 2, "C": 2, "K": 3, "H": 6, "W": 3}
"""I (2 x 10 x 7) -> T (2 x 8 x 5) -> O (3 x 6 x 3), 3x3 filters F (2x2x3x3), G (3x2x3x3)."""


def _matmul(t: int, resident: frozenset[str]) -> FusedCounts:
    chain = Chain.from_spec(load_chain("matmul-matmul"), MM)
    return assess_fusion(chain, FusedNest({"S1": ("m",)}, (t,), resident=resident))


@pytest.mark.parametrize("t", [1, 2, 4])
@pytest.mark.parametrize("resident", [frozenset(), frozenset({"B", "D"})])
def test_fusion_matmul_matmul_counts(t: int, resident: frozenset[str]) -> None:
    M, K, N, P = MM["M"], MM["K"], MM["N"], MM["P"]
    counts = _matmul(t, resident)
    # Tile j holds rows m in [jt, jt + t) of E, so rows r_j = min(t, M - jt); S0 runs the
    # same rows of C (all of n and k): each row of A, C and E lives in one tile only.
    rows = [min(t, M - j * t) for j in range(-(-M // t))]
    assert counts.tiles == tuple((j,) for j in range(len(rows)))
    a, b, c, d, e = (counts.tensors[x] for x in "ABCDE")
    assert (a.dram_reads, a.footprints) == (M * K, tuple(r * K for r in rows))
    # B (K x N) and D (N x P) are read whole by every tile: once when resident, per tile
    # when streamed; every tile after the first reads them again (its halo).
    weights = 1 if resident else len(rows)
    assert (b.dram_reads, b.fills, b.footprint) == (weights * K * N, weights * K * N, K * N)
    assert (d.dram_reads, d.footprint) == (weights * N * P, N * P)
    assert b.halos == (0,) + (K * N,) * (len(rows) - 1)
    # C never leaves the buffer: r_j rows of N elements are produced and read in tile j.
    assert (c.dram_reads, c.dram_writes, c.fills) == (0, 0, M * N)
    assert c.footprints == tuple(r * N for r in rows) and c.halo == 0
    # E: r_j whole rows per tile, each element reduced within one tile: written once.
    assert (e.dram_reads, e.dram_writes) == (0, M * P)
    assert counts.macs["S0"] == M * N * K
    assert counts.macs["S1"] == M * P * N
    assert counts.recomputed["S0"] == counts.recomputed["S1"] == 0
    assert counts.needs == tuple(r * K + K * N + r * N + N * P + r * P for r in rows)


def test_fusion_matmul_capacity_error() -> None:
    # t = 2: need 2*3 + 3*4 + 2*4 + 4*5 + 2*5 = 56 elements in every tile.
    chain = Chain.from_spec(load_chain("matmul-matmul"), MM)
    counts = assess_fusion(chain, FusedNest({"S1": ("m",)}, (2,), level="glb", capacity=55))
    assert counts.need == 56 and not counts.fits
    with pytest.raises(CapacityError, match=r"^buffer glb needs 56 elements in tile Tile\[0\] "):
        counts.require_fit()
    assess_fusion(chain, FusedNest({"S1": ("m",)}, (2,), capacity=56)).require_fit()


def test_fusion_matmul_explicit_producer_is_the_derived_one() -> None:
    """Fusing S0 over its own rows m gives the tiles the derivation gives."""
    chain = Chain.from_spec(load_chain("matmul-matmul"), MM)
    derived = assess_fusion(chain, FusedNest({"S1": ("m",)}, (2,)))
    explicit = assess_fusion(chain, FusedNest({"S0": ("m",), "S1": ("m",)}, (2,)))
    assert derived == explicit


@pytest.mark.parametrize("t", [1, 2, 3])
@pytest.mark.parametrize("halo", ["keep", "recompute"])
def test_fusion_conv_conv_halo(t: int, halo: str) -> None:
    CI, C, K, H, W = (CONV[k] for k in ("CI", "C", "K", "H", "W"))
    chain = Chain.from_spec(load_chain("conv-conv"), CONV)
    counts = assess_fusion(
        chain, FusedNest({"S1": ("y",)}, (t,), halo=halo, resident=frozenset({"F", "G"}))
    )
    tiles = H // t
    kept = halo == "keep"
    row_t, row_i = (W + 2) * C, (W + 4) * CI  # one row of T, one row of I
    macs_t = 9 * CI  # MACs per element of T
    i, tt, o = counts.tensors["I"], counts.tensors["T"], counts.tensors["O"]
    # Tile j computes output rows [jt, jt + t), which read rows [jt, jt + t + 2) of T: t + 2
    # rows live per tile (kept: the 2 halo rows from before and t new ones).
    assert tt.footprints == ((t + 2) * row_t,) * tiles
    assert tt.halos == (0,) + (2 * row_t,) * (tiles - 1)
    assert (tt.dram_reads, tt.dram_writes) == (0, 0)
    # S0 runs each of the H + 2 rows of T once when kept; t + 2 rows in every tile otherwise.
    computed = (H + 2) * row_t if kept else tiles * (t + 2) * row_t
    assert tt.fills == computed
    assert counts.macs["S0"] == computed * macs_t
    assert counts.recomputed["S0"] == computed * macs_t - (H + 2) * row_t * macs_t
    assert counts.macs["S1"] == H * W * K * C * 9
    # I: rows [a, b] of T need rows [a, b + 2] of I. Kept: tile 0 computes T rows [0, t + 1]
    # (t + 4 rows of I), tile j > 0 rows [jt + 2, jt + t + 1] (t + 2 rows of I, the first 2
    # read before too). Recomputed: every tile T rows [jt, jt + t + 1], t + 4 rows of I, the
    # first 4 read before.
    if kept:
        assert i.footprints == ((t + 4) * row_i,) + ((t + 2) * row_i,) * (tiles - 1)
        assert i.halos == (0,) + (2 * row_i,) * (tiles - 1)
    else:
        assert i.footprints == ((t + 4) * row_i,) * tiles
        assert i.halos == (0,) + (4 * row_i,) * (tiles - 1)
    assert i.dram_reads == sum(i.footprints)  # streamed: each tile loads what it reads
    assert counts.tensors["F"].dram_reads == C * CI * 9  # resident: once
    assert counts.tensors["G"].dram_reads == K * C * 9
    assert (o.dram_writes, o.footprints) == (K * H * W, (K * t * W,) * tiles)
