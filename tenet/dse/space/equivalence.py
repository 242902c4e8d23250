"""When two dataflows are the same design point, and finding a dataflow in a design space.

Two dataflows Θ = (Θ_S, Θ_T) and Θ' of a workload with domain D on an array are *equivalent*
when, for some symmetry π of the array (a permutation of PE coordinates mapping the PE set and
each link family onto itself, the identity included):

1. Θ'_S = π ∘ Θ_S on D (the same instances on corresponding PEs), and
2. the relation σ = Θ'_T ∘ Θ_T⁻¹ between occupied time-stamps is a bijection that preserves
   the lexicographic order (the same instances share a time-stamp, in the same order).

Equivalent dataflows have the same space-time points, neighbours and data assignments up to
renaming, hence the same metrics. Both conditions are checked exactly with isl; a check on a
few sample instances discards most non-equivalent candidates first.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import islpy as isl

from tenet.dse.space.design import DesignSpace
from tenet.dse.space.mapping import AffineMapping, Digit
from tenet.dse.space.symmetry import permutation_map
from tenet.model import Dataflow, Workload
from tenet.spec import DataflowSpec

__all__ = ["same_order", "equivalent", "find"]


def same_order(first: isl.Map, second: isl.Map) -> bool:
    """Whether two time-stamp maps (restricted to the domain) order the instances alike:
    ``second ∘ first⁻¹`` is an order-preserving bijection between occupied time-stamps.

    Examples
    --------
    >>> a = isl.Map("{S[i] -> T[floor(i/4), i % 4]: 0 <= i < 8}")
    >>> same_order(a, isl.Map("{S[i] -> T[i]: 0 <= i < 8}"))
    True
    >>> same_order(a, isl.Map("{S[i] -> T[i % 4, floor(i/4)]: 0 <= i < 8}"))
    False
    """
    sigma = first.reverse().apply_range(second)
    if not (sigma.is_single_valued() and sigma.is_injective()):
        return False
    occupied = first.range()
    earlier = occupied.lex_lt_set(occupied).apply_domain(sigma).apply_range(sigma)
    image = second.range()
    return earlier.is_subset(image.lex_lt_set(image))


def equivalent(
    workload: Workload,
    first: Dataflow,
    second: Dataflow,
    symmetries: Sequence[tuple[int, ...]] = (),
) -> bool:
    """Whether ``first`` and ``second`` are equivalent dataflows of ``workload`` (up to the
    PE coordinate permutations ``symmetries``; the identity is always tried)."""
    domain = workload.domain
    space_a = first.space_stamp.intersect_domain(domain)
    space_b = second.space_stamp.intersect_domain(domain)
    pe = space_a.range().get_space()
    identity = tuple(range(pe.dim(isl.dim_type.set)))
    for order in (identity, *[s for s in symmetries if s != identity]):
        pe_set = isl.Set.universe(pe)
        if space_a.apply_range(permutation_map(pe_set, order)).is_equal(space_b):
            break
    else:
        return False
    return same_order(
        first.time_stamp.intersect_domain(domain), second.time_stamp.intersect_domain(domain)
    )


class _Stamp:
    """A stamp map of the domain, evaluated at integer points (values cached)."""

    def __init__(self, theta: isl.Map) -> None:
        self.function = isl.PwMultiAff.from_map(theta) if theta.is_single_valued() else None
        self.space = theta.domain().get_space()
        self._cache: dict[tuple[int, ...], tuple[int, ...]] = {}

    def __call__(self, point: tuple[int, ...]) -> tuple[int, ...]:
        if point not in self._cache:
            assert self.function is not None
            at = isl.Point.zero(self.space)
            ctx = self.space.get_ctx()
            for k, value in enumerate(point):
                at = at.set_coordinate_val(isl.dim_type.set, k, isl.Val(str(value), ctx))
            self._cache[point] = tuple(
                int(self.function.get_pw_aff(k).eval(at).to_python())
                for k in range(self.function.dim(isl.dim_type.out))
            )
        return self._cache[point]


def _dropped(
    time: _Stamp,
    digits: Sequence[Digit],
    samples: Sequence[tuple[int, ...]],
    extents: Sequence[int],
) -> tuple[Digit, ...]:
    """The digits whose change alone never changes the time-stamp ``time`` on the samples."""
    dropped = []
    for digit in digits:
        probes = 0
        for point in samples:
            x = point[digit.loop]
            if digit.value(x) + 1 >= digit.extent or x + digit.stride >= extents[digit.loop]:
                continue
            moved = tuple(v + digit.stride * (k == digit.loop) for k, v in enumerate(point))
            if time(moved) != time(point):
                break
            probes += 1
        else:
            if probes:
                dropped.append(digit)
    return tuple(dropped)


def _ranks(times: Sequence[tuple[int, ...]]) -> list[int]:
    """Dense rank of each time-stamp: equal rank lists mean the same preorder."""
    order = {t: k for k, t in enumerate(sorted(set(times)))}
    return [order[t] for t in times]


def find(space: DesignSpace, dataflow: DataflowSpec) -> AffineMapping | None:
    """Return the mapping of ``space`` equivalent to ``dataflow`` (the representative kept
    by the symmetry reduction), or None when the space does not hold it.

    The digits a candidate drops are read off ``dataflow`` on sample instances (a digit is
    dropped when changing it alone never changes the time-stamp), so only the orders and skews
    of matching structures are tried; each hit is confirmed exactly (:func:`equivalent`).

    Examples
    --------
    >>> space = DesignSpace.build("gemm", "systolic-2d-8x8", {"M": 16, "N": 16, "K": 16})
    >>> found = find(space, DataflowSpec.from_mapping({"name": "os",
    ...     "space_stamp": "{S[i,j,k] -> PE[j % 8, i % 8]}",
    ...     "time_stamp": "{S[i,j,k] -> T[floor(j/8), floor(i/8), i % 8 + j % 8 + k]}"}))
    >>> found.name
    'PE[i % 8, j % 8] T[floor(j/8), floor(i/8), i % 8 + j % 8 + k]'
    """
    workload = space.workload
    bound = space.specs.bound
    target = Dataflow.from_spec(dataflow, bound)
    domain = workload.domain
    samples = space.samples
    pe = _Stamp(target.space_stamp.intersect_domain(domain))
    time = _Stamp(target.time_stamp.intersect_domain(domain))
    if pe.function is None or time.function is None:
        return None
    pes = [pe(p) for p in samples]
    images = {tuple(tuple(v[k] for k in order) for v in pes) for order in space.symmetries}
    ranks = _ranks([time(p) for p in samples])
    few = samples[:: max(1, len(samples) // 16)]
    few_ranks = _ranks([time(p) for p in few])
    for placement, state in space.spaces():
        probe = AffineMapping(space.statement, space.loops, placement, (), (), None, ())
        if not any(
            all(probe.stamps(p)[0] == image[k] for k, p in enumerate(samples)) for image in images
        ):
            continue
        for temporal in space.temporal_digits(state):
            dropped = _dropped(time, temporal, samples, space.extents)
            if math.prod(d.extent for d in dropped) > space.instances_per_step:
                continue
            for skew, inner, outer in space.time_structures(placement, temporal, dropped):
                for order in space.orders(outer):
                    mapping = AffineMapping(
                        space.statement, space.loops, placement, order, skew, inner, dropped
                    )
                    if _ranks([mapping.stamps(p)[1] for p in few]) != few_ranks:
                        continue
                    if _ranks([mapping.stamps(p)[1] for p in samples]) != ranks:
                        continue
                    mine = Dataflow.from_spec(mapping.spec(), bound)
                    if equivalent(workload, mine, target, space.symmetries):
                        return space.canonical(mapping)
    return None
