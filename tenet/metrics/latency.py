"""Schedule figures: instances per space-time point and the exact compute latency, in cycles
(one instance per PE per cycle)."""

from __future__ import annotations

import islpy as isl

from tenet.counting import count, count_pieces
from tenet.isl_utils import coalesce
from tenet.model.problem import Problem

__all__ = ["occupancy", "latency_compute", "transfer_latency"]


def occupancy(problem: Problem) -> list[tuple[isl.Set, int]]:
    """Return (instances, n) pieces: each instance shares its (PE, time-stamp) with n
    instances (itself included).

    Counted per instance on Θ⁻¹∘Θ (instances with the same space-time point), which barvinok
    counts much faster than the per-point preimage Θ⁻¹.
    """
    space_time = problem.space_time
    return count_pieces(space_time.apply_range(space_time.reverse()).card())


def latency_compute(problem: Problem, pieces: list[tuple[isl.Set, int]]) -> int:
    """Return Σ over time-stamps of the busiest PE's instance count, in cycles, from the
    :func:`occupancy` pieces.

    With the distinct occupancies v1 < v2 < ... the sum is
    Σ_k (v_k - v_(k-1)) · #{t : some PE runs at least v_k instances at t}.
    """
    total = 0
    below = 0
    for value in sorted({value for _, value in pieces}):
        instances = isl.Set.empty(problem.workload.domain.get_space())
        for domain, piece_value in pieces:
            if piece_value >= value:
                instances = instances.union(domain)
        total += (value - below) * count(coalesce(problem.theta_time.intersect_domain(instances)
                                                  .range()))
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
