"""Design-space figures -> matplotlib Axes: explored design points on two objectives with their
Pareto front, and the per-layer figures of a network's best mappings. The search
(:mod:`tenet.dse`) computes the tables; these functions only draw them, on a given Axes or a
new figure made without pyplot, and return the Axes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tenet.report.axes import new_axes, require
from tenet.vocab import column

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["LAYER_PANELS", "plot_layers", "plot_pareto"]

LAYER_PANELS: tuple[tuple[str, str], ...] = (
    (column("latency"), "latency, cycles"),
    (column("traffic_dram"), "DRAM traffic, elements"),
    (column("utilisation"), "PE utilisation, ratio"),
)
"""Column and axis label of each panel of :func:`plot_layers`, top to bottom."""


def plot_pareto(
    points: pd.DataFrame,
    front: pd.DataFrame,
    x: str,
    y: str,
    ax: Axes | None = None,
    *,
    xlabel: str | None = None,
    ylabel: str | None = None,
) -> Axes:
    """Scatter ``points`` on columns ``x`` and ``y`` (the rows whose ``data_centric`` column is
    true marked apart, when there is one) and draw ``front`` (rows ordered by ``x``) as a
    staircase through hollow markers; return the Axes (a new 6 x 4 inch figure's when ``ax``
    is None).

    Examples
    --------
    >>> import pandas as pd
    >>> points = pd.DataFrame({"data_centric": [True, False, False],
    ...     "latency_cycles": [1, 2, 3], "energy": [3.0, 1.0, 2.0]})
    >>> ax = plot_pareto(points, points.iloc[:2], "latency_cycles", "energy",
    ...                  xlabel="latency, cycles")
    >>> ax.get_xlabel(), [float(v) for v in ax.lines[0].get_ydata()]
    ('latency, cycles', [3.0, 1.0])
    """
    require(points, [x, y])
    require(front, [x, y])
    ax = ax if ax is not None else new_axes((6, 4))
    centric = points["data_centric"].astype(bool) if "data_centric" in points else False
    for subset, label, marker in (
        (points[~centric], "relation-centric only", "o"),
        (points[centric], "data-centric expressible", "s"),
    ):
        if len(subset):
            ax.scatter(subset[x], subset[y], s=14, marker=marker, label=label, alpha=0.6)
    if len(front):
        # a staircase through hollow markers: a front of one point is still seen
        ax.plot(
            front[x],
            front[y],
            drawstyle="steps-post",
            color="black",
            linewidth=1,
            marker="o",
            markersize=8,
            markerfacecolor="none",
            label="Pareto front",
        )
    ax.set_xlabel(xlabel if xlabel is not None else x)
    ax.set_ylabel(ylabel if ylabel is not None else y)
    ax.legend(loc="best", fontsize="small")
    return ax


def plot_layers(
    table: pd.DataFrame,
    axes: Sequence[Axes] | None = None,
    *,
    panels: Sequence[tuple[str, str]] = LAYER_PANELS,
    title: str | None = None,
    by: str = "workload",
) -> list[Axes]:
    """Draw the figures of each layer (a row of ``table``, named by its column ``by``'s last
    ``/`` part) as bars, one panel per (column, axis label) of ``panels`` (by default
    :data:`LAYER_PANELS`: latency, DRAM traffic, utilisation), sharing the x axis, under
    ``title`` (e.g. the network and the array); return the Axes (of a new figure when ``axes``
    is None).

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"workload": ["net/conv1", "net/fc"], "latency_cycles": [40, 8],
    ...     "traffic_dram_elements": [100, 30], "utilisation": [0.5, 1.0]})
    >>> axes = plot_layers(table, title="net on systolic-2d-8x8")
    >>> [t.get_text() for t in axes[-1].get_xticklabels()], axes[0].get_title()
    (['conv1', 'fc'], 'net on systolic-2d-8x8')
    """
    require(table, [by, *(name for name, _ in panels)])
    figure: Figure | None = None
    if axes is None:
        from matplotlib.figure import Figure

        figure = Figure(figsize=(max(6.0, 0.35 * len(table)), 2.2 * len(panels) + 0.4))
        axes = list(figure.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0])
    labels = [str(w).split("/")[-1] for w in table[by]]
    for ax, (name, label) in zip(axes, panels, strict=True):
        ax.bar(range(len(table)), table[name].astype(float))
        ax.set_ylabel(label)
    axes[-1].set_xticks(range(len(table)), labels, rotation=90)
    if title is not None:
        axes[0].set_title(title)
    if figure is not None:
        figure.tight_layout()
    return list(axes)
