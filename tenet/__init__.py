"""tenet: relation-centric modelling of tensor dataflows on spatial accelerators, counted
exactly with isl and barvinok."""

from __future__ import annotations

from tenet.api import analyze, check, load_experiment, load_problem
from tenet.compare import compare
from tenet.counting import count
from tenet.dse.explore import explore
from tenet.errors import (
    CountingError,
    DataflowError,
    DomainNotCoveredError,
    IslSyntaxError,
    NotAFunctionError,
    OutsideArrayError,
    SpecError,
    TenetError,
    UnknownTensorError,
    VersionError,
)
from tenet.metrics import Metrics, TenetReport, TensorMetrics, evaluate
from tenet.model import Architecture, Dataflow, Problem, Workload
from tenet.zoo import arch, dataflow, network, workload

__all__ = [
    "Architecture",
    "CountingError",
    "Dataflow",
    "DataflowError",
    "DomainNotCoveredError",
    "IslSyntaxError",
    "Metrics",
    "NotAFunctionError",
    "OutsideArrayError",
    "Problem",
    "SpecError",
    "TenetError",
    "TenetReport",
    "TensorMetrics",
    "UnknownTensorError",
    "VersionError",
    "Workload",
    "__version__",
    "analyze",
    "check",
    "arch",
    "compare",
    "count",
    "dataflow",
    "evaluate",
    "explore",
    "load_experiment",
    "load_problem",
    "network",
    "workload",
]

__version__ = "0.1.0"
