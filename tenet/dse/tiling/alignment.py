"""Hardware alignment of the constructive search's tiles, per memory level.

The tile a level holds is an rTile (:mod:`tenet.dse.tiling.rtile`) whose sizes are aligned to

- the PE array, at the level that feeds it and at a per-PE level: along a loop dimension that
  alone makes a PE coordinate of the array mapping, a multiple of the PEs the mapping uses
  along it (a per-PE level's tile is then the tiles of all PEs together, each PE's share the
  tile with those sizes divided by the PEs);
- the transaction width of the level feeding it (its read bandwidth in elements per cycle,
  shared out among the PEs for a per-PE level; the scratchpad's ``transaction_width`` when
  the feeding level is the scratchpad): along a loop dimension that alone makes a tensor's
  last (contiguous) subscript, a multiple of it; the traffic ``Q(T)`` counts whole
  transactions of that width;
- the tensor shape: a size that does not divide its extent leaves a partial tile at the edge
  and is allowed when the padding stays within ``epsilon`` of the extent;
- the banks of the scratchpad, at the level that feeds the array: each data tile's rows are
  padded (:func:`tenet.dse.tiling.rtile.bank_padding`) so that the pieces the level inside reads do
  not conflict, and the padding counts in the footprint checked against the capacity.

A unit larger than the extent leaves the dimension whole (a small operator is never tiled past
its extent).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import floor, lcm, prod

import islpy as isl

from tenet.counting import count
from tenet.dse.tiling.rtile import RTile, aligned_sizes, bank_padding, footprint, side
from tenet.model import Workload
from tenet.model.problem import Problem
from tenet.spec.layout import ScratchpadSpec

__all__ = [
    "EPSILON",
    "LevelAlignment",
    "output_loops",
    "pe_units",
    "transaction_units",
    "transaction_width",
    "level_alignment",
    "growth_sizes",
    "data_extents",
    "padded_footprint",
]

EPSILON = Fraction(1, 10)
"""Default bound on the padding of a tile size that does not divide its extent."""


@dataclass(frozen=True)
class LevelAlignment:
    """What the tile of one memory level is aligned to.

    ``units`` per loop dimension (sizes are multiples of it, or the whole extent),
    ``transaction`` in elements, ``banks`` of ``bank_width`` elements (None: not banked),
    ``epsilon`` the padding allowed on a size that does not divide its extent."""

    units: tuple[int, ...]
    transaction: int = 1
    banks: int | None = None
    bank_width: int = 1
    epsilon: Fraction = EPSILON


def output_loops(relation: isl.Map, dims: Sequence[str]) -> list[frozenset[str]]:
    """Return, per output coordinate of ``relation`` (a function of the loop dimensions
    ``dims``), the loop dimensions it depends on.

    Examples
    --------
    >>> [sorted(loops) for loops in output_loops(isl.Map("{S[i, j, k] -> A[i, k + j]}"), "ijk")]
    [['i'], ['j', 'k']]
    """
    functions = relation.as_pw_multi_aff()
    out = []
    for j in range(relation.dim(isl.dim_type.out)):
        used: set[str] = set()
        for _, aff in functions.get_pw_aff(j).get_pieces():
            used |= {d for k, d in enumerate(dims) if aff.involves_dims(isl.dim_type.in_, k, 1)}
        out.append(frozenset(used))
    return out


def _with(units: list[int], loops: frozenset[str], dims: Sequence[str], unit: int) -> None:
    """Make ``unit`` divide the unit of the one loop in ``loops`` (none when several)."""
    if len(loops) == 1:
        k = list(dims).index(next(iter(loops)))
        units[k] = lcm(units[k], unit)


def pe_units(problem: Problem, dims: Sequence[str]) -> tuple[int, ...]:
    """Return per loop dimension the PEs the array mapping uses along it (1 for a dimension
    that makes no PE coordinate alone).

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> p = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic",
    ...                  params={"M": 4, "N": 16, "K": 8})
    >>> pe_units(p, ["i", "j", "k"])
    (4, 8, 1)
    """
    space_stamp = problem.dataflow.space_stamp.intersect_domain(problem.workload.domain)
    units = [1] * len(dims)
    for p, loops in enumerate(output_loops(space_stamp, dims)):
        _with(units, loops, dims, side(space_stamp.range(), p))
    return tuple(units)


def transaction_units(workload: Workload, dims: Sequence[str], transaction: int) -> tuple[int, ...]:
    """Return per loop dimension ``transaction`` where the dimension alone makes a tensor's
    last subscript, else 1.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> w = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic",
    ...                  params={"M": 8, "N": 8, "K": 8}).workload
    >>> transaction_units(w, ["i", "j", "k"], 4)
    (1, 4, 4)
    """
    units = [1] * len(dims)
    for _, _, relation in workload.accesses:
        loops = output_loops(relation, dims)
        if loops:
            _with(units, loops[-1], dims, transaction)
    return tuple(units)


def transaction_width(
    problem: Problem, position: int, scratchpad: ScratchpadSpec | None = None
) -> int:
    """Return the transaction width, in elements, of the level that feeds level ``position``
    (``position - 1``): the scratchpad's when that level feeds the array and ``scratchpad``
    is given, else its read bandwidth (shared out among the PEs for a per-PE level), at least
    1; 1 when the bandwidth is unbounded."""
    levels = problem.architecture.levels
    feeding, level = levels[position - 1], levels[position]
    if scratchpad is not None and feeding.feeds_array:
        return scratchpad.transaction_width
    if feeding.read_bandwidth is None:
        return 1
    share = count(problem.architecture.pe_set) if level.per_pe else 1
    return max(1, floor(feeding.read_bandwidth / share))


def level_alignment(
    problem: Problem,
    position: int,
    dims: Sequence[str],
    scratchpad: ScratchpadSpec | None = None,
    epsilon: Fraction = EPSILON,
) -> LevelAlignment:
    """Return the alignment of the tile of level ``position`` (0 is the outermost)."""
    level = problem.architecture.levels[position]
    width = transaction_width(problem, position, scratchpad)
    units = list(transaction_units(problem.workload, dims, width))
    if level.feeds_array or level.per_pe:
        units = [lcm(u, p) for u, p in zip(units, pe_units(problem, dims), strict=True)]
    banked = scratchpad if level.feeds_array else None
    return LevelAlignment(
        tuple(units),
        width,
        banked.banks if banked is not None else None,
        banked.bank_width if banked is not None else 1,
        epsilon,
    )


def growth_sizes(extent: int, unit: int, epsilon: Fraction = EPSILON) -> list[int]:
    """Return the sizes the construction steps through along a dimension of ``extent``: the
    aligned sizes (:func:`tenet.dse.tiling.rtile.aligned_sizes`) that divide the extent or are
    ``unit`` times a power of two (the steps stay geometric), and the extent.

    Examples
    --------
    >>> growth_sizes(56, 1)
    [1, 2, 4, 7, 8, 14, 28, 56]
    >>> growth_sizes(30, 4), growth_sizes(30, 4, Fraction(0))
    ([4, 8, 16, 30], [30])
    >>> growth_sizes(3, 8)
    [3]
    """
    if unit > extent:
        return [extent]
    return [
        s
        for s in aligned_sizes(extent, unit, epsilon)
        if extent % s == 0 or (s // unit) & (s // unit - 1) == 0
    ]


def data_extents(tile: RTile) -> dict[str, tuple[int, int]]:
    """Return each tensor's data tile as a block [rows, columns]: the extent of its last
    subscript, and the product of the others' extents (row-major)."""
    return {
        tensor: (prod(sides[:-1]), sides[-1] if sides else 1)
        for tensor, sides in tile.data_sides().items()
    }


@lru_cache(maxsize=4096)
def _padding(block: tuple[int, int], piece: tuple[int, int], banks: int, width: int) -> int:
    return bank_padding(block, piece, banks, width)


def padded_footprint(tile: RTile, piece: RTile, alignment: LevelAlignment) -> int:
    """Return ``F(T)`` with the bank padding: each tensor's data tile, read in the blocks of
    ``piece`` (the level inside's tile), is padded by :func:`tenet.dse.tiling.rtile.bank_padding`
    elements per row over ``alignment.banks`` banks.

    Examples
    --------
    A 3 x 4 tile of A[i, k] read in 3 x 1 pieces over 4 banks is padded by 1 per row: 3 more
    elements (B and C, read whole, are not padded).

    >>> from tenet.api import load_problem
    >>> w = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic",
    ...                  params={"M": 3, "N": 1, "K": 4}).workload
    >>> tile, piece = RTile(w, {"i": 3, "k": 4}), RTile(w, {"i": 3, "k": 1})
    >>> footprint(tile), padded_footprint(tile, piece, LevelAlignment((1, 1, 1), banks=4))
    (19, 22)
    """
    total = footprint(tile)
    if alignment.banks is None:
        return total
    pieces = data_extents(piece)
    for tensor, block in data_extents(tile).items():
        total += block[0] * _padding(block, pieces[tensor], alignment.banks, alignment.bank_width)
    return total
