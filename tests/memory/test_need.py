"""A level's need with per-tensor places: each tensor's tile at its own place, added up at the
same moment (``docs/memory.md``). By hand on the worked examples of the docs and on a ZigZag
best of a small convolution (its tensors at three places in the register file), against the
tile oracle's literal per-PE buffers on random loop nests and random stamps with places, and
``level_needs`` = ``evaluate_memory``."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tenet.api import load_problem
from tenet.mapping import place_maps, tile_maps, tiled_nest, to_stamps
from tenet.mapping.tile_sizes import divisors
from tenet.metrics.memory import decode_metrics, encode_metrics, evaluate_memory, level_needs
from tenet.oracle.tiles import reference_memory
from tenet.peers.files import dump
from tenet.peers.mappers import ZIGZAG_FILES, zigzag_best
from tenet.peers.specs import Imported
from tenet.peers.zigzag import ZIGZAG_UNITS, read_zigzag, write_zigzag
from tenet.spec import ArchitectureSpec, DataflowSpec, Specs, WorkloadSpec, load_workload
from tenet.testing.strategies import tiled_problems


def _one_buffer(capacity: int | None = None, per_pe: bool = False) -> ArchitectureSpec:
    return ArchitectureSpec.from_mapping(
        {
            "name": "one-buffer",
            "pe": "{PE[p]: 0 <= p < 1}",
            "levels": [
                {"name": "dram"},
                {"name": "rf", "capacity": capacity, "per_pe": per_pe},
            ],
        }
    )


def _needs(
    workload: WorkloadSpec,
    architecture: ArchitectureSpec,
    dataflow: DataflowSpec,
    params: dict[str, int] | None = None,
) -> tuple[dict[str, int], dict[str, int]]:
    """tenet's need per level (``evaluate_memory``, checked against ``level_needs``) and the
    tile oracle's."""
    problem = load_problem(workload, architecture, dataflow, params=params or {})
    memory = evaluate_memory(problem, latency_compute=0)
    counted = {s.level: s.footprint for s in memory.levels}
    needs, fits = level_needs(problem)
    assert needs == {k: v for k, v in counted.items() if k != architecture.levels[0].name}
    assert fits == memory.fits
    _, oracle = reference_memory(workload, architecture, dataflow, params)
    return counted, oracle


def test_need_nested_places_by_hand() -> None:
    # docs/memory.md: GEMM 4³ in one register file, loops i, j, k; C under i and j (1
    # element), A under i (A[i, 0..3]: 4), B above every loop (16). The places nest: the
    # moments are C's 16 tiles, at each 4 + 16 + 1 = 21.
    flow = DataflowSpec.from_mapping(
        {
            "name": "nested",
            "space_stamp": "{S[i, j, k] -> PE[0]}",
            "time_stamp": "{S[i, j, k] -> T[i, j, k]}",
            "places": {
                "rf": {
                    "A": "{S[i, j, k] -> RF[i]}",
                    "B": "{S[i, j, k] -> RF[0]}",
                    "C": "{S[i, j, k] -> RF[i, j]}",
                }
            },
        }
    )
    counted, oracle = _needs(load_workload("gemm"), _one_buffer(), flow, {"M": 4, "N": 4, "K": 4})
    assert counted["rf"] == oracle["rf"] == 4 + 16 + 1


def test_need_places_that_do_not_nest_by_hand() -> None:
    # docs/memory.md: X under floor(i / 2) (tiles {0, 1}, {2, 3}), Y under floor((i + 1) / 2)
    # ({0}, {1, 2}, {3}); the moments i = 0..3 hold 2 + 1, 2 + 2, 2 + 2, 2 + 1: need 4 (not
    # 2 + 3, Y's two tiles during X's first, which Y's buffer never holds together).
    workload = WorkloadSpec.from_mapping(
        {
            "name": "pair",
            "domain": "{S[i]: 0 <= i < 4}",
            "accesses": {"X": {"read": "{S[i] -> X[i]}"}, "Y": {"read": "{S[i] -> Y[i]}"}},
        }
    )
    flow = DataflowSpec.from_mapping(
        {
            "name": "apart",
            "space_stamp": "{S[i] -> PE[0]}",
            "time_stamp": "{S[i] -> T[i]}",
            "places": {
                "rf": {"X": "{S[i] -> RF[floor(i / 2)]}", "Y": "{S[i] -> RF[floor((i + 1) / 2)]}"}
            },
        }
    )
    counted, oracle = _needs(workload, _one_buffer(), flow)
    assert counted["rf"] == oracle["rf"] == 4
    # With 3 elements, the moments i = 1 and i = 2 overflow: X 2 and Y 2.
    problem = load_problem(workload, _one_buffer(3), flow)
    (violation,) = evaluate_memory(problem, latency_compute=0).violations
    assert violation.need == 4 and dict(violation.shares) == {"X": 2, "Y": 2}
    assert violation.message.endswith("needs 4 elements of rf, which holds 3 (X 2, Y 2)")


SMALL_ARRAY = {
    "version": 1,
    "name": "small",
    "pe": "{PE[i, j]: 0 <= i < 2 and 0 <= j < 2}",
    "bits_per_element": 8,
    "energy": {"mac": 1.0},
    "levels": [
        {"name": "dram", "read_bandwidth": 8, "write_bandwidth": 8},
        {"name": "buffer", "capacity_bytes": 128, "read_bandwidth": 64, "write_bandwidth": 64},
        {"name": "rf", "capacity_bytes": 16, "per_pe": True},
    ],
}
"""A 2x2 array of 8-bit MACs, a 128-byte buffer and a 16-byte register file per PE."""

CONV = {"K": 4, "C": 4, "OX": 2, "OY": 3, "RX": 3, "RY": 3}


def _zigzag_conv(tmp_path: Path) -> Imported:
    """ZigZag's mapping of the benchmark's latency best of a 3x3 convolution, scaled down:
    spatial C and K (2 each); temporal, innermost first, OY 3, FY 3, C 2, OX 2, K 2, FX 3,
    each tensor's loops in the register file and the buffer as ZigZag's allocator gives."""
    workload = load_workload("conv2d")
    documents = write_zigzag(
        Specs(workload, ArchitectureSpec.from_mapping(SMALL_ARRAY), None, CONV)
    )
    documents["mapping"] = zigzag_best(
        {
            "spatial": {"D1": [["C", 2]], "D2": [["K", 2]]},
            "temporal": [["OY", 3], ["RY", 3], ["C", 2], ["OX", 2], ["K", 2], ["RX", 3]],
            "links": documents["mapping"][0]["memory_operand_links"],
        }
    )
    paths = [tmp_path / name for name in ZIGZAG_FILES]
    for path in paths:
        path.write_text(ZIGZAG_UNITS + dump(documents[path.stem]))
    return read_zigzag(*paths)


def _specs(imported: Imported, rf: int | None = None) -> tuple[Any, ...]:
    architecture = imported.specs.architecture
    if rf is not None:
        levels = tuple(
            lv.model_copy(update={"capacity": rf, "capacity_bytes": None})
            if lv.name == "rf"
            else lv
            for lv in architecture.levels
        )
        architecture = architecture.model_copy(update={"levels": levels})
    return (imported.specs.workload, architecture, imported.specs.require_dataflow())


def test_need_zigzag_conv_fits_at_each_tensors_place(tmp_path: Path) -> None:
    imported = _zigzag_conv(tmp_path)
    places = imported.specs.require_dataflow().places
    # ZigZag keeps W in the buffer and the register file under FX and K's temporal loop (the
    # register file's own tiles), I in the register file under OX and C's temporal loop
    # too, O under OX: three places, the finest I's.
    assert set(places["rf"]) == {"I", "O", "W"} and set(places["buffer"]) == {"W"}
    workload, architecture, dataflow = _specs(imported)
    counted, oracle = _needs(workload, architecture, dataflow)
    # Per PE (one c // 2 and one k % 2) at each moment: W[k, c, fx, fy] over C's 2 temporal
    # values and FY's 3: 6; I[c, ox + fx, oy + fy] over OY's 3 and FY's 3: 3 + 3 - 1 = 5;
    # O[k, ox, oy] over OY's 3: 3. 6 + 5 + 3 = 14 of the 16 bytes: it fits, as ZigZag says.
    # (Counted per tile of W's place, the register file's tiles, I would add up over OX's 2
    # and C's 2 values, 2 x 2 x 5 = 20, and O over OX's: 6: 32.)
    assert counted["rf"] == oracle["rf"] == 6 + 5 + 3
    # The buffer: I and O whole (4 x 4 x 5 = 80, 4 x 2 x 3 = 24), W under FX and K's temporal
    # loop (K's 2 spatial values x C's 4 x FY's 3 = 24): 128 of 128 bytes.
    assert counted["buffer"] == oracle["buffer"] == 80 + 24 + 24
    problem = load_problem(workload, architecture, dataflow)
    assert evaluate_memory(problem).fits


def test_need_zigzag_conv_overflow_named_per_tensor(tmp_path: Path) -> None:
    # The same mapping on a 13-element register file: each moment needs 14, named with
    # what each tensor holds then; the oracle's need is the same.
    workload, architecture, dataflow = _specs(_zigzag_conv(tmp_path), rf=13)
    memory = evaluate_memory(load_problem(workload, architecture, dataflow))
    (violation,) = memory.violations
    assert (violation.level, violation.need, violation.capacity) == ("rf", 14, 13)
    assert dict(violation.shares) == {"I": 5, "W": 6, "O": 3}
    assert violation.message.endswith("which holds 13 (I 5, W 6, O 3)")
    _, oracle = reference_memory(workload, architecture, dataflow)
    assert oracle["rf"] == 14
    # the results store keeps the shares
    assert decode_metrics(json.loads(json.dumps(encode_metrics(memory)))) == memory


GEMM_ARRAY = ArchitectureSpec.from_mapping(
    {
        "name": "nest",
        "pe": "{PE[i, j]: 0 <= i < 2 and 0 <= j < 2}",
        "levels": [{"name": "dram"}, {"name": "glb"}, {"name": "rf", "per_pe": True}],
    }
)


@st.composite
def placed_nests(draw: st.DrawFn) -> Specs:
    """Draw a small GEMM or convolution on 2x2 PEs (two loops' low digits) whose buffer and
    register file (per PE or not) are tiled by a loop nest of random nested divisors and
    orders, each tensor stored at each level above any number of the nest's loops (never
    fewer at the register file than at the buffer, often more than the register file's own
    tiles)."""
    if draw(st.booleans()):
        workload = load_workload("gemm")
        params = {p: draw(st.integers(1, 4)) for p in ("M", "N", "K")}
        dims, extents = ("i", "j", "k"), (params["M"], params["N"], params["K"])
    else:
        workload = load_workload("conv2d")
        params = {
            "K": draw(st.integers(1, 2)),
            "C": draw(st.integers(1, 2)),
            "OX": draw(st.integers(1, 3)),
            "OY": draw(st.integers(1, 2)),
            "RX": draw(st.integers(1, 3)),
            "RY": 1,
        }
        dims = ("k", "c", "ox", "oy", "rx", "ry")
        extents = tuple(params[d] for d in ("K", "C", "OX", "OY", "RX", "RY"))
    spread = draw(st.permutations(range(len(dims))))[:2]
    bands = []
    outside = extents
    for level in ("glb", "rf"):
        sizes = tuple(draw(st.sampled_from(divisors(o))) for o in outside)
        bands.append((level, sizes, tuple(draw(st.permutations(range(len(dims)))))))
        outside = sizes
    nest = tiled_nest(dims, extents, "dram", bands, tuple(range(len(dims))))
    deepest = len(nest.loops())
    above: dict[str, dict[str, int]] = {}
    for tensor in workload.accesses:
        if draw(st.booleans()):
            glb = draw(st.integers(0, deepest))
            # often inside the register file's own band, as the peers place tensors
            inner = max(glb, nest.boundary("rf"))
            rf = draw(st.one_of(st.integers(glb, deepest), st.integers(inner, deepest)))
            above[tensor] = {"glb": glb, "rf": rf}
    stamps = to_stamps(replace(nest, above=above))
    loops = ", ".join(dims)
    pe = ", ".join(f"{dims[d]} % 2" for d in spread)
    time = ", ".join(f"floor({d} / 2)" if k in spread else d for k, d in enumerate(dims))
    dataflow = DataflowSpec.from_mapping(
        {
            "name": "nest",
            "space_stamp": f"{{S[{loops}] -> PE[{pe}]}}",
            "time_stamp": f"{{S[{loops}] -> T[{time}]}}",
            "tiles": stamps.tiles,
            "places": stamps.places,
        }
    )
    per_pe = draw(st.booleans())
    levels = tuple(
        lv.model_copy(update={"per_pe": per_pe}) if lv.name == "rf" else lv
        for lv in GEMM_ARRAY.levels
    )
    architecture = GEMM_ARRAY.model_copy(update={"levels": levels})
    return Specs(workload, architecture, dataflow, params)


@settings(max_examples=60)
@given(placed_nests())
def test_need_of_nests_with_places_equals_oracle(
    drawn: Specs,
) -> None:
    counted, oracle = _needs(
        drawn.workload, drawn.architecture, drawn.require_dataflow(), drawn.params
    )
    assert counted == oracle


@settings(max_examples=60)
@given(tiled_problems(places=True))
def test_need_of_random_places_equals_oracle(drawn: Specs) -> None:
    # random stamps: places that nest or not, per-PE levels, non-dividing tiles
    counted, oracle = _needs(
        drawn.workload, drawn.architecture, drawn.require_dataflow(), drawn.params
    )
    assert counted == oracle


def test_need_level_needs_takes_the_nests_places() -> None:
    # level_needs with a nest's tiles and places as arguments (the searches' path) gives the
    # need of the dataflow that carries them: GEMM 4³, register file over single instances
    # in the order (i, j, k), A above k, B and C above j and k.
    nest = tiled_nest(("i", "j", "k"), (4, 4, 4), "dram", [("rf", (1, 1, 1), (0, 1, 2))], (0, 1, 2))
    placed = replace(nest, above={"A": {"rf": 2}, "B": {"rf": 1}, "C": {"rf": 1}})
    flow = DataflowSpec(
        name="s", space_stamp="{S[i, j, k] -> PE[0]}", time_stamp="{S[i, j, k] -> T[i, j, k]}"
    )
    problem = load_problem("gemm", _one_buffer(), flow, {"M": 4, "N": 4, "K": 4})
    needs, _ = level_needs(problem, tile_maps(placed), place_maps(placed))
    # At moment (i, j, k): A[i, 0..3] (4), B whole (16), C[i, 0..3] (4).
    assert needs == {"rf": 4 + 16 + 4}
    stamps = to_stamps(placed)
    with_places = flow.model_copy(update={"tiles": stamps.tiles, "places": stamps.places})
    counted, oracle = _needs(
        load_workload("gemm"), _one_buffer(), with_places, {"M": 4, "N": 4, "K": 4}
    )
    assert counted["rf"] == oracle["rf"] == 24
