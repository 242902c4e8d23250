"""rTiles: tile shapes over the loop dimensions aligned to the hardware, their data tiles and
their exact traffic, footprint and reuse score.

An rTile gives each loop dimension a size. It is *aligned* when every size is a multiple of the
dimension's unit (the PE array's size along it, the feeding level's transaction width for the
dimension that indexes a tensor's leading subscript) or the whole extent, and the padding of the
extent up to a multiple of the size stays within ``epsilon`` of the extent. Each tensor's data
tile is the exact image of the tile (a box of instances) under its access relation, counted
with isl/barvinok.

For a tile shape ``T`` executed tile after tile with nothing kept between tiles (the Load,
Compute, Store pipeline of one memory level):

- ``F(T)``, the footprint, is the number of elements the largest tile touches, all tensors;
- ``Q(T)``, the traffic, is Σ over tiles of the elements loaded (inputs, and partial sums
  stored by an earlier tile) plus the elements stored, each row of a tensor's data tile
  rounded out to whole transactions of ``transaction`` elements (row-major layout: the last
  subscript is the leading one);
- the reuse score of growing axis ``a`` to its next aligned size, giving ``T'``, is
  ``-(Q(T') - Q(T)) / (F(T') - F(T))``.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from math import ceil, prod

import islpy as isl

from tenet.counting import count
from tenet.errors import SpecError
from tenet.mapping import LoopNest
from tenet.model import Workload
from tenet.vocab import TensorName

__all__ = [
    "RTile",
    "Traffic",
    "aligned_sizes",
    "next_aligned",
    "fuse_axes",
    "fused_extents",
    "bank_conflicts",
    "bank_padding",
    "side",
    "box_extents",
    "traffic",
    "footprint",
    "reuse_score",
]


def aligned_sizes(extent: int, unit: int = 1, epsilon: Fraction = Fraction(1, 10)) -> list[int]:
    """Return the aligned sizes of a dimension of ``extent``, increasing: multiples of ``unit``
    (and the extent itself) whose padding ``ceil(extent/s)*s - extent`` is at most
    ``epsilon * extent``.

    Examples
    --------
    >>> aligned_sizes(10, 4)
    [10]
    >>> aligned_sizes(16, 4)
    [4, 8, 16]
    >>> aligned_sizes(30, 4, Fraction(1, 10))
    [4, 8, 16, 30]
    >>> aligned_sizes(30, 4, Fraction(1, 20))
    [30]
    """
    if extent < 1 or unit < 1:
        raise SpecError(f"extents and units are positive, got extent {extent}, unit {unit}")
    sizes = [
        s
        for s in range(unit, extent + 1, unit)
        if ceil(extent / s) * s - extent <= epsilon * extent
    ]
    return sorted(set(sizes) | {extent})


def next_aligned(extent: int, size: int, unit: int = 1, epsilon: Fraction = Fraction(1, 10)) -> int:
    """Return the next aligned size after ``size`` (``size`` itself when there is none).

    Examples
    --------
    >>> next_aligned(16, 4, 4), next_aligned(16, 16, 4)
    (8, 16)
    """
    larger = [s for s in aligned_sizes(extent, unit, epsilon) if s > size]
    return larger[0] if larger else size


def fuse_axes(extents: Sequence[int], unit: int) -> list[tuple[int, ...]]:
    """Group the axes so that runs of consecutive axes of awkward sizes (not multiples of
    ``unit``) become one axis; return the groups of axis positions.

    Examples
    --------
    >>> fuse_axes([17, 11, 3], 4)
    [(0, 1, 2)]
    >>> fuse_axes([64, 7, 7, 3], 4)
    [(0,), (1, 2, 3)]
    """
    groups: list[tuple[int, ...]] = []
    run: list[int] = []
    for k, extent in enumerate(extents):
        if extent % unit != 0:
            run.append(k)
            continue
        if run:
            groups.append(tuple(run))
            run = []
        groups.append((k,))
    if run:
        groups.append(tuple(run))
    return groups


def bank_conflicts(
    block: tuple[int, int], piece: tuple[int, int], banks: int, padding: int = 0, width: int = 1
) -> int:
    """Return the extra cycles lost to bank conflicts when a ``block`` [rows, columns] stored
    row-major with rows ``columns + padding`` apart, over ``banks`` banks of ``width``
    elements, is read in pieces of ``piece`` [rows, columns], one piece per cycle: Σ over
    pieces of (most elements of the piece in one bank - 1).

    Examples
    --------
    >>> bank_conflicts((3, 4), (3, 1), 4), bank_conflicts((3, 4), (3, 1), 4, padding=1)
    (8, 0)
    """
    rows, columns = block
    stride = columns + padding
    extra = 0
    for r0 in range(0, rows, piece[0]):
        for c0 in range(0, columns, piece[1]):
            load: dict[int, int] = {}
            for r in range(r0, min(r0 + piece[0], rows)):
                for c in range(c0, min(c0 + piece[1], columns)):
                    bank = ((r * stride + c) // width) % banks
                    load[bank] = load.get(bank, 0) + 1
            extra += max(load.values()) - 1
    return extra


def bank_padding(block: tuple[int, int], piece: tuple[int, int], banks: int, width: int = 1) -> int:
    """Return the smallest padding of the leading dimension that removes every conflict
    (the padding that leaves fewest when none removes them all).

    Examples
    --------
    >>> bank_padding((3, 4), (3, 1), 4)
    1
    """
    pads = range(banks * width)
    return min(pads, key=lambda p: (bank_conflicts(block, piece, banks, p, width), p))


@dataclass(frozen=True)
class Traffic:
    """Elements moved to execute a workload tile after tile (transactions counted whole)."""

    loads: int
    """Inputs (tensors only read) loaded, Σ over tiles."""
    reloads: int
    """Outputs loaded back: every store of an output transaction after its first reads back
    what an earlier tile stored there (partial sums, or the rest of a shared transaction)."""
    stores: int
    """Outputs stored, Σ over tiles."""

    @property
    def total(self) -> int:
        """Loads, reloads and stores."""
        return self.loads + self.reloads + self.stores


def side(points: isl.Set, k: int) -> int:
    """Return the number of values dimension ``k`` of ``points`` takes.

    Examples
    --------
    >>> side(isl.Set("{A[i, k]: 0 <= i < 3 and 2 <= k < 7}"), 1)
    5
    """
    n = points.dim(isl.dim_type.set)
    return count(
        points.project_out(isl.dim_type.set, k + 1, n - k - 1).project_out(isl.dim_type.set, 0, k)
    )


def box_extents(workload: Workload) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Return the loop dimensions and extents of a box-shaped domain starting at 0 (counted
    once per workload).

    Raises
    ------
    SpecError
        A domain that is not a box starting at 0 (tile sizes are not defined on it).
    """
    return _counts(workload).loops


def _loops(workload: Workload) -> tuple[tuple[str, ...], tuple[int, ...]]:
    domain = workload.domain
    n = domain.dim(isl.dim_type.set)
    names = tuple(domain.get_dim_name(isl.dim_type.set, k) or f"i{k}" for k in range(n))
    extents = [side(domain, k) for k in range(n)]
    box = _box(domain, names, [0] * n, extents)
    if not box.is_equal(domain):
        raise SpecError(
            "tiles need a box-shaped domain starting at 0",
            source=workload.source,
            location="domain",
        )
    return names, tuple(extents)


@dataclass
class _Counts:
    """What the tiles of one workload count, kept by tile shape: the tiles of a search meet
    the same shapes again (growing along each axis from one tile, under each array mapping)."""

    loops: tuple[tuple[str, ...], tuple[int, ...]]
    data: dict[tuple[int, ...], dict[TensorName, isl.Set]] = field(default_factory=dict)
    sizes: dict[tuple[int, ...], dict[TensorName, int]] = field(default_factory=dict)
    sides: dict[tuple[int, ...], dict[TensorName, tuple[int, ...]]] = field(default_factory=dict)
    traffic: dict[tuple[tuple[int, ...], int], Traffic] = field(default_factory=dict)


_KEEP = 8
"""Workloads whose counts are kept (the least recently used goes first)."""

_COUNTS: OrderedDict[tuple[str, ...], _Counts] = OrderedDict()
"""The counts of the last workloads, by their text (domain and accesses): the problems of one
layer under several array mappings share them."""

_TEXTS: dict[int, tuple[str, ...]] = {}
"""The text of each live workload, by its identity (dropped with the workload)."""


def _counts(workload: Workload) -> _Counts:
    text = _TEXTS.get(id(workload))
    if text is None:
        text = (str(workload.domain), *(f"{t} {m}" for t, _, m in workload.accesses))
        _TEXTS[id(workload)] = text
        weakref.finalize(workload, _TEXTS.pop, id(workload), None)
    found = _COUNTS.get(text)
    if found is None:
        found = _Counts(_loops(workload))
        _COUNTS[text] = found
        if len(_COUNTS) > _KEEP:
            _COUNTS.popitem(last=False)
    else:
        _COUNTS.move_to_end(text)
    return found


def _box(domain: isl.Set, names: Sequence[str], low: Sequence[int], size: Sequence[int]) -> isl.Set:
    text = " and ".join(
        f"{lo} <= {v} < {lo + s}" for v, lo, s in zip(names, low, size, strict=True)
    )
    statement = domain.get_tuple_name()
    return isl.Set(f"{{{statement}[{', '.join(names)}]: {text}}}")


def _segments(relation: isl.Map, transaction: int) -> isl.Map:
    """Compose an access with the map of an element to its transaction (row, segment)."""
    if transaction == 1:
        return relation
    name = relation.get_tuple_name(isl.dim_type.out)
    n = relation.dim(isl.dim_type.out)
    if n == 0:
        return relation
    xs = [f"x{k}" for k in range(n)]
    seg = [*xs[:-1], f"floor({xs[-1]} / {transaction})"]
    to_segment = isl.Map(f"{{{name}[{', '.join(xs)}] -> {name}[{', '.join(seg)}]}}")
    return relation.apply_range(to_segment)


@dataclass(frozen=True)
class RTile:
    """A tile shape over the loop dimensions of a workload.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> w = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic",
    ...                  params={"M": 8, "N": 8, "K": 8}).workload
    >>> t = RTile(w, {"i": 4, "j": 4, "k": 2})
    >>> t.data_sizes(), t.macs
    ({'A': 8, 'B': 8, 'C': 16}, 32)
    """

    workload: Workload
    sizes: Mapping[str, int]

    @classmethod
    def of(cls, workload: Workload, nest: LoopNest, level: str) -> RTile:
        """Return the tile of memory ``level`` in the loop nest ``nest``: its sizes are the
        nest's (:meth:`~tenet.mapping.LoopNest.tile_sizes`).

        Examples
        --------
        >>> from tenet.api import load_problem
        >>> from tenet.mapping import tiled_nest
        >>> w = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic",
        ...                  params={"M": 8, "N": 8, "K": 8}).workload
        >>> nest = tiled_nest(("i", "j", "k"), (8, 8, 8), "dram", [("glb", (4, 4, 2), (0, 1, 2))],
        ...     (0, 1, 2))
        >>> RTile.of(w, nest, "glb").shape
        (4, 4, 2)
        """
        return cls(workload, dict(zip(nest.dims, nest.tile_sizes(level), strict=True)))

    @cached_property
    def dims(self) -> tuple[str, ...]:
        """The loop dimensions."""
        return box_extents(self.workload)[0]

    @cached_property
    def extents(self) -> tuple[int, ...]:
        """The loop extents."""
        return box_extents(self.workload)[1]

    @cached_property
    def shape(self) -> tuple[int, ...]:
        """The size per loop dimension (a dimension not given is whole)."""
        unknown = set(self.sizes) - set(self.dims)
        if unknown:
            raise SpecError(
                f"no loop {sorted(unknown)[0]!r} to tile (loops: {', '.join(self.dims)})"
            )
        shape = tuple(self.sizes.get(d, e) for d, e in zip(self.dims, self.extents, strict=True))
        if any(s < 1 for s in shape):
            given = dict(zip(self.dims, shape, strict=True))
            raise SpecError(f"tile sizes are positive, got {given}")
        return shape

    @cached_property
    def box(self) -> isl.Set:
        """The first tile's instances (the largest: it is never cut by the domain's edge)."""
        origin = [0] * len(self.dims)
        return _box(self.workload.domain, self.dims, origin, self.shape).intersect(
            self.workload.domain
        )

    @property
    def macs(self) -> int:
        """Instances in the first tile."""
        return count(self.box)

    def data_tiles(self) -> dict[TensorName, isl.Set]:
        """Return each tensor's data tile: the image of the first tile under its accesses."""
        known = _counts(self.workload).data
        if self.shape not in known:
            out: dict[TensorName, isl.Set] = {}
            for tensor, _, relation in self.workload.accesses:
                image = self.box.apply(relation)
                out[tensor] = out[tensor].union(image) if tensor in out else image
            known[self.shape] = out
        return dict(known[self.shape])

    def data_sizes(self) -> dict[TensorName, int]:
        """Return the number of elements in each tensor's data tile."""
        known = _counts(self.workload).sizes
        if self.shape not in known:
            known[self.shape] = {t: count(s) for t, s in self.data_tiles().items()}
        return dict(known[self.shape])

    def data_sides(self) -> dict[TensorName, tuple[int, ...]]:
        """Return the number of values each subscript of each tensor's data tile takes."""
        known = _counts(self.workload).sides
        if self.shape not in known:
            known[self.shape] = {
                t: tuple(side(s, k) for k in range(s.dim(isl.dim_type.set)))
                for t, s in self.data_tiles().items()
            }
        return dict(known[self.shape])

    @cached_property
    def tile_of(self) -> isl.Map:
        """Instance -> its tile, ``floor(d / size)`` per dimension."""
        head = f"{self.workload.domain.get_tuple_name()}[{', '.join(self.dims)}]"
        terms = [f"floor({d} / {s})" for d, s in zip(self.dims, self.shape, strict=True)]
        return isl.Map(f"{{{head} -> TILE[{', '.join(terms)}]}}").intersect_domain(
            self.workload.domain
        )

    def grown(self, dim: str, size: int) -> RTile:
        """Return this tile with ``dim`` of ``size``."""
        return RTile(self.workload, {**dict(zip(self.dims, self.shape, strict=True)), dim: size})


def _per_tile(tile: RTile, relation: isl.Map, transaction: int) -> int:
    """Σ over tiles of the transactions' elements a tile moves through ``relation``."""
    pairs = tile.tile_of.reverse().apply_range(_segments(relation, transaction))
    return count(pairs) * transaction


def traffic(tile: RTile, transaction: int = 1) -> Traffic:
    """Return ``Q(T)``: what executing the workload tile after tile loads and stores.

    Examples
    --------
    GEMM with 1x1 output tiles over the whole k: each tile reads a row of A and a column of B,
    2k elements, over mn tiles: 2mnk reads (m = n = k = 8: 1024).

    >>> from tenet.api import load_problem
    >>> w = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic",
    ...                  params={"M": 8, "N": 8, "K": 8}).workload
    >>> traffic(RTile(w, {"i": 1, "j": 1})).loads
    1024
    """
    known = _counts(tile.workload).traffic
    key = (tile.shape, transaction)
    if key not in known:
        known[key] = _traffic(tile, transaction)
    return known[key]


def _traffic(tile: RTile, transaction: int) -> Traffic:
    loads = reloads = stores = 0
    for tensor, relation in tile.workload.reads.items():
        if tensor not in tile.workload.writes:
            loads += _per_tile(tile, relation, transaction)
    for relation in tile.workload.writes.values():
        stored = _per_tile(tile, relation, transaction)
        stores += stored
        reloads += stored - count(_segments(relation, transaction).range()) * transaction
    return Traffic(loads, reloads, stores)


def footprint(tile: RTile) -> int:
    """Return ``F(T)``: the elements the largest tile touches, all tensors."""
    return sum(tile.data_sizes().values())


def reuse_score(tile: RTile, dim: str, size: int, transaction: int = 1) -> Fraction | None:
    """Return the reuse score of growing ``dim`` to ``size``: ``-ΔQ / ΔF`` (None when the
    footprint does not grow)."""
    larger = tile.grown(dim, size)
    delta_f = footprint(larger) - footprint(tile)
    if delta_f <= 0:
        return None
    delta_q = traffic(larger, transaction).total - traffic(tile, transaction).total
    return Fraction(-delta_q, delta_f)


def fused_extents(extents: Sequence[int], unit: int) -> list[int]:
    """Return the extents after :func:`fuse_axes`: a fused axis has the product's extent.

    Examples
    --------
    >>> fused_extents([17, 11, 3], 4)
    [561]
    """
    return [prod(extents[k] for k in group) for group in fuse_axes(extents, unit)]
