"""Storage places per tensor: a tensor stored under other loops than its level's tiles, read
from a peer's mapping into the dataflow's ``places`` and honoured by ``tenet eval``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tenet.metrics.assessment import assess_problem
from tenet.metrics.memory import evaluate_memory
from tenet.model import Problem
from tenet.oracle.tiles import reference_memory
from tenet.peers import ACCELFORGE_UNITS, PeerSearch, evaluate_best
from tenet.peers.accelforge import read_accelforge, write_accelforge
from tenet.peers.files import dump
from tenet.peers.mappers import ACCELFORGE_FILE, ZIGZAG_FILES, accelforge_best, zigzag_best
from tenet.peers.zigzag import (
    ZIGZAG_UNITS,
    port_widths,
    read_zigzag,
    write_zigzag,
    zigzag_operands,
)
from tenet.spec import (
    DataflowSpec,
    Specs,
    load_architecture,
    load_workload,
)

HERE = Path(__file__).parent
PLACES = HERE / "mappings" / "accelforge-gemm-places.yaml"
EXAMPLES = HERE.parent.parent / "examples" / "peers"


def test_places_reader_keeps_every_place_of_a_tensor() -> None:
    imported = read_accelforge(PLACES)
    assert set(imported.nest.above["Z"]) == {"GlobalBuffer", "Register"}
    places = imported.specs.dataflow.places
    assert set(places["GlobalBuffer"]) == {"A", "Z"}
    assert set(places["Register"]) == {"Z"}


def test_places_eval_counts_each_tensor_at_its_place() -> None:
    imported = read_accelforge(PLACES)
    problem = imported.problem
    figures = {(r.level, r.tensor): r for r in evaluate_memory(problem).records}
    # B in the buffer under n (2 tiles of B[6 k, 4 n]): 2 x 24 = |B| = 48, kept across m.
    assert figures[("GlobalBuffer", "B")].fills == 48
    # A under n and m: each of the 4 tiles brings A[4 m, 6 k] = 24: 96 (A read twice).
    assert figures[("GlobalBuffer", "A")].fills == 96
    # B in each of the 4 registers above k, under n and m: a new n tile brings B[6 k, 4 n]
    # (24) to every PE, m changes only A and Z: 2 x 4 x 24 = 192, multicast from the buffer
    # as one read per element and n tile: 2 x 24 = 48.
    assert figures[("Register", "B")].fills == 192
    assert figures[("Register", "B")].reads_parent == 48
    # Z below k in the register: every element written back once, |Z| = 64.
    assert figures[("Register", "Z")].writebacks == 64
    found = assess_problem(problem, imported.nest, figures=["memory"])
    nest = {(r.level, r.tensor): r for r in found.memory.records}
    for key, r in nest.items():
        assert (figures[key].fills, figures[key].writebacks) == (r.fills, r.writebacks), key


def test_places_zigzag_energy_per_bandwidth_max_word() -> None:
    imported = read_zigzag(
        EXAMPLES / "zigzag-gemm-workload.yaml",
        EXAMPLES / "zigzag-accelerator.yaml",
        EXAMPLES / "zigzag-gemm-mapping.yaml",
    )
    levels = {lv.name: lv for lv in imported.specs.architecture.levels}
    # glb: 24 pJ per 64-bit word = 6 pJ per 16-bit element, 4 elements per cycle; dram: 200 pJ
    # per 64-bit word (bandwidth_max; bandwidth_min is 16) = 50 pJ per element.
    assert (levels["glb"].energy_read, levels["glb"].read_bandwidth) == (6.0, 4.0)
    assert levels["dram"].energy_write == 50.0
    ports = {
        "ports": [{"type": "read", "bandwidth_max": 32}, {"type": "write", "bandwidth_max": 8}]
    }
    assert port_widths(ports, "a.yaml", "memories.m") == (32.0, 8.0)


def test_places_accelforge_energy_per_bits_per_action() -> None:
    imported = read_accelforge(EXAMPLES / "accelforge-gemm.yaml")
    levels = {lv.name: lv for lv in imported.specs.architecture.levels}
    # GlobalBuffer: 6 pJ per 64-bit action = 1.5 pJ per 16-bit element; Register: no
    # bits_per_action, AccelForge's default of 1 bit: 1 pJ per bit = 16 pJ per element.
    assert levels["GlobalBuffer"].energy_read == 1.5
    assert levels["Register"].energy_write == 16.0


def test_places_zigzag_mapping_fits_where_zigzag_fits() -> None:
    mappings = HERE / "mappings"
    imported = read_zigzag(
        *(
            mappings / f"zigzag-gemm-k-outer-{part}.yaml"
            for part in ("workload", "accelerator", "mapping")
        )
    )
    memory = evaluate_memory(imported.problem)
    glb = next(s for s in memory.levels if s.level == "glb")
    # The 96-element buffer holds O whole (8 x 8 = 64), I under the k and m tiles (4 rows of m
    # across the PEs x 4 of k = 16) and W under k, m and n (4 of k x 1 of n = 4): 84.
    assert (glb.footprint, memory.violations) == (84, ())


def test_places_oracle_walks_each_tensor_at_its_place() -> None:
    # The brute-force walk reads the places itself: B in the buffer under n only, Z in each
    # register above k; its figures are the hand-derived ones above and tenet's exact ones,
    # and each level's need adds the tensors per tile of the finest place: the register
    # holds B[6 k, 4 n] (24) and Z[m, n] of its PE (4) while each of its tiles runs: 28.
    imported = read_accelforge(PLACES)
    specs = imported.specs
    figures, need = reference_memory(specs.workload, specs.architecture, specs.dataflow)
    assert figures[("GlobalBuffer", "B")].fills == 48
    assert figures[("GlobalBuffer", "A")].fills == 96
    assert (figures[("Register", "B")].fills, figures[("Register", "B")].reads_parent) == (192, 48)
    assert figures[("Register", "Z")].writebacks == 64
    assert need["Register"] == 28
    memory = evaluate_memory(imported.problem)
    for r in memory.records:
        ref = figures[(r.level, r.tensor)]
        got = (r.footprint, r.fills, r.writebacks, r.reads_parent, r.writes_parent)
        assert got == (
            ref.footprint,
            ref.fills,
            ref.writebacks,
            ref.reads_parent,
            ref.writes_parent,
        ), r
    assert {s.level: s.footprint for s in memory.levels} == need


ACCELERATOR = HERE.parents[1] / "benchmarks" / "peers_search" / "accelerator.yaml"
CONV3 = {"RX": 3, "RY": 3}

# The peers' bests on the accelerator of benchmarks/bench_peers_search.py that tenet called
# overflowing (each tensor counted over the tiles of another's place): the benchmark's, and
# ZigZag's latency best of a ResNet-50 stage-4 3x3 layer; each peer's own answer kept: layer, its
# sizes, the answer (ZigZag: spatial and temporal loops, innermost first; AccelForge: its
# mapping nodes, outermost first) and each tensor's elements per PE in the 128-element
# register file, at its own place, by hand.
PEER_BESTS: dict[str, tuple[str, dict[str, int], Any, dict[str, int]]] = {
    # temporal FX 3, K 16 (outermost), OX 14, C 16, FY 3, OY 14; W under FX, K: C's 16 x
    # FY's 3; I under FX, K, OX, C: (14 + 3 - 1) rows; O under FX, K, OX: 14 (old: 3,828,
    # each tensor over the register file's own tiles: 3,584 + 48 + 196)
    "zigzag-resnet-res4-3x3-latency": (
        "conv2d",
        {"K": 256, "C": 256, "OX": 14, "OY": 14, **CONV3},
        {
            "spatial": {"D1": [["C", 16]], "D2": [["K", 16]]},
            "temporal": [["OY", 14], ["RY", 3], ["C", 16], ["OX", 14], ["K", 16], ["RX", 3]],
        },
        {"W": 16 * 3, "I": 16, "O": 14},
    ),
    # temporal C 32, K 32 (outermost), RX 3, RY 3, OY 7, OX 7; W under C, K: its 3 x 3 taps;
    # I under C, K, RX: 7 columns ox + rx x (7 + 3 - 1) rows; O under C, K: 7 x 7 (old: 139,
    # I over every rx: 9 x 9)
    "zigzag-resnet-res5-3x3-latency": (
        "conv2d",
        {"K": 512, "C": 512, "OX": 7, "OY": 7, **CONV3},
        {
            "spatial": {"D1": [["C", 16]], "D2": [["K", 16]]},
            "temporal": [["OX", 7], ["OY", 7], ["RY", 3], ["RX", 3], ["K", 32], ["C", 32]],
        },
        {"W": 3 * 3, "I": 7 * 9, "O": 7 * 7},
    ),
    # temporal C 2, K 512, OY 7, RX 3, RY 3, OX 7; I under C: (7 + 3 - 1)²; W under C, K:
    # 3 x 3; O under C, K, OY: 7 (old: 139)
    "zigzag-resnet-res5-3x3-energy": (
        "conv2d",
        {"K": 512, "C": 512, "OX": 7, "OY": 7, **CONV3},
        {
            "spatial": {"D1": [["C", 16]], "D2": [["C", 16]]},
            "temporal": [["OX", 7], ["RY", 3], ["RX", 3], ["OY", 7], ["K", 512], ["C", 2]],
        },
        {"I": 9 * 9, "W": 3 * 3, "O": 7},
    ),
    # temporal K 8, C 128, RX 3, RY 3, OY 28, OX 2 (16 x 2 = 32 > 28: partial); W under K,
    # C: 3 x 3; I under K, C, RX: 2 columns x (28 + 3 - 1) rows; O under K: 2 x 28 (old: 185)
    "zigzag-resnet-res3-3x3-latency": (
        "conv2d",
        {"K": 128, "C": 128, "OX": 28, "OY": 28, **CONV3},
        {
            "spatial": {"D1": [["OX", 16]], "D2": [["K", 16]]},
            "temporal": [["OX", 2], ["OY", 28], ["RY", 3], ["RX", 3], ["C", 128], ["K", 8]],
        },
        {"W": 3 * 3, "I": 2 * 30, "O": 2 * 28},
    ),
    # temporal OX 2, OY 8, C 128, K 8, OY 7, OX 2; I under OX, OY, C: 2 x 7; O under OX,
    # OY: K's 8 x 2 x 7; W under OX, OY, C, K: 1 (old: 134)
    "zigzag-mobilenet-pw3-energy": (
        "pointwise",
        {"K": 128, "C": 128, "OX": 56, "OY": 56},
        {
            "spatial": {"D1": [["K", 16]], "D2": [["OX", 16]]},
            "temporal": [["OX", 2], ["OY", 7], ["K", 8], ["C", 128], ["OY", 8], ["OX", 2]],
        },
        {"I": 2 * 7, "O": 8 * 2 * 7, "W": 1},
    ),
    # ox in tiles of 4 (the buffer keeps I and O under it); the PEs take 8 c and a 2 x 7
    # block of ox, oy; rf: I under ox's tile: 8 x 2 x 7, O under it and k: 2 x 7, W under
    # those and c: 1 (old: 134, W over c's 8)
    "accelforge-mobilenet-pw3-energy": (
        "pointwise",
        {"K": 128, "C": 128, "OX": 56, "OY": 56},
        [
            {"kind": "Storage", "tensors": ["W", "O", "I"], "component": "dram"},
            {"kind": "Storage", "tensors": ["W"], "component": "buffer"},
            {"kind": "Temporal", "rank_variable": "ox", "tile_shape": 4},
            {"kind": "Storage", "tensors": ["I", "O"], "component": "buffer"},
            {
                "kind": "Spatial",
                "rank_variable": "c",
                "tile_shape": 8,
                "name": "d1",
                "component": "PE",
            },
            {
                "kind": "Spatial",
                "rank_variable": "oy",
                "tile_shape": 7,
                "name": "d0",
                "component": "PE",
            },
            {
                "kind": "Spatial",
                "rank_variable": "ox",
                "tile_shape": 2,
                "name": "d0",
                "component": "PE",
            },
            {"kind": "Storage", "tensors": ["I"], "component": "rf"},
            {"kind": "Temporal", "rank_variable": "k", "tile_shape": 1},
            {"kind": "Storage", "tensors": ["O"], "component": "rf"},
            {"kind": "Temporal", "rank_variable": "c", "tile_shape": 1},
            {"kind": "Storage", "tensors": ["W"], "component": "rf"},
            {"kind": "Temporal", "rank_variable": "ox", "tile_shape": 1},
            {"kind": "Temporal", "rank_variable": "oy", "tile_shape": 1},
            {"kind": "Compute", "einsum": "pointwise", "component": "MAC"},
        ],
        {"I": 8 * 2 * 7, "O": 2 * 7, "W": 1},
    ),
}


@pytest.mark.parametrize("name", sorted(PEER_BESTS))
def test_places_peer_bests_fit_at_each_tensors_place(name: str, tmp_path: Path) -> None:
    # The register file's need is each tensor's tile at its own place, added up at the same
    # moment: what the peer found fits, as the peer says.
    workload_name, params, answer, shares = PEER_BESTS[name]
    workload, architecture = load_workload(workload_name), load_architecture(ACCELERATOR)
    problem = Specs(workload, architecture, None, params)
    if name.startswith("zigzag"):
        documents = write_zigzag(problem)
        links = documents["mapping"][0]["memory_operand_links"]
        documents["mapping"] = zigzag_best({**answer, "links": links})
        paths = [tmp_path / part for part in ZIGZAG_FILES]
        for path in paths:
            path.write_text(ZIGZAG_UNITS + dump(documents[path.stem]))
        imported = read_zigzag(*paths)
        tensors = {v: k for k, v in zigzag_operands(workload).items()}
    else:
        path = tmp_path / ACCELFORGE_FILE
        path.write_text(ACCELFORGE_UNITS + dump(accelforge_best(write_accelforge(problem), answer)))
        imported = read_accelforge(path)
        tensors = {}
    found = PeerSearch("peer", "energy", 0.0, 1, None, None, {}, imported, "", tensors)
    assert evaluate_best(found, workload, architecture, params)["fits"]
    flow = DataflowSpec.from_mapping(found.dataflow())
    memory = evaluate_memory(Problem.from_specs(Specs(workload, architecture, flow, params)))
    assert {r.tensor: r.footprint for r in memory.records if r.level == "rf"} == shares
    assert memory.summary("rf").footprint == sum(shares.values()) <= 128
