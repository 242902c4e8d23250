"""Metrics layer: exact counts of a Problem's relations, turned into metrics."""

from __future__ import annotations

from tenet.metrics.compat import TenetReport, TenetTensor, tenet_report
from tenet.metrics.evaluate import Metrics, TensorMetrics, evaluate
from tenet.metrics.volume import TensorCounts, count_tensor

__all__ = [
    "Metrics",
    "TensorCounts",
    "TensorMetrics",
    "TenetReport",
    "TenetTensor",
    "count_tensor",
    "evaluate",
    "tenet_report",
]
