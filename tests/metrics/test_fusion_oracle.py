"""The exact counts of fused chains agree with the literal simulator (tenet.oracle.fusion):
on the zoo's chains at small sizes, and on random small chains (or both refuse the order)."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings

from tenet.mapping.fusion import FusedNest
from tenet.metrics.fusion import assess_fusion
from tenet.model.chain import Chain
from tenet.spec.chain import ChainSpec, load_chain
from tenet.testing.chain_strategies import FusedCase, fused_cases
from tenet.vocab import Halo
from tests.metrics.fused_figures import both


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
    exact, walked = both(FusedCase(spec, {"S1": (rank,)}, (t,), halo, resident), sizes)
    assert exact == walked


@settings(max_examples=40)
@given(fused_cases())
def test_fusion_oracle_random_chains(case: FusedCase) -> None:
    exact, walked = both(case)
    assert exact == walked


def test_fusion_oracle_rank_names_of_our_own() -> None:
    """Ranks named like the relations' own indices (j0, x1) are tiled by their names."""
    spec = ChainSpec.from_mapping(
        yaml.safe_load(
            """
            name: names
            statements:
              - {name: S0, domain: "{S0[x1, j0]: 0 <= x1 < 3 and 0 <= j0 < 5}",
                 accesses: {A: {read: "{S0[x1, j0] -> A[j0, x1]}"},
                            B: {write: "{S0[x1, j0] -> B[j0]}"}}}
              - {name: S1, domain: "{S1[x0, j0]: 0 <= x0 < 2 and 0 <= j0 < 4}",
                 accesses: {B: {read: "{S1[x0, j0] -> B[j0 + x0]}"},
                            C: {write: "{S1[x0, j0] -> C[j0]}"}}}
            """
        )
    )
    exact, walked = both(FusedCase(spec, {"S1": ("j0",)}, (2,), "recompute", frozenset()))
    assert exact == walked
    counts = assess_fusion(Chain.from_spec(spec), FusedNest({"S1": ("j0",)}, (2,)))
    # Tile j: C[2j, 2j + 1] read B[2j .. 2j + 2]; S0 makes B[k] with 3 instances each.
    assert counts.tensors["B"].footprints == (3, 3)
    assert counts.macs["S0"] == 5 * 3
