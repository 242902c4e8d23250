"""The public entry points: load a problem from specs, files or zoo names, and analyse it."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, TypedDict

from tenet.metrics.assessment import Assessment, assess_problem
from tenet.metrics.evaluate import Metrics
from tenet.metrics.symbolic import SymbolicMetrics, symbolic_metrics
from tenet.model import Architecture, Dataflow, Problem, Workload
from tenet.model.legality import Legality, check_dataflow
from tenet.spec import (
    ArchitectureSpec,
    DataflowSpec,
    Specs,
    WorkloadSpec,
    load_architecture,
    load_dataflow,
    load_workload,
    read_experiment,
)
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
    dataflow: Source | DataflowSpec | None = None,
    params: Mapping[str, int] | None = None,
) -> Specs:
    """Load the specs of a problem, each a spec, a file (YAML or TENET text) or a zoo name
    (no ``dataflow``: the mapping is still to be chosen), with the size parameters ``params``;
    the dataflow's array parameters default to the architecture's extents.

    Raises
    ------
    SpecError
        A spec that cannot be read, or a size that is not positive or that none of the specs
        has.

    Examples
    --------
    >>> s = load_specs("gemm", "systolic-2d-8x8", "gemm-os-systolic", {"K": 2})
    >>> s.what, s.bound["K"]
    ('gemm on systolic-2d-8x8 with gemm-os-systolic', 2)
    """
    w, a = load_workload(workload), load_architecture(architecture)
    d = None if dataflow is None else load_dataflow(dataflow, architecture=a)
    return Specs(w, a, d, dict(params or {})).checked()


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
        load_specs(workload, architecture, dataflow, params),
        tensors=tuple(tensors) if tensors is not None else None,
        neighbourhood=neighbourhood,
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
    specs = load_specs(workload, architecture, dataflow, options.get("params"))
    bound = specs.bound
    return check_dataflow(
        Workload.from_spec(specs.workload, bound),
        Architecture.from_spec(specs.architecture, bound),
        Dataflow.from_spec(specs.require_dataflow(), bound),
        reductions=options.get("reductions"),
        instances_per_step=options.get("instances_per_step"),
    )


def load_experiment(path: Source, **options: Unpack[ProblemKeywords]) -> Problem:
    """Build the :class:`Problem` of a TENET ``experiment_N`` file; ``options`` as in
    :func:`load_problem`."""
    specs = read_experiment(path).specs
    return load_problem(specs.workload, specs.architecture, specs.require_dataflow(), **options)


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
    specs = load_specs(workload, architecture, dataflow, options.get("params"))
    return symbolic_metrics(specs, options.get("neighbourhood", "window"))


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
