"""Bank use per time-stamp: a tidy table (step, bank, rows served) walked point by point from a
layout problem (:mod:`tenet.layout`), and its heat map. matplotlib is imported inside the
plotting function; saving is the caller's job."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

import islpy as isl

from tenet.errors import UnknownTensorError
from tenet.layout.evaluate import LayoutProblem
from tenet.layout.metrics import fetched_per_step
from tenet.layout.relation import bank_map
from tenet.report.axes import new_axes
from tenet.vocab import TensorName

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["bank_use", "plot_bank_use"]


def bank_use(lp: LayoutProblem, tensor: TensorName) -> pd.DataFrame:
    """Return the rows each bank serves for ``tensor``'s reads at each time-stamp: columns
    ``step`` (time-stamps with a fetch, in lexicographic order from 0), ``time_stamp``,
    ``bank`` and ``rows`` (0 for an idle bank). Walks the points: for small problems.

    Examples
    --------
    >>> from tenet.layout.evaluate import load_layout_problem
    >>> from tenet.spec.layout import ScratchpadSpec
    >>> lp = load_layout_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic",
    ...     {"M": 4, "N": 4, "K": 4}, scratchpad=ScratchpadSpec(banks=4))
    >>> # at T[0, 0, 3], PE[i, 0] fetches A[i, 3 - i], row-major address 4i + 3 - i = 3i + 3:
    >>> # banks 3, 2, 1, 0 (mod 4), one row each
    >>> table = bank_use(lp, "A")
    >>> table[table.time_stamp == "T[0, 0, 3]"].rows.tolist()
    [1, 1, 1, 1]
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
    import pandas as pd

    return pd.DataFrame.from_records(records, columns=["step", "time_stamp", "bank", "rows"])


def plot_bank_use(table: pd.DataFrame, ax: Axes | None = None, title: str = "") -> Axes:
    """Draw a :func:`bank_use` table as a heat map: time-stamps across, banks up, colour the
    rows served (above 1: a conflict). Returns the Axes (a new figure if ``ax`` is None)."""
    from matplotlib.ticker import MaxNLocator

    ax = ax if ax is not None else new_axes()
    grid = table.pivot(index="bank", columns="step", values="rows").fillna(0)
    image = ax.imshow(grid.to_numpy(), aspect="auto", origin="lower", cmap="viridis")
    ax.figure.colorbar(image, ax=ax, label="bank rows served")
    ax.set_xlabel("time-stamp (steps with a fetch, in order)")
    ax.set_ylabel("bank")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title(title or "bank use per time-stamp")
    return ax
