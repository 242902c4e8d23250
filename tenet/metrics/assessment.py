"""One assessment of a problem: its metrics (:mod:`tenet.metrics.evaluate`), its legality
checks (:mod:`tenet.model.legality`, reported rather than enforced) and the figures of its
memory levels (:mod:`tenet.metrics.memory`), made together and kept in one record."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from tenet.metrics.evaluate import Metrics, evaluate
from tenet.metrics.memory import MemoryMetrics, evaluate_memory
from tenet.metrics.row import mapping_row
from tenet.model.legality import Legality, check_dataflow
from tenet.model.problem import Problem
from tenet.vocab import TensorName

__all__ = ["Assessment", "assess_problem"]


@dataclass(frozen=True)
class Assessment:
    """The metrics, the legality report and the per-level memory figures of one dataflow."""

    metrics: Metrics
    legality: Legality
    memory: MemoryMetrics

    @property
    def legal(self) -> bool:
        """Whether the dataflow passed every legality check and every tile fits its level."""
        return self.legality.legal and not self.memory.violations

    def row(self, space_stamp: str, time_stamp: str, tiles: Mapping[str, str]) -> dict[str, Any]:
        """Return the mapping row (:func:`tenet.metrics.row.mapping_row`) of the assessed
        dataflow, whose stamps and tile stamps are given (as the dataflow's spec has them)."""
        m = self.metrics
        return mapping_row(
            self.memory,
            space_stamp,
            time_stamp,
            tiles,
            energy_unit=m.energy_unit,
            array=(m.latency, m.energy),
        )

    def to_dict(self) -> dict[str, Any]:
        """Return JSON-ready data: the metrics' fields, ``legality`` (the violations of the
        checks, then those of the capacities, each a ``kind`` and a ``message``) and the
        memory figures' fields."""
        return {
            **self.metrics.to_dict(),
            "legality": [{"kind": v.kind, "message": v.message} for v in self.legality.violations]
            + [{"kind": v.kind, "message": v.message} for v in self.memory.violations],
            **self.memory.to_dict(),
        }


def assess_problem(
    problem: Problem,
    name: str | None = None,
    *,
    reductions: Collection[TensorName] | None = None,
    instances_per_step: int | None = None,
) -> Assessment:
    """Evaluate ``problem`` exactly, count its memory levels and check its legality;
    ``name`` names the metrics (default: the dataflow's name); ``reductions`` and
    ``instances_per_step`` as in :func:`tenet.model.legality.check_dataflow`.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> p = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic", {"M": 8, "N": 8, "K": 4})
    >>> a = assess_problem(p)
    >>> a.legal, a.metrics.macs, [s.level for s in a.memory.levels]  # 8 * 8 * 4 MACs
    (True, 256, ['dram'])
    """
    legality = check_dataflow(
        problem.workload,
        problem.architecture,
        problem.dataflow,
        reductions=reductions,
        instances_per_step=instances_per_step,
    )
    metrics = evaluate(problem, name=name)
    return Assessment(metrics, legality, evaluate_memory(problem, metrics.latency_compute))
