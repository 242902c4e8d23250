"""Schedule figures: instances per space-time point and the exact compute latency, in cycles
(one instance per PE per cycle)."""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from tenet.counting import count, count_pieces
from tenet.isl_utils import coalesce
from tenet.model.problem import Problem

__all__ = ["Occupancy", "occupancy", "latency_compute", "transfer_latency"]


@dataclass(frozen=True)
class Occupancy:
    """How many instances share each instance's (PE, time-stamp), as (instances, n) pieces.

    ``time_stamp`` maps the pieces' instance space to time-stamps; both may omit loop dims
    that neither stamp uses (their extent is folded into n).
    """

    pieces: list[tuple[isl.Set, int]]
    time_stamp: isl.Map

    @property
    def max(self) -> int:
        """The largest number of instances on one (PE, time-stamp)."""
        return max((n for _, n in self.pieces), default=0)


def _unused_dims(problem: Problem) -> list[int]:
    space, time = problem.dataflow.space_stamp, problem.dataflow.time_stamp
    return [
        k
        for k in range(space.dim(isl.dim_type.in_))
        if not space.involves_dims(isl.dim_type.in_, k, 1)
        and not time.involves_dims(isl.dim_type.in_, k, 1)
    ]


def _drop(obj: isl.Set | isl.Map, dims: list[int], kind: isl.dim_type) -> isl.Set | isl.Map:
    for k in reversed(dims):
        obj = obj.project_out(kind, k, 1)
    return obj


def occupancy(problem: Problem) -> Occupancy:
    """Count, per instance, the instances on the same (PE, time-stamp), itself included.

    Counted on Θ⁻¹∘Θ (per instance), which barvinok handles much faster than the per-point
    preimage Θ⁻¹. Loop dims that neither stamp uses are dropped first when the domain is a
    product over them (checked exactly: |D| = |D kept| · |D dropped|); their extent
    multiplies every count.
    """
    domain = problem.workload.domain
    space_time = problem.space_time
    time_stamp = problem.theta_time
    factor = 1
    unused = _unused_dims(problem)
    if unused:
        used = [k for k in range(domain.dim(isl.dim_type.set)) if k not in unused]
        kept, dropped = (
            _drop(domain, unused, isl.dim_type.set),
            _drop(domain, used, isl.dim_type.set),
        )
        if count(domain) == count(kept) * count(dropped):
            factor = count(dropped)
            space_time = _drop(space_time, unused, isl.dim_type.in_).intersect_domain(kept)
            time_stamp = _drop(time_stamp, unused, isl.dim_type.in_).intersect_domain(kept)
    pieces = count_pieces(space_time.apply_range(space_time.reverse()).card())
    return Occupancy([(piece, n * factor) for piece, n in pieces], time_stamp)


def latency_compute(shared: Occupancy) -> int:
    """Return Σ over time-stamps of the busiest PE's instance count, in cycles.

    With the distinct occupancies v1 < v2 < ... the sum is
    Σ_k (v_k - v_(k-1)) · #{t : some PE runs at least v_k instances at t}.
    """
    total = 0
    below = 0
    for value in sorted({n for _, n in shared.pieces}):
        instances = isl.Set.empty(shared.time_stamp.domain().get_space())
        for piece, n in shared.pieces:
            if n >= value:
                instances = instances.union(piece)
        busy = coalesce(shared.time_stamp.intersect_domain(instances).range())
        total += (value - below) * count(busy)
        below = value
    return total


def transfer_latency(volume: int, bits_per_element: int, bandwidth: int, latency: int) -> int:
    """Return cycles to move ``volume`` elements over ``bandwidth`` bits/cycle with a pipeline
    latency: ceil(volume · bits / bandwidth) + latency - 1 (0 when there is nothing to move).

    Examples
    --------
    >>> transfer_latency(10, 16, 64, 4)
    6
    """
    if volume == 0:
        return 0
    return -(-volume * bits_per_element // bandwidth) + latency - 1
