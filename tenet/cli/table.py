"""``tenet table``: the comparison or reuse table of several design points, from TENET
experiment files, a designs YAML file and/or --workload/--arch/--dataflow options."""

from __future__ import annotations

import click

from tenet import designs
from tenet.cli.app import cli, output_option, progress, write_output
from tenet.cli.options import design_inputs
from tenet.designs import DesignPoint
from tenet.report import (
    FORMATS,
    Format,
    clock_columns,
    comparison_table,
    fits_notice,
    format_of,
    render_table,
    reuse_table,
)

__all__ = ["table_command"]


@cli.command("table")
@design_inputs
@click.option(
    "--kind",
    type=click.Choice(["comparison", "reuse"]),
    default="comparison",
    show_default=True,
    help="One row per design point, or one row per design point and tensor.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(sorted(set(FORMATS.values()))),
    help="Output format (default: from the -o suffix, else markdown).",
)
@output_option
def table_command(
    points: list[DesignPoint], kind: str, fmt: Format | None, output: str | None
) -> None:
    """Tabulate several design points side by side (the paper's table layout).

    The comparison leads with each point's headline: latency, energy, DRAM traffic and
    whether it fits (the memory-aware model's, untiled, when the architecture has levels
    inside the outermost, else the array's); the array model's latency and energy follow as
    latency_array_cycles and energy_array.

    Design points come from TENET EXPERIMENTS files, a --designs YAML file, and
    --workload/--arch/--dataflow options (repeat them to name several points; an option given
    once applies to every point).
    """
    chosen: Format = fmt or (format_of(output) if output else "markdown")
    if kind == "comparison":  # (the points in the order of the results)
        assessed = designs.assess_designs(points, progress)
        clocks = [p.specs.architecture.clock_mhz for p in points]
        table = clock_columns(comparison_table(assessed), clocks)
        notice = fits_notice(table.to_dict(orient="records")) if chosen == "markdown" else None
        text = render_table(table, chosen)
        write_output(text if notice is None else f"{notice}\n\n{text}", output)
        return
    write_output(
        render_table(reuse_table(designs.evaluate_designs(points, progress)), chosen), output
    )
