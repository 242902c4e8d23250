"""``tenet report``: the HTML report of the design-space runs in a results store."""

from __future__ import annotations

import click

from tenet.cli.app import cli
from tenet.cli.options import written_file
from tenet.dse import OBJECTIVES, design_report, stored_results, stored_specs
from tenet.report import write_report

__all__ = ["report_command"]


@cli.command("report")
@click.argument("store", type=click.Path(dir_okay=False))
@written_file("--output", "-o", help="HTML file to write.", required=True)
@click.option(
    "--objective",
    type=click.Choice(list(OBJECTIVES)),
    default="latency",
    show_default=True,
    help="What the best mapping of each exploration is ranked by.",
)
def report_command(store: str, output: str, objective: str) -> None:
    """Write one self-contained HTML page on the searches stored in STORE (the --store file
    of tenet dse or tenet sweep): inputs, sortable tables, plots and dataflows. The best
    mapping of each search leads with its headline, as tenet sweep prints it (latency,
    energy, DRAM traffic, whether it fits), and one that does not fit is named at the top."""
    inputs, results = stored_results(store)
    inputs["objective"] = objective
    report = design_report(results, inputs, objective=objective, specs=stored_specs(store))
    written = write_report(report, output)
    click.echo(f"wrote {written}", err=True)
