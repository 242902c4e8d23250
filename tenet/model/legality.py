"""Legality of a dataflow: is Θ a valid schedule of the workload on the array?

Checked with isl on the model objects, every failure named with a witness:

- *coverage*, *function*, *array*: every instance of the domain gets one space-stamp, on a PE
  of the array, and one time-stamp (:mod:`tenet.model.placement`, shared with
  :class:`~tenet.model.problem.Problem`);
- *collision*: at most ``instances_per_step`` instances share a (PE, time-stamp) (the array runs
  that many per step; 1 unless it says otherwise). The largest number per (PE, time-stamp)
  comes from barvinok's count of the instances of each (PE, time-stamp), maximised piece by
  piece: read off where constant, by integer programming where quasi-affine; other pieces
  are bounded, and walked only on the dimensions they involve when the bound is too high;
- *dependence*: the memory-based dependences of the workload, in the program order of the
  domain (lexicographic), are kept: flow (write then read of an element), anti (read then
  write) and output (write then write). The sink must run at a later time-stamp than the
  source, or at the same (PE, time-stamp), where a PE runs its instances in program order.
  Tensors listed as reductions (``+=``) carry no dependence: their updates may be reordered.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal, cast

import islpy as isl

from tenet.errors import CountingError, UnknownTensorError
from tenet.isl_utils import point_text, witness
from tenet.model.architecture import Architecture
from tenet.model.dataflow import Dataflow
from tenet.model.placement import placement_errors, witness_pair
from tenet.model.workload import Workload
from tenet.vocab import TensorName

__all__ = [
    "Violation",
    "Legality",
    "Dependence",
    "dependences",
    "check_dependences",
    "check_dataflow",
]

ViolationKind = Literal["coverage", "function", "array", "collision", "dependence"]
DependenceKind = Literal["flow", "anti", "output"]


@dataclass(frozen=True)
class Violation:
    """One failed condition of a dataflow on its workload and architecture."""

    kind: ViolationKind
    """Which condition failed: coverage, function, array, collision or dependence."""
    message: str
    """The failure in words, with a witness point or relation."""


@dataclass(frozen=True)
class Legality:
    """The outcome of a legality check: legal when there is no violation."""

    dataflow: str
    violations: tuple[Violation, ...]

    @property
    def legal(self) -> bool:
        """Whether the dataflow passed every check."""
        return not self.violations

    def __str__(self) -> str:
        if self.legal:
            return f"{self.dataflow}: legal"
        lines = [f"{self.dataflow}: {len(self.violations)} violation(s)"]
        lines += [f"  {v.kind}: {v.message}" for v in self.violations]
        return "\n".join(lines)


@dataclass(frozen=True)
class Dependence:
    """Pairs source -> sink of instances (source first in program order) that touch the same
    element of ``tensor``, ``source_access`` by the source and ``sink_access`` by the sink."""

    kind: DependenceKind
    tensor: TensorName
    relation: isl.Map

    @property
    def source_access(self) -> str:
        """What the source does to the element: ``reads`` or ``writes``."""
        return "reads" if self.kind == "anti" else "writes"

    @property
    def sink_access(self) -> str:
        """What the sink does to the element."""
        return "reads" if self.kind == "flow" else "writes"


def _accesses(workload: Workload, tensor: TensorName, access: str) -> isl.Map | None:
    return (workload.reads if access == "reads" else workload.writes).get(tensor)


def dependences(
    workload: Workload, reductions: Collection[TensorName] = ()
) -> tuple[Dependence, ...]:
    """Return the non-empty flow, anti and output dependences of ``workload``, leaving out the
    tensors in ``reductions``.

    Raises
    ------
    UnknownTensorError
        A reduction that names no tensor of the workload.

    Examples
    --------
    >>> from tenet.spec import load_workload
    >>> gemm = Workload.from_spec(load_workload("gemm"), {"M": 2, "N": 2, "K": 2})
    >>> [(d.kind, d.tensor) for d in dependences(gemm)]
    [('output', 'C')]
    >>> dependences(gemm, reductions=["C"])
    ()
    """
    for name in reductions:
        if name not in workload.tensors:
            raise UnknownTensorError(name, workload.tensors, source=workload.source)
    domain = workload.domain
    before = domain.lex_lt_set(domain)
    found = []
    for tensor in workload.tensors:
        if tensor in reductions:
            continue
        kinds: tuple[tuple[DependenceKind, str, str], ...] = (
            ("flow", "writes", "reads"),
            ("anti", "reads", "writes"),
            ("output", "writes", "writes"),
        )
        for kind, first, then in kinds:
            source = _accesses(workload, tensor, first)
            sink = _accesses(workload, tensor, then)
            if source is None or sink is None:
                continue
            relation = source.apply_range(sink.reverse()).intersect(before)
            if not relation.is_empty():
                found.append(Dependence(kind, tensor, relation.coalesce()))
    return tuple(found)


def _at(theta: isl.Map, instance: isl.Set) -> str:
    return witness(theta.intersect_domain(instance).range())


def _placement(
    workload: Workload, dataflow: Dataflow, architecture: Architecture
) -> list[Violation]:
    return [
        Violation(cast(ViolationKind, error.kind), error.reason)
        for error in placement_errors(
            workload.domain, dataflow.space_stamp, dataflow.time_stamp, architecture.pe_set
        )
    ]


def _collisions(space_time: isl.Map, per_step: int) -> list[Violation]:
    """Report the (PE, time-stamp) running the most instances when it exceeds ``per_step``,
    with two (per_step = 1) or three of its instances as witnesses."""
    if space_time.is_injective():
        return []
    crowded = [
        found
        for piece, count in space_time.reverse().card().get_pieces()
        if (found := _crowded_point(piece, count, per_step)) is not None
    ]
    if not crowded:
        return []
    point, number = max(crowded, key=lambda found: found[1])
    if per_step == 1:
        domain = space_time.domain()
        pairs = space_time.apply_range(space_time.reverse()).intersect(domain.lex_lt_set(domain))
        a, b = witness_pair(pairs)
        at = _at(space_time, a)[1:-1].split(" -> ")
        message = (
            f"{witness(a)} and {witness(b)} both run on {at[0]} at {at[1]} "
            f"(up to {number} instances per PE and time-stamp)"
        )
    else:
        where = point_text(point)[1:-1].split(" -> ")
        instances = space_time.intersect_range(isl.Set.from_point(point)).domain()
        shown = ", ".join(point_text(p) for p in _points(instances, 3))
        message = (
            f"{where[0]} at {where[1]} runs {number} instances ({shown}, ...), more than the "
            f"{per_step} per step the array allows"
        )
    return [Violation("collision", message)]


#: The most points of one piece of the per-(PE, time-stamp) count that the collision check
#: walks when the count is neither constant nor quasi-affine on the piece.
WALK_LIMIT = 200_000


def _crowded_point(
    piece: isl.Set, count: isl.QPolynomial, per_step: int
) -> tuple[isl.Point, int] | None:
    """Return a (PE, time-stamp) point of ``piece`` running more than ``per_step`` instances
    and how many, or None.

    A constant count is read off; a quasi-affine count (affine in the dimensions and in floors
    of them) is maximised over the integer points of the piece by isl, with the floors lifted
    to existential variables; any other count is bounded above by barvinok and, when the bound
    exceeds ``per_step``, evaluated point by point (at most :data:`WALK_LIMIT` points).

    Raises
    ------
    CountingError
        A count that is not quasi-affine, may exceed ``per_step`` and has too many points to
        walk.
    """
    if not count.involves_dims(isl.dim_type.in_, 0, count.dim(isl.dim_type.in_)):
        value = int(count.get_constant_val().to_python())
        return (piece.sample_point(), value) if value > per_step else None
    if count.isa_aff():
        # isl maximises integer expressions: scale a count with rational coefficients (an
        # integer on the piece, such as (1 + i) / 2 on odd i) by their common denominator
        aff = count.as_aff()
        denominator = aff.get_denominator_val()
        aff = aff.scale_val(denominator)
        largest = piece.max_val(aff)
        if largest.is_int():
            value = int(largest.to_python()) // int(denominator.to_python())
            if value <= per_step:
                return None
            at_largest = isl.PwAff(aff).eq_set(
                isl.PwAff(isl.Aff.val_on_domain(aff.get_domain_space(), largest))
            )
            return piece.intersect(at_largest).sample_point(), value
    bound, _ = isl.PwQPolynomial.from_qpolynomial(count).intersect_domain(piece).bound(isl.fold.max)
    folds: list[isl.QPolynomialFold] = []
    bound.foreach_piece(lambda _, fold: folds.append(fold))
    if all(_fold_at_most(fold, per_step) for fold in folds):
        return None
    return _walk(piece, count, per_step)


def _fold_at_most(fold: isl.QPolynomialFold, per_step: int) -> bool:
    """Whether every member of a constant ``fold`` is at most ``per_step`` (False when some
    member is not constant)."""
    found: list[isl.QPolynomial] = []
    fold.foreach_qpolynomial(found.append)
    return all(
        not q.involves_dims(isl.dim_type.in_, 0, q.dim(isl.dim_type.in_))
        and q.get_constant_val().le(isl.Val.int_from_si(q.get_ctx(), per_step))
        for q in found
    )


def _walk(piece: isl.Set, count: isl.QPolynomial, per_step: int) -> tuple[isl.Point, int] | None:
    """Evaluate ``count`` at every point of ``piece`` projected on the dimensions it involves:
    return a point of the largest value above ``per_step`` and the value, or None."""
    n = piece.dim(isl.dim_type.set)
    involved = [k for k in range(n) if count.involves_dims(isl.dim_type.in_, k, 1)]
    shadow = piece.flatten()
    for k in reversed(range(n)):
        if k not in involved:
            shadow = shadow.project_out(isl.dim_type.set, k, 1)
    size = shadow.count_val()
    if not size.is_int() or size.gt(isl.Val.int_from_si(piece.get_ctx(), WALK_LIMIT)):
        raise CountingError(
            f"cannot bound the instances per PE and time-stamp exactly: {count} is not "
            f"quasi-affine and varies over more than {WALK_LIMIT} points"
        )
    zero = isl.Point.zero(piece.get_space())
    found: list[tuple[list[isl.Val], int]] = []

    def visit(point: isl.Point) -> None:
        values = [point.get_coordinate_val(isl.dim_type.set, j) for j in range(len(involved))]
        full = zero
        for k, v in zip(involved, values, strict=True):
            full = full.set_coordinate_val(isl.dim_type.set, k, v)
        value = int(count.eval(full).to_python())
        if value > per_step and (not found or value > found[0][1]):
            found[:] = [(values, value)]

    shadow.foreach_point(visit)
    if not found:
        return None
    values, value = found[0]
    at = piece
    for k, v in zip(involved, values, strict=True):
        at = at.fix_val(isl.dim_type.set, k, v)
    return at.sample_point(), value


def _points(points: isl.Set, limit: int) -> list[isl.Point]:
    found: list[isl.Point] = []
    rest = points
    while len(found) < limit and not rest.is_empty():
        point = rest.lexmin().sample_point()
        found.append(point)
        rest = rest.subtract(isl.Set.from_point(point))
    return found


def check_dependences(
    workload: Workload, dataflow: Dataflow, found: Collection[Dependence]
) -> list[Violation]:
    """Return the violations of the dependences ``found`` (from :func:`dependences`) by
    ``dataflow``, one witness per dependence and kind of failure."""
    domain = workload.domain
    space = dataflow.space_stamp.intersect_domain(domain)
    time = dataflow.time_stamp.intersect_domain(domain)
    out = []
    for dependence in found:
        out += _order(dependence, workload, space, time)
    return out


def _order(
    dependence: Dependence, workload: Workload, space: isl.Map, time: isl.Map
) -> list[Violation]:
    relation = dependence.relation
    late = relation.intersect(time.lex_gt_map(time))
    same_time = relation.intersect(time.apply_range(time.reverse()))
    apart = same_time.subtract(space.apply_range(space.reverse()))
    found = []
    for broken, together in ((late, False), (apart, True)):
        if broken.is_empty():
            continue
        source, sink = witness_pair(broken)
        first = _accesses(workload, dependence.tensor, dependence.source_access)
        then = _accesses(workload, dependence.tensor, dependence.sink_access)
        assert first is not None and then is not None
        element = witness(
            first.intersect_domain(source).range().intersect(then.intersect_domain(sink).range())
        )
        s, t = witness(source), witness(sink)
        if together:
            text = (
                f"{t} {dependence.sink_access} {element} on {_at(space, sink)} at "
                f"{_at(time, sink)}, the time-stamp at which {s} "
                f"{dependence.source_access} it on {_at(space, source)}"
            )
        else:
            text = (
                f"{t} {dependence.sink_access} {element} at {_at(time, sink)} before {s} "
                f"{dependence.source_access} it at {_at(time, source)}"
            )
        found.append(Violation("dependence", f"{text} ({dependence.kind} dependence)"))
    return found


def check_dataflow(
    workload: Workload,
    architecture: Architecture,
    dataflow: Dataflow,
    *,
    reductions: Collection[TensorName] | None = None,
    instances_per_step: int | None = None,
) -> Legality:
    """Check ``dataflow`` for ``workload`` on ``architecture``; collect every violation.

    ``reductions`` defaults to the workload's; ``instances_per_step`` to the architecture's.

    Dependences are checked only when the placement checks pass.

    Examples
    --------
    >>> from tenet.spec import load_workload, load_architecture, DataflowSpec
    >>> p = {"M": 2, "N": 2, "K": 2}
    >>> w = Workload.from_spec(load_workload("gemm"), p)
    >>> a = Architecture.from_spec(load_architecture("systolic-2d-8x8"), p)
    >>> d = Dataflow.from_spec(DataflowSpec.from_mapping({"name": "d",
    ...     "space_stamp": "{S[i,j,k] -> PE[i, j]}", "time_stamp": "{S[i,j,k] -> T[0]}"}), p)
    >>> [violation] = check_dataflow(w, a, d, reductions=["C"]).violations
    >>> print(violation.kind, violation.message.replace(" (", chr(10) + "("))
    collision S[0, 0, 0] and S[0, 0, 1] both run on PE[0, 0] at T[0]
    (up to 2 instances per PE and time-stamp)
    """
    found = _placement(workload, dataflow, architecture)
    if not found:
        domain = workload.domain
        space = dataflow.space_stamp.intersect_domain(domain)
        time = dataflow.time_stamp.intersect_domain(domain)
        per_step = instances_per_step or architecture.instances_per_step
        chosen = workload.reductions if reductions is None else reductions
        found += _collisions(space.range_product(time), per_step)
        found += check_dependences(workload, dataflow, dependences(workload, chosen))
    return Legality(dataflow.name, tuple(found))
