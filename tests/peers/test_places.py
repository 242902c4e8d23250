"""Storage places per tensor: a tensor stored under other loops than its level's tiles, read
from a peer's mapping into the dataflow's ``places`` and honoured by ``tenet eval``."""

from __future__ import annotations

from pathlib import Path

from tenet.metrics.memory import evaluate_memory
from tenet.oracle.tiles import reference_memory
from tenet.peers.accelforge import read_accelforge
from tenet.peers.loopnest import evaluate_nest
from tenet.peers.zigzag import port_widths, read_zigzag

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
    nest = {(r.level, r.tensor): r for r in evaluate_nest(problem, imported.nest)}
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
