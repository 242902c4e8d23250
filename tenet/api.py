"""The public entry points: load a problem from specs, files or zoo names, and analyse it."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, TypedDict

from tenet.metrics.assessment import Assessment, assess_problem
from tenet.metrics.evaluate import Metrics
from tenet.metrics.symbolic import SymbolicMetrics, symbolic_metrics
from tenet.model import Problem
from tenet.model.legality import Legality, check_dataflow
from tenet.model.problem import bind_specs
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
    "AssessKeywords",
    "CheckKeywords",
    "ProblemKeywords",
    "SymbolicKeywords",
    "load_specs",
    "load_problem",
    "load_experiment",
    "analyze",
    "analyze_experiment",
    "analyze_symbolic",
    "assess",
    "assess_experiment",
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


class AssessKeywords(ProblemKeywords, total=False):
    """The keyword options of :func:`assess`: those of :func:`load_problem`, and the
    tensors whose updates commute and the instances a PE runs per step of :func:`check`."""

    reductions: Collection[TensorName] | None
    instances_per_step: int | None


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
    return Problem.from_specs(
        *_checked(workload, architecture, dataflow, params),
        params,
        tensors=tuple(tensors) if tensors is not None else None,
        neighbourhood=neighbourhood,
    )


def _checked(
    workload: Source | WorkloadSpec,
    architecture: Source | ArchitectureSpec,
    dataflow: Source | DataflowSpec,
    params: Mapping[str, int] | None,
) -> tuple[WorkloadSpec, ArchitectureSpec, DataflowSpec]:
    """Load the three specs and refuse size parameters they do not have."""
    w, a, d = load_specs(workload, architecture, dataflow)
    if params:
        check_sizes(params, source=None)
        what = f"{w.name} on {a.name} with {d.name}"
        check_param_names(params, param_names(w, a, d), what, source=None)
    return w, a, d


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
    params = options.get("params")
    return check_dataflow(
        *bind_specs(*_checked(workload, architecture, dataflow, params), params),
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
    problem = load_problem(workload, architecture, dataflow, **options)
    return assess_problem(problem, figures=["metrics"]).metrics


def analyze_experiment(path: Source, **options: Unpack[ProblemKeywords]) -> Metrics:
    """Evaluate the dataflow of a TENET ``experiment_N`` file exactly, named by its path;
    ``options`` as in :func:`load_problem`."""
    problem = load_experiment(path, **options)
    return assess_problem(problem, figures=["metrics"], name=str(path)).metrics


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


def assess(
    workload: Source | WorkloadSpec,
    architecture: Source | ArchitectureSpec,
    dataflow: Source | DataflowSpec,
    **options: Unpack[AssessKeywords],
) -> Assessment:
    """Evaluate a dataflow exactly, with its legality report (violations are reported, not
    raised) and the figures of its memory levels, in one record; arguments as in
    :func:`load_problem`, ``reductions`` and ``instances_per_step`` as in :func:`check`.

    Examples
    --------
    >>> a = assess("gemm", "systolic-2d-8x8", "gemm-os-systolic", params={"M": 8, "N": 8, "K": 8})
    >>> a.legal, a.metrics.macs, a.memory.bottleneck  # 8 * 8 * 8 MACs
    (True, 512, 'compute')
    """
    problem = load_problem(workload, architecture, dataflow, **_problem_options(options))
    return _assess(problem, None, options)


def assess_experiment(path: Source, **options: Unpack[AssessKeywords]) -> Assessment:
    """Assess the dataflow of a TENET ``experiment_N`` file as :func:`assess` does, its
    metrics named by its path."""
    return _assess(load_experiment(path, **_problem_options(options)), str(path), options)


def _problem_options(options: AssessKeywords) -> ProblemKeywords:
    return {
        "params": options.get("params"),
        "tensors": options.get("tensors"),
        "neighbourhood": options.get("neighbourhood", "window"),
    }


def _assess(problem: Problem, name: str | None, options: AssessKeywords) -> Assessment:
    return assess_problem(
        problem,
        name=name,
        reductions=options.get("reductions"),
        instances_per_step=options.get("instances_per_step"),
    )
