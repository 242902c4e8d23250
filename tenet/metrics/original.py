"""The original TENET's report, formula for formula, without its 32-bit overflow.

Names and formulas follow TENET's ``src/dataflow.cpp``: per-instance reuse volumes, the
"previous occupied time-stamp" neighbour, ingress/egress at 16 bits per element with
truncating division, and an energy accumulator that truncates to an integer after each term.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tenet.metrics.volume import TensorCounts
from tenet.vocab import ENERGY_L1, ENERGY_L2

__all__ = ["OriginalReport", "OriginalTensor", "original_report"]

TENET_BITS_PER_ELEMENT = 16


@dataclass(frozen=True)
class OriginalTensor:
    """TENET's per-tensor figures."""

    TotalVolume: int
    UniqueVolume: int
    ReuseFactor: float
    TemporalReuseVolume: float
    SpatialReuseVolume: float
    access: str


@dataclass(frozen=True)
class OriginalReport:
    """TENET's per-tensor and per-experiment figures, computed with unbounded integers."""

    tensors: dict[str, OriginalTensor]
    IngressDelay: int
    EgressDelay: int
    ComputationDelay: int
    Delay: int
    ActivePENum: int
    AverageActivePENum: float
    Energy: int
    TotalTime: int
    MacNum: int
    PENum: int

    def to_dict(self) -> dict[str, Any]:
        """Return the report as plain JSON-ready values."""
        out: dict[str, Any] = {"tensors": {n: vars(t).copy() for n, t in self.tensors.items()}}
        out.update({k: v for k, v in vars(self).items() if k != "tensors"})
        return out


def _delay(unique: int, bandwidth: int, latency: int) -> int:
    return unique * TENET_BITS_PER_ELEMENT // bandwidth + latency - 1


def _energy(macs: int, counts: Sequence[TensorCounts]) -> int:
    energy = macs  # the original counts in MACs: ENERGY_MAC is 1
    ordered = [c for c in counts if c.access == "read"] + [c for c in counts if c.access == "write"]
    for c in ordered:
        for term in (
            ENERGY_L1 * c.total,
            ENERGY_L1 * c.total,
            ENERGY_L2 * c.unique_window,
            ENERGY_L2 * c.unique_window,
        ):
            energy = int(energy + term)
    return energy


def original_report(
    counts: Sequence[TensorCounts],
    *,
    macs: int,
    active_pes: int,
    timestamps: int,
    occupied_points: int,
    bandwidth: int,
    latency: int,
) -> OriginalReport:
    """Build TENET's report from exact counts (``bandwidth`` in bits/cycle, ``latency`` in
    cycles, as the 3rd and 4th numbers of a ``.p`` file).

    Examples
    --------
    >>> c = TensorCounts("A", "read", total=8, held=8, reused=6, reused_window=6,
    ...                  reused_temporal=4, reused_spatial=2, reused_linked=2)
    >>> r = original_report([c], macs=8, active_pes=2, timestamps=4, occupied_points=8,
    ...                  bandwidth=64, latency=16)
    >>> r.IngressDelay, r.tensors["A"].ReuseFactor, r.tensors["A"].TemporalReuseVolume
    (15, 4.0, 0.5)
    """
    tensors = {}
    for c in counts:
        key = c.tensor if c.tensor not in tensors else f"{c.tensor}:{c.access}"
        tensors[key] = OriginalTensor(
            TotalVolume=c.total,
            UniqueVolume=c.unique_window,
            ReuseFactor=c.total / c.unique_window if c.unique_window else 0.0,
            TemporalReuseVolume=c.volume_reuse_temporal / macs if macs else 0.0,
            SpatialReuseVolume=c.reused_linked / macs if macs else 0.0,
            access="READ" if c.access == "read" else "WRITE",
        )
    ingress = _delay(sum(c.unique_window for c in counts if c.access == "read"), bandwidth, latency)
    egress = _delay(sum(c.unique_window for c in counts if c.access == "write"), bandwidth, latency)
    computation = macs // active_pes if active_pes else 0
    return OriginalReport(
        tensors=tensors,
        IngressDelay=ingress,
        EgressDelay=egress,
        ComputationDelay=computation,
        Delay=max(ingress, egress, computation),
        ActivePENum=active_pes,
        AverageActivePENum=occupied_points / timestamps if timestamps else 0.0,
        Energy=_energy(macs, counts),
        TotalTime=timestamps,
        MacNum=macs,
        PENum=active_pes,
    )
