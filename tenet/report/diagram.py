"""Problem -> per-point DataFrames for the pictures of a dataflow: active PEs per time-stamp
(counted with barvinok on Θ's range) and, for small instances, the space-time diagram data
(the elements each PE holds at each time-stamp, enumerated point by point with isl's
``foreach_point`` from the data assignment and the neighbour relations)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING

import islpy as isl

from tenet.counting import count
from tenet.errors import SpecError
from tenet.model import Problem
from tenet.vocab import PE, TIME

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SPACE_TIME_COLUMNS", "space_time_table", "utilisation_table"]

Coordinates = tuple[int, ...]
_Point = tuple[Coordinates, Coordinates]

SPACE_TIME_COLUMNS: tuple[str, ...] = (
    "pe",
    "time",
    "pe_index",
    "step",
    "tensor",
    "access",
    "element",
    "reuse",
    "from_pe",
    "from_time",
)
"""Columns of :func:`space_time_table`."""


def _coordinates(point: isl.Point) -> Coordinates:
    n = point.get_space().dim(isl.dim_type.set)
    return tuple(int(point.get_coordinate_val(isl.dim_type.set, k).to_python()) for k in range(n))


def _points(points: isl.Set) -> list[Coordinates]:
    """Every point of a bounded set, in lexicographic order."""
    found: list[Coordinates] = []
    points.foreach_point(lambda p: found.append(_coordinates(p)))
    return sorted(found)


def _name(tuple_name: str, coordinates: Sequence[int]) -> str:
    return f"{tuple_name}[{', '.join(str(c) for c in coordinates)}]"


def _check_size(what: str, n: int, limit: int, option: str) -> None:
    if n > limit:
        raise SpecError(
            f"too large to draw: {n} {what} (at most {limit}); use smaller size "
            f"parameters or raise {option}"
        )


def utilisation_table(problem: Problem, max_timestamps: int = 100_000) -> pd.DataFrame:
    """Return the active PEs at each occupied time-stamp, in lexicographic order.

    Exact: the map time-stamp -> PEs running an instance there (the range of Θ, reversed) is
    counted per time-stamp with barvinok (``card``), and that count is evaluated at every
    occupied time-stamp, enumerated with isl's ``foreach_point``. Columns: ``step`` (position
    of the time-stamp among the occupied ones), ``time`` (``T[...]``), ``active_pes`` (PEs),
    ``pe_count`` (PEs of the array) and ``utilisation`` (active / all PEs, a ratio).

    Raises
    ------
    SpecError
        More than ``max_timestamps`` occupied time-stamps.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> p = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic",
    ...                  params={"M": 2, "N": 2, "K": 4})
    >>> # PE[i,j] runs at T[0, 0, i+j+k], 0 <= k < 4: PEs active at t = 0..5 are 1, 3, 4, 4, 3, 1
    >>> utilisation_table(p)["active_pes"].tolist()
    [1, 3, 4, 4, 3, 1]
    """
    _check_size("occupied time-stamps", count(problem.timestamps), max_timestamps, "the limit")
    per_time = problem.occupied.unwrap().reverse().card()
    counts: list[tuple[Coordinates, int]] = []
    problem.timestamps.foreach_point(
        lambda p: counts.append((_coordinates(p), int(per_time.eval(p).to_python())))
    )
    counts.sort()
    pe_count = count(problem.architecture.pe_set)
    import pandas as pd

    return pd.DataFrame(
        {
            "step": range(len(counts)),
            "time": [_name(TIME, t) for t, _ in counts],
            "active_pes": [n for _, n in counts],
            "pe_count": pe_count,
            "utilisation": [n / pe_count for _, n in counts],
        }
    )


def _neighbour_pairs(relation: isl.Map, occupied: isl.Set, n_pe: int) -> dict[_Point, list[_Point]]:
    """Occupied point -> the occupied points it can take data from, per the relation."""
    pairs: dict[_Point, list[_Point]] = defaultdict(list)
    within = relation.intersect_domain(occupied).intersect_range(occupied)
    for c in _points(within.wrap()):
        half = len(c) // 2
        pairs[(c[:n_pe], c[n_pe:half])].append((c[half : half + n_pe], c[half + n_pe :]))
    return pairs


def space_time_table(
    problem: Problem, max_points: int = 256, max_elements: int = 4096
) -> pd.DataFrame:
    """Return the data of the space-time diagram: one row per (PE, time-stamp, element held).

    Enumerated exactly with isl's ``foreach_point`` on the data assignment Θ⁻¹∘A of each
    analysed access (:meth:`~tenet.model.Problem.assignment`); rows and columns of the
    diagram are the active PEs and the occupied time-stamps, each in lexicographic order
    (``pe_index``, ``step``). ``reuse`` says where the point gets the element: ``temporal``
    when the same PE held it at the previous occupied time-stamp
    (:attr:`~tenet.model.spacetime.Neighbours.temporal`), else ``spatial`` when a linked PE held
    it at the link's delay (:attr:`~tenet.model.spacetime.Neighbours.spatial`; ``from_pe`` and
    ``from_time`` name that point, the first in order when several do), else ``none``
    (brought from the scratchpad, or produced there for an output).

    Raises
    ------
    SpecError
        More than ``max_points`` occupied (PE, time-stamp) points, or more than
        ``max_elements`` (point, element) pairs: too large to draw.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> sizes = {"M": 2, "N": 2, "K": 4}
    >>> t = space_time_table(load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic", sizes))
    >>> # PE[0, 1] at t = 2 runs k = 1: A[0, 1] comes from PE[0, 0], B[1, 1] from the scratchpad
    >>> cell = t[(t.pe == "PE[0, 1]") & (t.time == "T[0, 0, 2]")]
    >>> for row in cell[["element", "reuse", "from_pe"]].fillna("-").values.tolist():
    ...     print(*row)
    A[0, 1] spatial PE[0, 0]
    B[1, 1] none -
    C[0, 1] temporal PE[0, 1]
    """
    occupied = problem.occupied
    _check_size("space-time points", count(occupied), max_points, "max_points")
    assignments = [(a, problem.assignment(a)) for a in problem.accesses]
    held_pairs = sum(count(da) for _, da in assignments)
    _check_size("(point, element) pairs", held_pairs, max_elements, "max_elements")
    n_pe = problem.active_pes.dim(isl.dim_type.set)
    n_time = problem.timestamps.dim(isl.dim_type.set)
    pe_index = {pe: k for k, pe in enumerate(_points(problem.active_pes))}
    step = {t: k for k, t in enumerate(_points(problem.timestamps))}
    held: dict[tuple[_Point, int], set[Coordinates]] = defaultdict(set)
    for k, (_, da) in enumerate(assignments):
        for c in _points(da.wrap()):
            held[((c[:n_pe], c[n_pe : n_pe + n_time]), k)].add(c[n_pe + n_time :])
    temporal = _neighbour_pairs(problem.neighbours.temporal, occupied, n_pe)
    spatial = _neighbour_pairs(problem.neighbours.spatial, occupied, n_pe)

    def order(point: _Point) -> tuple[int, int]:
        return pe_index[point[0]], step[point[1]]

    rows = []
    for (point, k), elements in sorted(
        held.items(), key=lambda item: (order(item[0][0]), item[0][1])
    ):
        access = assignments[k][0]
        for element in sorted(elements):
            reuse, source = "none", None
            for kind, neighbours in (("temporal", temporal), ("spatial", spatial)):
                sources = [n for n in neighbours.get(point, []) if element in held.get((n, k), ())]
                if sources:
                    reuse, source = kind, min(sources, key=order)
                    break
            rows.append(
                (
                    _name(PE, point[0]),
                    _name(TIME, point[1]),
                    pe_index[point[0]],
                    step[point[1]],
                    access.tensor,
                    access.access,
                    _name(access.tensor, element),
                    reuse,
                    _name(PE, source[0]) if source else None,
                    _name(TIME, source[1]) if source else None,
                )
            )
    import pandas as pd

    return pd.DataFrame(rows, columns=list(SPACE_TIME_COLUMNS))
