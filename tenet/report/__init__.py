"""Reports: tidy pandas tables of metrics and their exports, every matplotlib plot of the
package, and the HTML page of a run. Plots take a table (or plain data) and an optional ``ax``
and return the Axes; the clients (:mod:`tenet.dse`, :mod:`tenet.maestro`, :mod:`tenet.cli`)
compute what they draw."""

from __future__ import annotations

from tenet.report.axes import new_axes
from tenet.report.banks import bank_use, plot_bank_use, plot_bank_use_pair
from tenet.report.comparison import plot_comparison
from tenet.report.designspace import plot_layers, plot_pareto
from tenet.report.diagram import space_time_table, utilisation_table
from tenet.report.export import FORMATS, Format, format_of, read_table, render_table, write_table
from tenet.report.figures import IMAGE_FORMATS, image_format, save_axes, save_figure
from tenet.report.html import MappingRecord, Report, render_report, write_report
from tenet.report.memory import plot_level_latency, plot_traffic
from tenet.report.plots import (
    plot_bandwidth,
    plot_latency,
    plot_reuse,
    plot_space_time,
    plot_utilisation,
    space_time_size,
)
from tenet.report.tables import (
    DESIGN_COLUMNS,
    axis_label,
    clock_columns,
    comparison_table,
    records_table,
    reuse_table,
    stacked,
)
from tenet.report.text import (
    assessment_text,
    layout_dict,
    layout_text,
    mapping_row_output,
    row_csv,
)

__all__ = [
    "DESIGN_COLUMNS",
    "MappingRecord",
    "Report",
    "FORMATS",
    "Format",
    "IMAGE_FORMATS",
    "assessment_text",
    "axis_label",
    "bank_use",
    "clock_columns",
    "comparison_table",
    "format_of",
    "image_format",
    "layout_dict",
    "layout_text",
    "mapping_row_output",
    "row_csv",
    "new_axes",
    "plot_bandwidth",
    "plot_bank_use",
    "plot_bank_use_pair",
    "plot_comparison",
    "plot_latency",
    "plot_layers",
    "plot_level_latency",
    "plot_pareto",
    "plot_reuse",
    "plot_space_time",
    "plot_traffic",
    "plot_utilisation",
    "read_table",
    "render_report",
    "records_table",
    "render_table",
    "reuse_table",
    "save_axes",
    "save_figure",
    "space_time_size",
    "space_time_table",
    "stacked",
    "utilisation_table",
    "write_report",
    "write_table",
]
