"""Mapping constraints checked against one problem: a constraints file
(:class:`~tenet.spec.ConstraintsSpec`) with its loops, levels and tensors found in the problem's
workload and architecture, and the tests each search applies where it lists its choices: the
PEs a loop spreads over (array mappings), the tile sizes and the loop order of a level (tilings),
the tensors a level keeps (kept tensors), and of a whole loop nest.

A level's ``order`` is that of the loops over its tiles, which ``tenet tile`` prints after the
level's name (``glb j:2 i:4``: ``order: [j, i, ...]``), outermost first; a loop of one trip may
sit anywhere (it changes no figure), so a nest satisfies an order when its loops of more than one
trip follow it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tenet.dse.space.mapping import AffineMapping
from tenet.errors import SpecError
from tenet.mapping import LoopNest, array_spread, box
from tenet.model.hierarchy import MemoryLevel
from tenet.model.problem import Problem
from tenet.model.workload import Workload
from tenet.spec import ConstraintsSpec
from tenet.spec.architecture import LevelSpec

__all__ = ["NO_TILING", "MappingConstraints", "mapping_spread"]

NO_TILING = (
    "no tiling to search (each level's tile sizes divide those of the level outside it, and "
    "a level shared by the PEs does not cut the array's loops)"
)
"""What constraints whose tile sizes nest nowhere leave."""


@dataclass(frozen=True)
class MappingConstraints:
    """Constraints checked against a problem whose loops are ``dims`` (a box domain):
    ``spatial`` (loop -> PEs its values spread over), per level inside the outermost the
    allowed tile ``sizes`` (loop -> sizes) and the loop ``orders`` (loop names, outermost
    first), per level the tensors it must ``keep`` and must not (``bypass``), and ``held``:
    per level with a keep or bypass, the tensors it keeps when a mapping does not say.
    ``source`` names the file in errors."""

    dims: tuple[str, ...]
    spatial: Mapping[str, int] = field(default_factory=dict)
    sizes: Mapping[str, Mapping[str, tuple[int, ...]]] = field(default_factory=dict)
    orders: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    keep: Mapping[str, frozenset[str]] = field(default_factory=dict)
    bypass: Mapping[str, frozenset[str]] = field(default_factory=dict)
    held: Mapping[str, frozenset[str]] = field(default_factory=dict)
    source: str | None = None

    @classmethod
    def of(
        cls,
        spec: ConstraintsSpec,
        workload: Workload,
        levels: Sequence[LevelSpec | MemoryLevel],
        aligned: int | None = None,
    ) -> MappingConstraints:
        """Return ``spec`` checked against a ``workload`` (with its sizes) and the memory
        ``levels`` of an architecture (tile sizes must divide their loop, or with ``aligned``
        be multiples of it).

        Raises
        ------
        SpecError
            Naming the file and the key: an unknown loop, level or tensor, a spread or tile
            size larger than its loop, a tile size that does not divide it, an order that is
            not a permutation of the loops, a bypass at the outermost or innermost level, or
            a tensor kept where the level may not hold it.

        Examples
        --------
        >>> from tenet.api import load_problem
        >>> p = load_problem("gemm", "systolic-levels-8x8", "gemm-os-systolic",
        ...                  {"M": 8, "N": 8, "K": 8})
        >>> spec = ConstraintsSpec.from_mapping({"name": "c", "levels": {"rf": {"sizes":
        ...     {"k": [3]}}}})
        >>> MappingConstraints.of(spec, p.workload, p.architecture.levels)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        tenet.errors.SpecError: levels.rf.sizes.k: tile size 3 does not divide the 8 ...
        """
        dims, extents = box(workload.domain)
        extent = dict(zip(dims, extents, strict=True))
        names = [lv.name for lv in levels]
        tensors = sorted(workload.tensors)

        def fail(where: str, reason: str) -> SpecError:
            return SpecError(reason, source=spec.source, location=spec.where(where))

        def loop(where: str, name: str) -> int:
            if name not in extent:
                raise fail(where, f"no loop {name!r} (loops: {', '.join(dims)})")
            return extent[name]

        for name, spread in spec.spatial.items():
            if spread > loop(f"spatial.{name}", name):
                raise fail(
                    f"spatial.{name}",
                    f"loop {name!r} runs {extent[name]} iterations: it cannot spread over "
                    f"{spread} PEs",
                )
        sizes: dict[str, dict[str, tuple[int, ...]]] = {}
        orders: dict[str, tuple[str, ...]] = {}
        keep: dict[str, frozenset[str]] = {}
        bypass: dict[str, frozenset[str]] = {}
        held: dict[str, frozenset[str]] = {}
        for level, given in spec.levels.items():
            at = f"levels.{level}"
            if level not in names:
                raise fail(at, f"no memory level {level!r} (levels: {', '.join(names)})")
            position = names.index(level)
            if position == 0 and (given.sizes or given.order is not None or given.bypass):
                raise fail(
                    at,
                    f"{level} is the outermost level: it holds every tensor whole, with no "
                    "tile sizes or loop order to choose",
                )
            if given.bypass and position == len(names) - 1:
                raise fail(
                    f"{at}.bypass",
                    f"{level} is the innermost level: it feeds the MACs and keeps every tensor",
                )
            holds = levels[position].tensors
            may = frozenset(tensors if holds is None else holds)
            for key, named in (("keep", given.keep), ("bypass", given.bypass)):
                for tensor in named:
                    if tensor not in tensors:
                        raise fail(
                            f"{at}.{key}", f"no tensor {tensor!r} (tensors: {', '.join(tensors)})"
                        )
            for tensor in given.keep:
                if tensor not in may:
                    raise fail(
                        f"{at}.keep",
                        f"{level} may not hold {tensor} (it holds {', '.join(sorted(may))})",
                    )
            if given.keep or given.bypass:
                keep[level], bypass[level] = frozenset(given.keep), frozenset(given.bypass)
                held[level] = may
            if given.sizes:
                sizes[level] = _level_sizes(given.sizes, f"{at}.sizes", loop, fail, aligned)
            if given.order is not None:
                if sorted(given.order) != sorted(dims):
                    raise fail(f"{at}.order", _not_a_permutation(given.order, dims))
                orders[level] = tuple(given.order)
        return cls(tuple(dims), dict(spec.spatial), sizes, orders, keep, bypass, held, spec.source)

    def to_dict(self) -> dict[str, Any]:
        """Return the constraints as JSON-ready values, read back by :meth:`from_dict`."""
        return {
            "dims": list(self.dims),
            "spatial": dict(self.spatial),
            "sizes": {lv: {d: list(s) for d, s in v.items()} for lv, v in self.sizes.items()},
            "orders": {lv: list(o) for lv, o in self.orders.items()},
            "keep": {lv: sorted(t) for lv, t in self.keep.items()},
            "bypass": {lv: sorted(t) for lv, t in self.bypass.items()},
            "held": {lv: sorted(t) for lv, t in self.held.items()},
            "source": self.source,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MappingConstraints:
        """Return the constraints written by :meth:`to_dict`."""
        return cls(
            tuple(data["dims"]),
            dict(data["spatial"]),
            {lv: {d: tuple(s) for d, s in v.items()} for lv, v in data["sizes"].items()},
            {lv: tuple(o) for lv, o in data["orders"].items()},
            {lv: frozenset(t) for lv, t in data["keep"].items()},
            {lv: frozenset(t) for lv, t in data["bypass"].items()},
            {lv: frozenset(t) for lv, t in data["held"].items()},
            data["source"],
        )

    def allows(self, level: str, dim: str, size: int) -> bool:
        """Whether ``level`` may have tiles of ``size`` along loop ``dim``."""
        allowed = self.sizes.get(level, {}).get(dim)
        return allowed is None or size in allowed

    def allows_sizes(self, level: str, dims: Sequence[str], sizes: Sequence[int]) -> bool:
        """Whether ``level`` may have tiles of ``sizes`` along the loops ``dims``."""
        return all(self.allows(level, d, s) for d, s in zip(dims, sizes, strict=True))

    def order(self, level: str, positions: Sequence[int]) -> tuple[int, ...] | None:
        """Return the order of the loops at ``positions`` (of :attr:`dims`) over the tiles of
        ``level``, outermost first (None: any)."""
        fixed = self.orders.get(level)
        if fixed is None:
            return None
        return tuple(k for k in (self.dims.index(d) for d in fixed) if k in positions)

    def keeps(self, kept: Mapping[str, frozenset[str]]) -> bool:
        """Whether a choice of kept tensors (level -> tensors; a level not named keeps those
        it may hold) keeps and bypasses what the constraints say."""
        for level, held in self.held.items():
            chosen = kept.get(level, held)
            if not self.keep[level] <= chosen or self.bypass[level] & chosen:
                return False
        return True

    def kept(self, kept: Mapping[str, frozenset[str]]) -> dict[str, frozenset[str]]:
        """Return the choice of kept tensors ``kept`` with each constrained level keeping its
        ``keep`` and none of its ``bypass`` (for a search that does not choose them)."""
        out = dict(kept)
        for level, held in self.held.items():
            out[level] = (out.get(level, held) | self.keep[level]) - self.bypass[level]
        return out

    def spreads(self, spread: Mapping[str, int]) -> bool:
        """Whether an array mapping spreading each loop over ``spread`` PEs (loop -> PEs; a
        loop not named: 1) is allowed."""
        return all(spread.get(d, 1) == n for d, n in self.spatial.items())

    def admits_problem(self, problem: Problem) -> bool:
        """Whether the array mapping (dataflow) of ``problem`` spreads its loops as the
        constraints say."""
        return self.spread_error(problem) is None

    def spread_error(self, problem: Problem) -> SpecError | None:
        """The error of an array mapping (the dataflow of ``problem``) that does not spread
        its loops as the constraints say (None: it does)."""
        if not self.spatial:
            return None
        spread = array_spread(problem.dataflow.space_stamp, problem.workload.domain)
        for loop, n in self.spatial.items():
            if spread.get(loop, 1) != n:
                has = spread.get(loop, 1)
                return SpecError(
                    f"the dataflow spreads loop {loop!r} over {has} PE{'s' * (has != 1)}, not "
                    f"{n}: the constraints leave no array mapping to search",
                    source=self.source,
                    location=f"spatial.{loop}",
                )
        return None

    def violations(self, nest: LoopNest) -> list[str]:
        """Return what a loop nest over the loops :attr:`dims` does against the constraints
        of its levels (its tile sizes, the loops of more than one trip over each level's
        tiles, the tensors each level keeps); none when it satisfies them.

        Examples
        --------
        >>> from tenet.mapping import tiled_nest
        >>> c = MappingConstraints(("i", "j"), orders={"glb": ("i", "j")})
        >>> c.violations(tiled_nest(("i", "j"), (8, 8), "dram", [("glb", (4, 2), (1, 0))], (0, 1)))
        ['glb: loops j, i over its tiles, not in the order i, j']
        """
        found = []
        named = {lv.level: k for k, lv in enumerate(nest.levels)}
        for level in sorted({*self.sizes, *self.orders, *self.held}):
            k = named.get(level)
            if k is None:
                found.append(f"{level}: not a level of the nest")
                continue
            tiles = nest.tile_sizes(level)
            for d, size in zip(nest.dims, tiles, strict=True):
                if not self.allows(level, d, size):
                    found.append(f"{level}: tile size {size} of {d}")
            fixed = self.orders.get(level)
            if fixed is not None and k > 0:
                running = [x.dim for x in nest.levels[k - 1].loops if x.size > 1]
                if running != [d for d in fixed if d in running]:
                    found.append(
                        f"{level}: loops {', '.join(running)} over its tiles, not in the order "
                        f"{', '.join(fixed)}"
                    )
            if level in self.held:
                kept = nest.levels[k].keep
                kept = self.held[level] if kept is None else kept
                if not self.keep[level] <= kept or self.bypass[level] & kept:
                    found.append(f"{level}: keeps {', '.join(sorted(kept)) or 'nothing'}")
        return found

    def nothing_left(self, what: str) -> SpecError:
        """The error of constraints that leave ``what`` (``no tiling to search``)."""
        return SpecError(f"the constraints leave {what}", source=self.source)


def mapping_spread(mapping: AffineMapping) -> dict[str, int]:
    """Return, per loop of an array ``mapping``, the PEs its values spread over: the product
    of the extents of its digits on the array (1: none).

    Examples
    --------
    >>> from tenet.dse.space.mapping import Digit
    >>> i8, j8 = Digit(0, 1, 8, 8), Digit(1, 1, 8, 8)
    >>> m = AffineMapping("S", ("i", "j", "k"), (((i8, 1),), ((j8, 1),)), (), (0, 0), None, ())
    >>> mapping_spread(m)
    {'i': 8, 'j': 8, 'k': 1}
    """
    spread = dict.fromkeys(mapping.loops, 1)
    for digit in mapping.spatial_digits:
        spread[mapping.loops[digit.loop]] *= digit.extent
    return spread


def _level_sizes(
    given: Mapping[str, Sequence[int]],
    at: str,
    loop: Callable[[str, str], int],
    fail: Callable[[str, str], SpecError],
    aligned: int | None,
) -> dict[str, tuple[int, ...]]:
    """Return a level's allowed tile sizes per loop, each checked against its loop's
    iterations (``loop`` finds them, ``fail`` names the key ``at``)."""
    sizes: dict[str, tuple[int, ...]] = {}
    for name, allowed in given.items():
        where = f"{at}.{name}"
        n = loop(where, name)
        for size in allowed:
            if size > n:
                raise fail(
                    where, f"tile size {size} is larger than the {n} iterations of loop {name!r}"
                )
            if n % size and not (aligned is not None and size % aligned == 0):
                raise fail(
                    where,
                    f"tile size {size} does not divide the {n} iterations of loop {name!r}"
                    + ("" if aligned is None else f" and is no multiple of {aligned}"),
                )
        sizes[name] = tuple(sorted(set(allowed)))
    return sizes


def _not_a_permutation(order: Sequence[str], dims: Sequence[str]) -> str:
    """Say that ``order`` is not a permutation of the loops ``dims``."""
    return f"order {list(order)} is not a permutation of the loops {', '.join(dims)}"
