"""``tenet plot KIND``: draw a report plot of design points into a PNG, SVG or PDF file
(written through a temporary file renamed into place)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import click

from tenet import report
from tenet.cli.app import cli, progress, working
from tenet.cli.checks import Refusal, refuses
from tenet.cli.options import design_inputs, save_plot, written_file
from tenet.designs import DesignPoint, evaluate_designs
from tenet.errors import TenetError
from tenet.report import DESIGN_COLUMNS

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_command"]

_Command = TypeVar("_Command", bound=Callable[..., object])

PLOT_KINDS = ("reuse", "latency", "bandwidth", "utilisation", "spacetime")


MAX_PIXELS = 10**8
"""The largest image drawn (pixels, width times height at the resolution asked)."""


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
        with working("space-time points"):
            table = report.space_time_table(points[0].problem(), max_points=max_points)
        return report.plot_space_time(
            table, report.new_axes(size or report.space_time_size(table), dpi)
        )
    ax = report.new_axes(size, dpi)
    if kind == "utilisation":
        tables = [
            report.utilisation_table(p.problem()).assign(
                **dict(zip(DESIGN_COLUMNS, p.key, strict=True))
            )
            for p in progress(points)
        ]
        by_design = by if len(points) > 1 else None
        return report.plot_utilisation(report.stacked(tables), ax, by=by_design)
    results = evaluate_designs(points, progress)
    if kind == "reuse":
        return report.plot_reuse(report.reuse_table(results), ax, by=by, log=log)
    draw = report.plot_latency if kind == "latency" else report.plot_bandwidth
    return draw(report.comparison_table(results), ax, by=by)


def _at_least(flag: str, least: int, default: int, text: str) -> Callable[[_Command], _Command]:
    """An integer option of at least ``least``, with its default shown in the help."""
    return click.option(
        flag, type=click.IntRange(min=least), default=default, show_default=True, help=text
    )


@refuses(
    Refusal("--log", "KIND", "only the reuse plot has a reuse-factor axis", ("reuse",), True),
    Refusal("--max-points", "KIND", "only the space-time diagram has points", ("spacetime",), True),
    Refusal("--by", "KIND", "the space-time diagram draws one design point", ("spacetime",)),
)
@cli.command("plot")
@click.argument("kind", type=click.Choice(PLOT_KINDS))
@design_inputs
@written_file("--output", "-o", help="Image file: .png, .svg or .pdf.", image=True, required=True)
@click.option("--size", nargs=2, type=float, help="Figure width and height, inches.")
@_at_least("--dpi", 10, 100, "Resolution, pixels per inch.")
@click.option(
    "--by",
    type=click.Choice(DESIGN_COLUMNS),
    default="design",
    show_default=True,
    help="Column naming the groups of bars (or the lines of utilisation).",
)
@click.option("--log", is_flag=True, help="reuse: logarithmic reuse-factor axis.")
@_at_least("--max-points", 1, 256, "spacetime: the most (PE, time-stamp) points to draw.")
def plot_command(
    kind: str,
    points: list[DesignPoint],
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
    try:
        ax = _draw(kind, points, size, dpi, by, log, max_points)
    except ValueError as exc:
        if isinstance(exc, TenetError):
            raise
        raise click.ClickException(str(exc)) from exc
    save_plot(ax, output, "--output")
