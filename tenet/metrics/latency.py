"""Latency figures, in cycles: the occupancy of the array (how many instances share a (PE,
time-stamp)), the exact compute latency it gives (one instance per PE per cycle), and transfer
latencies."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import islpy as isl

from tenet.counting import constant_pieces, count
from tenet.errors import CountingError
from tenet.isl_utils import Relation, coalesce
from tenet.model.problem import Problem

__all__ = ["Occupancy", "ENUMERATION_LIMIT", "occupancy", "transfer_latency"]

ENUMERATION_LIMIT = 2_000_000
"""Most occupied (PE, time-stamp) points the exact fallback of :func:`occupancy` walks."""


@dataclass(frozen=True)
class Occupancy:
    """Figures of the occupancy: compute latency in cycles, instances per (PE, time-stamp)."""

    latency_compute: int
    """Σ over time-stamps of the busiest PE's instance count."""
    instances_per_step_max: int
    """The largest number of instances on one (PE, time-stamp)."""


def _unused_dims(problem: Problem) -> list[int]:
    space, time = problem.dataflow.space_stamp, problem.dataflow.time_stamp
    return [
        k
        for k in range(space.dim(isl.dim_type.in_))
        if not space.involves_dims(isl.dim_type.in_, k, 1)
        and not time.involves_dims(isl.dim_type.in_, k, 1)
    ]


def _drop(obj: Relation, dims: list[int], kind: isl.dim_type) -> Relation:
    for k in reversed(dims):
        obj = obj.project_out(kind, k, 1)
    return obj


def _by_pieces(problem: Problem) -> Occupancy | None:
    """Count per instance the instances on its (PE, time-stamp) (on Θ⁻¹∘Θ, which barvinok
    counts much faster than the per-point preimage Θ⁻¹); None unless piecewise constant.

    Loop dims that neither stamp uses are dropped first when the domain is a product over
    them (checked exactly: |D| = |D kept| · |D dropped|); their extent multiplies every count.
    With the distinct values v1 < v2 < ..., the latency is
    Σ_k (v_k - v_(k-1)) · #{t : some PE runs at least v_k instances at t}.
    """
    domain = problem.workload.domain
    space_time, time_stamp = problem.space_time, problem.theta_time
    factor = 1
    unused = _unused_dims(problem)
    if unused:
        used = [k for k in range(domain.dim(isl.dim_type.set)) if k not in unused]
        kept = _drop(domain, unused, isl.dim_type.set)
        dropped = _drop(domain, used, isl.dim_type.set)
        if count(domain) == count(kept) * count(dropped):
            factor = count(dropped)
            space_time = _drop(space_time, unused, isl.dim_type.in_).intersect_domain(kept)
            time_stamp = _drop(time_stamp, unused, isl.dim_type.in_).intersect_domain(kept)
    pieces = constant_pieces(space_time.apply_range(space_time.reverse()).card())
    if pieces is None:
        return None
    total = below = 0
    for value in sorted({n for _, n in pieces}):
        instances = isl.Set.empty(time_stamp.domain().get_space())
        for piece, n in pieces:
            if n >= value:
                instances = instances.union(piece)
        busy = coalesce(time_stamp.intersect_domain(instances).range())
        total += (value - below) * factor * count(busy)
        below = value
    return Occupancy(total, below * factor)


def _by_points(problem: Problem) -> Occupancy:
    """Walk the occupied (PE, time-stamp) points and evaluate the per-point instance count."""
    occupied = problem.occupied
    size = count(occupied)
    if size > ENUMERATION_LIMIT:
        raise CountingError(
            f"the instances per (PE, time-stamp) vary within barvinok's pieces, and the "
            f"{size} occupied points are more than the {ENUMERATION_LIMIT} the exact walk takes"
        )
    per_point = problem.space_time.reverse().card()
    n_space = problem.active_pes.dim(isl.dim_type.set)
    busiest: dict[tuple[int, ...], int] = defaultdict(int)

    def visit(point: isl.Point) -> None:
        coords = [
            int(point.get_coordinate_val(isl.dim_type.set, k).to_python())
            for k in range(point.get_space().dim(isl.dim_type.set))
        ]
        time = tuple(coords[n_space:])
        busiest[time] = max(busiest[time], int(per_point.eval(point).to_python()))

    occupied.foreach_point(visit)
    return Occupancy(sum(busiest.values()), max(busiest.values(), default=0))


def occupancy(problem: Problem) -> Occupancy:
    """Return the compute latency and the most instances on one (PE, time-stamp), exactly.

    Piecewise-constant occupancies (every rectangular quasi-affine dataflow) are counted
    without enumeration; otherwise the occupied points are walked (up to
    :data:`ENUMERATION_LIMIT`, else :class:`CountingError`). The dataflow's idle ``steps``
    (no instance runs) add one cycle each.
    """
    found = _by_pieces(problem) or _by_points(problem)
    steps = problem.dataflow.steps
    if steps is None:
        return found
    idle = count(steps.subtract(problem.timestamps))
    return Occupancy(found.latency_compute + idle, found.instances_per_step_max)


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
