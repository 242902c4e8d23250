"""The specs of one problem in one record: the one rule that binds its size parameters, its
JSON text, and the check of the sizes given."""

from __future__ import annotations

import pytest

from tenet import load_specs
from tenet.errors import SpecError
from tenet.spec import DataflowSpec, Specs, load_architecture, load_workload

GEMM, ARRAY = load_workload("gemm"), load_architecture("systolic-2d-8x8")
FLOW = {
    "name": "flat",
    "space_stamp": "{S[i,j,k] -> PE[0, 0]}",
    "time_stamp": "{S[i,j,k] -> T[i, j, k]}",
}


def _dataflow(**params: int) -> DataflowSpec:
    return DataflowSpec.from_mapping({**FLOW, "params": params})


def test_specs_bound_in_increasing_priority() -> None:
    # gemm's defaults are M = N = K = 64: N stays, K comes from the dataflow, M is given
    specs = Specs(GEMM, ARRAY, _dataflow(K=3, M=5), {"M": 2})
    assert specs.bound == {"M": 2, "N": 64, "K": 3}
    assert specs.defaulted == {"N"}
    assert Specs(GEMM, ARRAY, None, {"K": 1}).bound == {"M": 64, "N": 64, "K": 1}


def test_specs_with_params_adds_on_top_of_the_given_ones() -> None:
    specs = Specs(GEMM, ARRAY, _dataflow(K=3), {"M": 2, "N": 4})
    assert specs.with_params({"N": 8, "K": 5}).bound == {"M": 2, "N": 8, "K": 5}
    assert specs.with_params({}).bound == specs.bound == {"M": 2, "N": 4, "K": 3}


def test_specs_with_dataflow_keeps_the_rest() -> None:
    specs = Specs(GEMM, ARRAY, None, {"M": 2})
    flow = _dataflow(K=3)
    mapped = specs.with_dataflow(flow)
    assert mapped.dataflow is flow and mapped.params == {"M": 2} and mapped.bound["K"] == 3
    assert specs.what == "gemm on systolic-2d-8x8"
    assert mapped.what == "gemm on systolic-2d-8x8 with flat"


@pytest.mark.parametrize("flow", [None, _dataflow(K=3)])
def test_specs_json_round_trip(flow: DataflowSpec | None) -> None:
    specs = Specs(GEMM, ARRAY, flow, {"N": 4, "M": 2})
    text = specs.to_json()
    back = Specs.from_json(text)
    assert back.to_json() == text
    assert (back.workload, back.architecture) == (
        GEMM.model_copy(update={"source": None, "lines": {}}),
        ARRAY.model_copy(update={"source": None, "lines": {}}),
    )
    assert back.dataflow == flow and back.params == {"M": 2, "N": 4} and back.bound == specs.bound


def test_specs_json_text_does_not_depend_on_the_order_of_the_sizes() -> None:
    one = Specs(GEMM, ARRAY, None, {"M": 2, "N": 4}).to_json()
    assert one == Specs(GEMM, ARRAY, None, {"N": 4, "M": 2}).to_json()


def test_specs_checked_names_the_parameter() -> None:
    with pytest.raises(SpecError, match="with flat has no size 'm' .*did you mean 'M'"):
        Specs(GEMM, ARRAY, _dataflow(), {"m": 2}).checked()
    with pytest.raises(SpecError, match="size K=0: sizes must be at least 1"):
        Specs(GEMM, ARRAY, None, {"K": 0}).checked(source="--param")
    assert Specs(GEMM, ARRAY, None, {"K": 2}).checked().params == {"K": 2}


def test_specs_require_dataflow_names_the_problem() -> None:
    with pytest.raises(SpecError, match="gemm on systolic-2d-8x8: no dataflow given"):
        Specs(GEMM, ARRAY).require_dataflow()


def test_load_specs_checks_the_sizes_given() -> None:
    specs = load_specs("gemm", "systolic-2d-8x8", "gemm-os-systolic", {"K": 2})
    assert specs.bound["K"] == 2 and specs.require_dataflow().name == "gemm-os-systolic"
    assert load_specs("gemm", "systolic-2d-8x8").dataflow is None
    with pytest.raises(SpecError, match="has no size 'Q'"):
        load_specs("gemm", "systolic-2d-8x8", "gemm-os-systolic", {"Q": 2})
