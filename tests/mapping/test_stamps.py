"""Loop nests written as stamps: the texts of hand-made nests (mixed radix, partial tiles, skew,
per-PE levels), and their kept tensors through the dataflow's YAML and back."""

from __future__ import annotations

from pathlib import Path

import islpy as isl
import pytest
import yaml

from tenet.errors import SpecError
from tenet.mapping import (
    LevelLoops,
    Loop,
    LoopNest,
    Stamps,
    dataflow_spec,
    from_stamps,
    tensor_tiles,
    to_stamps,
)
from tenet.spec import load_dataflow

GEMM = ("i", "j", "k")


def test_stamps_mixed_radix_axis() -> None:
    # PE axis 0 runs k (2 trips, outer digit) then i (4 trips): PE = 4 * (k mod 2) + i.
    nest = LoopNest(
        ("i", "k"),
        (4, 6),
        (
            LevelLoops("dram", (Loop("k", 3),)),
            LevelLoops("glb", (Loop("k", 2, spatial=0), Loop("i", 4, spatial=0))),
        ),
    )
    s = to_stamps(nest)
    assert s.space_stamp == "{S[i, k] -> PE[4 * ((k) % 2) + i]}"
    assert s.time_stamp == "{S[i, k] -> T[floor(k / 2)]}"
    assert s.tiles == {"glb": "{S[i, k] -> GLB[floor(k / 2)]}"}


def test_stamps_partial_tile_takes_the_remainder() -> None:
    # extent 10, inner tiles of 4: the outer loop runs ceil(10 / 4) = 3 trips (last tile: 2).
    nest = LoopNest(("i",), (10,), (LevelLoops("dram", (Loop("i", 3), Loop("i", 4))),))
    assert nest.tile_sizes("dram") == (10,)
    time = isl.Map(to_stamps(nest).time_stamp).intersect_domain(isl.Set("{S[i]: 0 <= i < 10}"))
    assert time.range().is_equal(
        isl.Set("{T[a, b]: 0 <= a <= 1 and 0 <= b < 4; T[2, b]: 0 <= b < 2}")
    )


def test_stamps_skew_adds_the_pe_to_the_last_time_dimension() -> None:
    # The systolic output-stationary GEMM on 2x2: PE[i, j], T[i + j + k].
    nest = LoopNest(
        GEMM,
        (2, 2, 3),
        (LevelLoops("dram", (Loop("i", 2, spatial=0), Loop("j", 2, spatial=1), Loop("k", 3))),),
        skew=(1, 1),
    )
    s = to_stamps(nest)
    expected = isl.Map("{S[i, j, k] -> T[i + j + k]}")
    assert isl.Map(s.time_stamp).is_equal(expected)
    assert isl.Map(s.space_stamp).is_equal(isl.Map("{S[i, j, k] -> PE[i, j]}"))


def test_stamps_tensor_tiles_honour_above() -> None:
    # A is stored above dram's inner loop j: its glb tile stamp lists only k.
    nest = LoopNest(
        GEMM,
        (2, 2, 2),
        (
            LevelLoops("dram", (Loop("k", 2), Loop("j", 2))),
            LevelLoops("glb", (Loop("i", 2),)),
        ),
        above={"A": {"glb": 1}},
    )
    assert tensor_tiles(nest, "A") == {"glb": "{S[i, j, k] -> GLB[k]}"}
    assert tensor_tiles(nest, "B") == {"glb": "{S[i, j, k] -> GLB[k, j]}"}


def test_stamps_per_pe_level_below_spatial_loops() -> None:
    nest = LoopNest(
        ("i", "j"),
        (4, 3),
        (
            LevelLoops("dram", (Loop("j", 3),)),
            LevelLoops("glb", (Loop("i", 2, spatial=0), Loop("i", 2))),
            LevelLoops("rf"),
        ),
        per_pe=frozenset({"rf"}),
    )
    s = to_stamps(nest)
    assert s.space_stamp == "{S[i, j] -> PE[floor(i / 2)]}"
    assert s.tiles == {"glb": "{S[i, j] -> GLB[j]}", "rf": "{S[i, j] -> RF[(i) % 2]}"}
    assert nest.tile_sizes("rf") == (1, 1)
    assert nest.tile_sizes("glb") == (4, 1)


def test_stamps_keep_survives_the_dataflow_yaml(tmp_path: Path) -> None:
    # glb keeps A and C (B bypasses it), rf every tensor: the stamps, the dataflow's YAML
    # (``keep:``) and the nest read back from them say so.
    nest = LoopNest(
        GEMM,
        (4, 2, 4),
        (
            LevelLoops("dram", (Loop("k", 2),)),
            LevelLoops("glb", (Loop("i", 2, spatial=0), Loop("j", 2)), frozenset("CA")),
            LevelLoops("rf", (Loop("i", 2), Loop("k", 2))),
        ),
        per_pe=frozenset({"rf"}),
    )
    assert to_stamps(nest).keep == {"glb": ("A", "C")}
    path = tmp_path / "kept.yaml"
    document = dataflow_spec(nest, "kept").model_dump(mode="json", exclude_none=True)
    path.write_text(yaml.safe_dump(document))
    spec = load_dataflow(str(path))
    assert spec.keep == {"glb": ("A", "C")}
    stamps = Stamps(spec.space_stamp, spec.time_stamp, spec.tiles, spec.places, spec.keep)
    domain = isl.Set("{S[i, j, k]: 0 <= i < 4 and 0 <= j < 2 and 0 <= k < 4}")
    back = from_stamps(stamps, domain, ["dram", "glb", "rf"], per_pe={"rf"}, pe_extents=[2])
    assert back == nest


def test_stamps_keep_at_the_outermost_level_is_refused() -> None:
    nest = LoopNest(("i",), (2,), (LevelLoops("dram", (Loop("i", 2),), frozenset("A")),))
    with pytest.raises(SpecError, match="m.yaml: dram.keep: the outermost level 'dram' holds"):
        to_stamps(nest, "m.yaml")
