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
from tenet.dse import TILING_AUTO_LIMIT, Certificate, ExecutionOptions, TilingSearch
from tenet.spec import load_architecture
from tenet.vocab import (
    ENERGY_UNIT_LABELS,
    MEMORY_OBJECTIVES,
    TILING_STRATEGIES,
    MemoryObjective,
    TilingStrategy,
    column,
)

__all__ = ["tile_command"]


def _summary(
    found: TilingSearch, seconds: float, problem: ProblemOptions, objective: MemoryObjective
) -> dict[str, Any]:
    """Return the best tiling's figures, its full dataflow and the bound of ``objective``
    (the exhaustive search counts every tiling: its best is the bound)."""
    from tenet import load_specs
    from tenet.mapping import to_stamps

    best = found.best
    dataflow = load_specs(*problem.names())[2]
    latency = best.metrics.latency
    return {
        "latency_cycles": int(latency) if latency.denominator == 1 else float(latency),
        "space_stamp": dataflow.space_stamp,
        "time_stamp": dataflow.time_stamp,
        f"bound_{column(objective)}": float(best.value),
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
    TILING_STRATEGIES,
    "auto",
    "exhaustive: every tiling counted; constructive: the top-k built; auto: built when no "
    f"--level, --dim or --aligned is given and the space holds more than {TILING_AUTO_LIMIT} "
    "tilings; joint: branch and bound over the tiling and the tensors each level keeps, with "
    "a proven bound and its gap.",
)
@click.option(
    "--top-k",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="Tilings the constructive strategy evaluates exactly.",
)
@click.option(
    "--bypass/--no-bypass",
    default=True,
    help="With --strategy joint, also search which tensors the middle levels keep.",
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
    strategy: TilingStrategy,
    top_k: int,
    bypass: bool,
) -> None:
    """Search tile sizes (nested divisors) and loop orders per memory level, under the
    capacities, for the least latency, energy or EDP; print the best tiling, its tile stamps
    and its exact figures per level and tensor (docs/memory.md). A large default space is
    built constructively (--strategy). With ``--workers`` above 1
    or ``--engine dask``, the tile sizes are searched on that engine; with ``--store``, each
    finished choice of tile sizes is kept and a search started again resumes."""
    check_before_work((), execution, None, None, out.path)
    from tenet.dse import TilingSpace, joint_search, run_tiling

    start = time.process_time()
    told: list[str] = []
    in_process = execution.workers == 1 and execution.engine == "local"
    space = (
        TilingSpace(levels or None, dims or None, aligned=aligned)
        if levels or dims or aligned
        else None
    )
    if strategy == "joint":
        workload, arch, dataflow = problem.names()
        certificate = joint_search(
            workload,
            arch,
            [dataflow],
            problem.params(),
            space or TilingSpace(),
            objective=objective,
            bypass=bypass,
            execution=replace(
                execution,
                engine=None if in_process else execution.engine,
                progress=lambda items, total: progress(items, total=total, desc="subtrees"),
            ),
        )
        _write_certificate(out, certificate, time.process_time() - start)
        return
    found = run_tiling(
        *problem.names(),
        problem.params(),
        space,
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
    summary = _summary(found, time.process_time() - start, problem, objective)
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
            "latency_cycles": "cycles",
            f"bound_{column(objective)}": {"latency": "cycles", "energy": energy}.get(
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


def _write_certificate(out: OutputOptions, certificate: Certificate, seconds: float) -> None:
    """Print the best of a joint search, its figures and its certificate."""
    row = {**certificate.row(), "cpu_seconds": round(seconds, 3)}
    table = certificate.best.metrics.table()
    if out.fmt == "json":
        out.write(json.dumps({**row, **certificate.best.metrics.to_dict()}, indent=2))
    elif out.fmt == "csv":
        out.write(table.to_csv().rstrip("\n"))
    else:
        lines = [f"{key:24} {value}" for key, value in row.items() if key != "tiles"]
        lines += ["tiles:"] + [f'  {k}: "{v}"' for k, v in row["tiles"].items()]
        lines += ["", table.to_string()]
        out.write("\n".join(lines))
