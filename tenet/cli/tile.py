"""``tenet tile``: search the tile sizes and loop orders of the memory levels for a workload,
an architecture with memory levels and an array dataflow."""

from __future__ import annotations

import time
from typing import Any

import click

from tenet.cli.app import choice_option, cli
from tenet.cli.checks import Refusal, check_before_work, refuses
from tenet.cli.options import (
    OutputOptions,
    ProblemOptions,
    aligned_option,
    constraints_option,
    cpu_budget_option,
    execution_options,
    output_options,
    problem_options,
    search_execution,
    time_budget_option,
)
from tenet.dse import TILING_AUTO_LIMIT, Certificate, ExecutionOptions, Interrupted
from tenet.report import mapping_row_output
from tenet.vocab import (
    ENERGY_UNIT_LABELS,
    MEMORY_OBJECTIVES,
    TILING_STRATEGIES,
    MemoryObjective,
    TilingStrategy,
    column,
)

__all__ = ["tile_command"]


def _summary(found: Certificate, seconds: float) -> dict[str, Any]:
    """Return the best tiling's row (:func:`tenet.mapping_row`: memory-aware figures, full
    dataflow, the bound of the objective when the search has one): then, of a branch and
    bound, its certificate; of another search, what it counted."""
    from tenet import bound_field

    if found.strategy == "joint":
        return {**found.row(), "cpu_seconds": round(seconds, 3)}
    best = found.best
    bound = {} if found.bound is None else bound_field(found.objective, found.bound)
    return {
        **best.assessment.row(),
        **bound,
        "tiling": best.mapping.describe(),
        "objective": float(best.value),
        "candidates": found.space,
        "fitting": found.fitting,
        "evaluated": found.evaluated,
        "cpu_seconds": round(seconds, 3),
    }


@refuses(
    Refusal("--places", "--strategy", "only the joint search places tensors", ("joint",), True),
    Refusal("--bypass", "--strategy", "only the joint search chooses bypasses", ("joint",), True),
    Refusal("--top-k", "--strategy", "no tiling is built", values=("exhaustive", "joint")),
    Refusal("--top-k", "--level", "the tilings of given levels are all counted"),
    Refusal("--top-k", "--dim", "the tilings of given loops are all counted"),
    Refusal("--top-k", "--aligned", "the tilings of an alignment are all counted"),
)
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
@aligned_option(
    "Also try tile sizes that are multiples of this, dividing the loop or not (the last tile "
    "partial), with every strategy but constructive."
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
@click.option(
    "--places/--no-places",
    default=False,
    help="With --strategy joint, also search above which loops each tensor's copy sits in a "
    "per-PE innermost level of single-instance tiles.",
)
@constraints_option(
    "Mapping constraints (YAML): per level the tile sizes, loop order and kept or "
    "bypassed tensors, and the spread of loops the dataflow must have (docs/dse.md)."
)
@time_budget_option(
    "Seconds after which no part of the search starts; the best so far is printed "
    "(with its bound and gap, of a branch and bound)."
)
@cpu_budget_option(
    "after which no part of the search starts and a subtree being searched stops where it is"
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
    places: bool,
    constraints: str | None,
    time_budget: float | None,
    cpu_budget: float | None,
) -> None:
    """Search tile sizes (nested divisors) and loop orders per memory level, under the
    capacities, for the least latency, energy or EDP; print the best tiling, its tile stamps
    and its exact figures per level and tensor (docs/memory.md). With --aligned N the
    multiples of N join the sizes, the last tile partial. A large default space is
    built constructively (--strategy). With ``--workers`` above 1
    or ``--engine dask``, the tile sizes are searched on that engine; with ``--store``, each
    finished choice of tile sizes (or subtree of the branch and bound) is kept and a search
    started again resumes. A branch and bound prints its best so far, its bound and their gap
    on stderr as it goes; Ctrl-C prints the best so far and its certificate (exit 130)."""
    check_before_work((), execution, None, None, out.path)
    from tenet import load_specs
    from tenet.dse import TilingRequest, TilingSpace, find_strategy
    from tenet.spec import load_constraints

    start = time.process_time()
    told: list[str] = []
    space = (
        TilingSpace(levels or None, dims or None, aligned=aligned)
        if levels or dims or aligned
        else None
    )
    request = TilingRequest(
        load_specs(*problem.names(), problem.params()),
        space,
        objective,
        top_k,
        bypass,
        places,
        report=told.append,
        constraints=None if constraints is None else load_constraints(constraints),
    )
    try:
        found = find_strategy(strategy, "tilings").tile(
            request, search_execution(execution, time_budget, cpu_budget)
        )
    except Interrupted as stop:
        if isinstance(stop.partial, Certificate):
            _write(out, stop.partial, time.process_time() - start)
        raise
    if told:  # after the search: an error stays one line
        click.echo("\n".join(told), err=True)
    _write(out, found, time.process_time() - start)


def _write(out: OutputOptions, found: Certificate, seconds: float) -> None:
    """Print the best tiling of a search, its figures and what the search proved."""
    summary = _summary(found, seconds)
    units = _units(summary, found.objective)
    out.write(mapping_row_output(summary, found.best.memory, out.fmt, units))


def _units(row: dict[str, Any], objective: MemoryObjective) -> dict[str, str]:
    """The units printed after the fields of a tile row whose names do not say theirs."""
    energy = ENERGY_UNIT_LABELS[row["energy_unit"]]
    value_unit = {"latency": "cycles", "energy": energy}.get(objective, f"{energy} x cycles")
    return {"objective": value_unit, f"bound_{column(objective)}": value_unit, "cpu_seconds": "s"}
