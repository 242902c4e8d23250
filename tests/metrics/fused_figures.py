"""The figures of a fused chain as the exact counts give them and as the walk gives them, in
one form, to compare."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from tenet.errors import DataflowError
from tenet.mapping.fusion import FusedNest
from tenet.metrics.fusion import FusedCounts, assess_fusion
from tenet.model.chain import Chain
from tenet.oracle.fusion import FusionWalk, walk_fusion
from tenet.testing.chain_strategies import FusedCase


def exact_figures(counts: FusedCounts) -> dict[str, Any]:
    """Tiles, per tensor (DRAM reads, writes, fills, footprints, halos), MACs, recomputed
    MACs and the buffer's need per tile, of the exact counts."""
    return {
        "tiles": list(counts.tiles),
        "tensors": {
            name: (t.dram_reads, t.dram_writes, t.fills, list(t.footprints), list(t.halos))
            for name, t in counts.tensors.items()
        },
        "macs": dict(counts.macs),
        "recomputed": dict(counts.recomputed),
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


def both(
    case: FusedCase,
    sizes: dict[str, int] | None = None,
    subtiles: Mapping[str, Mapping[str, int]] | None = None,
) -> tuple[object, object]:
    """The exact figures of ``case`` (with ``subtiles``) and the walk's (both ``"refused"``
    where the exact counts refuse the order and the walk does too)."""
    chain = Chain.from_spec(case.chain, sizes)
    nest = FusedNest(
        case.ranks, case.tiles, halo=case.halo, resident=case.resident, subtiles=subtiles or {}
    )
    walked = {"halo": case.halo, "subtiles": subtiles or {}}
    try:
        exact = exact_figures(assess_fusion(chain, nest))
    except DataflowError:
        with pytest.raises(DataflowError):
            walk_fusion(case.chain, sizes or {}, case.ranks, case.tiles, **walked)
        return "refused", "refused"
    walk = walk_fusion(
        case.chain, sizes or {}, case.ranks, case.tiles, resident=case.resident, **walked
    )
    return exact, walked_figures(walk)
