"""A rectangular tiling of a loop nest: per memory level, tile sizes and the order of the loops
over tiles (the level's band), written as the tile stamps of a dataflow.

Level ``l`` (outermost first) cuts dimension ``d`` into tiles of ``sizes[d]``; its band loops
over the tiles of level ``l`` inside one tile of level ``l - 1`` (the whole extent for the
first), in ``order`` (outermost first). The point loops inside the innermost tile come last.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations, product
from math import ceil

__all__ = ["TileBand", "Tiling", "band_orders", "divisors", "nested_sizes"]


@dataclass(frozen=True)
class TileBand:
    """The tiles of one memory level: tile size per dimension, loop order (outermost first)."""

    level: str
    sizes: tuple[int, ...]
    order: tuple[int, ...]


@dataclass(frozen=True)
class Tiling:
    """Bands from the outermost tiled level inward, then the order of the point loops."""

    dims: tuple[str, ...]
    extents: tuple[int, ...]
    bands: tuple[TileBand, ...]
    point_order: tuple[int, ...]

    def ranges(self, band: int) -> tuple[int, ...]:
        """Return the trip count of each dimension's loop in ``band`` (-1: the point loops)."""
        if band in (-1, len(self.bands)):
            return self.bands[-1].sizes if self.bands else self.extents
        outer = self.extents if band == 0 else self.bands[band - 1].sizes
        return tuple(ceil(o / s) for o, s in zip(outer, self.bands[band].sizes, strict=True))

    def stamps(self, statement: str = "S") -> dict[str, str]:
        """Return the tile stamp of each level, isl text ``{S[...] -> LEVEL[...]}``.

        Examples
        --------
        >>> t = Tiling(("i", "j"), (8, 8), (TileBand("glb", (4, 2), (1, 0)),), (0, 1))
        >>> t.stamps()
        {'glb': '{S[i, j] -> GLB[floor(j / 2), floor(i / 4)]}'}
        """
        head = f"{statement}[{', '.join(self.dims)}]"
        out = {}
        for band in self.bands:
            terms = [f"floor({self.dims[d]} / {band.sizes[d]})" for d in band.order]
            out[band.level] = f"{{{head} -> {band.level.upper()}[{', '.join(terms)}]}}"
        return out

    def key(self) -> tuple[tuple[int, ...], ...]:
        """Return what the memory figures depend on: sizes, and orders of the loops that run
        more than once (a loop of one trip does not change the order of the tiles)."""
        parts: list[tuple[int, ...]] = []
        for k, band in enumerate(self.bands):
            ranges = self.ranges(k)
            parts.append(band.sizes)
            parts.append(tuple(d for d in band.order if ranges[d] > 1))
        return tuple(parts)

    def describe(self) -> str:
        """Return a one-line description: per level, ``dim:size`` in loop order."""
        return "; ".join(
            f"{b.level} " + " ".join(f"{self.dims[d]}:{b.sizes[d]}" for d in b.order)
            for b in self.bands
        )


def divisors(n: int) -> list[int]:
    """Return the divisors of ``n`` in increasing order.

    Examples
    --------
    >>> divisors(12)
    [1, 2, 3, 4, 6, 12]
    """
    return [d for d in range(1, n + 1) if n % d == 0]


def band_orders(n_dims: int, n_bands: int) -> Iterator[tuple[tuple[int, ...], ...]]:
    """Yield every loop order inside each band: ``n_dims!`` per band, ``n_bands`` bands.

    Examples
    --------
    >>> sum(1 for _ in band_orders(3, 3))
    216
    """
    per_band = list(permutations(range(n_dims)))
    yield from product(per_band, repeat=n_bands)


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
    divide it or not (the last tile is then partial).

    Examples
    --------
    >>> sorted({sizes[0][0] for sizes in nested_sizes([10], 1)})
    [1, 2, 5, 10]
    >>> sorted({sizes[0][0] for sizes in nested_sizes([10], 1, aligned=4)})
    [1, 2, 4, 5, 8, 10]
    """
    tiled = tiled or {}

    def fits(size: int, outer: int) -> bool:
        return size <= outer and (
            outer % size == 0 or (aligned is not None and size % aligned == 0)
        )

    def chains(extent: int, choices: Sequence[int] | None) -> list[tuple[int, ...]]:
        pool = divisors(extent) if choices is None else [c for c in choices if fits(c, extent)]
        if choices is None and aligned is not None:
            pool = sorted(set(pool) | set(range(aligned, extent, aligned)))
        if choices is not None and not pool:
            pool = [extent]
        result: list[tuple[int, ...]] = [()]
        for _ in range(levels):
            result = [c + (s,) for c in result for s in pool if fits(s, c[-1] if c else extent)]
        return result

    per_dim = [chains(e, tiled.get(d)) for d, e in enumerate(extents)]
    for combo in product(*per_dim):
        yield tuple(tuple(chain[level] for chain in combo) for level in range(levels))
