"""A brute-force reference for the layout figures, on small problems.

It lists the problem's points with :func:`tenet.oracle.metrics.enumerate_problem`, computes every
element's address by applying the layout transforms to index tuples in plain Python, and
counts lines, bank rows, cycles, misses and use distances with sets and dicts, following
``docs/layout.md``. It shares no code with ``tenet.layout``, ``tenet.model``,
``tenet.counting`` or ``tenet.metrics`` (import-linter enforces it).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from tenet.oracle.metrics import Point, SpaceTime, enumerate_problem, previous_steps
from tenet.spec.architecture import ArchitectureSpec
from tenet.spec.dataflow import DataflowSpec
from tenet.spec.layout import ScratchpadSpec, TransformSpec
from tenet.spec.workload import WorkloadSpec
from tenet.vocab import Neighbourhood

__all__ = ["address_function", "reference_layout"]


def address_function(
    lower: Sequence[int], extents: Sequence[int], transforms: Sequence[TransformSpec]
) -> Any:
    """Return element -> address for a box (``lower``, ``extents``) and its transforms,
    computed with integer arithmetic on index tuples.

    Examples
    --------
    >>> address = address_function((0, 0), (3, 4), [TransformSpec(op="pad", dim=1, by=1)])
    >>> address((2, 3))
    13
    """
    # Each layout dimension: (expression, extent); an expression is ("index", k),
    # ("div", expression, q) or ("mod", expression, q) of the shifted indices.
    dims: list[tuple[tuple[Any, ...], int]] = [(("index", k), n) for k, n in enumerate(extents)]
    for t in transforms:
        if t.op == "column_major":
            dims = dims[::-1]
        elif t.op == "permute":
            dims = [dims[k] for k in t.order or ()]
        elif t.op == "pad":
            k = t.dim or 0
            dims[k] = (dims[k][0], dims[k][1] + (t.by or 0))
        elif t.op in ("split", "interleave"):
            k, q = t.dim or 0, t.factor or 1
            e, n = dims[k]
            outer, inner = (("div", e, q), -(-n // q)), (("mod", e, q), q)
            if t.op == "split":
                dims = [*dims[:k], outer, inner, *dims[k + 1 :]]
            else:
                dims = [outer, *dims[:k], inner, *dims[k + 1 :]]

    def value(e: tuple[Any, ...], x: Point) -> int:
        if e[0] == "index":
            return int(x[e[1]])
        inner = value(e[1], x)
        return int(inner // e[2] if e[0] == "div" else inner % e[2])

    def address(element: Point) -> int:
        shifted = tuple(e - lo for e, lo in zip(element, lower, strict=True))
        result = 0
        for e, n in dims:
            result = result * n + value(e, shifted)
        return result

    return address


def reference_layout(
    workload: WorkloadSpec,
    architecture: ArchitectureSpec,
    dataflow: DataflowSpec,
    layouts: Mapping[str, Sequence[TransformSpec]],
    scratchpad: ScratchpadSpec,
    params: Mapping[str, int] | None = None,
    neighbourhood: Neighbourhood = "window",
) -> dict[str, Any]:
    """Return the layout figures by enumeration: ``tensors`` (one dict per access, the
    fields of ``TensorLayoutFigures`` but ``layout``), ``latency_ingress_layout`` and
    ``latency_egress_layout``.

    Examples
    --------
    >>> w = WorkloadSpec.from_mapping({"name": "w", "domain": "{S[i, j]: 0 <= i < 3 and "
    ...     "0 <= j < 4}", "accesses": {"A": {"read": "{S[i, j] -> A[i, j]}"}}})
    >>> a = ArchitectureSpec.from_mapping({"name": "a", "pe": "{PE[p]: 0 <= p < 3}"})
    >>> d = DataflowSpec.from_mapping({"name": "d", "space_stamp": "{S[i, j] -> PE[i]}",
    ...     "time_stamp": "{S[i, j] -> T[j]}"})
    >>> reference_layout(w, a, d, {}, ScratchpadSpec(banks=4))["tensors"][0]["conflicts_bank"]
    8
    """
    problem = enumerate_problem(workload, architecture, dataflow, params)
    selected = dataflow.tensors
    point_of = problem.point_of
    prev = previous_steps(t for _, t in point_of.values())
    senders = problem.senders

    def near(point: SpaceTime) -> set[SpaceTime]:
        pe, t = point
        before = [prev[t]] if t in prev else []
        if neighbourhood == "window":
            found = {(q, u) for q in [pe, *senders[pe]] for u in [t, *before]}
            return found - {point}
        found = {(pe, u) for u in before}
        for q, delays in senders[pe].items():
            found |= {(q, t) for d in delays if d == 0}
            found |= {(q, u) for d in delays if d == 1 for u in before}
        return found

    elements: dict[str, set[Point]] = defaultdict(set)
    for tensor, _, pairs in problem.accesses:
        elements[tensor] |= {e for _, e in pairs}
    address_of = {}
    for tensor, found in elements.items():
        n = len(next(iter(found)))
        lower = [min(e[k] for e in found) for k in range(n)]
        extents = [max(e[k] for e in found) - lower[k] + 1 for k in range(n)]
        address_of[tensor] = address_function(lower, extents, layouts.get(tensor, ()))

    def line(a: int) -> int:
        return a // scratchpad.transaction_width

    def bank_row(a: int) -> tuple[int, int]:
        word = a // scratchpad.bank_width
        return word % scratchpad.banks, word // scratchpad.banks

    width_bits = scratchpad.transaction_width * architecture.bits_per_element
    rows: list[dict[str, Any]] = []
    for tensor, kind, pairs in problem.accesses:
        if selected is not None and tensor not in selected:
            continue
        address = address_of[tensor]
        held: dict[SpaceTime, set[Point]] = defaultdict(set)
        for x, e in pairs:
            held[point_of[x]].add(e)
        fetched: dict[Point, set[int]] = defaultdict(set)
        for point, found in held.items():
            around = near(point)
            for e in found:
                if not any(e in held.get(q, ()) for q in around):
                    fetched[point[1]].add(address(e))
        transactions = conflicts = cycles = 0
        for addresses in fetched.values():
            lines = {line(a) for a in addresses}
            per_bank: dict[int, set[int]] = defaultdict(set)
            for a in addresses:
                b, r = bank_row(a)
                per_bank[b].add(r)
            busiest = max(len(r) for r in per_bank.values())
            transactions += len(lines)
            conflicts += busiest - 1
            port = -(-len(lines) * width_bits // architecture.bandwidth)
            cycles += max(port, busiest)
        misses = pairs_seen = total = largest = 0
        by_pe: dict[Point, list[Point]] = defaultdict(list)
        for pe, t in held:
            by_pe[pe].append(t)
        for pe, ts in by_pe.items():
            ts.sort()
            for k, t in enumerate(ts):
                now = {address(e) for e in held[(pe, t)]}
                before = {address(e) for e in held[(pe, ts[k - 1])]} if k else set()
                misses += len({line(a) for a in now} - {line(a) for a in before})
                for a in now:
                    for b in before:
                        pairs_seen += 1
                        total += abs(a - b)
                        largest = max(largest, abs(a - b))
        rows.append(
            {
                "tensor": tensor,
                "access": kind,
                "fetched": sum(len(a) for a in fetched.values()),
                "transactions": transactions,
                "conflicts_bank": conflicts,
                "cycles": cycles,
                "misses_line": misses,
                "distance_use_max": largest,
                "distance_use_mean": Fraction(total, pairs_seen) if pairs_seen else Fraction(0),
            }
        )

    def latency(kind: str) -> int:
        cycles = sum(r["cycles"] for r in rows if r["access"] == kind)
        return cycles + architecture.latency - 1 if cycles else 0

    return {
        "tensors": rows,
        "latency_ingress_layout": latency("read"),
        "latency_egress_layout": latency("write"),
    }
