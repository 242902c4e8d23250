"""tenet: relation-centric modelling of tensor dataflows on spatial accelerators, counted
exactly with isl and barvinok."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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
from tenet.lazy import exported, lazy_exports

_API = dict.fromkeys(exported("tenet.api"), "api")
"""The entry points, every name of :mod:`tenet.api` (its ``__all__``)."""

__all__ = [
    "HEADLINE_FIELDS",
    "ROW_FIELDS",
    "mapping_row",
    "bound_field",
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
    "architecture",
    "clock_figures",
    "count",
    "dataflow",
    "evaluate",
    "explore",
    "maestro",
    "network",
    "workload",
    *_API,
]

if TYPE_CHECKING:
    from tenet import maestro
    from tenet.api import *  # noqa: F403
    from tenet.counting import count
    from tenet.dse.explore import explore
    from tenet.dse.run.execution import ExecutionOptions
    from tenet.metrics import Metrics, OriginalReport, TensorMetrics, evaluate
    from tenet.metrics.assessment import Assessment
    from tenet.metrics.clock import clock_figures
    from tenet.metrics.row import HEADLINE_FIELDS, ROW_FIELDS, bound_field, mapping_row
    from tenet.model import Architecture, Dataflow, Problem, Workload
    from tenet.zoo import architecture, dataflow, network, workload

    __version__: str

#: Every re-export but the errors is imported on first use: the command line starts without
#: isl, pydantic or pandas, and each command imports what it uses.
_lazy = lazy_exports(
    "tenet",
    {
        **_API,
        "count": "counting",
        "explore": "dse.explore",
        "ExecutionOptions": "dse.run.execution",
        **dict.fromkeys(["Metrics", "OriginalReport", "TensorMetrics", "evaluate"], "metrics"),
        "Assessment": "metrics.assessment",
        "clock_figures": "metrics.clock",
        "HEADLINE_FIELDS": "metrics.row",
        "ROW_FIELDS": "metrics.row",
        "mapping_row": "metrics.row",
        "bound_field": "metrics.row",
        **dict.fromkeys(["Architecture", "Dataflow", "Problem", "Workload"], "model"),
        **dict.fromkeys(["architecture", "dataflow", "network", "workload"], "zoo"),
    },
)


def _version() -> str:
    """The installed distribution's version (importlib.metadata is slow to import: on use)."""
    from importlib import metadata

    try:
        return metadata.version("tenet")
    except metadata.PackageNotFoundError:  # a source tree used without installing it
        return "0+unknown"


def __getattr__(name: str) -> Any:
    """Import a lazy re-export, the ``maestro`` package, or read the version, on first use."""
    if name == "__version__":
        globals()[name] = _version()
        return globals()[name]
    if name == "maestro":
        return importlib.import_module("tenet.maestro")
    return _lazy(name)
