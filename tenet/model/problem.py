"""Problem: a workload, an architecture and a dataflow, checked together, with the derived
relations of the relation-centric notation (space-time map, data assignment, neighbours)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import islpy as isl

from tenet.errors import SpecError, UnknownTensorError
from tenet.isl_utils import coalesce, tuple_signature, witness
from tenet.model.architecture import Architecture
from tenet.model.dataflow import Dataflow
from tenet.model.hierarchy import MemoryLevel, check_keep, mapped_levels
from tenet.model.placement import placement_errors
from tenet.model.spacetime import Neighbours
from tenet.model.workload import Workload, check_statement
from tenet.spec.specs import Specs
from tenet.vocab import NEIGHBOURHOODS, Access, Neighbourhood, TensorName

__all__ = ["Problem", "TensorAccess"]


@dataclass(frozen=True)
class TensorAccess:
    """One analysed access: a tensor, read or write, and its relation S -> tensor."""

    tensor: TensorName
    access: Access
    relation: isl.Map


@dataclass(frozen=True)
class Problem:
    """A dataflow of a workload on an architecture, checked on construction.

    Raises
    ------
    SpecError
        Tuple names or arities that do not match.
    DomainNotCoveredError, NotAFunctionError, OutsideArrayError
        A dataflow that is not a valid placement of every instance (with a witness).
    UnknownTensorError
        A selected tensor that the workload does not have.
    """

    workload: Workload
    architecture: Architecture
    dataflow: Dataflow
    tensors: tuple[TensorName, ...] | None = None
    neighbourhood: Neighbourhood = "window"
    placed: bool = field(default=False, compare=False)
    """Whether the dataflow is known to give every instance of the domain one PE of the array
    and one time-stamp (a design-space candidate): its placement is then not checked again."""

    @classmethod
    def from_specs(
        cls,
        specs: Specs,
        *,
        tensors: tuple[TensorName, ...] | None = None,
        neighbourhood: Neighbourhood = "window",
    ) -> Problem:
        """Return the checked problem of ``specs``, each spec parsed with the size parameters
        :attr:`Specs.bound <tenet.spec.Specs.bound>` gives.

        Raises
        ------
        SpecError
            Specs without a dataflow, or that do not fit together.

        Examples
        --------
        >>> from tenet.spec import Specs, load_architecture, load_dataflow, load_workload
        >>> a = load_architecture("systolic-2d-8x8")
        >>> d = load_dataflow("gemm-os-systolic", architecture=a)
        >>> p = Problem.from_specs(Specs(load_workload("gemm"), a, d, {"K": 2}))
        >>> p.workload.domain.count_val().to_python()  # M * N * K = 64 * 64 * 2
        8192
        """
        dataflow = specs.require_dataflow()
        bound = specs.bound
        return cls(
            Workload.from_spec(specs.workload, bound),
            Architecture.from_spec(specs.architecture, bound),
            Dataflow.from_spec(dataflow, bound),
            tensors,
            neighbourhood,
        )

    def __post_init__(self) -> None:
        if self.neighbourhood not in NEIGHBOURHOODS:
            raise SpecError(
                f"unknown neighbourhood {self.neighbourhood!r} (expected one of "
                f"{', '.join(NEIGHBOURHOODS)})",
                location="neighbourhood",
            )
        self._check_tuples()
        if not self.placed:
            self._check_placement()
        self._check_steps()
        selected = self.tensors if self.tensors is not None else self.dataflow.tensors
        for name in selected or ():
            if name not in self.workload.tensors:
                raise UnknownTensorError(name, self.workload.tensors, source=self.dataflow.source)
        spec = self.dataflow.spec
        check_keep(
            self.architecture.levels,
            dict(self.dataflow.keep),
            self.workload.tensors,
            source=self.dataflow.source,
            where=str if spec is None else spec.where,
        )

    def _check_tuples(self) -> None:
        statement = tuple_signature(self.workload.domain, isl.dim_type.set)
        pe = tuple_signature(self.architecture.pe_set, isl.dim_type.set)
        src = self.dataflow.source
        for key, theta in (
            ("space_stamp", self.dataflow.space_stamp),
            ("time_stamp", self.dataflow.time_stamp),
        ):
            check_statement(theta, statement, source=src, location=key)
        got = tuple_signature(self.dataflow.space_stamp, isl.dim_type.out)
        if got != pe:
            raise SpecError(
                f"places instances on {got[0]} with {got[1]} indices, but the architecture's "
                f"PEs are {pe[0]} with {pe[1]}",
                source=src,
                location="space_stamp",
            )

    def _check_placement(self) -> None:
        first = next(
            placement_errors(
                self.workload.domain,
                self.dataflow.space_stamp,
                self.dataflow.time_stamp,
                self.architecture.pe_set,
                source=self.dataflow.source,
            ),
            None,
        )
        if first is not None:
            raise first

    def _check_steps(self) -> None:
        steps, src = self.dataflow.steps, self.dataflow.source
        if steps is None:
            return
        want = tuple_signature(self.dataflow.time_stamp, isl.dim_type.out)
        got = tuple_signature(steps, isl.dim_type.set)
        if got != want:
            raise SpecError(
                f"the steps are {got[0]} with {got[1]} indices, but the time-stamps are "
                f"{want[0]} with {want[1]}",
                source=src,
                location="steps",
            )
        outside = self.timestamps.subtract(steps)
        if not outside.is_empty():
            raise SpecError(
                f"time-stamp {witness(outside)} is not one of the steps",
                source=src,
                location="steps",
            )

    # -- the dataflow -----------------------------------------------------------------------
    @cached_property
    def levels(self) -> tuple[MemoryLevel, ...]:
        """The memory levels as the dataflow uses them: each holding the tensors the dataflow
        keeps there (:func:`tenet.model.hierarchy.mapped_levels`)."""
        return mapped_levels(self.architecture.levels, dict(self.dataflow.keep))

    @cached_property
    def theta_space(self) -> isl.Map:
        """Space-stamp restricted to the domain, S -> PE."""
        return self.dataflow.space_stamp.intersect_domain(self.workload.domain)

    @cached_property
    def theta_time(self) -> isl.Map:
        """Time-stamp restricted to the domain, S -> T."""
        return self.dataflow.time_stamp.intersect_domain(self.workload.domain)

    @cached_property
    def space_time(self) -> isl.Map:
        """Θ: S -> [PE -> T]."""
        return coalesce(self.theta_space.range_product(self.theta_time))

    @cached_property
    def active_pes(self) -> isl.Set:
        """PEs that run at least one instance."""
        return coalesce(self.theta_space.range())

    @cached_property
    def timestamps(self) -> isl.Set:
        """Time-stamps at which at least one instance runs."""
        return coalesce(self.theta_time.range())

    @cached_property
    def occupied(self) -> isl.Set:
        """Space-time points [PE -> T] that run at least one instance."""
        return coalesce(self.space_time.range())

    # -- the accesses and data assignment ------------------------------------------------------
    @cached_property
    def accesses(self) -> tuple[TensorAccess, ...]:
        """The analysed accesses, reads then writes, in workload order."""
        selected = self.tensors if self.tensors is not None else self.dataflow.tensors
        return tuple(
            TensorAccess(t, a, m)
            for t, a, m in self.workload.accesses
            if selected is None or t in selected
        )

    def assignment(self, access: TensorAccess) -> isl.Map:
        """Return the data assignment Θ⁻¹∘A: [PE -> T] -> tensor elements held there."""
        return coalesce(access.relation.apply_domain(self.space_time))

    # -- neighbours ------------------------------------------------------------------------------
    @cached_property
    def neighbours(self) -> Neighbours:
        """The neighbour maps of the active PEs at the occupied time-stamps."""
        return Neighbours(self.active_pes, self.timestamps, self.architecture, self.neighbourhood)
