"""ChainSpec: a workload of several statements (Einsums) run in turn, sharing tensors by name.

A tensor that no statement writes is an input of the chain; one that a statement writes and a
later one reads is an intermediate; the tensor the last statement writes goes to DRAM, and the
intermediates listed in ``outputs`` too. Loading checks the isl text of every statement and the
order of the chain (no statement reads what a later one writes), naming the statement and the
field.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import islpy as isl
from pydantic import BaseModel, ConfigDict, Field

from tenet.errors import SpecError, UnknownTensorError
from tenet.isl_utils import parse_map, parse_set
from tenet.spec.base import SpecModel
from tenet.spec.catalog import zoo_folder
from tenet.spec.io import read_yaml
from tenet.spec.workload import AccessSpec

__all__ = ["StatementSpec", "ChainSpec", "load_chain", "chain_names", "is_chain"]


class StatementSpec(BaseModel):
    """One statement of a chain: its name (the tuple of its domain), iteration domain and
    accesses, as in a workload."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="Name of the statement, its domain's tuple (S0, S1, ...).")
    domain: str = Field(description="Iteration domain, an isl set {S0[...]: ...}.")
    accesses: dict[str, AccessSpec] = Field(
        description="Per tensor name, its read and/or write access maps."
    )
    reductions: tuple[str, ...] = Field(
        (), description="Tensors updated by a reduction (+=), whose order may change."
    )

    @property
    def written(self) -> list[str]:
        """The tensors this statement writes."""
        return [t for t, access in self.accesses.items() if access.write]

    @property
    def read(self) -> list[str]:
        """The tensors this statement reads."""
        return [t for t, access in self.accesses.items() if access.read]


class ChainSpec(SpecModel):
    """Several statements run in the listed order; size parameters are shared.

    Examples
    --------
    >>> spec = ChainSpec.from_mapping({"name": "two", "statements": [
    ...     {"name": "S0", "domain": "{S0[i]: 0 <= i < 4}",
    ...      "accesses": {"A": {"read": "{S0[i] -> A[i]}"}, "B": {"write": "{S0[i] -> B[i]}"}}},
    ...     {"name": "S1", "domain": "{S1[i]: 0 <= i < 4}",
    ...      "accesses": {"B": {"read": "{S1[i] -> B[i]}"}, "C": {"write": "{S1[i] -> C[i]}"}}}]})
    >>> spec.inputs, spec.intermediates, spec.final
    (('A',), ('B',), ('C',))
    """

    kind: ClassVar[str] = "chain"

    params: dict[str, int] = Field(
        default_factory=dict, description="Default values of the size parameters."
    )
    statements: tuple[StatementSpec, ...] = Field(
        description="The statements, in the order they run.", min_length=1
    )
    outputs: tuple[str, ...] = Field(
        (),
        description="Tensors written to DRAM besides the one the last statement writes.",
    )

    @classmethod
    def from_mapping(
        cls,
        data: Mapping[str, Any],
        *,
        source: str | None = None,
        lines: Mapping[str, int] | None = None,
    ) -> ChainSpec:
        """Validate ``data`` and check the chain (isl text, one writer per tensor, ranks,
        order, outputs)."""
        spec = super().from_mapping(data, source=source, lines=lines)
        _check(spec)
        return spec

    def writer(self, tensor: str) -> int | None:
        """Return the index of the statement writing ``tensor``, or None for an input."""
        return next((k for k, s in enumerate(self.statements) if tensor in s.written), None)

    @property
    def tensors(self) -> tuple[str, ...]:
        """Every tensor, in order of first mention."""
        return tuple(dict.fromkeys(t for s in self.statements for t in s.accesses))

    @property
    def inputs(self) -> tuple[str, ...]:
        """Tensors read and written by no statement: read from DRAM."""
        return tuple(t for t in self.tensors if self.writer(t) is None)

    @property
    def intermediates(self) -> tuple[str, ...]:
        """Tensors a statement writes and a later one reads."""
        return tuple(
            t
            for t in self.tensors
            if (w := self.writer(t)) is not None
            and any(t in s.read for s in self.statements[w + 1 :])
        )

    @property
    def final(self) -> tuple[str, ...]:
        """The tensors written to DRAM: ``outputs`` and the tensor the last statement writes."""
        return tuple(dict.fromkeys((*self.outputs, *self.statements[-1].written)))


def _fail(spec: ChainSpec, path: str, reason: str) -> SpecError:
    return SpecError(reason, source=spec.source, location=spec.where(path))


def _check_text(spec: ChainSpec) -> None:
    """Parse every domain and access (errors name the statement and field); every access of
    a tensor has one rank count."""
    names = [s.name for s in spec.statements]
    ranks: dict[str, tuple[int, str]] = {}
    for k, statement in enumerate(spec.statements):
        if names.count(statement.name) > 1:
            raise _fail(spec, f"statements.{k}.name", f"two statements named {statement.name!r}")
        where = f"statements.{k}"
        located = f"{spec.where(where + '.domain')} of {statement.name}"
        domain = parse_set(statement.domain, source=spec.source, location=located)
        if domain.get_tuple_name() != statement.name:
            raise _fail(
                spec,
                f"{where}.domain",
                f"the domain of {statement.name} is over {domain.get_tuple_name()}[...]; "
                f"expected {statement.name}[...]",
            )
        for tensor, access in statement.accesses.items():
            for field, texts in (("read", access.read), ("write", access.write)):
                for text in texts:
                    path = f"{where}.accesses.{tensor}.{field}"
                    relation = parse_map(
                        text,
                        source=spec.source,
                        location=f"{spec.where(path)} of {statement.name}",
                    )
                    _check_access(spec, path, statement.name, domain, tensor, relation)
                    rank = relation.dim(isl.dim_type.out)
                    first = ranks.setdefault(tensor, (rank, statement.name))
                    if first[0] != rank:
                        raise _fail(
                            spec,
                            path,
                            f"{statement.name} accesses {tensor} with {rank} indices, "
                            f"but {first[1]} with {first[0]}",
                        )


def _check_access(
    spec: ChainSpec, path: str, name: str, domain: isl.Set, tensor: str, relation: isl.Map
) -> None:
    if relation.get_tuple_name(isl.dim_type.in_) != name or relation.dim(
        isl.dim_type.in_
    ) != domain.dim(isl.dim_type.set):
        raise _fail(
            spec,
            path,
            f"the access of {tensor} starts from "
            f"{relation.get_tuple_name(isl.dim_type.in_)} with "
            f"{relation.dim(isl.dim_type.in_)} indices; expected {name} with "
            f"{domain.dim(isl.dim_type.set)}",
        )
    if relation.get_tuple_name(isl.dim_type.out) != tensor:
        raise _fail(
            spec,
            path,
            f"the access of {tensor} lands in {relation.get_tuple_name(isl.dim_type.out)}[...]",
        )


def _check_order(spec: ChainSpec) -> None:
    """One writer per tensor, one tensor per statement, every read after its write."""
    for k, statement in enumerate(spec.statements):
        if len(statement.written) != 1:
            raise _fail(
                spec,
                f"statements.{k}.accesses",
                f"{statement.name} writes {len(statement.written)} tensors "
                f"({', '.join(statement.written) or 'none'}); a statement writes one",
            )
        tensor = statement.written[0]
        first = spec.writer(tensor)
        if first != k:
            raise _fail(
                spec,
                f"statements.{k}.accesses.{tensor}.write",
                f"{tensor} is written by {spec.statements[first or 0].name} and "
                f"{statement.name}; a tensor has one writer",
            )
    for k, statement in enumerate(spec.statements):
        for tensor in statement.read:
            w = spec.writer(tensor)
            if w is None or w < k:
                continue
            later = spec.statements[w]
            back = [t for t in later.read if (v := spec.writer(t)) is not None and v <= k]
            path = f"statements.{k}.accesses.{tensor}.read"
            if w == k:
                raise _fail(spec, path, f"{statement.name} reads {tensor}, which it writes")
            if back:
                raise _fail(
                    spec,
                    path,
                    f"a cycle: {statement.name} reads {tensor}, which the later {later.name} "
                    f"writes, and {later.name} reads {back[0]}, written by "
                    f"{spec.statements[spec.writer(back[0]) or 0].name}",
                )
            raise _fail(
                spec,
                path,
                f"{statement.name} reads {tensor} before {later.name} writes it; "
                f"list {later.name} first",
            )


def _check(spec: ChainSpec) -> None:
    _check_text(spec)
    _check_order(spec)
    for k, tensor in enumerate(spec.outputs):
        if tensor not in spec.tensors:
            raise UnknownTensorError(
                tensor, spec.tensors, source=spec.source, location=spec.where(f"outputs.{k}")
            )
        if spec.writer(tensor) is None:
            raise _fail(spec, f"outputs.{k}", f"{tensor} is an input: no statement writes it")


def chain_names() -> list[str]:
    """Return the names of the chains in the zoo (``workloads/chains/``).

    Examples
    --------
    >>> "matmul-matmul" in chain_names()
    True
    """
    folder = zoo_folder("workload") / "chains"
    return sorted(p.stem for p in folder.glob("*.yaml"))


def is_chain(source: str | Path) -> bool:
    """Whether ``source`` names a chain: a zoo chain, a YAML file listing ``statements``, or an
    ONNX file (read as one chain of Einsums).

    Examples
    --------
    >>> is_chain("conv-conv"), is_chain("gemm")
    (True, False)
    """
    path = Path(source)
    if path.suffix == ".onnx":
        return path.is_file()
    if path.suffix not in (".yaml", ".yml"):
        return str(source) in chain_names()
    return path.is_file() and "statements" in read_yaml(path)[0]


def load_chain(source: str | Path | ChainSpec) -> ChainSpec:
    """Load a chain from a YAML file, a zoo name (``workloads/chains/NAME.yaml``) or an ONNX
    file (its Conv, MatMul and Gemm nodes from the first to the last, each reading the result
    of the one before it: :func:`tenet.spec.onnx_chain.read_onnx_chain`).

    Examples
    --------
    >>> load_chain("matmul-matmul").intermediates
    ('C',)
    """
    if isinstance(source, ChainSpec):
        return source
    path = Path(source)
    if path.suffix == ".onnx":
        from tenet.spec.onnx_chain import read_onnx_chain  # (it reads into a ChainSpec)

        return read_onnx_chain(path).spec
    if path.suffix not in (".yaml", ".yml"):
        zoo = zoo_folder("workload") / "chains" / f"{source}.yaml"
        if not zoo.is_file():
            raise SpecError(
                f"no chain named {str(source)!r} in the zoo (known: {', '.join(chain_names())})"
            )
        path = zoo
    return ChainSpec.from_yaml(path)
