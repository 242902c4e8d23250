"""Report tables -> matplotlib Axes: reuse factors, latency breakdown, bandwidths, PE
utilisation over time and the space-time diagram. Each plot takes a DataFrame of
:mod:`tenet.report.tables` or :mod:`tenet.report.diagram` and an optional ``ax`` (a new
figure without pyplot otherwise) and returns the Axes; saving is the caller's (the CLI's) job.
matplotlib is imported inside the functions, so importing tenet never loads it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tenet.report.axes import colours, grouped_bars, legend_beside, new_axes, require, row_names
from tenet.vocab import column as metric_column

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = [
    "plot_bandwidth",
    "plot_latency",
    "plot_reuse",
    "plot_space_time",
    "plot_utilisation",
    "space_time_size",
]

STYLE_NOTE = "bold: brought in  ·  plain: kept in the PE  ·  italic + arrow: from a linked PE"


def plot_reuse(
    table: pd.DataFrame, ax: Axes | None = None, *, by: str = "design", log: bool = False
) -> Axes:
    """Draw the reuse factor (total / unique volume) of each tensor as grouped bars, one group
    per value of ``by``, from a :func:`~tenet.report.reuse_table`.

    Examples
    --------
    >>> from tenet.api import analyze
    >>> from tenet.report import reuse_table
    >>> m = analyze("gemm", "systolic-2d-8x8", "gemm-os-systolic", params={"M": 8, "N": 8, "K": 4})
    >>> ax = plot_reuse(reuse_table(m))
    >>> [float(p.get_height()) for p in ax.patches]  # A, B: 256 / 32; C: 256 / 64
    [8.0, 8.0, 4.0]
    """
    require(table, [by, "tensor", "access", "reuse_factor"])
    ax = ax if ax is not None else new_axes()
    pairs = list(zip(table[by].astype(str), table["tensor"], strict=True))
    both = {p for p in pairs if pairs.count(p) > 1}
    labels = [
        f"{t} ({a})" if (str(g), t) in both else t
        for g, t, a in zip(table[by], table["tensor"], table["access"], strict=True)
    ]
    groups = list(dict.fromkeys(str(g) for g in table[by]))
    series: dict[str, list[float]] = {label: [float("nan")] * len(groups) for label in labels}
    for g, label, value in zip(table[by], labels, table["reuse_factor"], strict=True):
        series[label][groups.index(str(g))] = float(value)
    grouped_bars(ax, groups, series, "reuse factor (total / unique volume)")
    if log:
        # bars rise from a reuse factor of 1 (no reuse) or below, not from the smallest one
        lowest = min([1.0, *(v for values in series.values() for v in values if v > 0)])
        ax.set_yscale("log")
        ax.set_ylim(bottom=lowest / 2)
    ax.set_title("Reuse factor per tensor")
    return ax


def plot_latency(table: pd.DataFrame, ax: Axes | None = None, *, by: str = "design") -> Axes:
    """Draw the array model's compute, ingress and egress latencies (cycles) of each design
    point as grouped bars, with a black line at the array's latency (their maximum: transfers
    overlap computation), from a :func:`~tenet.report.comparison_table`.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"design": ["os"], "latency_compute_cycles": [6],
    ...     "latency_ingress_cycles": [4], "latency_egress_cycles": [1],
    ...     "latency_array_cycles": [6]})
    >>> [float(p.get_height()) for p in plot_latency(table).patches]
    [6.0, 4.0, 1.0]
    """
    parts = {
        "compute": metric_column("latency_compute"),
        "ingress": metric_column("latency_ingress"),
        "egress": metric_column("latency_egress"),
    }
    require(table, [*parts.values(), metric_column("latency_array")])
    ax = ax if ax is not None else new_axes()
    names = row_names(table, by)
    series = {label: [float(v) for v in table[name]] for label, name in parts.items()}
    centres = grouped_bars(ax, names, series, "latency (cycles)")
    ax.hlines(
        [float(v) for v in table[metric_column("latency_array")]],
        [c - 0.45 for c in centres],
        [c + 0.45 for c in centres],
        colors="black",
        label="array latency (max)",
    )
    legend_beside(ax)
    ax.set_title("Latency breakdown")
    return ax


def plot_bandwidth(table: pd.DataFrame, ax: Axes | None = None, *, by: str = "design") -> Axes:
    """Draw the interconnect bandwidth IBW (PE to PE) and the scratchpad bandwidth SBW, in
    elements/cycle, of each design point as grouped bars, from a
    :func:`~tenet.report.comparison_table` (``by="architecture"`` when each row is one array).

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"architecture": ["a", "b"],
    ...     "bandwidth_pe_elements_per_cycle": [8 / 3, 0.0],
    ...     "bandwidth_scratchpad_elements_per_cycle": [10 / 3, 5.0]})
    >>> ax = plot_bandwidth(table, by="architecture")
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['a', 'b']
    """
    columns = {
        "IBW (PE to PE)": metric_column("bandwidth_pe"),
        "SBW (scratchpad)": metric_column("bandwidth_scratchpad"),
    }
    require(table, list(columns.values()))
    ax = ax if ax is not None else new_axes()
    names = row_names(table, by)
    series = {label: [float(v) for v in table[name]] for label, name in columns.items()}
    grouped_bars(ax, names, series, "bandwidth (elements/cycle)")
    ax.set_title("Bandwidth")
    return ax


def plot_utilisation(table: pd.DataFrame, ax: Axes | None = None, *, by: str | None = None) -> Axes:
    """Draw the PE utilisation (active / all PEs) at each occupied time-stamp as a step line,
    with its mean dashed, from a :func:`~tenet.report.utilisation_table`; with ``by``, one
    line per value of that column (tables of several design points concatenated).

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"step": range(6), "utilisation": [0.25, 0.75, 1, 1, 0.75, 0.25]})
    >>> ax = plot_utilisation(table)
    >>> round(float(ax.lines[1].get_ydata()[0]), 4)  # the mean: 16 busy points / (4 PEs x 6 steps)
    0.6667
    """
    require(table, ["step", "utilisation"] + ([by] if by else []))
    ax = ax if ax is not None else new_axes()
    groups = [(None, table)] if by is None else list(table.groupby(by, sort=False))
    for (name, group), colour in zip(groups, colours() * len(groups), strict=False):
        label = "utilisation" if name is None else str(name)
        # the line over its (thinner, fainter) mean: a constant utilisation stays visible
        ax.step(
            group["step"],
            group["utilisation"],
            where="mid",
            color=colour,
            label=label,
            linewidth=2.0,
            zorder=3,
        )
        mean = float(group["utilisation"].mean())
        ax.axhline(
            mean,
            color=colour,
            linestyle="--",
            linewidth=1.0,
            alpha=0.6,
            zorder=2,
            label=f"mean {mean:.3g}",
        )
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("occupied time-stamp (lexicographic order)")
    ax.set_ylabel("PE utilisation (active / all PEs)")
    legend_beside(ax)
    ax.set_title("PE utilisation over time")
    return ax


def space_time_size(table: pd.DataFrame) -> tuple[float, float]:
    """Return a figure size (inches) that fits the space-time diagram of ``table``: about an
    inch per time-stamp and a sixth of an inch per element line of the fullest cell."""
    require(table, ["pe_index", "step"])
    lines = int(table.groupby(["pe_index", "step"]).size().max()) if len(table) else 1
    steps = int(table["step"].nunique())
    pes = int(table["pe_index"].nunique())
    return 2.5 + 1.0 * steps, 1.2 + pes * max(0.5, 0.17 * lines)


def plot_space_time(table: pd.DataFrame, ax: Axes | None = None, *, fontsize: float = 7.0) -> Axes:
    """Draw the space-time diagram of a :func:`~tenet.report.space_time_table`: a grid of
    active PEs (rows) x occupied time-stamps (columns); each cell lists the elements the PE
    holds there, coloured by tensor, in bold when brought in (from the scratchpad, or produced
    for an output), plain when kept from the previous time-stamp, and in italics with an arrow
    from the linked PE it is taken from.

    Each element label is a Text with gid ``"element"`` and each arrow an annotation with gid
    ``"transfer"``, so the drawing can be read back.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> from tenet.report import space_time_table
    >>> p = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic",
    ...                  params={"M": 2, "N": 2, "K": 4})
    >>> ax = plot_space_time(space_time_table(p))
    >>> # one arrow per A element entering column 1 and per B element entering row 1: 2·(2·4)
    >>> sum(t.get_gid() == "transfer" for t in ax.texts)
    16
    """
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle

    require(table, ["pe", "time", "pe_index", "step", "tensor", "access", "element", "reuse"])
    ax = ax if ax is not None else new_axes(space_time_size(table))
    labels = list(dict.fromkeys(zip(table["tensor"], table["access"], strict=True)))
    colour = dict(zip(labels, colours() * len(labels), strict=False))
    cells = table.groupby(["pe_index", "step"], sort=False)
    lines = int(cells.size().max()) if len(table) else 1
    position: dict[tuple[str, ...], tuple[float, float]] = {}
    for (row, column), cell in cells:
        ax.add_patch(
            Rectangle((column - 0.5, row - 0.5), 1, 1, facecolor="#f4f4f4", edgecolor="#b0b0b0")
        )
        for k, held in enumerate(cell.itertuples()):
            y = row - 0.5 + (k + 0.5) / lines
            position[(held.pe, held.time, held.tensor, held.access, held.element)] = (column, y)
            ax.text(
                column,
                y,
                held.element,
                ha="center",
                va="center",
                fontsize=fontsize,
                color=colour[(held.tensor, held.access)],
                fontweight="bold" if held.reuse == "none" else "normal",
                fontstyle="italic" if held.reuse == "spatial" else "normal",
                gid="element",
            )
    for held in table[table["reuse"] == "spatial"].itertuples():
        x1, y1 = position[(held.pe, held.time, held.tensor, held.access, held.element)]
        x0, y0 = position[(held.from_pe, held.from_time, held.tensor, held.access, held.element)]
        bend = "arc3,rad=0.4" if x0 == x1 else "arc3"
        ax.annotate(
            "",
            xy=(x1 - 0.3 if x0 != x1 else x1 + 0.3, y1),
            xytext=(x0 + 0.3, y0),
            arrowprops={
                "arrowstyle": "->",
                "color": colour[(held.tensor, held.access)],
                "lw": 0.8,
                "connectionstyle": bend,
            },
            gid="transfer",
        )
    pes = table.drop_duplicates("pe_index").sort_values("pe_index")
    steps = table.drop_duplicates("step").sort_values("step")
    ax.set_xticks(list(steps["step"]), list(steps["time"]), fontsize=fontsize)
    ax.set_yticks(list(pes["pe_index"]), list(pes["pe"]), fontsize=fontsize)
    ax.set_xlim(-0.5, (int(steps["step"].max()) if len(steps) else 0) + 0.5)
    ax.set_ylim((int(pes["pe_index"].max()) if len(pes) else 0) + 0.5, -0.5)
    ax.set_xlabel(f"time-stamp\n{STYLE_NOTE}", fontsize=fontsize + 1)
    ax.set_ylabel("PE")
    handles = [
        Line2D([], [], color=c, marker="s", linestyle="none", label=f"{t} ({a})")
        for (t, a), c in colour.items()
    ]
    legend_beside(ax, handles=handles, fontsize=fontsize)
    ax.set_title("Space-time diagram")
    return ax
