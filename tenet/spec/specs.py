"""Specs: the specs of one problem in one record (a workload, an architecture, a dataflow or
none yet, and the size parameters given), with the one rule that binds its size parameters,
and its JSON text (what a worker receives and a results store keys its runs by)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from tenet.errors import SpecError
from tenet.spec.architecture import ArchitectureSpec
from tenet.spec.base import SpecModel
from tenet.spec.dataflow import DataflowSpec
from tenet.spec.params import check_params
from tenet.spec.workload import WorkloadSpec

__all__ = ["Specs"]


@dataclass(frozen=True)
class Specs:
    """A workload, an architecture, a dataflow (None: the mapping is still to be chosen) and
    the size parameters given on top of the specs' own values.

    Examples
    --------
    >>> from tenet.spec import load_architecture, load_dataflow, load_workload
    >>> a = load_architecture("systolic-2d-8x8")
    >>> s = Specs(load_workload("gemm"), a, load_dataflow("gemm-os-systolic", a), {"K": 2})
    >>> s.what
    'gemm on systolic-2d-8x8 with gemm-os-systolic'
    >>> s.bound["M"], s.bound["K"]  # the workload's default, the size given
    (64, 2)
    """

    workload: WorkloadSpec
    architecture: ArchitectureSpec
    dataflow: DataflowSpec | None = None
    params: Mapping[str, int] = field(default_factory=dict)
    """The size parameters given, over the workload's defaults and the dataflow's values."""

    @property
    def bound(self) -> dict[str, int]:
        """Every size parameter's value: in increasing priority, the workload's default, the
        dataflow's value, the one given in :attr:`params`."""
        flow = self.dataflow.params if self.dataflow is not None else {}
        return {**self.workload.params, **flow, **self.params}

    @property
    def defaulted(self) -> frozenset[str]:
        """The size parameters that only the workload's defaults give (neither the dataflow
        nor :attr:`params`): those a symbolic count leaves free.

        Examples
        --------
        >>> from tenet.spec import load_architecture, load_workload
        >>> sorted(Specs(load_workload("gemm"), load_architecture("simba"), None, {"K": 2}
        ...              ).defaulted)
        ['M', 'N']
        """
        flow = self.dataflow.params if self.dataflow is not None else {}
        return frozenset(self.workload.params) - set(flow) - set(self.params)

    @property
    def what(self) -> str:
        """The problem in words, for messages: ``gemm on simba with gemm-os``."""
        head = f"{self.workload.name} on {self.architecture.name}"
        return head if self.dataflow is None else f"{head} with {self.dataflow.name}"

    def checked(self, source: str | None = None) -> Specs:
        """Return these specs once their size parameters are known to be positive and to be
        parameters of one of the specs (``source`` names where they were given).

        Raises
        ------
        SpecError
            A size that is not positive, or that none of the specs has (with the closest
            name).

        Examples
        --------
        >>> from tenet.spec import load_architecture, load_workload
        >>> Specs(load_workload("gemm"), load_architecture("simba"), None, {"m": 2}).checked()
        Traceback (most recent call last):
        ...
        tenet.errors.SpecError: gemm on simba has no size 'm' (sizes: K, M, N); did you mean 'M'?
        """
        check_params(self.params, *self._parts(), what=self.what, source=source)
        return self

    def require_dataflow(self) -> DataflowSpec:
        """Return the dataflow, or refuse specs without one.

        Raises
        ------
        SpecError
            Specs without a dataflow.
        """
        if self.dataflow is None:
            raise SpecError(f"{self.what}: no dataflow given")
        return self.dataflow

    def with_dataflow(self, dataflow: DataflowSpec | None) -> Specs:
        """Return the same workload, architecture and sizes with ``dataflow``."""
        return replace(self, dataflow=dataflow)

    def with_params(self, params: Mapping[str, int]) -> Specs:
        """Return these specs with ``params`` given on top of the sizes already given.

        Examples
        --------
        >>> from tenet.spec import load_architecture, load_workload
        >>> s = Specs(load_workload("gemm"), load_architecture("simba"), None, {"M": 2, "K": 2})
        >>> dict(s.with_params({"K": 4}).params)
        {'M': 2, 'K': 4}
        """
        return replace(self, params={**self.params, **params})

    def to_json(self) -> str:
        """Return the specs and the sizes given as JSON text (keys sorted: equal specs give
        equal text), which :meth:`from_json` reads back (all but the files they came from).

        Examples
        --------
        >>> from tenet.spec import load_architecture, load_workload
        >>> s = Specs(load_workload("gemm"), load_architecture("simba"), None, {"K": 2})
        >>> Specs.from_json(s.to_json()).to_json() == s.to_json()
        True
        """
        flow = self.dataflow
        return json.dumps(
            {
                "workload": self.workload.model_dump(mode="json"),
                "architecture": self.architecture.model_dump(mode="json"),
                "dataflow": None if flow is None else flow.model_dump(mode="json"),
                "params": dict(sorted(self.params.items())),
            },
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, text: str) -> Specs:
        """Return the specs written by :meth:`to_json`."""
        data = json.loads(text)
        flow = data["dataflow"]
        return cls(
            WorkloadSpec.model_validate(data["workload"]),
            ArchitectureSpec.model_validate(data["architecture"]),
            None if flow is None else DataflowSpec.model_validate(flow),
            data["params"],
        )

    def _parts(self) -> tuple[SpecModel, ...]:
        parts: tuple[SpecModel, ...] = (self.workload, self.architecture)
        return parts if self.dataflow is None else (*parts, self.dataflow)
