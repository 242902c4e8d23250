"""Reports: tidy pandas tables of metrics, their exports, and matplotlib plots of them."""

from __future__ import annotations

from tenet.report.designs import (
    DESIGN_COLUMNS,
    DesignPoint,
    design_point,
    evaluate_designs,
    experiment_point,
    label_designs,
    load_designs,
)
from tenet.report.export import read_table, render_table, write_table
from tenet.report.plots import (
    new_axes,
    plot_bandwidth,
    plot_latency,
    plot_reuse,
    plot_space_time,
    plot_utilisation,
    space_time_size,
)
from tenet.report.spacetime import space_time_table, utilisation_table
from tenet.report.tables import comparison_table, reuse_table

__all__ = [
    "DESIGN_COLUMNS",
    "DesignPoint",
    "comparison_table",
    "design_point",
    "evaluate_designs",
    "experiment_point",
    "label_designs",
    "load_designs",
    "new_axes",
    "plot_bandwidth",
    "plot_latency",
    "plot_reuse",
    "plot_space_time",
    "plot_utilisation",
    "read_table",
    "render_table",
    "reuse_table",
    "space_time_size",
    "space_time_table",
    "utilisation_table",
    "write_table",
]
