"""What every plot of :mod:`tenet.report` shares: a new Axes made without pyplot, the colour
cycle, the check that a table has the columns a plot reads, grouped bars and a legend beside
the axes. matplotlib is imported inside the functions, so importing tenet never loads it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.artist import Artist
    from matplotlib.axes import Axes

__all__ = ["colours", "grouped_bars", "legend_beside", "new_axes", "require", "row_names"]


def new_axes(
    figsize: tuple[float, float] | None = None,
    dpi: float | None = None,
    *,
    layout: Literal["constrained", "compressed", "tight"] | None = "constrained",
) -> Axes:
    """Return the Axes of a new figure, made without pyplot.

    ``figsize`` is in inches and ``dpi`` in pixels per inch (matplotlib's defaults if None);
    ``layout`` is the figure's layout engine (None: none).

    Examples
    --------
    >>> ax = new_axes((4, 3), dpi=50)
    >>> [float(v) for v in ax.figure.get_size_inches() * ax.figure.dpi]
    [200.0, 150.0]
    """
    from matplotlib.figure import Figure

    return Figure(figsize=figsize, dpi=dpi, layout=layout).add_subplot()


def colours() -> list[str]:
    """Return the colours of matplotlib's colour cycle, in order."""
    from matplotlib import rcParams

    return list(rcParams["axes.prop_cycle"].by_key()["color"])


def require(table: pd.DataFrame, columns: Sequence[str]) -> None:
    """Raise ``ValueError`` naming the ``columns`` that ``table`` lacks, if any.

    Examples
    --------
    >>> import pandas as pd
    >>> require(pd.DataFrame({"design": ["os"]}), ["design", "latency_cycles"])
    Traceback (most recent call last):
    ...
    ValueError: the table lacks column(s) latency_cycles
    """
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(f"the table lacks column(s) {', '.join(missing)}")


def row_names(table: pd.DataFrame, by: str) -> list[str]:
    """Return the values of column ``by``, one per row, in row order; refuse repeated ones."""
    require(table, [by])
    values = [str(v) for v in table[by]]
    repeated = next((v for v in values if values.count(v) > 1), None)
    if repeated is not None:
        raise ValueError(
            f"several rows have {by} = {repeated!r}: plot by a column that tells them apart"
        )
    return values


def legend_beside(
    ax: Axes, handles: Sequence[Artist] | None = None, fontsize: float | str | None = None
) -> None:
    """Place the legend outside the axes, on the right."""
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=fontsize)


def grouped_bars(
    ax: Axes, groups: Sequence[str], series: Mapping[str, Sequence[float]], ylabel: str
) -> list[float]:
    """Draw one group of bars per group name, one bar per series, with the legend beside the
    axes; return the group centres (x)."""
    centres = [float(k) for k in range(len(groups))]
    width = 0.8 / max(len(series), 1)
    for k, (label, values) in enumerate(series.items()):
        offset = (k - (len(series) - 1) / 2) * width
        ax.bar([c + offset for c in centres], list(values), width, label=label)
    ax.set_xticks(centres, list(groups))
    if any(len(c) > 10 for c in groups):
        ax.tick_params(axis="x", labelrotation=30)
        for tick in ax.get_xticklabels():
            tick.set_horizontalalignment("right")
    ax.set_ylabel(ylabel)
    legend_beside(ax)
    return centres
