"""The mapping type itself: tile sizes, partial tiles, the one-line description, the JSON form
and the refusal of nests that are not well formed."""

from __future__ import annotations

import pytest

from tenet.errors import NotALoopNestError, SpecError
from tenet.mapping import LevelLoops, Loop, LoopNest


def _nest() -> LoopNest:
    # dram runs k in 2 tiles of 3; glb spreads i over 4 PEs (2 digits of 2), then runs k.
    return LoopNest(
        ("i", "k"),
        (4, 6),
        (
            LevelLoops("dram", (Loop("k", 2),)),
            LevelLoops("glb", (Loop("i", 2, spatial=0), Loop("i", 2, spatial=0), Loop("k", 3))),
            LevelLoops("rf", (), frozenset({"A"})),
        ),
        per_pe=frozenset({"rf"}),
        above={"B": {"glb": 0}},
        skew=(1,),
    )


def test_nest_tile_sizes_per_level() -> None:
    # glb: below k's outer loop of stride 3, i whole (4); rf: below everything, 1 x 1.
    nest = _nest()
    assert nest.tile_sizes("dram") == (4, 6)
    assert nest.tile_sizes("glb") == (4, 3)
    assert nest.tile_sizes("rf") == (1, 1)
    assert nest.strides() == [3, 2, 1, 1]
    assert nest.boundary("rf") == 4


def test_nest_partial_tiles() -> None:
    # k of extent 5 in tiles of 3: 2 x 3 = 6 trips, the last tile holds 2.
    assert not _nest().partial
    partial = LoopNest(("k",), (5,), (LevelLoops("dram", (Loop("k", 2), Loop("k", 3))),))
    assert partial.partial
    # a tiling of 8 in tiles of 6 (steps), then of 3: 2 x 6 = 12 > 8, the last tile holds 2.
    stepped = LoopNest(
        ("k",), (8,), (LevelLoops("dram", (Loop("k", 2, step=6), Loop("k", 2, step=3))),)
    )
    assert stepped.partial


def test_nest_describe_names_each_level_and_its_tiles() -> None:
    assert _nest().describe() == "glb k:3; rf i:2@PE0 i:1@PE0 k:1"


def test_nest_json_round_trip() -> None:
    nest = _nest()
    assert LoopNest.from_dict(nest.to_dict()) == nest


def test_nest_unknown_dimension() -> None:
    nest = LoopNest(("i",), (2,), (LevelLoops("dram", (Loop("x", 2),)),))
    with pytest.raises(SpecError, match="m.yaml: dram.loops.0: loop over 'x', which is not a"):
        nest.check("m.yaml")


def test_nest_size_below_one() -> None:
    nest = LoopNest(("i",), (2,), (LevelLoops("dram", (Loop("i", 0),)),))
    with pytest.raises(SpecError, match=r"dram.loops.0: loop size must be >= 1, not 0"):
        nest.check()


def test_nest_too_few_trips() -> None:
    nest = LoopNest(("i",), (5,), (LevelLoops("dram", (Loop("i", 2), Loop("i", 2))),))
    with pytest.raises(SpecError, match="dims.0: the loops over 'i' run 4 trips, fewer than"):
        nest.check()


def test_nest_spatial_loop_above_shared_level() -> None:
    nest = LoopNest(
        ("i",), (2,), (LevelLoops("dram", (Loop("i", 2, spatial=0),)), LevelLoops("glb"))
    )
    with pytest.raises(NotALoopNestError, match="m.yaml: dram.loops.0: spatial loop above shared"):
        nest.check("m.yaml")
