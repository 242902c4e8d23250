"""``tenet table``: the comparison or reuse table of several design points, from TENET
experiment files, a designs YAML file and/or --workload/--arch/--dataflow options."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import replace

import click

from tenet import designs
from tenet.cli.app import cli, output_option, parse_params, progress, write_output
from tenet.designs import DesignPoint
from tenet.report.export import FORMATS, Format, format_of, render_table
from tenet.report.tables import comparison_table, reuse_table

__all__ = ["design_inputs", "collect_designs", "table_command"]


def design_inputs(command: Callable[..., None]) -> Callable[..., None]:
    """Add the options that name design points (shared by ``table`` and ``plot``); the command
    gets the labelled points as one list (``points=``, :func:`collect_designs`) and its own
    options as they are."""

    @functools.wraps(command)
    def with_points(
        *,
        experiments: tuple[str, ...],
        designs_file: str | None,
        workload: tuple[str, ...],
        arch: tuple[str, ...],
        dataflow: tuple[str, ...],
        param: tuple[str, ...],
        **own: object,
    ) -> None:
        points = collect_designs(experiments, designs_file, workload, arch, dataflow, param)
        command(points=points, **own)

    options = [
        click.argument("experiments", nargs=-1, type=click.Path(dir_okay=False)),
        click.option(
            "--designs",
            "designs_file",
            type=click.Path(dir_okay=False),
            help="YAML file listing design points (see docs/reports.md).",
        ),
        click.option(
            "--workload", "-w", multiple=True, help="Workload: file or zoo name (repeatable)."
        ),
        click.option(
            "--arch", "-a", multiple=True, help="Architecture: file or zoo name (repeatable)."
        ),
        click.option(
            "--dataflow", "-d", multiple=True, help="Dataflow: file or zoo name (repeatable)."
        ),
        click.option(
            "--param", "-p", multiple=True, help="Size parameter NAME=VALUE for every point."
        ),
    ]
    decorated: Callable[..., None] = with_points
    for option in reversed(options):
        decorated = option(decorated)
    return decorated


def collect_designs(
    experiments: Sequence[str],
    designs_file: str | None,
    workload: Sequence[str],
    arch: Sequence[str],
    dataflow: Sequence[str],
    param: Sequence[str],
) -> list[DesignPoint]:
    """Return the labelled design points named on the command line, in the order: designs
    file, experiments, then the -w/-a/-d points (each option given once applies to all)."""
    params = parse_params(param)
    points = [
        replace(p, params={**p.params, **params})
        for p in (designs.load_designs(designs_file) if designs_file else [])
    ]
    points += [designs.experiment_point(e, params) for e in experiments]
    given = {"--workload": workload, "--arch": arch, "--dataflow": dataflow}
    if any(given.values()):
        missing = [name for name, values in given.items() if not values]
        if missing:
            raise click.UsageError(f"give {', '.join(missing)} too (or none of -w/-a/-d)")
        n = max(len(v) for v in given.values())
        uneven = [name for name, values in given.items() if len(values) not in (1, n)]
        if uneven:
            raise click.UsageError(
                f"{', '.join(uneven)} given neither once nor {n} times: "
                "-w/-a/-d pair up in order, and one given once applies to every point"
            )
        columns = [list(v) * n if len(v) == 1 else list(v) for v in given.values()]
        points += [designs.design_point(w, a, d, params) for w, a, d in zip(*columns, strict=True)]
    if not points:
        raise click.UsageError("give experiment files, --designs FILE, or -w/-a/-d")
    return designs.label_designs(points)


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

    Design points come from TENET EXPERIMENTS files, a --designs YAML file, and
    --workload/--arch/--dataflow options (repeat them to name several points; an option given
    once applies to every point).
    """
    chosen: Format = fmt or (format_of(output) if output else "markdown")
    results = designs.evaluate_designs(points, progress)
    table = comparison_table(results) if kind == "comparison" else reuse_table(results)
    write_output(render_table(table, chosen), output)
