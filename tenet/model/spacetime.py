"""Space-time neighbour relations: from a (PE, time-stamp) point to the points it can take
data from. Time-stamps are ordered lexicographically; "previous" means the previous
*occupied* time-stamp, not t - 1."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import islpy as isl

from tenet.model.architecture import Architecture
from tenet.vocab import Neighbourhood

__all__ = [
    "identity",
    "step_back",
    "previous",
    "time_window",
    "space_window",
    "neighbours",
    "Neighbours",
]


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


@dataclass(frozen=True)
class Neighbours:
    """The neighbour maps [PE -> T] -> [PE' -> T'] of the points of the ``active_pes`` at
    the occupied ``timestamps`` on ``architecture``: they depend on nothing else, so
    dataflows with the same active PEs and time-stamps share them."""

    active_pes: isl.Set
    timestamps: isl.Set
    architecture: Architecture
    neighbourhood: Neighbourhood = "window"
    """Which neighbours the unique volume takes data from (:attr:`reuse`)."""

    @cached_property
    def time_step(self) -> isl.Map:
        """t -> the previous occupied time-stamp, in lexicographic order."""
        return step_back(self.timestamps)

    def _linked(self, time: isl.Map, *, include_self: bool) -> isl.Map:
        """(PE, t) -> (linked PE, or the PE itself with ``include_self``, t') for t -> t' in
        ``time``, minus the point itself."""
        space = space_window(self.active_pes, self.architecture.sources, include_self=include_self)
        return neighbours(space, time)

    @cached_property
    def window(self) -> isl.Map:
        """Linked PE or itself, same or previous time-stamp, minus the point itself."""
        return self._linked(time_window(self.timestamps, self.time_step), include_self=True)

    @cached_property
    def temporal(self) -> isl.Map:
        """(PE, t) -> (PE, the previous occupied time-stamp)."""
        return self.temporal_at(1)

    def temporal_at(self, distance: int) -> isl.Map:
        """Return (PE, t) -> (PE, the ``distance``-th previous occupied time-stamp)."""
        return neighbours(
            identity(self.active_pes), previous(self.timestamps, self.time_step, distance)
        )

    @cached_property
    def spatial(self) -> isl.Map:
        """(PE, t) -> (linked PE, t - delay of the link): registered links one step earlier,
        multicast wires the same step."""
        result: isl.Map | None = None
        for link in self.architecture.links:
            space = space_window(self.active_pes, link.relation.reverse(), include_self=False)
            time = identity(self.timestamps) if link.delay == 0 else self.time_step
            part = neighbours(space, time)
            result = part if result is None else result.union(part)
        if result is None:
            return self._linked(identity(self.timestamps), include_self=False)
        return result

    @cached_property
    def linked(self) -> isl.Map:
        """Linked PE (not itself), same or previous time-stamp (the original's spatial map)."""
        return self._linked(time_window(self.timestamps, self.time_step), include_self=False)

    @cached_property
    def delivery(self) -> isl.Map:
        """Temporal or spatial neighbours: where the array itself delivers data from."""
        return self.temporal.union(self.spatial)

    @property
    def reuse(self) -> isl.Map:
        """The neighbour map of the unique volume, as :attr:`neighbourhood` selects."""
        if self.neighbourhood == "links":
            return self.delivery
        return self.window
