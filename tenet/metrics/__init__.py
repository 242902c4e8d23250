"""Metrics layer: exact counts of a Problem's relations, turned into metrics; one evaluator,
:func:`~tenet.metrics.assessment.assess_problem` (mapping in, assessment out)."""

from __future__ import annotations

from tenet.metrics.assessment import Assessment, Evaluated, assess_problem
from tenet.metrics.evaluate import Metrics, TensorMetrics, evaluate
from tenet.metrics.fusion import FusedCounts, assess_fusion
from tenet.metrics.original import OriginalReport, OriginalTensor, original_report
from tenet.metrics.volume import TensorCounts, count_tensor

__all__ = [
    "Assessment",
    "Evaluated",
    "assess_problem",
    "FusedCounts",
    "assess_fusion",
    "Metrics",
    "TensorCounts",
    "TensorMetrics",
    "OriginalReport",
    "OriginalTensor",
    "count_tensor",
    "evaluate",
    "original_report",
]
