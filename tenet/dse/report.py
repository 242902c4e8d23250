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
from tenet.dse.rows import ARRAY_COLUMNS, untiled_figures, with_mapping_rows
from tenet.dse.run.store import ResultStore
from tenet.errors import SpecError
from tenet.metrics.row import HEADLINE_FIELDS
from tenet.report.designspace import plot_layers
from tenet.report.html import MappingRecord, Report
from tenet.report.tables import axis_label
from tenet.report.text import fits_line
from tenet.spec import Specs, load_architecture, load_workload
from tenet.vocab import column

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = [
    "POINT_COLUMNS",
    "REPORTED_COLUMNS",
    "design_report",
    "stored_results",
    "stored_specs",
]

POINT_COLUMNS = [
    "workload",
    "architecture",
    "index",
    "name",
    *HEADLINE_FIELDS,
    column("latency_compute"),
    "bottleneck",
    *(column(f"bound_{m}") for m in ("latency", "energy", "edp")),
    "tiling",
    *(column(m) for m in ("latency_array", "energy_array", "edp_array")),
    *(column(m) for m in ("bandwidth_scratchpad", "bandwidth_pe", "utilisation")),
    "data_centric",
    "scratchpad",
    "space_stamp",
    "time_stamp",
    "tiles",
]
"""Columns of a design point shown in tables of the best points, in order (those a table has):
its headline (the shown rows' mapping rows, :data:`tenet.metrics.row.HEADLINE_FIELDS`), then
the array's figures, which the search ranks by, under their own names
(:data:`tenet.dse.rows.ARRAY_COLUMNS`)."""

REPORTED_COLUMNS = [
    *POINT_COLUMNS[: POINT_COLUMNS.index(column("bound_latency"))],
    *(column(m) for m in ("latency_array", "energy_array", "edp_array")),
    *(column(m) for m in ("bandwidth_scratchpad", "bandwidth_pe", "utilisation")),
    column("active_pes"),
    column("timestamps"),
    "data_centric",
    "scratchpad",
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


def stored_specs(path: str | Path) -> dict[tuple[str, str], Specs]:
    """Return the specs of each design-space run of the results store ``path``, by (workload
    label, architecture), found by the names the store records (a zoo name, or a template's
    sized name) with the run's sizes; a run whose workload or architecture no name finds (a
    spec read from a file) is left out."""
    from tenet.errors import TenetError

    store = ResultStore(path)
    try:
        runs = [arguments for _, arguments, _ in store.runs()]
    finally:
        store.close()
    found: dict[tuple[str, str], Specs] = {}
    for arguments in runs:
        if not {"workload", "architecture", "params"} <= set(arguments) or "search" in arguments:
            continue
        label = str(arguments.get("label", arguments["workload"]))
        architecture = str(arguments["architecture"])
        try:
            workload, arch = load_workload(arguments["workload"]), load_architecture(architecture)
        except TenetError:
            continue
        params = {str(k): int(v) for k, v in arguments["params"].items()}
        found[label, architecture] = Specs(workload, arch, None, params)
    return found


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
    """The Pareto front of the array's latency and energy (what the search ranks by) for one
    exploration; the best mapping's headline figures per workload on each array for several
    (``best``: the best rows with their headlines)."""
    figures: list[tuple[str, Figure]] = []
    pairs = list(dict.fromkeys(zip(results["workload"], results["architecture"], strict=True)))
    if len(pairs) == 1:
        workload, architecture = pairs[0]
        ax = draw_pareto(results, "latency", "energy")
        ax.set_title(f"{workload} on {architecture}")
        figures.append(("Design points and their Pareto front", ax.figure))  # type: ignore[arg-type]
        return figures
    panels = [
        (name, axis_label(name, best))
        for name in (column("latency"), column("energy"))
        if name in best.columns
    ]
    panels.append((column("utilisation"), "PE utilisation"))
    goal = objective_of(by)
    shown = ARRAY_COLUMNS.get(goal.column, goal.column)
    if shown not in {name for name, _ in panels}:
        panels.insert(0, (shown, axis_label(shown, best, goal.description.split(",")[0])))
    for architecture, part in best.groupby("architecture", sort=False):
        title = _network_title([str(w) for w in part["workload"]], str(architecture))
        axes = plot_layers(part, panels=panels, title=title)
        heading = f"Best mapping per workload by the array's {by}: {title}"
        figures.append((heading, axes[0].figure))  # type: ignore[arg-type]
    return figures


def _headlines(
    best: pd.DataFrame, specs: Mapping[tuple[str, str], Specs]
) -> tuple[pd.DataFrame, list[str]]:
    """The best row of each exploration with its headline (its mapping row, untiled, as
    ``tenet sweep`` prints it) when ``specs`` has the exploration's specs, its array's figures
    under their own names (:data:`~tenet.dse.rows.ARRAY_COLUMNS`); and the notes of the page:
    each best mapping that does not fit, and each exploration without specs."""
    import pandas as pd

    parts, notes = [], []
    for row in best.to_dict(orient="records"):
        found = specs.get((str(row["workload"]), str(row["architecture"])))
        frame = pd.DataFrame([row])
        if found is None:
            parts.append(frame.rename(columns=ARRAY_COLUMNS))
            notes.append(
                f"{row['workload']} on {row['architecture']}: no headline (its workload or "
                "architecture is not found by name), the array's figures only"
            )
            continue
        figures = untiled_figures(found.workload, found.architecture, found.bound)
        parts.append(with_mapping_rows(frame, figures))
    shown = pd.concat(parts, ignore_index=True) if parts else best.rename(columns=ARRAY_COLUMNS)
    for row in shown.to_dict(orient="records"):
        if row.get("fits") in (True, False) and not row["fits"]:
            notes.insert(0, f"{row['workload']} on {row['architecture']}: {fits_line(row)}")
    return shown, notes


def design_report(
    results: pd.DataFrame,
    inputs: Mapping[str, str],
    *,
    objective: str = "latency",
    title: str | None = None,
    specs: Mapping[tuple[str, str], Specs] | None = None,
) -> Report:
    """Return the report of the design points ``results`` (rows of one or several
    explorations, with ``workload`` and ``architecture`` columns): the best mapping of each
    exploration by the array's ``objective`` (what the search ranks by) with its headline,
    every design point when there is one exploration (the array's figures), the plots, and
    the dataflow of each best mapping; with a ``count`` column (a network's layers), each
    layer entry with its count and the network's total
    (:func:`tenet.dse.network.network_totals`).

    ``specs`` gives, per exploration (workload label, architecture), the specs explored:
    the headline of its best mapping (latency, energy, DRAM traffic, whether it fits) is
    that of the memory-aware model when the architecture has levels inside the outermost
    (untiled), as ``tenet sweep`` prints it; a best mapping that does not fit is named at the
    top of the page."""
    import pandas as pd

    groups = list(results.groupby(["workload", "architecture"], sort=False))
    if not groups:
        raise SpecError("no design point to report: the search evaluated none")
    ranked = pd.concat([rank(rows, objective, 1) for _, rows in groups], ignore_index=True)
    best, notes = _headlines(ranked, specs or {})
    shown = [c for c in REPORTED_COLUMNS if c in best.columns]
    tables = [(f"Best mapping of each exploration by the array's {objective}", best[shown])]
    if "count" in results.columns:  # a network's layers: each entry, and the network
        entries = results.drop_duplicates("workload").dropna(subset=["count"])
        labels, counts = entries["workload"].astype(str), entries["count"].astype(int)
        counted = list(zip(labels, counts, strict=True))
        heading = "Network: each layer entry's best mapping, and the total weighted by counts"
        tables.append((heading, network_totals(best, counted)))
    if len(groups) == 1 and len(results) <= MOST_POINTS:
        every = rank(results, objective).rename(columns=ARRAY_COLUMNS)
        heading = f"Every evaluated design point, best array's {objective} first"
        tables.append((heading, every[[c for c in REPORTED_COLUMNS if c in every.columns]]))
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
    return Report(heading, dict(inputs), tables, figures, mappings, notes)
