"""The public entry points: load a problem from specs, files or zoo names, and analyse it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from tenet.metrics.evaluate import Metrics, evaluate
from tenet.model import Architecture, Dataflow, Problem, Workload
from tenet.spec import (
    ArchitectureSpec,
    DataflowSpec,
    WorkloadSpec,
    load_architecture,
    load_dataflow,
    load_workload,
    read_experiment,
)

__all__ = ["load_problem", "load_experiment", "analyze"]

Source = str | Path


def load_problem(
    workload: Source | WorkloadSpec,
    architecture: Source | ArchitectureSpec,
    dataflow: Source | DataflowSpec,
    params: Mapping[str, int] | None = None,
    tensors: Sequence[str] | None = None,
) -> Problem:
    """Build a checked :class:`Problem` from specs, files (YAML or TENET text) or zoo names.

    Size parameters take, in increasing priority, the workload's defaults, the dataflow's
    values and ``params``.

    Examples
    --------
    >>> p = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic", params={"M": 16})
    >>> p.workload.name, p.architecture.name
    ('gemm', 'systolic-2d-8x8')
    """
    w, a = load_workload(workload), load_architecture(architecture)
    d = load_dataflow(dataflow, architecture=a)
    bound = {**w.params, **d.params, **(params or {})}
    return Problem(
        Workload.from_spec(w, bound),
        Architecture.from_spec(a, bound),
        Dataflow.from_spec(d, bound),
        tuple(tensors) if tensors is not None else None,
    )


def load_experiment(path: Source, params: Mapping[str, int] | None = None) -> Problem:
    """Build the :class:`Problem` of a TENET ``experiment_N`` file."""
    experiment = read_experiment(path)
    return load_problem(experiment.workload, experiment.architecture, experiment.dataflow, params)


def analyze(
    workload: Source | WorkloadSpec | None = None,
    architecture: Source | ArchitectureSpec | None = None,
    dataflow: Source | DataflowSpec | None = None,
    *,
    experiment: Source | None = None,
    params: Mapping[str, int] | None = None,
    tensors: Sequence[str] | None = None,
) -> Metrics:
    """Evaluate a dataflow exactly: give ``workload``, ``architecture`` and ``dataflow``, or a
    TENET ``experiment``. The result has a pandas ``table()`` and ``to_dict()``.

    Examples
    --------
    >>> m = analyze("gemm", "systolic-2d-8x8", "gemm-os-systolic", params={"M": 8, "N": 8, "K": 8})
    >>> int(m.table().loc[("A", "read"), "volume_unique"])
    64
    """
    if experiment is not None:
        if any(x is not None for x in (workload, architecture, dataflow)):
            raise TypeError("give either experiment or workload/architecture/dataflow")
        problem = load_experiment(experiment, params)
        if tensors is not None:
            problem = problem.select(tensors)
        return evaluate(problem, name=str(experiment))
    if workload is None or architecture is None or dataflow is None:
        raise TypeError("workload, architecture and dataflow are all needed")
    return evaluate(load_problem(workload, architecture, dataflow, params, tensors))
