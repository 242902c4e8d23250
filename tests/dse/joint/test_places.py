"""The joint search with places: each tensor's copy in the per-PE register file may sit above
any of the loops that step through the register file's single-instance tiles. On a small GEMM
(2x2 PEs, a register file of 7 elements each, DRAM), the best and the proven bound equal
brute force over every tiling and every place of every tensor, counted exactly; the places
found are written in the row and ``tenet eval``'s counting gives the same figures from them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction
from itertools import product
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tenet.api import load_problem
from tenet.dse.joint.declared import place_choices, space_size
from tenet.dse.joint.tree import joint_search
from tenet.dse.tiling.sizes import TilingSpace, tilings
from tenet.mapping import place_maps, tile_maps
from tenet.mapping.tile_sizes import divisors
from tenet.metrics.assessment import objective_value
from tenet.metrics.latency import occupancy
from tenet.metrics.memory import evaluate_memory, level_needs
from tenet.spec import ArchitectureSpec, DataflowSpec, load_workload
from tenet.vocab import MemoryObjective

ARCH = ArchitectureSpec.from_mapping(
    {
        "name": "rf-2x2",
        "pe": "{PE[i, j]: 0 <= i < 2 and 0 <= j < 2}",
        "interconnect": [],
        "levels": [
            {
                "name": "dram",
                "read_bandwidth": 2,
                "write_bandwidth": 2,
                "energy_read": 100,
                "energy_write": 100,
            },
            {"name": "rf", "capacity": 7, "per_pe": True, "energy_read": 1, "energy_write": 1},
        ],
    }
)
PARAMS = {"M": 4, "N": 4, "K": 4}
MAPPING = DataflowSpec(
    name="os",
    space_stamp="{S[i, j, k] -> PE[i % 2, j % 2]}",
    time_stamp="{S[i, j, k] -> T[floor(i / 2), floor(j / 2), k]}",
)


def brute_force(objective: MemoryObjective) -> Fraction:
    """The least ``objective`` over every tiling of the register file and, for tiles of one
    instance, every number of the loops above them each tensor's copy spans."""
    problem = load_problem("gemm", ARCH, MAPPING, PARAMS)
    compute = occupancy(problem).latency_compute
    best: Fraction | None = None
    for nest in tilings(problem, TilingSpace(["rf"])):
        above = nest.boundary("rf")
        spans = range(above + 1) if nest.tile_sizes("rf") == (1, 1, 1) else [0]
        for chosen in product(spans, repeat=3):
            placed = {t: {"rf": above - n} for t, n in zip("ABC", chosen, strict=True) if n}
            tiled = replace(nest, above=placed)
            stamps, places = tile_maps(tiled), place_maps(tiled)
            if not level_needs(problem, stamps, places)[1]:
                continue
            value = objective_value(evaluate_memory(problem, compute, stamps, places), objective)
            best = value if best is None or value < best else best
    assert best is not None
    return best


@pytest.mark.slow
@pytest.mark.parametrize("objective", ["latency", "energy"])
@pytest.mark.parametrize("bounded_orders", [24, 0], ids=["orders-first", "orders-lazily"])
def test_joint_search_with_places_equals_brute_force(
    objective: MemoryObjective, bounded_orders: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # with 0 bounded orders, each order of the single instances is bounded when it comes up
    monkeypatch.setattr("tenet.dse.joint.subtree._BOUNDED_ORDERS", bounded_orders)
    found = joint_search(
        "gemm",
        ARCH,
        [MAPPING],
        PARAMS,
        TilingSpace(["rf"]),
        objective=objective,
        bypass=False,
        seed=False,
        places=True,
    )
    optimum = brute_force(objective)
    assert found.complete and found.best.value == optimum == found.bound


def test_the_rows_places_give_its_figures_again() -> None:
    # with 10 elements per PE the energy's best keeps copies above some loops: its row names
    # the places, and counting the row's dataflow (tiles and places) gives the same figures;
    # places never do worse than the space without them
    rf = ARCH.levels[1].model_copy(update={"capacity": 10})
    arch = ARCH.model_copy(update={"levels": (ARCH.levels[0], rf)})
    space = TilingSpace(["rf"])
    common = {"objective": "energy", "bypass": False, "seed": False}
    without = joint_search("gemm", arch, [MAPPING], PARAMS, space, **common)  # type: ignore[arg-type]
    placed = joint_search("gemm", arch, [MAPPING], PARAMS, space, places=True, **common)  # type: ignore[arg-type]
    assert placed.best.value <= without.best.value
    row = placed.row()
    assert row["places"]["rf"]
    flow = DataflowSpec.from_mapping(
        {
            "version": 1,
            "name": "best",
            "space_stamp": row["space_stamp"],
            "time_stamp": row["time_stamp"],
            "tiles": row["tiles"],
            "places": row["places"],
        }
    )
    again = evaluate_memory(load_problem("gemm", arch, flow, PARAMS))
    assert again.energy == row["energy"] and again.latency == placed.best.memory.latency


def test_place_choices_and_the_space_they_add() -> None:
    # single-instance tiles of i, j, k with extents (4, 1, 2) in the order i, k, j: running
    # loops i and k (j runs once); a copy spans none, k (and j), or all three: 3 choices
    band = ("rf", (1, 1, 1), (0, 2, 1))
    assert sorted({tuple(c.values()) for c in place_choices(band, (4, 1, 2), ["A"])}) == [
        (0,),
        (2,),
        (3,),
    ]
    # one level over (2, 2): single-instance tiles run 2 loops in 2 orders, 3 places each
    # for 2 tensors; the other sizes as without places (3 tilings)
    assert space_size([2, 2], 1, placed=2) == 2 * 9 + 3


def test_the_register_files_need_bound_never_exceeds_its_need() -> None:
    # every tile of the register file (sizes over 4 x 4 x 4, each order of single instances
    # with every place of every tensor): the bound from the array's spread (2 PEs along i and
    # j, PE[i % 2, j % 2]) is at most the largest tile counted exactly
    from itertools import permutations

    from tenet.dse.joint.bounds import BoundContext
    from tenet.dse.joint.subtree import _need_bound
    from tenet.mapping import array_spread, tiled_nest

    problem = load_problem("gemm", ARCH, MAPPING, PARAMS)
    context = BoundContext.from_problem(problem)
    spreads = array_spread(problem.dataflow.space_stamp, problem.workload.domain)
    spread = [spreads[d] for d in context.dims]
    assert spread == [2, 2, 1]
    for sizes in product([1, 2, 4], repeat=3):
        for order in permutations(range(3)):
            band = ("rf", sizes, order)
            nest = tiled_nest(context.dims, context.extents, "dram", [band], (0, 1, 2))
            choices = place_choices(band, (4, 4, 4), list("ABC")) if sizes == (1, 1, 1) else [{}]
            for spans in choices:
                above = {t: {"rf": nest.boundary("rf") - n} for t, n in spans.items() if n}
                placed = replace(nest, above=above)
                spanned = {
                    t: [4 if d in order[3 - n :] else s for d, s in enumerate(sizes)]
                    for t, n in spans.items()
                }
                bound = _need_bound(context, 1, sizes, None, spread, spanned)
                needs, _ = level_needs(problem, tile_maps(placed), place_maps(placed))
                assert bound <= needs["rf"], (sizes, order, spans)


def test_the_placing_bounds_never_exceed_a_place_that_fits() -> None:
    # single-instance tiles of the register file (7 elements per PE) over the whole GEMM:
    # for each order of its loops, the bound over every place is at most the exact energy of
    # every place that fits, and the bound over every order at most each order's
    from itertools import permutations

    from tenet.dse.joint.bounds import BoundContext, lower_bound
    from tenet.dse.joint.subtree import _need_bound, _placing_bound
    from tenet.mapping import tiled_nest

    problem = load_problem("gemm", ARCH, MAPPING, PARAMS)
    context = BoundContext.from_problem(problem)
    compute = occupancy(problem).latency_compute
    tensors = list("ABC")

    def fits(tensor: str, copy: Sequence[int]) -> bool:
        spans = {tensor: copy}
        return _need_bound(context, 1, copy, frozenset({tensor}), context.spread, spans) <= 7

    root = lower_bound(context, compute, [])
    free = _placing_bound(
        context, root, [], ("rf", (1, 1, 1), ()), (4, 4, 4), {}, tensors, fits, False
    )
    assert free is not None
    for order in permutations(range(3)):
        band = ("rf", (1, 1, 1), order)
        ordered = _placing_bound(context, root, [], band, (4, 4, 4), {}, tensors, fits, True)
        assert ordered is not None and free.energy <= ordered.energy
        nest = tiled_nest(context.dims, context.extents, "dram", [band], (0, 1, 2))
        for spans in place_choices(band, (4, 4, 4), tensors):
            above = {t: {"rf": nest.boundary("rf") - n} for t, n in spans.items() if n}
            placed = replace(nest, above=above)
            stamps, places = tile_maps(placed), place_maps(placed)
            if not level_needs(problem, stamps, places)[1]:
                continue
            exact = evaluate_memory(problem, compute, stamps, places)
            assert ordered.energy <= Fraction(exact.energy), (order, spans)


@st.composite
def placed_leaves(draw: st.DrawFn) -> tuple[Any, ...]:
    """A small GEMM or convolution on a grid of PEs (the low digits of two loops), a register
    file per PE (under a shared buffer or not) tiled by random nested divisors and orders,
    and, when its tiles are single instances, each tensor's copy there above a random number
    of the band's loops (:func:`place_choices`)."""
    if draw(st.booleans()):
        workload, dims = "gemm", ("i", "j", "k")
        params = {p: draw(st.integers(1, 4)) for p in ("M", "N", "K")}
        extents = (params["M"], params["N"], params["K"])
    else:
        workload, dims = "conv2d", ("k", "c", "ox", "oy", "rx", "ry")
        params = {"K": draw(st.integers(1, 2)), "C": draw(st.integers(1, 2)), "OY": 1, "RY": 1}
        params |= {"OX": draw(st.integers(1, 3)), "RX": draw(st.integers(1, 3))}
        extents = tuple(params[d.upper()] for d in dims)
    first, second = draw(st.permutations(range(len(dims))))[:2]
    a, b = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    loops = ", ".join(dims)
    time = ", ".join(
        f"floor({d} / {a if n == first else b})" if n in (first, second) else d
        for n, d in enumerate(dims)
    )
    flow = DataflowSpec(
        name="grid",
        space_stamp=f"{{S[{loops}] -> PE[{dims[first]} % {a}, {dims[second]} % {b}]}}",
        time_stamp=f"{{S[{loops}] -> T[{time}]}}",
    )
    levels: list[dict[str, Any]] = [{"name": "dram"}]
    if draw(st.booleans()):
        levels.append({"name": "buffer"})
    levels.append({"name": "rf", "per_pe": True})
    arch = ArchitectureSpec.from_mapping(
        {"name": "grid", "pe": "{PE[i, j]: 0 <= i < 2 and 0 <= j < 2}", "levels": levels}
    )
    bands, outside = [], extents
    for level in [lv["name"] for lv in levels[1:]]:
        single = level == "rf" and draw(st.booleans())
        sizes = tuple(1 if single else draw(st.sampled_from(divisors(o))) for o in outside)
        bands.append((level, sizes, tuple(draw(st.permutations(range(len(dims)))))))
        outside = sizes if level != "rf" else outside
    tensors = list(load_workload(workload).accesses)
    choices = list(place_choices(bands[-1], outside, tensors))
    spans = draw(st.sampled_from(choices)) if bands[-1][1] == (1,) * len(dims) else {}
    return workload, arch, flow, params, dims, extents, bands, outside, spans


@settings(max_examples=60)
@given(placed_leaves())
def test_the_need_bound_never_exceeds_the_need_with_places(case: tuple[Any, ...]) -> None:
    # the register file's need bound from the array's spread (each tensor's copy over its
    # places' loops) is at most the need counted exactly, each tensor at its own place at
    # the same moment, and that need is the tile oracle's
    from tenet.dse.joint.bounds import BoundContext
    from tenet.dse.joint.subtree import _need_bound
    from tenet.mapping import tiled_nest, to_stamps
    from tenet.oracle.tiles import reference_memory

    workload, arch, flow, params, dims, extents, bands, outside, spans = case
    problem = load_problem(workload, arch, flow, params)
    context = BoundContext.from_problem(problem)
    assume(context.spread is not None)
    nest = tiled_nest(dims, extents, "dram", bands, tuple(range(len(dims))))
    above = {t: {"rf": nest.boundary("rf") - n} for t, n in spans.items() if n}
    placed = replace(nest, above=above)
    _, sizes, order = bands[-1]
    spanned = {
        t: [outside[d] if d in order[len(order) - n :] else sizes[d] for d in range(len(dims))]
        for t, n in spans.items()
    }
    bound = _need_bound(context, len(arch.levels) - 1, sizes, None, context.spread, spanned)
    needs, _ = level_needs(problem, tile_maps(placed), place_maps(placed))
    assert bound <= needs["rf"]
    stamps = to_stamps(placed)
    with_places = flow.model_copy(update={"tiles": stamps.tiles, "places": stamps.places})
    _, oracle = reference_memory(load_workload(workload), arch, with_places, params)
    assert needs["rf"] == oracle["rf"]


def test_the_need_of_a_leaf_with_places_by_hand() -> None:
    # GEMM 8³ on PE[i % 2, j % 2]: the buffer's tiles (i 8, j 4, k 8) run j's 2 blocks; the
    # register file's single instances run k, i, j; B and C stored above i and j (their
    # places list the buffer's loops and k). Per PE at each moment: A[i, k] 1, B[k, j] over
    # the block's 2 j of the PE 2, C[i, j] over its 4 i and 2 j 8: 11. (Taking B's place,
    # which lists the most coordinates, as the finest tiles counted A over its 4 i: 14.)
    from tenet.mapping import tiled_nest, to_stamps
    from tenet.oracle.tiles import reference_memory

    arch = ArchitectureSpec.from_mapping(
        {
            "name": "two-levels",
            "pe": "{PE[i, j]: 0 <= i < 2 and 0 <= j < 2}",
            "levels": [{"name": "dram"}, {"name": "buffer"}, {"name": "rf", "per_pe": True}],
        }
    )
    params = {"M": 8, "N": 8, "K": 8}
    bands = [("buffer", (8, 4, 8), (1, 0, 2)), ("rf", (1, 1, 1), (2, 0, 1))]
    nest = tiled_nest(("i", "j", "k"), (8, 8, 8), "dram", bands, (0, 1, 2))
    boundary = nest.boundary("rf")
    placed = replace(nest, above={"B": {"rf": boundary - 2}, "C": {"rf": boundary - 2}})
    problem = load_problem("gemm", arch, MAPPING, params)
    needs, _ = level_needs(problem, tile_maps(placed), place_maps(placed))
    assert needs["rf"] == 1 + 2 + 8
    stamps = to_stamps(placed)
    flow = MAPPING.model_copy(update={"tiles": stamps.tiles, "places": stamps.places})
    _, oracle = reference_memory(load_workload("gemm"), arch, flow, params)
    assert oracle["rf"] == 11
