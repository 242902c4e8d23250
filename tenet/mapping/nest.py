"""The mapping type: what runs where and when, as a loop nest over memory levels and the array.

A :class:`LoopNest` lists, for every memory level from the backing store inward, the loops that
level runs over the tiles of the level inside it (outermost first): temporal loops, and spatial
loops over one axis of the PE array (several on one axis make a mixed-radix coordinate); the
tensors the level keeps (the others bypass it); which levels have one instance per PE; where a
tensor's storage sits when it differs from its level's place (``above``); and the skew of the
array (``skew``: the PE coordinates added to the innermost time-stamp dimension, as in the
systolic ``T[i + j + k]``), which no pure loop nest says. :mod:`tenet.mapping.stamps` writes it
as the stamps of a dataflow, :mod:`tenet.mapping.recover` reads it back from them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from math import prod
from typing import Any

from tenet.errors import NotALoopNestError, SpecError

__all__ = ["Loop", "LevelLoops", "LoopNest"]


@dataclass(frozen=True)
class Loop:
    """One loop: dimension ``dim`` (the workload's index name), ``size`` trips, the PE array
    axis it runs across (``spatial``; None for a temporal loop), and ``step``, the indices of
    ``dim`` one trip covers when its tiles are aligned to multiples of it over the whole
    extent (value ``floor(d / step)``; None: the trips of the loops inside over ``dim``)."""

    dim: str
    size: int
    spatial: int | None = None
    step: int | None = None


@dataclass(frozen=True)
class LevelLoops:
    """The loops a memory level runs over the tiles of the level inside it (outermost first),
    and the tensors it keeps (None: every tensor)."""

    level: str
    loops: tuple[Loop, ...] = ()
    keep: frozenset[str] | None = None

    def keeps(self, tensor: str) -> bool:
        """Return whether the level holds ``tensor`` (it does not bypass it)."""
        return self.keep is None or tensor in self.keep


@dataclass(frozen=True)
class LoopNest:
    """A mapping as a loop nest: per level from the backing store inward, its loops and the
    tensors it keeps. ``extents`` gives the trip count of each dimension, in order; the loops
    over a dimension may run more trips than its extent (the last tile is then partial).

    Examples
    --------
    >>> nest = LoopNest(("i", "k"), (4, 6), (
    ...     LevelLoops("dram", (Loop("k", 2),)),
    ...     LevelLoops("glb", (Loop("i", 4, spatial=0), Loop("k", 3)))))
    >>> nest.tile_sizes("glb"), nest.boundary("glb"), nest.strides()
    ((4, 3), 1, [3, 1, 1])
    """

    dims: tuple[str, ...]
    extents: tuple[int, ...]
    levels: tuple[LevelLoops, ...]
    statement: str = "S"
    per_pe: frozenset[str] = field(default_factory=frozenset)
    """Levels with one instance in every PE (their tiles are keyed by PE)."""
    above: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    """Per tensor and level, the number of loops (of :meth:`loops`, outermost first) above the
    tensor's storage at that level, where it differs from the level's place in the nest."""
    skew: tuple[int, ...] = ()
    """Per PE axis, its coefficient in the innermost time-stamp dimension (none: no skew)."""

    def boundary(self, level: str) -> int:
        """Return the number of loops above ``level``'s tiles (those of the levels outside)."""
        k = [lv.level for lv in self.levels].index(level)
        return sum(len(lv.loops) for lv in self.levels[:k])

    def loops(self) -> list[tuple[int, Loop]]:
        """Return every loop with the index of its level, outermost first."""
        return [(k, loop) for k, level in enumerate(self.levels) for loop in level.loops]

    def strides(self) -> list[int]:
        """Return, for every loop of :meth:`loops`, its step over its dimension in indices:
        ``step``, or the product of the sizes of the loops of the dimension inside it."""
        flat = [loop for _, loop in self.loops()]
        return [
            loop.step
            if loop.step is not None
            else prod(inner.size for inner in flat[n + 1 :] if inner.dim == loop.dim)
            for n, loop in enumerate(flat)
        ]

    def tile_sizes(self, level: str) -> tuple[int, ...]:
        """Return the size of ``level``'s tiles along each dimension, in indices: the step of
        the innermost loop above it over the dimension (at most the extent; the last tile may
        be partial), the extent when no loop above runs over it."""
        above = self.boundary(level)
        steps = dict(
            (loop.dim, stride)
            for (_, loop), stride in zip(self.loops()[:above], self.strides()[:above], strict=True)
        )
        return tuple(
            min(steps.get(dim, extent), extent)
            for dim, extent in zip(self.dims, self.extents, strict=True)
        )

    @property
    def partial(self) -> bool:
        """Whether some tile is partial: the loops over a dimension run more trips than its
        extent, or than the tile of the loop outside them.

        Examples
        --------
        >>> LoopNest(("i",), (10,), (LevelLoops("dram", (Loop("i", 3), Loop("i", 4))),)).partial
        True
        """
        outside = dict(zip(self.dims, self.extents, strict=True))
        for (_, loop), stride in zip(self.loops(), self.strides(), strict=True):
            if loop.size * stride != outside[loop.dim]:
                return True
            outside[loop.dim] = stride
        return False

    def describe(self) -> str:
        """Return a one-line description: per level inside the outermost, its name and the
        loops of the level outside it as ``dim:tile`` (``@PEa``: across PE axis ``a``).

        Examples
        --------
        >>> LoopNest(("i", "j"), (8, 8), (LevelLoops("dram", (Loop("j", 4), Loop("i", 2))),
        ...     LevelLoops("glb", (Loop("i", 4, spatial=0), Loop("j", 2))))).describe()
        'glb j:2 i:4'
        """
        strides = iter(self.strides())
        parts = [
            [
                f"{loop.dim}:{next(strides)}"
                + ("" if loop.spatial is None else f"@PE{loop.spatial}")
                for loop in level.loops
            ]
            for level in self.levels
        ]
        return "; ".join(
            " ".join([level.level, *parts[k]]) for k, level in enumerate(self.levels[1:])
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the nest as JSON-ready values, read back by :meth:`from_dict`.

        Examples
        --------
        >>> nest = LoopNest(("i",), (4,), (LevelLoops("dram", (Loop("i", 2), Loop("i", 2))),))
        >>> LoopNest.from_dict(nest.to_dict()) == nest
        True
        """
        return {
            "dims": list(self.dims),
            "extents": list(self.extents),
            "levels": [
                {
                    "level": level.level,
                    "loops": [[x.dim, x.size, x.spatial, x.step] for x in level.loops],
                    "keep": None if level.keep is None else sorted(level.keep),
                }
                for level in self.levels
            ],
            "statement": self.statement,
            "per_pe": sorted(self.per_pe),
            "above": {tensor: dict(places) for tensor, places in self.above.items()},
            "skew": list(self.skew),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LoopNest:
        """Return the nest written by :meth:`to_dict`."""
        levels = tuple(
            LevelLoops(
                level["level"],
                tuple(
                    Loop(dim, size, spatial, step) for dim, size, spatial, step in level["loops"]
                ),
                None if level["keep"] is None else frozenset(level["keep"]),
            )
            for level in data["levels"]
        )
        return cls(
            tuple(data["dims"]),
            tuple(data["extents"]),
            levels,
            data["statement"],
            frozenset(data["per_pe"]),
            {tensor: dict(places) for tensor, places in data["above"].items()},
            tuple(data["skew"]),
        )

    def keeping(self, keep: Mapping[str, frozenset[str]]) -> LoopNest:
        """Return this nest with each level that ``keep`` names keeping those tensors.

        Examples
        --------
        >>> nest = LoopNest(("i",), (4,), (LevelLoops("dram"), LevelLoops("glb")))
        >>> [lv.keep for lv in nest.keeping({"glb": frozenset({"A"})}).levels]
        [None, frozenset({'A'})]
        """
        if not keep:
            return self
        levels = tuple(
            replace(lv, keep=keep[lv.level]) if lv.level in keep else lv for lv in self.levels
        )
        return replace(self, levels=levels)

    @property
    def axes(self) -> int:
        """The number of PE array axes the nest uses (at least one)."""
        spatial = [loop.spatial for _, loop in self.loops() if loop.spatial is not None]
        return max(1 + max(spatial, default=0), len(self.skew))

    def check(self, source: str | None = None) -> None:
        """Raise when a loop names no dimension or runs no trip, when the loops over a
        dimension run fewer trips than its extent, when the outermost level (the backing
        store, which holds every tensor) keeps only some tensors, or when a spatial loop sits
        above a shared level (tenet has one instance of a shared level).

        Raises
        ------
        SpecError
            A loop over an unknown dimension, a size below 1, too few trips, a kept tensor
            list at the outermost level.
        NotALoopNestError
            A spatial loop above a shared level.
        """
        known = set(self.dims)
        if self.levels and self.levels[0].keep is not None:
            raise SpecError(
                f"the outermost level {self.levels[0].level!r} holds every tensor: it keeps "
                "no list of tensors",
                source=source,
                location=f"{self.levels[0].level}.keep",
            )
        for k, level in enumerate(self.levels):
            for n, loop in enumerate(level.loops):
                where = f"{level.level}.loops.{n}"
                if loop.dim not in known:
                    raise SpecError(
                        f"loop over {loop.dim!r}, which is not a dimension "
                        f"(dimensions: {', '.join(self.dims)})",
                        source=source,
                        location=where,
                    )
                if loop.size < 1:
                    raise SpecError(
                        f"loop size must be >= 1, not {loop.size}", source=source, location=where
                    )
                inside = self.levels[k + 1].level if k + 1 < len(self.levels) else None
                if loop.spatial is not None and inside is not None and inside not in self.per_pe:
                    raise NotALoopNestError(
                        f"spatial loop above shared level {inside!r} (tenet has one instance "
                        "of a shared level)",
                        source=source,
                        location=where,
                    )
        covers = {}
        for (_, loop), stride in reversed(list(zip(self.loops(), self.strides(), strict=True))):
            covers[loop.dim] = loop.size * stride
        for d, (dim, extent) in enumerate(zip(self.dims, self.extents, strict=True)):
            trips = covers.get(dim, 1)
            if trips < extent:
                raise SpecError(
                    f"the loops over {dim!r} run {trips} trips, fewer than its extent {extent}",
                    source=source,
                    location=f"dims.{d}",
                )
