"""The figures of a fused chain as the exact counts give them and as the walk gives them, in
one form, to compare."""

from __future__ import annotations

from typing import Any

from tenet.metrics.fusion import FusedCounts
from tenet.oracle.fusion import FusionWalk


def exact_figures(counts: FusedCounts) -> dict[str, Any]:
    """Tiles, per tensor (DRAM reads, writes, fills, footprints, halos), MACs, recomputed
    MACs and the buffer's need per tile, of the exact counts."""
    return {
        "tiles": list(counts.tiles),
        "tensors": {
            name: (t.dram_reads, t.dram_writes, t.fills, list(t.footprints), list(t.halos))
            for name, t in counts.tensors.items()
        },
        "macs": {name: s.macs for name, s in counts.statements.items()},
        "recomputed": {name: s.recomputed for name, s in counts.statements.items()},
        "needs": list(counts.needs),
    }


def walked_figures(walk: FusionWalk) -> dict[str, Any]:
    """The same figures, of the walk."""
    return {
        "tiles": walk.tiles,
        "tensors": {
            name: (t.dram_reads, t.dram_writes, t.fills, t.footprints, t.halos)
            for name, t in walk.tensors.items()
        },
        "macs": walk.macs,
        "recomputed": walk.recomputed,
        "needs": walk.needs,
    }
