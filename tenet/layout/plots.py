"""Bank use per time-stamp: a tidy table (step, bank, rows served) and its heat map.
matplotlib is imported inside the plotting function; saving is the caller's job."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

import islpy as isl
import pandas as pd

from tenet.errors import UnknownTensorError
from tenet.layout.evaluate import LayoutProblem
from tenet.layout.metrics import fetched_per_step
from tenet.layout.relation import bank_map
from tenet.vocab import TensorName

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["bank_use", "plot_bank_use"]


def bank_use(lp: LayoutProblem, tensor: TensorName) -> pd.DataFrame:
    """Return the rows each bank serves for ``tensor``'s reads at each time-stamp: columns
    ``step`` (time-stamps with a fetch, in lexicographic order from 0), ``time_stamp``,
    ``bank`` and ``rows`` (0 for an idle bank). Walks the points: for small problems.

    Examples
    --------
    >>> from tenet.layout.evaluate import load_layout_problem
    >>> from tenet.spec import ArchitectureSpec, DataflowSpec, WorkloadSpec
    >>> from tenet.spec.layout import ScratchpadSpec
    >>> w = WorkloadSpec.from_mapping({"name": "w", "domain": "{S[i, j]: 0 <= i < 3 and "
    ...     "0 <= j < 4}", "accesses": {"A": {"read": "{S[i, j] -> A[i, j]}"}}})
    >>> a = ArchitectureSpec.from_mapping({"name": "a", "pe": "{PE[p]: 0 <= p < 3}"})
    >>> d = DataflowSpec.from_mapping({"name": "d", "space_stamp": "{S[i, j] -> PE[i]}",
    ...     "time_stamp": "{S[i, j] -> T[j]}"})
    >>> table = bank_use(load_layout_problem(w, a, d, scratchpad=ScratchpadSpec(banks=4)), "A")
    >>> table[table.step == 1].rows.tolist()
    [0, 3, 0, 0]
    """
    problem = lp.problem
    reads = [a for a in problem.accesses if a.tensor == tensor and a.access == "read"]
    if not reads:
        raise UnknownTensorError(tensor, sorted({a.tensor for a in problem.accesses}))
    fetched = fetched_per_step(problem, reads[0])
    for access in reads[1:]:
        fetched = fetched.union(fetched_per_step(problem, access))
    rows = fetched.apply_range(lp.layouts[tensor].relation).apply_range(bank_map(lp.scratchpad))
    n_time = rows.dim(isl.dim_type.in_)
    served: dict[tuple[int, ...], dict[int, int]] = defaultdict(lambda: defaultdict(int))

    def visit(point: isl.Point) -> None:
        c = [
            int(point.get_coordinate_val(isl.dim_type.set, k).to_python())
            for k in range(point.get_space().dim(isl.dim_type.set))
        ]
        served[tuple(c[:n_time])][c[n_time]] += 1

    rows.wrap().flatten().foreach_point(visit)
    records = [
        {
            "step": step,
            "time_stamp": f"T[{', '.join(map(str, t))}]",
            "bank": bank,
            "rows": served[t].get(bank, 0),
        }
        for step, t in enumerate(sorted(served))
        for bank in range(lp.scratchpad.banks)
    ]
    return pd.DataFrame.from_records(records, columns=["step", "time_stamp", "bank", "rows"])


def plot_bank_use(table: pd.DataFrame, ax: Axes | None = None, title: str = "") -> Axes:
    """Draw a :func:`bank_use` table as a heat map: time-stamps across, banks up, colour the
    rows served (above 1: a conflict). Returns the Axes (a new figure if ``ax`` is None)."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    if ax is None:
        ax = Figure(layout="constrained").add_subplot()
    grid = table.pivot(index="bank", columns="step", values="rows").fillna(0)
    image = ax.imshow(grid.to_numpy(), aspect="auto", origin="lower", cmap="viridis")
    ax.figure.colorbar(image, ax=ax, label="bank rows served")
    ax.set_xlabel("time-stamp (steps with a fetch, in order)")
    ax.set_ylabel("bank")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title(title or "bank use per time-stamp")
    return ax
