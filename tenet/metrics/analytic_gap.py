"""Exact memory figures against the analytic DF/DM model for one rectangular tiling: one row
per level and tensor, with the reason for every difference."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tenet.mapping import LoopNest
from tenet.metrics.analytic import AnalyticLevel, analytic_figures
from tenet.metrics.assessment import assess_problem
from tenet.metrics.memory import tensor_relations
from tenet.model.problem import Problem
from tenet.model.tiles import halo_tensors, loop_indices

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["compare_tiling"]

HALO = "halo: a subscript adds loop indices; exact T_ox + R - 1 elements, the model T_ox * R"
NON_DIVISIBLE = "tiles that do not divide: the model counts every tile as full"
PER_PE = "per-PE level: the model has no PEs"
READ_BACK = "partial sums read back (fills of an output) are not in the model"
WRAP = "reuse between consecutive tiles across a loop boundary (wrap-around)"
RESIDENT = (
    "the model keeps data across a loop when the inner footprints fit; one tile at a time does not"
)


def compare_tiling(problem: Problem, tiling: LoopNest) -> pd.DataFrame:
    """Return exact against analytic footprint and movement per tiled level and tensor.

    ``movement`` is what enters the level: fills for a read tensor, writebacks for a written
    one (the model moves data one way). ``reason`` explains every difference.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> from tenet.spec import ArchitectureSpec
    >>> from tenet.mapping import tiled_nest
    >>> arch = ArchitectureSpec.from_mapping({"name": "a", "pe": "{PE[i]: i = 0}",
    ...     "levels": [{"name": "dram"}, {"name": "glb", "capacity": 16}]})
    >>> p = load_problem("gemm", arch, "gemm-os-1d:pes=1", params={"M": 4, "N": 4, "K": 4})
    >>> t = tiled_nest(("i", "j", "k"), (4, 4, 4), "dram", [("glb", (2, 2, 2), (0, 1, 2))],
    ...     (0, 1, 2))
    >>> table = compare_tiling(p, t)
    >>> table["movement_exact"].tolist(), table["reason"].tolist()
    ([32, 32, 16], ['equal', 'equal', 'equal'])
    """
    import pandas as pd

    # the latency is not compared: its compute part is not counted
    exact = assess_problem(problem, tiling, figures=["memory"], latency_compute=0).memory
    levels = {level.name: level for level in problem.architecture.levels}
    tiled = [level.level for level in tiling.levels[1:]]
    analytic = analytic_figures(
        tiling,
        loop_indices(problem),
        [AnalyticLevel(name, levels[name].capacity) for name in tiled],
    )
    written = {t for t, (_, w) in tensor_relations(problem).items() if not w.is_empty()}
    halos = halo_tensors(problem)
    rows = []
    for name in tiled:
        for tensor in analytic_tensors(analytic.footprint, name):
            record = exact.record(name, tensor)
            moved = record.writebacks if tensor in written else record.fills
            a_footprint = analytic.footprint[(name, tensor)]
            a_moved = analytic.movement[(name, tensor)]
            reasons = []
            if (a_footprint, a_moved) != (record.footprint, moved):
                if levels[name].per_pe:
                    reasons.append(PER_PE)
                if tensor in halos and a_footprint != record.footprint:
                    reasons.append(HALO)
                if tiling.partial:
                    reasons.append(NON_DIVISIBLE)
                if not reasons:
                    reasons.append(WRAP if moved < a_moved else RESIDENT)
            else:
                reasons.append("equal")
            if tensor in written and record.fills:
                reasons.append(READ_BACK)
            rows.append(
                {
                    "level": name,
                    "tensor": tensor,
                    "footprint_exact": record.footprint,
                    "footprint_analytic": a_footprint,
                    "movement_exact": moved,
                    "movement_analytic": a_moved,
                    "reason": "; ".join(reasons),
                }
            )
    return pd.DataFrame(rows).set_index(["level", "tensor"])


def analytic_tensors(footprint: dict[tuple[str, str], int], level: str) -> list[str]:
    """Return the tensors the model has figures for at ``level``, in their order."""
    return [t for (name, t) in footprint if name == level]
