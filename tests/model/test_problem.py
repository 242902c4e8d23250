"""Specs become a problem in one place: each spec parsed with the size parameters the specs
bind (the workload's defaults, then the dataflow's values, then the given ones)."""

from __future__ import annotations

import pytest

from tenet.counting import count
from tenet.errors import OutsideArrayError, SpecError
from tenet.model import Architecture, Dataflow, Problem, Workload
from tenet.spec import DataflowSpec, Specs, load_architecture, load_workload

FLAT = {"name": "flat", "space_stamp": "{S[i,j,k] -> PE[0, 0]}"}
WIDE = {
    "name": "wide",
    "space_stamp": "{S[i,j,k] -> PE[i, j]}",
    "time_stamp": "{S[i,j,k] -> T[k]}",
}


def _dataflow(**params: int) -> DataflowSpec:
    time = "{S[i,j,k] -> T[i, j, k]}"
    return DataflowSpec.from_mapping({**FLAT, "time_stamp": time, "params": params})


def test_problem_from_specs_binds_the_specs_sizes() -> None:
    gemm, array = load_workload("gemm"), load_architecture("systolic-2d-8x8")
    # M given, K from the dataflow, N the workload's default (64): 2 * 64 * 3 instances
    problem = Problem.from_specs(Specs(gemm, array, _dataflow(K=3, M=5), {"M": 2}))
    assert count(problem.workload.domain) == 2 * 64 * 3
    assert problem.dataflow.name == "flat" and problem.architecture.name == "systolic-2d-8x8"


def test_problem_from_specs_checks_the_placement() -> None:
    gemm, array = load_workload("gemm"), load_architecture("systolic-2d-8x8")
    outside = DataflowSpec.from_mapping(WIDE)
    problem = Problem.from_specs(Specs(gemm, array, outside, {"M": 8, "N": 8, "K": 2}))
    assert count(problem.workload.domain) == 8 * 8 * 2
    with pytest.raises(OutsideArrayError):
        Problem.from_specs(Specs(gemm, array, outside, {"M": 9, "N": 8, "K": 2}))


def test_problem_placed_skips_only_the_placement_check() -> None:
    gemm, array = load_workload("gemm"), load_architecture("systolic-2d-8x8")
    sizes = {"M": 9, "N": 8, "K": 2}  # 9 rows of instances on 8 rows of PEs
    parts = (
        Workload.from_spec(gemm, sizes),
        Architecture.from_spec(array, sizes),
        Dataflow.from_spec(DataflowSpec.from_mapping(WIDE), sizes),
    )
    with pytest.raises(OutsideArrayError):
        Problem(*parts)
    assert Problem(*parts, placed=True).placed
    with pytest.raises(SpecError, match="unknown neighbourhood"):
        Problem(*parts, neighbourhood="far", placed=True)  # type: ignore[arg-type]


def test_problem_from_specs_needs_a_dataflow() -> None:
    specs = Specs(load_workload("gemm"), load_architecture("systolic-2d-8x8"))
    with pytest.raises(SpecError, match="gemm on systolic-2d-8x8: no dataflow given"):
        Problem.from_specs(specs)
