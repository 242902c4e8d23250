"""Layout-aware figures of a dataflow, exact with isl/barvinok: the layout relations composed
with the data assignment.

Per tensor access and time-stamp t, the elements *fetched* are those held at some (PE, t)
and not found at a neighbour (the unique volume's pairs), counted once per step. Their
addresses give

- transactions: the distinct lines touched, summed over the steps;
- bank conflicts: Σ_t (rows of the busiest bank touched at t - 1);
- cycles: Σ_t max(ceil(lines_t · transaction_width · bits / bandwidth), busiest_t) (whole
  lines cross the scratchpad port; a bank serves one row per cycle).

Along each PE's own sequence of accesses (all the elements it holds, in time order):

- use distance: |address - address of the PE's previous access|, its maximum and mean;
- line misses: lines touched at (PE, t) that the PE's previous access did not touch (a
  buffer of one access's lines per PE).

Tensors lie in separate regions and are fetched one after another: the layout-aware ingress
latency is Σ over read tensors of their cycles, plus the scratchpad latency - 1.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import islpy as isl

from tenet.counting import constant_pieces, count
from tenet.errors import CountingError, UnknownTensorError
from tenet.isl_utils import coalesce
from tenet.layout.relation import (
    Box,
    Layout,
    bank_map,
    bounding_box,
    build_layout,
    line_map,
)
from tenet.metrics.latency import ENUMERATION_LIMIT
from tenet.model.problem import Problem, TensorAccess
from tenet.spec.layout import ScratchpadSpec, TransformSpec
from tenet.vocab import Access, TensorName

__all__ = [
    "WALK_BELOW",
    "TensorLayoutFigures",
    "LayoutMetrics",
    "tensor_boxes",
    "build_layouts",
    "Transfer",
    "fetched_per_step",
    "line_cycles",
    "transfer_figures",
    "layout_figures",
    "evaluate_layout",
]


WALK_BELOW = 20_000
"""Fetched (time-stamp, element) pairs up to which per-step figures are found by walking the
points: on small problems that is much cheaper than barvinok's per-step counts."""


@dataclass(frozen=True)
class TensorLayoutFigures:
    """Layout figures of one tensor access (counts are exact ints)."""

    tensor: TensorName
    access: Access
    layout: str
    """The transforms, as text."""
    size: int
    """Words the layout occupies."""
    fetched: int
    """(time-stamp, element) pairs fetched from the scratchpad."""
    transactions: int
    """Σ_t distinct lines touched at t."""
    conflicts_bank: int
    """Σ_t (rows of the busiest bank at t - 1)."""
    cycles: int
    """Σ_t max(port cycles of the lines at t, rows of the busiest bank at t)."""
    misses_line: int
    """Lines a PE touches that its previous access did not."""
    distance_use_max: int
    """Largest address distance between consecutive accesses of one PE, in words."""
    distance_use_mean: Fraction
    """Mean of that distance over the pairs of consecutive accesses, in words."""


@dataclass(frozen=True)
class LayoutMetrics:
    """Layout figures of every analysed access and the layout-aware transfer latencies."""

    tensors: tuple[TensorLayoutFigures, ...]
    latency_ingress_layout: int
    """Cycles to fetch the read tensors: Σ cycles + latency - 1 (0 if nothing is read)."""
    latency_egress_layout: int
    """Cycles to store the written tensors, likewise."""
    scratchpad: ScratchpadSpec = field(default_factory=ScratchpadSpec)

    def rows(self) -> list[dict[str, object]]:
        """Return one dict per tensor access (the fields of :class:`TensorLayoutFigures`)."""
        return [
            {
                "tensor": t.tensor,
                "access": t.access,
                "layout": t.layout,
                "size": t.size,
                "fetched": t.fetched,
                "transactions": t.transactions,
                "conflicts_bank": t.conflicts_bank,
                "cycles": t.cycles,
                "misses_line": t.misses_line,
                "distance_use_max": t.distance_use_max,
                "distance_use_mean": t.distance_use_mean,
            }
            for t in self.tensors
        ]


def tensor_boxes(problem: Problem) -> dict[TensorName, Box]:
    """Return the bounding box of the elements each tensor's accesses touch."""
    elements: dict[TensorName, isl.Set] = {}
    for tensor, _, relation in problem.workload.accesses:
        touched = relation.intersect_domain(problem.workload.domain).range()
        elements[tensor] = elements[tensor].union(touched) if tensor in elements else touched
    return {tensor: bounding_box(coalesce(s)) for tensor, s in elements.items()}


def build_layouts(
    problem: Problem,
    layouts: Mapping[TensorName, Sequence[TransformSpec]],
    *,
    source: str | None = None,
    prefix: str = "layout",
) -> dict[TensorName, Layout]:
    """Build the layout of every tensor of ``problem`` (row-major when not in ``layouts``).

    Raises
    ------
    UnknownTensorError
        A layout for a tensor the workload does not have.
    """
    boxes = tensor_boxes(problem)
    for name in layouts:
        if name not in boxes:
            raise UnknownTensorError(name, boxes, source=source)
    return {
        tensor: build_layout(
            box, layouts.get(tensor, ()), source=source, location=f"{prefix}.{tensor}"
        )
        for tensor, box in boxes.items()
    }


def fetched_per_step(problem: Problem, access: TensorAccess) -> isl.Map:
    """Return T -> the elements fetched at that time-stamp (held at some PE and not found at
    a neighbour of the problem's neighbourhood)."""
    held = problem.assignment(access)
    found = held.intersect(problem.neighbours.reuse.apply_range(held))
    fetched = held.subtract(found)
    return coalesce(fetched.apply_domain(problem.occupied.unwrap().range_map()))


def _level_sets(per_point: isl.PwQPolynomial) -> list[tuple[isl.Set, int]] | None:
    """From a count over [T -> Bank], return (time-stamps, value) with the value the
    largest count over the banks at those time-stamps; None unless piecewise constant."""
    pieces = constant_pieces(per_point)
    if pieces is None:
        return None
    at_least: dict[int, isl.Set] = {}
    for value in sorted({n for _, n in pieces}):
        steps = [p.unwrap().domain() for p, n in pieces if n >= value]
        union = steps[0]
        for s in steps[1:]:
            union = union.union(s)
        at_least[value] = coalesce(union)
    values = sorted(at_least)
    levels = []
    for k, value in enumerate(values):
        exact = at_least[value]
        if k + 1 < len(values):
            exact = exact.subtract(at_least[values[k + 1]])
        levels.append((coalesce(exact), value))
    return levels


def _walk(lines: isl.Map, rows: isl.Map) -> tuple[dict[object, int], dict[object, int]]:
    """Walk T -> Line and [T -> Bank] -> Row: lines per step, busiest bank's rows per step."""
    n_time = lines.dim(isl.dim_type.in_)
    per_step: dict[object, int] = defaultdict(int)
    per_bank: dict[object, dict[object, int]] = defaultdict(lambda: defaultdict(int))

    def coordinates(point: isl.Point) -> tuple[int, ...]:
        n = point.get_space().dim(isl.dim_type.set)
        return tuple(
            int(point.get_coordinate_val(isl.dim_type.set, k).to_python()) for k in range(n)
        )

    def visit_line(point: isl.Point) -> None:
        per_step[coordinates(point)[:n_time]] += 1

    lines.wrap().flatten().foreach_point(visit_line)

    def visit_row(point: isl.Point) -> None:
        c = coordinates(point)
        per_bank[c[:n_time]][c[n_time]] += 1

    rows.wrap().flatten().foreach_point(visit_row)
    busiest = {t: max(banks.values()) for t, banks in per_bank.items()}
    return dict(per_step), busiest


def _steps(
    lines: isl.Map, rows: isl.Map, line_cycles: Fraction, walk: bool
) -> tuple[int, int, int, int]:
    """Return (transactions, busiest-bank rows summed over steps, steps, cycles) from
    T -> Line and [T -> Bank] -> Row, by walking the points or from barvinok's per-step
    counts (walking anyway, up to ENUMERATION_LIMIT points, when they are not piecewise
    constant)."""

    def port(n: int) -> int:
        return -(-n * line_cycles.numerator // line_cycles.denominator)

    per_step = levels = None
    if not walk:
        per_step = constant_pieces(lines.card())
        levels = _level_sets(rows.card())
    if per_step is None or levels is None:
        if not walk:
            size = count(lines) + count(rows)
            if size > ENUMERATION_LIMIT:
                raise CountingError(
                    f"per-step line and bank counts vary within barvinok's pieces, and the "
                    f"{size} points are more than the {ENUMERATION_LIMIT} the exact walk takes"
                )
        by_step, busiest = _walk(lines, rows)
        cycles = sum(max(port(n), busiest.get(t, 0)) for t, n in by_step.items())
        return sum(by_step.values()), sum(busiest.values()), len(by_step), cycles
    cycles = 0
    for s, n in per_step:
        for level, value in levels:
            both = s.intersect(level)
            if not both.is_empty():
                cycles += count(both) * max(port(n), value)
    return (
        count(lines),
        sum(value * count(s) for s, value in levels),
        count(lines.domain()),
        cycles,
    )


def _previous_access(held: isl.Map) -> isl.Map:
    """Return (PE, T) -> (PE, T'), T' the PE's latest earlier time-stamp that holds data, on
    the flattened points of ``held``'s domain (flat tuples are much faster to lexmax)."""
    points = held.domain()
    flat = points.flatten()
    earlier = isl.Map.lex_gt(flat.get_space())
    for k in range(points.unwrap().dim(isl.dim_type.in_)):
        earlier = earlier.equate(isl.dim_type.in_, k, isl.dim_type.out, k)
    return earlier.intersect_domain(flat).intersect_range(flat).lexmax()


def _distances(addresses: isl.Map, previous: isl.Map) -> tuple[int, Fraction]:
    pairs = addresses.range_product(previous.apply_range(addresses)).wrap().flatten()
    if pairs.is_empty():
        return 0, Fraction(0)
    n = pairs.dim(isl.dim_type.set)
    names = ", ".join(f"x{k}" for k in range(n))
    a, b = f"x{n - 2}", f"x{n - 1}"
    distance = isl.Map(f"{{ [{names}] -> [d] : d = {a} - {b} or d = {b} - {a} }}")
    largest = distance.intersect_domain(pairs).range().lexmax().sample_point()
    below = isl.Map(f"{{ [{names}] -> [j] : 0 <= j < {a} - {b} or 0 <= j < {b} - {a} }}")
    total = count(below.intersect_domain(pairs))
    return (
        int(largest.get_coordinate_val(isl.dim_type.set, 0).to_python()),
        Fraction(total, count(pairs)),
    )


@dataclass(frozen=True)
class Transfer:
    """The per-step transfer figures of one access under one layout."""

    fetched: int
    transactions: int
    conflicts_bank: int
    cycles: int


def transfer_figures(
    fetched: isl.Map,
    layout: Layout,
    scratchpad: ScratchpadSpec,
    line_cycles: Fraction,
    *,
    fetched_count: int | None = None,
    walk_below: int = WALK_BELOW,
) -> Transfer:
    """Count transactions, bank conflicts and cycles of the elements fetched per step
    (``fetched``: T -> elements, from :func:`fetched_per_step`, with ``fetched_count`` pairs
    if known), a line costing ``line_cycles`` cycles of the port. Up to ``walk_below``
    fetched pairs the points are walked, above it barvinok counts per step."""
    n = count(fetched) if fetched_count is None else fetched_count
    addresses = fetched.apply_range(layout.relation)
    lines = coalesce(addresses.apply_range(line_map(scratchpad)))
    rows = coalesce(addresses.apply_range(bank_map(scratchpad))).uncurry()
    transactions, busiest, steps, cycles = _steps(lines, rows, line_cycles, n <= walk_below)
    return Transfer(n, transactions, busiest - steps, cycles)


def line_cycles(problem: Problem, scratchpad: ScratchpadSpec) -> Fraction:
    """Return the port cycles of one line: transaction_width · bits / bandwidth."""
    architecture = problem.architecture
    return Fraction(
        scratchpad.transaction_width * architecture.bits_per_element, architecture.bandwidth
    )


def layout_figures(
    problem: Problem,
    access: TensorAccess,
    layout: Layout,
    scratchpad: ScratchpadSpec,
) -> TensorLayoutFigures:
    """Count the layout figures of one tensor access (see the module docstring).

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> from tenet.spec import WorkloadSpec, ArchitectureSpec, DataflowSpec
    >>> w = WorkloadSpec.from_mapping({"name": "w", "domain": "{S[i, j]: 0 <= i < 3 and "
    ...     "0 <= j < 4}", "accesses": {"A": {"read": "{S[i, j] -> A[i, j]}"}}})
    >>> a = ArchitectureSpec.from_mapping({"name": "a", "pe": "{PE[p]: 0 <= p < 3}"})
    >>> d = DataflowSpec.from_mapping({"name": "d", "space_stamp": "{S[i, j] -> PE[i]}",
    ...     "time_stamp": "{S[i, j] -> T[j]}"})
    >>> p = load_problem(w, a, d)
    >>> pad = build_layouts(p, {"A": [TransformSpec(op="pad", dim=1, by=1)]})["A"]
    >>> banks = ScratchpadSpec(banks=4)
    >>> layout_figures(p, p.accesses[0], build_layouts(p, {})["A"], banks).conflicts_bank
    8
    >>> layout_figures(p, p.accesses[0], pad, banks).conflicts_bank
    0
    """
    transfer = transfer_figures(
        fetched_per_step(problem, access), layout, scratchpad, line_cycles(problem, scratchpad)
    )
    held = problem.assignment(access).apply_range(layout.relation)
    previous = _previous_access(held)
    held = held.flatten_domain()
    touched = held.apply_range(line_map(scratchpad))
    misses = count(touched.subtract(previous.apply_range(touched)))
    largest, mean = _distances(held, previous)
    return TensorLayoutFigures(
        tensor=access.tensor,
        access=access.access,
        layout=layout.describe(),
        size=layout.size,
        fetched=transfer.fetched,
        transactions=transfer.transactions,
        conflicts_bank=transfer.conflicts_bank,
        cycles=transfer.cycles,
        misses_line=misses,
        distance_use_max=largest,
        distance_use_mean=mean,
    )


def _latency(cycles: int, latency: int) -> int:
    return cycles + latency - 1 if cycles else 0


def evaluate_layout(
    problem: Problem,
    layouts: Mapping[TensorName, Layout],
    scratchpad: ScratchpadSpec,
) -> LayoutMetrics:
    """Count the layout figures of every analysed access of ``problem``."""
    figures = tuple(
        layout_figures(problem, access, layouts[access.tensor], scratchpad)
        for access in problem.accesses
    )
    latency = problem.architecture.latency
    return LayoutMetrics(
        figures,
        _latency(sum(f.cycles for f in figures if f.access == "read"), latency),
        _latency(sum(f.cycles for f in figures if f.access == "write"), latency),
        scratchpad,
    )
