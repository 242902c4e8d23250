"""tenet: relation-centric modelling of tensor dataflows on spatial accelerators, counted
exactly with isl and barvinok."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from tenet import maestro
from tenet.api import (
    analyze,
    analyze_experiment,
    analyze_symbolic,
    assess,
    assess_experiment,
    check,
    load_experiment,
    load_problem,
    load_specs,
)
from tenet.counting import count
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
from tenet.metrics import Metrics, OriginalReport, TensorMetrics, evaluate
from tenet.metrics.assessment import Assessment
from tenet.model import Architecture, Dataflow, Problem, Workload
from tenet.zoo import architecture, dataflow, network, workload

__all__ = [
    "Architecture",
    "Assessment",
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
    "OriginalReport",
    "TensorMetrics",
    "UnknownTensorError",
    "VersionError",
    "Workload",
    "__version__",
    "analyze",
    "analyze_experiment",
    "analyze_symbolic",
    "assess",
    "assess_experiment",
    "check",
    "architecture",
    "maestro",
    "count",
    "dataflow",
    "evaluate",
    "explore",
    "ExecutionOptions",
    "load_experiment",
    "load_problem",
    "load_specs",
    "network",
    "workload",
]

if TYPE_CHECKING:
    from tenet.dse.explore import explore
    from tenet.dse.run.execution import ExecutionOptions

#: Re-exports imported on first use (they need pandas, slow to import for every command).
_LAZY = {"explore": "tenet.dse.explore", "ExecutionOptions": "tenet.dse.run.execution"}


def _version() -> str:
    """The installed distribution's version (importlib.metadata is slow to import: on use)."""
    from importlib import metadata

    try:
        return metadata.version("tenet")
    except metadata.PackageNotFoundError:  # a source tree used without installing it
        return "0+unknown"


def __getattr__(name: str) -> Any:
    """Import a lazy re-export (or read the version) on first use."""
    if name == "__version__":
        globals()[name] = _version()
        return globals()[name]
    if name not in _LAZY:
        raise AttributeError(f"module 'tenet' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value
