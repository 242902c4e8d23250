"""The analytic data-footprint / data-movement model of model-driven tile optimisation, as
written: loops walked from the statement outward; a loop that indexes a tensor multiplies its
footprint DF and movement DM by the loop's trip count; one that does not keeps DF, and keeps
DM only while the footprints of the loops inside fit in the level's capacity (strictly less).

Level ``l``'s movement ``C_DM(l)`` (the elements brought into it, computed with its capacity)
takes ``C_DM(l) / BW`` cycles of the level outside it; the time is the maximum over levels;
a level's constraint is ``Σ DF(tensor, outermost loop of its tile) <= capacity``. Closed-form
products, no relations: :mod:`tenet.metrics.memory` counts the same quantities exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from tenet.mapping import Loop, LoopNest

__all__ = ["AnalyticLevel", "AnalyticFigures", "movement", "analytic_figures"]


@dataclass(frozen=True)
class AnalyticLevel:
    """A memory level as the model sees it: capacity in elements (None: unbounded) and the
    bandwidth, elements/cycle, at which the level outside it delivers (None: unbounded)."""

    name: str
    capacity: int | None
    bandwidth: Fraction | None = None


@dataclass(frozen=True)
class AnalyticFigures:
    """Per level and tensor: DF of one tile and DM into the level (elements); per level the
    constraint and the time (cycles)."""

    footprint: dict[tuple[str, str], int]
    movement: dict[tuple[str, str], int]
    fits: dict[str, bool]
    time: dict[str, Fraction]

    @property
    def latency(self) -> Fraction:
        """The largest time over the levels (cycles)."""
        return max(self.time.values(), default=Fraction(0))


def movement(
    nest: Sequence[Loop], indices: Mapping[str, frozenset[str]], capacity: int | None
) -> tuple[list[dict[str, int]], list[dict[str, int]]]:
    """Return DF and DM of every tensor after each loop, walking ``nest`` (outermost first;
    a loop's ``size`` is its trip count, ``range(i)`` of the method) from the statement
    outward; entry 0 is the statement (DF = DM = 1).

    Examples
    --------
    >>> nest = [Loop("i", 2), Loop("k", 2)]
    >>> df, dm = movement(nest, {"A": frozenset("ik"), "B": frozenset("k")}, capacity=3)
    >>> df[-1], dm[-1]
    ({'A': 4, 'B': 2}, {'A': 4, 'B': 4})
    """
    df = [{t: 1 for t in indices}]
    dm = [{t: 1 for t in indices}]
    for loop in reversed(nest):
        inner_df, inner_dm = df[-1], dm[-1]
        fits = capacity is None or sum(inner_df.values()) < capacity
        next_df, next_dm = {}, {}
        for tensor, dims in indices.items():
            if loop.dim in dims:
                next_dm[tensor] = inner_dm[tensor] * loop.size
                next_df[tensor] = inner_df[tensor] * loop.size
            else:
                next_df[tensor] = inner_df[tensor]
                next_dm[tensor] = inner_dm[tensor] * (1 if fits else loop.size)
        df.append(next_df)
        dm.append(next_dm)
    return df, dm


def analytic_figures(
    tiling: LoopNest, indices: Mapping[str, frozenset[str]], levels: Sequence[AnalyticLevel]
) -> AnalyticFigures:
    """Apply the model to ``tiling``: ``levels`` are the tiled levels (those inside the
    outermost), outermost first; ``indices`` the dimensions that index each tensor.

    Examples
    --------
    >>> from tenet.mapping import tiled_nest
    >>> t = tiled_nest(("i", "j", "k"), (4, 4, 4), "dram", [("glb", (2, 2, 2), (0, 1, 2))],
    ...     (0, 1, 2))
    >>> idx = {"A": frozenset("ik"), "B": frozenset("kj"), "C": frozenset("ij")}
    >>> f = analytic_figures(t, idx, [AnalyticLevel("glb", 16, Fraction(1))])
    >>> f.movement
    {('glb', 'A'): 32, ('glb', 'B'): 32, ('glb', 'C'): 16}
    """
    nest = [loop for _, loop in tiling.loops()]
    footprint: dict[tuple[str, str], int] = {}
    moved: dict[tuple[str, str], int] = {}
    fits: dict[str, bool] = {}
    time: dict[str, Fraction] = {}
    for k, level in enumerate(levels):
        df, dm = movement(nest, indices, level.capacity)
        # the loops inside level k's tile: every loop after those of the levels outside it
        # (entry `inside` of df counts from the statement outward)
        inside = len(nest) - tiling.boundary(tiling.levels[k + 1].level)
        for tensor in indices:
            footprint[(level.name, tensor)] = df[inside][tensor]
            moved[(level.name, tensor)] = dm[-1][tensor]
        total = sum(df[inside].values())
        fits[level.name] = level.capacity is None or total <= level.capacity
        volume = sum(dm[-1].values())
        time[level.name] = (
            Fraction(0) if level.bandwidth is None else Fraction(volume) / level.bandwidth
        )
    return AnalyticFigures(footprint, moved, fits, time)
