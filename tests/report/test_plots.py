"""Plots: each kind drawn and saved as a PNG of figsize x dpi pixels; the space-time diagram
draws exactly the worked example's elements and transfers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.image import imread
from matplotlib.text import Annotation

from tenet.metrics import evaluate
from tenet.model import Problem
from tenet.report import (
    comparison_table,
    new_axes,
    plot_bandwidth,
    plot_latency,
    plot_reuse,
    plot_space_time,
    plot_utilisation,
    reuse_table,
    space_time_table,
    utilisation_table,
)
from tests.paper_example import MULTICAST, SKEWED, UNSKEWED, problem
from tests.report.test_diagram import WORKED_EXAMPLE


def results() -> dict[str, object]:
    return {
        "skewed": evaluate(problem(SKEWED)),
        "unskewed": evaluate(problem(UNSKEWED)),
        "multicast": evaluate(problem(UNSKEWED, MULTICAST)),
    }


def draw(kind: str, ax: Axes) -> Axes:
    if kind == "reuse":
        return plot_reuse(reuse_table(results()), ax)
    if kind == "latency":
        return plot_latency(comparison_table(results()), ax)
    if kind == "bandwidth":
        return plot_bandwidth(comparison_table(results()), ax)
    if kind == "utilisation":
        return plot_utilisation(utilisation_table(problem(SKEWED)), ax)
    return plot_space_time(space_time_table(problem(SKEWED)), ax)


@pytest.mark.parametrize("kind", ["reuse", "latency", "bandwidth", "utilisation", "spacetime"])
def test_plot_saves_an_image_of_figsize_times_dpi(kind: str, tmp_path: Path) -> None:
    ax = draw(kind, new_axes((4.0, 3.0), dpi=50))
    ax.figure.savefig(tmp_path / "plot.png")
    image = imread(tmp_path / "plot.png")
    assert image.shape[:2] == (150, 200)  # (3 in x 50 dpi, 4 in x 50 dpi)


@pytest.mark.parametrize(
    "plot, table",
    [
        (plot_reuse, lambda: reuse_table(results())),
        (plot_latency, lambda: comparison_table(results())),
        (plot_utilisation, lambda: utilisation_table(problem(SKEWED))),
    ],
)
def test_plot_makes_its_own_figure_without_an_axes(
    plot: Callable[..., Axes], table: Callable[[], pd.DataFrame]
) -> None:
    ax = plot(table())
    assert ax.figure is not None and ax.figure.axes == [ax]


def test_plot_reuse_draws_one_bar_per_design_and_tensor() -> None:
    ax = plot_reuse(reuse_table(results()))
    heights = [float(p.get_height()) for p in ax.patches]
    # A and B: 16 / 8 in every design; C: 16 / 4
    assert heights == [2.0] * 3 + [2.0] * 3 + [4.0] * 3
    assert [t.get_text() for t in ax.get_xticklabels()] == ["skewed", "unskewed", "multicast"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["A", "B", "C"]


def test_plot_latency_draws_compute_ingress_egress_and_the_maximum() -> None:
    ax = plot_latency(comparison_table(results()))
    heights = [float(p.get_height()) for p in ax.patches]
    # compute 6, 4, 4; ingress ceil(16·16/64) = 4; egress ceil(4·16/64) = 1
    assert heights == [6.0, 4.0, 4.0] + [4.0] * 3 + [1.0] * 3
    [maximum] = ax.collections
    assert [float(s[0][1]) for s in maximum.get_segments()] == [6.0, 4.0, 4.0]


def test_plot_bandwidth_by_architecture_draws_ibw_and_sbw() -> None:
    table = comparison_table(results())
    table["architecture"] = ["systolic (skewed)", "systolic", "multicast"]
    ax = plot_bandwidth(table, by="architecture")
    heights = [float(p.get_height()) for p in ax.patches]
    # IBW: (8+8)/6, 0, (8+8)/4; SBW: (16+4)/6, (16+4)/4, (16+4)/4
    assert heights == pytest.approx([16 / 6, 0.0, 4.0, 20 / 6, 5.0, 5.0])


def test_plot_refuses_a_grouping_column_that_repeats() -> None:
    table = comparison_table(results())
    table["architecture"] = ["a", "a", "b"]
    with pytest.raises(ValueError, match="several rows have architecture = 'a'"):
        plot_bandwidth(table, by="architecture")


def test_plot_refuses_a_table_without_its_columns() -> None:
    with pytest.raises(ValueError, match="lacks column.*reuse_factor"):
        plot_reuse(comparison_table(results()))


def test_plot_utilisation_draws_each_design_and_its_mean() -> None:
    one = utilisation_table(problem(SKEWED)).assign(design="skewed")
    two = utilisation_table(problem(UNSKEWED)).assign(design="unskewed")
    ax = plot_utilisation(pd.concat([one, two]), by="design")
    skewed, skewed_mean, unskewed, unskewed_mean = ax.lines
    assert list(skewed.get_ydata()) == [0.25, 0.75, 1.0, 1.0, 0.75, 0.25]
    assert float(skewed_mean.get_ydata()[0]) == pytest.approx(16 / 24)  # 16 busy of 4·6
    assert float(unskewed_mean.get_ydata()[0]) == 1.0  # 4 PEs busy at each of 4 steps


def _cell(ax: Axes, x: float, y: float) -> tuple[str, str]:
    """The (PE, time-stamp) tick labels of the grid cell holding the point (x, y)."""
    columns = {
        round(t): label.get_text()
        for t, label in zip(ax.get_xticks(), ax.get_xticklabels(), strict=True)
    }
    rows = {
        round(t): label.get_text()
        for t, label in zip(ax.get_yticks(), ax.get_yticklabels(), strict=True)
    }
    return rows[round(y)], columns[round(x)]


def test_plot_space_time_draws_exactly_the_worked_example(skewed: Problem) -> None:
    ax = plot_space_time(space_time_table(skewed))
    elements = [t for t in ax.texts if t.get_gid() == "element"]
    drawn = {(*_cell(ax, *t.get_position()), t.get_text()): t for t in elements}
    assert len(drawn) == len(elements) == 48
    assert set(drawn) == set(WORKED_EXAMPLE)
    for key, text in drawn.items():
        reuse = WORKED_EXAMPLE[key][0]
        assert (text.get_fontweight() == "bold") == (reuse == "none")
        assert (text.get_fontstyle() == "italic") == (reuse == "spatial")


def test_plot_space_time_arrows_join_the_element_to_where_it_came_from(skewed: Problem) -> None:
    ax = plot_space_time(space_time_table(skewed))
    at = {
        (*_cell(ax, *t.get_position()), round(t.get_position()[1], 6)): t.get_text()
        for t in ax.texts
        if t.get_gid() == "element"
    }
    arrows = set()
    for arrow in (t for t in ax.texts if t.get_gid() == "transfer"):
        assert isinstance(arrow, Annotation)
        source, target = arrow.xyann, arrow.xy
        element = at[(*_cell(ax, *target), round(target[1], 6))]
        assert at[(*_cell(ax, *source), round(source[1], 6))] == element
        arrows.add((_cell(ax, *source), _cell(ax, *target), element))
    expected = {
        ((frm, src_time), (pe, time), element)
        for (pe, time, element), (reuse, frm, src_time) in WORKED_EXAMPLE.items()
        if reuse == "spatial"
    }
    assert len(expected) == 16  # A: 2 rows x 4 k into column 1; B: 2 columns x 4 k into row 1
    assert arrows == expected
