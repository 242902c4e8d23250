"""Specs become a problem in one place: the size parameters come from the workload's defaults,
then the dataflow's values, then the caller's."""

from __future__ import annotations

import pytest

from tenet.counting import count
from tenet.errors import OutsideArrayError
from tenet.model import Problem
from tenet.model.problem import bind_specs
from tenet.spec import DataflowSpec, load_architecture, load_workload

FLAT = {"name": "flat", "space_stamp": "{S[i,j,k] -> PE[0, 0]}"}


def _dataflow(**params: int) -> DataflowSpec:
    time = "{S[i,j,k] -> T[i, j, k]}"
    return DataflowSpec.from_mapping({**FLAT, "time_stamp": time, "params": params})


def test_bind_specs_sizes_in_increasing_priority() -> None:
    gemm, array = load_workload("gemm"), load_architecture("systolic-2d-8x8")
    # M from the call, K from the dataflow, N the workload's default (64): 2 * 64 * 3
    w, a, d = bind_specs(gemm, array, _dataflow(K=3, M=5), {"M": 2})
    assert count(w.domain) == 2 * 64 * 3
    assert d is not None and d.name == "flat" and a.name == "systolic-2d-8x8"


def test_bind_specs_without_dataflow_binds_workload_and_architecture() -> None:
    gemm, array = load_workload("gemm"), load_architecture("systolic-2d-8x8")
    w, a, d = bind_specs(gemm, array, None, {"K": 1})
    assert d is None and count(w.domain) == 64 * 64 * 1 and count(a.pe_set) == 8 * 8


def test_problem_from_specs_checks_the_placement() -> None:
    gemm, array = load_workload("gemm"), load_architecture("systolic-2d-8x8")
    outside = DataflowSpec.from_mapping(
        {
            "name": "wide",
            "space_stamp": "{S[i,j,k] -> PE[i, j]}",
            "time_stamp": "{S[i,j,k] -> T[k]}",
        }
    )
    problem = Problem.from_specs(gemm, array, outside, {"M": 8, "N": 8, "K": 2})
    assert count(problem.workload.domain) == 8 * 8 * 2
    with pytest.raises(OutsideArrayError):
        Problem.from_specs(gemm, array, outside, {"M": 9, "N": 8, "K": 2})
