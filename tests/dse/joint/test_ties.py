"""Ties by the other objective: among the mappings of the best value, the joint search returns
one of least other objective (the energy by latency, the latency by energy), pruning a node
only when its bounds of both, compared in that order, are not below the best's figures. On
small GEMMs over 2x2 PEs whose DRAM is fast enough that many tilings run at the array's
compute latency, the best equals brute force over every array mapping and tiling, counted
exactly; a budget of ties leaves the best value and its proof as they are."""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import pytest

from tenet.api import load_problem
from tenet.dse.joint.tree import TIES, joint_search
from tenet.dse.ranking.certificate import Certificate
from tenet.dse.tiling.sizes import TilingSpace, tilings
from tenet.mapping import place_maps, tile_maps
from tenet.metrics.latency import occupancy
from tenet.metrics.memory import evaluate_memory, level_needs
from tenet.spec import ArchitectureSpec
from tenet.vocab import MemoryObjective
from tests.dse.joint.test_search import GEMM

ARCH = ArchitectureSpec.from_mapping(
    {
        "name": "fast-dram",
        "pe": "{PE[i, j]: 0 <= i < 2 and 0 <= j < 2}",
        "interconnect": [
            {"link": "{PE[i, j] -> PE[i + 1, j]}", "delay": 1},
            {"link": "{PE[i, j] -> PE[i, j + 1]}", "delay": 1},
        ],
        "levels": [
            {
                "name": "dram",
                "read_bandwidth": 8,
                "write_bandwidth": 8,
                "energy_read": 100,
                "energy_write": 100,
            },
            {
                "name": "glb",
                "capacity": 32,
                "read_bandwidth": 8,
                "write_bandwidth": 8,
                "energy_read": 6,
                "energy_write": 6,
            },
        ],
    }
)
MAPPINGS = GEMM[2]
"""Output and weight stationary over the 2x2 PEs."""


@cache
def figures(m: int, n: int, k: int) -> tuple[tuple[Fraction, Fraction], ...]:
    """(latency, energy) of every tiling of the global buffer that fits, of both mappings."""
    found = []
    for mapping in MAPPINGS:
        problem = load_problem("gemm", ARCH, mapping, {"M": m, "N": n, "K": k})
        compute = occupancy(problem).latency_compute
        for nest in tilings(problem, TilingSpace(["glb"])):
            stamps, places = tile_maps(nest), place_maps(nest)
            if not level_needs(problem, stamps, places)[1]:
                continue
            memory = evaluate_memory(problem, compute, stamps, places)
            found.append((Fraction(memory.latency), Fraction(memory.energy)))
    return tuple(found)


def least(objective: MemoryObjective, sizes: tuple[int, int, int]) -> tuple[Fraction, Fraction]:
    """The least (objective, other objective) of brute force, compared in that order."""
    pairs = figures(*sizes)
    return min(pairs) if objective == "latency" else min((e, t) for t, e in pairs)


def search(
    objective: MemoryObjective, sizes: tuple[int, int, int], seed: bool, ties: int | None
) -> Certificate:
    m, n, k = sizes
    params = {"M": m, "N": n, "K": k}
    space = TilingSpace(["glb"])
    return joint_search(
        "gemm", ARCH, MAPPINGS, params, space, objective=objective, seed=seed, ties=ties
    )


def pair(found: Certificate) -> tuple[Fraction, Fraction]:
    """The best's (objective, other objective)."""
    latency, energy = Fraction(found.best.memory.latency), Fraction(found.best.memory.energy)
    return (latency, energy) if found.objective == "latency" else (energy, latency)


SIZES = (4, 8, 8)


def test_the_brute_force_case_has_ties_of_several_energies() -> None:
    # GEMM 4x8x8 on 4 PEs: 256 MACs a cycle's 4, 64 cycles at least; the DRAM (8 elements a
    # cycle) takes at least 64 + 64 + 32 = 160 elements, 20 cycles: many tilings run at 64
    pairs = figures(*SIZES)
    fastest = min(t for t, _ in pairs)
    assert fastest == 64
    assert len({e for t, e in pairs if t == fastest}) > 1
    thriftiest = min(e for _, e in pairs)
    assert len({t for t, e in pairs if e == thriftiest}) > 1


@pytest.mark.parametrize("objective", ["latency", "energy"])
@pytest.mark.parametrize("seed", [False, True], ids=["unseeded", "seeded"])
def test_ties_go_to_the_least_other_objective(objective: MemoryObjective, seed: bool) -> None:
    found = search(objective, SIZES, seed, None)
    assert pair(found) == least(objective, SIZES)
    assert found.bound == found.best.value and found.complete and found.ties_open == 0


@pytest.mark.parametrize("objective", ["latency", "energy"])
def test_a_budget_of_ties_keeps_the_best_value_and_its_proof(objective: MemoryObjective) -> None:
    # none, or a few, of the nodes that could only tie searched: the first leaves of the
    # best value stand, its proof as it was
    value, other = least(objective, SIZES)
    for ties in (0, TIES):
        found = search(objective, SIZES, True, ties)
        assert found.best.value == found.bound == value and found.complete
        assert pair(found)[1] >= other
        assert found.ties_open > 0 or pair(found)[1] == other


@pytest.mark.slow
@pytest.mark.parametrize("sizes", [(8, 8, 8), (8, 4, 8), (4, 4, 8), (2, 8, 16)], ids=str)
@pytest.mark.parametrize("objective", ["latency", "energy"])
def test_ties_on_a_grid_of_gemms(objective: MemoryObjective, sizes: tuple[int, int, int]) -> None:
    found = search(objective, sizes, True, None)
    assert pair(found) == least(objective, sizes)
    assert found.bound == found.best.value and found.complete and found.ties_open == 0
