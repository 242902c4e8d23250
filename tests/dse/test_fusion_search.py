"""The fusion search against brute force: on small chains, its best value is the least over
every candidate (every split into groups, every choice of each group, sub-tiles included) of
the figures the literal simulator (:mod:`tenet.oracle.fusion`) counts, under the buffer's
capacity."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from tenet.dse.fusion import FusionObjective, group_choices, search_fusion, splits
from tenet.errors import DataflowError, InfeasibleError
from tenet.mapping.fused_groups import FusedGroup
from tenet.metrics.fused_chain import FusionCosts
from tenet.model.chain import Chain
from tenet.oracle.fusion import walk_fusion
from tenet.spec.chain import ChainSpec, load_chain
from tenet.spec.fused import group_chain

COSTS = FusionCosts("glb", None, 200.0, 150.0, 6.0, 5.0, 1.0, "MAC", 3)
"""Costs with distinct energies, so that a wrong term changes the value."""

THREE = ChainSpec.from_mapping(
    {
        "name": "three",
        "statements": [
            {
                "name": f"S{k}",
                "domain": f"{{S{k}[y, r]: 0 <= y < {6 - 2 * k} and 0 <= r < 3}}",
                "accesses": {
                    ("I" if k == 0 else f"T{k - 1}"): {
                        "read": f"{{S{k}[y, r] -> {'I' if k == 0 else f'T{k - 1}'}[y + r]}}"
                    },
                    f"W{k}": {"read": f"{{S{k}[y, r] -> W{k}[r]}}"},
                    f"T{k}": {"write": f"{{S{k}[y, r] -> T{k}[y]}}"},
                },
            }
            for k in range(3)
        ],
    }
)
"""Three 3-tap windows in turn: 6, 4 and 2 rows."""


def _oracle(spec: ChainSpec, sizes: dict[str, int], group: FusedGroup) -> dict[str, Any] | None:
    """The simulator's figures of one group choice (None: the tiling breaks the order)."""
    part = group_chain(spec, group.statements)
    nest = group.nest
    try:
        walk = walk_fusion(
            part,
            sizes,
            nest.ranks,
            nest.tiles,
            halo=nest.halo,
            resident=nest.resident,
            subtiles=nest.subtiles,
        )
    except DataflowError:
        return None
    tensors = walk.tensors.values()
    reads = sum(t.dram_reads for t in tensors)
    writes = sum(t.dram_writes for t in tensors)
    fills = sum(t.fills for t in tensors)
    macs = sum(walk.macs.values())
    need = max(walk.needs)
    c = COSTS
    return {
        "dram": reads + writes,
        "energy": reads * c.dram_read
        + writes * (c.dram_write + c.buffer_read)
        + fills * c.buffer_write
        + macs * c.mac,
        "latency": sum(-(-m // c.pes) for m in walk.macs.values()),
        "need": need,
    }


_FIGURES: dict[tuple[str, bool], list[list[list[dict[str, Any] | None]]]] = {}
"""Per chain (with sub-tiles or not): per split, per group, the simulator's figures of each
choice (walked once)."""


def _figures(
    spec: ChainSpec, sizes: dict[str, int], subtiles: bool = False
) -> list[list[list[dict[str, Any] | None]]]:
    if (spec.name, subtiles) not in _FIGURES:
        bound = {**spec.params, **sizes}
        found = []
        for split in splits(tuple(s.name for s in spec.statements)):
            per_group = []
            for group in split:
                part = Chain.from_spec(group_chain(spec, group), bound)
                choices = group_choices(part, group, "glb", None, subtiles)
                per_group.append([_oracle(spec, sizes, c) for c in choices])
            found.append(per_group)
        _FIGURES[spec.name, subtiles] = found
    return _FIGURES[spec.name, subtiles]


def _brute_force(
    spec: ChainSpec,
    sizes: dict[str, int],
    objective: str,
    capacity: int | None,
    subtiles: bool = False,
) -> tuple[float | None, int, int]:
    """The least value over every whole-chain candidate that fits; the candidates; those
    that fit."""
    least: float | None = None
    space = fitting = 0
    for per_group in _figures(spec, sizes, subtiles):
        for candidate in itertools.product(*per_group):
            space += 1
            if any(f is None or (capacity is not None and f["need"] > capacity) for f in candidate):
                continue
            fitting += 1
            value = sum(f[objective] for f in candidate if f is not None)
            least = value if least is None else min(least, value)
    return least, space, fitting


CASES = [
    (load_chain("matmul-matmul"), {"M": 4, "K": 2, "N": 2, "P": 3}),
    (load_chain("conv-conv"), {"CI": 1, "C": 2, "K": 1, "H": 4, "W": 2}),
    (load_chain("pointwise-depthwise"), {"CI": 2, "C": 1, "H": 4, "W": 2}),
    (THREE, {}),
]


@pytest.mark.parametrize(("spec", "sizes"), CASES, ids=lambda c: getattr(c, "name", ""))
@pytest.mark.parametrize(
    ("objective", "tight"), [("dram", False), ("dram", True), ("energy", True), ("latency", False)]
)
def test_search_finds_the_least_over_the_simulators_counts(
    spec: ChainSpec, sizes: dict[str, int], objective: FusionObjective, tight: bool
) -> None:
    # tight: a buffer a little above the least need of the statements run unfused
    capacity = _least_need(spec, sizes) + 2 if tight else None
    least, space, fitting = _brute_force(spec, sizes, objective, capacity)
    assert (fitting < space) == tight
    chain = Chain.from_spec(spec, sizes)
    found = search_fusion(chain, objective, COSTS, capacity=capacity, subtiles=False)
    assert found.value == least
    assert (found.space, found.fitting) == (space, fitting)
    assert found.best.fits and "gap 0" in found.status()


SUBTILED = [
    pytest.param(*CASES[0], id="matmul-matmul"),
    pytest.param(*CASES[1], id="conv-conv", marks=pytest.mark.slow),
    pytest.param(*CASES[2], id="pointwise-depthwise", marks=pytest.mark.slow),
    pytest.param(*CASES[3], id="three"),
]


@pytest.mark.parametrize(("spec", "sizes"), SUBTILED)
@pytest.mark.parametrize(("objective", "tight"), [("energy", True)])
def test_search_with_subtiles_finds_the_least_over_the_simulators_counts(
    spec: ChainSpec, sizes: dict[str, int], objective: FusionObjective, tight: bool
) -> None:
    # The same, every group running one tile offered each statement's sub-tiles too.
    capacity = _least_need(spec, sizes) + 2 if tight else None
    least, space, fitting = _brute_force(spec, sizes, objective, capacity, subtiles=True)
    found = search_fusion(Chain.from_spec(spec, sizes), objective, COSTS, capacity=capacity)
    assert found.value == least
    assert (found.space, found.fitting) == (space, fitting)
    without = search_fusion(
        Chain.from_spec(spec, sizes), objective, COSTS, capacity=capacity, subtiles=False
    )
    assert found.value <= without.value and found.space > without.space


def _least_need(spec: ChainSpec, sizes: dict[str, int]) -> int:
    """The least need of the unfused split (its last entry): its largest group's least."""
    unfused = _figures(spec, sizes)[-1]
    return int(max(min(f["need"] for f in group if f is not None) for group in unfused))


def test_nothing_fits() -> None:
    chain = Chain.from_spec(load_chain("matmul-matmul"), {"M": 2, "K": 2, "N": 2, "P": 2})
    with pytest.raises(InfeasibleError, match="no fusion of chain matmul-matmul fits buffer glb"):
        search_fusion(chain, "dram", COSTS, capacity=2)
