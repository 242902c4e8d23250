"""Plots of explored design spaces: every evaluated design point of two objectives, the
data-centric-expressible ones marked apart, and the Pareto front drawn as a staircase."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tenet.dse.objectives import feasible, objective, pareto_front

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["plot_pareto"]


def plot_pareto(
    results: pd.DataFrame, x: str = "latency", y: str = "energy", ax: Axes | None = None
) -> Axes:
    """Scatter the design points of ``results`` on objectives ``x`` and ``y`` and draw their
    Pareto front; return the Axes (a new figure's when ``ax`` is None).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"index": [0, 1, 2], "status": ["ok"] * 3,
    ...     "data_centric": [True, False, False], "latency_cycles": [1, 2, 3],
    ...     "energy_pj": [3.0, 1.0, 2.0]})
    >>> plot_pareto(t).get_xlabel()
    'latency, cycles'
    """
    if ax is None:
        from matplotlib.figure import Figure

        ax = Figure(figsize=(6, 4)).add_subplot()
    first, second = objective(x), objective(y)
    rows = feasible(results)
    centric = rows["data_centric"].astype(bool) if "data_centric" in rows else False
    for subset, label, marker in (
        (rows[~centric], "relation-centric only", "o"),
        (rows[centric], "data-centric expressible", "s"),
    ):
        if len(subset):
            ax.scatter(
                subset[first.column],
                subset[second.column],
                s=14,
                marker=marker,
                label=label,
                alpha=0.6,
            )
    front = pareto_front(results, x, y)
    if len(front):
        ax.step(
            front[first.column],
            front[second.column],
            where="post",
            color="black",
            linewidth=1,
            label="Pareto front",
        )
    ax.set_xlabel(first.description)
    ax.set_ylabel(second.description)
    ax.legend(loc="best", fontsize="small")
    return ax
