"""The layout figures counted with isl/barvinok agree with the brute-force enumerator."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import islpy as isl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tenet.layout.evaluate import load_layout_problem
from tenet.oracle.layout import reference_layout
from tenet.spec import Specs, load_architecture, load_dataflow, load_workload
from tenet.spec.layout import ScratchpadSpec, TransformSpec
from tenet.testing.layout_strategies import scratchpads, transforms
from tenet.testing.strategies import problems
from tenet.vocab import NEIGHBOURHOODS, Neighbourhood

CONV = {"K": 4, "C": 4, "OX": 3, "OY": 3, "RX": 2, "RY": 2}
GEMM = {"M": 4, "N": 4, "K": 4}
SMALL = [
    ("conv2d", "systolic-2d:rows=2,cols=2", "conv2d-os:rows=2,cols=2", CONV),
    ("conv2d", "systolic-2d:rows=2,cols=2", "conv2d-is:rows=2,cols=2", CONV),
    ("conv2d", "systolic-2d:rows=2,cols=2", "conv2d-ws:rows=2,cols=2", CONV),
    ("conv2d", "systolic-2d:rows=2,cols=2", "conv2d-yxp:rows=2,cols=2", CONV),
    ("conv2d", "systolic-2d:rows=2,cols=2", "conv2d-rs:cols=2", CONV),
    ("conv2d", "systolic-1d:pes=4", "conv2d-os-1d:pes=4", CONV),
    ("gemm", "systolic-2d:rows=2,cols=2", "gemm-os-systolic:rows=2,cols=2", GEMM),
    ("gemm", "systolic-2d:rows=2,cols=2", "gemm-ws-systolic:rows=2,cols=2", GEMM),
]
LAYOUTS: list[dict[str, tuple[TransformSpec, ...]]] = [
    {},
    {
        "I": (TransformSpec(op="pad", dim=2, by=1),),
        "W": (TransformSpec(op="interleave", dim=0, factor=2),),
        "B": (TransformSpec(op="column_major"),),
    },
    {
        "I": (
            TransformSpec(op="permute", order=(2, 0, 1)),
            TransformSpec(op="split", dim=0, factor=3),
        ),
        "A": (TransformSpec(op="pad", dim=1, by=3),),
    },
]


def assert_agrees(
    workload: str,
    architecture: str,
    dataflow: str,
    params: Mapping[str, int],
    layouts: Mapping[str, Sequence[TransformSpec]],
    scratchpad: ScratchpadSpec,
    neighbourhood: Neighbourhood = "window",
) -> None:
    lp = load_layout_problem(
        workload,
        architecture,
        dataflow,
        params,
        layouts={t: v for t, v in layouts.items() if t in load_workload(workload).accesses},
        scratchpad=scratchpad,
        neighbourhood=neighbourhood,
    )
    got = lp.evaluate()
    w, a = load_workload(workload), load_architecture(architecture)
    d = load_dataflow(dataflow, architecture=a)
    expected = reference_layout(w, a, d, layouts, scratchpad, params, neighbourhood)
    rows = [{k: v for k, v in r.items() if k not in ("layout", "size")} for r in got.rows()]
    assert rows == expected["tensors"]
    assert got.latency_ingress_layout == expected["latency_ingress_layout"]
    assert got.latency_egress_layout == expected["latency_egress_layout"]


@pytest.mark.parametrize("case", SMALL, ids=[c[2] for c in SMALL])
@pytest.mark.parametrize(
    "layouts",
    [
        pytest.param(LAYOUTS[0], marks=pytest.mark.slow),
        LAYOUTS[1],
        pytest.param(LAYOUTS[2], marks=pytest.mark.slow),
    ],
    ids=["row-major", "mixed", "permuted"],
)
def test_layout_figures_agree_with_oracle_on_small_zoo_problems(
    case: tuple[str, str, str, dict[str, int]], layouts: dict[str, tuple[TransformSpec, ...]]
) -> None:
    assert_agrees(*case, layouts, ScratchpadSpec(banks=4, transaction_width=2))


def test_layout_figures_agree_with_oracle_under_links_and_wide_banks() -> None:
    assert_agrees(
        *SMALL[1], LAYOUTS[1], ScratchpadSpec(banks=2, bank_width=2, transaction_width=4), "links"
    )


def check_random(
    drawn: Specs, scratchpad: ScratchpadSpec, around: Neighbourhood, data: st.DataObject
) -> None:
    w, a, d = drawn.workload, drawn.architecture, drawn.dataflow
    lp = load_layout_problem(w, a, d, scratchpad=scratchpad, neighbourhood=around)
    arities = {t: r.dim(isl.dim_type.out) for t, _, r in lp.problem.workload.accesses}
    layouts = {t: data.draw(transforms(n)) for t, n in arities.items()}
    got = lp.with_layouts(layouts).evaluate()
    expected = reference_layout(w, a, d, layouts, scratchpad, neighbourhood=around)
    rows = [{k: v for k, v in r.items() if k not in ("layout", "size")} for r in got.rows()]
    assert rows == expected["tensors"]
    assert got.latency_ingress_layout == expected["latency_ingress_layout"]


RANDOM = (problems(), scratchpads(), st.sampled_from(NEIGHBOURHOODS), st.data())


@settings(max_examples=10)
@given(*RANDOM)
def test_layout_figures_agree_with_oracle_on_random_problems(
    drawn: Specs, scratchpad: ScratchpadSpec, around: Neighbourhood, data: st.DataObject
) -> None:
    check_random(drawn, scratchpad, around, data)


@pytest.mark.slow
@settings(max_examples=100)
@given(*RANDOM)
def test_layout_figures_agree_with_oracle_on_many_random_problems(
    drawn: Specs, scratchpad: ScratchpadSpec, around: Neighbourhood, data: st.DataObject
) -> None:
    check_random(drawn, scratchpad, around, data)
