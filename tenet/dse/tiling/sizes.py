"""The tilings a search enumerates: the tiled levels and loops, the tile sizes of each level
(nested divisors of the loop extents, or given sizes, or multiples of an alignment) and the loop
order inside each band; counted, listed and checked before any search.

The space skips what cannot change a figure, never what might: orders that differ only in loops
of one trip or in the point loops (no tile stamp depends on them), and tile sizes of a level
shared by the PEs that would cut the array's loops.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import permutations, product
from math import factorial
from typing import Any

from tenet.dse.constraints import NO_TILING, MappingConstraints
from tenet.dse.tiling.rtile import box_extents
from tenet.errors import SpecError
from tenet.mapping import LoopNest, array_blocks, cuts_array, tiled_nest
from tenet.mapping.tile_sizes import nested_sizes
from tenet.model.problem import Problem
from tenet.model.tiles import tile_stamps
from tenet.model.workload import Workload
from tenet.spec import ArchitectureSpec, Specs, WorkloadSpec

__all__ = [
    "TilingSpace",
    "MAX_TILED_EXTENT",
    "loop_extents",
    "tilings",
    "size_choices",
    "sized_tilings",
    "array_cutter",
    "count_tilings",
    "check_tiling",
    "check_tile_levels",
]


@dataclass(frozen=True)
class TilingSpace:
    """The tilings a search enumerates: the tiled ``levels`` (outermost first; None: every
    level inside the outermost), the tiled loop ``dims`` (None: all; the others stay whole),
    ``sizes`` restricting some dimensions' tile sizes, ``aligned``: also the multiples of
    it that do not divide the loop (see :func:`tenet.mapping.tile_sizes.nested_sizes`), and
    ``constraints``: the tile sizes, loop orders and kept tensors each level may have."""

    levels: Sequence[str] | None = None
    dims: Sequence[str] | None = None
    sizes: Mapping[str, Sequence[int]] | None = None
    aligned: int | None = None
    constraints: MappingConstraints | None = None

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
        """Return the space as JSON-ready values (lists for sequences; constraints only when
        there are some, so that a store's key of a space without them stays)."""
        data: dict[str, Any] = {
            "levels": None if self.levels is None else list(self.levels),
            "dims": None if self.dims is None else list(self.dims),
            "sizes": None if self.sizes is None else {d: list(v) for d, v in self.sizes.items()},
            "aligned": self.aligned,
        }
        if self.constraints is not None:
            data["constraints"] = self.constraints.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TilingSpace:
        """Return the space written by :meth:`to_dict`."""
        constraints = data.get("constraints")
        return cls(
            data["levels"],
            data["dims"],
            data["sizes"],
            data["aligned"],
            None if constraints is None else MappingConstraints.from_dict(constraints),
        )


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
        yield from sized_tilings(problem, space, chosen)


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
    levels, constraints = space.levels or (), space.constraints
    return [
        tuple(map(tuple, c))
        for c in chosen
        if not cuts(names, c)
        and (
            constraints is None
            or all(constraints.allows_sizes(lv, names, s) for lv, s in zip(levels, c, strict=True))
        )
    ]


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


def sized_tilings(
    problem: Problem, space: TilingSpace, chosen: Sequence[Sequence[int]]
) -> Iterator[LoopNest]:
    """Yield the tilings of the tile sizes ``chosen`` (one tuple per level of the checked
    ``space``): every loop order of each band and of the point loops, each level keeping what
    the dataflow keeps (with the space's constraints: each level's order and kept tensors as
    they say)."""
    names, extents = loop_extents(problem)
    keep = dict(problem.dataflow.keep)
    levels = space.levels or ()
    indices = _tiled(names, space.dims)
    orders = list(permutations(indices))
    per_level = [orders] * (len(levels) + 1)
    if space.constraints is not None:
        keep = space.constraints.kept(keep)
        for k, level in enumerate(levels):
            fixed = space.constraints.order(level, indices)
            per_level[k] = orders if fixed is None else [fixed]
    rest = tuple(k for k in range(len(names)) if k not in indices)
    outer = problem.architecture.levels[0].name
    for combo in product(*per_level):
        bands = [(level, chosen[k], combo[k]) for k, level in enumerate(levels)]
        yield tiled_nest(names, extents, outer, bands, combo[-1] + rest).keeping(keep)


MAX_TILED_EXTENT = 2**16
"""The longest loop whose tile sizes are searched (iterations): its divisors are listed."""


def check_tiling(problem: Problem, space: TilingSpace | None = None) -> TilingSpace:
    """Return ``space`` checked for ``problem`` (:meth:`TilingSpace.checked`), before any
    search: a level to tile, the dataflow's own tile stamps (as ``tenet eval`` checks them)
    and loops short enough to list their tile sizes.

    Raises
    ------
    SpecError
        An architecture without a level inside the outermost, a tiled loop longer than
        :data:`MAX_TILED_EXTENT`, a level or loop the problem has not, or constraints that
        leave no tile sizes.
    DomainNotCoveredError, NotAFunctionError
        A tile stamp of the dataflow that misses an instance or gives one two tiles.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> p = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic", {"M": 4, "N": 4, "K": 4})
    >>> check_tiling(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tenet.errors.SpecError: systolic-2d-8x8: no memory level inside the outermost to tile ...
    """
    tile_stamps(problem)
    levels = [level.name for level in problem.architecture.levels]
    checked = (space or TilingSpace()).checked(problem)
    if not checked.levels:
        raise SpecError(
            f"no memory level inside the outermost to tile (levels: {', '.join(levels)})",
            source=problem.architecture.name,
        )
    _refuse_long_loops(*loop_extents(problem), checked.dims)
    if checked.constraints is not None and count_tilings(problem, checked)[0] == 0:
        raise checked.constraints.nothing_left(NO_TILING)
    return checked


def _refuse_long_loops(
    names: Sequence[str], extents: Sequence[int], dims: Sequence[str] | None
) -> None:
    """Refuse a loop of ``dims`` (None: every loop) longer than :data:`MAX_TILED_EXTENT`."""
    for name, extent in zip(names, extents, strict=True):
        if extent > MAX_TILED_EXTENT and (dims is None or name in dims):
            raise SpecError(
                f"loop {name!r} runs {extent} iterations; tile sizes are searched for loops "
                f"of at most {MAX_TILED_EXTENT}: give smaller sizes, or --dim without {name!r}",
                source="--param",
            )


def count_tilings(problem: Problem, space: TilingSpace) -> tuple[int, int]:
    """Return the choices of tile sizes of the checked ``space`` and the loop orders of each,
    counted without listing the choices (those of each loop multiply)."""
    names, extents = loop_extents(problem)
    tiled = space.dims if space.dims is not None else names
    levels = len(space.levels or ())
    sizes = 1
    cuts = array_cutter(problem, space)
    constraints = space.constraints
    for name, extent in zip(names, extents, strict=True):
        own = (space.sizes or {}).get(name)
        pool = list(own) if own is not None else None if name in tiled else []
        restrict = None if pool is None else {0: pool}
        sizes *= sum(
            1
            for chain in nested_sizes([extent], levels, restrict, space.aligned)
            if not cuts([name], chain)
            and (
                constraints is None
                or all(
                    constraints.allows(lv, name, s[0])
                    for lv, s in zip(space.levels or (), chain, strict=True)
                )
            )
        )
    fixed = 0
    if constraints is not None:
        fixed = sum(1 for lv in space.levels or () if lv in constraints.orders)
    return sizes, factorial(len(tiled)) ** (levels + 1 - fixed)


def check_tile_levels(
    architecture: ArchitectureSpec,
    levels: Sequence[str],
    workload: WorkloadSpec | None = None,
    params: Mapping[str, int] | None = None,
) -> None:
    """Refuse, naming ``--tile``, a level of ``levels`` that is not inside the outermost memory
    level of ``architecture`` and, given the ``workload`` and its sizes ``params``, a loop
    too long to search its tile sizes (checked before a search whose best mappings are then
    tiled).

    Examples
    --------
    >>> from tenet.spec import load_architecture, load_workload
    >>> check_tile_levels(load_architecture("simba"), ["l9"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tenet.errors.SpecError: --tile: simba has no memory level 'l9' to tile ...
    >>> check_tile_levels(load_architecture("simba"), ["glb"], load_workload("gemm"),
    ...                   {"M": 10**12})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tenet.errors.SpecError: --param: loop 'i' runs 1000000000000 iterations; ...
    """
    inner = [level.name for level in architecture.levels][1:]
    for name in levels:
        if name not in inner:
            raise SpecError(
                f"{architecture.name} has no memory level {name!r} to tile (levels inside the "
                f"outermost: {', '.join(inner) or 'none'})",
                source="--tile",
            )
    if workload is not None:
        bound = Workload.from_spec(
            workload, Specs(workload, architecture, None, dict(params or {})).bound
        )
        _refuse_long_loops(*box_extents(bound), None)
