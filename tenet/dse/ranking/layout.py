"""Rank explored design points by the layout-aware ingress latency: the best rows of an
exploration by one objective, re-ranked by what their fetches cost on a banked scratchpad
(row-major tensors, or the layouts a search finds for each point)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from tenet.dse.ranking.objectives import Constraint, rank
from tenet.layout.evaluate import load_layout_problem
from tenet.layout.optimiser import SearchMethod, search_layout
from tenet.spec import ArchitectureSpec, DataflowSpec, WorkloadSpec
from tenet.spec.layout import ScratchpadSpec
from tenet.vocab import Neighbourhood, column

__all__ = ["LAYOUT_COLUMN", "rank_by_layout"]

LAYOUT_COLUMN = column("latency_ingress_layout")
"""Column of the layout-aware ingress latency added to the ranked rows."""


def rank_by_layout(
    results: pd.DataFrame,
    workload: WorkloadSpec,
    architecture: ArchitectureSpec,
    params: Mapping[str, int] | None = None,
    *,
    scratchpad: ScratchpadSpec | None = None,
    search: SearchMethod | None = None,
    by: str = "latency",
    top: int = 10,
    constraints: Sequence[Constraint] = (),
    neighbourhood: Neighbourhood = "links",
) -> pd.DataFrame:
    """Return the ``top`` feasible rows of ``results`` by objective ``by``, with the
    layout-aware ingress latency of each (:data:`LAYOUT_COLUMN`; after ``search`` if given,
    with the layouts found in ``layouts``), best first by it (ties: the ``by`` order).

    Below, point 0 reads A[3, 3] by columns, all in one of 3 banks (3 cycles a step, 3
    steps), point 1 by rows, one word per bank (1 cycle a step).

    Examples
    --------
    >>> from tenet.spec import load_architecture, load_workload
    >>> rows = pd.DataFrame({"index": [0, 1], "status": ["ok", "ok"], "latency_cycles": [5, 6],
    ...     "space_stamp": ["{S[i, j] -> PE[i]}", "{S[i, j] -> PE[j % 3]}"],
    ...     "time_stamp": ["{S[i, j] -> T[j]}", "{S[i, j] -> T[i, floor(j / 3)]}"]})
    >>> w = WorkloadSpec.from_mapping({"name": "w", "domain": "{S[i, j]: 0 <= i < 3 and "
    ...     "0 <= j < 3}", "accesses": {"A": {"read": "{S[i, j] -> A[i, j]}"}}})
    >>> a = ArchitectureSpec.from_mapping({"name": "a", "pe": "{PE[p]: 0 <= p < 3}"})
    >>> ranked = rank_by_layout(rows, w, a, scratchpad=ScratchpadSpec(banks=3))
    >>> ranked["index"].tolist(), ranked[LAYOUT_COLUMN].tolist()
    ([1, 0], [3, 9])
    """
    best = rank(results, by, top, constraints).copy()
    latencies, layouts = [], []
    for position, row in enumerate(best.itertuples(index=False)):
        dataflow = DataflowSpec.from_mapping(
            {
                "name": f"candidate-{position}",
                "space_stamp": getattr(row, "space_stamp"),  # noqa: B009
                "time_stamp": getattr(row, "time_stamp"),  # noqa: B009
            }
        )
        lp = load_layout_problem(
            workload,
            architecture,
            dataflow,
            params,
            scratchpad=scratchpad,
            neighbourhood=neighbourhood,
        )
        if search is None:
            latencies.append(lp.evaluate().latency_ingress_layout)
            layouts.append("")
        else:
            found = search_layout(lp, search)
            latencies.append(found.latency_ingress_after)
            layouts.append("; ".join(f"{c.tensor}: {c.describe_after}" for c in found.tensors))
    best[LAYOUT_COLUMN] = latencies
    if search is not None:
        best["layouts"] = layouts
    best["_order"] = range(len(best))
    return best.sort_values([LAYOUT_COLUMN, "_order"]).drop(columns="_order")
