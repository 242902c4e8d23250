"""Memory figures -> matplotlib Axes: the traffic of every level and tensor, and each level's
time against the array's compute latency. Each plot takes a
:class:`tenet.metrics.memory.MemoryMetrics` and an optional ``ax`` and returns the Axes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tenet.metrics.memory import MemoryMetrics
from tenet.report.axes import new_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_traffic", "plot_level_latency"]


def plot_traffic(memory: MemoryMetrics, ax: Axes | None = None) -> Axes:
    """Stacked bars per level and tensor, in elements: fills taken from the parent, fills
    taken from a linked PE's instance of the level, and writebacks.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> from tenet.metrics.assessment import assess_problem
    >>> p = load_problem("gemm", "eyeriss", "gemm-os-tiled", params={"M": 24, "N": 28, "K": 16})
    >>> memory = assess_problem(p, figures=["memory"]).memory
    >>> len(plot_traffic(memory).patches)  # 6 (level, tensor) bars, 3 stacks
    18
    """
    ax = ax if ax is not None else new_axes()
    rows = [r for r in memory.records if r.level != memory.levels[0].level]
    labels = [f"{r.level}\n{r.tensor}" for r in rows]
    positions = list(range(len(rows)))
    parent = [r.fills_parent for r in rows]
    fills = [r.fills for r in rows]
    ax.bar(positions, parent, label="fills from the parent")
    ax.bar(
        positions,
        [r.fills_neighbour for r in rows],
        bottom=parent,
        label="fills from a linked PE",
    )
    ax.bar(positions, [r.writebacks for r in rows], bottom=fills, label="writebacks")
    ax.set_xticks(positions, labels)
    ax.set_ylabel("elements")
    ax.set_title("traffic into and out of each level")
    ax.legend()
    return ax


def plot_level_latency(memory: MemoryMetrics, ax: Axes | None = None) -> Axes:
    """Horizontal bars: each level's transfer time against the compute latency (cycles), the
    bottleneck in red.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> from tenet.metrics.assessment import assess_problem
    >>> p = load_problem("gemm", "eyeriss", "gemm-os-tiled")
    >>> memory = assess_problem(p, figures=["memory"]).memory
    >>> ax = plot_level_latency(memory)
    >>> [t.get_text() for t in ax.get_yticklabels()]  # eyeriss: DRAM, global buffer, registers
    ['dram', 'glb', 'rf', 'compute']
    """
    ax = ax if ax is not None else new_axes()
    names = [s.level for s in memory.levels] + ["compute"]
    values = [float(s.latency) for s in memory.levels] + [float(memory.latency_compute)]
    colours = ["C3" if n == memory.bottleneck else "C0" for n in names]
    ax.barh(names, values, color=colours)
    ax.set_xlabel("cycles")
    ax.set_title(f"latency per level (bottleneck: {memory.bottleneck})")
    return ax
