"""Grouped bar plot of a comparison table (exact counts vs MAESTRO-style estimates).

Takes the DataFrame of one of the :mod:`tenet.maestro` entry points (columns ``dataflow,
quantity, tensor, exact, estimate``) and an optional matplotlib ``ax``; returns the Axes.
Values are shown relative to the exact count (exact = 1) on a logarithmic axis, so quantities
of different units share one plot.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tenet.report.axes import legend_beside, new_axes, require

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["plot_comparison"]


def plot_comparison(
    table: pd.DataFrame, ax: Axes | None = None, quantities: Sequence[str] | None = None
) -> Axes:
    """Draw estimate / exact per quantity as grouped bars and return the Axes.

    With one dataflow in ``table`` each quantity gets two bars (exact, MAESTRO-style); with
    several (a network) it gets one bar per dataflow. ``quantities`` restricts the rows.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"dataflow": ["a", "a"], "quantity": ["latency", "volume_unique"],
    ...     "tensor": ["", "input"], "exact": [10, 4], "estimate": [20, 4]})
    >>> ax = plot_comparison(df)
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['latency', 'volume_unique[input]']
    """
    require(table, ["dataflow", "quantity", "tensor", "exact", "estimate"])
    data = table[table["quantity"] != "error"]
    if quantities is not None:
        data = data[data["quantity"].isin(quantities)]
    data = data[data["exact"].astype(float) > 0]
    labels = [
        f"{q}[{t}]" if t else str(q) for q, t in zip(data["quantity"], data["tensor"], strict=True)
    ]
    data = data.assign(
        label=labels, ratio=data["estimate"].astype(float) / data["exact"].astype(float)
    )
    order = list(dict.fromkeys(labels))
    dataflows = list(dict.fromkeys(data["dataflow"]))
    if ax is None:
        ax = new_axes((max(6.0, 0.6 * len(order) * max(len(dataflows), 2)), 4))
    positions = range(len(order))
    if len(dataflows) == 1:
        series = [("exact", [1.0] * len(order))]
        ratios = dict(zip(data["label"], data["ratio"], strict=True))
        series.append(("MAESTRO-style", [ratios[label] for label in order]))
    else:
        series = []
        for name in dataflows:
            part = data[data["dataflow"] == name]
            ratios = dict(zip(part["label"], part["ratio"], strict=True))
            series.append((str(name), [ratios.get(label, float("nan")) for label in order]))
    width = 0.8 / len(series)
    for k, (name, values) in enumerate(series):
        offsets = [p - 0.4 + width * (k + 0.5) for p in positions]
        ax.bar(offsets, values, width=width, label=name)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks(list(positions))
    ax.set_xticklabels(order, rotation=45, ha="right")
    ax.set_ylabel("estimate / exact")
    title = str(dataflows[0]) if len(dataflows) == 1 else "estimate / exact per layer"
    ax.set_title(title)
    legend_beside(ax, fontsize="small")
    return ax
