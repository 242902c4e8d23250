"""The mapping type: per memory level, the loops that run where (PE axis) and when (time), the
tensors each level keeps, and the array's skew; written as a dataflow's stamps and read back
from them."""

from __future__ import annotations

from tenet.mapping.fusion import FusedNest
from tenet.mapping.nest import LevelLoops, Loop, LoopNest
from tenet.mapping.recover import (
    LoopDigit,
    array_blocks,
    array_coverage,
    array_cut,
    array_spread,
    box,
    cuts_array,
    difference,
    equivalence,
    from_digits,
    from_stamps,
    normal_form,
)
from tenet.mapping.stamps import (
    Stamps,
    dataflow_spec,
    place_maps,
    tensor_tiles,
    tile_maps,
    to_stamps,
    with_mapping,
)
from tenet.mapping.tile_sizes import tiled_nest, tiling_key
from tenet.mapping.tuples import TupleMapping

__all__ = [
    "FusedNest",
    "Loop",
    "LevelLoops",
    "LoopNest",
    "Stamps",
    "to_stamps",
    "tile_maps",
    "place_maps",
    "dataflow_spec",
    "with_mapping",
    "tensor_tiles",
    "LoopDigit",
    "from_stamps",
    "from_digits",
    "normal_form",
    "equivalence",
    "difference",
    "box",
    "array_blocks",
    "array_coverage",
    "array_spread",
    "array_cut",
    "cuts_array",
    "tiled_nest",
    "tiling_key",
    "TupleMapping",
]
