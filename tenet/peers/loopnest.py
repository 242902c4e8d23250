"""Per-level figures of a loop nest (the mappings of Timeloop/AccelForge and ZigZag, as
:class:`~tenet.mapping.LoopNest`): :func:`evaluate_nest` counts the per-level, per-tensor figures
honouring bypasses and either retention rule (``docs/peers.md``):

- ``keep`` (Timeloop, ZigZag, and tenet's own rule): a level keeps a tensor's tile while the
  loops above it change only other tensors; it brings in what the previous tile does not hold.
- ``refetch`` (AccelForge): every iteration of a loop above a tensor's storage node brings the
  tile in again, whichever tensor the loop changes, and writes back what it wrote.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Literal

import islpy as isl

from tenet.counting import count
from tenet.mapping import LoopNest, tensor_tiles
from tenet.metrics.memory import LevelTensor, count_served, evaluate_memory, tensor_relations
from tenet.model.memory import MemoryLevel
from tenet.model.problem import Problem
from tenet.model.tiling import tile_levels

__all__ = ["Retention", "evaluate_nest"]

Retention = Literal["keep", "refetch"]


def evaluate_nest(
    problem: Problem,
    nest: LoopNest,
    retention: Retention = "keep",
) -> list[LevelTensor]:
    """Return the figures per level and tensor of ``problem`` mapped by ``nest``, in elements:
    for each tensor, only the levels that keep it (a bypassed level passes the tensor between
    its neighbours), with the ``retention`` rule.

    ``problem`` carries the nest's stamps (:func:`~tenet.mapping.to_stamps`); the capacity
    check is the one of :func:`tenet.metrics.memory.evaluate_memory` for the tensor alone.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> from tenet.mapping import LevelLoops, Loop, dataflow_spec
    >>> from tenet.spec import ArchitectureSpec
    >>> nest = LoopNest(("i", "j", "k"), (2, 2, 3), (
    ...     LevelLoops("dram", (Loop("i", 2),)), LevelLoops("glb", (Loop("j", 2), Loop("k", 3)))))
    >>> arch = ArchitectureSpec.from_mapping({"name": "a", "pe": "{PE[i]: 0 <= i < 1}",
    ...     "levels": [{"name": "dram"}, {"name": "glb"}]})
    >>> p = load_problem("gemm", arch, dataflow_spec(nest, "n"), params={"M": 2, "N": 2, "K": 3})
    >>> [(f.tensor, f.fills) for f in evaluate_nest(p, nest, "refetch") if f.level == "glb"]
    [('A', 6), ('B', 12), ('C', 0)]
    """
    nest.check()
    levels = problem.architecture.levels
    by_name = {level.level: level for level in nest.levels}
    records: list[LevelTensor] = []
    for tensor, (read, write) in tensor_relations(problem).items():
        kept = [lv for lv in levels[1:] if lv.name not in by_name or by_name[lv.name].keeps(tensor)]
        sub = _restrict(problem, tensor, (levels[0], *kept))
        stamps = tensor_tiles(nest, tensor)
        tiles = [
            (lv.name, isl.Map(stamps[lv.name]).intersect_domain(problem.workload.domain))
            for lv in kept
            if lv.name in stamps
        ]
        figures = list(evaluate_memory(sub, latency_compute=0, tiles=tiles).records)
        if retention == "refetch":
            figures = _refetch(sub, tiles, figures, read, write)
        records.extend(figures)
    order = {lv.name: k for k, lv in enumerate(levels)}
    return sorted(records, key=lambda r: order[r.level])


def _restrict(problem: Problem, tensor: str, levels: Sequence[MemoryLevel]) -> Problem:
    architecture = replace(problem.architecture, levels=tuple(levels))
    return replace(problem, architecture=architecture, tensors=(tensor,))


def _refetch(
    problem: Problem,
    tiles: Sequence[tuple[str, isl.Map]],
    figures: Sequence[LevelTensor],
    read: isl.Map,
    write: isl.Map,
) -> list[LevelTensor]:
    """Replace the fills by what every tile brings in without keeping anything of the
    previous one (partial sums: only those written by an earlier tile), all from the parent
    (served once per step when the parent's network multicasts), and the writebacks by what
    every tile wrote (reduced once per step when the network reduces)."""
    moves: dict[str, tuple[int, int, int, int]] = {}
    for tiled in tile_levels(problem, tiles):
        held = tiled.key_of.reverse().apply_range(read.union(write))
        needed = tiled.key_of.reverse().apply_range(read)
        written = tiled.key_of.reverse().apply_range(write)
        if not write.is_empty():
            written_tile = tiled.tile_of.reverse().apply_range(write)
            needed = needed.union(
                tiled.tile_of_key.apply_range(tiled.earlier_tiles.apply_range(written_tile))
            )
        brought = held.intersect(needed)
        moves[tiled.level.name] = (
            count(brought),
            count_served(tiled, brought, tiled.level.multicast),
            count(written),
            count_served(tiled, written, tiled.level.reduction),
        )
    out: list[LevelTensor] = []
    for f in figures:
        if f.level in moves:
            n, served, back, reduced = moves[f.level]
            f = replace(
                f,
                fills=n,
                fills_neighbour=0,
                fills_parent=n,
                reads_parent=served,
                writebacks=back,
                writes_parent=reduced,
            )
        out.append(f)
    return out
