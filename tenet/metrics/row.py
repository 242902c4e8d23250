"""The row of a mapping: its memory-aware figures and its full dataflow, as every command that
reports a mapping prints it (``tenet dse``, ``sweep``, ``tile``, the layer tables and ``tenet
eval``), so that the same names hold the same figures everywhere and ``tenet eval`` of the row's
dataflow (``space_stamp``, ``time_stamp``, ``tiles``, and ``places`` and ``keep`` when it has
them) gives its latency and energy again.

On an architecture with memory levels, ``latency_cycles`` and ``energy`` are those of the levels
(:func:`tenet.metrics.memory.evaluate_memory`) under the row's tile stamps; without tile stamps,
each level keeps its parent's tiles (``docs/memory.md``: one tile, everything the dataflow gives
it). An architecture without memory levels has only the array: its latency and energy are the
array's (:class:`tenet.metrics.evaluate.Metrics`), with no bottleneck and no tiles, and its DRAM
traffic each tensor's distinct elements once. ``memory_model`` says which the row holds.

The row's first fields are the design's headline (:data:`HEADLINE_FIELDS`): what ``tenet eval``
prints first, and what every table of mappings leads with; a mapping that does not fit says
what overflows in ``overflow`` (``rf needs 2,880 of 64 elements``).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from tenet.metrics.memory import MemoryMetrics
from tenet.vocab import column

__all__ = ["HEADLINE_FIELDS", "ROW_FIELDS", "mapping_row", "bound_field", "headline_model"]

HEADLINE_FIELDS = [
    column("latency"),
    "energy",
    "energy_unit",
    column("traffic_dram"),
    "fits",
    "overflow",
    "memory_model",
]
"""The design's headline: its latency and energy (the memory-aware model's when the
architecture has levels inside the outermost, else the array's), the unit of the energy, its
DRAM traffic, whether every tile fits (and what overflows when not) and which model gave
them."""

ROW_FIELDS = [
    *HEADLINE_FIELDS,
    column("latency_compute"),
    "bottleneck",
    "space_stamp",
    "time_stamp",
    "tiles",
]
"""The fields of :func:`mapping_row` (then the bound of the searched objective, if any)."""

_MODELS = {
    "array": "array (no memory level inside the outermost)",
    "untiled": "memory-aware, untiled (each level holds what the dataflow gives it)",
    "tiled": "memory-aware, under the tile stamps",
}


def headline_model(memory_model: str) -> str:
    """Return what a row's ``memory_model`` says of its headline's figures, in words.

    Examples
    --------
    >>> headline_model("array")
    'array (no memory level inside the outermost)'
    """
    return _MODELS[memory_model]


def _number(value: Fraction | int) -> int | float:
    value = Fraction(value)
    return int(value) if value.denominator == 1 else float(value)


def mapping_row(
    memory: MemoryMetrics,
    space_stamp: str,
    time_stamp: str,
    tiles: Mapping[str, str],
    *,
    energy_unit: str,
    array: tuple[int, float] | None = None,
    bound: tuple[str, Fraction] | None = None,
    places: Mapping[str, Mapping[str, str]] | None = None,
    keep: Mapping[str, tuple[str, ...]] | None = None,
) -> dict[str, Any]:
    """Return the fields of :data:`ROW_FIELDS` of a mapping: ``memory`` its figures per level
    (under ``tiles``, the tile stamp of each level), ``energy_unit`` the architecture's;
    ``array`` the array's latency (cycles) and energy, which the row holds when the
    architecture has no memory levels (needed then); ``bound``, ``(objective, value)``: a
    lower bound of the searched objective, given as ``bound_<objective>``; ``places``, per
    level, the tile stamp of each tensor stored under other loops than the level's (a
    ``places`` field, only when there are some); ``keep``, per level that keeps only some
    tensors, those it keeps (a ``keep`` field, only when there are some).

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> from tenet.metrics.memory import evaluate_memory
    >>> p = load_problem("gemm", "systolic-levels-8x8", "gemm-os-systolic",
    ...                  {"M": 8, "N": 8, "K": 8})
    >>> row = mapping_row(evaluate_memory(p, 22), "{S[i,j,k] -> PE[i,j]}",
    ...                   "{S[i,j,k] -> T[i+j+k]}", {}, energy_unit="MAC")
    >>> row["memory_model"], row["traffic_dram_elements"]  # A, B, C once: 3 * 64
    ('untiled', 192)
    """
    latency: Fraction | int
    if len(memory.levels) > 1:
        latency, energy = memory.latency, memory.energy
        bottleneck: str | None = memory.bottleneck
        model = "tiled" if tiles else "untiled"
        dram = memory.traffic_dram
    else:
        if array is None:
            raise ValueError("an architecture without memory levels needs the array's figures")
        (latency, energy), bottleneck, model = array, None, "array"
        dram = sum(r.footprint for r in memory.records)  # each element once, from DRAM
    row: dict[str, Any] = {
        column("latency"): _number(latency),
        "energy": energy,
        "energy_unit": energy_unit,
        column("traffic_dram"): dram,
        "fits": memory.fits,
        "overflow": memory.overflow,
        "memory_model": model,
        column("latency_compute"): memory.latency_compute,
        "bottleneck": bottleneck,
        "space_stamp": space_stamp,
        "time_stamp": time_stamp,
        "tiles": dict(tiles),
    }
    if places:
        row["places"] = {level: dict(per) for level, per in places.items()}
    if keep:
        row["keep"] = {level: list(tensors) for level, tensors in keep.items()}
    if bound is not None:
        row.update(bound_field(*bound))
    return row


def bound_field(objective: str, value: Fraction) -> dict[str, int | float]:
    """Return the field of a row that gives ``value``, a lower bound of the searched
    ``objective``: ``bound_<objective>`` (with its unit).

    Examples
    --------
    >>> bound_field("latency", Fraction(9, 2))
    {'bound_latency_cycles': 4.5}
    """
    return {f"bound_{column(objective)}": _number(value)}
