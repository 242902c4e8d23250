"""Space-time neighbour relations: from a (PE, time-stamp) point to the points it can take
data from. Time-stamps are ordered lexicographically; "previous" means the previous
*occupied* time-stamp, not t - 1."""

from __future__ import annotations

import islpy as isl

__all__ = ["identity", "step_back", "previous", "time_window", "space_window", "neighbours"]


def identity(points: isl.Set) -> isl.Map:
    """Return the identity map on ``points``."""
    return isl.Map.identity(points.get_space().map_from_set()).intersect_domain(points)


def step_back(timestamps: isl.Set) -> isl.Map:
    """Return t -> the previous occupied time-stamp (lexmax of the earlier ones).

    Examples
    --------
    >>> step_back(isl.Set("{T[t]: t = 0 or t = 2 or t = 5}"))
    Map("{ T[t = 5] -> T[t' = 2]; T[t = 2] -> T[t' = 0] }")
    """
    return timestamps.lex_gt_set(timestamps).lexmax()


def previous(timestamps: isl.Set, step: isl.Map, distance: int = 1) -> isl.Map:
    """Return t -> the time-stamp ``distance`` occupied steps before t, given
    ``step = step_back(timestamps)``.

    Examples
    --------
    >>> from tenet.counting import count
    >>> times = isl.Set("{T[t]: t = 0 or t = 2 or t = 5}")
    >>> count(previous(times, step_back(times), 2))
    1
    """
    result = identity(timestamps)
    for _ in range(distance):
        result = result.apply_range(step)
    return result


def time_window(timestamps: isl.Set, step: isl.Map, distance: int = 1) -> isl.Map:
    """Return t -> {t, prev(t), ..., prev^distance(t)}."""
    window = identity(timestamps)
    back = identity(timestamps)
    for _ in range(distance):
        back = back.apply_range(step)
        window = window.union(back)
    return window


def space_window(active: isl.Set, sources: isl.Map, include_self: bool) -> isl.Map:
    """Return PE -> linked PEs it takes data from (and itself when ``include_self``),
    for the active PEs; a self-link counts as the PE itself."""
    linked = sources.intersect_domain(active).subtract(identity(active))
    return linked.union(identity(active)) if include_self else linked


def neighbours(space: isl.Map, time: isl.Map, *, exclude_self: bool = True) -> isl.Map:
    """Return the space-time neighbour map [PE -> T] -> [PE' -> T'] of a space and a time map."""
    product = space.product(time)
    if exclude_self:
        product = product.subtract(isl.Map.identity(product.get_space()))
    return product
