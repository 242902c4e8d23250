"""The best program of every layer of a network: the best array mapping of each layer's
exploration with its mapping row (:func:`tenet.metrics.row.mapping_row`) under the tiles built
for the architecture's memory levels (drawn per layer by :func:`tenet.report.plot_layers`).

Each row carries the memory-aware latency and energy, the bottleneck, the DRAM traffic (the
elements moved between the outermost level and the next) and the tile stamps of the best of the
tilings :func:`~tenet.dse.tiling.constructive.construct_tilings` builds, with the bound of
:func:`tenet.dse.joint.declared.space_bound` (every mapping, tiling and choice of kept tensors
of the layer takes at least that many cycles); an architecture without levels inside DRAM keeps the
array's latency and energy and moves each tensor's distinct elements once
(:func:`tenet.dse.rows.tiled_figures`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from tenet.dse.rows import ARRAY_COLUMNS, tiled_figures, with_mapping_rows
from tenet.dse.run.execution import Progress
from tenet.spec import ArchitectureSpec
from tenet.vocab import column

__all__ = ["layer_table", "LAYER_COLUMNS"]

LAYER_COLUMNS = [
    "workload",
    column("latency"),
    column("traffic_dram"),
    column("utilisation"),
    "name",
    ARRAY_COLUMNS[column("latency")],
    column("latency_compute"),
    "bottleneck",
    "energy",
    "energy_unit",
    "fits",
    "memory_model",
    column("bound_latency"),
    "space_stamp",
    "time_stamp",
    "tiles",
]


def layer_table(
    best: pd.DataFrame,
    layers: Mapping[str, tuple[Any, Mapping[str, int]]],
    architecture: str | ArchitectureSpec,
    top_k: int = 3,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Return one row per layer of ``best`` (a sweep's best row per workload label) with its
    mapping row; ``layers`` maps a label to its workload source and size parameters;
    ``progress`` (none: no display) wraps the layers (called with ``total=``)."""

    def figures(row: Mapping[str, Any]) -> dict[str, Any]:
        source, params = layers[str(row["workload"])]
        return tiled_figures(source, architecture, params, top_k)(row)

    table = with_mapping_rows(best, figures, progress)
    return table.reindex(columns=[*table.columns, *(c for c in LAYER_COLUMNS if c not in table)])
