"""The best program of every layer of a network: the best array mapping of each layer's
exploration and its DRAM traffic under the tiles built for the architecture's memory levels
(drawn per layer by :func:`tenet.report.plot_layers`).

DRAM traffic is the elements moved between the outermost level and the next (fills and
writebacks) under the best of the tilings :func:`~tenet.dse.tiling.constructive.construct_tilings`
builds; an architecture without levels inside DRAM moves each tensor's distinct elements
once. With levels, each row also carries that tiling's memory-aware latency, its bottleneck,
its tile stamps and the bound of :func:`tenet.dse.joint.run.space_bound` (every mapping,
tiling and choice of kept tensors of the layer takes at least that many cycles).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pandas as pd

from tenet.api import load_problem
from tenet.dse.run.execution import Progress
from tenet.dse.tiling.constructive import construct_tilings
from tenet.metrics.memory import evaluate_memory
from tenet.spec import ArchitectureSpec, DataflowSpec, WorkloadSpec
from tenet.vocab import column

__all__ = ["tiled_figures", "layer_table", "LAYER_COLUMNS"]

LAYER_COLUMNS = [
    "workload",
    column("latency"),
    column("traffic_dram"),
    column("utilisation"),
    "name",
    column("latency_memory"),
    "bottleneck",
    column("bound_latency"),
    "space_stamp",
    "time_stamp",
    "tiles",
]


def tiled_figures(
    workload: str | WorkloadSpec,
    architecture: str | ArchitectureSpec,
    params: Mapping[str, int],
    space_stamp: str,
    time_stamp: str,
    top_k: int = 3,
) -> dict[str, Any]:
    """Return the figures of a mapping under its best constructed tiling: memory-aware
    latency (cycles), bottleneck, DRAM traffic (elements), tile stamps and the latency bound
    over the layer's whole space (cycles); only the DRAM traffic without memory levels (the
    others None)."""
    from tenet.dse.joint.run import space_bound
    from tenet.mapping import to_stamps

    dataflow = DataflowSpec.from_mapping(
        {"name": "best", "space_stamp": space_stamp, "time_stamp": time_stamp}
    )
    problem = load_problem(workload, architecture, dataflow, params)
    if len(problem.architecture.levels) < 2:  # DRAM feeds the array: each element once
        dram = evaluate_memory(problem, latency_compute=0).records
        return {column("traffic_dram"): sum(r.footprint for r in dram)}
    best = construct_tilings(problem, top_k=top_k)[0]
    latency = best.metrics.latency
    bound = space_bound(problem)
    return {
        column("latency_memory"): int(latency) if latency.denominator == 1 else float(latency),
        "bottleneck": best.metrics.bottleneck,
        column("traffic_dram"): best.traffic_dram,
        "tiles": json.dumps(to_stamps(best.tiling).tiles),
        column("bound_latency"): int(bound) if bound.denominator == 1 else float(bound),
    }


def layer_table(
    best: pd.DataFrame,
    layers: Mapping[str, tuple[Any, Mapping[str, int]]],
    architecture: str | ArchitectureSpec,
    top_k: int = 3,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Return one row per layer of ``best`` (a sweep's best row per workload label), with its
    DRAM traffic; ``layers`` maps a label to its workload source and size parameters;
    ``progress`` (none: no display) wraps the layers (called with ``total=``)."""
    rows = []
    added = [column("traffic_dram")]
    shown = best.iterrows() if progress is None else progress(best.iterrows(), total=len(best))
    for _, row in shown:
        source, params = layers[str(row["workload"])]
        figures = tiled_figures(
            source, architecture, params, str(row["space_stamp"]), str(row["time_stamp"]), top_k
        )
        added += [k for k in figures if k not in added]
        rows.append({**row.to_dict(), **figures})
    return pd.DataFrame(rows, columns=[*best.columns, *added])
