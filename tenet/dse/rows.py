"""The shown rows of a search: each best mapping of a design-space exploration with its
:func:`tenet.metrics.row.mapping_row`, the fields every command that reports a mapping prints.

The exploration ranks its design points by the array's figures (TENET's latency: the largest of
compute, ingress and egress; its energy), which a shown row keeps under ``latency_array_cycles``,
``energy_array`` and ``edp_array``; its ``latency_cycles`` and ``energy`` are then the
memory-aware ones of the row. Without a tiling search, a mapping's memory figures are those of
its untiled dataflow (:func:`untiled_figures`: each level holds what the dataflow gives it, one
tile; ``docs/memory.md``); the per-layer table builds a tiling (:func:`tiled_figures`), and
``tenet dse --tile`` searches one (:func:`tiled_row`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from tenet.api import load_problem
from tenet.dse.ranking.certificate import Certificate
from tenet.dse.run.execution import ExecutionOptions, Progress
from tenet.dse.tiling.constructive import construct_tilings
from tenet.dse.tiling.sizes import TilingSpace
from tenet.metrics.assessment import assess_problem
from tenet.metrics.row import bound_field, mapping_row
from tenet.spec import (
    ArchitectureSpec,
    ConstraintsSpec,
    DataflowSpec,
    WorkloadSpec,
    load_architecture,
)
from tenet.vocab import MemoryObjective, column

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ARRAY_COLUMNS",
    "untiled_figures",
    "tiled_figures",
    "tiled_row",
    "with_mapping_rows",
    "tiled_rows",
]

ARRAY_COLUMNS = {
    column("latency"): column("latency_array"),
    column("energy"): column("energy_array"),
    column("edp"): column("edp_array"),
}
"""The array's figures of a design point (what the exploration ranks) -> their names in a shown
row, beside its memory-aware ``latency_cycles`` and ``energy``."""

WorkloadSource = str | WorkloadSpec
Arch = str | ArchitectureSpec
Figures = Callable[[Mapping[str, Any]], dict[str, Any]]
"""A design point's row (array figures, stamps) -> the fields of its mapping row."""


def _array(row: Mapping[str, Any]) -> tuple[int, float]:
    """The array's latency (cycles) and energy of a design point's row (named either way)."""
    latency = row.get(column("latency_array"), row.get(column("latency")))
    energy = row.get(column("energy_array"), row.get(column("energy")))
    return int(latency), float(energy)


def untiled_figures(
    workload: WorkloadSource, architecture: Arch, params: Mapping[str, int]
) -> Figures:
    """Return the mapping row of a design point without tiles: its memory figures with each
    level keeping its parent's tiles (the array's figures without memory levels)."""
    arch = architecture if isinstance(architecture, ArchitectureSpec) else None
    arch = arch or load_architecture(str(architecture))

    def figures(row: Mapping[str, Any]) -> dict[str, Any]:
        space, time = str(row["space_stamp"]), str(row["time_stamp"])
        dataflow = DataflowSpec(name=str(row["name"]), space_stamp=space, time_stamp=time)
        problem = load_problem(workload, arch, dataflow, params)
        compute = row.get(column("latency_compute"))
        memory = assess_problem(
            problem, figures=["memory"], latency_compute=None if compute is None else int(compute)
        ).memory
        return mapping_row(memory, space, time, {}, energy_unit=arch.energy.unit, array=_array(row))

    return figures


def tiled_figures(
    workload: WorkloadSource,
    architecture: Arch,
    params: Mapping[str, int],
    top_k: int = 3,
    objective: MemoryObjective = "latency",
) -> Figures:
    """Return the mapping row of a design point under the best by ``objective`` of the
    tilings :func:`~tenet.dse.tiling.constructive.construct_tilings` builds (``top_k``
    counted), with the bound of ``objective`` of :func:`tenet.dse.joint.declared.space_bound` over
    the workload's whole space (every mapping, tiling and choice of kept tensors); untiled
    without memory levels."""
    from tenet.dse.joint.declared import space_bound

    arch = architecture if isinstance(architecture, ArchitectureSpec) else None
    arch = arch or load_architecture(str(architecture))
    if len(arch.levels) < 2:
        return untiled_figures(workload, arch, params)

    def figures(row: Mapping[str, Any]) -> dict[str, Any]:
        space, time = str(row["space_stamp"]), str(row["time_stamp"])
        dataflow = DataflowSpec(name=str(row["name"]), space_stamp=space, time_stamp=time)
        problem = load_problem(workload, arch, dataflow, params)
        best = construct_tilings(problem, top_k=top_k, objective=objective)[0]
        bound = space_bound(problem, objective)
        return {**best.assessment.row(), **bound_field(objective, bound)}

    return figures


def tiled_row(search: Certificate, objective: MemoryObjective = "latency") -> dict[str, Any]:
    """Return the mapping row of the best tiling of ``search`` (of a design point), with the
    search's bound of ``objective`` if it has one, and the tiling's loop nest."""
    best = search.best
    bound = {} if search.bound is None else bound_field(objective, search.bound)
    return {**best.assessment.row(), **bound, "tiling": best.mapping.describe()}


def with_mapping_rows(
    rows: pd.DataFrame, figures: Figures, progress: Progress | None = None
) -> pd.DataFrame:
    """Return ``rows`` (design points, ``ok`` ones with their figures) with the array's
    figures renamed (:data:`ARRAY_COLUMNS`) and each ``ok`` row's mapping row from
    ``figures`` beside them (none for the other rows); ``progress`` (none: no display) wraps
    the rows (called with ``total=``)."""
    import pandas as pd

    renamed = rows.rename(columns=ARRAY_COLUMNS)
    records = []
    added: list[str] = []
    every = renamed.to_dict(orient="records")
    for row in every if progress is None else progress(every, total=len(every)):
        fields = figures(row) if row.get("status", "ok") == "ok" else {}
        added += [k for k in fields if k not in added and k not in renamed.columns]
        records.append({**row, **fields})
    return pd.DataFrame(records, columns=[*renamed.columns, *added])


def tiled_rows(
    workload: WorkloadSource,
    architecture: str,
    rows: pd.DataFrame,
    params: Mapping[str, int] | None,
    space: TilingSpace,
    execution: ExecutionOptions | None = None,
    objective: MemoryObjective = "latency",
    constraints: ConstraintsSpec | None = None,
) -> pd.DataFrame:
    """Return the ``ok`` design points of ``rows`` (with their mapping rows or not), each
    with its mapping row under its best tiling of ``space`` by ``objective`` within
    ``constraints`` (:func:`tenet.dse.strategies.tile_mappings`) and the bound of ``objective``
    if the search has one, the best by ``objective`` first (ties: the order of ``rows``)."""
    import pandas as pd

    from tenet.dse.strategies import tile_mappings

    ok = rows[rows["status"] == "ok"]
    if column("latency_array") not in ok.columns:  # the array's figures, not yet renamed
        ok = ok.rename(columns=ARRAY_COLUMNS)
    records = ok.to_dict("records")
    found = tile_mappings(
        workload,
        architecture,
        records,
        params,
        space,
        objective=objective,
        execution=execution,
        constraints=constraints,
    )
    tiled = [
        {**record, **tiled_row(search, objective)}
        for record, (_, search) in zip(records, found, strict=True)
    ]
    order = sorted(range(len(tiled)), key=lambda k: found[k][1].best.value)  # (stable)
    columns = list(dict.fromkeys(c for row in tiled for c in row))
    return pd.DataFrame([tiled[k] for k in order], columns=columns)
