"""A loop nest written as the stamps of a dataflow: the space-stamp, the time-stamp and one tile
stamp per level (isl text, as :class:`~tenet.spec.DataflowSpec` holds them).

A loop of size ``n`` and stride ``s`` (the product of the inner loops over its dimension) takes
the value ``floor(d / s) mod n`` (no modulo for the outermost loop of a dimension, which also
takes the remainder of a tile that does not divide its loop); a loop with an explicit ``step``
takes ``floor(d / step)`` (tiles aligned over the whole extent; modulo its size on the array).
The time-stamp lists the temporal loops outermost first, the skew (if any) added to its last
dimension; PE axis ``a`` is the mixed-radix number of the spatial loops on ``a``; the tile stamp
of a level lists the temporal loops of the level just outside it (the PE keys a per-PE level's
tiles).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import prod

import islpy as isl

from tenet.isl_utils import parse_map
from tenet.mapping.nest import Loop, LoopNest
from tenet.spec.dataflow import DataflowSpec
from tenet.spec.specs import Specs

__all__ = [
    "Stamps",
    "to_stamps",
    "tile_maps",
    "place_maps",
    "tensor_tiles",
    "dataflow_spec",
    "with_mapping",
]


@dataclass(frozen=True)
class Stamps:
    """The stamps of a loop nest, as isl text."""

    space_stamp: str
    time_stamp: str
    tiles: dict[str, str]
    places: dict[str, dict[str, str]] = field(default_factory=dict)
    """Per level, the tile stamp of each tensor stored under other loops there (``above``)."""
    keep: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Per level that keeps only some tensors (:attr:`~tenet.mapping.LevelLoops.keep`), those
    it keeps, sorted; a level not named keeps every tensor it may hold."""


def _value(loop: Loop, stride: int, outermost: bool) -> str:
    if loop.step is not None:
        base = f"floor({loop.dim} / {loop.step})"
        return base if outermost or loop.spatial is None else f"({base}) % {loop.size}"
    base = loop.dim if stride == 1 else f"floor({loop.dim} / {stride})"
    return base if outermost else f"({base}) % {loop.size}"


def _values(nest: LoopNest) -> list[str]:
    """Return the isl text of the value of every loop of ``nest.loops()``."""
    flat = nest.loops()
    strides = nest.strides()
    first: dict[str, int] = {}
    for n, (_, loop) in enumerate(flat):
        first.setdefault(loop.dim, n)
    return [_value(loop, strides[n], first[loop.dim] == n) for n, (_, loop) in enumerate(flat)]


def _head(nest: LoopNest) -> str:
    return f"{nest.statement}[{', '.join(nest.dims)}]"


def _skewed(time: list[str], pe: list[str], skew: tuple[int, ...]) -> list[str]:
    """Return ``time`` with ``Σ skew[a] * pe[a]`` added to its last dimension."""
    terms = [f"{c} * ({pe[a]})" if c != 1 else f"({pe[a]})" for a, c in enumerate(skew) if c != 0]
    if not terms:
        return time
    return [*time[:-1], " + ".join([*terms, *time[-1:]])]


def to_stamps(nest: LoopNest, source: str | None = None) -> Stamps:
    """Return the space-stamp, time-stamp, tile stamps, places and kept tensors of ``nest``
    (isl text).

    Raises
    ------
    SpecError, NotALoopNestError
        ``nest`` fails :meth:`~tenet.mapping.nest.LoopNest.check` (``source`` names it).

    Examples
    --------
    >>> from tenet.mapping.nest import LevelLoops
    >>> nest = LoopNest(("i", "k"), (4, 6), (
    ...     LevelLoops("dram", (Loop("k", 2),)),
    ...     LevelLoops("glb", (Loop("i", 4, spatial=0), Loop("k", 3)))))
    >>> s = to_stamps(nest)
    >>> s.space_stamp, s.time_stamp
    ('{S[i, k] -> PE[i]}', '{S[i, k] -> T[floor(k / 3), (k) % 3]}')
    >>> s.tiles
    {'glb': '{S[i, k] -> GLB[floor(k / 3)]}'}
    >>> from dataclasses import replace
    >>> to_stamps(replace(nest, levels=(nest.levels[0], replace(nest.levels[1],
    ...     keep=frozenset({"B", "A"}))))).keep
    {'glb': ('A', 'B')}
    """
    nest.check(source)
    flat = nest.loops()
    values = _values(nest)
    head = _head(nest)
    time = [v for v, (_, loop) in zip(values, flat, strict=True) if loop.spatial is None]
    pe: list[str] = []
    for axis in range(nest.axes):
        on_axis = [n for n, (_, loop) in enumerate(flat) if loop.spatial == axis]
        terms = []
        for m, n in enumerate(on_axis):
            weight = prod(flat[j][1].size for j in on_axis[m + 1 :])
            terms.append(values[n] if weight == 1 else f"{weight} * ({values[n]})")
        pe.append(" + ".join(terms) if terms else "0")
    time = _skewed(time or ["0"], pe, nest.skew)
    tiles: dict[str, str] = {}
    for k, level in enumerate(nest.levels[1:], start=1):
        outer = [
            values[n]
            for n, (owner, loop) in enumerate(flat)
            if owner == k - 1 and loop.spatial is None
        ]
        if outer:
            tiles[level.level] = f"{{{head} -> {level.level.upper()}[{', '.join(outer)}]}}"
    places: dict[str, dict[str, str]] = {}
    for tensor, per in nest.above.items():
        for name, bound in per.items():
            if bound == nest.boundary(name):
                continue
            pairs = zip(values[:bound], flat[:bound], strict=True)
            parts = [v for v, (_, loop) in pairs if loop.spatial is None]
            places.setdefault(name, {})[tensor] = (
                f"{{{head} -> {name.upper()}[{', '.join(parts)}]}}"
            )
    keep = {lv.level: tuple(sorted(lv.keep)) for lv in nest.levels if lv.keep is not None}
    return Stamps(
        f"{{{head} -> PE[{', '.join(pe)}]}}",
        f"{{{head} -> T[{', '.join(time)}]}}",
        tiles,
        places,
        keep,
    )


def dataflow_spec(nest: LoopNest, name: str, source: str | None = None) -> DataflowSpec:
    """Return the dataflow spec of ``nest``: its space-stamp, time-stamp, tile stamps, places
    and kept tensors."""
    s = to_stamps(nest, source)
    places = {"places": s.places} if s.places else {}
    keep = {"keep": s.keep} if s.keep else {}
    return DataflowSpec.from_mapping(
        {
            "name": name,
            "space_stamp": s.space_stamp,
            "time_stamp": s.time_stamp,
            "tiles": s.tiles,
            **places,
            **keep,
        }
    )


def tensor_tiles(nest: LoopNest, tensor: str) -> dict[str, str]:
    """Return, per level inside the backing store, the tile stamp of ``tensor`` listing every
    temporal loop above its storage there (the level's place, or ``nest.above``)."""
    flat = nest.loops()
    values = _values(nest)
    head = _head(nest)
    out: dict[str, str] = {}
    for level in nest.levels[1:]:
        bound = nest.above.get(tensor, {}).get(level.level, nest.boundary(level.level))
        parts = [values[n] for n, (_, loop) in enumerate(flat[:bound]) if loop.spatial is None]
        if parts:
            out[level.level] = f"{{{head} -> {level.level.upper()}[{', '.join(parts)}]}}"
    return out


def tile_maps(nest: LoopNest) -> list[tuple[str, isl.Map]]:
    """Return the tile stamp of each level of ``nest`` inside the outermost, as isl maps."""
    return [(level, parse_map(text)) for level, text in to_stamps(nest).tiles.items()]


def place_maps(nest: LoopNest) -> list[tuple[str, str, isl.Map]]:
    """Return the tile stamp of each tensor stored under other loops than its level's
    (``nest.above``), as (level, tensor, isl map)."""
    return [
        (level, tensor, parse_map(text))
        for level, per in to_stamps(nest).places.items()
        for tensor, text in per.items()
    ]


def with_mapping(specs: Specs, nest: LoopNest, name: str, source: str | None = None) -> Specs:
    """Return ``specs`` with the dataflow of ``nest`` (:func:`dataflow_spec`) named ``name``.

    Examples
    --------
    >>> from tenet.mapping import LevelLoops, Loop
    >>> from tenet.spec import load_architecture, load_workload
    >>> nest = LoopNest(("i", "j", "k"), (2, 2, 3), (
    ...     LevelLoops("dram", (Loop("i", 2),)), LevelLoops("glb", (Loop("j", 2), Loop("k", 3)))))
    >>> s = with_mapping(Specs(load_workload("gemm"), load_architecture("simba")), nest, "n")
    >>> s.what
    'gemm on simba with n'
    """
    return specs.with_dataflow(dataflow_spec(nest, name, source))
