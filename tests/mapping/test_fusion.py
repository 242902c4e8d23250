"""Fused mappings: what a nest must name, and the order of the tiles (a consumer's tile runs
after the producer tiles it reads)."""

from __future__ import annotations

import pytest
import yaml

from tenet.errors import DataflowError, SpecError, UnknownTensorError
from tenet.mapping.fusion import FusedNest
from tenet.metrics.fused_tiles import fused_tiles
from tenet.model.chain import Chain
from tenet.spec.chain import ChainSpec, load_chain


def _conv(H: int = 2) -> Chain:
    return Chain.from_spec(load_chain("conv-conv"), {"CI": 1, "C": 1, "K": 1, "H": H, "W": 1})


def test_fused_order_names_the_tile_that_breaks_it() -> None:
    """S0 fused over its own rows y with t = 2: tile 0 of S1 (output rows 0, 1) reads rows
    0..3 of T, but rows 2 and 3 are S0's tile 1."""
    nest = FusedNest({"S0": ("y",), "S1": ("y",)}, (2,))
    with pytest.raises(
        DataflowError,
        match=r"ranks.S0: tile Tile\[0\] of S1 reads T\[0, [23], [0-2]\], which S0 writes only "
        r"in the later tile Tile\[1\]",
    ):
        fused_tiles(_conv(), nest)


def test_fused_order_holds_for_a_producer_ahead() -> None:
    """S0 fused over y with one tile of all its 4 rows: S1's tile 0 reads only that tile."""
    fused = fused_tiles(_conv(), FusedNest({"S0": ("y",), "S1": ("y",)}, (4,)))
    assert fused.tiles.count_val().to_python() == 1  # S1's 2 rows and S0's 4 in Tile[0]


def test_fused_nest_needs_the_last_statement() -> None:
    chain = Chain.from_spec(load_chain("matmul-matmul"), {"M": 2, "N": 2, "K": 2, "P": 2})
    with pytest.raises(SpecError, match="ranks: the last statement S1 has no fused ranks"):
        fused_tiles(chain, FusedNest({"S0": ("m",)}, (1,)))


def test_fused_nest_unknown_rank() -> None:
    chain = Chain.from_spec(load_chain("matmul-matmul"), {"M": 2, "N": 2, "K": 2, "P": 2})
    with pytest.raises(
        SpecError, match=r"ranks.S1: S1 is fused over \('k',\) .* \('m', 'p', 'n'\)"
    ):
        fused_tiles(chain, FusedNest({"S1": ("k",)}, (1,)))


def test_fused_nest_unknown_statement() -> None:
    chain = Chain.from_spec(load_chain("matmul-matmul"), {"M": 2, "N": 2, "K": 2, "P": 2})
    with pytest.raises(SpecError, match=r"no statement 'S2' in the chain \(known: S0, S1\)"):
        fused_tiles(chain, FusedNest({"S1": ("m",), "S2": ("m",)}, (1,)))


def test_fused_nest_tile_size() -> None:
    chain = Chain.from_spec(load_chain("matmul-matmul"), {"M": 2, "N": 2, "K": 2, "P": 2})
    with pytest.raises(SpecError, match=r"tiles: tile sizes \(0,\): each is at least 1"):
        fused_tiles(chain, FusedNest({"S1": ("m",)}, (0,)))


def test_fused_nest_halo_rule() -> None:
    chain = Chain.from_spec(load_chain("matmul-matmul"), {"M": 2, "N": 2, "K": 2, "P": 2})
    nest = FusedNest({"S1": ("m",)}, (1,), halo="reuse")  # type: ignore[arg-type]
    with pytest.raises(SpecError, match="halo 'reuse': expected one of keep, recompute"):
        fused_tiles(chain, nest)


def test_fused_nest_resident_intermediate() -> None:
    chain = Chain.from_spec(load_chain("matmul-matmul"), {"M": 2, "N": 2, "K": 2, "P": 2})
    with pytest.raises(SpecError, match="resident: C is an intermediate"):
        fused_tiles(chain, FusedNest({"S1": ("m",)}, (1,), resident=frozenset({"C"})))
    with pytest.raises(UnknownTensorError, match="resident: tensor 'X'"):
        fused_tiles(chain, FusedNest({"S1": ("m",)}, (1,), resident=frozenset({"X"})))


def test_fused_nest_statement_feeding_nothing() -> None:
    spec = ChainSpec.from_mapping(
        yaml.safe_load(
            """
            name: apart
            statements:
              - {name: S0, domain: "{S0[i]: 0 <= i < 2}",
                 accesses: {A: {read: "{S0[i] -> A[i]}"}, B: {write: "{S0[i] -> B[i]}"}}}
              - {name: S1, domain: "{S1[i]: 0 <= i < 2}",
                 accesses: {A: {read: "{S1[i] -> A[i]}"}, C: {write: "{S1[i] -> C[i]}"}}}
            """
        )
    )
    with pytest.raises(SpecError, match="S0 writes B, which no later statement reads"):
        fused_tiles(Chain.from_spec(spec), FusedNest({"S1": ("i",)}, (1,)))


def test_fused_coverage_names_an_instance_run_nowhere() -> None:
    """S1 reads only the even elements S0 writes: the odd ones are never computed."""
    spec = ChainSpec.from_mapping(
        yaml.safe_load(
            """
            name: even
            statements:
              - {name: S0, domain: "{S0[i]: 0 <= i < 4}",
                 accesses: {A: {read: "{S0[i] -> A[i]}"}, B: {write: "{S0[i] -> B[i]}"}}}
              - {name: S1, domain: "{S1[i]: 0 <= i < 2}",
                 accesses: {B: {read: "{S1[i] -> B[2i]}"}, C: {write: "{S1[i] -> C[i]}"}}}
            """
        )
    )
    with pytest.raises(DataflowError, match=r"ranks.S0: S0\[[13]\] runs in no fused tile"):
        fused_tiles(Chain.from_spec(spec), FusedNest({"S1": ("i",)}, (1,)))
