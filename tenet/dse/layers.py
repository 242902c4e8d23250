"""The best program of every layer of a network: the best array mapping of each layer's
exploration with its mapping row (:func:`tenet.metrics.row.mapping_row`) under the tiles built
for the architecture's memory levels (drawn per layer by :func:`tenet.report.plot_layers`).

Each row carries the headline (the memory-aware latency and energy, the DRAM traffic: the
elements moved between the outermost level and the next, whether it fits), the bottleneck and
the tile stamps of the best by the objective of the tilings
:func:`~tenet.dse.tiling.constructive.construct_tilings` builds, with the bound of
:func:`tenet.dse.joint.declared.space_bound` (every mapping, tiling and choice of kept
tensors of the layer is at least that good); an architecture without levels inside DRAM keeps
the array's latency and energy and moves each tensor's distinct elements once
(:func:`tenet.dse.rows.tiled_figures`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from tenet.dse.rows import ARRAY_COLUMNS, tiled_figures, with_mapping_rows
from tenet.dse.run.execution import Progress
from tenet.metrics.row import HEADLINE_FIELDS
from tenet.spec import ArchitectureSpec
from tenet.vocab import MEMORY_OBJECTIVES, MemoryObjective, column

__all__ = ["layer_table", "LAYER_COLUMNS"]

LAYER_COLUMNS = [
    "workload",
    "name",
    *HEADLINE_FIELDS,
    column("utilisation"),
    column("latency_compute"),
    "bottleneck",
    *(column(f"bound_{m}") for m in MEMORY_OBJECTIVES),
    ARRAY_COLUMNS[column("latency")],
    ARRAY_COLUMNS[column("energy")],
    "space_stamp",
    "time_stamp",
    "tiles",
]
"""The columns of :func:`layer_table`, in order: the layer, its best array mapping's name and
headline, then how it was found (the bound of the tiling's objective only)."""


def layer_table(
    best: pd.DataFrame,
    layers: Mapping[str, tuple[Any, Mapping[str, int]]],
    architecture: str | ArchitectureSpec,
    top_k: int = 3,
    progress: Progress | None = None,
    objective: MemoryObjective = "latency",
) -> pd.DataFrame:
    """Return one row per layer of ``best`` (a sweep's best row per workload label) with its
    mapping row under the best tiling by ``objective`` of those built (with the bound of
    ``objective``); ``layers`` maps a label to its workload source and size parameters;
    ``progress`` (none: no display) wraps the layers (called with ``total=``)."""

    def figures(row: Mapping[str, Any]) -> dict[str, Any]:
        source, params = layers[str(row["workload"])]
        return tiled_figures(source, architecture, params, top_k, objective)(row)

    table = with_mapping_rows(best, figures, progress)
    bound = column(f"bound_{objective}")
    wanted = [c for c in LAYER_COLUMNS if not c.startswith("bound_") or c == bound]
    return table.reindex(columns=[*table.columns, *(c for c in wanted if c not in table)])
