"""Design points from schedules: the space-time mappings of :mod:`tenet.schedule.projection`
(a time hyperplane and a space projection of the workload's Pluto-style schedule) evaluated as
the design space's points are, into rows of the same shape (plus their ``origin``).

They reach skews that the design space's coefficients in {-1, 0, 1} do not (``2t + s + i``
for Jacobi-1D), and every one of them is legal by construction and by check.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from tenet.api import load_specs
from tenet.dse.run.worker import Context, evaluate_tasks
from tenet.schedule.projection import spacetime_mappings
from tenet.spec import ArchitectureSpec, WorkloadSpec
from tenet.vocab import Neighbourhood

__all__ = ["explore_schedule"]


def explore_schedule(
    workload: str | Path | WorkloadSpec,
    architecture: str | Path | ArchitectureSpec,
    *,
    params: Mapping[str, int] | None = None,
    reductions: Sequence[str] | None = None,
    reuse: bool = False,
    neighbourhood: Neighbourhood = "links",
) -> pd.DataFrame:
    """Evaluate the dataflows made from the schedule of ``workload`` on ``architecture``; one
    row per dataflow (columns of the design-space rows, plus ``origin``), in their order. The
    movement of tensors is not classified (``scratchpad`` is ``-``).

    ``reuse`` adds each tensor's reuse chain to the dependences (e.g. GEMM's systolic
    dataflows); the other arguments are those of :func:`tenet.dse.explore.explore`.

    Examples
    --------
    >>> rows = explore_schedule("stencil-1d-steps", "systolic-1d-16", params={"N": 8})
    >>> rows[["name", "status", "latency_compute_cycles"]].values.tolist()[1]
    ['PE[i + j] T[i]', 'ok', 8]
    """
    given = load_specs(workload, architecture, params=params)
    w, a = given.workload, given.architecture
    chosen = tuple(w.reductions if reductions is None else reductions)
    mappings = spacetime_mappings(w, a, given.params, reductions=chosen, reuse=reuse)
    dataflows = [m.spec() for m in mappings]
    context = Context.make(given, chosen, neighbourhood)
    tasks = [(k, d.name, d.space_stamp, d.time_stamp) for k, d in enumerate(dataflows)]
    rows = evaluate_tasks(context.text, tasks)
    table = pd.DataFrame(rows)
    table.insert(0, "architecture", a.name)
    table.insert(0, "workload", w.name)
    table["origin"] = [m.origin for m in mappings]
    table["data_centric"] = [m.rectangular for m in mappings]
    table["scratchpad"] = "-"
    table["space_stamp"] = [d.space_stamp for d in dataflows]
    table["time_stamp"] = [d.time_stamp for d in dataflows]
    table["bandwidth_elements_per_cycle"] = a.bandwidth / a.bits_per_element
    return table
