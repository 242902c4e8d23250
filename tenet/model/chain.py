"""A chain of statements as isl relations, sizes bound: each statement's domain, its reads
per tensor and its one write, all restricted to the domain."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import islpy as isl

from tenet.isl_utils import parse_map, parse_set
from tenet.spec.chain import ChainSpec

__all__ = ["Statement", "Chain"]


@dataclass(frozen=True)
class Statement:
    """One statement: ``domain`` (its instances), ``reads`` (tensor -> map from instances to
    elements) and ``write`` (the map to the elements of ``written``)."""

    name: str
    domain: isl.Set
    reads: Mapping[str, isl.Map]
    written: str
    write: isl.Map

    @property
    def ranks(self) -> tuple[str, ...]:
        """The names of the domain's indices."""
        return tuple(
            str(self.domain.get_dim_name(isl.dim_type.set, k))
            for k in range(self.domain.dim(isl.dim_type.set))
        )


@dataclass(frozen=True)
class Chain:
    """The statements of a :class:`ChainSpec` in order, with every size bound.

    Examples
    --------
    >>> from tenet.spec.chain import load_chain
    >>> chain = Chain.from_spec(load_chain("matmul-matmul"), {"M": 4, "N": 2, "K": 3, "P": 2})
    >>> [s.name for s in chain.statements], chain.statements[1].ranks
    (['S0', 'S1'], ('m', 'p', 'n'))
    """

    spec: ChainSpec
    statements: tuple[Statement, ...]
    sizes: Mapping[str, int]

    @classmethod
    def from_spec(cls, spec: ChainSpec, sizes: Mapping[str, int] | None = None) -> Chain:
        """Bind the spec's parameters (its defaults, overridden by ``sizes``)."""
        bound = {**spec.params, **(sizes or {})}
        statements = []
        for k, s in enumerate(spec.statements):
            where = f"statements.{k}"
            domain = parse_set(s.domain, bound, source=spec.source, location=f"{where}.domain")
            reads: dict[str, isl.Map] = {}
            write: isl.Map | None = None
            for tensor, access in s.accesses.items():
                for field, texts in (("read", access.read), ("write", access.write)):
                    for text in texts:
                        location = f"{where}.accesses.{tensor}.{field}"
                        relation = parse_map(
                            text, bound, source=spec.source, location=location
                        ).intersect_domain(domain)
                        if field == "write":
                            write = relation if write is None else write.union(relation)
                        else:
                            reads[tensor] = (
                                reads[tensor].union(relation) if tensor in reads else relation
                            )
            assert write is not None  # one written tensor: checked by ChainSpec
            statements.append(Statement(s.name, domain, reads, s.written[0], write))
        return cls(spec, tuple(statements), bound)

    @property
    def last(self) -> Statement:
        """The statement that runs last."""
        return self.statements[-1]

    def producer(self, tensor: str) -> Statement | None:
        """Return the statement writing ``tensor``, or None for an input."""
        return next((s for s in self.statements if s.written == tensor), None)

    def consumers(self, tensor: str) -> tuple[Statement, ...]:
        """Return the statements reading ``tensor``, in order."""
        return tuple(s for s in self.statements if tensor in s.reads)
