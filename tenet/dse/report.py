"""The HTML report of design-space explorations: from the rows of a search (a
:class:`~tenet.dse.explore.Sweep`'s results, or the runs of a results store), the best mapping
of each workload (or network layer) on each array, every design point of a single
exploration, their plots, and the dataflow of every reported mapping, gathered into a
:class:`tenet.report.html.Report` for :func:`tenet.report.html.render_report`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from tenet.dse.network import network_totals
from tenet.dse.ranking.objectives import objective as objective_of
from tenet.dse.ranking.objectives import rank
from tenet.dse.ranking.pareto import draw_pareto
from tenet.dse.run.store import ResultStore
from tenet.errors import SpecError
from tenet.report.designspace import plot_layers
from tenet.report.html import MappingRecord, Report
from tenet.report.tables import axis_label
from tenet.vocab import column

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = ["POINT_COLUMNS", "REPORTED_COLUMNS", "design_report", "stored_results"]

POINT_COLUMNS = [
    "workload",
    "architecture",
    "index",
    "name",
    "data_centric",
    "scratchpad",
    *(column(m) for m in ("latency", "energy", "edp")),
    "energy_unit",
    *(column(m) for m in ("bandwidth_scratchpad", "bandwidth_pe", "utilisation")),
    column("latency_compute"),
    "bottleneck",
    column("traffic_dram"),
    "fits",
    "memory_model",
    column("bound_latency"),
    "tiling",
    *(column(m) for m in ("latency_array", "energy_array", "edp_array")),
    "space_stamp",
    "time_stamp",
    "tiles",
]
"""Columns of a design point shown in tables of the best points, in order (those a table has:
a search's rows have the array's figures; the shown rows, their mapping rows beside them)."""

REPORTED_COLUMNS = [
    *POINT_COLUMNS[: POINT_COLUMNS.index(column("latency_compute"))],
    column("active_pes"),
    column("timestamps"),
]
"""Columns of a design point shown in the report's tables, in order."""

MOST_POINTS = 2000
"""The most design points of one exploration listed one per row."""


def stored_results(path: str | Path) -> tuple[dict[str, str], pd.DataFrame]:
    """Return the inputs of the design-space runs of the results store ``path`` (names ->
    text) and their rows, with the ``workload`` (a network layer's label) and
    ``architecture`` of each; tiling runs are left out."""
    import pandas as pd

    if not Path(path).is_file():
        raise SpecError(
            "no such results store (expected the --store file of a search)", source=str(path)
        )
    store = ResultStore(path)
    try:
        frames = []
        params: dict[str, str] = {}
        strategies: set[str] = set()
        counts: dict[str, int] = {}
        for run, arguments, _ in store.runs():
            if "network" in arguments:  # a network's layer entries (record_network)
                counts.update({str(label): int(n) for label, n in arguments["layers"]})
            if "search" in arguments or "network" in arguments:
                continue
            rows = store.rows(run)
            rows.insert(0, "architecture", str(arguments.get("architecture", "")))
            rows.insert(0, "workload", str(arguments.get("label", arguments.get("workload", ""))))
            frames.append(rows)
            if "params" in arguments:
                params[str(rows["workload"].iloc[0]) if len(rows) else run] = ", ".join(
                    f"{k}={v}" for k, v in sorted(arguments["params"].items())
                )
            if "strategy" in arguments:
                strategies.add(str(arguments["strategy"]))
    finally:
        store.close()
    if not frames:
        raise SpecError("the results store holds no design-space run", source=str(path))
    results = pd.concat(frames, ignore_index=True)
    if counts:
        results["count"] = results["workload"].map(counts).astype("Int64")
    inputs = {
        "results store": str(path),
        "explorations": str(len(frames)),
        "design points stored": str(len(results)),
        "workloads": ", ".join(dict.fromkeys(results["workload"].astype(str))),
        "architectures": ", ".join(dict.fromkeys(results["architecture"].astype(str))),
    }
    if strategies:
        inputs["strategy"] = ", ".join(sorted(strategies))
    if len(set(params.values())) == 1:
        inputs["size parameters"] = next(iter(params.values()))
    return inputs, results


def _network_title(workloads: list[str], architecture: str) -> str:
    """``net on arch`` when every workload is a layer ``net/...`` of one network, ``w on
    arch`` for one workload."""
    networks = {w.split("/")[0] for w in workloads if "/" in w}
    if len(networks) == 1 and all("/" in w for w in workloads):
        return f"{networks.pop()} on {architecture}"
    return f"{_workloads(workloads)} on {architecture}"


def _workloads(workloads: list[str]) -> str:
    """The one workload's name, else how many there are."""
    distinct = list(dict.fromkeys(workloads))
    return distinct[0] if len(distinct) == 1 else f"{len(distinct)} workloads"


def _figures(results: pd.DataFrame, best: pd.DataFrame, by: str) -> list[tuple[str, Figure]]:
    """The Pareto front of latency and energy for one exploration; the best mapping's figures
    per workload on each array for several."""
    figures: list[tuple[str, Figure]] = []
    pairs = list(dict.fromkeys(zip(results["workload"], results["architecture"], strict=True)))
    if len(pairs) == 1:
        workload, architecture = pairs[0]
        ax = draw_pareto(results, "latency", "energy")
        ax.set_title(f"{workload} on {architecture}")
        figures.append(("Design points and their Pareto front", ax.figure))  # type: ignore[arg-type]
        return figures
    panels = [
        (column("latency"), axis_label(column("latency"))),
        (column("energy"), axis_label(column("energy"), best)),
        (column("utilisation"), "PE utilisation"),
    ]
    goal = objective_of(by)
    if goal.column not in {name for name, _ in panels}:
        panels.insert(0, (goal.column, goal.name))
    for architecture, part in best.groupby("architecture", sort=False):
        title = _network_title([str(w) for w in part["workload"]], str(architecture))
        axes = plot_layers(part, panels=panels, title=title)
        heading = f"Best mapping per workload by {by}: {title}"
        figures.append((heading, axes[0].figure))  # type: ignore[arg-type]
    return figures


def design_report(
    results: pd.DataFrame,
    inputs: Mapping[str, str],
    *,
    objective: str = "latency",
    title: str | None = None,
) -> Report:
    """Return the report of the design points ``results`` (rows of one or several
    explorations, with ``workload`` and ``architecture`` columns): the best mapping of each
    exploration by ``objective``, every design point when there is one exploration, the
    plots, and the dataflow of each best mapping; with a ``count`` column (a network's
    layers), each layer entry with its count and the network's total
    (:func:`tenet.dse.network.network_totals`)."""
    import pandas as pd

    groups = list(results.groupby(["workload", "architecture"], sort=False))
    if not groups:
        raise SpecError("no design point to report: the search evaluated none")
    best = pd.concat([rank(rows, objective, 1) for _, rows in groups], ignore_index=True)
    shown = [c for c in REPORTED_COLUMNS if c in results.columns]
    tables = [(f"Best mapping of each exploration by {objective}", best[shown])]
    if "count" in results.columns:  # a network's layers: each entry, and the network
        entries = results.drop_duplicates("workload").dropna(subset=["count"])
        labels, counts = entries["workload"].astype(str), entries["count"].astype(int)
        counted = list(zip(labels, counts, strict=True))
        heading = "Network: each layer entry's best mapping, and the total weighted by counts"
        tables.append((heading, network_totals(best, counted)))
    if len(groups) == 1 and len(results) <= MOST_POINTS:
        every = rank(results, objective)
        tables.append((f"Every evaluated design point, best {objective} first", every[shown]))
    mappings = [
        MappingRecord(
            f"{row['workload']} on {row['architecture']}",
            str(row["name"]),
            str(row["space_stamp"]),
            str(row["time_stamp"]),
        )
        for row in best.to_dict(orient="records")
    ]
    architectures = list(dict.fromkeys(str(a) for (_, a), _ in groups))
    workloads = [str(w) for (w, _), _ in groups]
    if title is None and len(groups) == 1:
        title = f"{workloads[0]} on {architectures[0]}"
    elif title is None and len(architectures) == 1:
        title = _network_title(workloads, architectures[0])
    many = f"{len(architectures)} architectures" if len(architectures) > 1 else architectures[0]
    heading = title or f"{_workloads(workloads)} on {many}"
    figures = _figures(results, best, objective) if len(best) else []
    return Report(heading, dict(inputs), tables, figures, mappings)
