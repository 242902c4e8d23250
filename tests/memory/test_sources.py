"""Where a per-PE level's fills come from (a linked PE's instance or the parent) and what the
parent serves after the network's multicast and reduction: hand derivations, the reductions
to today's figures and to TENET's unique volume, and the brute-force oracle."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings

from tenet.api import analyze, load_problem
from tenet.metrics.memory import LevelTensor, evaluate_memory
from tenet.oracle.tiles import reference_memory
from tenet.spec import ArchitectureSpec, DataflowSpec, Specs, load_architecture, load_dataflow
from tenet.testing.strategies import tiled_problems
from tests.conftest import run
from tests.memory import GEMM_TILED, LINE4, gemm_tiled_on

M, N, K = 3, 4, 5
SIZES = {"M": M, "N": N, "K": K}


def _line(
    links: list[dict[str, object]], multicast: bool = True, reduction: bool = True, pes: int = N
) -> ArchitectureSpec:
    """A line of ``pes`` PEs: DRAM, a shared buffer, a per-PE register file."""
    return ArchitectureSpec.from_mapping(
        {
            "name": "line",
            "pe": f"{{PE[p]: 0 <= p < {pes}}}",
            "interconnect": links,
            "levels": [
                {"name": "dram"},
                {"name": "glb"},
                {
                    "name": "rf",
                    "per_pe": True,
                    "network": {"multicast": multicast, "reduction": reduction},
                },
            ],
        }
    )


def _flow(space: str, time: str) -> DataflowSpec:
    """A GEMM dataflow whose register file holds one time-stamp's data at a time."""
    return DataflowSpec.from_mapping(
        {"name": "f", "space_stamp": space, "time_stamp": time, "tiles": {"rf": time}}
    )


SYSTOLIC = [{"link": "{PE[p] -> PE[p + 1]}", "delay": 1}]
BUS = [{"link": "{PE[p] -> PE[q]: q != p}", "delay": 0}]
# j on the PEs; A[i, k] enters PE 0 at step k and moves one PE a step (skewed time).
SKEWED = _flow("{S[i, j, k] -> PE[j]}", "{S[i, j, k] -> T[i, k + j]}")
# j on the PEs; every PE takes A[i, k] in the same step (rectangular time).
RECTANGULAR = _flow("{S[i, j, k] -> PE[j]}", "{S[i, j, k] -> T[i, k]}")
# k on the PEs: the K partial sums of C[i, j] are written in the same step.
REDUCING = _flow("{S[i, j, k] -> PE[k]}", "{S[i, j, k] -> T[i, j]}")


def _rf(architecture: ArchitectureSpec, dataflow: DataflowSpec, tensor: str) -> LevelTensor:
    """The register file's figures of ``tensor`` for GEMM M×N×K."""
    p = load_problem("gemm", architecture, dataflow, params=SIZES)
    return evaluate_memory(p, latency_compute=0).record("rf", tensor)


def test_sources_systolic_forwarding_by_hand() -> None:
    # PE j holds A[i, k] at step (i, k + j); PE j - 1 held it one step earlier: only PE 0
    # takes A from the buffer. B[k, j] is never held by the PE before: every fill is the
    # buffer's, one element per PE and step (nothing to multicast).
    a = _rf(_line(SYSTOLIC), SKEWED, "A")
    assert (a.fills, a.fills_neighbour, a.fills_parent) == (M * N * K, M * (N - 1) * K, M * K)
    assert a.reads_parent == M * K
    b = _rf(_line(SYSTOLIC), SKEWED, "B")
    assert (b.fills_neighbour, b.fills_parent, b.reads_parent) == (0, M * N * K, M * N * K)


def test_sources_multicast_network_by_hand() -> None:
    # all N PEs take A[i, k] in step (i, k): N fills from the buffer, one read if it multicasts
    a = _rf(_line([]), RECTANGULAR, "A")
    assert (a.fills_neighbour, a.fills_parent, a.reads_parent) == (0, M * N * K, M * K)
    unicast = _rf(_line([], multicast=False), RECTANGULAR, "A")
    assert unicast.reads_parent == M * N * K


def test_sources_same_step_bus_by_hand() -> None:
    # over a same-step bus PE 0 takes A[i, k] from the buffer and the N - 1 others from it
    a = _rf(_line(BUS, multicast=False), RECTANGULAR, "A")
    assert (a.fills_neighbour, a.fills_parent, a.reads_parent) == (M * (N - 1) * K, M * K, M * K)


def test_sources_spatial_reduction_by_hand() -> None:
    # PE k writes its partial sum of C[i, j] back in step (i, j): K writebacks, one write when
    # the network reduces them
    arch = _line([], pes=K)
    c = _rf(arch, REDUCING, "C")
    assert (c.writebacks, c.writes_parent) == (M * N * K, M * N)
    plain = _rf(_line([], reduction=False, pes=K), REDUCING, "C")
    assert plain.writes_parent == M * N * K


@pytest.mark.parametrize("dataflow", [SKEWED, RECTANGULAR, REDUCING])
def test_sources_unicast_without_links_is_todays_figures(dataflow: DataflowSpec) -> None:
    p = load_problem("gemm", _line([], False, False, pes=K), dataflow, params=SIZES)
    for r in evaluate_memory(p, latency_compute=0).records:
        assert (r.fills_neighbour, r.fills_parent, r.reads_parent) == (0, r.fills, r.fills)
        assert r.writes_parent == r.writebacks


@pytest.mark.parametrize(
    ("architecture", "dataflow"),
    [
        ("systolic-2d:rows=3,cols=3", "gemm-os-systolic:rows=3,cols=3"),
        ("systolic-2d:rows=3,cols=3", "gemm-ws-systolic:rows=3,cols=3"),
        ("systolic-2d:rows=3,cols=3", "gemm-is-systolic:rows=3,cols=3"),
        ("systolic-1d:pes=4", "gemm-os-1d:pes=4"),
    ],
)
def test_sources_one_timestamp_per_tile_is_tenets_unique_volume(
    architecture: str, dataflow: str
) -> None:
    # a register file that holds one time-stamp's data: its parent fills of each read tensor
    # are TENET's unique volume under the links neighbourhood (registered links only)
    spec = load_architecture(architecture)
    levels = [{"name": "dram"}, {"name": "glb"}, {"name": "rf", "per_pe": True}]
    three = ArchitectureSpec.from_mapping({"name": "x", "pe": spec.pe, "levels": levels})
    tiered = spec.model_copy(update={"levels": three.levels})
    flow = load_dataflow(dataflow)
    tiled = flow.model_copy(update={"tiles": {"rf": flow.time_stamp}})
    sizes = {"M": 4, "N": 5, "K": 3}
    metrics = analyze("gemm", spec, flow, params=sizes, neighbourhood="links")
    p = load_problem("gemm", tiered, tiled, params=sizes)
    memory = evaluate_memory(p, latency_compute=0)
    for t in metrics.tensors:
        if t.access == "read":
            assert memory.record("rf", t.tensor).fills_parent == t.volume_unique, t.tensor


@settings(max_examples=200)
@given(tiled_problems(linked=True))
def test_sources_equal_oracle(drawn: Specs) -> None:
    problem, params = drawn, dict(drawn.params)
    p = load_problem(problem.workload, problem.architecture, problem.dataflow, params=params)
    m = evaluate_memory(p, latency_compute=0)
    figures, _ = reference_memory(problem.workload, problem.architecture, problem.dataflow, params)
    got = {
        (r.level, r.tensor): (r.fills, r.fills_neighbour, r.reads_parent, r.writes_parent)
        for r in m.records
    }
    want = {
        k: (f.fills, f.fills_neighbour, f.reads_parent, f.writes_parent) for k, f in figures.items()
    }
    assert got == want
    assert m.energy_links == sum(f.energy_links for f in figures.values())


def test_sources_json_keys_of_the_child_level(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "eval", *gemm_tiled_on(LINE4), "--format", "json")
    assert code == 0
    rf = [r for r in json.loads(out)["levels"] if r["level"] == "rf"]
    assert rf
    for r in rf:
        assert r["fills_neighbour"] + r["fills_parent"] == r["fills"]
        assert {"reads_parent", "writes_parent"} <= set(r)


@pytest.mark.parametrize(("multicast", "reads"), [(True, M * K), (False, M * N * K)])
def test_sources_parent_accesses_by_hand(multicast: bool, reads: int) -> None:
    # j on the PEs, one step (i, k) per register-file tile, the buffer holds everything:
    # the buffer reads A for the register files (M·K with multicast, M·N·K without), B (one
    # element per PE and step: M·N·K) and writes its M·N outputs back to DRAM; it is written
    # the distinct A and B (M·K + K·N) and the M·N outputs of the register files.
    p = load_problem("gemm", _line([], multicast=multicast), RECTANGULAR, params=SIZES)
    glb = evaluate_memory(p, latency_compute=0).summary("glb")
    assert glb.accesses_read == reads + M * N * K + M * N
    assert glb.accesses_write == M * K + K * N + M * N


def test_sources_operand_energy_by_hand() -> None:
    # GEMM 4³ on line4: every MAC reads A and B and writes C in the register file (energy 1
    # per element read or written): 3 · 64; the total adds it to the levels' energies
    p = load_problem("gemm", LINE4, GEMM_TILED, params={"M": 4, "N": 4, "K": 4})
    m = evaluate_memory(p)
    assert m.energy_operands == 3 * 4**3
    assert m.energy == sum(s.energy for s in m.levels) + 3 * 4**3


def test_sources_operand_energy_of_a_bypassed_tensor() -> None:
    # the register file keeps only C: A and B are read from the buffer (6 per element)
    arch = ArchitectureSpec.from_mapping(
        {
            "name": "bypass",
            "pe": "{PE[p]: 0 <= p < 4}",
            "levels": [
                {"name": "dram"},
                {"name": "glb", "energy_read": 6, "energy_write": 6},
                {"name": "rf", "per_pe": True, "tensors": ["C"], "energy_write": 1},
            ],
        }
    )
    p = load_problem("gemm", arch, GEMM_TILED, params={"M": 4, "N": 4, "K": 4})
    assert evaluate_memory(p).energy_operands == 2 * 64 * 6 + 64 * 1


def test_sources_link_energy_by_hand() -> None:
    # the systolic forwarding of A moves M·(N-1)·K elements over links of energy 2
    links = [{"link": "{PE[p] -> PE[p + 1]}", "delay": 1, "energy": 2}]
    p = load_problem("gemm", _line(links), SKEWED, params=SIZES)
    m = evaluate_memory(p, latency_compute=0)
    assert m.energy_links == 2 * M * (N - 1) * K
    assert m.energy == sum(s.energy for s in m.levels) + m.energy_operands + m.energy_links
