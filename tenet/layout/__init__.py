"""Scratchpad layouts: element -> address relations, bank and transaction figures, and the
search for a layout that lowers the layout-aware ingress latency."""

from __future__ import annotations

from tenet.layout.evaluate import (
    LayoutProblem,
    load_layout_file,
    load_layout_problem,
    write_layout_file,
)
from tenet.layout.metrics import LayoutMetrics, TensorLayoutFigures, evaluate_layout
from tenet.layout.optimiser import SEARCHES, LayoutSearch, SearchMethod, search_layout
from tenet.layout.relation import Box, Layout, bank_map, build_layout, line_map

__all__ = [
    "SEARCHES",
    "Box",
    "Layout",
    "LayoutMetrics",
    "LayoutProblem",
    "LayoutSearch",
    "SearchMethod",
    "TensorLayoutFigures",
    "bank_map",
    "build_layout",
    "evaluate_layout",
    "line_map",
    "load_layout_file",
    "load_layout_problem",
    "search_layout",
    "write_layout_file",
]
