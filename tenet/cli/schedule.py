"""``tenet deps`` and ``tenet schedule``: the dependences of a workload, and the Pluto-style
schedule (bands of hyperplanes) found from them."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Concatenate

import click

from tenet.cli.app import cli, kept, kept_option
from tenet.cli.options import (
    TENET_FILES,
    OutputOptions,
    P,
    ProblemOptions,
    R,
    output_options,
    problem_options,
    record_options,
)
from tenet.report import records_table
from tenet.schedule import (
    DependencePolyhedron,
    Schedule,
    dependence_polyhedra,
    find_schedule,
    hyperplane_text,
    parametric_workload,
    spacetime_mappings,
    time_candidates,
)
from tenet.spec import WorkloadSpec, check_params, load_architecture, load_workload

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["deps_command", "schedule_command", "Chains"]


@dataclass(frozen=True)
class Chains:
    """Which dependences to add to the workload's own."""

    reduction: tuple[str, ...]
    """Tensors updated by ``+=`` besides the workload's reductions."""
    reuse: bool
    """Add each tensor's reuse chain as a dependence."""


def _chain_options() -> Callable[[Callable[Concatenate[Chains, P], R]], Callable[P, R]]:
    """``--reduction`` and ``--reuse``, passed as one :class:`Chains`."""
    reduction = "Tensor updated by +=, besides the workload's."
    reuse = "Add each tensor's reuse chain as a dependence."
    options = [
        kept_option("--reduction", "-r", multiple=True, help=reduction),
        kept_option("--reuse", is_flag=True, help=reuse),
    ]
    return record_options(options, lambda: Chains(kept("reduction"), kept("reuse")))


def _distances(dependence: DependencePolyhedron) -> str:
    found = dependence.distances
    if found is None:
        return "non-uniform"
    return ", ".join(f"({', '.join(map(str, d))})" for d in found)


def _dependences(
    problem: ProblemOptions, chains: Chains, bind: bool
) -> tuple[WorkloadSpec, Any, tuple[DependencePolyhedron, ...]]:
    """The workload's spec, its model (sizes from -p where ``bind``, else all symbolic) and
    its dependences."""
    assert problem.workload  # a required option
    spec = load_workload(problem.workload)
    params = problem.params()
    check_params(params, spec, what=spec.name, source="--param")  # bound or not
    model = parametric_workload(spec, params if bind else {})
    found = dependence_polyhedra(model, (*spec.reductions, *chains.reduction), reuse=chains.reuse)
    return spec, model, found


def _table(found: tuple[DependencePolyhedron, ...]) -> pd.DataFrame:
    return records_table(
        [
            {
                "dependence": d.name,
                "distances": _distances(d),
                "polyhedron": str(d.relation),
            }
            for d in found
        ],
        columns=["dependence", "distances", "polyhedron"],
    )


def _render(table: pd.DataFrame, fmt: str) -> str:
    if fmt == "csv":
        return str(table.to_csv(index=False).rstrip("\n"))
    if fmt == "json":
        return json.dumps(table.to_dict(orient="records"), indent=2)
    if table.empty:
        return "no dependence"
    return "\n".join(
        f"{row.dependence}: {row.distances}\n  {row.polyhedron}" for row in table.itertuples()
    )


@cli.command("deps")
@problem_options(TENET_FILES[:1])
@_chain_options()
@output_options()
def deps_command(out: OutputOptions, chains: Chains, problem: ProblemOptions) -> None:
    """Print the dependence polyhedra of a workload and, where uniform, their distances.

    Size parameters not given with -p stay symbolic.
    """
    _, _, found = _dependences(problem, chains, bind=True)
    out.write(_render(_table(found), out.fmt))


def _schedule_rows(schedule: Schedule) -> list[dict[str, Any]]:
    rows = []
    for number, band in enumerate(schedule.bands):
        for row in band.rows:
            rows.append(
                {
                    "band": number,
                    "hyperplane": list(row.c),
                    "u": list(row.u),
                    "w": row.w,
                    "scalar": row.scalar,
                    "carries": list(row.carried),
                }
            )
    return rows


@cli.command("schedule")
@problem_options(TENET_FILES[:1])
@click.option(
    "--arch", "-a", help="Array (YAML or zoo name) for which to derive space-time mappings."
)
@_chain_options()
@output_options(formats=("table", "json"))
def schedule_command(
    out: OutputOptions, chains: Chains, problem: ProblemOptions, arch: str | None
) -> None:
    """Find a Pluto-style schedule of a workload: its dependences, each hyperplane's
    (u, w, c), the permutable bands, the schedule as an isl map, the time hyperplanes and,
    with --arch, the space-time mappings made from them (sizes from -p over the defaults)."""
    spec, model, found = _dependences(problem, chains, bind=False)
    schedule = find_schedule(model.domain, found)
    times = [
        {"origin": origin, "hyperplane": hyperplane_text(row, schedule.loops)}
        for origin, row in time_candidates(schedule, found)
    ]
    mappings: list[dict[str, str]] = []
    if arch is not None:
        derived = spacetime_mappings(
            spec,
            load_architecture(arch),
            problem.params(),
            reductions=(*spec.reductions, *chains.reduction),
            reuse=chains.reuse,
        )
        mappings = [{"origin": m.origin, "dataflow": m.name} for m in derived]
    if out.fmt == "json":
        text = json.dumps(
            {
                "dependences": _table(found).to_dict(orient="records"),
                "rows": _schedule_rows(schedule),
                "schedule": str(schedule.map),
                "time_hyperplanes": times,
                "mappings": mappings,
            },
            indent=2,
        )
    else:
        lines = [
            "dependences:",
            _render(_table(found), "table"),
            "schedule tree:",
            schedule.tree(),
            f"schedule: {schedule.map}",
            "time hyperplanes:",
            *[f"  {t['hyperplane']}  ({t['origin']})" for t in times],
        ]
        if arch is not None:
            lines.append(f"space-time mappings on {arch} (all legal):")
            lines += [f"  {m['dataflow']}  ({m['origin']})" for m in mappings]
        text = "\n".join(lines)
    out.write(text)
