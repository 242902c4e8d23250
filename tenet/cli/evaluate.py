"""``tenet eval``: evaluate TENET experiments or a workload/architecture/dataflow triple."""

from __future__ import annotations

import json
from typing import Any

import click

from tenet.api import analyze
from tenet.cli.app import cli, parse_params, progress, write_output
from tenet.metrics.evaluate import Metrics

__all__ = ["eval_command"]


def _render_table(metrics: Metrics, csv: bool) -> str:
    table = metrics.table()
    if csv:
        return table.to_csv().rstrip("\n")
    table = table[[c for c in table.columns if not c.startswith("accesses_")]]
    table.columns = [c.removeprefix("volume_") for c in table.columns]
    summary = {k: v for k, v in metrics.to_dict().items() if k not in ("tensors", "tenet_compat")}
    lines = [f"{metrics.name}", table.to_string(), ""]
    lines += [f"{key:24} {value}" for key, value in summary.items() if key != "name"]
    return "\n".join(lines)


@cli.command("eval")
@click.argument("experiments", nargs=-1, type=click.Path())
@click.option("--workload", "-w", help="Workload: YAML file, TENET .s file or zoo name.")
@click.option("--arch", "-a", help="Architecture: YAML file, TENET .p file or zoo name.")
@click.option("--dataflow", "-d", help="Dataflow: YAML file, TENET .m file or zoo name.")
@click.option("--param", "-p", multiple=True, help="Size parameter NAME=VALUE (repeatable).")
@click.option("--tensor", "-t", multiple=True, help="Analyse only this tensor (repeatable).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "csv", "json"]),
    default="table",
    show_default=True,
    help="Output format.",
)
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to this file.")
def eval_command(
    experiments: tuple[str, ...],
    workload: str | None,
    arch: str | None,
    dataflow: str | None,
    param: tuple[str, ...],
    tensor: tuple[str, ...],
    fmt: str,
    output: str | None,
) -> None:
    """Evaluate TENET EXPERIMENTS files, or one --workload/--arch/--dataflow triple."""
    params = parse_params(param)
    tensors = list(tensor) or None
    triple = (workload, arch, dataflow)
    if experiments and any(triple):
        raise click.UsageError("give experiment files or --workload/--arch/--dataflow, not both")
    if not experiments and not all(triple):
        raise click.UsageError("give experiment files, or all of --workload, --arch, --dataflow")
    if experiments:
        results = [
            analyze(experiment=e, params=params, tensors=tensors) for e in progress(experiments)
        ]
    else:
        results = [analyze(workload, arch, dataflow, params=params, tensors=tensors)]
    if fmt == "json":
        payload: Any = [m.to_dict() for m in results]
        write_output(
            json.dumps(payload if experiments and len(experiments) > 1 else payload[0], indent=2),
            output,
        )
    else:
        write_output("\n\n".join(_render_table(m, fmt == "csv") for m in results), output)
