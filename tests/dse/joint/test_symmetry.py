"""Loop symmetries of a workload and the dominance of the joint search's subtrees: a mapping and
its image (the array mapping, tile sizes and loop orders renamed by the symmetry) have the same
exact figures; a search that skips the images finds the same best value, with a bound no
lower."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import islpy as isl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tenet.api import load_problem
from tenet.dse.joint.symmetry import loop_symmetries, stamp_images
from tenet.dse.joint.tree import declare, joint_search
from tenet.dse.run.runner import Runner
from tenet.dse.space.symmetry import permutation_map
from tenet.dse.tiling.sizes import TilingSpace
from tenet.mapping import LoopNest, place_maps, tile_maps, tiled_nest
from tenet.mapping.nest import LevelLoops
from tenet.mapping.tile_sizes import divisors
from tenet.metrics.latency import occupancy
from tenet.metrics.memory import evaluate_memory, level_needs
from tenet.model import Architecture, Workload
from tenet.spec import ArchitectureSpec, DataflowSpec, Specs, load_workload

SWAP = (0, 1, 3, 2, 5, 4)
"""ox with oy and rx with ry, in the loops (k, c, ox, oy, rx, ry) of conv2d."""

NAMES = ("k", "c", "ox", "oy", "rx", "ry")


def conv(params: dict[str, int], name: str = "conv2d") -> Workload:
    return Workload.from_spec(load_workload(name), params)


def test_the_loop_symmetries_of_convolutions_by_hand() -> None:
    # ox, oy and rx, ry enter I[c, ox + rx, oy + ry], O[k, ox, oy] and W[k, c, rx, ry] alike:
    # swapping both pairs transposes each tensor; swapping one pair alone does not (I would
    # read I[c, oy + rx, ox + ry]); k with c turns W[k, c] into W[c, k] but I[c] into I[k]
    square = {"K": 3, "C": 3, "OX": 4, "OY": 4, "RX": 2, "RY": 2}
    assert loop_symmetries(conv(square), (3, 3, 4, 4, 2, 2)) == [SWAP]
    # a strided or dilated window keeps it (the same stride on both axes)
    for name in ("conv2d-strided", "conv2d-dilated"):
        assert loop_symmetries(conv(square, name), (3, 3, 4, 4, 2, 2)) == [SWAP]
    wide = {**square, "OX": 5}
    assert loop_symmetries(conv(wide), (3, 3, 5, 4, 2, 2)) == []
    tall = {**square, "RY": 3}
    assert loop_symmetries(conv(tall), (3, 3, 4, 4, 2, 3)) == []
    # GEMM's i and j: A[i, k] would become A[j, k], another tensor's subscripts
    gemm = Workload.from_spec(load_workload("gemm"), {"M": 4, "N": 4, "K": 4})
    assert loop_symmetries(gemm, (4, 4, 4)) == []


def swapped(text: str) -> str:
    """A stamp's image under :data:`SWAP`: ox and oy, rx and ry exchanged on its right side."""
    head, tail = text.split("->")
    names = {"ox": "oy", "oy": "ox", "rx": "ry", "ry": "rx"}
    return f"{head}->{re.sub('ox|oy|rx|ry', lambda m: names[m.group(0)], tail)}"


def image_nest(nest: LoopNest) -> LoopNest:
    """The image of ``nest`` under :data:`SWAP`: each loop over ox runs over oy, and so on."""
    rename = {NAMES[d]: NAMES[SWAP[d]] for d in range(len(NAMES))}
    levels = tuple(
        LevelLoops(level.level, tuple(replace(loop, dim=rename[loop.dim]) for loop in level.loops))
        for level in nest.levels
    )
    return replace(nest, levels=levels)


ARCH = {
    "name": "grid",
    "pe": "{PE[p, q]: 0 <= p < 2 and 0 <= q < 2}",
    "levels": [
        {"name": "dram", "read_bandwidth": 2, "write_bandwidth": 1, "energy_read": 100},
        {"name": "glb", "read_bandwidth": 3, "energy_read": 3, "energy_write": 2.5},
    ],
}


def grid(capacity: int, link: str | None) -> ArchitectureSpec:
    """2x2 PEs, a glb and a per-PE register file of ``capacity`` elements."""
    rf = {"name": "rf", "per_pe": True, "capacity": capacity, "energy_read": 1}
    interconnect = [] if link is None else [{"link": link, "delay": 1}]
    return ArchitectureSpec.from_mapping(
        {**ARCH, "levels": [*ARCH["levels"], rf], "interconnect": interconnect}
    )


@st.composite
def symmetric_cases(draw: st.DrawFn) -> tuple[Any, ...]:
    """A convolution with OX = OY and RX = RY on 2x2 PEs, an array mapping, a tiling of glb
    and rf with kept tensors and, for tiles of one instance, the tensors' places."""
    side, window = draw(st.sampled_from([2, 3, 4])), draw(st.sampled_from([1, 2, 3]))
    params = {"K": draw(st.sampled_from([1, 2])), "C": draw(st.sampled_from([1, 2]))}
    params |= {"OX": side, "OY": side, "RX": window, "RY": window}
    name = draw(st.sampled_from(["conv2d", "conv2d-strided"]))
    space = draw(
        st.sampled_from(
            [
                "{S[k, c, ox, oy, rx, ry] -> PE[c % 2, ox % 2]}",
                "{S[k, c, ox, oy, rx, ry] -> PE[k % 2, ox % 2]}",
                "{S[k, c, ox, oy, rx, ry] -> PE[ox % 2, ry % 2]}",
                "{S[k, c, ox, oy, rx, ry] -> PE[floor(ox / 2) % 2, ox % 2]}",
            ]
        )
    )
    time = "{S[k, c, ox, oy, rx, ry] -> T[k, c, ox, oy, rx, ry]}"
    link = draw(st.sampled_from([None, "{PE[p, q] -> PE[p, q + 1]}"]))
    arch = grid(draw(st.sampled_from([3, 4, 6, 10])), link)
    dataflow = DataflowSpec(name="d", space_stamp=space, time_stamp=time)
    image = DataflowSpec(name="e", space_stamp=swapped(space), time_stamp=swapped(time))
    problem = load_problem(load_workload(name), arch, dataflow, params)
    mirror = load_problem(load_workload(name), arch, image, params)
    extents = [params[p] for p in ("K", "C", "OX", "OY", "RX", "RY")]
    outside, bands = extents, []
    for level in ("glb", "rf"):
        sizes = tuple(draw(st.sampled_from(divisors(o))) for o in outside)
        bands.append((level, sizes, tuple(draw(st.permutations(range(6))))))
        outside = list(sizes)
    nest = tiled_nest(NAMES, extents, "dram", bands, tuple(draw(st.permutations(range(6)))))
    keep = draw(st.sampled_from([{}, {"glb": frozenset({"I"})}, {"glb": frozenset({"O", "W"})}]))
    nest = nest.keeping(keep)
    if all(s == 1 for s in bands[-1][1]):
        above = nest.boundary("rf")
        spans = {t: draw(st.integers(0, above)) for t in ("I", "W", "O")}
        nest = replace(nest, above={t: {"rf": above - n} for t, n in spans.items() if n})
    return problem, mirror, nest


def figures(problem: Any, nest: LoopNest) -> tuple[Any, ...]:
    stamps, places = tile_maps(nest), place_maps(nest)
    compute = occupancy(problem).latency_compute
    fits = level_needs(problem, stamps, places)[1]
    found = evaluate_memory(problem, compute, stamps, places)
    per_level = [(s.level, s.latency) for s in found.levels]
    return fits, compute, found.energy, found.latency, found.traffic_dram, per_level


@settings(max_examples=40, deadline=None)
@given(symmetric_cases())
def test_a_mapping_and_its_image_have_the_same_figures(case: tuple[Any, ...]) -> None:
    # every figure the search compares (fit, compute latency, energy, latency, DRAM traffic,
    # each level's time) of a tiling and of its image under the image array mapping
    problem, mirror, nest = case
    first = figures(problem, nest)
    assume(first[0])
    assert figures(mirror, image_nest(nest)) == first


def test_the_images_among_placements() -> None:
    # (c, ox) and (c, oy) are each other's image, (k, c) its own; (ox, oy) is its own up to
    # the array's transposition, which the identity alone does not see
    w = conv({"K": 2, "C": 2, "OX": 4, "OY": 4, "RX": 3, "RY": 3})
    arch = grid(4, None)
    pe = ["c % 2, ox % 2", "k % 2, c % 2", "c % 2, oy % 2", "ox % 2, oy % 2"]
    stamps = [isl.Map(f"{{S[k, c, ox, oy, rx, ry] -> PE[{p}]}}") for p in pe]
    assert stamp_images(w, (2, 2, 4, 4, 3, 3), stamps) == [(SWAP, [2, 1, 0, None])]
    pes = Architecture.from_spec(arch, {}).pe_set
    transpose = [permutation_map(pes, (1, 0))]
    assert stamp_images(w, (2, 2, 4, 4, 3, 3), stamps, transpose) == [(SWAP, [2, 1, 0, 3])]


SEARCHED = {"K": 2, "C": 2, "OX": 4, "OY": 4, "RX": 2, "RY": 2}
MAPPINGS = [
    DataflowSpec(
        name=f"m{k}",
        space_stamp=f"{{S[k, c, ox, oy, rx, ry] -> PE[{pe}]}}",
        time_stamp="{S[k, c, ox, oy, rx, ry] -> T[k, c, ox, oy, rx, ry]}",
    )
    for k, pe in enumerate(["c % 2, ox % 2", "c % 2, oy % 2", "k % 2, c % 2"])
]


def test_the_images_are_dominated_when_declared() -> None:
    given = Specs(load_workload("conv2d"), grid(6, None), None, SEARCHED)
    space = TilingSpace(["rf"], ["ox", "oy"])
    with Runner(None) as runner:
        plain = declare(given, MAPPINGS, space, "energy", False, True, None, runner)
        mirrored = declare(given, MAPPINGS, space, "energy", False, True, None, runner, None, True)
        # the tiled loops must map onto themselves: ox alone does not
        lopsided = TilingSpace(["rf"], ["ox", "k"])
        one = declare(given, MAPPINGS, lopsided, "energy", False, True, None, runner, None, True)
    assert plain.dominated == {} and one.dominated == {}
    ((image, first),) = mirrored.dominated.items()
    stamps = {mirrored.mappings[mirrored.subtrees[k].mapping].name for k in (image, first)}
    assert stamps == {"m0", "m1"}
    assert mirrored.subtrees[image].key == mirrored.subtrees[first].key


@pytest.mark.parametrize("budget", [None, 2])
def test_a_search_with_dominance_finds_the_same_best_with_a_bound_no_lower(
    budget: int | None,
) -> None:
    # whole, and with two exact evaluations a subtree (its nodes left open)
    space = TilingSpace(["glb", "rf"], ["ox", "oy", "rx", "ry"])
    arch = grid(6, None)
    found = {
        dominance: joint_search(
            "conv2d",
            arch,
            MAPPINGS,
            SEARCHED,
            space,
            objective="energy",
            places=True,
            budget=budget,
            seed=False,
            dominance=dominance,
        )
        for dominance in (False, True)
    }
    assert found[True].best.value == found[False].best.value
    assert found[True].complete == found[False].complete == (budget is None)
    with_images, without = found[True].bound, found[False].bound
    assert with_images is not None and without is not None and with_images >= without
    assert found[True].evaluated <= found[False].evaluated
