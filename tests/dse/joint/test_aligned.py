"""The joint search over aligned tile sizes (multiples of an alignment that need not divide
their loop, the last tile partial): its leaves counted by hand, its bounds never above the
exact figures of a tiling below a node, its best equal to brute force over the same space
and to its bound, and a layer where a size that does not divide its loop beats every
divisor."""

from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction
from math import factorial, prod
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tenet.api import load_problem
from tenet.dse.joint.bounds import Band, BoundContext, lower_bound
from tenet.dse.joint.declared import place_choices, space_size
from tenet.dse.joint.tree import joint_search
from tenet.dse.tiling.exhaustive import search_tiling
from tenet.dse.tiling.rtile import box_extents
from tenet.dse.tiling.sizes import TilingSpace
from tenet.mapping import tiled_nest
from tenet.mapping.tile_sizes import nested_sizes, nests_in, size_pool
from tenet.spec import ArchitectureSpec, DataflowSpec, load_workload
from tenet.vocab import MemoryObjective
from tests.conftest import run

from .test_bounds import _grid, fitting_nodes
from .test_search import ARCH, CONV, GEMM


def test_space_size_counts_the_aligned_leaves() -> None:
    # one loop of 6, two levels, aligned 4: sizes 1, 2, 3, 4 (partial: 4 then 2) and 6;
    # inside 6 all five, inside 4 the sizes 1, 2 and 4, inside 3: 1 and 3, inside 2: 1 and
    # 2, inside 1: 1; one loop has one order: 5 + 3 + 2 + 2 + 1 = 13 leaves (9 without 4)
    assert space_size([6], 2, aligned=4) == 13
    assert space_size([6], 2) == 9
    # loops of 10 and 2, one level, aligned 4: i takes 1, 2, 4, 5, 8, 10, j 1 and 2; both
    # run (2 orders) when i < 10 and j = 1: 5 · 2; one runs otherwise: 5 + 2 · 1
    assert space_size([10, 2], 1, aligned=4) == 17
    # given sizes restrict a loop (3 does not nest in 10 unless it divides it): i 4, 5, 10
    assert space_size([10, 2], 1, aligned=4, sizes={0: [3, 4, 5, 10], 1: [2]}) == 3


def test_space_size_agrees_with_the_tiling_search() -> None:
    # the tiling search's sizes (before a shared level's cuts of the array), each with the
    # orders of its running loops (a loop runs when its tiles are more than one: a partial
    # last tile counts)
    extents = (10, 6, 3)
    for levels in (1, 2):
        leaves = 0
        for chosen in nested_sizes(extents, levels, aligned=4):
            outside = [extents, *chosen[:-1]]
            leaves += prod(
                factorial(sum(1 for e, s in zip(o, sizes, strict=True) if -(-e // s) > 1))
                for o, sizes in zip(outside, chosen, strict=True)
            )
        assert space_size(extents, levels, aligned=4) == leaves


@st.composite
def aligned_cases(draw: st.DrawFn) -> tuple[Any, ...]:
    """A GEMM or a convolution with loops that an alignment of 2 or 4 does not divide, on two
    PEs (a global buffer and a register file, per PE or not, small or unbounded, links or
    not) or on 2x2 PEs (a small per-PE register file); tiles drawn from the aligned sizes, a
    prefix of the bands, and the tensors placed above drawn loops when the register file's
    tiles are single instances."""
    aligned = draw(st.sampled_from([2, 4]))
    grid = draw(st.booleans())
    if draw(st.booleans()):
        workload = load_workload("gemm")
        params = {p: draw(st.sampled_from([2, 3, 5, 6])) for p in ("M", "N", "K")}
        space = "{S[i, j, k] -> PE[i % 2, j % 2]}" if grid else "{S[i, j, k] -> PE[j % 2]}"
        time = "{S[i, j, k] -> T[i, floor(j / 2), k]}"
    else:
        workload = load_workload("conv2d")
        params = {"K": 2, "C": draw(st.sampled_from([1, 3])), "OX": draw(st.sampled_from([3, 5]))}
        params |= {"OY": 1, "RX": draw(st.sampled_from([2, 3])), "RY": 1}
        space = "{S[k, c, ox, oy, rx, ry] -> PE[k % 2" + (", ox % 2]}" if grid else "]}")
        time = "{S[k, c, ox, oy, rx, ry] -> T[c, ox, oy, rx, ry]}"
    if grid:
        arch = _grid(True, draw(st.sampled_from([3, 4, 6, 10])))
    else:
        link = draw(st.sampled_from([None, "{PE[p] -> PE[p + 1]}"]))
        levels: list[dict[str, Any]] = [
            {"name": "dram", "read_bandwidth": 1, "write_bandwidth": 2, "energy_read": 100},
            {"name": "glb", "read_bandwidth": 3, "energy_read": 3, "energy_write": 2.5},
            {
                "name": "rf",
                "per_pe": draw(st.booleans()),
                "capacity": draw(st.sampled_from([None, 2, 3, 6])),
                "energy_read": 1,
                "energy_write": 1.68,
            },
        ]
        links = [] if link is None else [{"link": link, "delay": 1}]
        arch = ArchitectureSpec.from_mapping(
            {"name": "a", "pe": "{PE[p]: 0 <= p < 2}", "levels": levels, "interconnect": links}
        )
    problem = load_problem(
        workload, arch, DataflowSpec(name="d", space_stamp=space, time_stamp=time), params
    )
    dims, extents = box_extents(problem.workload)
    outside, bands = extents, []
    for level in ("glb", "rf"):
        sizes = tuple(
            draw(
                st.sampled_from([s for s in size_pool(e, None, aligned) if nests_in(s, o, aligned)])
            )
            for e, o in zip(extents, outside, strict=True)
        )
        bands.append((level, sizes, tuple(draw(st.permutations(range(len(dims)))))))
        outside = sizes
    nest = tiled_nest(dims, extents, "dram", bands, tuple(range(len(dims))))
    spans: dict[str, int] = {}
    if problem.architecture.levels[-1].per_pe and all(s == 1 for s in bands[-1][1]):
        tensors = sorted(workload.accesses)
        choices = list(place_choices(Band(*bands[-1]), bands[0][1], tensors))
        spans = {t: n for t, n in draw(st.sampled_from(choices)).items() if n}
        boundary = nest.boundary("rf")
        nest = replace(nest, above={t: {"rf": boundary - n} for t, n in spans.items()})
    return problem, nest, draw(st.integers(0, 2)), spans


@settings(max_examples=150, deadline=None)
@given(aligned_cases())
def test_bounds_never_exceed_exact_with_partial_tiles(case: tuple[Any, ...]) -> None:
    # every node above a tiling that fits (the root, each prefix of its bands with its last
    # band's order fixed or not, the leaf with its places) bounds its exact latency and
    # energy from below, whether its tiles divide their loops or not
    compute, exact, nodes = fitting_nodes(case)
    context = BoundContext.from_problem(case[0])
    for bands, unordered, placed in nodes:
        bound = lower_bound(context, compute, bands, unordered=unordered, places=placed)
        assert bound.latency <= exact.latency
        assert bound.energy <= Fraction(exact.energy)


def brute_force(case: tuple[Any, ...], space: TilingSpace, objective: MemoryObjective) -> Any:
    """The least ``objective`` over the case's array mappings and every tiling of ``space``
    (the exhaustive tiling search)."""
    workload, params, mappings, _ = case
    values = []
    for mapping in mappings:
        problem = load_problem(workload, ARCH, mapping, params)
        values.append(search_tiling(problem, space, objective=objective).best.value)
    return min(values)


ALIGNED_GEMM = ("gemm", {"M": 10, "N": 6, "K": 4}, GEMM[2], None)
ALIGNED_CONV = (CONV[0], {**CONV[1], "K": 6, "C": 2, "OY": 6}, CONV[2], CONV[3])


@pytest.mark.parametrize("case", [ALIGNED_GEMM, ALIGNED_CONV], ids=["gemm", "conv"])
@pytest.mark.parametrize("objective", ["latency", "energy"])
def test_joint_search_equals_brute_force_aligned(
    case: tuple[Any, ...], objective: MemoryObjective
) -> None:
    # loops of 10 and 6 with tiles of 4 and 8 (the last partial) among the divisors, 2x2
    # PEs, a global buffer of 64 elements: the branch and bound's best is the least over
    # every tiling of the space, and its bound proves it
    workload, params, mappings, dims = case
    space = TilingSpace(["glb"], dims, aligned=4)
    found = joint_search(workload, ARCH, mappings, params, space, objective=objective, seed=False)
    best = brute_force(case, space, objective)
    assert found.best.value == best
    assert found.bound == best and found.gap == 0 and found.complete


def test_a_partial_tile_beats_every_divisor() -> None:
    # GEMM M=10, N=2, K=4 on 2x2 PEs (C[i, j] at PE[i % 2, j % 2], 20 cycles of compute), a
    # global buffer of 16 elements; DRAM reads and writes 1 element a cycle, the latency
    # their sum. Tiles (ti, 2, 1) with i outside k: A (40) and C (20) cross once, B (8) once
    # per tile of i: ceil(10 / ti) · 8. They need ti + 2 + 2 ti <= 16: ti <= 4. Divisors of
    # 10: ti = 2, 40 + 40 + 20 = 100 cycles; aligned 4 (tiles of 4, 4, 2): 40 + 24 + 20 = 84
    glb = ARCH.levels[1].model_copy(update={"capacity": 16})
    arch = ARCH.model_copy(update={"levels": (ARCH.levels[0], glb)})
    params = {"M": 10, "N": 2, "K": 4}
    mapping = GEMM[2][:1]
    divisors = joint_search("gemm", arch, mapping, params, TilingSpace(["glb"]), seed=False)
    aligned = joint_search(
        "gemm", arch, mapping, params, TilingSpace(["glb"], aligned=4), seed=False
    )
    assert divisors.best.value == divisors.bound == 100
    assert aligned.best.value == aligned.bound == 84
    assert aligned.best.mapping.tile_sizes("glb") == (4, 2, 1)


SMALL_BUFFER = """name: small-buffer
pe: "{PE[i, j]: 0 <= i < 2 and 0 <= j < 2}"
interconnect:
  - {link: "{PE[i, j] -> PE[i + 1, j]}", delay: 1}
  - {link: "{PE[i, j] -> PE[i, j + 1]}", delay: 1}
levels:
  - {name: dram, read_bandwidth: 1, write_bandwidth: 1, energy_read: 100, energy_write: 100}
  - {name: glb, capacity: 16, read_bandwidth: 4, write_bandwidth: 4, energy_read: 6,
     energy_write: 6}
"""
OUTPUT_STATIONARY = """name: os
space_stamp: "{S[i, j, k] -> PE[i % 2, j % 2]}"
time_stamp: "{S[i, j, k] -> T[floor(i / 2), floor(j / 2), k]}"
"""


def test_tile_and_map_take_aligned(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # the layer of test_a_partial_tile_beats_every_divisor from the command line: 84 cycles
    # with --aligned 4 (tiles of i 4, 4 and 2), 100 without
    arch, dataflow = tmp_path / "arch.yaml", tmp_path / "os.yaml"
    arch.write_text(SMALL_BUFFER)
    dataflow.write_text(OUTPUT_STATIONARY)
    problem = ("-w", "gemm", "-a", str(arch), "-d", str(dataflow))
    problem += ("-p", "M=10", "-p", "N=2", "-p", "K=4", "--format", "json")
    for aligned, cycles in (("4", 84), (None, 100)):
        option = () if aligned is None else ("--aligned", aligned)
        code, out, err = run(capsys, "tile", *problem, "--strategy", "joint", *option)
        assert code == 0, err
        row = json.loads(out)
        assert row["latency_cycles"] == row["bound_latency_cycles"] == cycles
        code, out, err = run(capsys, "map", *problem, *option)
        assert code == 0, err
        layer = json.loads(out)["layers"][0]
        assert layer["value"] == layer["bound"] == cycles
