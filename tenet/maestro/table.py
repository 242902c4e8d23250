"""The side-by-side table: exact relation-centric counts next to MAESTRO-style estimates.

One row per quantity (and per tensor for volumes and reuse), with the relative error of the
estimate and a short reason naming the modelling difference behind it. The reasons come from
MAESTRO's known approximations (per-step transfers and hop latency, output tiles written every
step, reuse judged by the innermost advancing loop only, edge-case arithmetic).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tenet.maestro.estimate import MaestroEstimate
from tenet.metrics.evaluate import Metrics
from tenet.vocab import UNITS, unit_label

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ComparisonRow", "COLUMNS", "comparison_rows", "comparison_frame"]

COLUMNS = (
    "dataflow",
    "quantity",
    "tensor",
    "unit",
    "exact",
    "estimate",
    "relative_error",
    "reason",
)


@dataclass(frozen=True)
class ComparisonRow:
    """One quantity: the exact count, the MAESTRO-style estimate and why they differ."""

    dataflow: str
    quantity: str
    tensor: str
    unit: str
    exact: float
    estimate: float
    relative_error: float
    reason: str


def _relative(exact: float, estimate: float) -> float:
    if exact == estimate:
        return 0.0
    return (estimate - exact) / exact if exact else float("inf")


def _runtime_reason(m: Metrics, e: MaestroEstimate, latency: int) -> str:
    bound = max(
        ("compute", m.latency_compute),
        ("ingress", m.latency_ingress),
        ("egress", m.latency_egress),
        key=lambda kv: kv[1],
    )[0]
    if e.runtime > m.latency:
        hop = f" and {latency} cycles of hop latency" if latency else ""
        return (
            f"MAESTRO pays max(ingress, compute, egress){hop} on every step; the exact run is "
            f"{bound}-bound with transfers overlapped over the whole run"
        )
    if bound == "compute":
        return (
            f"the exact schedule needs more compute cycles (busiest PE over its {m.timestamps} "
            "time-stamps, e.g. skew fill and drain) than MAESTRO's per-step MACs"
        )
    return (
        f"the exact run is {bound}-bound: its scratchpad traffic over the whole run takes "
        "longer than MAESTRO's per-step transfers"
    )


def _volume_reason(tensor: str, exact: int, estimate: int) -> str:
    if tensor == "output":
        if estimate > exact:
            return (
                "MAESTRO writes the output tile every step unless the whole reduction is inside "
                "the cluster (partial sums counted as L2 writes)"
            )
        return "the exact model writes a partial sum each time the output leaves a PE"
    if estimate > exact:
        return (
            "MAESTRO re-fetches data neighbours already hold (halo reuse only when the spatial "
            "dimension advances; stationarity judged by the innermost advancing loop)"
        )
    return (
        "MAESTRO treats data indexed by a wrapped inner loop as still present "
        "(reloads undercounted)"
    )


def comparison_rows(
    metrics: Metrics,
    estimate: MaestroEstimate,
    tensors: Mapping[str, str],
    noc_latency: int = 0,
    name: str | None = None,
) -> list[ComparisonRow]:
    """Pair exact ``metrics`` with ``estimate``; ``tensors`` maps MAESTRO's tensor names
    (input, filter, output) to the exact problem's. The exact figures are the array model's:
    its latency and energy are named ``latency_array`` and ``energy_array``.

    Examples
    --------
    >>> import tenet
    >>> from tenet.maestro.reader import parse_mapping
    >>> from tenet.maestro.lowering import lower
    >>> from tenet.maestro.estimate import estimate
    >>> from tenet.maestro.directives import Hardware
    >>> layer = parse_mapping("Network n { Layer g { Type: GEMM Dimensions { M 4 N 4 K 4 }"
    ...     " Dataflow { SpatialMap(1,1) M; TemporalMap(1,1) N; TemporalMap(4,4) K; } } }"
    ...     ).layers[0]
    >>> hw = Hardware(num_pes=4, noc_latency=0)
    >>> low = lower(layer, hw)
    >>> m = tenet.analyze(low.specs.workload, low.specs.architecture, low.specs.dataflow)
    >>> rows = comparison_rows(m, estimate(layer, hw), low.tensors)
    >>> [(r.quantity, r.unit, r.exact, r.estimate) for r in rows[:2]]
    [('macs', 'MACs', 64, 64), ('latency_array', 'cycles', 16, 16)]
    """
    label = name or estimate.layer
    rows: list[ComparisonRow] = []

    def add(quantity: str, tensor: str, exact: float, est: float, why: str) -> None:
        rel = _relative(exact, est)
        energy = quantity == "energy_array"
        unit = unit_label(quantity, metrics.energy_unit) if energy else UNITS[quantity]
        rows.append(
            ComparisonRow(label, quantity, tensor, unit, exact, est, rel, why if rel else "")
        )

    macs_note = next((n for n in estimate.edge_cases if n.startswith("num_macs")), "")
    add("macs", "", metrics.macs, estimate.num_macs, macs_note or "edge-case arithmetic")
    add(
        "latency_array",
        "",
        metrics.latency,
        estimate.runtime,
        _runtime_reason(metrics, estimate, noc_latency),
    )
    add(
        "active_pes_avg",
        "",
        float(metrics.active_pes_avg),
        estimate.average_number_of_utilized_pes,
        "MAESTRO averages active units over iteration cases, the exact count over time-stamps",
    )
    add(
        "utilisation",
        "",
        float(metrics.utilisation),
        estimate.average_number_of_utilized_pes / metrics.pe_count if metrics.pe_count else 0.0,
        "follows the active PEs and the number of steps",
    )
    l2 = {
        "input": estimate.input_l2_buffer_read,
        "filter": estimate.filter_l2_buffer_read,
        "output": estimate.output_l2_buffer_write,
    }
    for name_, volume in l2.items():
        exact_t = metrics.tensor(tensors[name_])
        why = _volume_reason(name_, exact_t.volume_unique, volume)
        add("volume_unique", name_, exact_t.volume_unique, volume, why)
        add(
            "reuse_factor",
            name_,
            float(exact_t.volume_total / exact_t.volume_unique) if exact_t.volume_unique else 0.0,
            estimate.num_macs / volume if volume else 0.0,
            why,
        )
    traffic = sum(l2.values())
    add(
        "bandwidth_scratchpad",
        "",
        float(metrics.bandwidth_scratchpad),
        traffic / estimate.runtime if estimate.runtime else 0.0,
        "L2 volume over runtime: follows both",
    )
    add(
        "energy_array",
        "",
        metrics.energy,
        estimate.total_energy_consumption,
        "L2 volumes differ; MAESTRO also counts one L2 write per input element and one L2 read "
        "per output element",
    )
    return rows


def comparison_frame(rows: list[ComparisonRow]) -> pd.DataFrame:
    """Return ``rows`` as a tidy DataFrame with the columns of :data:`COLUMNS`."""
    import pandas as pd

    return pd.DataFrame([r.__dict__ for r in rows], columns=list(COLUMNS))
