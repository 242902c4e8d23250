"""Pluto-style affine schedules of one statement, hyperplane by hyperplane, solved with isl.

A hyperplane ``φ(x) = c·x`` (``c >= 0``, integers) is looked for with

- *legality*: ``φ(sink) - φ(source) >= 0`` on every dependence polyhedron not satisfied by an
  earlier band, linearised by the affine form of Farkas' lemma (:mod:`.farkas`);
- a *bounding function*: ``u·N + w - (φ(sink) - φ(source)) >= 0`` on the same polyhedra
  (``N`` the size parameters, ``u, w >= 0``), which bounds the reuse distance;
- *non-triviality*: ``Σc >= 1``, and linear independence from the rows found: some vector
  ``r`` of the orthogonal complement of those rows has ``r·c != 0`` (a union of half-spaces,
  exact for integer ``c``);

and the objective is the lexicographic minimum of ``(u, w, c)`` (``c`` read from the innermost
loop outwards, so that ties keep the original loop order), found by isl's ``lexmin`` on the
constraint set as an isl set over the unknowns. Rows found against the same dependences form a
permutable band (any order of its rows, any tiling, is legal); when no further row exists the
dependences the band satisfies (strictly, at some row) are removed and a new band starts. With
one statement a new band always has a row (the first unit vector outside the rows found is
legal for what is left, which is lexicographically positive), so no distribution is needed; a
row that is the unit vector of a loop of constant extent (a statement index such as ``s`` in
``S[t, s, i]``) is shown as a scalar dimension (a sequence).

:func:`time_hyperplane` asks for a single row with ``φ(sink) - φ(source) >= 1`` on every
dependence: the time of a systolic array, every other dimension being free for space.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property

import islpy as isl

from tenet.errors import TenetError
from tenet.schedule.dependences import DependencePolyhedron
from tenet.schedule.farkas import AffineForm, farkas_constraints
from tenet.vocab import STATEMENT

__all__ = [
    "Row",
    "PermutableBand",
    "Schedule",
    "SchedulingError",
    "find_schedule",
    "time_hyperplane",
    "hyperplane_text",
    "nullspace",
    "restrict_delta",
]


class SchedulingError(TenetError):
    """No hyperplane meets the constraints (e.g. no single time hyperplane exists)."""


@dataclass(frozen=True)
class Row:
    """One hyperplane ``φ(x) = Σ c_k x_k``, the bound ``u·N + w`` of its dependence distances,
    and the dependences it carries (satisfied strictly at this row, equal at the rows before it
    in its band)."""

    c: tuple[int, ...]
    u: tuple[int, ...]
    w: int
    carried: tuple[str, ...] = ()
    scalar: bool = False
    """A unit vector on a loop of constant extent: a sequence rather than a loop."""


@dataclass(frozen=True)
class PermutableBand:
    """Consecutive rows found against the same dependences: permutable (tileable)."""

    rows: tuple[Row, ...]
    satisfied: tuple[str, ...]
    """Dependences every point of which the band satisfies (none is left for later bands)."""


@dataclass(frozen=True)
class Schedule:
    """A schedule of the statement's loops: bands of hyperplanes, outermost first."""

    loops: tuple[str, ...]
    params: tuple[str, ...]
    domain: isl.Set
    bands: tuple[PermutableBand, ...]
    dependences: tuple[DependencePolyhedron, ...] = field(repr=False)

    @property
    def rows(self) -> tuple[Row, ...]:
        """Every row, outermost first."""
        return tuple(row for band in self.bands for row in band.rows)

    @property
    def matrix(self) -> tuple[tuple[int, ...], ...]:
        """The transformation matrix T (one row per hyperplane)."""
        return tuple(row.c for row in self.rows)

    @cached_property
    def map(self) -> isl.Map:
        """The schedule as an isl map ``S[loops] -> [φ_1, φ_2, ...]`` on the domain."""
        name = self.domain.get_tuple_name() or STATEMENT
        dims = ", ".join(hyperplane_text(c, self.loops) for c in self.matrix)
        head = f"[{', '.join(self.params)}] -> " if self.params else ""
        text = f"{head}{{ {name}[{', '.join(self.loops)}] -> [{dims}] }}"
        return isl.Map.read_from_str(self.domain.get_ctx(), text).intersect_domain(self.domain)

    def tree(self) -> str:
        """The schedule as a schedule-tree-like text: the domain, then bands and sequences."""
        lines = [f"domain: {self.domain}"]
        depth = 0
        for number, band in enumerate(self.bands):
            pad = "  " * (number + 1)
            kind = "permutable band" if len(band.rows) > 1 else "band"
            lines.append(f"{pad}{kind} {number} ({len(band.rows)} row(s))")
            for row in band.rows:
                what = "sequence" if row.scalar else "loop"
                carried = ", ".join(row.carried) or "-"
                lines.append(
                    f"{pad}  {what} {depth}: {hyperplane_text(row.c, self.loops)}  "
                    f"(u, w, c) = {_uwc(row)}  carries: {carried}"
                )
                depth += 1
            lines.append(f"{pad}  satisfies: {', '.join(band.satisfied) or '-'}")
        return "\n".join(lines)


def _uwc(row: Row) -> str:
    u = row.u[0] if len(row.u) == 1 else row.u
    return f"({u}, {row.w}, {row.c})"


def hyperplane_text(c: Sequence[int], loops: Sequence[str]) -> str:
    """Return ``Σ c_k loops_k`` as text, e.g. ``2t + i``.

    Examples
    --------
    >>> hyperplane_text((2, 0, 1), ("t", "s", "i")), hyperplane_text((0, 0), ("i", "j"))
    ('2t + i', '0')
    """
    terms = []
    for coefficient, loop in zip(c, loops, strict=True):
        if coefficient == 0:
            continue
        magnitude = "" if abs(coefficient) == 1 else str(abs(coefficient))
        sign = "-" if coefficient < 0 else "+"
        terms.append((sign, f"{magnitude}{loop}" if magnitude.isdigit() else loop))
    text = ""
    for sign, term in terms:
        text = (f"-{term}" if sign == "-" else term) if not text else f"{text} {sign} {term}"
    return text or "0"


# -- the integer program ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Unknowns:
    """The unknowns ``(u_1..u_k, w, c_m..c_1)`` in lexmin order."""

    loops: int
    params: int

    @property
    def names(self) -> list[str]:
        return (
            [f"u{p}" for p in range(self.params)]
            + ["w"]
            + [f"c{k}" for k in reversed(range(self.loops))]
        )

    @property
    def size(self) -> int:
        return self.params + 1 + self.loops

    def c(self, k: int) -> int:
        """Position of ``c_k``."""
        return self.params + 1 + (self.loops - 1 - k)

    def unit(self, position: int, scale: int = 1) -> tuple[int, ...]:
        values = [0] * (self.size + 1)
        values[position] = scale
        return tuple(values)

    def constant(self, value: int) -> tuple[int, ...]:
        return tuple([0] * self.size + [value])


def _forms(unknowns: _Unknowns, piece: isl.BasicSet, strict: bool) -> tuple[AffineForm, AffineForm]:
    """The legality form ``δ - strict`` and the bounding form ``u·N + w - δ`` on ``piece``
    (lifted wrapped relation: source dims, sink dims, locals, then parameters)."""
    m = unknowns.loops
    n_set = piece.dim(isl.dim_type.set)
    n_par = piece.dim(isl.dim_type.param)
    zero = unknowns.constant(0)
    legality: list[tuple[int, ...]] = [zero] * (n_set + n_par)
    bounding: list[tuple[int, ...]] = [zero] * (n_set + n_par)
    for k in range(m):
        legality[k] = unknowns.unit(unknowns.c(k), -1)
        legality[m + k] = unknowns.unit(unknowns.c(k), 1)
        bounding[k] = unknowns.unit(unknowns.c(k), 1)
        bounding[m + k] = unknowns.unit(unknowns.c(k), -1)
    for p in range(n_par):
        bounding[n_set + p] = unknowns.unit(p)
    return (
        (tuple(legality), unknowns.constant(-1 if strict else 0)),
        (tuple(bounding), unknowns.unit(unknowns.params)),
    )


def _pieces(relation: isl.Map, params: Sequence[str]) -> list[isl.BasicSet]:
    wrapped = relation.wrap().align_params(_param_space(relation.get_ctx(), params))
    return [piece.lift() for piece in wrapped.get_basic_sets() if not piece.is_empty()]


def _param_space(ctx: isl.Context, params: Sequence[str]) -> isl.Space:
    space = isl.Space.params_alloc(ctx, len(params))
    for k, name in enumerate(params):
        space = space.set_dim_name(isl.dim_type.param, k, name)
    return space


def nullspace(rows: Sequence[Sequence[int]], m: int) -> list[tuple[int, ...]]:
    """Return an integer basis of the vectors of length ``m`` orthogonal to every row of
    ``rows``.

    Examples
    --------
    >>> nullspace([(1, 0, 0), (1, 1, 0)], 3)
    [(0, 0, 1)]
    """
    matrix = [[Fraction(v) for v in row] for row in rows]
    pivots: list[int] = []
    r = 0
    for col in range(m):
        pivot = next((i for i in range(r, len(matrix)) if matrix[i][col] != 0), None)
        if pivot is None:
            continue
        matrix[r], matrix[pivot] = matrix[pivot], matrix[r]
        matrix[r] = [v / matrix[r][col] for v in matrix[r]]
        for i in range(len(matrix)):
            if i != r and matrix[i][col] != 0:
                factor = matrix[i][col]
                matrix[i] = [a - factor * b for a, b in zip(matrix[i], matrix[r], strict=True)]
        pivots.append(col)
        r += 1
    basis = []
    for free in (col for col in range(m) if col not in pivots):
        vector = [Fraction(0)] * m
        vector[free] = Fraction(1)
        for i, col in enumerate(pivots):
            vector[col] = -matrix[i][free]
        scale = math.lcm(*(v.denominator for v in vector))
        basis.append(tuple(int(v * scale) for v in vector))
    return basis


def _solve(
    relations: Sequence[isl.Map],
    found: Sequence[tuple[int, ...]],
    loops: int,
    params: Sequence[str],
    ctx: isl.Context,
    strict: bool = False,
) -> Row | None:
    """The lexicographically least (u, w, c) of a row for ``relations``, independent of
    ``found``; None when there is none."""
    unknowns = _Unknowns(loops, len(params))
    names = unknowns.names
    c_names = [names[unknowns.c(k)] for k in range(loops)]
    bounds = " and ".join(f"{n} >= 0" for n in names)
    text = f"{{ [{', '.join(names)}] : {bounds} and {' + '.join(c_names)} >= 1 }}"
    feasible = isl.Set.read_from_str(ctx, text)
    for relation in relations:
        for piece in _pieces(relation, params):
            for form in _forms(unknowns, piece, strict):
                feasible = feasible.intersect(farkas_constraints(piece, form, names, ctx))
    if found:
        sides = []
        for r in nullspace(found, loops):
            dot = " + ".join(f"{a}*{n}" for a, n in zip(r, c_names, strict=True) if a)
            sides += [f"{dot} >= 1", f"{dot} <= -1"]
        independent = isl.Set.read_from_str(
            ctx, f"{{ [{', '.join(names)}] : {' or '.join(sides)} }}"
        )
        feasible = feasible.intersect(independent)
    if feasible.is_empty():
        return None
    point = feasible.lexmin().sample_point()
    values = [
        int(point.get_coordinate_val(isl.dim_type.set, k).to_python()) for k in range(unknowns.size)
    ]
    return Row(
        c=tuple(values[unknowns.c(k)] for k in range(loops)),
        u=tuple(values[: len(params)]),
        w=values[len(params)],
    )


def restrict_delta(relation: isl.Map, c: Sequence[int], op: str) -> isl.Map:
    """Return ``relation`` restricted to the pairs with ``c·(sink - source) op 0``.

    Examples
    --------
    >>> restrict_delta(isl.Map("{S[i] -> S[j]: 0 <= i < j < 3}"), (1,), "=").is_empty()
    True
    """
    m = len(c)
    source = [f"x{k}" for k in range(m)]
    sink = [f"y{k}" for k in range(m)]
    delta = " + ".join(f"{a}*(y{k} - x{k})" for k, a in enumerate(c) if a) or "0"
    name = relation.get_tuple_name(isl.dim_type.in_) or STATEMENT
    text = f"{{ {name}[{', '.join(source)}] -> {name}[{', '.join(sink)}] : {delta} {op} 0 }}"
    return relation.intersect(isl.Map.read_from_str(relation.get_ctx(), text))


def _loops(domain: isl.Set) -> tuple[str, ...]:
    return tuple(
        domain.get_dim_name(isl.dim_type.set, k) or f"i{k}"
        for k in range(domain.dim(isl.dim_type.set))
    )


def _constant_extent(domain: isl.Set) -> list[bool]:
    """Whether each loop of ``domain`` has an extent that does not depend on the parameters."""
    out = []
    for k in range(domain.dim(isl.dim_type.set)):
        low, high = domain.dim_min(k), domain.dim_max(k)
        out.append(low.is_cst() and high.is_cst())
    return out


def _carried(
    dependences: Sequence[DependencePolyhedron],
    relations: Sequence[isl.Map],
    band: Sequence[Row],
    row: Row,
) -> tuple[str, ...]:
    names = []
    for dependence, relation in zip(dependences, relations, strict=True):
        kept = relation
        for earlier in band:
            kept = restrict_delta(kept, earlier.c, "=")
        if not restrict_delta(kept, row.c, ">").is_empty():
            names.append(dependence.name)
    return tuple(dict.fromkeys(names))


def find_schedule(domain: isl.Set, dependences: Sequence[DependencePolyhedron]) -> Schedule:
    """Find a full-rank schedule of the statement with iteration ``domain`` (size parameters
    symbolic) that keeps ``dependences``, band by band.

    Examples
    --------
    The statement ``a[i+1][j] = f(a[i][j-1], a[i][j], a[i][j+1])``, dependences
    ``{(1, -1), (1, 0), (1, 1)}``:

    >>> from tenet.schedule.dependences import DependencePolyhedron
    >>> d = isl.Set("[N] -> {S[i, j]: 0 <= i < N and 0 <= j < N}")
    >>> flow = isl.Map("[N] -> {S[i, j] -> S[i + 1, y]: j - 1 <= y <= j + 1}")
    >>> s = find_schedule(d, [DependencePolyhedron("flow", "a", flow.intersect_domain(d)
    ...     .intersect_range(d))])
    >>> [(r.u, r.w, r.c) for r in s.rows]
    [((0,), 1, (1, 0)), ((0,), 2, (1, 1))]
    >>> s.map
    Map("[N] -> { S[i, j] -> [i, i + j] : 0 <= i < N and 0 <= j < N }")
    """
    ctx = domain.get_ctx()
    loops = _loops(domain)
    params = tuple(str(n) for n in domain.get_var_names(isl.dim_type.param))
    for dependence in dependences:
        for name in dependence.relation.get_var_names(isl.dim_type.param):
            if str(name) not in params:
                params = (*params, str(name))
    scalar = _constant_extent(domain)
    m = len(loops)
    relations = [d.relation for d in dependences]
    live = list(range(len(dependences)))
    bands: list[PermutableBand] = []
    rows: list[tuple[int, ...]] = []
    while len(rows) < m:
        band: list[Row] = []
        current = [relations[k] for k in live]
        while len(rows) + len(band) < m:
            row = _solve(current, [*rows, *(r.c for r in band)], m, params, ctx)
            if row is None:
                break
            unit = sum(1 for v in row.c if v) == 1 and sum(row.c) == 1
            carried = _carried([dependences[k] for k in live], current, band, row)
            band.append(Row(row.c, row.u, row.w, carried, unit and scalar[row.c.index(1)]))
        assert band, "a unit vector outside the rows found is always legal"
        rest = []
        for k in live:
            kept = relations[k]
            for row in band:
                kept = restrict_delta(kept, row.c, "=")
            relations[k] = kept
            if not kept.is_empty():
                rest.append(k)
        satisfied = tuple(dependences[k].name for k in live if k not in rest)
        bands.append(PermutableBand(tuple(band), tuple(dict.fromkeys(satisfied))))
        rows += [r.c for r in band]
        live = rest
    return Schedule(loops, params, domain, tuple(bands), tuple(dependences))


def time_hyperplane(domain: isl.Set, dependences: Sequence[DependencePolyhedron]) -> Row:
    """Return the lexicographically least (u, w, c) of a hyperplane with
    ``φ(sink) - φ(source) >= 1`` on every dependence: one time dimension that runs every
    dependent pair in order, leaving the other dimensions to space.

    Raises
    ------
    SchedulingError
        When no such hyperplane exists (some dependence needs more than one time dimension).

    Examples
    --------
    GEMM with the reuse chains of A, B and C as dependences ((0,1,0), (1,0,0), (0,0,1)):

    >>> from tenet.schedule.dependences import DependencePolyhedron
    >>> d = isl.Set("[M, N, K] -> {S[i, j, k]: 0 <= i < M and 0 <= j < N and 0 <= k < K}")
    >>> steps = ["i, j + 1, k", "i + 1, j, k", "i, j, k + 1"]
    >>> deps = [DependencePolyhedron("reuse", t, isl.Map(f"{{S[i, j, k] -> S[{s}]}}")
    ...     .intersect_domain(d).intersect_range(d)) for t, s in zip("ABC", steps)]
    >>> row = time_hyperplane(d, deps)
    >>> row.u, row.w, row.c
    ((0, 0, 0), 1, (1, 1, 1))
    """
    loops = _loops(domain)
    params = tuple(str(n) for n in domain.get_var_names(isl.dim_type.param))
    relations = [d.relation for d in dependences]
    row = _solve(relations, [], len(loops), params, domain.get_ctx(), strict=True)
    if row is None:
        raise SchedulingError(
            "no single time hyperplane (with non-negative coefficients) runs every "
            "dependence forward"
        )
    return row
