"""Every metric of the relation-centric engine equals the brute-force oracle's, on scaled-down
TENET experiments and on random workloads, arrays and dataflows."""

from __future__ import annotations

import math
from dataclasses import fields
from pathlib import Path
from typing import Any

import islpy as isl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tenet import evaluate, load_problem
from tenet.metrics import Metrics
from tenet.oracle.metrics import reference_metrics
from tenet.spec import ArchitectureSpec, DataflowSpec, Specs, WorkloadSpec, read_experiment
from tenet.testing.strategies import problems
from tenet.vocab import NEIGHBOURHOODS, Neighbourhood
from tests.paper_example import GEMM, MULTICAST, SKEWED, SYSTOLIC, UNSKEWED
from tests.tenet_files import EXPERIMENTS

MAX_INSTANCES = 1500


def _approx(value: Any) -> Any:
    return pytest.approx(value, rel=1e-12) if isinstance(value, float) else value


def assert_agrees(metrics: Metrics, expected: dict[str, Any]) -> None:
    """Compare every field of ``metrics`` with the oracle's figures (floats to 1e-12)."""
    for f in fields(metrics):
        if f.name in ("name", "tensors", "original"):
            continue
        got, want = getattr(metrics, f.name), expected[f.name]
        if isinstance(want, float):
            assert math.isclose(got, want, rel_tol=1e-12), f.name
        else:
            assert got == want, f.name
    assert len(metrics.tensors) == len(expected["tensors"])
    for tensor, want in zip(metrics.tensors, expected["tensors"], strict=True):
        for key, value in want.items():
            assert getattr(tensor, key) == value, (tensor.tensor, tensor.access, key)
    report = metrics.original.to_dict()
    reference = expected["original"]
    assert report["tensors"].keys() == reference["tensors"].keys()
    for name, values in reference["tensors"].items():
        for key, value in values.items():
            assert report["tensors"][name][key] == _approx(value), (name, key)
    for key, value in reference.items():
        if key != "tensors":
            assert report[key] == _approx(value), key


def _scaled(workload: WorkloadSpec) -> WorkloadSpec:
    """Cut the domain to a box at its lower corner holding at most MAX_INSTANCES points."""
    domain = isl.Set(workload.domain)
    n = domain.dim(isl.dim_type.set)
    low = [int(domain.dim_min_val(k).to_python()) for k in range(n)]
    extent = [int(domain.dim_max_val(k).to_python()) - low[k] + 1 for k in range(n)]
    while math.prod(extent) > MAX_INSTANCES:
        k = extent.index(max(extent))
        extent[k] = max(1, extent[k] * 2 // 3)
    names = domain.get_var_names(isl.dim_type.set)
    box = " and ".join(f"{v} < {lo + e}" for v, lo, e in zip(names, low, extent, strict=True))
    cut = domain.intersect(isl.Set(f"{{S[{', '.join(names)}]: {box}}}"))
    return workload.model_copy(update={"domain": str(cut)})


@pytest.mark.parametrize("key", list(EXPERIMENTS))
def test_oracle_agrees_on_scaled_down_tenet_experiments(key: str, tenet_data: Path) -> None:
    folder, name = key.split("/")
    experiment = read_experiment(tenet_data / folder / "experiment" / name).specs
    workload = _scaled(experiment.workload)
    problem = load_problem(workload, experiment.architecture, experiment.dataflow)
    expected = reference_metrics(workload, experiment.architecture, experiment.dataflow)
    assert_agrees(evaluate(problem), expected)


@given(problems(), st.sampled_from(NEIGHBOURHOODS))
def test_oracle_agrees_on_random_problems(drawn: Specs, around: Neighbourhood) -> None:
    w, a, d = drawn.workload, drawn.architecture, drawn.dataflow
    problem = load_problem(w, a, d, neighbourhood=around)
    assert_agrees(evaluate(problem), reference_metrics(w, a, d, neighbourhood=around))


def test_oracle_agrees_on_paper_example_with_hand_figures() -> None:
    # GEMM on 2x2 PEs with K=4, Θ = S[i,j,k] -> (PE[i,j] | T[i+j+k]); A moves right, B down.
    workload, array, flow = (
        WorkloadSpec.from_mapping(GEMM),
        ArchitectureSpec.from_mapping(SYSTOLIC),
        DataflowSpec.from_mapping(SKEWED),
    )
    metrics = evaluate(load_problem(workload, array, flow))
    assert_agrees(metrics, reference_metrics(workload, array, flow))
    a = metrics.tensor("A")
    # 16 instances read one A element each; A[i,k] enters PE[i,0] from the scratchpad (8
    # elements) and PE[i,1] takes it from PE[i,0] one step later (8 spatial reuses).
    assert (a.volume_total, a.volume_unique, a.volume_reuse_spatial) == (16, 8, 8)
    c = metrics.tensor("C")
    # C[i,j] stays in PE[i,j] for its 4 steps: 4 unique (point, element) pairs, 12 temporal.
    assert (c.volume_unique, c.volume_reuse_temporal) == (4, 12)
    # time-stamps 0..5 (i + j + k <= 1 + 1 + 3); each PE is busy for 4 of them
    assert (metrics.timestamps, metrics.occupied_points, metrics.latency_compute) == (6, 16, 6)


def _unskewed_gemm(delay: int, around: Neighbourhood) -> Metrics:
    workload = WorkloadSpec.from_mapping(GEMM)
    array = ArchitectureSpec.from_mapping(MULTICAST if delay == 0 else SYSTOLIC)
    flow = DataflowSpec.from_mapping(UNSKEWED)
    metrics = evaluate(load_problem(workload, array, flow, neighbourhood=around))
    assert_agrees(metrics, reference_metrics(workload, array, flow, neighbourhood=around))
    return metrics


@pytest.mark.parametrize(
    ("delay", "around", "unique"),
    [
        # the window counts A[i,k] at PE[i,1] as found at PE[i,0] in the same step: 2 x 4
        (1, "window", 8),
        # a registered link delivers one step late: PE[i,1] fetches its own copy, 16 in all
        (1, "links", 16),
        # a same-step wire delivers in time: 8 again
        (0, "links", 8),
    ],
)
def test_oracle_neighbourhood_decides_whether_a_same_step_copy_counts(
    delay: int, around: Neighbourhood, unique: int
) -> None:
    metrics = _unskewed_gemm(delay, around)
    assert metrics.tensor("A").volume_unique == unique
    assert metrics.original.tensors["A"].UniqueVolume == 8  # the original's window
