"""Legality checks: hand-made illegal dataflows are rejected with the right witness, and every
TENET dataflow of tenet-data is accepted with its workload."""

from __future__ import annotations

from pathlib import Path

import pytest

from tenet.api import check
from tenet.errors import UnknownTensorError
from tenet.model import Workload
from tenet.model.legality import dependences
from tenet.spec import ArchitectureSpec, DataflowSpec, WorkloadSpec, read_experiment
from tests.tenet_files import EXPERIMENTS

LINE4 = ArchitectureSpec.from_mapping(
    {"name": "line4", "pe": "{PE[p]: 0 <= p < 4}", "interconnect": [{"link": "{PE[p] -> PE[p+1]}"}]}
)
GRID2 = ArchitectureSpec.from_mapping({"name": "grid2", "pe": "{PE[p, q]: 0 <= p, q < 2}"})

# S[i, j] (0 <= i, j < 4): A[i, j] = f(A[i, j - 1]); A[i, j] is written by S[i, j] and read by
# S[i, j + 1]: a flow dependence along j.
STENCIL = WorkloadSpec.from_mapping(
    {
        "name": "shift",
        "domain": "{S[i, j]: 0 <= i < 4 and 0 <= j < 4}",
        "accesses": {
            "A": {"read": "{S[i, j] -> A[i, j - 1]}", "write": "{S[i, j] -> A[i, j]}"},
        },
    }
)
GEMM = WorkloadSpec.from_mapping(
    {
        "name": "gemm",
        "domain": "{S[i, j, k]: 0 <= i < 2 and 0 <= j < 2 and 0 <= k < 2}",
        "accesses": {
            "A": {"read": "{S[i, j, k] -> A[i, k]}"},
            "B": {"read": "{S[i, j, k] -> B[k, j]}"},
            "C": {"write": "{S[i, j, k] -> C[i, j]}"},
        },
    }
)


def dataflow(space: str, time: str) -> DataflowSpec:
    return DataflowSpec.from_mapping({"name": "d", "space_stamp": space, "time_stamp": time})


def test_check_accepts_row_per_pe():
    # row i on PE[i], j in time: A[i, j-1] is written at T[j-1] before it is read at T[j]
    result = check(STENCIL, LINE4, dataflow("{S[i,j] -> PE[i]}", "{S[i,j] -> T[j]}"))
    assert result.legal, str(result)


def test_check_names_two_instances_on_one_point():
    # S[0,0,0] and S[0,0,1] differ in k only, which neither stamp uses; k has 2 values, so
    # 2 instances share each point
    result = check(GEMM, GRID2, dataflow("{S[i,j,k] -> PE[i, j]}", "{S[i,j,k] -> T[0]}"))
    [violation] = result.violations
    assert violation.kind == "collision"
    assert violation.message.startswith(
        "S[0, 0, 0] and S[0, 0, 1] both run on PE[0, 0] at T[0] (up to 2 instances per PE"
    )


def test_check_allows_instances_per_step():
    # two instances (k = 0, 1) per point, and the array runs two per step
    result = check(
        GEMM,
        GRID2,
        dataflow("{S[i,j,k] -> PE[i, j]}", "{S[i,j,k] -> T[0]}"),
        reductions=["C"],
        instances_per_step=2,
    )
    assert result.legal, str(result)


def test_check_counts_instances_beyond_the_step():
    # i and k both dropped on a 2-wide line: 4 instances per point, 3 allowed
    line = ArchitectureSpec.from_mapping({"name": "l", "pe": "{PE[p]: 0 <= p < 2}"})
    result = check(
        GEMM,
        line,
        dataflow("{S[i,j,k] -> PE[j]}", "{S[i,j,k] -> T[0]}"),
        reductions=["C"],
        instances_per_step=3,
    )
    [violation] = result.violations
    assert violation.kind == "collision"
    assert "runs 4 instances" in violation.message
    assert "more than the 3 per step" in violation.message


def test_check_names_instance_outside_the_array():
    # PE[i + j] leaves the 4 PEs when i + j >= 4
    result = check(STENCIL, LINE4, dataflow("{S[i,j] -> PE[i + j]}", "{S[i,j] -> T[i, j]}"))
    [violation] = result.violations
    assert violation.kind == "array"
    assert "outside the PE set" in violation.message
    assert "PE[" in violation.message


def test_check_names_uncovered_instance():
    result = check(STENCIL, LINE4, dataflow("{S[i,j] -> PE[i]: j < 3}", "{S[i,j] -> T[j]}"))
    [violation] = result.violations
    assert violation.kind == "coverage"
    assert violation.message.endswith("has no space-stamp")
    assert ", 3]" in violation.message  # j = 3 is the uncovered column


def test_check_names_instance_with_two_time_stamps():
    result = check(
        STENCIL, LINE4, dataflow("{S[i,j] -> PE[i]}", "{S[i,j] -> T[t]: j <= t <= j + 1}")
    )
    [violation] = result.violations
    assert violation.kind == "function"
    assert "gets two time-stamps" in violation.message


def test_check_names_read_before_write():
    # j reversed in time: S[0,1] reads A[0,0] at T[-1] before S[0,0] writes it at T[0]
    result = check(STENCIL, LINE4, dataflow("{S[i,j] -> PE[i]}", "{S[i,j] -> T[-j]}"))
    messages = [v.message for v in result.violations]
    assert "S[0, 1] reads A[0, 0] at T[-1] before S[0, 0] writes it at T[0] (flow dependence)" in (
        messages
    )


def test_check_names_write_before_read():
    # S[i, j] reads A[i, j + 1], which S[i, j + 1] overwrites later (anti dependence); j
    # reversed: S[0,1] writes A[0,1] at T[-1] before S[0,0] reads it at T[0]
    backward = WorkloadSpec.from_mapping(
        {
            "name": "backward",
            "domain": "{S[i, j]: 0 <= i < 4 and 0 <= j < 4}",
            "accesses": {
                "A": {"read": "{S[i, j] -> A[i, j + 1]}", "write": "{S[i, j] -> A[i, j]}"},
            },
        }
    )
    result = check(backward, LINE4, dataflow("{S[i,j] -> PE[i]}", "{S[i,j] -> T[-j]}"))
    [violation] = result.violations
    assert violation.message == (
        "S[0, 1] writes A[0, 1] at T[-1] before S[0, 0] reads it at T[0] (anti dependence)"
    )


def test_check_names_same_time_on_two_pes():
    # j on the array, i in time: S[0,0] writes A[0,0] on PE[0] while S[0,1] reads it on PE[1]
    result = check(STENCIL, LINE4, dataflow("{S[i,j] -> PE[j]}", "{S[i,j] -> T[i]}"))
    [violation] = result.violations
    assert violation.kind == "dependence"
    assert violation.message == (
        "S[0, 1] reads A[0, 0] on PE[1] at T[0], the time-stamp at which S[0, 0] writes it "
        "on PE[0] (flow dependence)"
    )


def test_check_orders_output_dependence_without_reduction():
    # k reversed: S[0,0,1] writes C[0,0] at T[-1] before S[0,0,0] writes it at T[0]
    flow = dataflow("{S[i,j,k] -> PE[i, j]}", "{S[i,j,k] -> T[-k]}")
    result = check(GEMM, GRID2, flow)
    [violation] = result.violations
    assert violation.message == (
        "S[0, 0, 1] writes C[0, 0] at T[-1] before S[0, 0, 0] writes it at T[0] (output dependence)"
    )
    assert check(GEMM, GRID2, flow, reductions=["C"]).legal


def test_dependences_of_stencil_are_flow_anti_output():
    workload = Workload.from_spec(STENCIL, {})
    kinds = {d.kind for d in dependences(workload)}
    # A[i, j] is written by S[i, j] and read by S[i, j + 1] (flow); no instance reads an
    # element that a later one writes, nor writes one twice
    assert kinds == {"flow"}


def test_dependences_reject_unknown_reduction():
    workload = Workload.from_spec(GEMM, {})
    with pytest.raises(UnknownTensorError, match="did you mean 'C'"):
        dependences(workload, reductions=["c"])


@pytest.mark.parametrize("key", list(EXPERIMENTS))
def test_check_accepts_every_tenet_dataflow(key: str, tenet_data: Path):
    folder, name = key.split("/")
    data = read_experiment(tenet_data / folder / "experiment" / name).specs
    # a TENET statement is a MAC: the reader marks its written tensor as a reduction (+=)
    assert data.workload.reductions == tuple(
        t for t, a in data.workload.accesses.items() if a.write
    )
    result = check(data.workload, data.architecture, data.dataflow, instances_per_step=10**6)
    assert result.legal, str(result)


def test_check_reports_tenet_conv_points_when_not_allowed(tenet_data: Path):
    data = read_experiment(tenet_data / "reuse_factor_experiment/experiment/experiment_4").specs
    # conv2d_os leaves rx and ry (3 x 3) out of both stamps: 9 instances per point
    result = check(data.workload, data.architecture, data.dataflow)
    assert [v.kind for v in result.violations] == ["collision"]
    assert "(up to 9 instances per PE and time-stamp)" in result.violations[0].message
    spec = data.architecture.model_copy(update={"instances_per_step": 9})
    assert check(data.workload, spec, data.dataflow).legal
