"""Rectangular tilings as loop nests: per memory level, tile sizes and the order of the loops
over the tiles (the level's band), and the tile sizes a search enumerates.

Level ``l`` (outermost first) cuts dimension ``d`` into tiles of ``sizes[d]``, aligned to its
multiples over the whole extent; its band loops over the tiles of level ``l`` inside one tile of
level ``l - 1`` (the whole extent for the first), in ``order`` (outermost first), and belongs to
the level outside ``l``. The point loops inside the innermost tile come last.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import product
from math import ceil

from tenet.mapping.nest import LevelLoops, Loop, LoopNest

__all__ = [
    "tiled_nest",
    "tiling_key",
    "divisors",
    "size_pool",
    "nests_in",
    "size_chains",
    "nested_sizes",
]


def tiled_nest(
    dims: Sequence[str],
    extents: Sequence[int],
    outer: str,
    bands: Sequence[tuple[str, Sequence[int], Sequence[int]]],
    point_order: Sequence[int],
) -> LoopNest:
    """Return the loop nest of a rectangular tiling: ``outer`` the backing store, ``bands``
    one ``(level, sizes, order)`` per tiled level from the outermost inward (``order``: the
    dimensions' positions, outermost loop first), then the point loops in ``point_order``.

    Examples
    --------
    >>> from tenet.mapping.stamps import to_stamps
    >>> t = tiled_nest(("i", "j"), (8, 8), "dram", [("glb", (4, 2), (1, 0))], (0, 1))
    >>> to_stamps(t).tiles
    {'glb': '{S[i, j] -> GLB[floor(j / 2), floor(i / 4)]}'}
    >>> t.tile_sizes("glb"), t.describe()
    ((4, 2), 'glb j:2 i:4')
    """
    levels: list[LevelLoops] = []
    names = [outer, *(level for level, _, _ in bands)]
    outside = tuple(extents)
    for k, (_, sizes, order) in enumerate(bands):
        trips = [ceil(o / s) for o, s in zip(outside, sizes, strict=True)]
        loops = tuple(Loop(dims[d], trips[d], step=sizes[d]) for d in order)
        levels.append(LevelLoops(names[k], loops))
        outside = tuple(sizes)
    points = tuple(Loop(dims[d], outside[d]) for d in point_order)
    levels.append(LevelLoops(names[-1], points))
    return LoopNest(tuple(dims), tuple(extents), tuple(levels))


def tiling_key(nest: LoopNest) -> tuple[tuple[int, ...], ...]:
    """Return what the memory figures of a tiling depend on: per level outside another, the
    tile size of each dimension, and the order of the loops that run more than once (a loop
    of one trip does not change the order of the tiles); the point loops do not count."""
    parts: list[tuple[int, ...]] = []
    for outside, level in zip(nest.levels, nest.levels[1:], strict=False):
        parts.append(nest.tile_sizes(level.level))
        parts.append(tuple(nest.dims.index(loop.dim) for loop in outside.loops if loop.size > 1))
    return tuple(parts)


def divisors(n: int) -> list[int]:
    """Return the divisors of ``n`` in increasing order.

    Examples
    --------
    >>> divisors(12)
    [1, 2, 3, 4, 6, 12]
    """
    return [d for d in range(1, n + 1) if n % d == 0]


def nests_in(size: int, outer: int, aligned: int | None = None) -> bool:
    """Whether a tile of ``size`` may lie inside one of ``outer`` (iterations): it divides it,
    or with ``aligned`` it is a multiple of ``aligned`` no larger (the last tile is partial).

    Examples
    --------
    >>> nests_in(4, 10), nests_in(4, 10, aligned=4), nests_in(5, 10, aligned=4)
    (False, True, True)
    """
    return size <= outer and (outer % size == 0 or (aligned is not None and size % aligned == 0))


def size_pool(
    extent: int, choices: Sequence[int] | None = None, aligned: int | None = None
) -> list[int]:
    """Return the tile sizes a loop of ``extent`` may take at any level: its divisors and,
    with ``aligned``, the multiples of ``aligned`` below it, increasing; or the ``choices``
    that :func:`nests_in` the extent, in their order (the whole extent when none does).

    Examples
    --------
    >>> size_pool(10), size_pool(10, aligned=4), size_pool(10, [3, 4, 5])
    ([1, 2, 5, 10], [1, 2, 4, 5, 8, 10], [5])
    """
    if choices is not None:
        pool = [c for c in choices if nests_in(c, extent, aligned)]
        return pool or [extent]
    if aligned is None:
        return divisors(extent)
    return sorted(set(divisors(extent)) | set(range(aligned, extent, aligned)))


def size_chains(
    extent: int,
    levels: int,
    choices: Sequence[int] | None = None,
    aligned: int | None = None,
    allowed: Callable[[int, int], bool] | None = None,
) -> list[tuple[int, ...]]:
    """Return the chains of one loop's tile sizes over ``levels`` nested levels, outermost
    first: each size of :func:`size_pool` that :func:`nests_in` the one outside it (the
    ``extent`` for the first), and with ``allowed(level, size)`` one it allows.

    Examples
    --------
    >>> size_chains(4, 2)
    [(1, 1), (2, 1), (2, 2), (4, 1), (4, 2), (4, 4)]
    >>> size_chains(6, 1, aligned=4)
    [(1,), (2,), (3,), (4,), (6,)]
    """
    pool = size_pool(extent, choices, aligned)
    chains: list[tuple[int, ...]] = [()]
    for _ in range(levels):
        chains = [
            c + (s,)
            for c in chains
            for s in pool
            if nests_in(s, c[-1] if c else extent, aligned)
            and (allowed is None or allowed(len(c), s))
        ]
    return chains


def nested_sizes(
    extents: Sequence[int],
    levels: int,
    tiled: Mapping[int, Sequence[int]] | None = None,
    aligned: int | None = None,
) -> Iterator[tuple[tuple[int, ...], ...]]:
    """Yield tile sizes for ``levels`` nested levels: each level's size divides the one outside
    it (the extent for the first). ``tiled`` restricts the sizes of some dimensions to a list
    (others take every divisor); a dimension with an empty list stays whole. With
    ``aligned``, the multiples of ``aligned`` below a size are tile sizes too, whether they
    divide it or not (the last tile is then partial): each level takes the sizes of
    :func:`size_pool` that :func:`nests_in` the one outside it.

    Examples
    --------
    >>> sorted({sizes[0][0] for sizes in nested_sizes([10], 1)})
    [1, 2, 5, 10]
    >>> sorted({sizes[0][0] for sizes in nested_sizes([10], 1, aligned=4)})
    [1, 2, 4, 5, 8, 10]
    """
    tiled = tiled or {}
    per_dim = [size_chains(e, levels, tiled.get(d), aligned) for d, e in enumerate(extents)]
    for combo in product(*per_dim):
        yield tuple(tuple(chain[level] for chain in combo) for level in range(levels))
