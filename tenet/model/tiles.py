"""Tiling as relations: the tiles of each memory level, their lexicographic order and the
consecutive-tile maps (the previous tile, every earlier tile) that the memory figures count on.

A level's tile of an instance is the concatenation of the tile stamps of that level and every
level outside it (a level without a stamp keeps its parent's tiles). A per-PE level's tiles are
keyed by ``[PE -> tile]``: each PE has its own buffer, following the level's tile order, and
takes data from the buffers of the PEs linked to it (:attr:`TiledLevel.supply`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import islpy as isl

from tenet.errors import DomainNotCoveredError, NotAFunctionError, SpecError
from tenet.isl_utils import coalesce, tuple_signature, witness
from tenet.model.architecture import Link
from tenet.model.hierarchy import MemoryLevel, inner_level
from tenet.model.problem import Problem
from tenet.model.spacetime import identity, neighbours, previous, step_back
from tenet.model.workload import check_statement

__all__ = [
    "TiledLevel",
    "tile_levels",
    "tensor_tile_levels",
    "tile_stamps",
    "check_place_tensors",
    "loop_indices",
    "halo_tensors",
]


@dataclass(frozen=True)
class TiledLevel:
    """The tiles of one memory level inside the outermost one, as relations."""

    level: MemoryLevel
    tile_of: isl.Map
    """Instance -> its tile, S -> LEVEL[...] (the stamps of this level and those outside)."""
    active_pes: isl.Set
    theta_space: isl.Map
    """Instance -> its PE (the dataflow's space-stamp)."""
    links: tuple[Link, ...] = ()
    """The array's links (sender -> receiver); a per-PE level's instances share data over them."""

    @cached_property
    def tiles(self) -> isl.Set:
        """The tiles, ordered lexicographically."""
        return coalesce(self.tile_of.range())

    @cached_property
    def key_of(self) -> isl.Map:
        """Instance -> its buffer's key: the tile, or ``[PE -> tile]`` for a per-PE level."""
        if not self.level.per_pe:
            return self.tile_of
        return coalesce(self.theta_space.range_product(self.tile_of))

    @cached_property
    def previous_tile(self) -> isl.Map:
        """Tile -> the tile just before it."""
        return step_back(self.tiles)

    @cached_property
    def earlier_tiles(self) -> isl.Map:
        """Tile -> every tile before it."""
        return self.tiles.lex_gt_set(self.tiles)

    def _per_key(self, on_tiles: isl.Map) -> isl.Map:
        if not self.level.per_pe:
            return on_tiles
        return neighbours(identity(self.active_pes), on_tiles, exclude_self=False)

    @cached_property
    def previous(self) -> isl.Map:
        """Key -> the key of the previous tile (same PE for a per-PE level)."""
        return self._per_key(self.previous_tile)

    @cached_property
    def up_to(self) -> isl.Map:
        """Key -> the keys of this tile and every earlier one (same PE for a per-PE level)."""
        return self._per_key(self.tiles.lex_ge_set(self.tiles))

    @cached_property
    def supplies(self) -> tuple[tuple[Link, isl.Map], ...]:
        """Per link, key -> the keys of the linked instances it can take data from over it
        (none for a shared level): over a link of delay ``d`` >= 1, the sender's key ``d``
        tiles earlier; over a same-step link (delay 0), the sender's key of the same tile, from
        a sender that comes before the receiver in lexicographic order (so that one instance
        of every group joined by same-step wires takes the element from elsewhere)."""
        if not self.level.per_pe:
            return ()
        active = self.active_pes
        out: list[tuple[Link, isl.Map]] = []
        for link in self.links:
            senders = link.relation.reverse().intersect_domain(active).intersect_range(active)
            senders = senders.subtract(identity(active))
            if link.delay == 0:
                senders = senders.intersect(active.lex_gt_set(active))
                time = identity(self.tiles)
            else:
                time = previous(self.tiles, self.previous_tile, link.delay)
            out.append((link, neighbours(senders, time, exclude_self=False)))
        return tuple(out)

    @cached_property
    def supply(self) -> isl.Map:
        """Key -> the keys of the linked instances it can take data from over any link."""
        supply = isl.Map.empty(self.key_of.get_space().range().map_from_set())
        for _, over in self.supplies:
            supply = supply.union(over)
        return supply

    @cached_property
    def tile_of_key(self) -> isl.Map:
        """Key -> its tile."""
        if not self.level.per_pe:
            return identity(self.tiles)
        return self.active_pes.product(self.tiles).unwrap().range_map()


def tile_stamps(
    problem: Problem,
    tiles: Sequence[tuple[str, isl.Map]] | None = None,
    placed: Mapping[str, str] | None = None,
) -> dict[str, isl.Map]:
    """Return the checked tile stamp of each tiled level, restricted to the domain: those of
    the dataflow, or ``tiles`` (level name, stamp) when given; ``placed`` names the tensor
    whose own place a level's stamp is (errors then name ``places.<level>.<tensor>``).

    Raises
    ------
    SpecError
        A stamp for a level the architecture does not have, for the outermost level, or over
        another statement.
    DomainNotCoveredError, NotAFunctionError
        A stamp that misses an instance or gives one two tiles (with a witness).
    """
    dataflow, levels = problem.dataflow, problem.architecture.levels
    domain = problem.workload.domain
    statement = tuple_signature(domain, isl.dim_type.set)
    src = dataflow.source
    stamps: dict[str, isl.Map] = {}
    for name, stamp in dataflow.tiles if tiles is None else tiles:
        where = f"places.{name}.{placed[name]}" if placed and name in placed else f"tiles.{name}"
        holds = "everything and has no tiles"
        inner_level(levels, name, holds, source=src, location=where)
        check_statement(stamp, statement, source=src, location=where)
        missing = domain.subtract(stamp.domain())
        if not missing.is_empty():
            instance = witness(missing)
            raise DomainNotCoveredError(
                f"instance {instance} has no tile", source=src, location=where, witness=instance
            )
        stamp = stamp.intersect_domain(domain)
        if not stamp.is_single_valued():
            pairs = stamp.reverse().apply_range(stamp)
            pairs = pairs.subtract(isl.Map.identity(pairs.get_space()))
            a, b = witness(pairs.domain()), witness(pairs.range())
            raise NotAFunctionError(
                f"an instance of tile {a} also lies in {b}", source=src, location=where
            )
        stamps[name] = stamp
    return stamps


def tile_levels(
    problem: Problem,
    tiles: Sequence[tuple[str, isl.Map]] | None = None,
    placed: Mapping[str, str] | None = None,
    levels: Sequence[MemoryLevel] | None = None,
) -> tuple[TiledLevel, ...]:
    """Return the tiles of every level inside the outermost one, outermost first (tile stamps
    of the dataflow, or ``tiles`` when given; ``placed``: the levels whose stamp is a tensor's
    own place, with the tensor, for the errors), each level holding what the dataflow keeps
    there (:attr:`~tenet.model.problem.Problem.levels`), or what ``levels`` hold when given.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> from tenet.spec import ArchitectureSpec
    >>> arch = ArchitectureSpec.from_mapping({"name": "a", "pe": "{PE[i]: 0 <= i < 2}",
    ...     "levels": [{"name": "dram"}, {"name": "glb", "capacity": 64}]})
    >>> p = load_problem("gemm", arch, "gemm-os-1d:pes=2", params={"M": 4, "N": 4, "K": 4})
    >>> [str(t.tiles) for t in tile_levels(p)]
    ['{ glb[] }']
    """
    stamps = tile_stamps(problem, tiles, placed)
    domain = problem.workload.domain
    composite = isl.Map.from_domain(domain)
    result: list[TiledLevel] = []
    for level in (problem.levels if levels is None else levels)[1:]:
        if level.name in stamps:
            composite = composite.flat_range_product(stamps[level.name])
        tile_of = coalesce(composite.set_tuple_name(isl.dim_type.out, level.name))
        result.append(
            TiledLevel(
                level,
                tile_of,
                problem.active_pes,
                problem.theta_space,
                problem.architecture.links,
            )
        )
    return tuple(result)


def tensor_tile_levels(
    problem: Problem,
    tiles: Sequence[tuple[str, isl.Map]] | None = None,
    places: Sequence[tuple[str, str, isl.Map]] = (),
    levels: Sequence[MemoryLevel] | None = None,
) -> dict[str, tuple[TiledLevel, ...]]:
    """Return, per tensor with its own storage places (the dataflow's ``places``), the tiles
    of every level inside the outermost one as that tensor sees them: its place where it has
    one, the level's tiles elsewhere. When ``tiles`` replace the dataflow's stamps,
    ``places`` (level, tensor, stamp) replace its places; ``levels`` as in
    :func:`tile_levels`.

    Raises
    ------
    SpecError
        A place for a tensor the workload does not have.
    """
    dataflow = problem.dataflow
    base, placed = (dataflow.tiles, dataflow.places) if tiles is None else (tiles, places)
    check_place_tensors(
        [(level, tensor) for level, tensor, _ in placed],
        problem.workload.tensors,
        dataflow.source,
    )
    out: dict[str, tuple[TiledLevel, ...]] = {}
    for tensor in dict.fromkeys(tensor for _, tensor, _ in placed):
        own = {level: stamp for level, t, stamp in placed if t == tensor}
        stamps = {**dict(base), **own}
        out[tensor] = tile_levels(problem, list(stamps.items()), dict.fromkeys(own, tensor), levels)
    return out


def check_place_tensors(
    places: Iterable[tuple[str, str]], tensors: Collection[str], source: str | None
) -> None:
    """Refuse a place (level, tensor) of a dataflow read from ``source`` for a tensor that is
    not one of the workload's ``tensors``, naming ``places.<level>.<tensor>``.

    Examples
    --------
    >>> check_place_tensors([("glb", "Z")], ["A", "B"], "d.yaml")
    Traceback (most recent call last):
    ...
    tenet.errors.SpecError: d.yaml: places.glb.Z: no tensor 'Z' in the workload (A, B)
    """
    for level, tensor in places:
        if tensor not in tensors:
            raise SpecError(
                f"no tensor {tensor!r} in the workload ({', '.join(tensors)})",
                source=source,
                location=f"places.{level}.{tensor}",
            )


def _subscripts(relation: isl.Map) -> list[set[int]]:
    """Return, per subscript of ``relation`` (S -> tensor), the loop dimensions it involves."""
    functions = relation.as_pw_multi_aff()
    n_in = relation.dim(isl.dim_type.in_)
    result = []
    for j in range(relation.dim(isl.dim_type.out)):
        used: set[int] = set()
        for _, aff in functions.get_pw_aff(j).get_pieces():
            used |= {k for k in range(n_in) if aff.involves_dims(isl.dim_type.in_, k, 1)}
        result.append(used)
    return result


def loop_indices(problem: Problem) -> dict[str, frozenset[str]]:
    """Return, per analysed tensor, the loop dimensions its subscripts involve.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> p = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic")
    >>> sorted(loop_indices(p)["A"])
    ['i', 'k']
    """
    domain = problem.workload.domain
    names = [
        domain.get_dim_name(isl.dim_type.set, k) or f"i{k}"
        for k in range(domain.dim(isl.dim_type.set))
    ]
    out: dict[str, frozenset[str]] = {}
    for access in problem.accesses:
        used = {names[k] for sub in _subscripts(access.relation) for k in sub}
        out[access.tensor] = out.get(access.tensor, frozenset()) | used
    return out


def halo_tensors(problem: Problem) -> set[str]:
    """Return the tensors with a subscript that adds several loop indices (e.g. ``ox + rx``)."""
    return {
        access.tensor
        for access in problem.accesses
        if any(len(sub) > 1 for sub in _subscripts(access.relation))
    }
