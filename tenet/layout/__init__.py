"""Scratchpad layouts: element -> address relations, bank and transaction figures, and the
search for a layout that lowers the layout-aware ingress latency."""

from __future__ import annotations

from tenet.layout.metrics import LayoutMetrics, TensorLayoutFigures, evaluate_layout
from tenet.layout.relation import Box, Layout, bank_map, build_layout, line_map

__all__ = [
    "Box",
    "Layout",
    "LayoutMetrics",
    "TensorLayoutFigures",
    "bank_map",
    "build_layout",
    "evaluate_layout",
    "line_map",
]
