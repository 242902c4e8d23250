"""The best program of every layer of a network: the best array mapping of each layer's
exploration and its DRAM traffic under the tiles built for the architecture's memory levels
(drawn per layer by :func:`tenet.report.plot_layers`).

DRAM traffic is the elements moved between the outermost level and the next (fills and
writebacks) under the best of the tilings :func:`~tenet.dse.tiling.constructive.construct_tilings`
builds; an architecture without levels inside DRAM moves each tensor's distinct elements
once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from tenet.api import load_problem
from tenet.counting import count
from tenet.dse.run.execution import Progress
from tenet.dse.tiling.constructive import construct_tilings
from tenet.spec import ArchitectureSpec, DataflowSpec, WorkloadSpec
from tenet.vocab import column

__all__ = ["dram_traffic", "layer_table", "LAYER_COLUMNS"]

LAYER_COLUMNS = [
    "workload",
    column("latency"),
    column("traffic_dram"),
    column("utilisation"),
    "name",
]


def dram_traffic(
    workload: str | WorkloadSpec,
    architecture: str | ArchitectureSpec,
    params: Mapping[str, int],
    space_stamp: str,
    time_stamp: str,
    top_k: int = 3,
) -> int:
    """Return the DRAM traffic (elements) of a mapping under the best constructed tiling."""
    dataflow = DataflowSpec.from_mapping(
        {"name": "best", "space_stamp": space_stamp, "time_stamp": time_stamp}
    )
    problem = load_problem(workload, architecture, dataflow, params)
    if len(problem.architecture.levels) < 2:
        distinct = 0
        for tensor in problem.workload.tensors:
            relations = [m for t, _, m in problem.workload.accesses if t == tensor]
            image = relations[0].range()
            for relation in relations[1:]:
                image = image.union(relation.range())
            distinct += count(image)
        return distinct
    return construct_tilings(problem, top_k=top_k)[0].traffic_dram


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
    shown = best.iterrows() if progress is None else progress(best.iterrows(), total=len(best))
    for _, row in shown:
        source, params = layers[str(row["workload"])]
        traffic = dram_traffic(
            source, architecture, params, str(row["space_stamp"]), str(row["time_stamp"]), top_k
        )
        rows.append({**row.to_dict(), column("traffic_dram"): traffic})
    return pd.DataFrame(rows, columns=[*best.columns, column("traffic_dram")])
