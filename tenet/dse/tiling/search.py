"""Tiling search: tile sizes per memory level (nested divisors of the loop extents) times the
loop order inside each band, under the capacities, minimising the memory latency (or energy,
or their product), each candidate counted exactly
(:func:`tenet.metrics.assessment.assess_problem`, one :class:`~tenet.metrics.assessment.Evaluated`
record each).

The search skips what cannot change a figure, never what might: tile sizes whose tiles do not
fit (checked once per sizes, before any order), and orders that differ only in loops of one
trip or in the point loops (no tile stamp depends on them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from itertools import permutations, product
from typing import Any, cast

from tenet.dse.run.execution import Progress
from tenet.dse.tiling.rtile import box_extents
from tenet.errors import CapacityError, SpecError
from tenet.mapping import LoopNest, array_blocks, cuts_array, tiled_nest, tiling_key
from tenet.mapping.tile_sizes import nested_sizes
from tenet.metrics.assessment import Evaluated, assess_problem
from tenet.metrics.latency import occupancy
from tenet.model.problem import Problem
from tenet.vocab import MemoryObjective

__all__ = [
    "TilingSpace",
    "TilingSearch",
    "loop_extents",
    "tilings",
    "search_tiling",
    "SizesResult",
    "size_choices",
    "array_cutter",
    "search_sizes",
    "combine",
]


@dataclass(frozen=True)
class TilingSpace:
    """The tilings a search enumerates: the tiled ``levels`` (outermost first; None: every
    level inside the outermost), the tiled loop ``dims`` (None: all; the others stay whole),
    ``sizes`` restricting some dimensions' tile sizes, and ``aligned``: also the multiples of
    it that do not divide the loop (see :func:`tenet.mapping.tile_sizes.nested_sizes`)."""

    levels: Sequence[str] | None = None
    dims: Sequence[str] | None = None
    sizes: Mapping[str, Sequence[int]] | None = None
    aligned: int | None = None

    def checked(self, problem: Problem) -> TilingSpace:
        """Return this space with its levels named (the default filled in) and checked.

        Raises
        ------
        SpecError
            A level that is not inside the outermost, or a loop that ``problem`` has not.
        """
        names = [level.name for level in problem.architecture.levels]
        levels = list(self.levels) if self.levels is not None else names[1:]
        for name in levels:
            if name not in names[1:]:
                raise SpecError(
                    f"no memory level {name!r} to tile (levels inside the outermost: "
                    f"{', '.join(names[1:]) or 'none'})"
                )
        _tiled(loop_extents(problem)[0], self.dims)
        return replace(self, levels=tuple(levels))

    def to_dict(self) -> dict[str, Any]:
        """Return the space as JSON-ready values (lists for sequences)."""
        return {
            "levels": None if self.levels is None else list(self.levels),
            "dims": None if self.dims is None else list(self.dims),
            "sizes": None if self.sizes is None else {d: list(v) for d, v in self.sizes.items()},
            "aligned": self.aligned,
        }


@dataclass(frozen=True)
class TilingSearch:
    """The best tiling and how much was looked at."""

    best: Evaluated
    """The best tiling (a :func:`tenet.mapping.tiled_nest`), its figures and value."""
    candidates: int
    """Tile sizes times loop orders enumerated."""
    fitting: int
    """Of those, the candidates whose tiles fit every level."""
    evaluated: int
    """Distinct exact evaluations made."""
    bound: Fraction | None = None
    """A lower bound of the objective over the searched space (the best's value when every
    candidate was counted or a branch and bound closed its gap; None: built, not searched)."""


def loop_extents(problem: Problem) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Return the loop dimensions and their extents; the domain must be a box from 0
    (:func:`tenet.dse.tiling.rtile.box_extents`)."""
    return box_extents(problem.workload)


def tilings(problem: Problem, space: TilingSpace | None = None) -> Iterator[LoopNest]:
    """Yield every tiling of ``problem`` in ``space`` (default: every inner level, every
    loop): the tile sizes of :func:`size_choices` times every order of the tiled dimensions
    in each band and in the point loops, ``(d!)^(levels + 1)`` orders for ``d`` tiled
    dimensions.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> p = load_problem("gemm", "systolic-levels-8x8", "gemm-os-systolic",
    ...                  params={"M": 4, "N": 4, "K": 4})
    >>> space = TilingSpace(["glb", "rf"])
    >>> sizes = [(4,) * 3, (2,) * 3]
    >>> sum(1 for t in tilings(p, space) if [t.tile_sizes(lv) for lv in ("glb", "rf")] == sizes)
    216
    """
    space = (space or TilingSpace()).checked(problem)
    for chosen in size_choices(problem, space):
        yield from _orders(problem, space, chosen)


def _tiled(names: Sequence[str], dims: Sequence[str] | None) -> list[int]:
    tiled = list(dims) if dims is not None else list(names)
    for d in tiled:
        if d not in names:
            raise SpecError(f"no loop {d!r} to tile (loops: {', '.join(names)})")
    return [names.index(d) for d in tiled]


def size_choices(
    problem: Problem, space: TilingSpace | None = None
) -> list[tuple[tuple[int, ...], ...]]:
    """Return the tile sizes of ``problem`` in ``space`` (one tuple per level, outermost
    first), nested divisors of the loop extents in the order :func:`tilings` enumerates
    them, the levels shared by the PEs in whole blocks of the array's loops (as in a loop
    nest, :func:`tenet.mapping.array_blocks`)."""
    space = (space or TilingSpace()).checked(problem)
    names, extents = loop_extents(problem)
    indices = _tiled(names, space.dims)
    restrict: dict[int, list[int]] = {k: [] for k in range(len(names)) if k not in indices}
    restrict.update({names.index(d): list(v) for d, v in (space.sizes or {}).items()})
    chosen = nested_sizes(extents, len(space.levels or ()), restrict, space.aligned)
    cuts = array_cutter(problem, space)
    return [tuple(map(tuple, c)) for c in chosen if not cuts(names, c)]


def array_cutter(
    problem: Problem, space: TilingSpace
) -> Callable[[Sequence[str], Sequence[Sequence[int]]], bool]:
    """Return whether tile sizes (per level of the checked ``space``) of some loops (by name)
    cut, at a level shared by the PEs, a loop of ``problem``'s array
    (:func:`tenet.mapping.cuts_array`)."""
    per_pe = {lv.name for lv in problem.architecture.levels if lv.per_pe}
    blocks = array_blocks(problem.dataflow.space_stamp, problem.workload.domain)
    extents = dict(zip(*loop_extents(problem), strict=True))
    shared = [level not in per_pe for level in space.levels or ()]

    def cuts(names: Sequence[str], chosen: Sequence[Sequence[int]]) -> bool:
        return any(
            cuts_array(blocks[d], size, extents[d])
            for whole, sizes in zip(shared, chosen, strict=True)
            if whole
            for d, size in zip(names, sizes, strict=True)
        )

    return cuts


def _orders(
    problem: Problem, space: TilingSpace, chosen: Sequence[Sequence[int]]
) -> Iterator[LoopNest]:
    """Yield the tilings of the tile sizes ``chosen`` in the checked ``space``: every loop
    order of each band and of the point loops, each level keeping what the dataflow keeps."""
    names, extents = loop_extents(problem)
    keep = dict(problem.dataflow.keep)
    levels = space.levels or ()
    indices = _tiled(names, space.dims)
    orders = list(permutations(indices))
    rest = tuple(k for k in range(len(names)) if k not in indices)
    outer = problem.architecture.levels[0].name
    for combo in product(orders, repeat=len(levels) + 1):
        bands = [(level, chosen[k], combo[k]) for k, level in enumerate(levels)]
        yield tiled_nest(names, extents, outer, bands, combo[-1] + rest).keeping(keep)


def search_tiling(
    problem: Problem,
    space: TilingSpace | None = None,
    *,
    objective: MemoryObjective = "latency",
    progress: Progress | None = None,
) -> TilingSearch:
    """Return the tiling of ``problem`` in ``space`` (see :class:`TilingSpace`) that fits
    every level and minimises ``objective`` (ties: less DRAM traffic, then the first
    enumerated); ``progress`` (none: no display) wraps the choices of tile sizes (called
    with ``total=``).

    Raises
    ------
    CapacityError
        No tiling fits; the message names the level and its smallest need.
    SpecError
        A level or loop that is not the problem's.
    """
    space = (space or TilingSpace()).checked(problem)
    compute = occupancy(problem).latency_compute
    choices = size_choices(problem, space)
    shown = choices if progress is None else progress(choices, total=len(choices))
    results = (
        search_sizes(problem, compute, space, chosen, objective, position)
        for position, chosen in enumerate(shown)
    )
    return combine(problem, results)


@dataclass(frozen=True)
class SizesResult:
    """The best tiling of one choice of tile sizes, over its loop orders."""

    best: Evaluated | None
    """None when the tiles do not fit."""
    rank: tuple[Fraction, int, int] | None
    """Objective value, DRAM traffic, and index of the best among all candidates."""
    candidates: int
    fitting: int
    evaluated: int
    needs: dict[str, int]
    """Elements each level needs for these tile sizes."""


def search_sizes(
    problem: Problem,
    compute: int,
    space: TilingSpace,
    chosen: Sequence[Sequence[int]],
    objective: MemoryObjective,
    position: int = 0,
) -> SizesResult:
    """Return the best loop orders for the tile sizes ``chosen`` (one tuple per level of the
    checked ``space``, see :meth:`TilingSpace.checked`); ``compute`` is the compute latency in
    cycles, ``position`` the index of ``chosen`` in :func:`size_choices` (ties go to the first
    enumerated candidate)."""
    tilings_ = list(_orders(problem, space, chosen))
    first = position * len(tilings_)
    found = assess_problem(problem, tilings_[0], figures=["needs"]).needs
    if not found.fits:
        return SizesResult(None, None, len(tilings_), 0, 0, dict(found.needs))
    done: dict[tuple[tuple[int, ...], ...], Evaluated] = {}
    best: tuple[tuple[Fraction, int, int], Evaluated] | None = None
    for index, tiling in enumerate(tilings_, start=first):
        key = tiling_key(tiling)
        if key not in done:
            done[key] = Evaluated.of(problem, tiling, objective, compute)
        result = done[key]
        # ties go to the first enumerated: the tiling ``result`` was counted for
        rank = (result.value, result.memory.traffic_dram, index)
        if best is None or rank < best[0]:
            best = (rank, result)
    assert best is not None
    needs = dict(found.needs)
    return SizesResult(best[1], best[0], len(tilings_), len(tilings_), len(done), needs)


def combine(problem: Problem, results: Iterable[SizesResult]) -> TilingSearch:
    """Return the best of the per-sizes ``results`` and the counts of the whole search.

    Raises
    ------
    CapacityError
        No tiling fits; the message names the level and its smallest need.
    """
    smallest: dict[str, int] = {}
    best: SizesResult | None = None
    candidates = fitting = evaluated = 0
    for result in results:
        candidates += result.candidates
        fitting += result.fitting
        evaluated += result.evaluated
        for level, need in result.needs.items():
            smallest[level] = min(smallest.get(level, need), need)
        if result.rank is not None and (
            best is None or result.rank < cast(tuple[Any, ...], best.rank)
        ):
            best = result
    if best is None or best.best is None:
        raise CapacityError(_nothing_fits(problem, smallest))
    return TilingSearch(best.best, candidates, fitting, evaluated, best.best.value)


def _nothing_fits(problem: Problem, smallest: Mapping[str, int]) -> str:
    for level in problem.architecture.levels[1:]:
        need = smallest.get(level.name)
        if need is not None and level.capacity is not None and need > level.capacity:
            return (
                f"no tiling fits: the smallest tile of {level.name} needs {need} elements, "
                f"{level.name} holds {level.capacity}"
            )
    return "no tiling fits"  # pragma: no cover
