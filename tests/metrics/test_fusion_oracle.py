"""The exact counts of fused chains agree with the literal simulator (tenet.oracle.fusion):
on the zoo's chains at small sizes, and on random small chains (or both refuse the order)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

from tenet.errors import DataflowError
from tenet.mapping.fusion import FusedNest
from tenet.metrics.fusion import FusedCounts, assess_fusion
from tenet.model.chain import Chain
from tenet.oracle.fusion import FusionWalk, walk_fusion
from tenet.spec.chain import load_chain
from tenet.testing.chain_strategies import FusedCase, fused_cases
from tenet.vocab import Halo


def _exact(counts: FusedCounts) -> dict[str, Any]:
    return {
        "tiles": list(counts.tiles),
        "tensors": {
            name: (t.dram_reads, t.dram_writes, t.fills, list(t.footprints), list(t.halos))
            for name, t in counts.tensors.items()
        },
        "macs": {name: s.macs for name, s in counts.statements.items()},
        "recomputed": {name: s.recomputed for name, s in counts.statements.items()},
    }


def _walked(walk: FusionWalk) -> dict[str, Any]:
    return {
        "tiles": walk.tiles,
        "tensors": {
            name: (t.dram_reads, t.dram_writes, t.fills, t.footprints, t.halos)
            for name, t in walk.tensors.items()
        },
        "macs": walk.macs,
        "recomputed": walk.recomputed,
    }


def _compare(case: FusedCase, sizes: dict[str, int] | None = None) -> None:
    chain = Chain.from_spec(case.chain, sizes)
    nest = FusedNest(case.ranks, case.tiles, halo=case.halo, resident=case.resident)
    try:
        exact = _exact(assess_fusion(chain, nest))
    except DataflowError:
        with pytest.raises(DataflowError):
            walk_fusion(case.chain, sizes or {}, case.ranks, case.tiles, halo=case.halo)
        return
    walk = walk_fusion(
        case.chain, sizes or {}, case.ranks, case.tiles, halo=case.halo, resident=case.resident
    )
    assert exact == _walked(walk)


@pytest.mark.parametrize(
    ("name", "sizes", "rank"),
    [
        ("matmul-matmul", {"M": 5, "K": 2, "N": 3, "P": 2}, "m"),
        ("conv-conv", {"CI": 1, "C": 2, "K": 1, "H": 5, "W": 2}, "y"),
        ("pointwise-depthwise", {"CI": 2, "C": 2, "H": 5, "W": 2}, "y"),
    ],
)
@pytest.mark.parametrize("halo", ["keep", "recompute"])
@pytest.mark.parametrize("t", [1, 2, 3])
def test_fusion_oracle_zoo_chains(
    name: str, sizes: dict[str, int], rank: str, halo: Halo, t: int
) -> None:
    spec = load_chain(name)
    resident = frozenset(spec.inputs[1:])  # the weights
    _compare(FusedCase(spec, {"S1": (rank,)}, (t,), halo, resident), sizes)


@settings(max_examples=40)
@given(fused_cases())
def test_fusion_oracle_random_chains(case: FusedCase) -> None:
    _compare(case)
