"""How the joint search reaches good leaves early by latency: the seeds skip the constructive
tilings that cannot come first; a first search of the subtree of least root bound that attains
it ends the search; neither changes the best."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from tenet.api import load_problem
from tenet.dse.joint.bounds import BoundContext
from tenet.dse.joint.seeds import seed_tilings
from tenet.dse.joint.tree import DIVE, TIES, joint_search
from tenet.dse.tiling.sizes import TilingSpace
from tests.dse.joint.test_search import ARCH, CONV, GEMM, brute_force


def test_bounded_seeds_keep_the_constructive_best() -> None:
    # a tiling whose bound is above the best counted before it cannot come first
    p = load_problem("gemm", "systolic-levels-8x8", "gemm-os-systolic", {"M": 32, "N": 32, "K": 32})
    context = BoundContext.from_problem(p)
    plain = seed_tilings(p, "latency", top_k=3)
    bounded = seed_tilings(p, "latency", top_k=3, context=context)
    assert bounded[0].value == plain[0].value
    assert len(bounded) <= len(plain)
    none = seed_tilings(p, "latency", 3, context=context, incumbent=Fraction(1))
    assert none == []  # every tiling's bound is above 1 cycle


def test_a_first_search_that_attains_the_least_root_bound_ends_the_search() -> None:
    # GEMM 32^3 over every array mapping of the 8x8 array: the first leaves of the subtree of
    # least root bound attain it (768 cycles: the DRAM's compulsory traffic, A and B read
    # once, 2048 elements at 4 per cycle, and C written once, 1024 at 4 per cycle; the least
    # compute, 32768 MACs on 64 PEs, is 512); no subtree can then go below it, the seeds are
    # not counted, and what else is counted looks for less energy at 768 cycles (its ties)
    found = joint_search("gemm", "systolic-levels-8x8", None, {"M": 32, "N": 32, "K": 32})
    assert found.best.value == found.bound == 2048 // 4 + 1024 // 4 and found.complete
    assert found.best.memory.bottleneck == "dram"
    assert found.evaluated <= DIVE + TIES


@pytest.mark.slow
@pytest.mark.parametrize("case", [GEMM, CONV], ids=["gemm", "conv"])
def test_seeded_search_by_latency_equals_brute_force(case: tuple[Any, ...]) -> None:
    # the first search and the seeds only give incumbents: the best is brute force's
    workload, params, mappings, dims = case
    space = TilingSpace(["glb"], dims)
    found = joint_search(workload, ARCH, mappings, params, space, objective="latency")
    best = brute_force(case, "latency")
    assert found.best.value == found.bound == best and found.complete
