"""The joint search: on a GEMM 32³ and a small convolution, two memory levels and two array
mappings, its best equals brute force over the whole space (every array mapping, every tiling
evaluated by the exhaustive tiling search), its bound equals the best (gap 0), and it counts at
most a tenth of the space exactly."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from tenet.api import load_problem
from tenet.counting import count
from tenet.dse.joint.declared import bypass_choices, compute_floor, space_size
from tenet.dse.joint.subtree import Subtree, Tally, search_subtree
from tenet.dse.joint.tree import joint_search
from tenet.dse.ranking.certificate import Certificate
from tenet.dse.run.budget import Allowance
from tenet.dse.run.execution import ExecutionOptions
from tenet.dse.space.design import DesignSpace, SpaceOptions
from tenet.dse.tiling.exhaustive import search_tiling
from tenet.dse.tiling.sizes import TilingSpace
from tenet.errors import CapacityError, TimeBudgetError
from tenet.metrics.latency import occupancy
from tenet.spec import ArchitectureSpec, DataflowSpec, Specs, load_architecture, load_workload
from tenet.vocab import MemoryObjective

LEVELS = [
    {
        "name": "dram",
        "read_bandwidth": 1,
        "write_bandwidth": 1,
        "energy_read": 100,
        "energy_write": 100,
    },
    {
        "name": "glb",
        "capacity": 64,
        "read_bandwidth": 4,
        "write_bandwidth": 4,
        "energy_read": 6,
        "energy_write": 6,
    },
]
"""DRAM and a shared buffer of 64 elements (bandwidths in elements a cycle, energies per
access)."""
ARCH = ArchitectureSpec.from_mapping(
    {
        "name": "two-levels",
        "pe": "{PE[i, j]: 0 <= i < 2 and 0 <= j < 2}",
        "interconnect": [
            {"link": "{PE[i, j] -> PE[i + 1, j]}", "delay": 1},
            {"link": "{PE[i, j] -> PE[i, j + 1]}", "delay": 1},
        ],
        "levels": LEVELS,
    }
)

GEMM = (
    "gemm",
    {"M": 32, "N": 32, "K": 32},
    [
        DataflowSpec(
            name="os",
            space_stamp="{S[i, j, k] -> PE[i % 2, j % 2]}",
            time_stamp="{S[i, j, k] -> T[floor(i / 2), floor(j / 2), k]}",
        ),
        DataflowSpec(
            name="ws",
            space_stamp="{S[i, j, k] -> PE[k % 2, j % 2]}",
            time_stamp="{S[i, j, k] -> T[floor(k / 2), floor(j / 2), i + k % 2 + j % 2]}",
        ),
    ],
    None,
)
CONV = (
    "conv2d",
    {"K": 4, "C": 4, "OX": 4, "OY": 4, "RX": 3, "RY": 1},
    [
        DataflowSpec(
            name="kc",
            space_stamp="{S[k, c, ox, oy, rx, ry] -> PE[k % 2, c % 2]}",
            time_stamp="{S[k, c, ox, oy, rx, ry] -> T[floor(k / 2), floor(c / 2), ox, oy, rx]}",
        ),
        DataflowSpec(
            name="kox",
            space_stamp="{S[k, c, ox, oy, rx, ry] -> PE[k % 2, ox % 2]}",
            time_stamp="{S[k, c, ox, oy, rx, ry] -> T[floor(k / 2), floor(ox / 2), c, oy, rx]}",
        ),
    ],
    ["k", "c", "oy"],
)


def brute_force(case: tuple[Any, ...], objective: MemoryObjective) -> Any:
    workload, params, mappings, dims = case
    values = []
    for mapping in mappings:
        problem = load_problem(workload, ARCH, mapping, params)
        found = search_tiling(problem, TilingSpace(["glb"], dims), objective=objective)
        values.append(found.best.value)
    return min(values)


@pytest.mark.slow
@pytest.mark.parametrize("case", [GEMM, CONV], ids=["gemm", "conv"])
@pytest.mark.parametrize("objective", ["latency", "energy"])
def test_joint_search_equals_brute_force(case: tuple[Any, ...], objective: MemoryObjective) -> None:
    workload, params, mappings, dims = case
    found = joint_search(
        workload,
        ARCH,
        mappings,
        params,
        TilingSpace(["glb"], dims),
        objective=objective,
        seed=False,
    )
    best = brute_force(case, objective)
    assert found.best.value == best
    assert found.bound == best and found.gap == 0 and found.complete
    assert found.evaluated * 10 <= found.space


def test_joint_search_small_gemm_with_bypass() -> None:
    # GEMM 4x4x4 on systolic-levels-8x8 (glb and rf): the bound is the compute latency or the
    # DRAM's compulsory traffic, and the search proves its best optimal
    found = joint_search(
        "gemm", "systolic-levels-8x8", ["gemm-os-systolic"], {"M": 4, "N": 4, "K": 4}
    )
    assert found.gap == 0 and found.complete
    assert found.bound <= found.best.value
    row = found.row()
    assert row["latency_cycles"] == found.best.memory.latency
    assert row["bound_latency_cycles"] == found.bound


def test_space_size_counts_distinct_tilings() -> None:
    # one level over [4]: sizes 1, 2, 4, one order each; over [2, 2]: (1, 1) has two loops of
    # two trips (2 orders), (1, 2) and (2, 1) one loop (1 order), (2, 2) none (1)
    assert space_size([4], 1) == 3
    assert space_size([2, 2], 1) == 5


def test_bypass_choices_keep_everything_innermost() -> None:
    levels = [level.name for level in load_architecture("systolic-levels-8x8").levels]
    choices = bypass_choices(levels, ["A", "B", "C"])
    assert choices[0] == {"glb": frozenset({"A", "B", "C"})}
    assert len(choices) == 2**3 - 1


def test_joint_search_budget_leaves_a_sound_gap() -> None:
    # one exact evaluation per subtree, no seeds: the nodes left open keep their bounds, so
    # the bound stays at most the optimum of the space (brute force) and the search says it
    # did not finish when it did not prove its best
    workload, params, mappings, dims = GEMM
    space = TilingSpace(["glb"], dims)
    found = joint_search(
        workload, ARCH, mappings, params, space, objective="energy", seed=False, budget=1
    )
    optimum = brute_force(GEMM, "energy")
    assert found.bound <= optimum <= found.best.value
    assert not found.complete or found.gap == 0


@pytest.mark.parametrize("objective", ["latency", "energy"])
@pytest.mark.parametrize("gap", [Fraction(1, 10), Fraction(1, 2)])
def test_joint_search_within_a_gap(objective: MemoryObjective, gap: Fraction) -> None:
    # a tolerance: the search ends whole, its bound at most the optimum of the space (brute
    # force), its best at most 1 + gap times the bound, with no more exact evaluations
    workload, params, mappings, dims = GEMM
    space = TilingSpace(["glb"], dims)
    exact = joint_search(workload, ARCH, mappings, params, space, objective=objective, seed=False)
    found = joint_search(
        workload, ARCH, mappings, params, space, objective=objective, seed=False, gap=gap
    )
    optimum = brute_force(GEMM, objective)
    assert found.complete and found.bound <= optimum <= found.best.value
    assert found.best.value <= (1 + gap) * found.bound
    assert found.evaluated <= exact.evaluated


def test_joint_search_refuses_a_negative_gap() -> None:
    workload, params, mappings, _ = GEMM
    with pytest.raises(ValueError, match="gap: expected a fraction of 0 or more"):
        joint_search(workload, ARCH, mappings, params, gap=-0.5)


@pytest.mark.parametrize("allowance", [Allowance(until=0.0), Allowance(cpu=0.0)])
def test_subtree_past_its_allowance_leaves_its_nodes_open(allowance: Allowance) -> None:
    # a clock already past ``until``, or no CPU second allowed: nothing below the root is
    # searched, the bounds of the nodes left open are kept as pruned ones, at most the
    # subtree's optimum (searched whole)
    workload, params, mappings, dims = GEMM
    problem = load_problem(workload, ARCH, mappings[0], params)
    space = TilingSpace(["glb"], dims).checked(problem)
    cut = search_subtree(problem, space, {}, "energy", None, allowance=allowance)
    assert cut.best is None and cut.evaluated == 0 and cut.left_open >= 1
    whole = search_subtree(problem, space, {}, "energy", None)
    assert whole.left_open == 0 and whole.best is not None
    assert cut.pruned_bound is not None and cut.pruned_bound <= whole.best.value


def test_bounding_children_stops_when_told() -> None:
    # a stop asked before each child: none bounded, nothing kept of the first level, which
    # is bounded whole when nothing stops it
    workload, params, mappings, dims = GEMM
    problem = load_problem(workload, ARCH, mappings[0], params)
    subtree = Subtree(problem, TilingSpace(["glb"], dims).checked(problem), {}, "energy")
    assert subtree.first_children(lambda: True) is None
    assert subtree.children([], Tally(), lambda: True) is None
    first = subtree.first_children()
    assert first is not None and first[0] == subtree.children([], Tally())


def test_joint_search_on_a_pool_and_from_a_store(tmp_path: Path) -> None:
    # the same certificate in this process, on a pool of two workers, and from the store of
    # a finished run (nothing searched again)
    workload, params, mappings, dims = GEMM
    params = {"M": 8, "N": 8, "K": 8}
    space = TilingSpace(["glb"], dims)
    here = joint_search(workload, ARCH, mappings, params, space, seed=False)
    store = tmp_path / "joint.sqlite"
    pool = joint_search(
        workload,
        ARCH,
        mappings,
        params,
        space,
        seed=False,
        execution=ExecutionOptions("local", workers=2, store=store),
    )
    again = joint_search(
        workload,
        ARCH,
        mappings,
        params,
        space,
        seed=False,
        execution=ExecutionOptions(None, store=store),
    )
    for found in (pool, again):
        assert (found.best.value, found.bound, found.gap) == (here.best.value, here.bound, 0)


def test_joint_search_on_a_pool_within_a_cpu_budget() -> None:
    # the workers' parts granted allowances that last (a budget far above the search's
    # CPU): the best and bound of the search without a budget (the order its parts finish
    # in may change what they count); no CPU second: nothing is searched
    workload, params, mappings, dims = GEMM
    params = {"M": 8, "N": 8, "K": 8}
    space = TilingSpace(["glb"], dims)

    def search(execution: ExecutionOptions | None = None) -> Certificate:
        return joint_search(
            workload, ARCH, mappings, params, space, seed=False, execution=execution
        )

    here = search()
    with ExecutionOptions("local", workers=2).shared() as run:
        pool = search(replace(run, cpu_budget=1e6))
        assert pool.complete
        assert (pool.best.value, pool.bound, pool.gap) == (here.best.value, here.bound, 0)
        with pytest.raises(TimeBudgetError):
            search(replace(run, cpu_budget=0.0))


THREE = ArchitectureSpec.from_mapping(
    {
        "name": "three-levels",
        "pe": "{PE[i]: 0 <= i < 2}",
        "interconnect": [{"link": "{PE[i] -> PE[i + 1]}", "delay": 1}],
        "levels": [
            {"name": "dram", "read_bandwidth": 1, "write_bandwidth": 1, "energy_read": 100},
            {"name": "glb", "capacity": 40, "read_bandwidth": 2, "energy_read": 6},
            {"name": "rf", "capacity": 24, "per_pe": True, "energy_read": 1},
        ],
    }
)


@pytest.mark.slow
@pytest.mark.parametrize("objective", ["latency", "energy"])
def test_joint_search_with_bypass_equals_brute_force(objective: MemoryObjective) -> None:
    # every choice of the tensors glb keeps (the dataflow's keep), every tiling of k over glb
    # and rf, brute force
    mapping = DataflowSpec(
        name="1d",
        space_stamp="{S[i, j, k] -> PE[j % 2]}",
        time_stamp="{S[i, j, k] -> T[i, floor(j / 2), k]}",
    )
    params = {"M": 4, "N": 4, "K": 8}
    space = TilingSpace(["glb", "rf"], ["k"])
    found = joint_search("gemm", THREE, [mapping], params, space, objective=objective, seed=False)
    levels = [level.name for level in THREE.levels]
    values = []
    for keep in bypass_choices(levels, ["A", "B", "C"]):
        kept = mapping.model_copy(update={"keep": {lv: tuple(t) for lv, t in keep.items()}})
        problem = load_problem("gemm", THREE, kept, params)
        try:
            values.append(search_tiling(problem, space, objective=objective).best.value)
        except CapacityError:
            continue
    assert found.best.value == min(values) == found.bound


@pytest.mark.slow
@pytest.mark.parametrize(
    ("workload", "params"),
    [
        ("gemm", {"M": 6, "N": 5, "K": 3}),
        ("conv2d", {"K": 3, "C": 2, "OX": 5, "OY": 2, "RX": 2, "RY": 1}),
    ],
)
def test_compute_floor_never_exceeds_the_compute_latency(
    workload: str, params: dict[str, int]
) -> None:
    # every candidate of a space with partial tiles, temporal tiles and skews
    arch = load_architecture("systolic-levels-8x8")
    options = SpaceOptions(temporal_tiles=(2,), skew=(-1, 0, 1))
    space = DesignSpace(Specs(load_workload(workload), arch, None, params), options)
    for candidate in space:
        problem = load_problem(workload, arch, candidate.spec(), params)
        floor = compute_floor(candidate.mapping, count(problem.workload.domain))
        assert floor <= occupancy(problem).latency_compute, candidate.name
