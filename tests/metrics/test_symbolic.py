"""Symbolic metrics: the formulas evaluated at random sizes (dividing the array or not, below
it or above) equal the direct counts of ``evaluate`` at those sizes."""

from __future__ import annotations

import json
import random

import pytest

from tenet.api import load_problem
from tenet.errors import CountingError, OutsideArrayError, SpecError
from tenet.metrics import evaluate
from tenet.metrics.sizes import figures
from tenet.metrics.symbolic import symbolic_metrics
from tenet.spec import (
    ArchitectureSpec,
    DataflowSpec,
    Specs,
    WorkloadSpec,
    load_architecture,
    load_dataflow,
    load_workload,
)
from tenet.vocab import Neighbourhood
from tenet.zoo import combinations
from tests.conftest import run as _cli
from tests.paper_example import GEMM, SKEWED, SYSTOLIC

# the paper's example with its sizes as parameters (M = N = 2, K = 4 in the paper); its
# dataflow places S[i, j, k] on PE[i, j], inside the 2 x 2 array when M, N <= 2
PAPER_GEMM = {
    **GEMM,
    "domain": "[M, N, K] -> {S[i, j, k]: 0 <= i < M and 0 <= j < N and 0 <= k < K and "
    "M <= 2 and N <= 2}",
    "params": {"M": 2, "N": 2, "K": 4},
}


def _direct(
    specs: tuple[WorkloadSpec, ArchitectureSpec, DataflowSpec],
    sizes: dict[str, int],
    around: Neighbourhood,
) -> dict[str, int]:
    return figures(evaluate(load_problem(*specs, params=sizes, neighbourhood=around)))


def _check_agrees(
    specs: tuple[WorkloadSpec, ArchitectureSpec, DataflowSpec],
    around: Neighbourhood,
    seed: int,
    largest: int,
    symbolic_sizes: int | None = None,
) -> None:
    """Compare the formulas with direct counts at three random sizes in 1..``largest``; with
    ``symbolic_sizes``, only that many of the workload's sizes are symbolic, the others are
    bound to random values in 1..4."""
    rng = random.Random(seed)
    names = list(specs[0].params)
    kept = names if symbolic_sizes is None else names[:symbolic_sizes]
    bound = {n: rng.randint(1, 4) for n in names if n not in kept}
    symbolic = symbolic_metrics(Specs(*specs, bound), neighbourhood=around)
    for _ in range(3):
        sizes = {s: rng.randint(1, largest) for s in symbolic.symbols}
        try:
            expected = _direct(specs, {**bound, **sizes}, around)
        except OutsideArrayError:
            # a dataflow made for small sizes (e.g. PE[rx, ry]): no formula there either
            with pytest.raises(OutsideArrayError):
                symbolic.at(**sizes)
            continue
        except SpecError as exc:
            # sizes that leave the domain empty (e.g. LU's N = 1) are refused by both
            assert "empty" in str(exc)
            continue
        values = symbolic.at(**sizes)
        assert {k: values[k] for k in expected} == expected, sizes


def _zoo(workload: str, arch: str, dataflow: str):
    a = load_architecture(arch)
    return load_workload(workload), a, load_dataflow(dataflow, architecture=a)


@pytest.mark.parametrize("around", ["window", "links"])
def test_paper_example_formulas_equal_direct_counts(around: Neighbourhood):
    specs = (
        WorkloadSpec.from_mapping(PAPER_GEMM),
        ArchitectureSpec.from_mapping(SYSTOLIC),
        DataflowSpec.from_mapping(SKEWED),
    )
    _check_agrees(specs, around, seed=0, largest=2)


@pytest.mark.parametrize("around", ["window", "links"])
def test_gemm_on_8x8_formulas_equal_direct_counts(around: Neighbourhood):
    # sizes 1..20 on 8 x 8: below the array, not dividing it, above it
    _check_agrees(_zoo("gemm", "systolic-2d-8x8", "gemm-os-systolic"), around, seed=1, largest=20)


def test_paper_example_formulas_by_hand():
    specs = (
        WorkloadSpec.from_mapping(PAPER_GEMM),
        ArchitectureSpec.from_mapping(SYSTOLIC),
        DataflowSpec.from_mapping(SKEWED),
    )
    m = symbolic_metrics(Specs(*specs))
    # one MAC per instance; time-stamps i + j + k run from 0 to (M-1) + (N-1) + (K-1)
    assert m["macs"].pieces() == [("0 < M <= 2 and 0 < N <= 2 and K > 0", "M * N * K")]
    assert m["timestamps"].at({"M": 2, "N": 2, "K": 4}) == 2 + 2 + 4 - 2
    # the paper's figures (docs/metrics.md): A enters once per element (8), B too, C 4 pairs
    at = m.at(M=2, N=2, K=4)
    assert (at["volume_unique[A.read]"], at["volume_reuse_spatial[A.read]"]) == (8, 8)
    assert at["latency_compute"] == 6


def test_formulas_export_as_text_json_and_latex():
    m = symbolic_metrics(Specs(*_zoo("gemm", "systolic-2d-8x8", "gemm-os-systolic")))
    text = str(m)
    assert "macs =\n  M * N * K    if M > 0 and N > 0 and K > 0" in text
    data = json.loads(m.to_json())
    assert data["symbols"] == ["M", "N", "K"]
    assert {"latency_compute", "instances_per_step_max"} <= set(data["at_sizes_only"])
    latex = m.to_latex()
    assert r"\mathrm{macs} = \begin{cases}" in latex
    assert r"\left\lfloor \frac{7 + M}{8} \right\rfloor" in latex


def test_formula_needs_every_size():
    m = symbolic_metrics(Specs(*_zoo("gemm", "systolic-2d-8x8", "gemm-os-systolic")))
    with pytest.raises(CountingError, match="no value for size"):
        m["macs"].at({"M": 2})


def test_bound_sizes_are_not_symbols():
    m = symbolic_metrics(Specs(*_zoo("gemm", "systolic-2d-8x8", "gemm-os-systolic"), {"K": 16}))
    assert m.symbols == ("M", "N")
    assert m["macs"].at({"M": 3, "N": 5}) == 3 * 5 * 16


# stencils whose skewed time-stamps (4t + 2i + j) over both a symbolic step count T and a
# symbolic grid size N take barvinok minutes: their step count alone is symbolic here; so is
# one size of SCALE-Sim's convolution, whose window addresses (nested floors of m and k)
# over three symbolic sizes take minutes
FEWER_SYMBOLS = {"seidel-2d": 1, "fdtd-2d": 1, "scalesim-conv": 1}


@pytest.mark.slow
@pytest.mark.parametrize("combination", combinations(), ids="/".join)
def test_every_zoo_combination_formulas_equal_direct_counts(combination):
    # three sizes symbolic (six-size convolutions take minutes and thousands of pieces), in
    # 1..10 on arrays of 8 or so: below the array, dividing it or not
    seed = sum(map(ord, "/".join(combination)))
    symbols = FEWER_SYMBOLS.get(combination[0], 3)
    _check_agrees(_zoo(*combination), "window", seed=seed, largest=10, symbolic_sizes=symbols)


PAPER_ARGS = ("eval", "-w", "gemm", "-a", "systolic-2d:rows=2,cols=2", "-d", "gemm-os-systolic")


def test_cli_prints_the_paper_example_formulas(capsys: pytest.CaptureFixture[str]):
    code, out, _ = _cli(capsys, *PAPER_ARGS, "--symbolic", "-p", "M=2", "-p", "N=2")
    assert code == 0
    # A[i, k] enters PE[i, 0] once and moves right: 2K unique, 2K spatial reuses
    assert "volume_unique[A.read] =\n  2 * K    if K > 0\n" in out
    assert "volume_reuse_spatial[A.read] =\n  2 * K    if K > 0\n" in out
    code, out, _ = _cli(capsys, *PAPER_ARGS, "--symbolic", "--format", "json")
    assert code == 0 and json.loads(out)["symbols"] == ["M", "N", "K"]
    code, out, _ = _cli(capsys, *PAPER_ARGS, "--symbolic", "--latex", "-p", "M=2", "-p", "N=2")
    assert code == 0 and r"4 \cdot K & \text{if } K = 1" in out


def test_cli_symbolic_needs_a_triple(capsys: pytest.CaptureFixture[str]):
    code, _, err = _cli(capsys, "eval", "experiment_1", "--symbolic")
    assert code == 2
    assert "--symbolic with EXPERIMENTS: the formulas need a workload/arch/dataflow triple" in err
