"""The bounds of the joint search with halo loops running (``ox`` in ``ox + rx``): the input's
blocks over its block loops (``c``) are revisited by every loop it does not depend on outside
them, and the bounds never exceed the exact figures of random convolution tilings."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tenet.api import load_problem
from tenet.dse.joint.bounds import Band, BoundContext, bands_of, lower_bound
from tenet.dse.tiling.rtile import box_extents
from tenet.mapping import tile_maps, tiled_nest
from tenet.metrics.latency import occupancy
from tenet.metrics.memory import evaluate_memory
from tenet.spec import ArchitectureSpec, DataflowSpec, load_workload
from tests.dse.joint.test_bounds import drawn_tiling, one_buffer

SPACES = [
    "{S[k, c, ox, oy, rx, ry] -> PE[k % 2]}",
    "{S[k, c, ox, oy, rx, ry] -> PE[c % 2]}",
    "{S[k, c, ox, oy, rx, ry] -> PE[ox % 2]}",
]


def _arch(per_pe: bool, capacity: int | None, link: tuple[str, int] | None) -> ArchitectureSpec:
    levels: list[dict[str, Any]] = [
        {"name": "dram", "read_bandwidth": 1, "write_bandwidth": 2, "energy_read": 100},
        {"name": "glb", "read_bandwidth": 3, "write_bandwidth": 1, "energy_read": 3},
        {"name": "rf", "per_pe": per_pe, "capacity": capacity, "energy_write": 1.68},
    ]
    return ArchitectureSpec.from_mapping(
        {
            "name": "a",
            "pe": "{PE[p]: 0 <= p < 2}",
            "levels": levels,
            "interconnect": [] if link is None else [{"link": link[0], "delay": link[1]}],
        }
    )


def test_a_running_halo_loop_does_not_hide_the_revisits() -> None:
    # conv K=2, C=2, OX=2, RX=2 (OY=RY=1) on one buffer: tiles k=1, c=1, ox=2, rx=1, loops
    # k, c, rx outermost first. I[c, ox + rx]: its block loop is c; k (2 trips) runs outside
    # it, so each channel's 3 input values come in twice: 12 fills (within a channel, rx
    # moves the window by one: 2 + 1 values). W[k, c, rx]: 8 values once; O[k, ox]: 4 values
    # once, written back once. DRAM: 20 reads at 1/cycle, 4 writes at 2/cycle: 22 cycles.
    arch = one_buffer()
    dataflow = DataflowSpec(
        name="d",
        space_stamp="{S[k, c, ox, oy, rx, ry] -> PE[0]}",
        time_stamp="{S[k, c, ox, oy, rx, ry] -> T[k, c, ox, oy, rx, ry]}",
    )
    params = {"K": 2, "C": 2, "OX": 2, "OY": 1, "RX": 2, "RY": 1}
    problem = load_problem("conv2d", arch, dataflow, params)
    dims, extents = box_extents(problem.workload)
    band = Band("glb", (1, 1, 2, 1, 1, 1), (0, 1, 4, 2, 3, 5))
    nest = tiled_nest(dims, extents, "dram", [band], tuple(range(len(dims))))
    exact = evaluate_memory(problem, 0, tile_maps(nest))
    bound = lower_bound(BoundContext.from_problem(problem), 0, [band])
    assert bound.latency == 22 == exact.latency


@st.composite
def convolutions(draw: st.DrawFn) -> tuple[Any, ...]:
    sizes = {
        "K": draw(st.sampled_from([1, 2, 4])),
        "C": draw(st.sampled_from([1, 2, 4])),
        "OX": draw(st.sampled_from([1, 2, 3, 4])),
        "OY": draw(st.sampled_from([1, 2])),
        "RX": draw(st.sampled_from([2, 3])),
        "RY": draw(st.sampled_from([1, 2])),
    }
    link = draw(st.sampled_from([None, ("{PE[p] -> PE[p + 1]}", 1), ("{PE[p] -> PE[q]}", 0)]))
    arch = _arch(draw(st.booleans()), draw(st.sampled_from([None, 3, 6, 12])), link)
    dataflow = DataflowSpec(
        name="d",
        space_stamp=draw(st.sampled_from(SPACES)),
        time_stamp="{S[k, c, ox, oy, rx, ry] -> T[k, c, ox, oy, rx, ry]}",
    )
    problem = load_problem(load_workload("conv2d"), arch, dataflow, sizes)
    nest, _ = drawn_tiling(draw, problem)
    return problem, nest, draw(st.integers(0, 2))


@settings(max_examples=60, deadline=None)
@given(convolutions())
def test_bound_with_halo_loops_never_exceeds_exact(case: tuple[Any, ...]) -> None:
    problem, nest, prefix = case
    compute = occupancy(problem).latency_compute
    exact = evaluate_memory(problem, compute, tile_maps(nest))
    assume(exact.fits)
    context = BoundContext.from_problem(problem)
    for unordered in (False, True):
        bands = bands_of(nest)[: max(prefix, 1) if unordered else prefix]
        bound = lower_bound(context, compute, bands, unordered=unordered)
        assert bound.latency <= exact.latency
        assert bound.energy <= Fraction(exact.energy)
