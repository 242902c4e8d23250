"""Dependences of a workload as dependence polyhedra, with their distance vectors where uniform.

The relations are those the legality check keeps (:func:`tenet.model.legality.dependences`:
flow, anti and output dependences in the program order of the domain, reductions left out),
computed here on the workload with its size parameters left symbolic, so that a dependence
polyhedron is a set of (source, sink, parameters) points. On request, the *reuse chains* of
the tensors are added as dependences too: each instance passes every element it touches to the
next instance (in program order) that touches it. These chains are uniform for the tensor
operations a systolic array runs (GEMM: ``A`` along ``j``, ``B`` along ``i``, ``C`` along
``k``), which is how a broadcast is made local before a space-time mapping is synthesised.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from functools import reduce
from typing import Literal

import islpy as isl

from tenet.model.legality import dependences
from tenet.model.workload import Workload
from tenet.vocab import TensorName

__all__ = [
    "DependencePolyhedron",
    "reuse_chains",
    "dependence_polyhedra",
    "distance_vectors",
]

PolyhedronKind = Literal["flow", "anti", "output", "reuse"]


@dataclass(frozen=True)
class DependencePolyhedron:
    """Pairs source -> sink of instances, the sink depending on the source through ``tensor``.

    ``relation`` is an isl map ``S[...] -> S[...]`` over the symbolic size parameters; its
    wrapped form (source, sink, parameters) is the dependence polyhedron.
    """

    kind: PolyhedronKind
    tensor: TensorName
    relation: isl.Map

    @property
    def name(self) -> str:
        """A short label, e.g. ``flow a``."""
        return f"{self.kind} {self.tensor}"

    @property
    def distances(self) -> tuple[tuple[int, ...], ...] | None:
        """The distance vectors (sink - source), sorted, when they are finitely many over
        every size (uniform dependence); None otherwise."""
        return distance_vectors(self.relation)


def distance_vectors(relation: isl.Map) -> tuple[tuple[int, ...], ...] | None:
    """Return the distance vectors of ``relation`` (sink - source) over every value of the
    parameters, sorted, or None when there are infinitely many (a non-uniform dependence).

    Examples
    --------
    >>> distance_vectors(isl.Map("[N] -> {S[i] -> S[i + 1]: 0 <= i < N - 1}"))
    ((1,),)
    >>> distance_vectors(isl.Map("[N] -> {S[i] -> S[j]: 0 <= i < j < N}")) is None
    True
    """
    deltas = relation.deltas()
    deltas = deltas.project_out(isl.dim_type.param, 0, deltas.dim(isl.dim_type.param))
    if not deltas.is_bounded():
        return None
    found: list[tuple[int, ...]] = []

    def visit(point: isl.Point) -> None:
        found.append(
            tuple(
                int(point.get_coordinate_val(isl.dim_type.set, k).to_python())
                for k in range(deltas.dim(isl.dim_type.set))
            )
        )

    deltas.foreach_point(visit)
    return tuple(sorted(found))


def reuse_chains(workload: Workload) -> tuple[DependencePolyhedron, ...]:
    """Return, per tensor, the chain that passes each element from an instance to the next one
    (in program order) touching it, reads and writes alike.

    Examples
    --------
    >>> from tenet.model.workload import parametric_workload
    >>> from tenet.spec import load_workload
    >>> gemm = parametric_workload(load_workload("gemm"))
    >>> [(c.tensor, c.distances) for c in reuse_chains(gemm)]
    [('A', ((0, 1, 0),)), ('B', ((1, 0, 0),)), ('C', ((0, 0, 1),))]
    """
    domain = workload.domain
    before = domain.lex_lt_set(domain)
    found = []
    for tensor in workload.tensors:
        maps = (workload.reads.get(tensor), workload.writes.get(tensor))
        touched = [m for m in maps if m is not None]
        access = reduce(isl.Map.union, touched)
        # [source -> element] -> sink, for sinks after the source; then the first sink.
        pairs = access.range_map().apply_range(access.reverse())
        nearest = pairs.intersect(access.domain_map().apply_range(before)).lexmin()
        relation = access.domain_map().reverse().apply_range(nearest)
        if not relation.is_empty():
            found.append(DependencePolyhedron("reuse", tensor, relation.coalesce()))
    return tuple(found)


def dependence_polyhedra(
    workload: Workload,
    reductions: Collection[TensorName] | None = None,
    *,
    reuse: bool = False,
) -> tuple[DependencePolyhedron, ...]:
    """Return the dependence polyhedra of ``workload``: its flow, anti and output dependences
    (leaving out ``reductions``, default the workload's), and with ``reuse`` the reuse chain of
    every tensor (:func:`reuse_chains`).

    Examples
    --------
    >>> from tenet.model.workload import parametric_workload
    >>> from tenet.spec import WorkloadSpec
    >>> spec = WorkloadSpec.from_mapping({"name": "example", "params": {"N": 8},
    ...     "domain": "[N] -> {S[i, j]: 0 <= i < N and 0 <= j < N}",
    ...     "accesses": {"a": {"read": ["{S[i, j] -> a[i, j - 1]}", "{S[i, j] -> a[i, j]}",
    ...                                 "{S[i, j] -> a[i, j + 1]}"],
    ...                        "write": "{S[i, j] -> a[i + 1, j]}"}}})
    >>> [(d.name, d.distances) for d in dependence_polyhedra(parametric_workload(spec))]
    [('flow a', ((1, -1), (1, 0), (1, 1)))]
    """
    chosen = workload.reductions if reductions is None else reductions
    found = [
        DependencePolyhedron(d.kind, d.tensor, d.relation) for d in dependences(workload, chosen)
    ]
    if reuse:
        found += reuse_chains(workload)
    return tuple(found)
