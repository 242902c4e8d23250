"""tenet: relation-centric modelling of tensor dataflows on spatial accelerators, counted
exactly with isl and barvinok."""

from __future__ import annotations

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
from tenet.lazy import lazy_exports
from tenet.metrics import Metrics, OriginalReport, TensorMetrics, evaluate
from tenet.metrics.assessment import Assessment
from tenet.metrics.clock import clock_figures
from tenet.metrics.row import ROW_FIELDS, mapping_row
from tenet.model import Architecture, Dataflow, Problem, Workload
from tenet.zoo import architecture, dataflow, network, workload

__all__ = [
    "ROW_FIELDS",
    "mapping_row",
    "Architecture",
    "Assessment",
    "CountingError",
    "Dataflow",
    "DataflowError",
    "DomainNotCoveredError",
    "ExecutionOptions",
    "IslSyntaxError",
    "Metrics",
    "NotAFunctionError",
    "OriginalReport",
    "OutsideArrayError",
    "Problem",
    "SpecError",
    "TenetError",
    "TensorMetrics",
    "UnknownTensorError",
    "VersionError",
    "Workload",
    "__version__",
    "analyze",
    "analyze_experiment",
    "analyze_symbolic",
    "architecture",
    "assess",
    "assess_experiment",
    "check",
    "clock_figures",
    "count",
    "dataflow",
    "evaluate",
    "explore",
    "load_experiment",
    "load_problem",
    "load_specs",
    "maestro",
    "network",
    "workload",
]

if TYPE_CHECKING:
    from tenet.dse.explore import explore
    from tenet.dse.run.execution import ExecutionOptions

#: Re-exports imported on first use (they need pandas, slow to import for every command).
_lazy = lazy_exports("tenet", {"explore": "dse.explore", "ExecutionOptions": "dse.run.execution"})


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
    return _lazy(name)
