"""Per-level loop nests (the mappings of Timeloop/AccelForge and ZigZag) as tenet relations.

A :class:`LoopNest` lists, for every memory level from the backing store inward, the loops
that level runs over the tiles of the level inside it (outermost first): temporal loops, and
spatial loops over an axis of the PE array; and which tensors the level keeps (the others
bypass it). :func:`to_relations` turns it into a space-stamp, a time-stamp and one tile stamp
per level, so that every figure of ``docs/memory.md`` applies; :func:`evaluate_nest` counts
the per-level, per-tensor figures honouring bypasses and either retention rule
(``docs/peers.md``):

- ``keep`` (Timeloop, ZigZag, and tenet's own rule): a level keeps a tensor's tile while the
  loops above it change only other tensors; it brings in what the previous tile does not hold.
- ``refetch`` (AccelForge): every iteration of a loop above a tensor's storage node brings the
  tile in again, whichever tensor the loop changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from math import ceil, prod
from typing import Literal

import islpy as isl

from tenet.counting import count
from tenet.errors import SpecError, TenetError
from tenet.metrics.memory import LevelTensor, evaluate_memory, tensor_relations
from tenet.model.memory import MemoryLevel
from tenet.model.problem import Problem
from tenet.model.tiling import tile_levels
from tenet.spec.dataflow import DataflowSpec

__all__ = [
    "Loop",
    "LevelLoops",
    "LoopNest",
    "NotALoopNestError",
    "Retention",
    "to_relations",
    "dataflow_spec",
    "evaluate_nest",
]

Retention = Literal["keep", "refetch"]


class NotALoopNestError(TenetError, ValueError):
    """A dataflow that no per-level loop nest expresses (skewed or modulo placements)."""


@dataclass(frozen=True)
class Loop:
    """One loop: dimension ``dim`` (the workload's index name), ``size`` trips, and the PE
    array axis it runs across (``spatial``; None for a temporal loop)."""

    dim: str
    size: int
    spatial: int | None = None


@dataclass(frozen=True)
class LevelLoops:
    """The loops a memory level runs over the tiles of the level inside it (outermost first),
    and the tensors it keeps (None: every tensor)."""

    level: str
    loops: tuple[Loop, ...] = ()
    keep: frozenset[str] | None = None

    def keeps(self, tensor: str) -> bool:
        """True when the level holds ``tensor`` (it does not bypass it)."""
        return self.keep is None or tensor in self.keep


@dataclass(frozen=True)
class LoopNest:
    """A mapping as a loop nest: per level from the backing store inward, its loops and the
    tensors it keeps. ``extents`` gives the trip count of each dimension, in order."""

    dims: tuple[str, ...]
    extents: tuple[int, ...]
    levels: tuple[LevelLoops, ...]
    statement: str = "S"
    per_pe: frozenset[str] = field(default_factory=frozenset)
    """Levels with one instance in every PE (their tiles are keyed by PE)."""
    above: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    """Per tensor and level, the number of loops (of :meth:`loops`, outermost first) above the
    tensor's storage at that level, where it differs from the level's place in the nest."""

    def boundary(self, level: str) -> int:
        """Return the number of loops above ``level``'s tiles (those of the levels outside)."""
        k = [lv.level for lv in self.levels].index(level)
        return sum(len(lv.loops) for lv in self.levels[:k])

    def loops(self) -> list[tuple[int, Loop]]:
        """Return every loop with the index of its level, outermost first."""
        return [(k, loop) for k, level in enumerate(self.levels) for loop in level.loops]

    def strides(self) -> list[int]:
        """Return, for every loop of :meth:`loops`, the product of the sizes of the loops of
        the same dimension inside it (its step over the dimension)."""
        flat = [loop for _, loop in self.loops()]
        return [
            prod(inner.size for inner in flat[n + 1 :] if inner.dim == loop.dim)
            for n, loop in enumerate(flat)
        ]


@dataclass(frozen=True)
class Relations:
    """The relations of a loop nest, as isl text."""

    space_stamp: str
    time_stamp: str
    tiles: dict[str, str]


def _check(nest: LoopNest, source: str | None) -> None:
    known = set(nest.dims)
    for k, level in enumerate(nest.levels):
        for n, loop in enumerate(level.loops):
            where = f"{level.level}.loops.{n}"
            if loop.dim not in known:
                raise SpecError(
                    f"loop over {loop.dim!r}, which is not a dimension "
                    f"(dimensions: {', '.join(nest.dims)})",
                    source=source,
                    location=where,
                )
            if loop.size < 1:
                raise SpecError(
                    f"loop size must be >= 1, not {loop.size}", source=source, location=where
                )
            shared_inside = k + 1 < len(nest.levels) and nest.levels[k + 1].level not in nest.per_pe
            if loop.spatial is not None and shared_inside:
                raise NotALoopNestError(
                    f"{source + ': ' if source else ''}{where}: spatial loop above shared level "
                    f"{nest.levels[k + 1].level!r} (tenet has one instance of a shared level)"
                )
    for d, (dim, extent) in enumerate(zip(nest.dims, nest.extents, strict=True)):
        sizes = [loop.size for _, loop in nest.loops() if loop.dim == dim]
        if prod(sizes) < extent:
            raise SpecError(
                f"the loops over {dim!r} run {prod(sizes)} trips, fewer than its extent {extent}",
                source=source,
                location=f"dims.{d}",
            )


def _value(loop: Loop, stride: int, outermost: bool) -> str:
    base = loop.dim if stride == 1 else f"floor({loop.dim} / {stride})"
    return base if outermost else f"({base}) % {loop.size}"


def to_relations(nest: LoopNest, source: str | None = None) -> Relations:
    """Return the space-stamp, time-stamp and tile stamps of ``nest`` (isl text).

    A loop of size ``n`` and stride ``s`` (the product of the inner loops over its dimension)
    takes the value ``floor(d / s) mod n`` (no modulo for the outermost loop of a dimension,
    which also takes the remainder of a tile that does not divide its loop). The time-stamp
    lists the temporal loops outermost first; PE axis ``a`` is the mixed-radix number of the
    spatial loops on ``a``; the tile stamp of a level lists the temporal loops of the level
    just outside it (the PE keys a per-PE level's tiles).

    Examples
    --------
    >>> nest = LoopNest(("i", "k"), (4, 6), (
    ...     LevelLoops("dram", (Loop("k", 2),)),
    ...     LevelLoops("glb", (Loop("i", 4, spatial=0), Loop("k", 3)))))
    >>> r = to_relations(nest)
    >>> r.space_stamp, r.time_stamp
    ('{S[i, k] -> PE[i]}', '{S[i, k] -> T[floor(k / 3), (k) % 3]}')
    >>> r.tiles
    {'glb': '{S[i, k] -> GLB[floor(k / 3)]}'}
    """
    _check(nest, source)
    flat = nest.loops()
    strides = nest.strides()
    first: dict[str, int] = {}
    for n, (_, loop) in enumerate(flat):
        first.setdefault(loop.dim, n)
    values = [_value(loop, strides[n], first[loop.dim] == n) for n, (_, loop) in enumerate(flat)]
    head = f"{nest.statement}[{', '.join(nest.dims)}]"
    time = [v for v, (_, loop) in zip(values, flat, strict=True) if loop.spatial is None]
    axes = 1 + max((loop.spatial for _, loop in flat if loop.spatial is not None), default=0)
    pe: list[str] = []
    for axis in range(axes):
        on_axis = [n for n, (_, loop) in enumerate(flat) if loop.spatial == axis]
        terms = []
        for m, n in enumerate(on_axis):
            weight = prod(flat[j][1].size for j in on_axis[m + 1 :])
            terms.append(values[n] if weight == 1 else f"{weight} * ({values[n]})")
        pe.append(" + ".join(terms) if terms else "0")
    tiles: dict[str, str] = {}
    for k, level in enumerate(nest.levels[1:], start=1):
        outer = [
            values[n]
            for n, (owner, loop) in enumerate(flat)
            if owner == k - 1 and loop.spatial is None
        ]
        if outer:
            tiles[level.level] = f"{{{head} -> {level.level.upper()}[{', '.join(outer)}]}}"
    return Relations(
        f"{{{head} -> PE[{', '.join(pe)}]}}",
        f"{{{head} -> T[{', '.join(time) if time else '0'}]}}",
        tiles,
    )


def dataflow_spec(nest: LoopNest, name: str, source: str | None = None) -> DataflowSpec:
    """Return the dataflow spec of ``nest``: its space-stamp, time-stamp and tile stamps."""
    r = to_relations(nest, source)
    return DataflowSpec.from_mapping(
        {"name": name, "space_stamp": r.space_stamp, "time_stamp": r.time_stamp, "tiles": r.tiles}
    )


def tensor_tiles(nest: LoopNest, tensor: str) -> dict[str, str]:
    """Return, per level inside the backing store, the tile stamp of ``tensor`` listing every
    temporal loop above its storage there (the level's place, or ``nest.above``)."""
    flat = nest.loops()
    strides = nest.strides()
    first: dict[str, int] = {}
    for n, (_, loop) in enumerate(flat):
        first.setdefault(loop.dim, n)
    head = f"{nest.statement}[{', '.join(nest.dims)}]"
    out: dict[str, str] = {}
    for level in nest.levels[1:]:
        bound = nest.above.get(tensor, {}).get(level.level, nest.boundary(level.level))
        parts = [
            _value(loop, strides[n], first[loop.dim] == n)
            for n, (_, loop) in enumerate(flat[:bound])
            if loop.spatial is None
        ]
        if parts:
            out[level.level] = f"{{{head} -> {level.level.upper()}[{', '.join(parts)}]}}"
    return out


def evaluate_nest(
    problem: Problem,
    nest: LoopNest,
    retention: Retention = "keep",
) -> list[LevelTensor]:
    """Return the figures per level and tensor of ``problem`` mapped by ``nest``, in elements:
    for each tensor, only the levels that keep it (a bypassed level passes the tensor between
    its neighbours), with the ``retention`` rule.

    ``problem`` carries the nest's relations (:func:`to_relations`); the capacity check is the
    one of :func:`tenet.metrics.memory.evaluate_memory` for the tensor alone.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> from tenet.spec import ArchitectureSpec, DataflowSpec
    >>> nest = LoopNest(("i", "j", "k"), (2, 2, 3), (
    ...     LevelLoops("dram", (Loop("i", 2),)), LevelLoops("glb", (Loop("j", 2), Loop("k", 3)))))
    >>> r = to_relations(nest)
    >>> arch = ArchitectureSpec.from_mapping({"name": "a", "pe": "{PE[i]: 0 <= i < 1}",
    ...     "levels": [{"name": "dram"}, {"name": "glb"}]})
    >>> flow = DataflowSpec.from_mapping({"name": "n", "space_stamp": r.space_stamp,
    ...     "time_stamp": r.time_stamp, "tiles": r.tiles})
    >>> p = load_problem("gemm", arch, flow, params={"M": 2, "N": 2, "K": 3})
    >>> [(f.tensor, f.fills) for f in evaluate_nest(p, nest, "refetch") if f.level == "glb"]
    [('A', 6), ('B', 12), ('C', 0)]
    """
    to_relations(nest)
    levels = problem.architecture.levels
    by_name = {level.level: level for level in nest.levels}
    records: list[LevelTensor] = []
    for tensor, (read, write) in tensor_relations(problem).items():
        kept = [lv for lv in levels[1:] if lv.name not in by_name or by_name[lv.name].keeps(tensor)]
        sub = _restrict(problem, tensor, (levels[0], *kept))
        stamps = tensor_tiles(nest, tensor)
        tiles = [
            (lv.name, isl.Map(stamps[lv.name]).intersect_domain(problem.workload.domain))
            for lv in kept
            if lv.name in stamps
        ]
        figures = list(evaluate_memory(sub, latency_compute=0, tiles=tiles).records)
        if retention == "refetch":
            figures = _refetch(sub, tiles, figures, read, write)
        records.extend(figures)
    order = {lv.name: k for k, lv in enumerate(levels)}
    return sorted(records, key=lambda r: order[r.level])


def _restrict(problem: Problem, tensor: str, levels: Sequence[MemoryLevel]) -> Problem:
    architecture = replace(problem.architecture, levels=tuple(levels))
    return replace(problem, architecture=architecture, tensors=(tensor,))


def _refetch(
    problem: Problem,
    tiles: Sequence[tuple[str, isl.Map]],
    figures: Sequence[LevelTensor],
    read: isl.Map,
    write: isl.Map,
) -> list[LevelTensor]:
    """Replace the fills by what every tile brings in without keeping anything of the
    previous one (partial sums: only those written by an earlier tile)."""
    fills: dict[str, int] = {}
    for tiled in tile_levels(problem, tiles):
        held = tiled.key_of.reverse().apply_range(read.union(write))
        needed = tiled.key_of.reverse().apply_range(read)
        if not write.is_empty():
            written_tile = tiled.tile_of.reverse().apply_range(write)
            needed = needed.union(
                tiled.tile_of_key.apply_range(tiled.earlier_tiles.apply_range(written_tile))
            )
        fills[tiled.level.name] = count(held.intersect(needed))
    return [replace(f, fills=fills.get(f.level, f.fills)) for f in figures]


def trips(extent: int, inner: int) -> int:
    """Return the trips of the outermost loop over a dimension of ``extent`` whose inner
    loops cover ``inner`` indices (the last tile may be partial).

    Examples
    --------
    >>> trips(10, 4)
    3
    """
    return ceil(extent / inner)


def nest_from_mapping(
    dims: Sequence[str],
    extents: Sequence[int],
    levels: Sequence[tuple[str, Sequence[Loop], frozenset[str] | None]],
    per_pe: Sequence[str] = (),
    statement: str = "S",
) -> LoopNest:
    """Build a :class:`LoopNest` from plain values (level name, loops, kept tensors)."""
    return LoopNest(
        tuple(dims),
        tuple(extents),
        tuple(LevelLoops(name, tuple(loops), keep) for name, loops, keep in levels),
        statement,
        frozenset(per_pe),
    )


def extents_of(problem: Problem) -> dict[str, int]:
    """Return the trip count of each dimension of the problem's (box) domain."""
    domain = problem.workload.domain
    out: dict[str, int] = {}
    for k in range(domain.dim(isl.dim_type.set)):
        name = domain.get_dim_name(isl.dim_type.set, k) or f"i{k}"
        low = domain.dim_min_val(k).to_python()
        high = domain.dim_max_val(k).to_python()
        out[name] = int(high) - int(low) + 1
    return out
