"""Chains and their nests, fused and unfused, small enough for the oracle and AccelForge:
two and three matrix multiplies, and a pointwise then depthwise convolution (fused over
the channels). Each tile divides its rank, so AccelForge's counts are exact."""

from __future__ import annotations

from pathlib import Path

from tenet.mapping.fusion import FusedNest
from tenet.spec.chain import ChainSpec, load_chain

DATA = Path(__file__).parents[1] / "data" / "accelforge"


def _sized(name: str, sizes: dict[str, int]) -> ChainSpec:
    return load_chain(name).model_copy(update={"params": sizes})


def _nest(ranks: dict[str, tuple[str, ...]], tiles: tuple[int, ...], resident: str) -> FusedNest:
    return FusedNest(ranks, tiles, resident=frozenset(resident.split()), level="GlobalBuffer")


MM = _sized("matmul-matmul", {"M": 4, "N": 2, "K": 3, "P": 2})
MM3 = load_chain(DATA / "matmul3.yaml")
PD = _sized("pointwise-depthwise", {"CI": 2, "C": 4, "H": 2, "W": 2})
PD4 = _sized("pointwise-depthwise", {"CI": 2, "C": 2, "H": 4, "W": 2})

CASES: dict[str, tuple[ChainSpec, list[FusedNest]]] = {
    "mm-fused": (MM, [_nest({"S0": ("m",), "S1": ("m",)}, (1,), "B D")]),
    "mm-fused-streamed": (MM, [_nest({"S0": ("m",), "S1": ("m",)}, (2,), "D")]),
    "mm-unfused": (MM, [_nest({"S0": ()}, (), "A B C"), _nest({"S1": ("m",)}, (2,), "D")]),
    "mm-unfused-partial-sums": (
        MM,
        [_nest({"S0": ("k", "m")}, (1, 2), "A"), _nest({"S1": ("n",)}, (1,), "")],
    ),
    "mm3-fused": (MM3, [_nest({"S0": ("m",), "S1": ("m",), "S2": ("m",)}, (2,), "W0 W1 W2")]),
    "mm3-unfused": (
        MM3,
        [
            _nest({"S0": ("m",)}, (1,), "W0"),
            _nest({"S1": ()}, (), "B W1 C"),
            _nest({"S2": ("q",)}, (1,), "C"),
        ],
    ),
    "pd-fused": (PD, [_nest({"S0": ("c",), "S1": ("c",)}, (2,), "P D")]),
    "pd-unfused": (PD, [_nest({"S0": ("c",)}, (1,), "P"), _nest({"S1": ("y",)}, (1,), "D")]),
    "pd-unfused-rows": (
        PD4,
        [_nest({"S0": ("y",)}, (2,), "P"), _nest({"S1": ("y",)}, (2,), "D")],
    ),
}
