"""Outputs kept on chip between layers (tenet.metrics.residency): the DRAM traffic a kept
tensor saves, against the tile oracle and by hand, the capacity rule, and the refusals."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tenet.api import load_problem
from tenet.errors import SpecError
from tenet.metrics.memory import evaluate_memory, kept_on_chip, level_needs
from tenet.metrics.residency import LayerRun, keep_outputs
from tenet.oracle.tiles import reference_memory
from tenet.spec import ArchitectureSpec, DataflowSpec, LayerInput, load_workload

GEMM = load_workload("gemm")
# Two PEs under one buffer; DRAM moves one element per cycle each way, 200 per access, the
# buffer 6. The buffer's tiles run k outside i: C's row tile comes back once per k, so the
# partial sums spill to DRAM and are read back.
FLOW = DataflowSpec.from_mapping(
    {
        "name": "spill",
        "space_stamp": "{S[i,j,k] -> PE[j % 2]}",
        "time_stamp": "{S[i,j,k] -> T[i, floor(j/2), k]}",
        "tiles": {"glb": "{S[i,j,k] -> G[k, i]}"},
    }
)
FC1 = {"M": 2, "N": 2, "K": 3}  # C: 2 x 2, the output
FC2 = {"M": 2, "N": 2, "K": 2}  # A: 2 x 2, fc1's C
EDGE = LayerInput.model_validate({"from": "fc1", "tensor": "A"})


def _arch(capacity: int) -> ArchitectureSpec:
    dram = {"name": "dram", "read_bandwidth": 1, "write_bandwidth": 1}
    return ArchitectureSpec.from_mapping(
        {
            "name": "two-levels",
            "pe": "{PE[i]: 0 <= i < 2}",
            "levels": [
                {**dram, "energy_read": 200, "energy_write": 200},
                {"name": "glb", "capacity": capacity, "energy_read": 6, "energy_write": 6},
            ],
        }
    )


def _runs(capacity: int) -> list[LayerRun]:
    runs = []
    for name, sizes in (("fc1", FC1), ("fc2", FC2)):
        problem = load_problem(GEMM, _arch(capacity), FLOW, params=sizes)
        runs.append(LayerRun(name, problem, None, evaluate_memory(problem)))
    return runs


def test_the_saved_traffic_is_the_oracles_traffic_of_the_kept_tensor() -> None:
    runs = _runs(10)
    kept = keep_outputs(runs, [None, EDGE])
    assert kept.resident == ("C to fc2", "A from fc1")
    # The oracle walks each layer's tiles: what DRAM serves for C at the buffer in fc1 (its
    # writebacks and the partial sums read back) and for A in fc2 is what the layers save.
    oracle1, _ = reference_memory(GEMM, _arch(10), FLOW, FC1)
    oracle2, _ = reference_memory(GEMM, _arch(10), FLOW, FC2)
    c, a = oracle1["glb", "C"], oracle2["glb", "A"]
    assert kept.dram_saved == (c.reads_parent + c.writes_parent, a.reads_parent + a.writes_parent)
    # What is left is the oracle's traffic of the other tensors.
    for after, oracle, kept_tensor in zip(kept.memory, (oracle1, oracle2), "CA", strict=True):
        left = sum(
            f.reads_parent + f.writes_parent
            for (level, tensor), f in oracle.items()
            if level == "glb" and tensor != kept_tensor
        )
        assert after.traffic_dram == left


def test_the_saved_traffic_by_hand() -> None:
    kept = keep_outputs(_runs(10), [None, EDGE])
    fc1, fc2 = kept.memory
    # fc1 (2 x 2 x 3, tiles k outside i): A and B come once, 6 + 6 reads; C's row tile is
    # written in each of the 3 k tiles of its 2 rows: 12 writebacks, 8 partial sums read
    # back (the 2 later k tiles of 2 rows of 2). Kept: the 8 reads and 12 writes go.
    assert fc1.traffic_dram == 12 and kept.dram_saved[0] == 20
    # DRAM time: 12 reads at 1 per cycle (was 20 reads + 12 writes = 32); compute 6.
    assert fc1.latency == Fraction(12) and fc1.bottleneck == "dram"
    # Energy: 20 DRAM accesses (200 each) and their buffer side (8 fills written, 12
    # writebacks read: 6 each) go: 4,000 + 120.
    assert fc1.energy == _runs(10)[0].memory.energy - 4120
    # fc2 (2 x 2 x 2): A's 4 reads go; B's 4 reads and C's 4 + 8 stay: 16 cycles.
    assert fc2.traffic_dram == 16 and kept.dram_saved[1] == 4
    assert fc2.latency == Fraction(16)
    assert fc2.energy == _runs(10)[1].memory.energy - 4 * (200 + 6)
    # The buffer holds C whole beside fc1's tiles of A (1) and B (2): 7; A whole beside
    # fc2's tiles of B (2) and C (2): 8.
    assert [m.summary("glb").footprint for m in kept.memory] == [7, 8]


def test_the_capacity_rule_is_level_needs_with_the_tensor_whole() -> None:
    run = _runs(10)[0]
    assert level_needs(run.problem, levels=["glb"], whole={"C": 4}) == ({"glb": 7}, True)
    # fc2 needs 8 with A whole: a buffer of 7 keeps nothing, and says why.
    kept = keep_outputs(_runs(7), [None, EDGE])
    assert kept.dram_saved == (0, 0) and kept.resident == ("", "")
    assert kept.edges[0].level is None
    assert kept.edges[0].words == (
        "fc1.C -> fc2.A (4 elements): through DRAM (fc2 needs 8 of 7 elements of glb)"
    )


def test_residency_off_and_nothing_kept_leave_the_figures() -> None:
    runs = _runs(10)
    off = keep_outputs(runs, [None, EDGE], on=False)
    assert off.memory == tuple(r.memory for r in runs) and off.dram_saved == (0, 0)
    assert off.edges[0].reason == "residency off"
    run = runs[0]
    need = run.memory.summary("glb").footprint
    assert kept_on_chip(run.problem, run.memory, [], need) == run.memory


def test_an_architecture_without_a_buffer_keeps_nothing() -> None:
    runs = []
    for name, sizes in (("fc1", {"M": 4, "N": 6, "K": 8}), ("fc2", {"M": 4, "N": 5, "K": 6})):
        problem = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic", params=sizes)
        runs.append(LayerRun(name, problem, None, evaluate_memory(problem)))
    kept = keep_outputs(runs, [None, EDGE])
    assert kept.dram_saved == (0, 0)
    assert kept.edges[0].reason == "no level inside the outermost"


@pytest.mark.parametrize(
    ("edge", "sizes", "message"),
    [
        ({"from": "fc1", "tensor": "C"}, FC2, "input.tensor 'C' is not read by its workload"),
        ({"from": "fc1", "tensor": "Z"}, FC2, "(it reads A, B)"),
        (
            {"from": "fc1", "tensor": "A"},
            {"M": 1, "N": 2, "K": 2},
            "input A holds 2 elements, fewer than the 4 of fc1's output C",
        ),
    ],
)
def test_edges_that_cannot_hold_are_refused(
    edge: dict[str, str], sizes: dict[str, int], message: str
) -> None:
    runs = _runs(10)[:1]
    problem = load_problem(GEMM, _arch(10), FLOW, params=sizes)
    runs.append(LayerRun("fc2", problem, None, evaluate_memory(problem)))
    with pytest.raises(SpecError, match="layer 'fc2'") as error:
        keep_outputs(runs, [None, LayerInput.model_validate(edge)], source="net.yaml")
    assert message in str(error.value) and "net.yaml" in str(error.value)
