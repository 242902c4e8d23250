"""Stamps back to loop nests: random nests survive nest -> stamps -> nest (equal, and their
relations equal by isl), every zoo dataflow that is a loop nest comes back, and those that are
not (skewed systolic ones, dropped dimensions) are refused with the term or property."""

from __future__ import annotations

from math import ceil, prod

import islpy as isl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tenet import zoo
from tenet.errors import NotALoopNestError
from tenet.isl_utils import bind_params, parse_set
from tenet.mapping import (
    LevelLoops,
    Loop,
    LoopNest,
    Stamps,
    difference,
    from_stamps,
    tiled_nest,
    to_stamps,
)
from tenet.mapping.recover import box

DIMS = ("i", "j", "k")
LEVELS = ("dram", "glb", "rf")
TENSORS = ("A", "B", "C")


@st.composite
def nests(draw: st.DrawFn) -> LoopNest:
    """A loop nest in the form the stamps fix: 1-3 dimensions and levels, each dimension a
    chain of loops (inner ones of 2+ trips, the outermost taking the rest, partial tiles
    allowed), spatial loops on 1-2 axes first in the level above the per-PE one, kept
    tensors per level."""
    dims = DIMS[: draw(st.integers(1, 3))]
    extents = tuple(draw(st.integers(1, 6)) for _ in dims)
    n_levels = draw(st.integers(1, 3))
    levels = LEVELS[:n_levels]
    per_pe = n_levels >= 2 and draw(st.booleans())
    host = n_levels - 2 if per_pe else n_levels - 1
    # Temporal loops: per dimension, sizes of the inner loops (outermost first).
    inner = {d: draw(st.lists(st.integers(2, 3), max_size=2)) for d in dims}
    tokens = [d for d in dims for _ in range(len(inner[d]) + 1)]
    order = draw(st.permutations(tokens))
    cuts = sorted(
        draw(st.lists(st.integers(0, len(order)), min_size=n_levels - 1, max_size=n_levels - 1))
    )
    bounds = [0, *cuts, len(order)]
    # Spatial loops, ordered by axis: (dim, size, axis); they sit between the dimension's
    # loops of the levels above host and those of host and below.
    axes = draw(st.integers(1, 2))
    spatial = sorted(
        draw(
            st.lists(
                st.tuples(st.sampled_from(dims), st.integers(2, 3), st.integers(0, axes - 1)),
                max_size=2,
            )
        ),
        key=lambda s: s[2],
    )
    placed: list[tuple[int, str, bool, int | None]] = []  # level, dim, spatial?, axis
    for k in range(n_levels):
        if k == host:
            placed += [(k, d, True, a) for d, _, a in spatial]
        placed += [(k, d, False, None) for d in order[bounds[k] : bounds[k + 1]]]
    # Sizes: the chain of each dimension in loop order; the outermost takes the rest.
    sizes: dict[str, list[int]] = {}
    for d in dims:
        spatial_sizes = [n for sd, n, _ in spatial if sd == d]
        chain = [(lv, sp) for lv, dd, sp, _ in placed if dd == d]
        temporal = list(inner[d])
        out: list[int] = []
        for position in range(len(chain)):
            if chain[position][1]:
                out.append(spatial_sizes.pop(0))
            elif position == 0:
                out.append(0)
            else:
                out.append(temporal.pop(0) if temporal else 2)
        covered = prod(out[1:])
        out[0] = ceil(extents[dims.index(d)] / covered)
        sizes[d] = out
    per_level: list[list[Loop]] = [[] for _ in levels]
    for lv, d, sp, a in placed:
        per_level[lv].append(Loop(d, sizes[d].pop(0), spatial=a if sp else None))
    keeps = [
        None
        if k == 0 or draw(st.booleans())
        else frozenset(draw(st.sets(st.sampled_from(TENSORS))))
        for k in range(n_levels)
    ]
    return LoopNest(
        dims,
        extents,
        tuple(LevelLoops(levels[k], tuple(per_level[k]), keeps[k]) for k in range(n_levels)),
        per_pe=frozenset({levels[-1]}) if per_pe else frozenset(),
    )


def _domain(nest: LoopNest) -> isl.Set:
    bounds = " and ".join(f"0 <= {d} < {e}" for d, e in zip(nest.dims, nest.extents, strict=True))
    return isl.Set(f"{{S[{', '.join(nest.dims)}]: {bounds}}}")


def _pe_extents(nest: LoopNest) -> list[int]:
    return [
        prod(loop.size for _, loop in nest.loops() if loop.spatial == axis)
        for axis in range(nest.axes)
    ]


@given(nests())
def test_recover_random_nest_round_trip(nest: LoopNest) -> None:
    # the kept tensors of every level too: the stamps carry them
    stamps = to_stamps(nest)
    back = from_stamps(
        stamps,
        _domain(nest),
        [lv.level for lv in nest.levels],
        per_pe=nest.per_pe,
        pe_extents=_pe_extents(nest),
    )
    assert back == nest
    assert difference(back, stamps, _domain(nest)) is None


@given(nests(), st.integers(1, 2))
def test_recover_skewed_nest_is_refused(nest: LoopNest, coefficient: int) -> None:
    used = sorted({loop.spatial for _, loop in nest.loops() if loop.spatial is not None})
    if not used:
        return
    skewed = LoopNest(
        nest.dims,
        nest.extents,
        nest.levels,
        per_pe=nest.per_pe,
        skew=(coefficient,) * (used[-1] + 1),
    )
    with pytest.raises(
        NotALoopNestError, match=r"time_stamp: .* (is not a loop index|adds the PE coordinates)"
    ):
        from_stamps(
            to_stamps(skewed),
            _domain(nest),
            [lv.level for lv in nest.levels],
            per_pe=nest.per_pe,
            pe_extents=_pe_extents(nest),
        )


def test_recover_names_the_property_that_differs() -> None:
    # T[i mod 2, floor(i / 2)]: the loop of stride 1 runs outside the one of stride 2.
    stamps = Stamps("{S[i] -> PE[0]}", "{S[i] -> T[(i) % 2, floor(i / 2)]}", {})
    with pytest.raises(NotALoopNestError, match=r"the loops over 'i' are not nested \(strides"):
        from_stamps(stamps, isl.Set("{S[i]: 0 <= i < 4}"), ["dram"])
    # T[k] alone: the instances of one k over i share a time-stamp; the nest runs i inside.
    stamps = Stamps("{S[i, k] -> PE[0]}", "{S[i, k] -> T[k]}", {})
    with pytest.raises(NotALoopNestError, match="x.yaml: .*runs the instances in another order"):
        from_stamps(
            stamps, isl.Set("{S[i, k]: 0 <= i < 2 and 0 <= k < 2}"), ["dram"], source="x.yaml"
        )


# Read off the stamps of `tenet zoo dataflows`: every term a loop index and every dimension in
# a stamp (a loop nest) ...
NESTS = {
    "conv2d-maeri",
    "gemm-nmk",
    "gemm-os",
    "gemm-os-1d",
    "gemm-os-tiled",
    "jacobi-os",
    "jacobi-os-1d",
    "mmc-a-1d",
    "mmc-b-1d",
    "mmc-c-1d",
    "mmc-d-1d",
    "mttkrp-os-1d",
    "pointwise-kp-1d",
    "pointwise-nlr",
    "pointwise-os",
    "pointwise-ws",
    "pointwise-yxp",
}
# ... a skewed or modulo-wrapped term (i % 8 + j % 8 + k, (oy + ry) % 8, k + j, ...) ...
SKEWED = {
    "bmm-os-systolic",
    "bmm-ws-systolic",
    "conv2d-is",
    "fdtd-2d-skewed",
    "gemm-is-systolic",
    "gemm-os-systolic",
    "gemm-ws-systolic",
    "heat-3d-skewed",
    "jacobi-1d-skewed",
    "jacobi-2d-steps-skewed",
    "lu-skewed",
    "mttkrp-ij-systolic",
    "mttkrp-kj-systolic",
    "mttkrp-kl-systolic",
    "recurrence-2d-skewed",
    "scalesim-is",
    "scalesim-os",
    "scalesim-ws",
    "seidel-2d-skewed",
    "stencil-1d-steps-skewed",
    "trisolv-skewed",
}
# ... a digit between two stamp terms of one dimension in neither stamp (eyeriss conv3: c % 4
# inside floor(c / 16) leaves floor(c / 4) % 4 out) ...
GAPS = {"eyeriss-rs-alexnet-conv3", "eyeriss-rs-alexnet-conv4", "eyeriss-rs-alexnet-conv5"}
# ... or dimensions in neither stamp: several instances share a space-time point, which a nest
# would run one after the other.


def _first_combinations() -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for workload, architecture, dataflow in zoo.combinations():
        out.setdefault(dataflow, (workload, architecture))
    return out


ZOO = _first_combinations()


@pytest.mark.parametrize("name", sorted(ZOO))
def test_recover_zoo_dataflow(name: str) -> None:
    workload_name, architecture_name = ZOO[name]
    workload, architecture = zoo.workload(workload_name), zoo.architecture(architecture_name)
    dataflow = zoo.dataflow(name, architecture)
    bound = {**workload.params, **dataflow.params}
    domain = bind_params(parse_set(workload.domain), bound)
    stamps = Stamps(dataflow.space_stamp, dataflow.time_stamp, dict(dataflow.tiles))

    def recover(s: Stamps) -> LoopNest:
        return from_stamps(
            s,
            domain,
            [lv.name for lv in architecture.levels],
            per_pe=[lv.name for lv in architecture.levels if lv.per_pe],
            pe_extents=box(bind_params(parse_set(architecture.pe), bound))[1],
            params=bound,
            source=name,
        )

    if name in NESTS:
        nest = recover(stamps)
        assert difference(nest, stamps, domain, bound) is None
        assert recover(to_stamps(nest)) == nest
    elif name in SKEWED:
        with pytest.raises(
            NotALoopNestError, match=rf"{name}: .*(is not a loop index|systolic skew)"
        ):
            recover(stamps)
    elif name in GAPS:
        with pytest.raises(NotALoopNestError, match=rf"{name}: the loops over .* leave digits out"):
            recover(stamps)
    else:
        with pytest.raises(NotALoopNestError, match=rf"{name}: .*runs the instances in another"):
            recover(stamps)


@st.composite
def tilings(draw: st.DrawFn) -> LoopNest:
    """A rectangular tiling of 1-3 dimensions on 1-2 tiled levels, each tile size dividing
    the one outside it (and smaller), every band in its own order."""
    dims = DIMS[: draw(st.integers(1, 3))]
    n_bands = draw(st.integers(1, 2))
    # trips per dimension, outermost first: inner loops of 2+ trips (one trip would repeat
    # the stride of the loop inside it)
    chains = [
        [
            draw(st.integers(1, 3)),
            *draw(st.lists(st.integers(2, 3), min_size=n_bands, max_size=n_bands)),
        ]
        for _ in dims
    ]
    # extent = product of the chain; band k's size = product of the chain after k
    extents = tuple(prod(chain) for chain in chains)
    bands = [
        (
            LEVELS[k + 1],
            tuple(prod(chain[k + 1 :]) for chain in chains),
            tuple(draw(st.permutations(range(len(dims))))),
        )
        for k in range(n_bands)
    ]
    return tiled_nest(dims, extents, "dram", bands, tuple(draw(st.permutations(range(len(dims))))))


@given(tilings())
def test_recover_tiling_with_the_same_relations(tiling: LoopNest) -> None:
    # A tiling's loops carry their tile size (step); read back from its stamps, the nest has
    # the same loops with the step left to the trips inside, and the same relations.
    stamps = to_stamps(tiling)
    back = from_stamps(stamps, _domain(tiling), [lv.level for lv in tiling.levels])
    unstepped = tuple(
        LevelLoops(lv.level, tuple(Loop(x.dim, x.size, x.spatial) for x in lv.loops), lv.keep)
        for lv in tiling.levels
    )
    assert back == LoopNest(tiling.dims, tiling.extents, unstepped)
    assert [back.tile_sizes(lv.level) for lv in back.levels] == [
        tiling.tile_sizes(lv.level) for lv in tiling.levels
    ]


def test_recover_dimension_split_over_two_axes() -> None:
    # k's outer spatial digit on axis 1, its inner one on axis 0 beside j's (as in AccelForge's
    # best for GEMM 256³: k over d1, then k and j over d0): the digits nest by stride.
    nest = LoopNest(
        ("j", "k"),
        (4, 8),
        (
            LevelLoops(
                "glb", (Loop("k", 2, spatial=1), Loop("k", 2, spatial=0), Loop("j", 2, spatial=0))
            ),
            LevelLoops("rf", (Loop("j", 2), Loop("k", 2))),
        ),
        per_pe=frozenset({"rf"}),
    )
    stamps = to_stamps(nest)
    back = from_stamps(stamps, _domain(nest), ["glb", "rf"], per_pe={"rf"}, pe_extents=[4, 2])
    assert back == nest
    assert difference(back, stamps, _domain(nest)) is None
