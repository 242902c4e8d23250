"""Reports: tidy pandas tables of metrics and their exports, every matplotlib plot of the
package, and the HTML page of a run. Plots take a table (or plain data) and an optional ``ax``
and return the Axes; the clients (:mod:`tenet.dse`, :mod:`tenet.maestro`, :mod:`tenet.cli`)
compute what they draw."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tenet.lazy import lazy_exports

if TYPE_CHECKING:
    from tenet.report.axes import new_axes
    from tenet.report.banks import bank_use, plot_bank_use, plot_bank_use_pair
    from tenet.report.comparison import plot_comparison
    from tenet.report.designspace import plot_layers, plot_pareto
    from tenet.report.diagram import space_time_table, utilisation_table
    from tenet.report.export import (
        FORMATS,
        Format,
        format_of,
        read_table,
        render_table,
        write_table,
    )
    from tenet.report.figures import IMAGE_FORMATS, image_format, save_axes, save_figure
    from tenet.report.html import MappingRecord, Report, render_report, write_report
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
        fits_line,
        fits_notice,
        headline_lines,
        kept_lines,
        layout_dict,
        layout_text,
        mapping_row_output,
        records_csv,
        records_text,
        row_csv,
    )
    from tenet.report.traffic import plot_level_latency, plot_traffic

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
    "fits_line",
    "fits_notice",
    "format_of",
    "headline_lines",
    "image_format",
    "kept_lines",
    "layout_dict",
    "layout_text",
    "mapping_row_output",
    "records_csv",
    "records_text",
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

#: Each name imported with its module on first use: a command imports the renderers it uses.
_lazy = lazy_exports(
    "tenet.report",
    {
        "new_axes": "axes",
        "bank_use": "banks",
        "plot_bank_use": "banks",
        "plot_bank_use_pair": "banks",
        "plot_comparison": "comparison",
        "plot_layers": "designspace",
        "plot_pareto": "designspace",
        "space_time_table": "diagram",
        "utilisation_table": "diagram",
        "FORMATS": "export",
        "Format": "export",
        "format_of": "export",
        "read_table": "export",
        "render_table": "export",
        "write_table": "export",
        "IMAGE_FORMATS": "figures",
        "image_format": "figures",
        "save_axes": "figures",
        "save_figure": "figures",
        "MappingRecord": "html",
        "Report": "html",
        "render_report": "html",
        "write_report": "html",
        "plot_level_latency": "traffic",
        "plot_traffic": "traffic",
        "plot_bandwidth": "plots",
        "plot_latency": "plots",
        "plot_reuse": "plots",
        "plot_space_time": "plots",
        "plot_utilisation": "plots",
        "space_time_size": "plots",
        "DESIGN_COLUMNS": "tables",
        "axis_label": "tables",
        "clock_columns": "tables",
        "comparison_table": "tables",
        "records_table": "tables",
        "reuse_table": "tables",
        "stacked": "tables",
        "assessment_text": "text",
        "fits_line": "text",
        "fits_notice": "text",
        "headline_lines": "text",
        "kept_lines": "text",
        "layout_dict": "text",
        "layout_text": "text",
        "mapping_row_output": "text",
        "records_csv": "text",
        "records_text": "text",
        "row_csv": "text",
    },
)


def __getattr__(name: str) -> Any:
    """Import a renderer (and its module) on first use."""
    return _lazy(name)
