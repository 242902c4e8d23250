"""The peers' own searches run from tenet: the input files written without a mapping are what
each peer expects, a canned best of each peer reads back into a dataflow that tenet evaluates
(figures by hand), ZigZag's allocation of loops to memories is the peer's, a time budget
stops the peer. Tests marked ``peers`` run both searches on a small GEMM, by latency and by
energy, and round-trip each best: imported, counted against the peer's own counts, exported
back by tenet's writers and evaluated by the peer again, its DRAM figures tenet's."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import islpy as isl
import pytest

from tenet import load_specs
from tenet.peers import (
    ACCELFORGE_UNITS,
    ZIGZAG_UNITS,
    PeerSearch,
    evaluate_best,
    search_peer,
)
from tenet.peers.accelforge import read_accelforge, write_accelforge
from tenet.peers.compare import (
    PeerError,
    _run,
    compare_accelforge,
    compare_zigzag,
    run_accelforge,
    run_zigzag,
)
from tenet.peers.files import dump, write_specs
from tenet.peers.mappers import (
    ACCELFORGE_FILE,
    ZIGZAG_FILES,
    PeerObjective,
    accelforge_best,
    zigzag_best,
)
from tenet.peers.specs import Imported
from tenet.peers.zigzag import (
    LayerMapping,
    allocate,
    read_accelerator,
    read_layer,
    read_zigzag,
    read_zigzag_mapping,
    write_zigzag,
)
from tenet.spec import ArchitectureSpec, Specs, load_workload
from tests.peers.test_roundtrip import _check_rows, _elements

GEMM = {"M": 32, "N": 32, "K": 32}

SMALL = ArchitectureSpec.from_mapping(
    {
        "version": 1,
        "name": "small",
        "pe": "{PE[i, j]: 0 <= i < 4 and 0 <= j < 4}",
        "bits_per_element": 8,
        "energy": {"mac": 1.0},
        "levels": [
            {
                "name": "dram",
                "read_bandwidth": 8,
                "write_bandwidth": 8,
                "energy_read": 100,
                "energy_write": 100,
            },
            {
                "name": "buffer",
                "capacity_bytes": 1024,
                "read_bandwidth": 16,
                "write_bandwidth": 16,
                "energy_read": 10,
                "energy_write": 10,
            },
            {
                "name": "rf",
                "capacity_bytes": 16,
                "per_pe": True,
                "energy_read": 1,
                "energy_write": 1,
            },
        ],
    }
)
"""The benchmark's accelerator made small: a 4x4 array, a 1 KiB buffer, 16-byte registers."""

# ZigZag's best of a latency search of gemm 32x32x32 on SMALL (its own answer, kept).
ZIGZAG_ANSWER: dict[str, Any] = {
    "spatial": {"D1": [["K", 4]], "D2": [["J", 4]]},
    "temporal": [["J", 4], ["J", 2], ["K", 4], ["K", 2], ["I", 4], ["I", 8]],
    "links": {"O": "O", "W": "I2", "I": "I1"},
}

# AccelForge's best of a latency search of the same (its own mapping nodes, kept).
ACCELFORGE_NODES: list[dict[str, Any]] = [
    {"kind": "Storage", "tensors": ["C", "B", "A"], "component": "dram"},
    {"kind": "Temporal", "rank_variable": "k", "tile_shape": 16},
    {"kind": "Storage", "tensors": ["A"], "component": "buffer"},
    {"kind": "Temporal", "rank_variable": "j", "tile_shape": 4},
    {"kind": "Storage", "tensors": ["B"], "component": "buffer"},
    {"kind": "Temporal", "rank_variable": "i", "tile_shape": 2},
    {"kind": "Storage", "tensors": ["C"], "component": "buffer"},
    {"kind": "Spatial", "rank_variable": "k", "tile_shape": 8, "name": "d1", "component": "PE"},
    {"kind": "Spatial", "rank_variable": "i", "tile_shape": 1, "name": "d1", "component": "PE"},
    {"kind": "Spatial", "rank_variable": "k", "tile_shape": 2, "name": "d0", "component": "PE"},
    {"kind": "Storage", "tensors": ["A"], "component": "rf"},
    {"kind": "Temporal", "rank_variable": "j", "tile_shape": 1},
    {"kind": "Storage", "tensors": ["B", "C"], "component": "rf"},
    {"kind": "Temporal", "rank_variable": "k", "tile_shape": 1},
    {"kind": "Compute", "einsum": "gemm", "component": "MAC"},
]


def _problem() -> Specs:
    return Specs(load_workload("gemm"), SMALL, None, GEMM)


def _zigzag_files(tmp_path: Path, answer: dict[str, Any]) -> list[Path]:
    documents = write_zigzag(_problem())
    documents["mapping"] = zigzag_best(answer)
    paths = [tmp_path / name for name in ZIGZAG_FILES]
    for path in paths:
        path.write_text(ZIGZAG_UNITS + dump(documents[path.stem]))
    return paths


def _equal(a: str, b: str) -> bool:
    return bool(isl.Map(a).is_equal(isl.Map(b)))


def test_zigzag_input_without_mapping() -> None:
    docs = write_zigzag(_problem())
    # The mapping leaves the spatial mapping and the temporal ordering to ZigZag's search.
    assert docs["mapping"] == [
        {"name": "default", "memory_operand_links": {"O": "O", "W": "I2", "I": "I1"}}
    ]
    (layer,) = docs["workload"]
    assert layer["equation"] == "O[i][j]+=I[i][k]*W[k][j]"
    assert (layer["loop_dims"], layer["loop_sizes"]) == (["I", "J", "K"], [32, 32, 32])
    memories = docs["accelerator"]["memories"]
    # Innermost first, with tenet's level names; sizes in bits (16 B, 1 KiB).
    assert list(memories) == ["rf", "buffer", "dram"]
    assert (memories["rf"]["size"], memories["buffer"]["size"]) == (128, 8192)
    assert memories["rf"]["served_dimensions"] == []
    assert memories["buffer"]["served_dimensions"] == ["D1", "D2"]
    assert docs["accelerator"]["operational_array"]["sizes"] == [4, 4]


def test_zigzag_input_plain_subscripts() -> None:
    # Pointwise's I[c, 1 * ox, 1 * oy]: unit coefficients are plain loop indices for ZigZag.
    docs = write_zigzag(Specs(load_workload("pointwise"), SMALL, None, {"OX": 4, "OY": 4}))
    assert docs["workload"][0]["equation"] == "O[k][ox][oy]+=I[c][ox][oy]*W[k][c]"


def test_accelforge_input_without_mapping() -> None:
    doc = write_accelforge(_problem())
    assert "mapping" not in doc
    nodes = doc["arch"]["nodes"]
    assert [(n["kind"], n["name"]) for n in nodes] == [
        ("Memory", "dram"),
        ("Memory", "buffer"),
        ("Container", "PE"),
        ("Memory", "rf"),
        ("Compute", "MAC"),
    ]
    # Each memory keeps what its tenet level holds (every tensor); a MAC per PE and cycle.
    assert all(n["tensors"] == {"keep": "A | B | C"} for n in nodes if n["kind"] == "Memory")
    assert nodes[-1]["actions"][0]["throughput"] == 1
    assert nodes[2]["spatial"] == [{"name": "d0", "fanout": 4}, {"name": "d1", "fanout": 4}]
    assert doc["workload"]["iteration_space_shape"] == {
        "i": "0 <= i < 32",
        "j": "0 <= j < 32",
        "k": "0 <= k < 32",
    }


def test_zigzag_best_allocation_is_zigzags(tmp_path: Path) -> None:
    # ZigZag's own allocation of this ordering (its mapping_dic_origin): rf holds O's 4
    # innermost loops, I's 3, W's 1; the buffer O's 5, I's 5, W's 3; DRAM the rest.
    workload, accelerator, mapping = _zigzag_files(tmp_path, ZIGZAG_ANSWER)
    layer = read_layer(workload)
    _, memories, _, _ = read_accelerator(accelerator)
    spatial, temporal, links = read_zigzag_mapping(mapping, layer)
    placed = LayerMapping(layer, memories, spatial, [(d, int(s or 1)) for d, s in temporal], links)
    assert allocate(placed) == {
        "rf": {"I": 3, "W": 1, "O": 4},
        "buffer": {"I": 5, "W": 3, "O": 5},
        "dram": {"I": 6, "W": 6, "O": 6},
    }


def test_zigzag_best_reads_and_evaluates(tmp_path: Path) -> None:
    paths = _zigzag_files(tmp_path, ZIGZAG_ANSWER)
    imported = read_zigzag(*paths)
    flow = imported.specs.require_dataflow()
    # k = 16 k2 + 4 p0 + k4 (K, 4 on D1 between K4 and K2), j = 8 p1 + 4 j2 + j4.
    assert _equal(flow.space_stamp, "{S[i, j, k] -> PE[floor(k / 4) mod 4, floor(j / 8)]}")
    assert _equal(
        flow.time_stamp,
        "{S[i, j, k] -> T[floor(i / 4), i mod 4, floor(k / 16), k mod 4, "
        "floor(j / 4) mod 2, j mod 4]}",
    )
    search = PeerSearch(
        "zigzag", "latency", 0.0, 1, None, None, {}, imported, "", {"O": "C", "I": "A", "W": "B"}
    )
    assert set(search.dataflow()["places"]["rf"]) == {"A", "B", "C"}
    figures = evaluate_best(search, load_workload("gemm"), SMALL, GEMM)
    # DRAM: C's 32x32 written back once (one buffer tile per i-block of 4), A's 32x32 read
    # once; B's buffer tile (16 k x 32 j) alternates between its two k-halves under the 32
    # i-blocks: 32 x 2 x 512. DRAM-bound: (1024 + 1024 + 32768) / 8 cycles.
    assert figures["traffic_dram_elements"] == 1024 + 1024 + 32768
    assert figures["latency_cycles"] == (1024 + 1024 + 32768) // 8
    assert figures["fits"]


def test_accelforge_best_reads_and_evaluates(tmp_path: Path) -> None:
    spec = tmp_path / ACCELFORGE_FILE
    document = accelforge_best(write_accelforge(_problem()), ACCELFORGE_NODES)
    spec.write_text(ACCELFORGE_UNITS + dump(document))
    imported = read_accelforge(spec)
    # k = 16 k1 + 8 (d1) + 2 (d0) + k0; i = 2 i1 + (d1); the d1 axis mixes k's and i's digits.
    assert _equal(
        imported.specs.require_dataflow().space_stamp,
        "{S[i, j, k] -> PE[floor(k / 2) mod 4, 2 * (floor(k / 8) mod 2) + i mod 2]}",
    )
    search = PeerSearch("accelforge", "latency", 0.0, 1, None, None, {}, imported)
    figures = evaluate_best(search, load_workload("gemm"), SMALL, GEMM)
    # DRAM: A (32x32) and B read once each, C's partial sums written back per k-half (2 x
    # 1024) and read back once for the second half (1024). 32768 MACs on 16 busy PEs: 2048
    # cycles, more than DRAM's 5120 / 8.
    assert figures["traffic_dram_elements"] == 1024 + 1024 + 2048 + 1024
    assert figures["latency_cycles"] == 2048


def test_evaluate_best_needs_the_levels(tmp_path: Path) -> None:
    paths = _zigzag_files(tmp_path, ZIGZAG_ANSWER)
    search = PeerSearch(
        "zigzag",
        "latency",
        0.0,
        1,
        None,
        None,
        {},
        read_zigzag(*paths),
        "",
        {"O": "C", "I": "A", "W": "B"},
    )
    other = SMALL.model_copy(
        update={
            "levels": tuple(lv.model_copy(update={"name": f"x{lv.name}"}) for lv in SMALL.levels)
        }
    )
    with pytest.raises(PeerError, match="levels buffer, rf are not small's"):
        evaluate_best(search, load_workload("gemm"), other, GEMM)
    empty = PeerSearch("zigzag", "latency", 1.0, None, None, None, reason="no result in 1 CPU-s")
    with pytest.raises(PeerError, match="no result in 1 CPU-s"):
        empty.dataflow()


def test_time_budget_stops_the_peer() -> None:
    with pytest.raises(PeerError, match="no result in 1 CPU-s"):
        _run(sys.executable, "while True: pass", [], "spin", budget=1)


def test_search_without_peer() -> None:
    with pytest.raises(PeerError, match="not installed"):
        search_peer("zigzag", None, load_workload("gemm"), SMALL, GEMM)


def test_search_of_an_unknown_peer() -> None:
    with pytest.raises(ValueError, match="expected 'zigzag' or 'accelforge', not 'timeloop'"):
        search_peer("timeloop", None, load_workload("gemm"), SMALL, GEMM)  # type: ignore[arg-type]


def test_search_by_an_unknown_objective() -> None:
    with pytest.raises(ValueError, match="expected 'latency' or 'energy', not 'power'"):
        search_peer("zigzag", None, load_workload("gemm"), SMALL, GEMM, objective="power")  # type: ignore[arg-type]


def _specs_back(imported: Imported, directory: Path) -> Specs:
    """The specs of an imported best as tenet writes them (``tenet import``) and reads them."""
    write_specs(directory, imported.documents())
    parts = ("workload", "architecture", "dataflow")
    return load_specs(*(str(directory / f"{k}.yaml") for k in parts))


@pytest.mark.peers
@pytest.mark.parametrize("objective", ["latency", "energy"])
def test_search_zigzag_small(peers_python: str, tmp_path: Path, objective: PeerObjective) -> None:
    workload = load_workload("gemm")
    # One spatial mapping (ZigZag's most utilising) keeps the search short.
    found = search_peer(
        "zigzag", peers_python, workload, SMALL, GEMM, objective=objective, spatial_mappings=1
    )
    assert found.imported is not None, found.reason
    assert found.evaluations and found.evaluations > 0 and found.cpu_seconds > 0
    paths = [str(p) for p in found.write(tmp_path)]
    assert read_zigzag(*paths).specs.dataflow == found.imported.specs.dataflow
    # ZigZag on the written files: the same mapping (its energy), the same allocation.
    peer = run_zigzag(peers_python, *paths)
    assert peer["energy"] == pytest.approx(found.energy, rel=1e-9)
    layer = read_layer(paths[0])
    _, memories, _, _ = read_accelerator(paths[1])
    spatial, temporal, links = read_zigzag_mapping(paths[2], layer)
    placed = LayerMapping(layer, memories, spatial, [(d, int(s or 1)) for d, s in temporal], links)
    theirs: dict[str, dict[str, int]] = {}
    for op, names in peer["levels"].items():
        total = 0
        for name, loops in zip(names, peer["loops"][op], strict=True):
            total += len(loops)
            theirs.setdefault(name, {})[op] = total
    assert allocate(placed) == theirs
    rows = compare_zigzag(peers_python, *paths)
    _check_rows(found.imported, rows)
    figures = evaluate_best(found, workload, SMALL, GEMM)
    assert figures["fits"]
    dram = [r for r in rows if r.level == "dram"]
    assert figures["traffic_dram_elements"] == sum(r.reads + r.writes for r in dram)
    if all((r.reads, r.writes) == (r.reads_peer, r.writes_peer) for r in dram):
        assert figures["traffic_dram_elements"] == sum(r.reads_peer + r.writes_peer for r in dram)
    # Exported back (tenet's specs of the best, written by tenet's exporter): ZigZag keeps
    # the same loops in the same memories and moves the same data, DRAM's as tenet counts it.
    back = tmp_path / "back"
    write_specs(back, write_zigzag(_specs_back(found.imported, tmp_path / "specs")), ZIGZAG_UNITS)
    exported = [str(back / name) for name in ZIGZAG_FILES]
    again = run_zigzag(peers_python, *exported)
    assert (again["levels"], again["loops"], again["moves"]) == (
        peer["levels"],
        peer["loops"],
        peer["moves"],
    )
    dram_back = [r for r in compare_zigzag(peers_python, *exported) if r.level == "dram"]
    assert [(r.tensor, r.reads_peer, r.writes_peer) for r in dram_back] == [
        (r.tensor, r.reads_peer, r.writes_peer) for r in dram
    ]
    assert figures["traffic_dram_elements"] == sum(r.reads + r.writes for r in dram_back)


@pytest.mark.peers
@pytest.mark.parametrize("objective", ["latency", "energy"])
def test_search_accelforge_small(
    peers_python: str, tmp_path: Path, objective: PeerObjective
) -> None:
    workload = load_workload("gemm")
    found = search_peer("accelforge", peers_python, workload, SMALL, GEMM, objective=objective)
    assert found.imported is not None, found.reason
    assert found.evaluations and found.evaluations > 0 and found.cpu_seconds > 0
    (path,) = found.write(tmp_path)
    assert read_accelforge(path).specs.dataflow == found.imported.specs.dataflow
    rows = compare_accelforge(peers_python, str(path))
    _check_rows(found.imported, rows)
    # AccelForge's energy of its best is tenet's counts under its rules (refetch, the
    # partial-sum reads); its latency, one MAC per PE and cycle or a level's accesses over
    # its throughput, is tenet's.
    assert rows.energy_refetch is not None
    assert rows.energy_refetch + rows.energy_sums == pytest.approx(found.energy, rel=1e-3)
    figures = evaluate_best(found, workload, SMALL, GEMM)
    assert figures["latency_cycles"] == found.latency
    assert figures["fits"]
    # Exported back (tenet's specs of the best, written by tenet's exporter): AccelForge
    # counts the same actions at every level, DRAM's as tenet counts them.
    exported = tmp_path / "exported.yaml"
    specs = _specs_back(found.imported, tmp_path / "specs")
    exported.write_text(ACCELFORGE_UNITS + dump(write_accelforge(specs)))
    original, again = (
        run_accelforge(peers_python, str(path)),
        run_accelforge(peers_python, str(exported)),
    )
    assert _elements(str(exported), again["actions"]) == _elements(str(path), original["actions"])
    assert again["energy"] == pytest.approx(original["energy"], rel=1e-3)
    dram = [r for r in compare_accelforge(peers_python, str(exported)) if r.level == "dram"]
    assert all((r.reads, r.writes) == (r.reads_peer, r.writes_peer) for r in dram), dram
    assert figures["traffic_dram_elements"] == sum(r.reads_peer + r.writes_peer for r in dram)


@pytest.mark.peers
def test_search_time_budget(peers_python: str) -> None:
    found = search_peer(
        "accelforge", peers_python, load_workload("gemm"), SMALL, GEMM, time_budget=1
    )
    assert (found.imported, found.evaluations) == (None, None)
    assert found.reason == "accelforge: no result in 1 CPU-s"
    assert found.cpu_seconds > 0
