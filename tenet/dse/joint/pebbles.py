"""The traffic a level's capacity forces, whatever the tiling (red–blue pebbles).

A buffer of S elements (a register file per PE, or a shared buffer) holds at most S elements
at any moment, and every instance finds its operands in it. Cut each buffer's sequence of
fills and writebacks into segments of ``step`` of them: a segment touches at most
``2 S + step`` elements (those held at its start, those it fills, and the results it creates,
written back within it or held at its end), and the discrete Loomis–Whitney inequality bounds
the instances that touch so few elements of three tensors. Every segment but the last of a
buffer is full, so the buffers' traffic is at least ``step`` times the segments beyond one per
buffer. The derivation is rule 13 of ``docs/dse.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import product
from math import isqrt, prod

__all__ = ["slice_factor", "capacity_traffic"]

Subscripts = tuple[tuple[tuple[int, int], ...], ...]
"""Per subscript of one tensor, its loops and their integer coefficients."""


def slice_factor(tensors: Sequence[Subscripts], extents: Sequence[int]) -> int | None:
    """Return the least ``k`` found such that every set V of instances of a box of
    ``extents`` that touches a, b and c elements of the three ``tensors`` (affine subscripts,
    each loop in at most one subscript of a tensor, loops of extent 1 left out) has
    ``|V|² ≤ k·a·b·c``; None unless there are three tensors with known subscripts.

    Fix the values of a set Q of loops so that every subscript keeps at most one free loop
    and every free loop is in two or three tensors: for each value q of Q, each tensor's
    elements are then a coordinate projection of V_q, and Loomis–Whitney over the groups of
    loops (in A and B, A and C, B and C; a loop in all three splits V_q in slices, each
    bounded alike) gives ``|V_q|² ≤ |A_q|·|B_q|·|C_q|``. Summed over the n values of Q:
    ``|V| ≤ sqrt(n·a·b·c)`` when one tensor has every loop of Q alone in a subscript (its
    parts A_q are disjoint: Cauchy–Schwarz), else ``n·sqrt(a·b·c)``.

    Examples
    --------
    >>> gemm = [(((0, 1),), ((2, 1),)), (((2, 1),), ((1, 1),)), (((0, 1),), ((1, 1),))]
    >>> slice_factor(gemm, (8, 8, 8))
    1
    >>> conv = [  # W[k, c, r], I[c, x + r], O[k, x] over (k, c, x, r)
    ...     (((0, 1),), ((1, 1),), ((3, 1),)),
    ...     (((1, 1),), ((2, 1), (3, 1))),
    ...     (((0, 1),), ((2, 1),)),
    ... ]
    >>> slice_factor(conv, (4, 4, 6, 3))  # fix r (3 values, alone in W's subscripts)
    3
    """
    if len(tensors) != 3 or not all(tensors):
        return None
    loops = [d for d in range(len(extents)) if extents[d] > 1]
    involved = {
        d: sum(1 for subs in tensors if any(e == d for terms in subs for e, _ in terms))
        for d in loops
    }
    alone = [{terms[0][0] for terms in subs if len(terms) == 1} for subs in tensors]
    shared = [terms for subs in tensors for terms in subs if len(terms) > 1]
    forced = {d for d in loops if involved[d] < 2}
    least: int | None = None
    for free in product(*[[e for e, _ in terms] for terms in shared]):
        fixed = forced | {e for terms in shared for e, _ in terms} - set(free)
        if any(len({e for e, _ in terms} - fixed) > 1 for subs in tensors for terms in subs):
            continue
        n = prod(extents[d] for d in fixed)
        k = n if any(fixed <= own for own in alone) else n * n
        least = k if least is None else min(least, k)
    return least


@lru_cache(maxsize=256)
def capacity_traffic(instances: int, buffers: int, capacity: int, factor: int) -> int:
    """Return a lower bound on the fills and writebacks, summed over ``buffers`` buffers of
    ``capacity`` elements each, of any schedule of ``instances`` instances of three tensors
    (:func:`slice_factor` ``factor``) whose operands each buffer holds when it runs them.

    A segment of ``step`` transfers touches at most T = 2·capacity + step elements, so it
    runs at most F = floor(sqrt(factor·T³/27)) instances (a + b + c ≤ T, so a·b·c ≤ (T/3)³);
    the buffers need at least ceil(instances / F) segments in all, every one but the last of
    each buffer full. The bound is the best over a range of steps.

    Examples
    --------
    >>> capacity_traffic(4**3, 1, 3, 1)  # GEMM 4³, one buffer of 3: steps of 13, F = 15
    52
    """
    if capacity <= 0 or instances <= 0:
        return 0
    steps = range(1, 8 * capacity + 1)
    if capacity > 256:
        steps = range(capacity // 4, 8 * capacity + 1, max(1, capacity // 4))
    best = 0
    for step in steps:
        most = isqrt(factor * (2 * capacity + step) ** 3 // 27)
        best = max(best, step * (-(-instances // most) - buffers))
    return best
