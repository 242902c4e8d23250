"""Rectangular tilings as loop nests: their loops, stamps and key by hand."""

from __future__ import annotations

from tenet.mapping import tiled_nest, tiling_key, to_stamps
from tenet.mapping.tile_sizes import nested_sizes


def test_tiling_loops_and_stamps_by_hand() -> None:
    # i, j of 8: glb tiles 4 x 2 in order (j, i), rf tiles 2 x 1: dram runs j 4 trips, i 2;
    # glb runs the rf tiles inside a glb tile, i 2 trips, j 2; rf runs the 2 x 1 points.
    t = tiled_nest(
        ("i", "j"), (8, 8), "dram", [("glb", (4, 2), (1, 0)), ("rf", (2, 1), (0, 1))], (0, 1)
    )
    assert [[(x.dim, x.size, x.step) for x in lv.loops] for lv in t.levels] == [
        [("j", 4, 2), ("i", 2, 4)],
        [("i", 2, 2), ("j", 2, 1)],
        [("i", 2, None), ("j", 1, None)],
    ]
    assert to_stamps(t).tiles == {
        "glb": "{S[i, j] -> GLB[floor(j / 2), floor(i / 4)]}",
        "rf": "{S[i, j] -> RF[floor(i / 2), floor(j / 1)]}",
    }
    assert not t.partial


def test_tiling_key_ignores_loops_of_one_trip_and_the_points() -> None:
    # j whole at glb (one trip): the orders (i, j) and (j, i) give the same tiles in the same
    # order; the point order never matters.
    a = tiled_nest(("i", "j"), (8, 4), "dram", [("glb", (2, 4), (0, 1))], (0, 1))
    b = tiled_nest(("i", "j"), (8, 4), "dram", [("glb", (2, 4), (1, 0))], (1, 0))
    c = tiled_nest(("i", "j"), (8, 4), "dram", [("glb", (2, 2), (1, 0))], (0, 1))
    assert tiling_key(a) == tiling_key(b) == ((2, 4), (0,))
    assert tiling_key(c) == ((2, 2), (1, 0))


def test_tiling_nested_sizes_divide_outward() -> None:
    # extent 4, two levels: chains (s0, s1) with s1 | s0 | 4: 1-1, 2-1, 2-2, 4-1, 4-2, 4-4.
    assert sorted(s[0] + s[1] for s in nested_sizes([4], 2)) == [
        (1, 1),
        (2, 1),
        (2, 2),
        (4, 1),
        (4, 2),
        (4, 4),
    ]
