"""The plots read when rendered: every label inside the canvas, every legend entry visible,
no line hidden under another, no legend over the data, integer counts on integer colour bars,
and the documented examples draw data that differ."""

from __future__ import annotations

from fractions import Fraction

import pandas as pd
import pytest
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from tenet.designs import evaluate_designs, load_designs
from tenet.report import (
    comparison_table,
    plot_bandwidth,
    plot_bank_use,
    plot_bank_use_pair,
    plot_comparison,
    plot_layers,
    plot_pareto,
    plot_reuse,
    plot_utilisation,
)
from tests.conftest import ROOT


def _rendered(figure: Figure) -> FigureCanvasAgg:
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    return canvas


def _outside(figure: Figure) -> list[str]:
    """The visible texts of ``figure`` (labels, tick labels, titles, legends) that reach
    beyond its canvas when it is drawn; empty when everything drawn lies inside it."""
    renderer = _rendered(figure).get_renderer()
    drawn = figure.get_tightbbox(renderer)
    width, height = figure.get_size_inches()
    inside = (
        drawn.x0 >= -0.01 and drawn.y0 >= -0.01 and drawn.x1 <= width + 0.01
    ) and drawn.y1 <= height + 0.01
    if inside:
        return []
    canvas = figure.bbox
    return [
        text.get_text()
        for text in figure.findobj(Text)
        if text.get_visible()
        and text.get_text().strip()
        and not canvas.contains(*text.get_window_extent(renderer).p0)
        or not canvas.contains(*text.get_window_extent(renderer).p1)
    ] or [f"something drawn at {drawn} (inches) beyond {width} x {height}"]


def _figure(ax: Axes) -> Figure:
    figure = ax.figure
    assert isinstance(figure, Figure)
    return figure


def _overlap(a: Artist, b: Artist, figure: Figure) -> bool:
    renderer = _rendered(figure).get_renderer()
    return bool(a.get_window_extent(renderer).overlaps(b.get_window_extent(renderer)))


def test_compare_plot_keeps_its_rotated_tick_labels_in_the_canvas() -> None:
    quantities = ["latency", "volume_unique", "volume_unique", "energy", "bandwidth_scratchpad"]
    tensors = ["", "input_feature_map", "filter", "", ""]
    table = pd.DataFrame(
        {
            "dataflow": ["conv2d-ws"] * 5,
            "quantity": quantities,
            "tensor": tensors,
            "exact": [100, 40, 30, 7.5, 2],
            "estimate": [120, 40, 60, 9.0, 1],
        }
    )
    ax = plot_comparison(table)
    assert "volume_unique[input_feature_map]" in [t.get_text() for t in ax.get_xticklabels()]
    assert _outside(_figure(ax)) == []
    legend = ax.get_legend()
    assert legend is not None and not _overlap(legend, ax, _figure(ax))  # beside the bars


def test_pareto_front_of_one_point_shows_a_marker_in_plot_and_legend() -> None:
    points = pd.DataFrame(
        {
            "data_centric": [False, True, False],
            "latency_cycles": [47, 159, 143],
            "energy": [1.0, 3.0, 2.0],
        }
    )
    ax = plot_pareto(points, points.iloc[:1], "latency_cycles", "energy")
    front = next(line for line in ax.lines if line.get_label() == "Pareto front")
    assert list(front.get_xdata()) == [47] and front.get_marker() not in ("None", "", None, " ")
    legend = ax.get_legend()
    assert legend is not None
    handles = dict(
        zip([t.get_text() for t in legend.get_texts()], legend.legend_handles, strict=True)
    )
    handle = handles["Pareto front"]
    assert handle is not None and handle.get_marker() not in ("None", "", None, " ")  # type: ignore[attr-defined]
    assert handle.get_markersize() > 0  # type: ignore[attr-defined]
    assert _outside(_figure(ax)) == []


def test_documented_bandwidth_plot_of_arrays_differing_in_links_differs() -> None:
    points = load_designs(ROOT / "examples" / "arrays.yaml")
    table = comparison_table(evaluate_designs(points))
    ax = plot_bandwidth(table, by="architecture")
    ibw = [float(p.get_height()) for p in ax.containers[0]]
    # examples/arrays.yaml derives them: 7168 / 271, 3584 / 1167 and 0 elements/cycle
    assert ibw == pytest.approx([float(Fraction(7168, 271)), float(Fraction(3584, 1167)), 0.0])
    assert len(set(ibw)) == 3
    assert _outside(_figure(ax)) == []


ROLLER_BEFORE = pd.DataFrame(
    {"step": [s for s in range(4) for _ in range(4)], "bank": list(range(4)) * 4}
).assign(rows=lambda t: [3 if b == s else 0 for s, b in zip(t["step"], t["bank"], strict=True)])
"""Roller's [3, 4] block, row-major over 4 banks, read a column per step: column s lies in
bank s, which serves its 3 rows."""

ROLLER_AFTER = ROLLER_BEFORE.assign(rows=lambda t: [1 if b < 3 else 0 for b in t["bank"]])
"""The same reads spread over banks 0-2: one row each."""


def test_bank_use_colour_bar_counts_in_integers() -> None:
    ax = plot_bank_use(ROLLER_BEFORE)
    bar = _figure(ax).axes[1]
    assert [float(v) for v in bar.get_yticks()] == [0.0, 1.0, 2.0, 3.0]
    assert _outside(_figure(ax)) == []


def test_bank_use_pair_puts_before_and_after_on_one_scale() -> None:
    left, right = plot_bank_use_pair(ROLLER_BEFORE, ROLLER_AFTER)
    figure = _figure(left)
    assert (left.get_title(), right.get_title()) == ("before", "after")
    assert left.images[0].norm.vmax == right.images[0].norm.vmax  # one scale: counts 0..3
    assert [float(v) for v in figure.axes[2].get_yticks()] == [0.0, 1.0, 2.0, 3.0]
    assert _outside(figure) == []


def test_reuse_plot_on_a_log_axis_starts_below_one() -> None:
    # the docstring's gemm: A and B reused 256 / 32 = 8 times, C 256 / 64 = 4 times
    table = pd.DataFrame(
        {"design": ["os"] * 3, "tensor": ["A", "B", "C"], "access": ["read", "read", "write"]}
    ).assign(reuse_factor=[8.0, 8.0, 4.0])
    ax = plot_reuse(table, log=True)
    bottom, _ = ax.get_ylim()
    assert bottom <= 1 and all(p.get_height() > bottom for p in ax.patches)
    assert _outside(_figure(ax)) == []


def test_layer_plot_is_titled_with_the_network_and_the_array() -> None:
    table = pd.DataFrame(
        {
            "workload": [f"resnet50/conv{k}_shortcut" for k in range(12)],
            "latency_cycles": range(1, 13),
            "traffic_dram_elements": range(12),
            "utilisation": [0.5] * 12,
        }
    )
    axes = plot_layers(table, title="resnet50 on systolic-2d-8x8")
    assert axes[0].get_title() == "resnet50 on systolic-2d-8x8"
    assert _outside(_figure(axes[0])) == []


def test_utilisation_line_is_drawn_over_its_mean() -> None:
    table = pd.DataFrame({"step": range(4), "utilisation": [1.0] * 4})  # the mean is the line
    ax = plot_utilisation(table)
    line, mean = ax.lines[0], ax.lines[1]
    assert line.get_label() == "utilisation" and mean.get_label() == "mean 1"
    assert line.get_zorder() > mean.get_zorder() and line.get_linewidth() > mean.get_linewidth()
    legend = ax.get_legend()
    assert legend is not None and not _overlap(legend, ax, _figure(ax))
