"""``tenet plot KIND``: draw a report plot of design points into a PNG, SVG or PDF file
(written through a temporary file renamed into place)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

import click

from tenet.cli.app import cli, progress
from tenet.cli.checks import writable_path
from tenet.cli.table import collect_designs, design_inputs
from tenet.errors import TenetError
from tenet.files import write_atomically
from tenet.report.designs import DESIGN_COLUMNS, DesignPoint, evaluate_designs
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

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["plot_command", "save_figure", "image_path"]

IMAGE_FORMATS = ("png", "svg", "pdf")
KINDS = ("reuse", "latency", "bandwidth", "utilisation", "spacetime")


MAX_PIXELS = 10**8
"""The largest image drawn (pixels, width times height at the resolution asked)."""


def _image_format(output: str, option: str = "--output") -> str:
    suffix = Path(output).suffix.lower().lstrip(".")
    if suffix not in IMAGE_FORMATS:
        raise click.BadParameter(
            f"expected a .png, .svg or .pdf file, got {output!r}", param_hint=option
        )
    return suffix


def image_path(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Click callback: check an image file option (suffix, and that it can be written) while
    the command line is parsed."""
    if value is not None:
        option = max(getattr(param, "opts", None) or ["--output"], key=len)
        _image_format(value, option)
        writable_path(ctx, param, value)
    return value


def save_figure(figure: Figure, output: str, option: str = "--output") -> None:
    """Save ``figure`` to ``output`` (format from its suffix) through a temporary file."""
    image_format = _image_format(output, option)
    write_atomically(output, lambda tmp: figure.savefig(tmp, format=image_format))


def _draw(
    kind: str,
    points: list[DesignPoint],
    size: tuple[float, float] | None,
    dpi: int,
    by: str,
    log: bool,
    max_points: int,
) -> Axes:
    """Draw ``kind`` for ``points`` on a new figure; return its Axes."""
    if kind == "spacetime":
        if len(points) != 1:
            raise click.UsageError(f"spacetime draws one design point, got {len(points)}")
        table = space_time_table(points[0].problem(), max_points=max_points)
        return plot_space_time(table, new_axes(size or space_time_size(table), dpi))
    if kind == "utilisation":
        tables = [
            utilisation_table(p.problem()).assign(**dict(zip(DESIGN_COLUMNS, p.key, strict=True)))
            for p in progress(points)
        ]
        import pandas as pd

        return plot_utilisation(
            pd.concat(tables, ignore_index=True),
            new_axes(size, dpi),
            by=by if len(points) > 1 else None,
        )
    results = evaluate_designs(points, progress)
    if kind == "reuse":
        return plot_reuse(reuse_table(results), new_axes(size, dpi), by=by, log=log)
    draw = plot_latency if kind == "latency" else plot_bandwidth
    return draw(comparison_table(results), new_axes(size, dpi), by=by)


@cli.command("plot")
@click.argument("kind", type=click.Choice(KINDS))
@design_inputs
@click.option(
    "--output",
    "-o",
    required=True,
    type=click.Path(dir_okay=False),
    callback=image_path,
    help="Image file: .png, .svg or .pdf.",
)
@click.option("--size", nargs=2, type=float, help="Figure width and height, inches.")
@click.option(
    "--dpi",
    type=click.IntRange(min=10),
    default=100,
    show_default=True,
    help="Resolution, pixels per inch.",
)
@click.option(
    "--by",
    type=click.Choice(DESIGN_COLUMNS),
    default="design",
    show_default=True,
    help="Column naming the groups of bars (or the lines of utilisation).",
)
@click.option("--log", is_flag=True, help="reuse: logarithmic reuse-factor axis.")
@click.option(
    "--max-points",
    type=click.IntRange(min=1),
    default=256,
    show_default=True,
    help="spacetime: the most (PE, time-stamp) points to draw.",
)
def plot_command(
    kind: str,
    experiments: tuple[str, ...],
    designs_file: str | None,
    workload: tuple[str, ...],
    arch: tuple[str, ...],
    dataflow: tuple[str, ...],
    param: tuple[str, ...],
    output: str,
    size: tuple[float, float] | None,
    dpi: int,
    by: str,
    log: bool,
    max_points: int,
) -> None:
    """Draw KIND for design points into an image file.

    KIND is reuse (reuse factor per tensor), latency (compute / ingress / egress), bandwidth
    (IBW and SBW), utilisation (active PEs per time-stamp) or spacetime (the space-time
    diagram of one small design point). Design points are named as for `tenet table`.
    """
    width, height = size or (6.4, 4.8)  # matplotlib's default figure size
    if not (width > 0 and height > 0) or width * height * dpi * dpi > MAX_PIXELS:
        raise click.BadParameter(
            f"a {width:g} x {height:g} inch figure at {dpi} dpi: expected a positive size "
            f"of at most {MAX_PIXELS:.0e} pixels",
            param_hint="--size/--dpi",
        )
    points = collect_designs(experiments, designs_file, workload, arch, dataflow, param)
    try:
        ax = _draw(kind, points, size, dpi, by, log, max_points)
    except ValueError as exc:
        if isinstance(exc, TenetError):
            raise
        raise click.ClickException(str(exc)) from exc
    save_figure(cast("Figure", ax.figure), output)  # new_axes makes top-level figures
