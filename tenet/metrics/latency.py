"""Schedule figures: instances per space-time point and the exact compute latency, in cycles
(one instance per PE per cycle)."""

from __future__ import annotations

from tenet.counting import count, count_pieces
from tenet.isl_utils import coalesce
from tenet.model.problem import Problem

__all__ = ["latency_compute", "transfer_latency"]


def latency_compute(problem: Problem) -> int:
    """Return Σ over time-stamps of the busiest PE's instance count, in cycles.

    The per-point instance count is piecewise constant for quasi-affine dataflows of
    rectangular domains; with thresholds v1 < v2 < ... the sum is
    Σ_k (v_k - v_(k-1)) · #{t : some PE runs at least v_k instances at t}.
    """
    per_point = problem.space_time.reverse().card()
    pieces = count_pieces(per_point)
    values = sorted({value for _, value in pieces if value > 0})
    total = 0
    below = 0
    for value in values:
        busy = None
        for domain, piece_value in pieces:
            if piece_value >= value:
                times = domain.unwrap().range()
                busy = times if busy is None else busy.union(times)
        assert busy is not None
        total += (value - below) * count(coalesce(busy))
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
