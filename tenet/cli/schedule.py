"""``tenet deps`` and ``tenet schedule``: the dependences of a workload, and the Pluto-style
schedule (bands of hyperplanes) found from them."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from tenet.cli.app import (
    cli,
    format_option,
    output_option,
    param_option,
    parse_params,
    write_output,
)
from tenet.schedule import (
    DependencePolyhedron,
    Schedule,
    dependence_polyhedra,
    find_schedule,
    parametric_workload,
)
from tenet.schedule.hyperplanes import hyperplane_text
from tenet.schedule.spacetime import spacetime_mappings, time_candidates
from tenet.spec import load_architecture, load_workload

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["deps_command", "schedule_command"]

reduction_option = click.option(
    "--reduction", "-r", multiple=True, help="Tensor updated by +=, besides the workload's."
)
reuse_option = click.option(
    "--reuse", is_flag=True, help="Add each tensor's reuse chain as a dependence."
)


def _distances(dependence: DependencePolyhedron) -> str:
    found = dependence.distances
    if found is None:
        return "non-uniform"
    return ", ".join(f"({', '.join(map(str, d))})" for d in found)


def _dependences(
    workload: str, param: tuple[str, ...], reduction: tuple[str, ...], reuse: bool
) -> tuple[Any, tuple[DependencePolyhedron, ...]]:
    spec = load_workload(workload)
    model = parametric_workload(spec, parse_params(param))
    found = dependence_polyhedra(model, (*spec.reductions, *reduction), reuse=reuse)
    return model, found


def _table(found: tuple[DependencePolyhedron, ...]) -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame(
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
@click.option("--workload", "-w", required=True, help="Workload: YAML, TENET .s or zoo name.")
@param_option
@reduction_option
@reuse_option
@format_option
@output_option
def deps_command(
    workload: str,
    param: tuple[str, ...],
    reduction: tuple[str, ...],
    reuse: bool,
    fmt: str,
    output: str | None,
) -> None:
    """Print the dependence polyhedra of a workload and, where uniform, their distances.

    Size parameters not given with -p stay symbolic.
    """
    _, found = _dependences(workload, param, reduction, reuse)
    write_output(_render(_table(found), fmt), output)


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
@click.option("--workload", "-w", required=True, help="Workload: YAML, TENET .s or zoo name.")
@click.option(
    "--arch", "-a", help="Array (YAML or zoo name) for which to derive space-time mappings."
)
@param_option
@reduction_option
@reuse_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="Output format.",
)
@output_option
def schedule_command(
    workload: str,
    arch: str | None,
    param: tuple[str, ...],
    reduction: tuple[str, ...],
    reuse: bool,
    fmt: str,
    output: str | None,
) -> None:
    """Find a Pluto-style schedule of a workload: its dependences, each hyperplane's
    (u, w, c), the permutable bands, the schedule as an isl map, the time hyperplanes and,
    with --arch, the space-time mappings made from them (sizes from -p over the defaults)."""
    model, found = _dependences(workload, (), reduction, reuse)
    schedule = find_schedule(model.domain, found)
    times = [
        {"origin": origin, "hyperplane": hyperplane_text(row, schedule.loops)}
        for origin, row in time_candidates(schedule, found)
    ]
    mappings: list[dict[str, str]] = []
    if arch is not None:
        spec = load_workload(workload)
        derived = spacetime_mappings(
            spec,
            load_architecture(arch),
            parse_params(param),
            reductions=(*spec.reductions, *reduction),
            reuse=reuse,
        )
        mappings = [{"origin": m.origin, "dataflow": m.name} for m in derived]
    if fmt == "json":
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
    write_output(text, output)
