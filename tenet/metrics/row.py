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
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from tenet.metrics.memory import MemoryMetrics
from tenet.vocab import column

__all__ = ["ROW_FIELDS", "mapping_row", "bound_field"]

ROW_FIELDS = [
    column("latency"),
    column("latency_compute"),
    "bottleneck",
    "energy",
    "energy_unit",
    column("traffic_dram"),
    "fits",
    "memory_model",
    "space_stamp",
    "time_stamp",
    "tiles",
]
"""The fields of :func:`mapping_row` (then the bound of the searched objective, if any)."""


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
        column("latency_compute"): memory.latency_compute,
        "bottleneck": bottleneck,
        "energy": energy,
        "energy_unit": energy_unit,
        column("traffic_dram"): dram,
        "fits": memory.fits,
        "memory_model": model,
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
