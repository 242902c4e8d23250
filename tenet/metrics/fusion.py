"""Exact counts of a fused chain (``docs/fusion.md``): per tensor its DRAM reads and writes,
its buffer fills, its footprint and halo per fused tile; per statement the MACs run and
recomputed; the buffer's need per tile and the capacity check. Every count is barvinok's
``card`` of a relation of :mod:`tenet.metrics.fused_tiles`, a Python ``int``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import islpy as isl

from tenet.counting import count
from tenet.errors import CapacityError, CountingError
from tenet.isl_utils import point_text
from tenet.mapping.fusion import FusedNest
from tenet.metrics.fused_tiles import FusedTiles, fused_tiles
from tenet.model.chain import Chain

__all__ = ["FusedTensor", "FusedCounts", "assess_fusion"]


@dataclass(frozen=True)
class FusedTensor:
    """One tensor's figures, in elements. ``role``: input, intermediate or output; ``held``:
    resident (the whole group), streamed (per tile), sub-tiled (per sub-tile of the statements
    with sub-tiles) or live (an intermediate, from the tile producing an element to the last
    tile reading it). ``footprints`` and ``halos`` have one entry per tile, in order (a
    sub-tiled tensor's footprint: its largest sub-tile there); a tile's halo is what it reads
    that an earlier tile read."""

    role: str
    held: str
    dram_reads: int
    dram_writes: int
    fills: int
    footprints: tuple[int, ...]
    halos: tuple[int, ...]

    @property
    def footprint(self) -> int:
        """The most elements the buffer holds at once, over the tiles."""
        return max(self.footprints, default=0)

    @property
    def halo(self) -> int:
        """The halo elements over all tiles: kept, or recomputed, per the nest's rule."""
        return sum(self.halos)


@dataclass(frozen=True)
class FusedCounts:
    """What a fused chain asks of DRAM and of its buffer, per tensor and per statement."""

    level: str
    capacity: int | None
    tiles: tuple[tuple[int, ...], ...]
    tensors: Mapping[str, FusedTensor]
    macs: Mapping[str, int]
    """Per statement, the MACs run, summed over the tiles (recomputed ones included)."""
    recomputed: Mapping[str, int]
    """Per statement, of those, the MACs of instances an earlier tile ran already (a halo
    recomputed)."""
    subtile_needs: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    """Per statement with sub-tiles, per tile, the most its sub-tiled tensors hold at once."""

    @property
    def needs(self) -> tuple[int, ...]:
        """The buffer's need in each tile, in elements: the footprints there of the tensors
        living through the tile, and the most over the statements with sub-tiles of their
        sub-tiles' (the statements run in turn)."""
        return tuple(
            sum(t.footprints[k] for t in self.tensors.values() if t.held != "sub-tiled")
            + max((n[k] for n in self.subtile_needs.values()), default=0)
            for k in range(len(self.tiles))
        )

    @property
    def need(self) -> int:
        """The most the buffer holds in one tile, in elements."""
        return max(self.needs, default=0)

    @property
    def fits(self) -> bool:
        """Whether the need is within the capacity (always, without one)."""
        return self.capacity is None or self.need <= self.capacity

    def require_fit(self) -> None:
        """Raise :class:`CapacityError` naming the buffer, its need and where, unless it fits."""
        if not self.fits:
            where = self.tiles[self.needs.index(self.need)]
            raise CapacityError(
                f"buffer {self.level} needs {self.need} elements in tile "
                f"Tile[{', '.join(map(str, where))}] but holds {self.capacity}"
            )


def _per_tile(relation: isl.Map, points: list[isl.Point]) -> tuple[int, ...]:
    """The number of elements ``relation`` relates to each tile of ``points``."""
    per_point = relation.card()
    values = []
    for point in points:
        value = per_point.eval(point)
        if not value.is_int():
            raise CountingError(f"count at {point_text(point)} is not an integer: {value}")
        values.append(int(value.to_python()))
    return tuple(values)


@dataclass
class _SubTiled:
    """The sub-tiled tensors' figures, gathered over the statements with sub-tiles."""

    moved: dict[str, int] = field(default_factory=dict)
    distinct: dict[str, int] = field(default_factory=dict)
    footprints: dict[str, list[int]] = field(default_factory=dict)
    needs: dict[str, tuple[int, ...]] = field(default_factory=dict)


def _subtiles(relations: FusedTiles, tiles: list[tuple[int, ...]]) -> _SubTiled:
    """Per sub-tiled tensor its pairs (sub-tile, element), its distinct elements and its
    largest sub-tile per tile; per statement with sub-tiles its largest sub-tile need per
    tile (the sum of its sub-tiled tensors' elements there)."""
    found = _SubTiled()
    at = {tile: k for k, tile in enumerate(tiles)}
    chain, nest = relations.chain, relations.nest
    for statement in chain.statements:
        if statement.name not in nest.subtiles:
            continue
        runs = relations.subtile_runs(statement.name)
        points: list[isl.Point] = []
        runs.domain().foreach_point(points.append)
        need = [0] * len(tiles)
        per_point = [0] * len(points)
        for tensor in nest.streamed(chain, statement.name):
            access = statement.reads.get(tensor, statement.write)
            moved = runs.apply_range(access).coalesce()
            found.moved[tensor] = found.moved.get(tensor, 0) + count(moved)
            found.distinct[tensor] = count(moved.range())
            peak = found.footprints.setdefault(tensor, [0] * len(tiles))
            for n, value in enumerate(_per_tile(moved, points)):
                k = at[_coordinates(points[n])[: relations.depth]]
                peak[k] = max(peak[k], value)
                per_point[n] += value
        for n, value in enumerate(per_point):
            k = at[_coordinates(points[n])[: relations.depth]]
            need[k] = max(need[k], value)
        found.needs[statement.name] = tuple(need)
    return found


def _read(relations: FusedTiles, tensor: str, points: list[isl.Point]) -> FusedTensor:
    """An input's or an intermediate's figures: what the tiles read, and what they produce."""
    reads = relations.reads(tensor)
    halos = _per_tile(reads.intersect(relations.earlier(reads)), points)
    if tensor in relations.chain.spec.intermediates:
        produced = relations.produced(tensor)
        written = count(produced.range()) if tensor in relations.chain.spec.final else 0
        live = _per_tile(relations.live(tensor), points)
        return FusedTensor("intermediate", "live", 0, written, count(produced), live, halos)
    if tensor in relations.nest.resident:
        whole = count(reads.range())
        return FusedTensor("input", "resident", whole, 0, whole, (whole,) * len(points), halos)
    moved = count(reads)
    return FusedTensor("input", "streamed", moved, 0, moved, _per_tile(reads, points), halos)


def _written(relations: FusedTiles, tensor: str, points: list[isl.Point]) -> FusedTensor:
    """The final output's figures: a streamed one is written back per tile (and its partial
    sums read back), a resident one once."""
    produced = relations.produced(tensor)
    zero = (0,) * len(points)
    if tensor in relations.nest.resident:
        whole = count(produced.range())
        return FusedTensor("output", "resident", 0, whole, whole, (whole,) * len(points), zero)
    per_tile = count(produced)
    partial = per_tile - count(produced.range())
    footprints = _per_tile(produced, points)
    return FusedTensor("output", "streamed", partial, per_tile, per_tile, footprints, zero)


def assess_fusion(chain: Chain, nest: FusedNest) -> FusedCounts:
    """Count ``chain`` fused by ``nest`` exactly.

    Examples
    --------
    >>> from tenet.spec.chain import load_chain
    >>> chain = Chain.from_spec(load_chain("matmul-matmul"), {"M": 4, "N": 2, "K": 3, "P": 2})
    >>> counts = assess_fusion(chain, FusedNest({"S1": ("m",)}, (2,), resident=frozenset("BD")))
    >>> counts.tensors["C"].dram_writes, counts.tensors["C"].footprint, counts.tensors["B"].fills
    (0, 4, 6)
    """
    relations = fused_tiles(chain, nest)
    points: list[isl.Point] = []
    relations.tiles.foreach_point(points.append)
    points.sort(key=lambda p: _coordinates(p))
    final = chain.last.written
    tiles = [_coordinates(p) for p in points]
    cut = _subtiles(relations, tiles)
    tensors = {
        t: _written(relations, t, points) if t == final else _read(relations, t, points)
        for t in chain.spec.tensors
    }
    for t, moved in cut.moved.items():
        role, halos = tensors[t].role, tensors[t].halos
        footprints = tuple(cut.footprints[t])
        if role == "output":
            partial = moved - cut.distinct[t]
            tensors[t] = FusedTensor(role, "sub-tiled", partial, moved, moved, footprints, halos)
        else:
            tensors[t] = FusedTensor(role, "sub-tiled", moved, 0, moved, footprints, halos)
    runs = {s.name: relations.runs[s.name] for s in chain.statements}
    macs = {name: count(run) for name, run in runs.items()}
    recomputed = {name: macs[name] - count(run.range()) for name, run in runs.items()}
    return FusedCounts(
        nest.level, nest.capacity, tuple(tiles), tensors, macs, recomputed, cut.needs
    )


def _coordinates(point: isl.Point) -> tuple[int, ...]:
    n = point.get_space().dim(isl.dim_type.set)
    return tuple(int(point.get_coordinate_val(isl.dim_type.set, k).to_python()) for k in range(n))
