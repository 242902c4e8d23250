"""The joint search over a design space with blocked spatial digits (``floor(x/B) % P`` on a PE
axis, ``x % B`` in time): on a small GEMM and a small one-dimensional convolution, its best
equals brute force over every array mapping of the space (blocked ones included) and every
tiling, and its bound equals the best, by latency and by energy; on the convolution a blocked
mapping is strictly better than every other."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
import yaml

from tenet.api import load_problem
from tenet.counting import count
from tenet.dse.joint.declared import compute_floor
from tenet.dse.joint.subtree import search_subtree
from tenet.dse.joint.tree import joint_search
from tenet.dse.space.design import Candidate, DesignSpace, SpaceOptions
from tenet.dse.tiling.exhaustive import search_tiling
from tenet.dse.tiling.sizes import TilingSpace
from tenet.errors import CapacityError
from tenet.metrics.latency import occupancy
from tenet.spec import ArchitectureSpec, Specs, WorkloadSpec, load_workload
from tenet.vocab import MemoryObjective
from tests.conftest import run
from tests.dse.joint.test_search import ARCH, LEVELS

# two PEs without links, a shared buffer and a buffer per PE
LINE = ArchitectureSpec.from_mapping(
    {
        "name": "line-levels",
        "pe": "{PE[p]: 0 <= p < 2}",
        "levels": [
            *LEVELS,
            {"name": "rf", "capacity": 16, "per_pe": True, "energy_read": 1, "energy_write": 1},
        ],
    }
)
# O[x] += I[x + r] * W[r]: a sliding window of 3 over 8 outputs
CONV1D = WorkloadSpec.from_mapping(
    yaml.safe_load(
        """
        name: conv1d
        domain: "{S[x, r]: 0 <= x < 8 and 0 <= r < 3}"
        accesses:
          I: {read: "{S[x, r] -> I[x + r]}"}
          W: {read: "{S[x, r] -> W[r]}"}
          O: {write: "{S[x, r] -> O[x]}"}
        reductions: [O]
        """
    )
)
GEMM = (load_workload("gemm"), ARCH, {"M": 4, "N": 4, "K": 8}, TilingSpace(["glb"]))
CONV = (CONV1D, LINE, {}, TilingSpace(["glb", "rf"]))
BLOCKED = SpaceOptions(blocks=(2, 4), skew=(0,))


def _brute_force(
    case: tuple[WorkloadSpec, ArchitectureSpec, dict[str, int], TilingSpace],
    options: SpaceOptions,
    objective: MemoryObjective,
) -> tuple[Fraction, str]:
    """The least value over every array mapping of the space (each level keeping every
    tensor) and every tiling, and the mapping's name."""
    workload, arch, params, tiling = case
    found = []
    for candidate in DesignSpace(Specs(workload, arch, None, params), options):
        problem = load_problem(workload, arch, candidate.spec(), params)
        try:
            found.append(
                (search_tiling(problem, tiling, objective=objective).best.value, candidate.name)
            )
        except CapacityError:
            continue
    return min(found)


@pytest.mark.slow
@pytest.mark.parametrize("case", [GEMM, CONV], ids=["gemm", "conv1d"])
@pytest.mark.parametrize("objective", ["latency", "energy"])
def test_joint_search_with_blocks_equals_brute_force(
    case: tuple[WorkloadSpec, ArchitectureSpec, dict[str, int], TilingSpace],
    objective: MemoryObjective,
) -> None:
    workload, arch, params, tiling = case
    found = joint_search(
        workload, arch, None, params, tiling, objective=objective, bypass=False, design=BLOCKED
    )
    best, _ = _brute_force(case, BLOCKED, objective)
    assert found.best.value == best == found.bound
    assert found.gap == 0 and found.complete


def test_a_blocked_mapping_saves_the_window_overlap() -> None:
    # PE[x % 2]: each PE reads 9 of the 10 elements of I (its 4 outputs' windows interleave:
    # x + r for even x covers 0..8, for odd x 1..9), 18 (PE, element) pairs; PE[floor(x/4)]:
    # each PE reads 6 (0..5 and 4..9), 12 pairs; PE[r % 2] takes every output on both PEs.
    # The rf holds a PE's whole share (9 + 3 + 4 <= 16), so the best tilings fill each pair
    # once and read every element once from dram and glb (glb serves both PEs at once): the
    # blocked mapping saves 18 - 12 = 6 rf writes of energy 1
    plain = joint_search(CONV1D, LINE, None, {}, CONV[3], objective="energy", bypass=False)
    blocked = joint_search(
        CONV1D, LINE, None, {}, CONV[3], objective="energy", bypass=False, design=BLOCKED
    )
    assert plain.best.value - blocked.best.value == 6
    assert blocked.complete and blocked.gap == 0
    assert "floor(x/" in blocked.best.assessment.mapping.space_stamp


def _blocked(
    case: tuple[WorkloadSpec, ArchitectureSpec, dict[str, int], TilingSpace],
    options: SpaceOptions,
) -> list[Candidate]:
    workload, arch, params, _ = case
    space = DesignSpace(Specs(workload, arch, None, params), options)
    return [c for c in space if any(d.stride > 1 for d in c.mapping.spatial_digits)]


@pytest.mark.slow
@pytest.mark.parametrize("case", [GEMM, CONV], ids=["gemm", "conv1d"])
@pytest.mark.parametrize("objective", ["latency", "energy"])
def test_each_blocked_mapping_bounds_and_finds_its_own_optimum(
    case: tuple[WorkloadSpec, ArchitectureSpec, dict[str, int], TilingSpace],
    objective: MemoryObjective,
) -> None:
    # each blocked array mapping alone (one time order per structure): its subtree's root
    # bound is at most, and its search finds, the least value of its tilings by brute force
    workload, arch, params, tiling = case
    for candidate in _blocked(case, SpaceOptions(blocks=(2, 4), skew=(0,), order_depth=1)):
        problem = load_problem(workload, arch, candidate.spec(), params)
        try:
            best = search_tiling(problem, tiling, objective=objective).best.value
        except CapacityError:
            continue
        found = search_subtree(problem, tiling.checked(problem), {}, objective, None)
        assert found.best is not None and found.best.value == best, candidate.name
        assert found.root_bound <= best, candidate.name


@pytest.mark.parametrize("case", [GEMM, CONV], ids=["gemm", "conv1d"])
def test_compute_floor_of_blocked_mappings_never_exceeds_their_compute_latency(
    case: tuple[WorkloadSpec, ArchitectureSpec, dict[str, int], TilingSpace],
) -> None:
    # skews included: the floor reads the blocks' digits in time as any other
    workload, arch, params, _ = case
    blocked = _blocked(case, SpaceOptions(blocks=(2, 4), order_depth=1))
    assert blocked
    instances = count(load_problem(workload, arch, blocked[0].spec(), params).workload.domain)
    for candidate in blocked:
        problem = load_problem(workload, arch, candidate.spec(), params)
        floor = compute_floor(candidate.mapping, instances)
        assert floor <= occupancy(problem).latency_compute, candidate.name


def test_map_searches_blocked_mappings(capsys: pytest.CaptureFixture[str]) -> None:
    # GEMM 4x4x4 on 8x8 PEs: with --blocks 2 the space also holds PE[.., floor(k/2)] and the
    # search still proves its best
    problem = ("-w", "gemm", "-a", "systolic-levels-8x8", "-p", "M=4", "-p", "N=4", "-p", "K=4")
    code, out, err = run(capsys, "map", *problem, "--blocks", "2", "--format", "json")
    assert code == 0, err
    row = json.loads(out)["layers"][0]
    assert row["value"] == row["bound"] and row["complete"]
    code, _, err = run(capsys, "map", *problem, "--blocks", "2", "-d", "gemm-os-systolic")
    assert code == 2 and "--blocks" in err
    code, _, err = run(capsys, "map", *problem, "--blocks", "1")
    assert code == 2 and "blocks" in err and "at least 2" in err


def test_dse_checks_blocks(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "dse", "-w", "gemm", "-a", "systolic-2d-8x8", "--blocks", "2,x")
    assert code == 2 and "--blocks" in err
    code, _, err = run(capsys, "dse", "-w", "gemm", "-a", "systolic-2d-8x8", "--blocks", "1")
    assert code == 2 and "blocks" in err and "at least 2" in err
