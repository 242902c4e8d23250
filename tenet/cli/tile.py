"""``tenet tile``: search the tile sizes and loop orders of the memory levels for a workload,
an architecture with memory levels and an array dataflow."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from typing import Any

import click

from tenet.cli.app import choice_option, cli, progress
from tenet.cli.checks import check_before_work
from tenet.cli.options import (
    OutputOptions,
    ProblemOptions,
    execution_options,
    output_options,
    problem_options,
)
from tenet.dse import TILING_AUTO_LIMIT, ExecutionOptions, TilingSearch
from tenet.spec import load_architecture
from tenet.vocab import ENERGY_UNIT_LABELS, MEMORY_OBJECTIVES, STRATEGIES, MemoryObjective, Strategy

__all__ = ["tile_command"]


def _summary(found: TilingSearch, seconds: float) -> dict[str, Any]:
    from tenet.mapping import to_stamps

    best = found.best
    return {
        "tiling": best.tiling.describe(),
        "tiles": to_stamps(best.tiling).tiles,
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


@cli.command("tile")
@problem_options(
    (
        "Workload: YAML file or zoo name.",
        "Architecture with memory levels.",
        "Array dataflow (space-time stamps).",
    )
)
@click.option(
    "--level", "-l", "levels", multiple=True, help="Level to tile (repeatable; default: all)."
)
@click.option("--dim", "dims", multiple=True, help="Loop to tile (repeatable; default: all).")
@click.option(
    "--aligned",
    type=click.IntRange(min=1),
    help="Also try tile sizes that are multiples of this, dividing the loop or not.",
)
@choice_option("--objective", MEMORY_OBJECTIVES, "latency", "What the search minimises.")
@choice_option(
    "--strategy",
    STRATEGIES,
    "auto",
    "Evaluate every tiling, or build the top-k (auto: built when no --level, --dim or "
    f"--aligned is given and the space holds more than {TILING_AUTO_LIMIT} tilings).",
)
@click.option(
    "--top-k",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="Tilings the constructive strategy evaluates exactly.",
)
@execution_options(workers=1)  # as `tenet dse`, but one worker (this process) by default
@output_options()
def tile_command(
    out: OutputOptions,
    execution: ExecutionOptions,
    problem: ProblemOptions,
    levels: tuple[str, ...],
    dims: tuple[str, ...],
    aligned: int | None,
    objective: MemoryObjective,
    strategy: Strategy,
    top_k: int,
) -> None:
    """Search tile sizes (nested divisors) and loop orders per memory level, under the
    capacities, for the least latency, energy or EDP; print the best tiling, its tile stamps
    and its exact figures per level and tensor (docs/memory.md). A large default space is
    built constructively (--strategy). With ``--workers`` above 1
    or ``--engine dask``, the tile sizes are searched on that engine; with ``--store``, each
    finished choice of tile sizes is kept and a search started again resumes."""
    check_before_work((), execution, None, None, out.path)
    from tenet.dse import TilingSpace, run_tiling

    start = time.process_time()
    told: list[str] = []
    in_process = execution.workers == 1 and execution.engine == "local"
    found = run_tiling(
        *problem.names(),
        problem.params(),
        TilingSpace(levels or None, dims or None, aligned=aligned)
        if levels or dims or aligned
        else None,
        objective=objective,
        execution=replace(
            execution,
            engine=None if in_process else execution.engine,
            progress=lambda items, total: progress(items, total=total, desc="tile sizes"),
        ),
        strategy=strategy,
        top_k=top_k,
        report=told.append,
    )
    click.echo("\n".join(told), err=True)  # after the search: an error stays one line
    summary = _summary(found, time.process_time() - start)
    table = found.best.metrics.table()
    if out.fmt == "json":
        payload = {**summary, **found.best.metrics.to_dict()}
        out.write(json.dumps(payload, indent=2))
    elif out.fmt == "csv":
        out.write(table.to_csv().rstrip("\n"))
    else:
        assert problem.architecture  # a required option
        energy = ENERGY_UNIT_LABELS[load_architecture(problem.architecture).energy.unit]
        units = {
            "objective": {"latency": "cycles", "energy": energy}.get(
                objective, f"{energy} x cycles"
            ),
            "latency": "cycles",
            "energy": energy,
            "traffic_dram": "elements",
            "cpu_seconds": "s",
        }
        lines = [
            f"{key:14} {value} {units.get(key, '')}".rstrip()
            for key, value in summary.items()
            if key != "tiles"
        ]
        lines += ["tiles:"] + [f'  {k}: "{v}"' for k, v in summary["tiles"].items()]
        lines += ["", table.to_string()]
        out.write("\n".join(lines))
