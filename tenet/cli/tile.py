"""``tenet tile``: search the tile sizes and loop orders of the memory levels for a workload,
an architecture with memory levels and an array dataflow."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any, get_args

import click

from tenet.cli.app import (
    cli,
    format_option,
    output_option,
    param_option,
    parse_params,
    progress,
    write_output,
)
from tenet.cli.dse import check_before_work, engine_options
from tenet.dse.tiling import Objective, TilingSearch

__all__ = ["tile_command"]


def _summary(found: TilingSearch, seconds: float) -> dict[str, Any]:
    best = found.best
    return {
        "tiling": best.tiling.describe(),
        "tiles": best.tiling.stamps(),
        "objective": float(best.value),
        "latency": float(best.metrics.latency),
        "bottleneck": best.metrics.bottleneck,
        "energy": best.metrics.energy,
        "traffic_dram": best.traffic_dram,
        "candidates": found.candidates,
        "fitting": found.fitting,
        "evaluated": found.evaluated,
        "cpu_seconds": round(seconds, 3),
    }


def _engine_options(function: Callable[..., Any]) -> Callable[..., Any]:
    # as `tenet dse`, but one worker (this process) by default
    for decorator in reversed(engine_options(workers=1)):
        function = decorator(function)
    return function


@cli.command("tile")
@click.option("--workload", "-w", required=True, help="Workload: YAML file or zoo name.")
@click.option("--arch", "-a", required=True, help="Architecture with memory levels.")
@click.option("--dataflow", "-d", required=True, help="Array dataflow (space-time stamps).")
@param_option
@click.option(
    "--level", "-l", "levels", multiple=True, help="Level to tile (repeatable; default: all)."
)
@click.option("--dim", "dims", multiple=True, help="Loop to tile (repeatable; default: all).")
@click.option(
    "--aligned",
    type=click.IntRange(min=1),
    help="Also try tile sizes that are multiples of this, dividing the loop or not.",
)
@click.option(
    "--objective",
    type=click.Choice(get_args(Objective)),
    default="latency",
    show_default=True,
    help="What the search minimises.",
)
@_engine_options
@format_option
@output_option
def tile_command(
    workload: str,
    arch: str,
    dataflow: str,
    param: tuple[str, ...],
    levels: tuple[str, ...],
    dims: tuple[str, ...],
    aligned: int | None,
    objective: Objective,
    engine: str,
    workers: int,
    address: str | None,
    store: str | None,
    fmt: str,
    output: str | None,
) -> None:
    """Search tile sizes (nested divisors) and loop orders per memory level, under the
    capacities, for the least latency, energy or EDP; print the best tiling, its tile stamps
    and its exact figures per level and tensor (docs/memory.md). With ``--workers`` above 1
    or ``--engine dask``, the tile sizes are searched on that engine; with ``--store``, each
    finished choice of tile sizes is kept and a search started again resumes."""
    check_before_work((), engine, address, None, None, None, store, output)
    from tenet.dse.execution import ExecutionOptions
    from tenet.dse.tiling_run import run_tiling

    start = time.process_time()
    found = run_tiling(
        workload,
        arch,
        dataflow,
        parse_params(param),
        list(levels) or None,
        objective=objective,
        dims=list(dims) or None,
        aligned=aligned,
        execution=ExecutionOptions(
            engine=engine if workers > 1 or engine == "dask" else None,
            workers=workers,
            address=address,
            store=store,
            progress=lambda items, total: progress(items, total=total, desc="tile sizes"),
        ),
    )
    summary = _summary(found, time.process_time() - start)
    table = found.best.metrics.table()
    if fmt == "json":
        payload = {**summary, **found.best.metrics.to_dict()}
        write_output(json.dumps(payload, indent=2), output)
    elif fmt == "csv":
        write_output(table.to_csv().rstrip("\n"), output)
    else:
        lines = [f"{key:14} {value}" for key, value in summary.items() if key != "tiles"]
        lines += ["tiles:"] + [f'  {k}: "{v}"' for k, v in summary["tiles"].items()]
        lines += ["", table.to_string()]
        write_output("\n".join(lines), output)
