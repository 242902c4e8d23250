"""An exploration's results on two objectives: the evaluated design points and their Pareto
front, taken from the results table (:mod:`tenet.dse.ranking.objectives`) and drawn by
:func:`tenet.report.plot_pareto`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tenet.dse.ranking.objectives import feasible, objective, pareto_front
from tenet.report.designspace import plot_pareto
from tenet.report.tables import axis_label

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["draw_pareto"]


def draw_pareto(
    results: pd.DataFrame, x: str = "latency", y: str = "energy", ax: Axes | None = None
) -> Axes:
    """Scatter the evaluated design points of ``results`` on objectives ``x`` and ``y`` and
    draw their Pareto front; return the Axes (a new figure's when ``ax`` is None). The figures
    of a search's rows are the array model's, and the axes say so.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"index": [0, 1, 2], "status": ["ok"] * 3,
    ...     "data_centric": [True, False, False], "latency_cycles": [1, 2, 3],
    ...     "energy": [3.0, 1.0, 2.0]})
    >>> ax = draw_pareto(t)
    >>> ax.get_xlabel(), len(ax.lines[0].get_xdata())  # point 2 is beaten by point 1
    ("array's latency, cycles", 2)
    """
    first, second = objective(x), objective(y)
    return plot_pareto(
        feasible(results),
        pareto_front(results, x, y),
        first.column,
        second.column,
        ax,
        xlabel=axis_label(first.column, results, f"array's {first.description.split(',')[0]}"),
        ylabel=axis_label(second.column, results, f"array's {second.description.split(',')[0]}"),
    )
