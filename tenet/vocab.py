"""Names shared by every layer: isl tuple names, type aliases and the unit of each metric."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Literal, get_args

__all__ = [
    "STATEMENT",
    "PE",
    "TIME",
    "TensorName",
    "ParamBinding",
    "Access",
    "Neighbourhood",
    "NEIGHBOURHOODS",
    "SpaceStrategy",
    "SPACE_STRATEGIES",
    "MemoryObjective",
    "MEMORY_OBJECTIVES",
    "TilingStrategy",
    "TILING_STRATEGIES",
    "Retention",
    "Halo",
    "HALOS",
    "FUSED_TILE",
    "FUSED_SUBTILE",
    "Figure",
    "UNITS",
    "DESCRIPTIONS",
    "FIELDS",
    "UNIT_SUFFIXES",
    "column",
    "unit_label",
    "metric_of_column",
    "Source",
    "ENERGY_MAC",
    "EnergyUnit",
    "ENERGY_UNIT_LABELS",
    "ENERGY_L1",
    "ENERGY_L2",
    "ENERGY",
    "ENERGY_DELAY",
]

STATEMENT = "S"
"""Tuple name of the statement instances in the iteration domain."""
PE = "PE"
"""Tuple name of processing elements (the space-stamp)."""
TIME = "T"
"""Tuple name of time-stamps (ordered lexicographically)."""

TensorName = str
Source = str | Path
"""A file to read: a path, or a string that is a path, a zoo name or the text itself."""
ParamBinding = Mapping[str, int]
Access = Literal["read", "write"]
Neighbourhood = Literal["window", "links"]
"""Where a space-time point may find data it holds without fetching it (unique volume):
``"window"`` (the original's: itself or a linked PE, same or previous occupied time-stamp) or
``"links"`` (what the array delivers: same PE one occupied time-stamp earlier, or a linked PE
at the link's delay)."""
NEIGHBOURHOODS: tuple[Neighbourhood, ...] = get_args(Neighbourhood)
SpaceStrategy = Literal["auto", "exhaustive", "constructive"]
"""How a design-space search finds its candidates: enumerate them, build them from the
workload's reuse (:mod:`tenet.dse.tiling.constructive`), or ``auto`` (build above a size): the
names of the registry :data:`tenet.dse.strategies.STRATEGIES` that serve the array mappings
(a test checks them)."""
SPACE_STRATEGIES: tuple[SpaceStrategy, ...] = get_args(SpaceStrategy)
EnergyUnit = Literal["MAC", "pJ"]
"""The unit of an architecture's energy table: one MAC's energy (TENET's costs, the zoo's) or
picojoules."""
ENERGY_UNIT_LABELS: dict[str, str] = {"MAC": "MAC-relative", "pJ": "pJ"}
"""How an energy in each unit is labelled in text output."""
MemoryObjective = Literal["latency", "energy", "edp"]
"""What a tiling search minimises: cycles, energy, or their product."""
MEMORY_OBJECTIVES: tuple[MemoryObjective, ...] = get_args(MemoryObjective)
TilingStrategy = Literal["auto", "exhaustive", "constructive", "joint"]
"""How ``tenet tile`` searches the tiling of the given array mapping: every tiling counted
exactly, the top-k built, ``auto``, or the branch and bound of :mod:`tenet.dse.joint` (bypass,
sizes and orders together, with a proven bound): the names of the registry
:data:`tenet.dse.strategies.STRATEGIES` that serve the tilings (a test checks them)."""
TILING_STRATEGIES: tuple[TilingStrategy, ...] = get_args(TilingStrategy)
Retention = Literal["keep", "refetch"]
"""How a memory level keeps a tensor's tile (``docs/peers.md``): ``keep`` (tenet's own rule,
Timeloop's and ZigZag's), what the previous tile held stays while the loops above change only
other tensors; ``refetch`` (AccelForge), every tile is brought in whole and written back."""
Halo = Literal["keep", "recompute"]
"""What a fused chain does with the producer's results that consecutive fused tiles share (a
3x3 consumer's halo, ``docs/fusion.md``): ``keep`` them in the buffer, each producer instance
run once; or ``recompute`` them, each tile running every producer instance it needs."""
HALOS: tuple[Halo, ...] = get_args(Halo)
FUSED_TILE = "Tile"
"""Tuple name of a fused tile: the index of the shared outer loops of a fused chain."""
FUSED_SUBTILE = "Sub"
"""Tuple name of a statement's sub-tile inside a fused tile: the tile's index, then its own
sub-tile loops' (``docs/fusion.md``)."""
Figure = Literal["metrics", "legality", "memory", "needs", "design"]
"""What an assessment counts (:func:`tenet.metrics.assessment.assess_problem`): the array's
metrics, the legality checks, the memory levels' figures, only the levels' capacity needs, or
a design point's row of the design-space search."""

ENERGY_MAC, ENERGY_L1, ENERGY_L2 = 1.0, 1.68, 18.61
"""The original tool's energy of one MAC, one L1 (PE buffer) access and one L2 (scratchpad)
access, relative to one MAC (MAESTRO's ``l1_energy_multiplier`` and ``l2_energy_multiplier``):
the zoo's and the default energy table."""

ENERGY = "the architecture's energy unit (energy_unit: MAC-relative or pJ)"
"""The unit of an energy in :data:`UNITS`: each architecture's own (:func:`unit_label` names it
given the ``energy_unit``)."""
ENERGY_DELAY = "the architecture's energy unit times cycles"
"""The unit of an energy-delay product in :data:`UNITS`."""

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
    "energy": ENERGY,
    "transactions": "transactions (lines)",
    "conflicts_bank": "bank accesses",
    "cycles": "cycles",
    "misses_line": "lines",
    "distance_use_max": "words",
    "distance_use_mean": "words",
    "latency_ingress_layout": "cycles",
    "latency_egress_layout": "cycles",
    "pe_count": "PEs",
    "edp": ENERGY_DELAY,
    "traffic_dram": "elements",
    "dram_saved": "elements",
    "latency_array": "cycles",
    "energy_array": ENERGY,
    "edp_array": ENERGY_DELAY,
    "bound_latency": "cycles",
    "bound_energy": ENERGY,
    "bound_edp": ENERGY_DELAY,
    "clock_mhz": "MHz",
    "runtime": "s",
    "throughput": "MAC/s",
    "power_avg": "W",
}

DESCRIPTIONS: dict[str, str] = {
    "volume_total": "(instance, element) pairs: every access of every instance",
    "volume_unique": "held (point, element) pairs found at no neighbour: fetched from outside",
    "volume_reuse": "accesses served by reuse: total minus unique volume",
    "volume_reuse_spatial": "held pairs whose element arrives over a link",
    "volume_reuse_temporal": "accesses served inside the PE (same point or previous step)",
    "reuse_factor": "total over unique volume (0 when nothing is fetched)",
    "macs": "instances of the iteration domain, one MAC each",
    "active_pes": "PEs that run at least one instance",
    "active_pes_avg": "occupied (PE, time-stamp) points per time-stamp",
    "timestamps": "time-stamps at which at least one instance runs",
    "occupied_points": "(PE, time-stamp) points that run at least one instance",
    "instances_per_step_max": "most instances on one (PE, time-stamp)",
    "utilisation": "occupied points over PEs times time-stamps",
    "latency_compute": "cycles of the schedule: per time-stamp, the busiest PE's instances",
    "latency_compute_avg": "MACs over active PEs, rounded down (the original's)",
    "latency_ingress": "cycles to bring the unique volume of the reads in",
    "latency_egress": "cycles to send the unique volume of the writes out",
    "latency": "a design's latency: the memory-aware model's (levels below DRAM), else the array's",
    "bandwidth_pe": "PE-to-PE bandwidth (IBW): spatially reused elements over latency",
    "bandwidth_scratchpad": "scratchpad bandwidth (SBW): unique elements in and out over latency",
    "accesses_l1_read": "reads of the PE buffer: the total volume",
    "accesses_l1_write": "writes of the PE buffer: the total volume",
    "accesses_l2_read": "reads of the scratchpad: the unique volume",
    "accesses_l2_write": "writes of the scratchpad: the unique volume",
    "energy": "a design's energy: the memory-aware model's (levels below DRAM), else the array's",
    "transactions": "scratchpad line transactions of a layout",
    "conflicts_bank": "bank accesses beyond one per bank and step",
    "cycles": "cycles of the scratchpad transactions",
    "misses_line": "line misses of the scratchpad cache",
    "distance_use_max": "largest reuse distance",
    "distance_use_mean": "mean reuse distance",
    "latency_ingress_layout": "ingress latency with the scratchpad layout's transactions",
    "latency_egress_layout": "egress latency with the scratchpad layout's transactions",
    "pe_count": "PEs of the architecture's PE set",
    "edp": "energy-delay product: energy times latency",
    "traffic_dram": "elements moved between DRAM and the next memory level (fills, writebacks)",
    "dram_saved": "DRAM traffic a layer saves by keeping its input or output on chip",
    "latency_array": "the array model's latency: the largest of compute, ingress and egress",
    "energy_array": "the array model's energy: MACs, PE buffer and scratchpad accesses, weighted",
    "edp_array": "the array's energy times the array's latency",
    "bound_latency": "a proven lower bound of the memory-aware latency over the searched space",
    "bound_energy": "a proven lower bound of the memory-aware energy over the searched space",
    "bound_edp": "a proven lower bound of the memory-aware energy-delay product over the space",
    "clock_mhz": "the architecture's clock frequency",
    "runtime": "the latency in seconds at the architecture's clock",
    "throughput": "MACs per second: MACs over the runtime",
    "power_avg": "average power: energy (in pJ) over the runtime",
}
"""One line per metric of :data:`UNITS` (same keys): what it counts."""

FIELDS: dict[str, str] = {
    "name": "the dataflow's (or design point's) name",
    "tensor": "the tensor's name",
    "access": "read or write",
    "neighbourhood": "where reuse is found: window or links",
    "energy_unit": "the unit of the energies: MAC (relative to one MAC) or pJ",
    "tensors": "the per-tensor-access metrics",
    "original": "the original tool's report, in its names and formulas",
    "legality": "the legality violations, each with its kind and message",
    "levels": "per memory level and tensor",
    "memory": "per memory level",
    "index": "a design point's index in its design space",
    "workload": "the workload's (or network layer's) name",
    "architecture": "the architecture's name",
    "space_stamp": "a design point's space-stamp (isl map text)",
    "time_stamp": "a design point's time-stamp (isl map text)",
    "data_centric": "whether a design point is a data-centric (MAESTRO-expressible) one",
    "scratchpad": "the tensors a design point keeps in the scratchpad, comma-separated",
    "movement": "each tensor's movement (tensor:movement), comma-separated",
    "status": "a design point's outcome: ok, illegal, pruned or error",
    "reason": "why a design point is illegal or pruned, or why two figures differ",
    "source": "where a best design point comes from: the design space or the schedule",
    "bandwidth_elements_per_cycle": "the architecture's scratchpad bandwidth, elements/cycle",
    "dataflow": "the compared dataflow's (or layer's) name",
    "quantity": "the compared metric",
    "unit": "the unit of the compared metric",
    "exact": "the exact figure",
    "estimate": "the MAESTRO-style estimate",
    "relative_error": "estimate minus exact, over exact",
    "design": "a design point's label",
    "bottleneck": "the memory level whose time is the memory-aware latency, or compute",
    "tiles": "the tile stamp of each memory level inside the outermost (isl map text)",
    "fits": "whether every tile of every memory level fits its capacity",
    "overflow": "what does not fit: each overflowing level's need against its capacity",
    "headline": "a design's latency, energy, DRAM traffic, whether it fits, and their model",
    "capacity": "the tiles that do not fit their level, each with its kind and message",
    "row": "a mapping's memory-aware figures and full dataflow, as the searches print them",
    "memory_model": "what latency and energy are: array (no memory levels), untiled or tiled",
    "layer": "a network's layer entry (network/layer in a search), or the network's total",
    "count": "how many identical layers a network's entry stands for (the total: all of them)",
    "resident": "what a layer keeps on chip between layers: its input from the layer before, "
    "its output to the layer after",
}
"""Keys of the JSON output that are not metrics: identifiers and groups."""

UNIT_SUFFIXES: dict[str, str] = {
    "elements": "_elements",
    "cycles": "_cycles",
    "elements/cycle": "_elements_per_cycle",
    "s": "_seconds",
    "MAC/s": "_macs_per_second",
    "W": "_watts",
}
"""Unit -> the suffix of a metric's column in tables that carry units in their column names
(report tables, design-space rows): ``latency`` -> ``latency_cycles``. Energies keep their
name: their unit is the architecture's, in the ``energy_unit`` column beside them."""


def unit_label(metric: str, energy_unit: str | None = None) -> str:
    """Return the unit printed after a figure of ``metric`` in text output (empty for a
    ratio, a name without a unit, or a count its name says: ``macs``); an energy's is that
    of ``energy_unit`` (the architecture's ``MAC`` or ``pJ``; unknown: "energy units").

    Examples
    --------
    >>> unit_label("latency"), unit_label("utilisation"), unit_label("energy")
    ('cycles', '', 'energy units')
    >>> unit_label("energy", "pJ"), unit_label("edp", "MAC"), unit_label("runtime")
    ('pJ', 'MAC-relative x cycles', 's')
    """
    unit = UNITS.get(metric, "ratio")
    if unit == "ratio" or unit.lower() == metric:
        return ""
    if unit in (ENERGY, ENERGY_DELAY):
        energy = ENERGY_UNIT_LABELS.get(energy_unit or "", "energy units")
        return energy if unit == ENERGY else f"{energy} x cycles"
    return unit


def column(metric: str) -> str:
    """Return the unit-suffixed column name of ``metric`` (a key of :data:`UNITS`).

    Examples
    --------
    >>> column("bandwidth_scratchpad"), column("reuse_factor")
    ('bandwidth_scratchpad_elements_per_cycle', 'reuse_factor')
    """
    return metric + UNIT_SUFFIXES.get(UNITS[metric], "")


def metric_of_column(name: str) -> str | None:
    """Return the metric whose :func:`column` is ``name``, or None.

    Examples
    --------
    >>> metric_of_column("latency_cycles"), metric_of_column("sbw")
    ('latency', None)
    """
    return next((m for m in UNITS if column(m) == name), None)
