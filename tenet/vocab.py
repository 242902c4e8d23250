"""Names shared by every layer: isl tuple names, type aliases and the unit of each metric."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

__all__ = [
    "STATEMENT",
    "PE",
    "TIME",
    "TensorName",
    "ParamBinding",
    "Access",
    "Neighbourhood",
    "NEIGHBOURHOODS",
    "UNITS",
]

STATEMENT = "S"
"""Tuple name of the statement instances in the iteration domain."""
PE = "PE"
"""Tuple name of processing elements (the space-stamp)."""
TIME = "T"
"""Tuple name of time-stamps (ordered lexicographically)."""

TensorName = str
ParamBinding = Mapping[str, int]
Access = Literal["read", "write"]
Neighbourhood = Literal["window", "links"]
"""Where a space-time point may find data it holds without fetching it (unique volume):
``"window"`` (the original's: itself or a linked PE, same or previous occupied time-stamp) or
``"links"`` (what the array delivers: same PE one occupied time-stamp earlier, or a linked PE
at the link's delay)."""
NEIGHBOURHOODS: tuple[Neighbourhood, ...] = ("window", "links")

UNITS: dict[str, str] = {
    "volume_total": "elements",
    "volume_unique": "elements",
    "volume_reuse": "elements",
    "volume_reuse_spatial": "elements",
    "volume_reuse_temporal": "elements",
    "reuse_factor": "ratio",
    "macs": "MACs",
    "active_pes": "PEs",
    "active_pes_avg": "PEs",
    "timestamps": "time-stamps",
    "occupied_points": "(PE, time-stamp) pairs",
    "instances_per_step_max": "instances",
    "utilisation": "ratio",
    "latency_compute": "cycles",
    "latency_compute_avg": "cycles",
    "latency_ingress": "cycles",
    "latency_egress": "cycles",
    "latency": "cycles",
    "bandwidth_pe": "elements/cycle",
    "bandwidth_scratchpad": "elements/cycle",
    "accesses_l1_read": "accesses",
    "accesses_l1_write": "accesses",
    "accesses_l2_read": "accesses",
    "accesses_l2_write": "accesses",
    "energy": "energy units of the architecture (pJ in the zoo)",
    "transactions": "transactions (lines)",
    "conflicts_bank": "bank accesses",
    "cycles": "cycles",
    "misses_line": "lines",
    "distance_use_max": "words",
    "distance_use_mean": "words",
    "latency_ingress_layout": "cycles",
    "latency_egress_layout": "cycles",
}
