"""Workload: the iteration domain D and the access relations A of each tensor."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import reduce
from typing import TYPE_CHECKING

import islpy as isl

from tenet.errors import SpecError
from tenet.isl_utils import Located, Relation, parameters_of, parse_map, parse_set, tuple_signature
from tenet.spec.workload import WorkloadSpec
from tenet.vocab import Access, TensorName

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["Workload", "check_statement", "parametric_workload"]


def check_statement(
    relation: isl.Map, statement: tuple[str | None, int], **where: Unpack[Located]
) -> None:
    """Raise a :class:`~tenet.errors.SpecError` unless ``relation`` maps instances of the
    statement ``statement`` (its tuple name and number of indices); ``where`` (``source=``,
    ``location=``) names ``relation`` in the error.

    Examples
    --------
    >>> try:
    ...     check_statement(isl.Map("{S[i, j] -> A[i]}"), ("S", 3), location="accesses.A.read")
    ... except SpecError as error:
    ...     print(error.reason)
    maps S with 2 indices, but the workload's domain is S with 3
    """
    got = tuple_signature(relation, isl.dim_type.in_)
    if got != statement:
        raise SpecError(
            f"maps {got[0]} with {got[1]} indices, but the workload's domain is "
            f"{statement[0]} with {statement[1]}",
            **where,
        )


def _access_map(
    text: str,
    tensor: TensorName,
    statement: tuple[str | None, int],
    params: Mapping[str, int],
    source: str | None,
    where: str,
) -> isl.Map:
    """Parse one access map ``S[...] -> tensor[...]`` and check both of its tuples."""
    relation = parse_map(text, params, source=source, location=where)
    check_statement(relation, statement, source=source, location=where)
    if relation.get_tuple_name(isl.dim_type.out) != tensor:
        raise SpecError(
            f"access maps to {relation.get_tuple_name(isl.dim_type.out)!r}, "
            f"expected tensor {tensor!r}",
            source=source,
            location=where,
        )
    return relation


@dataclass(frozen=True)
class Workload:
    """A statement's domain and its accesses (each restricted to the domain), params bound."""

    name: str
    domain: isl.Set
    reads: Mapping[TensorName, isl.Map]
    writes: Mapping[TensorName, isl.Map]
    reductions: tuple[TensorName, ...] = ()
    """Tensors updated by a reduction (``+=``), whose updates may be reordered."""
    source: str | None = None

    @property
    def accesses(self) -> list[tuple[TensorName, Access, isl.Map]]:
        """Return (tensor, access, map) for every read, then every write, in spec order."""
        return [(t, "read", m) for t, m in self.reads.items()] + [
            (t, "write", m) for t, m in self.writes.items()
        ]

    @property
    def tensors(self) -> list[TensorName]:
        """Return the tensor names, in spec order."""
        return list(dict.fromkeys([*self.reads, *self.writes]))

    @classmethod
    def from_spec(cls, spec: WorkloadSpec, params: Mapping[str, int]) -> Workload:
        """Parse and check ``spec`` with its size parameters bound to ``params``."""
        src = spec.source
        domain = parse_set(spec.domain, params, source=src, location=spec.where("domain"))
        if domain.is_empty():
            raise SpecError(
                "the iteration domain is empty with these sizes: nothing to count",
                source=src,
                location=spec.where("domain"),
            )
        statement = tuple_signature(domain, isl.dim_type.set)
        reads: dict[str, isl.Map] = {}
        writes: dict[str, isl.Map] = {}
        for tensor, access_spec in spec.accesses.items():
            for access, texts, target in (
                ("read", access_spec.read, reads),
                ("write", access_spec.write, writes),
            ):
                if not texts:
                    continue
                where = spec.where(f"accesses.{tensor}.{access}")
                maps = [_access_map(text, tensor, statement, params, src, where) for text in texts]
                arities = {m.dim(isl.dim_type.out) for m in maps}
                if len(arities) > 1:
                    raise SpecError(
                        f"the maps of tensor {tensor!r} disagree on its number of indices "
                        f"({', '.join(str(a) for a in sorted(arities))})",
                        source=src,
                        location=where,
                    )
                relation = reduce(isl.Map.union, maps)
                target[tensor] = relation.intersect_domain(domain)
        if not reads and not writes:
            raise SpecError("the workload has no accesses", source=src, location="accesses")
        for name in spec.reductions:
            if name not in writes:
                raise SpecError(
                    f"reduction tensor {name!r} is not written by the workload "
                    f"(written: {', '.join(writes) or 'none'})",
                    source=src,
                    location="reductions",
                )
        return cls(spec.name, domain, reads, writes, tuple(spec.reductions), src)


def _bind_some(obj: Relation, params: Mapping[str, int]) -> Relation:
    """Fix the parameters of ``obj`` named in ``params`` and drop them; keep the others."""
    for name in [n for n in parameters_of(obj) if n in params]:
        k = parameters_of(obj).index(name)
        obj = obj.fix_val(isl.dim_type.param, k, isl.Val(str(int(params[name])), obj.get_ctx()))
        obj = obj.project_out(isl.dim_type.param, k, 1)
    return obj


def parametric_workload(spec: WorkloadSpec, params: Mapping[str, int] | None = None) -> Workload:
    """Return the workload of ``spec`` with the size parameters in ``params`` bound and every
    other one left symbolic (:meth:`Workload.from_spec` binds them all); a name in
    ``params`` that the workload does not have is passed over.

    Examples
    --------
    >>> from tenet.spec import load_workload
    >>> w = parametric_workload(load_workload("gemm"), {"K": 4})
    >>> w.domain
    Set("[M, N] -> { S[i, j, k] : 0 <= i < M and 0 <= j < N and 0 <= k <= 3 }")
    """
    bound = params or {}
    src = spec.source
    domain = _bind_some(parse_set(spec.domain, source=src, location=spec.where("domain")), bound)
    accesses: dict[str, dict[TensorName, isl.Map]] = {"read": {}, "write": {}}
    for tensor, access in spec.accesses.items():
        for kind, texts in (("read", access.read), ("write", access.write)):
            where = spec.where(f"accesses.{tensor}.{kind}")
            maps = [_bind_some(parse_map(t, source=src, location=where), bound) for t in texts]
            if maps:
                accesses[kind][tensor] = reduce(isl.Map.union, maps).intersect_domain(domain)
    return Workload(
        spec.name, domain, accesses["read"], accesses["write"], tuple(spec.reductions), src
    )
