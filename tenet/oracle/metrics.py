"""A brute-force reference for every metric, on small problems.

It reads the three specs, lists points with isl (``foreach_point`` only: no counting, no
relation algebra beyond restricting a map to the domain), and computes every figure of
:class:`tenet.Metrics` with plain Python sets and dicts, following ``docs/metrics.md`` word for
word. It shares no code with ``tenet.model``, ``tenet.counting`` or ``tenet.metrics``, so the
tests that compare the two check the relation-centric engine against an independent reading
of the definitions. Cost grows with the number of instances: keep problems to a few thousand.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import islpy as isl

from tenet.isl_utils import parse_map, parse_set
from tenet.spec.architecture import ArchitectureSpec
from tenet.spec.dataflow import DataflowSpec
from tenet.spec.workload import WorkloadSpec
from tenet.vocab import Neighbourhood

__all__ = [
    "Point",
    "list_points",
    "enumerate_problem",
    "Enumerated",
    "previous_steps",
    "reference_metrics",
    "reference_dependences",
    "reference_order_violations",
]

Point = tuple[int, ...]
SpaceTime = tuple[Point, Point]


def _coordinates(point: isl.Point) -> Point:
    space = point.get_space()
    return tuple(
        int(point.get_coordinate_val(isl.dim_type.set, k).to_python())
        for k in range(space.dim(isl.dim_type.set))
    )


def list_points(obj: isl.Set) -> list[Point]:
    """Return the points of ``obj`` (a bounded set), sorted, as tuples of ints."""
    found: list[Point] = []
    obj.foreach_point(lambda p: found.append(_coordinates(p)))
    return sorted(found)


def _pairs(relation: isl.Map) -> list[tuple[Point, Point]]:
    n_in = relation.dim(isl.dim_type.in_)
    return [(p[:n_in], p[n_in:]) for p in list_points(relation.wrap())]


@dataclass(frozen=True)
class Enumerated:
    """A problem listed point by point: instances, their stamps, accesses and links."""

    instances: list[Point]
    pe_set: list[Point]
    space: dict[Point, Point]
    """Instance -> its PE."""
    time: dict[Point, Point]
    """Instance -> its time-stamp."""
    accesses: list[tuple[str, str, set[tuple[Point, Point]]]]
    """(tensor, "read" or "write", {(instance, element)}) in workload order, reads first."""
    links: list[tuple[Point, Point, int]]
    """(sender, receiver, delay) between PEs of the PE set."""

    @property
    def point_of(self) -> dict[Point, SpaceTime]:
        """Instance -> its (PE, time-stamp)."""
        return {x: (self.space[x], self.time[x]) for x in self.instances}

    @property
    def senders(self) -> defaultdict[Point, defaultdict[Point, set[int]]]:
        """Receiver -> every other PE linked to it -> the delays of those links (empty for a
        PE without one)."""
        found: defaultdict[Point, defaultdict[Point, set[int]]] = defaultdict(
            lambda: defaultdict(set)
        )
        for sender, receiver, delay in self.links:
            if sender != receiver:
                found[receiver][sender].add(delay)
        return found


def previous_steps(times: Iterable[Point]) -> dict[Point, Point]:
    """Return each of ``times`` -> the one before it, in lexicographic order.

    Examples
    --------
    >>> previous_steps([(1, 0), (0, 2), (1, 0), (0, 0)])
    {(0, 2): (0, 0), (1, 0): (0, 2)}
    """
    ordered = sorted(set(times))
    return dict(zip(ordered[1:], ordered[:-1], strict=True))


def enumerate_problem(
    workload: WorkloadSpec,
    architecture: ArchitectureSpec,
    dataflow: DataflowSpec,
    params: Mapping[str, int] | None = None,
) -> Enumerated:
    """List every point of a problem with size parameters bound (workload defaults, then the
    dataflow's, then ``params``)."""
    bound = {**workload.params, **dataflow.params, **(params or {})}
    domain = parse_set(workload.domain, bound)
    instances = list_points(domain)

    def on_domain(text: str) -> list[tuple[Point, Point]]:
        return _pairs(parse_map(text, bound).intersect_domain(domain))

    space = dict(on_domain(dataflow.space_stamp))
    time = dict(on_domain(dataflow.time_stamp))
    reads: list[tuple[str, str, set[tuple[Point, Point]]]] = []
    writes: list[tuple[str, str, set[tuple[Point, Point]]]] = []
    for tensor, spec in workload.accesses.items():
        for kind, texts, target in (("read", spec.read, reads), ("write", spec.write, writes)):
            if texts:
                pairs = {pair for text in texts for pair in on_domain(text)}
                target.append((tensor, kind, pairs))
    pe_set = parse_set(architecture.pe, bound)
    links: list[tuple[Point, Point, int]] = []
    for link in architecture.interconnect:
        relation = parse_map(link.link, bound)
        relation = relation.intersect_domain(pe_set).intersect_range(pe_set)
        links += [(sender, receiver, link.delay) for sender, receiver in _pairs(relation)]
    return Enumerated(instances, list_points(pe_set), space, time, reads + writes, links)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _reused(
    held: set[tuple[SpaceTime, Point]], neighbours: Mapping[SpaceTime, set[SpaceTime]]
) -> int:
    """Count the held (point, element) pairs whose element is also held at a neighbour."""
    holders: dict[Point, set[SpaceTime]] = defaultdict(set)
    for point, element in held:
        holders[element].add(point)
    return sum(1 for point, element in held if neighbours.get(point, set()) & holders[element])


def reference_metrics(
    workload: WorkloadSpec,
    architecture: ArchitectureSpec,
    dataflow: DataflowSpec,
    params: Mapping[str, int] | None = None,
    tensors: Sequence[str] | None = None,
    neighbourhood: Neighbourhood = "window",
) -> dict[str, Any]:
    """Return every metric by enumeration, the unique volume under ``neighbourhood``: the
    per-dataflow fields of :class:`tenet.Metrics` by name, ``tensors`` (one dict per tensor
    access, :class:`tenet.TensorMetrics` fields) and ``original`` (the original's report
    as a dict; tensors keyed by name).

    Examples
    --------
    Six instances on three PEs, two steps; each reads its own element, so all six are unique:

    >>> w = WorkloadSpec.from_mapping({"name": "w", "domain": "{S[i]: 0 <= i < 6}",
    ...     "accesses": {"A": {"read": "{S[i] -> A[i]}"}}})
    >>> a = ArchitectureSpec.from_mapping({"name": "a", "pe": "{PE[p]: 0 <= p < 3}"})
    >>> d = DataflowSpec.from_mapping({"name": "d", "space_stamp": "{S[i] -> PE[i % 3]}",
    ...     "time_stamp": "{S[i] -> T[floor(i / 3)]}"})
    >>> m = reference_metrics(w, a, d)
    >>> m["macs"], m["timestamps"], m["tensors"][0]["volume_unique"]
    (6, 2, 6)
    """
    problem = enumerate_problem(workload, architecture, dataflow, params)
    selected = tensors if tensors is not None else dataflow.tensors
    accesses = [a for a in problem.accesses if selected is None or a[0] in selected]

    point_of = problem.point_of
    occupants: dict[SpaceTime, int] = defaultdict(int)
    for point in point_of.values():
        occupants[point] += 1
    active = sorted({pe for pe, _ in occupants})
    times = sorted({t for _, t in occupants})
    prev = previous_steps(times)
    senders = problem.senders

    def window(t: Point) -> list[Point]:
        return [t, prev[t]] if t in prev else [t]

    default: dict[SpaceTime, set[SpaceTime]] = {}
    temporal: dict[SpaceTime, set[SpaceTime]] = {}
    spatial: dict[SpaceTime, set[SpaceTime]] = {}
    linked: dict[SpaceTime, set[SpaceTime]] = {}
    delivery: dict[SpaceTime, set[SpaceTime]] = {}
    for pe in active:
        for t in times:
            here = (pe, t)
            near = [pe, *senders[pe]]
            default[here] = {(q, u) for q in near for u in window(t)} - {here}
            temporal[here] = {(pe, prev[t])} if t in prev else set()
            linked[here] = {(q, u) for q in senders[pe] for u in window(t)}
            spatial[here] = {
                (q, t if delay == 0 else prev[t])
                for q, delays in senders[pe].items()
                for delay in delays
                if delay == 0 or t in prev
            }
            delivery[here] = temporal[here] | spatial[here]

    rows: list[dict[str, Any]] = []
    for tensor, kind, pairs in accesses:
        held = {(point_of[x], element) for x, element in pairs}
        total, n_held = len(pairs), len(held)
        reused_window = _reused(held, default)
        unique = n_held - (reused_window if neighbourhood == "window" else _reused(held, delivery))
        reused_spatial = _reused(held, spatial)
        rows.append(
            {
                "tensor": tensor,
                "access": kind,
                "volume_total": total,
                "volume_unique": unique,
                "volume_reuse": total - unique,
                "volume_reuse_spatial": reused_spatial,
                "volume_reuse_temporal": total - (n_held - _reused(held, temporal)),
                "reuse_factor": Fraction(total, unique) if unique else Fraction(0),
                "accesses_l1_read": total,
                "accesses_l1_write": total,
                "accesses_l2_read": unique,
                "accesses_l2_write": unique,
                "_reused_linked": _reused(held, linked),
                "_unique_window": n_held - reused_window,
            }
        )

    macs = len(problem.instances)
    busiest: dict[Point, int] = defaultdict(int)
    for (_, t), n in occupants.items():
        busiest[t] = max(busiest[t], n)
    compute = sum(busiest.values())
    if dataflow.steps is not None:
        bound = {**workload.params, **dataflow.params, **(params or {})}
        compute += len(set(list_points(parse_set(dataflow.steps, bound))) - set(busiest))
    arch = architecture
    unique_in = sum(r["volume_unique"] for r in rows if r["access"] == "read")
    unique_out = sum(r["volume_unique"] for r in rows if r["access"] == "write")

    def transfer(volume: int) -> int:
        if volume == 0:
            return 0
        return _ceil_div(volume * arch.bits_per_element, arch.bandwidth) + arch.latency - 1

    ingress, egress = transfer(unique_in), transfer(unique_out)
    latency = max(compute, ingress, egress)
    l1 = sum(r["accesses_l1_read"] + r["accesses_l1_write"] for r in rows)
    l2 = sum(r["accesses_l2_read"] + r["accesses_l2_write"] for r in rows)
    n_points, n_times = len(occupants), len(times)
    result: dict[str, Any] = {
        "neighbourhood": neighbourhood,
        "macs": macs,
        "pe_count": len(problem.pe_set),
        "active_pes": len(active),
        "timestamps": n_times,
        "occupied_points": n_points,
        "instances_per_step_max": max(occupants.values(), default=0),
        "active_pes_avg": Fraction(n_points, n_times) if n_times else Fraction(0),
        "utilisation": (
            Fraction(n_points, len(problem.pe_set) * n_times) if n_times else Fraction(0)
        ),
        "latency_compute": compute,
        "latency_compute_avg": macs // len(active) if active else 0,
        "latency_ingress": ingress,
        "latency_egress": egress,
        "latency": latency,
        "bandwidth_pe": (
            Fraction(sum(r["volume_reuse_spatial"] for r in rows), latency)
            if latency
            else Fraction(0)
        ),
        "bandwidth_scratchpad": (
            Fraction(unique_in + unique_out, latency) if latency else Fraction(0)
        ),
        "energy": macs * arch.energy.mac + l1 * arch.energy.l1 + l2 * arch.energy.l2,
        "energy_unit": arch.energy.unit,
    }
    result["original"] = _original_report(rows, result, arch.bandwidth, arch.latency)
    result["tensors"] = [{k: v for k, v in r.items() if not k.startswith("_")} for r in rows]
    return result


def _original_report(
    rows: Iterable[dict[str, Any]], metrics: Mapping[str, Any], bandwidth: int, latency: int
) -> dict[str, Any]:
    """The original TENET's report (``src/dataflow.cpp``'s formulas, unbounded integers)."""
    rows = list(rows)
    macs, active = metrics["macs"], metrics["active_pes"]
    tensors: dict[str, dict[str, Any]] = {}
    for r in rows:
        key = r["tensor"] if r["tensor"] not in tensors else f"{r['tensor']}:{r['access']}"
        total, unique = r["volume_total"], r["_unique_window"]
        tensors[key] = {
            "TotalVolume": total,
            "UniqueVolume": unique,
            "ReuseFactor": total / unique if unique else 0.0,
            "TemporalReuseVolume": r["volume_reuse_temporal"] / macs if macs else 0.0,
            "SpatialReuseVolume": r["_reused_linked"] / macs if macs else 0.0,
            "access": r["access"].upper(),
        }

    def delay(kind: str) -> int:
        unique = sum(r["_unique_window"] for r in rows if r["access"] == kind)
        return int(unique * 16 // bandwidth + latency - 1)

    energy = macs
    for r in [r for r in rows if r["access"] == "read"] + [
        r for r in rows if r["access"] == "write"
    ]:
        for term in (1.68 * r["volume_total"],) * 2 + (18.61 * r["_unique_window"],) * 2:
            energy = int(energy + term)
    ingress, egress = delay("read"), delay("write")
    computation = macs // active if active else 0
    return {
        "tensors": tensors,
        "IngressDelay": ingress,
        "EgressDelay": egress,
        "ComputationDelay": computation,
        "Delay": max(ingress, egress, computation),
        "ActivePENum": active,
        "AverageActivePENum": (
            metrics["occupied_points"] / metrics["timestamps"] if metrics["timestamps"] else 0.0
        ),
        "Energy": energy,
        "TotalTime": metrics["timestamps"],
        "MacNum": macs,
        "PENum": active,
    }


def reference_dependences(
    workload: WorkloadSpec,
    params: Mapping[str, int] | None = None,
    reductions: Sequence[str] | None = None,
) -> set[tuple[str, str, Point, Point]]:
    """Return every dependent pair ``(kind, tensor, source, sink)`` by enumeration: two
    instances, the source first in the lexicographic order of the domain, touching the same
    element, one of them writing it (``flow``: write then read, ``anti``: read then write,
    ``output``: write then write); tensors in ``reductions`` (default the workload's) are left
    out.

    Examples
    --------
    >>> w = WorkloadSpec.from_mapping({"name": "w", "domain": "{S[i]: 0 <= i < 3}",
    ...     "accesses": {"A": {"read": "{S[i] -> A[i - 1]}", "write": "{S[i] -> A[i]}"}}})
    >>> sorted(reference_dependences(w))
    [('flow', 'A', (0,), (1,)), ('flow', 'A', (1,), (2,))]
    """
    bound = {**workload.params, **(params or {})}
    skipped = set(workload.reductions if reductions is None else reductions)
    domain = parse_set(workload.domain, bound)
    found: set[tuple[str, str, Point, Point]] = set()
    for tensor, spec in workload.accesses.items():
        if tensor in skipped:
            continue
        touching: dict[Point, list[tuple[Point, str]]] = defaultdict(list)
        for kind, texts in (("read", spec.read), ("write", spec.write)):
            for text in texts:
                relation = parse_map(text, bound).intersect_domain(domain)
                for instance, element in _pairs(relation):
                    touching[element].append((instance, kind))
        for accesses in touching.values():
            for source, first in accesses:
                for sink, then in accesses:
                    if source < sink and "write" in (first, then):
                        name = "anti" if first == "read" else "flow" if then == "read" else "output"
                        found.add((name, tensor, source, sink))
    return found


def reference_order_violations(
    pairs: Iterable[tuple[Point, Point]],
    time: Mapping[Point, Point],
    space: Mapping[Point, Point] | None = None,
) -> list[tuple[Point, Point]]:
    """Return the dependent pairs (source, sink) that a schedule runs out of order: the sink
    at an earlier time-stamp than the source, or at the same one on another PE (``space``;
    None: one PE, where instances at one time-stamp run in program order).

    Examples
    --------
    >>> reference_order_violations([((0,), (1,))], {(0,): (1,), (1,): (0,)})
    [((0,), (1,))]
    """
    return [
        (source, sink)
        for source, sink in pairs
        if time[sink] < time[source]
        or (time[sink] == time[source] and space is not None and space[sink] != space[source])
    ]
