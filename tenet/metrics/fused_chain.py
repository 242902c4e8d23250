"""A whole chain's figures under :class:`FusedGroups`: each group counted exactly by
:func:`assess_fusion`, summed per tensor and statement, with the buffer's need against its
capacity and, given an architecture's costs, energy and a first latency model.

Energy (in the architecture's unit): every DRAM read and write at the DRAM level's energies,
every buffer fill at the buffer's write energy and every element leaving it for DRAM at its
read energy, every MAC (recomputed ones too) at the MAC energy. Operand reads under the buffer
are not modelled (no nest below the fused loops). Latency: per statement its MACs over the
array's PEs (rounded up), summed in cycles: no memory stalls, every PE busy.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from tenet.counting import count
from tenet.errors import SpecError
from tenet.isl_utils import parse_set
from tenet.mapping.fused_groups import FusedGroups
from tenet.metrics.fusion import FusedCounts, assess_fusion
from tenet.model.chain import Chain
from tenet.model.hierarchy import memory_levels
from tenet.spec.architecture import ArchitectureSpec

__all__ = ["FusionCosts", "ChainTotals", "ChainFigures", "fusion_costs", "assess_groups"]


@dataclass(frozen=True)
class FusionCosts:
    """An architecture's costs for a fused chain: the buffer (name, capacity in elements),
    energies per element at DRAM and at the buffer, per MAC, their unit, and the PEs."""

    level: str
    capacity: int | None
    dram_read: float
    dram_write: float
    buffer_read: float
    buffer_write: float
    mac: float
    unit: str
    pes: int


def fusion_costs(architecture: ArchitectureSpec, level: str | None = None) -> FusionCosts:
    """The costs of ``architecture`` with the buffer ``level`` (default: the shared level
    feeding the array); DRAM is its outermost level.

    Examples
    --------
    >>> from tenet.spec import load_architecture
    >>> costs = fusion_costs(load_architecture("systolic-levels-8x8"))
    >>> costs.level, costs.capacity, costs.dram_read, costs.buffer_write, costs.pes
    ('glb', 110592, 200.0, 6.0, 64)
    """
    levels = memory_levels(architecture)
    shared = [v for v in levels[1:] if not v.per_pe]
    if not shared:
        raise SpecError(
            f"architecture {architecture.name} has no shared level inside DRAM to fuse at",
            source=architecture.source,
            location="levels",
        )
    default = next((v for v in shared if v.feeds_array), shared[-1])
    names = [v.name for v in shared]
    if level is not None and level not in names:
        raise SpecError(
            f"no shared level {level!r} inside DRAM in architecture {architecture.name} "
            f"(known: {', '.join(names)})",
            source=architecture.source,
            location="levels",
        )
    buffer = default if level is None else shared[names.index(level)]
    dram = levels[0]
    return FusionCosts(
        buffer.name,
        buffer.capacity,
        dram.energy_read,
        dram.energy_write,
        buffer.energy_read,
        buffer.energy_write,
        architecture.energy.mac,
        architecture.energy.unit,
        count(parse_set(architecture.pe)),
    )


@dataclass(frozen=True)
class ChainTotals:
    """A chain's totals over its groups: elements read from DRAM (``dram_reads``), written to
    it (``dram_writes``) and written into the buffer (``fills``); MACs run, recomputed ones
    included (``macs``), and of those the ones run more than once (``recomputed``)."""

    dram_reads: int
    dram_writes: int
    fills: int
    macs: int
    recomputed: int

    @property
    def dram(self) -> int:
        """Elements moved to and from DRAM."""
        return self.dram_reads + self.dram_writes


@dataclass(frozen=True)
class ChainFigures:
    """The figures of a chain under its groups: each group's exact counts, in order, and the
    costs (None: no architecture given)."""

    chain: Chain
    groups: FusedGroups
    counts: tuple[FusedCounts, ...]
    costs: FusionCosts | None = None

    @property
    def need(self) -> int:
        """The most the buffer holds in one tile of any group, in elements."""
        return max(c.need for c in self.counts)

    @property
    def fits(self) -> bool:
        """Whether every group's need is within the buffer's capacity."""
        return all(c.fits for c in self.counts)

    def tensors(self) -> dict[str, dict[str, Any]]:
        """Per tensor of the chain: its role, how each group holds it, DRAM reads and
        writes, fills, peak footprint and halo (summed over the groups; elements)."""
        spec = self.chain.spec
        table: dict[str, dict[str, Any]] = {}
        for tensor in spec.tensors:
            parts = [c.tensors[tensor] for c in self.counts if tensor in c.tensors]
            role = (
                "input"
                if tensor in spec.inputs
                else "intermediate"
                if tensor in spec.intermediates
                else "output"
            )
            table[tensor] = {
                "role": role,
                "held": "/".join(dict.fromkeys(p.held for p in parts)),
                "dram_reads": sum(p.dram_reads for p in parts),
                "dram_writes": sum(p.dram_writes for p in parts),
                "fills": sum(p.fills for p in parts),
                "footprint": max(p.footprint for p in parts),
                "halo": sum(p.halo for p in parts),
            }
        return table

    def statements(self) -> dict[str, dict[str, int]]:
        """Per statement, its MACs run and recomputed."""
        return {
            name: {"macs": macs, "recomputed": c.recomputed[name]}
            for c in self.counts
            for name, macs in c.macs.items()
        }

    @cached_property
    def totals(self) -> ChainTotals:
        """The chain's totals over its groups' tensors and statements."""
        tensors = [t for c in self.counts for t in c.tensors.values()]
        return ChainTotals(
            sum(t.dram_reads for t in tensors),
            sum(t.dram_writes for t in tensors),
            sum(t.fills for t in tensors),
            sum(sum(c.macs.values()) for c in self.counts),
            sum(sum(c.recomputed.values()) for c in self.counts),
        )

    @property
    def energy(self) -> float | None:
        """The energy in the costs' unit (module docstring), None without costs."""
        if self.costs is None:
            return None
        c, t = self.costs, self.totals
        return (
            t.dram_reads * c.dram_read
            + t.dram_writes * (c.dram_write + c.buffer_read)
            + t.fills * c.buffer_write
            + t.macs * c.mac
        )

    @property
    def latency(self) -> int | None:
        """Cycles: each statement's MACs over the PEs, rounded up, summed (None without
        costs)."""
        if self.costs is None:
            return None
        pes = self.costs.pes
        return sum(-(-s["macs"] // pes) for s in self.statements().values())

    def value(self, objective: str) -> float:
        """The value of ``objective``: ``dram`` (elements), ``energy`` or ``latency``."""
        found = {"dram": self.totals.dram, "energy": self.energy, "latency": self.latency}[
            objective
        ]
        if found is None:
            raise SpecError(f"objective {objective} needs an architecture's costs")
        return found

    def headline(self) -> dict[str, Any]:
        """Fits first (as a single layer's headline), then the buffer's need and capacity,
        DRAM traffic, MACs, and energy and latency with costs."""
        t = self.totals
        row: dict[str, Any] = {
            "fits": self.fits,
            "level": self.groups.level,
            "need": self.need,
            "capacity": self.groups.capacity,
            "dram_reads": t.dram_reads,
            "dram_writes": t.dram_writes,
            "dram": t.dram,
            "macs": t.macs,
            "recomputed_macs": t.recomputed,
        }
        if self.costs is not None:
            row |= {
                "energy": self.energy,
                "energy_unit": self.costs.unit,
                "latency": self.latency,
            }
        return row


def assess_groups(
    chain: Chain, groups: FusedGroups, costs: FusionCosts | None = None
) -> ChainFigures:
    """Count ``chain`` under ``groups`` exactly, each group by :func:`assess_fusion`.

    Examples
    --------
    >>> from tenet.spec.chain import load_chain
    >>> from tenet.spec.fused import FusedSpec
    >>> chain = Chain.from_spec(load_chain("matmul-matmul"), {"M": 4, "N": 2, "K": 3, "P": 2})
    >>> spec = FusedSpec.from_mapping({"name": "f", "groups": [
    ...     {"statements": ["S0"], "tiles": {"m": 4}}, {"statements": ["S1"], "tiles": {"m": 4}}]})
    >>> figures = assess_groups(chain, FusedGroups.from_spec(spec, "glb", None))
    >>> figures.tensors()["C"]["dram_writes"], figures.tensors()["C"]["dram_reads"]
    (8, 8)
    >>> figures.totals.dram, figures.totals.macs  # A, B, C twice, D, E; 4 * 2 * 3 + 4 * 2 * 2
    (46, 40)
    """
    counts = tuple(assess_fusion(g.chain(chain), g.nest) for g in groups.groups)
    return ChainFigures(chain, groups, counts, costs)
