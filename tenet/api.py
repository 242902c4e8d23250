"""The public entry points: load a problem from specs, files or zoo names, and analyse it."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, TypedDict

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
from tenet.spec.params import check_param_names, check_params, check_sizes, param_names
from tenet.vocab import Neighbourhood, Source, TensorName

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "CheckKeywords",
    "ProblemKeywords",
    "SymbolicKeywords",
    "load_specs",
    "load_problem",
    "load_experiment",
    "analyze",
    "analyze_experiment",
    "analyze_symbolic",
    "check",
]


class SymbolicKeywords(TypedDict, total=False):
    """The keyword options of a problem counted as formulas (:func:`analyze_symbolic`)."""

    params: Mapping[str, int] | None
    neighbourhood: Neighbourhood


class CheckKeywords(TypedDict, total=False):
    """The keyword options of :func:`check`: size parameters, the tensors whose updates
    commute (default: the workload's reductions), instances a PE runs per step (default: the
    architecture's)."""

    params: Mapping[str, int] | None
    reductions: Collection[TensorName] | None
    instances_per_step: int | None


class ProblemKeywords(SymbolicKeywords, total=False):
    """The keyword options of a problem, as :func:`load_problem` takes them."""

    tensors: Sequence[str] | None


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
    **options: Unpack[CheckKeywords],
) -> Legality:
    """Check the legality of a dataflow given by specs, files or zoo names, collecting every
    violation with a witness (see :mod:`tenet.model.legality`); ``options`` as in
    :class:`CheckKeywords`.

    Examples
    --------
    >>> sizes = {"M": 16, "N": 16, "K": 16}
    >>> check("gemm", "systolic-2d-8x8", "gemm-os-systolic", params=sizes).legal
    True
    """
    return check_dataflow(
        *_build(workload, architecture, dataflow, options.get("params")),
        reductions=options.get("reductions"),
        instances_per_step=options.get("instances_per_step"),
    )


def load_experiment(path: Source, **options: Unpack[ProblemKeywords]) -> Problem:
    """Build the :class:`Problem` of a TENET ``experiment_N`` file; ``options`` as in
    :func:`load_problem`."""
    experiment = read_experiment(path)
    return load_problem(
        experiment.workload, experiment.architecture, experiment.dataflow, **options
    )


def analyze(
    workload: Source | WorkloadSpec,
    architecture: Source | ArchitectureSpec,
    dataflow: Source | DataflowSpec,
    **options: Unpack[ProblemKeywords],
) -> Metrics:
    """Evaluate a dataflow exactly; the result has a pandas ``table()`` and ``to_dict()``;
    arguments as in :func:`load_problem`.

    Examples
    --------
    >>> m = analyze("gemm", "systolic-2d-8x8", "gemm-os-systolic", params={"M": 8, "N": 8, "K": 8})
    >>> int(m.table().loc[("A", "read"), "volume_unique"])
    64
    """
    return evaluate(load_problem(workload, architecture, dataflow, **options))


def analyze_experiment(path: Source, **options: Unpack[ProblemKeywords]) -> Metrics:
    """Evaluate the dataflow of a TENET ``experiment_N`` file exactly, named by its path;
    ``options`` as in :func:`load_problem`."""
    return evaluate(load_experiment(path, **options), name=str(path))


def analyze_symbolic(
    workload: Source | WorkloadSpec,
    architecture: Source | ArchitectureSpec,
    dataflow: Source | DataflowSpec,
    **options: Unpack[SymbolicKeywords],
) -> SymbolicMetrics:
    """Count every metric of a dataflow (all tensors) once, as formulas in the workload's
    size parameters not given in ``params`` (:mod:`tenet.metrics.symbolic`); ``options`` as
    in :func:`load_problem`, but for ``tensors``.

    Examples
    --------
    >>> s = analyze_symbolic("gemm", "systolic-2d-8x8", "gemm-os-systolic")
    >>> s.at(M=8, N=8, K=8)["volume_unique[A.read]"]
    64
    """
    specs = load_specs(workload, architecture, dataflow)
    what = f"{specs[0].name} on {specs[1].name} with {specs[2].name}"
    check_params(options.get("params"), *specs, what=what)
    return symbolic_metrics(*specs, options.get("params"), options.get("neighbourhood", "window"))
