"""Counts of one (workload, dataflow, array) at many sizes: from formulas where the rule says
so, and always equal to counting each size directly."""

from __future__ import annotations

import random

import pytest

from tenet.api import load_problem
from tenet.metrics import evaluate, sizes
from tenet.metrics.sizes import figures, figures_at_sizes
from tenet.spec import Specs, load_architecture, load_dataflow, load_workload


def _specs(workload: str, arch: str, dataflow: str):
    a = load_architecture(arch)
    return load_workload(workload), a, load_dataflow(dataflow, architecture=a)


def _direct(specs, size: dict[str, int]) -> dict[str, int]:
    return figures(evaluate(load_problem(*specs, params=size)))


@pytest.mark.parametrize(
    ("combination", "choices"),
    [
        # sizes below the 4 x 4 array, dividing it and not
        (("gemm", "systolic-2d:rows=4,cols=4", "gemm-os-systolic"), {"M": 9, "N": 9, "K": 6}),
        (("gemm", "systolic-2d:rows=4,cols=4", "gemm-ws-systolic"), {"M": 9, "N": 9, "K": 6}),
        (("gemm", "systolic-2d:rows=4,cols=4", "gemm-os"), {"M": 9, "N": 9, "K": 6}),
        (("conv2d", "systolic-2d:rows=4,cols=4", "conv2d-os"), {"K": 9, "C": 5, "OX": 6}),
    ],
)
def test_formulas_per_size_equal_direct_counts(combination, choices):
    specs = _specs(*combination)
    rng = random.Random(13)
    bound = {"OY": 3, "RX": 2, "RY": 2} if combination[0] == "conv2d" else {}
    wanted = [{**bound, **{n: rng.randint(1, top) for n, top in choices.items()}} for _ in range(4)]
    rows, symbolic = figures_at_sizes(Specs(*specs), wanted)
    assert symbolic
    assert rows == [_direct(specs, size) for size in wanted]


def test_the_rule_counts_directly_beyond_its_limits(monkeypatch: pytest.MonkeyPatch):
    specs = _specs("gemm", "systolic-2d:rows=2,cols=2", "gemm-os-systolic")
    few = [{"M": 3, "N": 2, "K": k} for k in range(1, sizes.SIZES_MIN)]
    rows, symbolic = figures_at_sizes(Specs(*specs), few)
    assert not symbolic
    assert rows == [_direct(specs, size) for size in few]
    conv = _specs("conv2d", "systolic-2d:rows=2,cols=2", "conv2d-os")
    # four sizes vary: more than SYMBOLS_MAX
    varied = [{"K": k, "C": k, "OX": k, "OY": k, "RX": 1, "RY": 1} for k in (1, 2, 3)]
    assert not figures_at_sizes(Specs(*conv), varied)[1]
    many = [{"M": 3, "N": 2, "K": k} for k in (1, 2, 5)]
    monkeypatch.setattr(sizes, "PIECES_MAX", 0)
    rows, symbolic = figures_at_sizes(Specs(*specs), many)
    assert not symbolic
    assert rows == [_direct(specs, size) for size in many]
