"""Bank use per time-stamp: a tidy table (step, bank, rows served) walked point by point from a
layout problem (:mod:`tenet.layout`), and its heat map, alone or beside another (before and
after a layout search) on one scale. matplotlib is imported inside the plotting functions;
saving is the caller's job."""

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
    from matplotlib.image import AxesImage

__all__ = ["bank_use", "plot_bank_use", "plot_bank_use_pair"]


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


def _heat(ax: Axes, table: pd.DataFrame, top: int) -> AxesImage:
    """Draw ``table`` on ``ax`` as a heat map of one colour per count 0..``top``."""
    from matplotlib import colormaps
    from matplotlib.colors import BoundaryNorm
    from matplotlib.ticker import MaxNLocator

    grid = table.pivot(index="bank", columns="step", values="rows").fillna(0)
    colours = colormaps["viridis"].resampled(top + 1)
    norm = BoundaryNorm([k - 0.5 for k in range(top + 2)], colours.N)
    image = ax.imshow(grid.to_numpy(), aspect="auto", origin="lower", cmap=colours, norm=norm)
    ax.set_xlabel("time-stamp (steps with a fetch, in order)")
    ax.set_ylabel("bank")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return image


def _count_bar(image: AxesImage, axes: Axes | list[Axes], top: int) -> None:
    """A colour bar of the counts 0..``top``, one tick per count."""
    figure = (axes[0] if isinstance(axes, list) else axes).figure
    figure.colorbar(
        image, ax=axes, ticks=list(range(top + 1)), label="bank rows served (above 1: a conflict)"
    )


def _top(*tables: pd.DataFrame) -> int:
    """The largest count of ``tables`` (at least 1)."""
    return max([1, *(int(t["rows"].max()) for t in tables if len(t))])


def plot_bank_use(table: pd.DataFrame, ax: Axes | None = None, title: str = "") -> Axes:
    """Draw a :func:`bank_use` table as a heat map: time-stamps across, banks up, one colour
    per number of rows served (above 1: a conflict), with a colour bar of those counts.
    Returns the Axes (a new figure if ``ax`` is None).

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"step": [0, 0, 1, 1], "bank": [0, 1, 0, 1], "rows": [2, 0, 1, 1]})
    >>> ax = plot_bank_use(table)
    >>> [float(t) for t in ax.figure.axes[1].get_yticks()]  # the colour bar: counts 0, 1, 2
    [0.0, 1.0, 2.0]
    """
    ax = ax if ax is not None else new_axes()
    top = _top(table)
    _count_bar(_heat(ax, table, top), ax, top)
    ax.set_title(title or "bank use per time-stamp")
    return ax


def plot_bank_use_pair(
    before: pd.DataFrame,
    after: pd.DataFrame,
    titles: tuple[str, str] = ("before", "after"),
    axes: tuple[Axes, Axes] | None = None,
) -> list[Axes]:
    """Draw two :func:`bank_use` tables side by side on one colour scale (e.g. the given
    layout and the one a search found), with one colour bar of the counts; return the two
    Axes (of a new figure when ``axes`` is None).

    Examples
    --------
    >>> import pandas as pd
    >>> before = pd.DataFrame({"step": [0, 0], "bank": [0, 1], "rows": [3, 0]})
    >>> after = pd.DataFrame({"step": [0, 0], "bank": [0, 1], "rows": [1, 1]})
    >>> left, right = plot_bank_use_pair(before, after)
    >>> left.get_title(), right.get_title(), len(left.figure.axes)  # two panels and the bar
    ('before', 'after', 3)
    """
    if axes is None:
        from matplotlib.figure import Figure

        figure = Figure(figsize=(10, 4), layout="constrained")
        pair = list(figure.subplots(1, 2, sharey=True))
    else:
        pair = list(axes)
    top = _top(before, after)
    image = _heat(pair[0], before, top)
    _heat(pair[1], after, top)
    pair[1].set_ylabel("")
    for ax, title in zip(pair, titles, strict=True):
        ax.set_title(title)
    _count_bar(image, pair, top)
    return pair
