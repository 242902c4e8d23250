"""Reports: tidy pandas tables of metrics and their exports, every matplotlib plot of the
package, and the HTML page of a run. Plots take a table (or plain data) and an optional ``ax``
and return the Axes; the clients (:mod:`tenet.dse`, :mod:`tenet.maestro`, :mod:`tenet.cli`)
compute what they draw."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tenet.lazy import exported, lazy_exports

if TYPE_CHECKING:
    from tenet.report.axes import new_axes
    from tenet.report.banks import *  # noqa: F403
    from tenet.report.comparison import *  # noqa: F403
    from tenet.report.designspace import plot_layers, plot_pareto
    from tenet.report.diagram import space_time_table, utilisation_table
    from tenet.report.export import *  # noqa: F403
    from tenet.report.figures import *  # noqa: F403
    from tenet.report.html import MappingRecord, Report, render_report, write_report
    from tenet.report.plots import *  # noqa: F403
    from tenet.report.tables import (
        DESIGN_COLUMNS,
        axis_label,
        clock_columns,
        comparison_table,
        records_table,
        reuse_table,
        stacked,
    )
    from tenet.report.text import *  # noqa: F403
    from tenet.report.traffic import *  # noqa: F403

_WHOLE = {
    name: module
    for module in ("banks", "comparison", "export", "figures", "plots", "text", "traffic")
    for name in exported(f"tenet.report.{module}")
}
"""The names of the modules re-exported whole (their ``__all__``), with their module."""

#: Each name imported with its module on first use: a command imports the renderers it uses.
_HOME = {
    "new_axes": "axes",
    "plot_layers": "designspace",
    "plot_pareto": "designspace",
    "space_time_table": "diagram",
    "utilisation_table": "diagram",
    "MappingRecord": "html",
    "Report": "html",
    "render_report": "html",
    "write_report": "html",
    "DESIGN_COLUMNS": "tables",
    "axis_label": "tables",
    "clock_columns": "tables",
    "comparison_table": "tables",
    "records_table": "tables",
    "reuse_table": "tables",
    "stacked": "tables",
    **_WHOLE,
}

__all__ = [
    "DESIGN_COLUMNS",
    "MappingRecord",
    "Report",
    "axis_label",
    "clock_columns",
    "comparison_table",
    "new_axes",
    "plot_layers",
    "plot_pareto",
    "records_table",
    "render_report",
    "reuse_table",
    "space_time_table",
    "stacked",
    "utilisation_table",
    "write_report",
    *_WHOLE,
]

_lazy = lazy_exports("tenet.report", _HOME)


def __getattr__(name: str) -> Any:
    """Import a renderer (and its module) on first use."""
    return _lazy(name)
