"""ArchitectureSpec: the PE set, its links, the scratchpad and the energy table."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from tenet.spec.base import SpecModel
from tenet.spec.layout import ScratchpadSpec
from tenet.vocab import ENERGY_L1, ENERGY_L2, ENERGY_MAC, EnergyUnit

__all__ = ["LinkSpec", "EnergySpec", "LevelNetworkSpec", "LevelSpec", "ArchitectureSpec"]


class LinkSpec(BaseModel):
    """A family of links ``PE[...] -> PE[...]`` read sender -> receiver (the way data moves)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    link: str = Field(description="isl map from sending PE to receiving PE.")
    delay: Literal[0, 1] = Field(
        1, description="Time-stamps a datum takes on the link: 1 registered, 0 multicast wire."
    )
    energy: float = Field(
        0.0,
        ge=0,
        description="Energy of one element moved over the link between two instances of a "
        "per-PE memory level.",
    )


class EnergySpec(BaseModel):
    """Energy per operation, in the architecture's energy unit (relative to one MAC in the
    zoo)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mac: float = Field(ENERGY_MAC, description="Energy of one MAC.")
    l1: float = Field(ENERGY_L1, description="Energy of one L1 (PE-local buffer) access.")
    l2: float = Field(ENERGY_L2, description="Energy of one L2 (scratchpad) access.")
    unit: EnergyUnit = Field(
        "MAC",
        description="Unit of the table (and of every energy counted with it): MAC, relative "
        "to one MAC's energy (TENET's costs), or pJ.",
    )


class LevelNetworkSpec(BaseModel):
    """The network from a level's parent to the level's instances (a per-PE level's PEs)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    multicast: bool = Field(
        True,
        description="One read of the parent serves every instance that takes the element in "
        "the same step.",
    )
    reduction: bool = Field(
        True,
        description="Partial sums of one output element written back by several instances in "
        "the same step reach the parent as one write.",
    )


class LevelSpec(BaseModel):
    """One memory level of the hierarchy (listed from DRAM inward); see ``docs/memory.md``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="Name of the level, used by the dataflow's ``tiles``.")
    capacity: int | None = Field(
        None, gt=0, description="Capacity in elements (per PE when ``per_pe``); none: unbounded."
    )
    capacity_bytes: int | None = Field(
        None, gt=0, description="Capacity in bytes, instead of ``capacity``."
    )
    bits_per_element: int | None = Field(
        None, gt=0, description="Element width at this level (default: the architecture's)."
    )
    per_pe: bool = Field(False, description="One instance of the level in every PE.")
    split: dict[str, int] | None = Field(
        None, description="Capacity reserved for each tensor, in elements (instead of shared)."
    )
    read_bandwidth: float | None = Field(
        None, gt=0, description="Elements read out of the level per cycle; none: unbounded."
    )
    write_bandwidth: float | None = Field(
        None, gt=0, description="Elements written into the level per cycle; none: unbounded."
    )
    energy_read: float = Field(0.0, ge=0, description="Energy of one element read.")
    energy_write: float = Field(0.0, ge=0, description="Energy of one element written.")
    feeds_array: bool = Field(False, description="The level the PE array reads from.")
    source: str | None = Field(None, description="Where the figures of this level come from.")
    tensors: tuple[str, ...] | None = Field(
        None,
        description="Tensors the level may hold (none: every tensor); the others bypass it, "
        "and a dataflow's ``keep`` may bypass some of these too.",
    )
    network: LevelNetworkSpec = Field(
        LevelNetworkSpec(),
        description="The network from the parent level to this level's instances.",
    )


class ArchitectureSpec(SpecModel):
    """A spatial array: ``pe`` is ``{PE[...]: ...}``; ``interconnect`` lists its links.

    Examples
    --------
    >>> spec = ArchitectureSpec.from_mapping({"name": "line4", "pe": "{PE[i]: 0 <= i < 4}",
    ...     "interconnect": [{"link": "{PE[i] -> PE[i+1]}"}]})
    >>> spec.interconnect[0].delay, spec.bandwidth
    (1, 64)
    """

    kind: ClassVar[str] = "architecture"

    pe: str = Field(description="The PE set, an isl set {PE[...]: ...}.")
    interconnect: tuple[LinkSpec, ...] = Field((), description="Links between PEs.")
    bits_per_element: int = Field(16, gt=0, description="Width of one tensor element, in bits.")
    bandwidth: int = Field(64, gt=0, description="Scratchpad <-> array bandwidth, bits/cycle.")
    latency: int = Field(1, ge=1, description="Scratchpad-to-PE latency, in cycles.")
    l1_size: int = Field(256, ge=0, description="Per-PE buffer size, in elements.")
    l2_size: int = Field(1024, ge=0, description="Scratchpad size, in elements.")
    instances_per_step: int = Field(
        1, ge=1, description="Instances (MACs) one PE may run in one time-stamp."
    )
    energy: EnergySpec = Field(EnergySpec(), description="Energy table.")
    clock_mhz: float | None = Field(
        None,
        gt=0,
        description="Clock frequency, MHz: gives the runtime in seconds, the throughput in "
        "MAC/s and, with energies in pJ, the average power in W (none: figures in cycles only).",
        exclude=True,  # no count depends on it: not part of a search's context or store key
    )
    scratchpad: ScratchpadSpec | None = Field(
        None, description="Banks and transaction width of the scratchpad (for layouts)."
    )
    levels: tuple[LevelSpec, ...] = Field(
        (), description="Memory levels from DRAM inward (none: one unbounded DRAM)."
    )
