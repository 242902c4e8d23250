"""evaluate(problem) -> Metrics: every metric of one dataflow, from exact counts."""

from __future__ import annotations

from dataclasses import dataclass, fields
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TypedDict

from tenet.counting import count
from tenet.metrics.bandwidth import bandwidth
from tenet.metrics.energy import energy
from tenet.metrics.latency import occupancy, transfer_latency
from tenet.metrics.original import OriginalReport, original_report
from tenet.metrics.utilisation import active_pes_avg, utilisation
from tenet.metrics.volume import TensorCounts, count_tensor
from tenet.model.problem import Problem
from tenet.vocab import Access, EnergyUnit, Neighbourhood, TensorName

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ARRAY_NAMES", "TensorMetrics", "Metrics", "evaluate"]

ARRAY_NAMES = {"latency": "latency_array", "energy": "energy_array"}
"""The array model's figures -> their names wherever they are shown: a design's headline
(:mod:`tenet.metrics.row`) holds ``latency`` and ``energy``."""


@dataclass(frozen=True)
class TensorMetrics:
    """Per tensor access: volumes in elements, accesses per memory level."""

    tensor: TensorName
    access: Access
    volume_total: int
    volume_unique: int
    volume_reuse: int
    volume_reuse_spatial: int
    volume_reuse_temporal: int
    reuse_factor: Fraction
    accesses_l1_read: int
    accesses_l1_write: int
    accesses_l2_read: int
    accesses_l2_write: int

    @classmethod
    def from_counts(cls, c: TensorCounts) -> TensorMetrics:
        """Derive the metrics of one tensor access from its exact counts."""
        volumes = (c.total, c.unique, c.reuse, c.reused_spatial, c.volume_reuse_temporal)
        l1 = (c.total, c.total)  # every access reads and writes the PE's buffer
        l2 = (c.unique, c.unique)  # what is fetched is read from and written to the scratchpad
        return cls(c.tensor, c.access, *volumes, c.reuse_factor, *l1, *l2)


@dataclass(frozen=True)
class Metrics:
    """Every metric of one dataflow; units in :data:`tenet.vocab.UNITS`."""

    name: str
    neighbourhood: Neighbourhood
    tensors: tuple[TensorMetrics, ...]
    macs: int
    pe_count: int
    active_pes: int
    timestamps: int
    occupied_points: int
    instances_per_step_max: int
    active_pes_avg: Fraction
    utilisation: Fraction
    latency_compute: int
    latency_compute_avg: int
    latency_ingress: int
    latency_egress: int
    latency: int
    bandwidth_pe: Fraction
    bandwidth_scratchpad: Fraction
    energy: float
    original: OriginalReport
    energy_unit: EnergyUnit = "MAC"
    """The unit of ``energy``: the architecture's energy table's."""

    def tensor(self, name: TensorName, access: Access | None = None) -> TensorMetrics:
        """Return the metrics of tensor ``name`` (and ``access`` when it is read and written)."""
        for t in self.tensors:
            if t.tensor == name and access in (None, t.access):
                return t
        raise KeyError(name)

    def table(self) -> pd.DataFrame:
        """Return the per-tensor table: one row per tensor access, one column per quantity."""
        import pandas as pd

        rows = [{f.name: _json(getattr(t, f.name)) for f in fields(t)} for t in self.tensors]
        return pd.DataFrame(rows).set_index(["tensor", "access"])

    def to_dict(self) -> dict[str, Any]:
        """Return JSON-ready values named as in :data:`tenet.vocab.UNITS` (ratios as floats):
        ``name``, ``tensors`` (``tensor``, ``access`` and the per-tensor metrics), the
        per-dataflow metrics (the latency and energy as ``latency_array`` and
        ``energy_array``: the array model's, not a design's headline), ``original``.

        Examples
        --------
        >>> from tenet.api import analyze
        >>> m = analyze("gemm", "systolic-2d-8x8", "gemm-os-systolic", params={"M": 8, "K": 4})
        >>> m.to_dict()["latency_array"] == m.latency, "latency" in m.to_dict()
        (True, False)
        """
        out: dict[str, Any] = {
            "name": self.name,
            "tensors": [
                {f.name: _json(getattr(t, f.name)) for f in fields(t)} for t in self.tensors
            ],
        }
        for f in fields(self):
            if f.name not in ("name", "tensors", "original"):
                out[ARRAY_NAMES.get(f.name, f.name)] = _json(getattr(self, f.name))
        out["original"] = self.original.to_dict()
        return out


def _json(value: object) -> object:
    return float(value) if isinstance(value, Fraction) else value


class _Work(TypedDict):
    """The array's work as :class:`Metrics` and TENET's report both take it: MACs, PEs that
    compute, time-stamps and occupied (PE, time-stamp) points."""

    macs: int
    active_pes: int
    timestamps: int
    occupied_points: int


def evaluate(problem: Problem, name: str | None = None) -> Metrics:
    """Count every metric of ``problem`` exactly; ``name`` names the result (default: the
    dataflow's name).

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> gemm = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic", {"M": 8, "N": 8, "K": 4})
    >>> m = evaluate(gemm, name="output-stationary")
    >>> m.name, m.macs, m.active_pes, m.latency_compute
    ('output-stationary', 256, 64, 18)
    """
    arch = problem.architecture
    counts = [count_tensor(problem, a) for a in problem.accesses]
    macs = count(problem.workload.domain)
    active_pes = count(problem.active_pes)
    timestamps = count(problem.timestamps)
    occupied = count(problem.occupied)
    pe_count = count(arch.pe_set)
    unique_in = sum(c.unique for c in counts if c.access == "read")
    unique_out = sum(c.unique for c in counts if c.access == "write")
    timing = occupancy(problem)
    compute = timing.latency_compute
    ingress = transfer_latency(unique_in, arch.bits_per_element, arch.bandwidth, arch.latency)
    egress = transfer_latency(unique_out, arch.bits_per_element, arch.bandwidth, arch.latency)
    latency = max(compute, ingress, egress)
    tensors = tuple(TensorMetrics.from_counts(c) for c in counts)
    l1 = sum(t.accesses_l1_read + t.accesses_l1_write for t in tensors)
    l2 = sum(t.accesses_l2_read + t.accesses_l2_write for t in tensors)
    work = _Work(macs=macs, active_pes=active_pes, timestamps=timestamps, occupied_points=occupied)
    return Metrics(
        name=name or problem.dataflow.name,
        neighbourhood=problem.neighbourhood,
        tensors=tensors,
        **work,
        pe_count=pe_count,
        instances_per_step_max=timing.instances_per_step_max,
        active_pes_avg=active_pes_avg(occupied, timestamps),
        utilisation=utilisation(occupied, pe_count, timestamps),
        latency_compute=compute,
        latency_compute_avg=macs // active_pes if active_pes else 0,
        latency_ingress=ingress,
        latency_egress=egress,
        latency=latency,
        bandwidth_pe=bandwidth(sum(c.reused_spatial for c in counts), latency),
        bandwidth_scratchpad=bandwidth(unique_in + unique_out, latency),
        energy=energy(macs, l1, l2, arch.energy),
        energy_unit=arch.energy.unit,
        original=original_report(counts, **work, bandwidth=arch.bandwidth, latency=arch.latency),
    )
