"""The automatic layout search: never raises the cost, finds the best single move, and
reports figures the oracle confirms."""

from __future__ import annotations

import pytest

from tenet.errors import SpecError
from tenet.layout.evaluate import load_layout_problem
from tenet.layout.metrics import fetched_per_step, line_cycles, transfer_figures
from tenet.layout.optimiser import moves, search_layout
from tenet.oracle.layout import reference_layout
from tenet.spec import (
    ArchitectureSpec,
    DataflowSpec,
    WorkloadSpec,
    load_architecture,
    load_dataflow,
    load_workload,
)
from tenet.spec.layout import ScratchpadSpec

BLOCK = WorkloadSpec.from_mapping(
    {
        "name": "block",
        "domain": "{S[i, j]: 0 <= i < 3 and 0 <= j < 4}",
        "accesses": {"A": {"read": "{S[i, j] -> A[i, j]}"}},
    }
)
THREE = ArchitectureSpec.from_mapping({"name": "three", "pe": "{PE[p]: 0 <= p < 3}"})
COLUMNS = DataflowSpec.from_mapping(
    {"name": "columns", "space_stamp": "{S[i, j] -> PE[i]}", "time_stamp": "{S[i, j] -> T[j]}"}
)
BANKS = ScratchpadSpec(banks=4)
CONV = {"K": 4, "C": 4, "OX": 3, "OY": 3, "RX": 2, "RY": 2}


def test_exhaustive_depth_one_finds_the_best_single_move() -> None:
    lp = load_layout_problem(BLOCK, THREE, COLUMNS, scratchpad=BANKS)
    found = search_layout(lp, "exhaustive", depth=1, factors=(2,))
    # the oracle's cycles for the row-major layout and every single move
    start = reference_layout(BLOCK, THREE, COLUMNS, {}, BANKS)["tensors"][0]["cycles"]
    cycles = [
        reference_layout(BLOCK, THREE, COLUMNS, {"A": [m]}, BANKS)["tensors"][0]["cycles"]
        for m in moves(lp.layouts["A"], (2,))
    ]
    assert found.tensors[0].cost_before[0] == start == 12
    assert found.tensors[0].cost_after[0] == min(cycles) == 4


@pytest.mark.parametrize("method", ["greedy", "exhaustive"])
@pytest.mark.parametrize(
    ("dataflow", "arch"),
    [
        ("conv2d-ws:rows=2,cols=2", "systolic-2d:rows=2,cols=2"),
        ("conv2d-os-1d:pes=4", "systolic-1d:pes=4"),
    ],
)
def test_search_never_raises_the_cost_and_the_oracle_confirms_it(
    method: str, dataflow: str, arch: str
) -> None:
    lp = load_layout_problem("conv2d", arch, dataflow, CONV, scratchpad=BANKS)
    found = search_layout(lp, method, depth=1)  # type: ignore[arg-type]
    assert found.latency_ingress_after <= found.latency_ingress_before
    for choice in found.tensors:
        assert choice.cost_after <= choice.cost_before
    a = load_architecture(arch)
    expected = reference_layout(
        load_workload("conv2d"),
        a,
        load_dataflow(dataflow, architecture=a),
        found.layouts(),
        BANKS,
        CONV,
    )
    assert found.latency_ingress_after == expected["latency_ingress_layout"]


def test_barvinok_per_step_counts_agree_with_the_walk() -> None:
    lp = load_layout_problem(
        "conv2d", "systolic-2d:rows=2,cols=2", "conv2d-ws:rows=2,cols=2", CONV, scratchpad=BANKS
    )
    p = lp.problem
    for access in p.accesses:
        fetched = fetched_per_step(p, access)
        layout = lp.layouts[access.tensor]
        cost = line_cycles(p, BANKS)
        walked = transfer_figures(fetched, layout, BANKS, cost)
        counted = transfer_figures(fetched, layout, BANKS, cost, walk_below=0)
        assert walked == counted


def test_unknown_search_is_refused() -> None:
    lp = load_layout_problem(BLOCK, THREE, COLUMNS, scratchpad=BANKS)
    with pytest.raises(SpecError, match="unknown search 'random'"):
        search_layout(lp, "random")  # type: ignore[arg-type]


def test_exhaustive_search_stops_at_its_limit() -> None:
    lp = load_layout_problem(BLOCK, THREE, COLUMNS, scratchpad=BANKS)
    with pytest.raises(SpecError, match="depth: the exhaustive search of A passes 10 layouts"):
        search_layout(lp, "exhaustive", depth=3, limit=10)
