"""Rule 13's arithmetic: the Loomis–Whitney factor of sliced loops, checked on random sets of
instances of small GEMMs and convolutions (every set's three projections against its size),
and the traffic a capacity forces."""

from __future__ import annotations

from itertools import product
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tenet.dse.joint.pebbles import capacity_traffic, slice_factor

GEMM = [(((0, 1),), ((2, 1),)), (((2, 1),), ((1, 1),)), (((0, 1),), ((1, 1),))]
"""A[i, k], B[k, j], C[i, j] over (i, j, k)."""
CONV = [
    (((0, 1),), ((1, 1),), ((4, 1),), ((5, 1),)),
    (((1, 1),), ((2, 1), (4, 1)), ((3, 1), (5, 1))),
    (((0, 1),), ((2, 1),), ((3, 1),)),
]
"""W[k, c, rx, ry], I[c, ox + rx, oy + ry], O[k, ox, oy] over (k, c, ox, oy, rx, ry)."""
DEPTHWISE = [
    (((0, 1),), ((3, 1),)),
    (((0, 1),), ((1, 1), (3, 1))),
    (((0, 1),), ((1, 1),)),
]
"""W[c, r], I[c, x + r], O[c, x] over (c, x, y, r) (y of extent 1)."""
STRIDED = [
    (((0, 1),), ((1, 2), (2, 1))),
    (((0, 1),), ((2, 1),)),
    (((0, 1),), ((1, 1),)),
]
"""I[c, 2x + r], W[c, r], O[c, x] over (c, x, r)."""

Case = tuple[list[tuple[int, ...]], Any, tuple[int, ...]]
"""Instances drawn, the tensors' subscripts and the loops' extents."""


def test_slice_factors() -> None:
    assert slice_factor(GEMM, (4, 4, 4)) == 1
    assert slice_factor(CONV, (2, 2, 4, 4, 3, 3)) == 9  # fix rx and ry, alone in W's
    assert slice_factor(CONV, (2, 2, 4, 4, 3, 1)) == 3  # ry of extent 1 is no loop
    assert slice_factor(DEPTHWISE, (4, 5, 1, 3)) == 3  # c in all three: slices
    assert slice_factor(STRIDED, (2, 4, 3)) == 3
    assert slice_factor(GEMM[:2], (4, 4, 4)) is None
    # a loop in no tensor: fixed, and no tensor's parts are disjoint over it (n²)
    assert slice_factor(GEMM, (4, 4, 4, 2)) == 4


def _elements(
    subscripts: tuple[tuple[tuple[int, int], ...], ...], point: tuple[int, ...]
) -> tuple[int, ...]:
    return tuple(sum(a * point[d] for d, a in terms) for terms in subscripts)


@st.composite
def instance_sets(draw: st.DrawFn) -> Case:
    tensors, extents = draw(
        st.sampled_from(
            [
                (GEMM, (3, 3, 3)),
                (CONV, (2, 2, 3, 2, 3, 2)),
                (DEPTHWISE, (2, 4, 1, 3)),
                (STRIDED, (2, 3, 3)),
                (GEMM, (3, 3, 2, 2)),
            ]
        )
    )
    points = list(product(*(range(e) for e in extents)))
    chosen = draw(st.lists(st.sampled_from(points), min_size=1, max_size=len(points), unique=True))
    return chosen, tensors, extents


@settings(max_examples=300, deadline=None)
@given(instance_sets())
def test_loomis_whitney_over_sliced_loops(case: Case) -> None:
    chosen, tensors, extents = case
    factor = slice_factor(tensors, extents)
    assert factor is not None
    touched = [len({_elements(subs, p) for p in chosen}) for subs in tensors]
    assert len(chosen) ** 2 <= factor * touched[0] * touched[1] * touched[2]


def test_capacity_traffic() -> None:
    # GEMM 4³ on one buffer of 3 (docs/dse.md, rule 13's example): 52
    assert capacity_traffic(64, 1, 3, 1) == 52
    # steps of s: a segment runs at most floor(sqrt(k·(2S + s)³/27)) instances
    assert capacity_traffic(64, 4, 3, 1) == max(
        s * (-(-64 // int((6 + s) ** 1.5 / 27**0.5)) - 4) for s in range(1, 25)
    )
    # a buffer that holds everything forces nothing beyond one segment each
    assert capacity_traffic(64, 1, 48, 1) == 0
