"""The public entry points: load a problem from specs, files or zoo names, and analyse it."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Literal, overload

from tenet.metrics.evaluate import Metrics, evaluate
from tenet.metrics.symbolic import SymbolicMetrics, symbolic_metrics
from tenet.model import Architecture, Dataflow, Problem, Workload
from tenet.model.legality import Legality, check_dataflow
from tenet.spec import (
    ArchitectureSpec,
    DataflowSpec,
    WorkloadSpec,
    load_architecture,
    load_dataflow,
    load_workload,
    read_experiment,
)
from tenet.spec.params import check_param_names, check_sizes, param_names
from tenet.vocab import Neighbourhood, Source, TensorName

__all__ = ["load_specs", "load_problem", "load_experiment", "analyze", "check"]


def load_specs(
    workload: Source | WorkloadSpec,
    architecture: Source | ArchitectureSpec,
    dataflow: Source | DataflowSpec,
) -> tuple[WorkloadSpec, ArchitectureSpec, DataflowSpec]:
    """Load the three specs of a problem, each a spec, a file (YAML or TENET text) or a zoo
    name; the dataflow's array parameters default to the architecture's extents.

    Examples
    --------
    >>> w, a, d = load_specs("gemm", "systolic-2d-8x8", "gemm-os-systolic")
    >>> w.name, a.name, d.name
    ('gemm', 'systolic-2d-8x8', 'gemm-os-systolic')
    """
    w, a = load_workload(workload), load_architecture(architecture)
    return w, a, load_dataflow(dataflow, architecture=a)


def load_problem(
    workload: Source | WorkloadSpec,
    architecture: Source | ArchitectureSpec,
    dataflow: Source | DataflowSpec,
    params: Mapping[str, int] | None = None,
    tensors: Sequence[str] | None = None,
    neighbourhood: Neighbourhood = "window",
) -> Problem:
    """Build a checked :class:`Problem` from specs, files (YAML or TENET text) or zoo names.

    Size parameters take, in increasing priority, the workload's defaults, the dataflow's
    values and ``params``. ``tensors`` limits the analysis to some tensors; ``neighbourhood``
    says where a point finds data without fetching it (:data:`tenet.vocab.Neighbourhood`).

    Examples
    --------
    >>> p = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic", params={"M": 16})
    >>> p.workload.name, p.architecture.name
    ('gemm', 'systolic-2d-8x8')
    """
    return Problem(
        *_build(workload, architecture, dataflow, params),
        tuple(tensors) if tensors is not None else None,
        neighbourhood,
    )


def _build(
    workload: Source | WorkloadSpec,
    architecture: Source | ArchitectureSpec,
    dataflow: Source | DataflowSpec,
    params: Mapping[str, int] | None,
) -> tuple[Workload, Architecture, Dataflow]:
    """Load the three specs and bind their size parameters (not yet checked together)."""
    w, a, d = load_specs(workload, architecture, dataflow)
    if params:
        check_sizes(params, source=None)
        what = f"{w.name} on {a.name} with {d.name}"
        check_param_names(params, param_names(w, a, d), what, source=None)
    bound = {**w.params, **d.params, **(params or {})}
    return (
        Workload.from_spec(w, bound),
        Architecture.from_spec(a, bound),
        Dataflow.from_spec(d, bound),
    )


def check(
    workload: Source | WorkloadSpec,
    architecture: Source | ArchitectureSpec,
    dataflow: Source | DataflowSpec,
    params: Mapping[str, int] | None = None,
    *,
    reductions: Collection[TensorName] | None = None,
    instances_per_step: int | None = None,
) -> Legality:
    """Check the legality of a dataflow given by specs, files or zoo names, collecting every
    violation with a witness (see :mod:`tenet.model.legality`). ``reductions`` defaults to
    the workload's, ``instances_per_step`` to the architecture's.

    Examples
    --------
    >>> check("gemm", "systolic-2d-8x8", "gemm-os-systolic", {"M": 16, "N": 16, "K": 16}).legal
    True
    """
    return check_dataflow(
        *_build(workload, architecture, dataflow, params),
        reductions=reductions,
        instances_per_step=instances_per_step,
    )


def load_experiment(
    path: Source,
    params: Mapping[str, int] | None = None,
    tensors: Sequence[str] | None = None,
    neighbourhood: Neighbourhood = "window",
) -> Problem:
    """Build the :class:`Problem` of a TENET ``experiment_N`` file."""
    experiment = read_experiment(path)
    return load_problem(
        experiment.workload,
        experiment.architecture,
        experiment.dataflow,
        params,
        tensors,
        neighbourhood,
    )


@overload
def analyze(
    workload: Source | WorkloadSpec,
    architecture: Source | ArchitectureSpec,
    dataflow: Source | DataflowSpec,
    *,
    params: Mapping[str, int] | None = None,
    tensors: Sequence[str] | None = None,
    neighbourhood: Neighbourhood = "window",
    symbolic: Literal[False] = False,
) -> Metrics: ...


@overload
def analyze(
    *,
    experiment: Source,
    params: Mapping[str, int] | None = None,
    tensors: Sequence[str] | None = None,
    neighbourhood: Neighbourhood = "window",
) -> Metrics: ...


@overload
def analyze(
    workload: Source | WorkloadSpec,
    architecture: Source | ArchitectureSpec,
    dataflow: Source | DataflowSpec,
    *,
    params: Mapping[str, int] | None = None,
    neighbourhood: Neighbourhood = "window",
    symbolic: Literal[True],
) -> SymbolicMetrics: ...


def analyze(
    workload: Source | WorkloadSpec | None = None,
    architecture: Source | ArchitectureSpec | None = None,
    dataflow: Source | DataflowSpec | None = None,
    *,
    experiment: Source | None = None,
    params: Mapping[str, int] | None = None,
    tensors: Sequence[str] | None = None,
    neighbourhood: Neighbourhood = "window",
    symbolic: bool = False,
) -> Metrics | SymbolicMetrics:
    """Evaluate a dataflow exactly: give ``workload``, ``architecture`` and ``dataflow``, or a
    TENET ``experiment``. The result has a pandas ``table()`` and ``to_dict()``; options as
    in :func:`load_problem`. With ``symbolic``, every count is a formula in the workload's
    size parameters not given in ``params`` (:mod:`tenet.metrics.symbolic`; all tensors).

    Examples
    --------
    >>> m = analyze("gemm", "systolic-2d-8x8", "gemm-os-systolic", params={"M": 8, "N": 8, "K": 8})
    >>> int(m.table().loc[("A", "read"), "volume_unique"])
    64
    >>> s = analyze("gemm", "systolic-2d-8x8", "gemm-os-systolic", symbolic=True)
    >>> s.at(M=8, N=8, K=8)["volume_unique[A.read]"]
    64
    """
    if symbolic:
        if workload is None or architecture is None or dataflow is None:
            raise TypeError("symbolic metrics need workload, architecture and dataflow")
        return symbolic_metrics(
            *load_specs(workload, architecture, dataflow), params, neighbourhood
        )
    if experiment is not None:
        if any(x is not None for x in (workload, architecture, dataflow)):
            raise TypeError("give either experiment or workload/architecture/dataflow")
        problem = load_experiment(experiment, params, tensors, neighbourhood)
        return evaluate(problem, name=str(experiment))
    if workload is None or architecture is None or dataflow is None:
        raise TypeError("workload, architecture and dataflow are all needed")
    return evaluate(load_problem(workload, architecture, dataflow, params, tensors, neighbourhood))
