"""Space-time mappings (dataflows) from a schedule: a time hyperplane and a space projection.

The outermost band of a schedule is permutable: every one of its rows ``σ`` keeps each
dependence weakly forward (``σ·d >= 0``). A dataflow for an array of ``p`` dimensions takes

- *space*: ``p`` rows ``σ_1..σ_p`` of that band, each shifted to start at PE 0 and, when its
  range exceeds the array, taken modulo the array size ``P``, the tile ``floor(σ/P)`` going to
  the outermost time dimensions (a tile never runs before one it depends on, since ``σ`` is
  monotone along every dependence);
- *time*: a hyperplane ``τ`` that runs every dependence of the band strictly forward: the time
  hyperplane of :func:`~tenet.schedule.hyperplanes.time_hyperplane` (``τ·d >= 1`` on every
  dependence), the sum of the band's rows, or a row of the band that alone carries every
  dependence; then the other rows of the schedule (those that add rank), in order, so that no
  two instances share a PE and a time-stamp.

Skews such as ``T[t, 2t + s + i]`` come out of the band, not from a fixed list of coefficients.
Every mapping is checked with :func:`tenet.model.legality.check_dataflow` before it is returned.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import islpy as isl

from tenet.mapping import LoopNest, Stamps, from_stamps
from tenet.mapping.tuples import TupleMapping
from tenet.model.architecture import Architecture
from tenet.model.dataflow import Dataflow
from tenet.model.legality import check_dataflow
from tenet.model.workload import Workload, parametric_workload
from tenet.schedule.dependences import DependencePolyhedron, dependence_polyhedra
from tenet.schedule.hyperplanes import (
    Schedule,
    SchedulingError,
    find_schedule,
    hyperplane_text,
    nullspace,
    restrict_delta,
    time_hyperplane,
)
from tenet.spec import ArchitectureSpec, Specs, WorkloadSpec
from tenet.spec.dataflow import stamp_texts
from tenet.vocab import PE, STATEMENT, TIME, TensorName

__all__ = ["SpaceTimeMapping", "spacetime_mappings", "time_candidates"]

Vector = tuple[int, ...]


@dataclass(frozen=True)
class SpaceTimeMapping(TupleMapping):
    """A dataflow made of hyperplanes: ``PE[(σ_d - offset_d) % P_d]`` (no modulo when
    ``modulo[d]`` is None) and ``T[floor((σ_d - offset_d) / P_d)..., τ, rest...]``."""

    statement: str
    loops: tuple[str, ...]
    space: tuple[Vector, ...]
    offsets: tuple[int, ...]
    modulo: tuple[int | None, ...]
    time: tuple[Vector, ...]
    origin: str
    """Where the time hyperplane comes from (``time hyperplane``, ``band sum``, ``band row``)."""

    def _shifted(self, d: int) -> str:
        text = hyperplane_text(self.space[d], self.loops)
        offset = self.offsets[d]
        if offset == 0:
            return text
        return f"{text} - {offset}" if offset > 0 else f"{text} + {-offset}"

    @property
    def rectangular(self) -> bool:
        """Whether every space and time row is one loop and no time row is a loop on the
        array (whose time would then follow the PE: a skew): what data-centric directives
        can write, as :attr:`tenet.dse.space.mapping.AffineMapping.rectangular` says for the
        design space.

        Examples
        --------
        >>> def mapping(time: tuple[int, ...]) -> SpaceTimeMapping:
        ...     return SpaceTimeMapping("S", ("i", "j", "k"), ((1, 0, 0), (0, 1, 0)), (0, 0),
        ...                             (None, None), (time,), "band row")
        >>> mapping((0, 0, 1)).rectangular, mapping((0, 1, 0)).rectangular
        (True, False)
        """
        rows = [*self.space, *self.time]
        if not all(sum(1 for c in row if c) == 1 and max(row) == 1 for row in rows):
            return False
        on_array = {row.index(1) for row in self.space}
        return not any(row.index(1) in on_array for row in self.time)

    @property
    def pe_text(self) -> str:
        """The PE tuple, e.g. ``PE[(i + j) % 8]``."""
        parts = []
        for d, size in enumerate(self.modulo):
            text = self._shifted(d)
            parts.append(text if size is None else f"{_grouped(text)} % {size}")
        return f"{PE}[{', '.join(parts)}]"

    @property
    def time_text(self) -> str:
        """The time tuple, e.g. ``T[floor((i + j)/8), i]``."""
        tiles = [
            f"floor({_grouped(self._shifted(d))}/{size})"
            for d, size in enumerate(self.modulo)
            if size is not None
        ]
        rows = [hyperplane_text(row, self.loops) for row in self.time]
        return f"{TIME}[{', '.join(tiles + rows)}]"

    def nest(self, domain: isl.Set, pe_extents: Sequence[int] = ()) -> LoopNest:
        """Return the mapping as a loop nest of one memory level over ``domain`` (a box),
        checked to place and order the instances as its stamps do
        (:func:`tenet.mapping.from_stamps`).

        Raises
        ------
        NotALoopNestError
            A row that is not one loop (a skew) or loops that no nest orders as the stamps do.

        Examples
        --------
        >>> m = SpaceTimeMapping("S", ("i", "j"), ((1, 0),), (0,), (4,), ((0, 1),), "band row")
        >>> nest = m.nest(isl.Set("{S[i, j]: 0 <= i < 8 and 0 <= j < 3}"), [4])
        >>> [(x.dim, x.size, x.spatial) for x in nest.levels[0].loops]
        [('i', 2, None), ('i', 4, 0), ('j', 3, None)]
        """
        space_stamp, time_stamp = stamp_texts(
            self.statement, self.loops, self.pe_text, self.time_text
        )
        return from_stamps(
            Stamps(space_stamp, time_stamp, {}),
            domain,
            ["dram"],
            pe_extents=pe_extents,
            source=self.name,
        )


def _grouped(text: str) -> str:
    return f"({text})" if " " in text else text


def _rank(rows: Sequence[Vector]) -> int:
    if not rows:
        return 0
    return len(rows[0]) - len(nullspace(rows, len(rows[0])))


def _strict(dependences: Sequence[DependencePolyhedron], row: Vector) -> bool:
    return all(restrict_delta(d.relation, row, "<=").is_empty() for d in dependences)


def time_candidates(
    schedule: Schedule, dependences: Sequence[DependencePolyhedron]
) -> list[tuple[str, Vector]]:
    """Return the time hyperplanes to try, each with its origin: the time hyperplane (when one
    exists), the sum of the outermost band's rows, and each row of that band that alone runs
    every dependence strictly forward."""
    found: list[tuple[str, Vector]] = []
    try:
        found.append(("time hyperplane", time_hyperplane(schedule.domain, dependences).c))
    except SchedulingError:
        pass
    band = [row.c for row in schedule.bands[0].rows]
    found.append(("band sum", tuple(sum(column) for column in zip(*band, strict=True))))
    found += [("band row", row) for row in band if _strict(dependences, row)]
    unique: dict[Vector, str] = {}
    for origin, row in found:
        unique.setdefault(row, origin)
    return [(origin, row) for row, origin in unique.items()]


def _range(domain: isl.Set, row: Vector, loops: Sequence[str]) -> tuple[int, int]:
    name = domain.get_tuple_name() or STATEMENT
    text = f"{{ {name}[{', '.join(loops)}] -> [{hyperplane_text(row, loops)}] }}"
    values = isl.Map.read_from_str(domain.get_ctx(), text).intersect_domain(domain).range()
    low, high = values.dim_min_val(0), values.dim_max_val(0)
    return int(low.to_python()), int(high.to_python())


def _pe_sizes(pe_set: isl.Set) -> tuple[int, ...]:
    return tuple(
        int(pe_set.dim_max_val(k).to_python()) - int(pe_set.dim_min_val(k).to_python()) + 1
        for k in range(pe_set.dim(isl.dim_type.set))
    )


def spacetime_mappings(
    workload: WorkloadSpec,
    architecture: ArchitectureSpec,
    params: Mapping[str, int] | None = None,
    *,
    reductions: Collection[TensorName] | None = None,
    reuse: bool = False,
) -> tuple[SpaceTimeMapping, ...]:
    """Return the legal space-time mappings of ``workload`` on ``architecture`` made from its
    schedule (found with the size parameters symbolic, bound to ``params`` over the workload's
    defaults for the mapping), in a deterministic order.

    Examples
    --------
    >>> from tenet.spec import load_workload, load_architecture
    >>> found = spacetime_mappings(load_workload("stencil-1d-steps"),
    ...                            load_architecture("systolic-1d-16"), {"N": 8})
    >>> [(m.origin, m.name) for m in found]  # doctest: +NORMALIZE_WHITESPACE
    [('time hyperplane', 'PE[i] T[i, i + j]'), ('time hyperplane', 'PE[i + j] T[i]'),
     ('band sum', 'PE[i] T[2i + j]'), ('band sum', 'PE[i + j] T[2i + j]')]
    """
    bound = Specs(workload, architecture, None, params or {}).bound
    symbolic = parametric_workload(workload)
    dependences = dependence_polyhedra(symbolic, reductions, reuse=reuse)
    schedule = find_schedule(symbolic.domain, dependences)
    model = Workload.from_spec(workload, bound)
    array = Architecture.from_spec(architecture, bound)
    sizes = _pe_sizes(array.pe_set)
    loops = schedule.loops
    band = [row.c for row in schedule.bands[0].rows]
    statement = model.domain.get_tuple_name() or STATEMENT
    chosen = model.reductions if reductions is None else tuple(reductions)
    found: dict[str, SpaceTimeMapping] = {}
    for origin, tau in time_candidates(schedule, dependences):
        for space in itertools.permutations(band, len(sizes)):
            if _rank(list(space)) < len(sizes):
                continue
            offsets, modulo = [], []
            for row, size in zip(space, sizes, strict=True):
                low, high = _range(model.domain, row, loops)
                offsets.append(low)
                modulo.append(None if high - low < size else size)
            time = [tau]
            for row in schedule.matrix:
                if _rank([*space, *time, row]) > _rank([*space, *time]):
                    time.append(row)
            mapping = SpaceTimeMapping(
                statement, loops, space, tuple(offsets), tuple(modulo), tuple(time), origin
            )
            if mapping.name in found:
                continue
            dataflow = Dataflow.from_spec(mapping.spec(), bound)
            if check_dataflow(model, array, dataflow, reductions=chosen).legal:
                found[mapping.name] = mapping
    return tuple(found.values())
