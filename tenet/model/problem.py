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
from tenet.model.placement import placement_errors
from tenet.model.spacetime import (
    identity,
    neighbours,
    previous,
    space_window,
    step_back,
    time_window,
)
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
    def time_step(self) -> isl.Map:
        """t -> the previous occupied time-stamp, in lexicographic order."""
        return step_back(self.timestamps)

    def _linked(self, time: isl.Map, *, include_self: bool) -> isl.Map:
        """(PE, t) -> (linked PE, or the PE itself with ``include_self``, t') for t -> t' in
        ``time``, minus the point itself."""
        space = space_window(self.active_pes, self.architecture.sources, include_self=include_self)
        return neighbours(space, time)

    @cached_property
    def default_neighbours(self) -> isl.Map:
        """Linked PE or itself, same or previous time-stamp, minus the point itself."""
        return self._linked(time_window(self.timestamps, self.time_step), include_self=True)

    @cached_property
    def temporal_neighbours(self) -> isl.Map:
        """(PE, t) -> (PE, the previous occupied time-stamp)."""
        return self.temporal_neighbours_at(1)

    def temporal_neighbours_at(self, distance: int) -> isl.Map:
        """Return (PE, t) -> (PE, the ``distance``-th previous occupied time-stamp)."""
        return neighbours(
            identity(self.active_pes), previous(self.timestamps, self.time_step, distance)
        )

    @cached_property
    def spatial_neighbours(self) -> isl.Map:
        """(PE, t) -> (linked PE, t - delay of the link): registered links one step earlier,
        multicast wires the same step."""
        result: isl.Map | None = None
        for link in self.architecture.links:
            space = space_window(self.active_pes, link.relation.reverse(), include_self=False)
            time = identity(self.timestamps) if link.delay == 0 else self.time_step
            part = neighbours(space, time)
            result = part if result is None else result.union(part)
        if result is None:
            return self._linked(identity(self.timestamps), include_self=False)
        return result

    @cached_property
    def linked_neighbours(self) -> isl.Map:
        """Linked PE (not itself), same or previous time-stamp (the original's spatial map)."""
        return self._linked(time_window(self.timestamps, self.time_step), include_self=False)

    @cached_property
    def delivery_neighbours(self) -> isl.Map:
        """Temporal or spatial neighbours: where the array itself delivers data from."""
        return self.temporal_neighbours.union(self.spatial_neighbours)

    @property
    def reuse_neighbours(self) -> isl.Map:
        """The neighbour map of the unique volume, as :attr:`neighbourhood` selects."""
        if self.neighbourhood == "links":
            return self.delivery_neighbours
        return self.default_neighbours
