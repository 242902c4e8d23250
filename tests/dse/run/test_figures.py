"""A design point's row counts only what it needs, yet equals the full evaluation's; pruning
by a bound leaves the ranking by the bounded objective exactly that of full evaluation."""

from __future__ import annotations

import pytest

from tenet.dse.explore import explore
from tenet.dse.run.execution import ExecutionOptions
from tenet.dse.run.figures import SharedCounts, design_row
from tenet.dse.run.worker import metric_row
from tenet.dse.space.design import DesignSpace, SpaceOptions
from tenet.metrics import evaluate
from tenet.model import Architecture, Dataflow, Problem, Workload
from tenet.spec import DataflowSpec, Specs, load_architecture, load_workload
from tenet.vocab import Neighbourhood

SMALL = {"M": 8, "N": 8, "K": 8}
# 5 x 6 x 3 does not divide the arrays: partial tiles, uneven per-step counts
ODD = {"M": 5, "N": 6, "K": 3}


def _problems(params: dict[str, int], arch: str, around: Neighbourhood, step: int):
    workload, architecture = load_workload("gemm"), load_architecture(arch)
    w, a = Workload.from_spec(workload, params), Architecture.from_spec(architecture, params)
    space = DesignSpace(Specs(workload, architecture, None, params), SpaceOptions())
    for candidate in list(space)[::step]:
        space_stamp, time_stamp = candidate.mapping.stamp_texts
        spec = DataflowSpec.from_mapping(
            {"name": candidate.name, "space_stamp": space_stamp, "time_stamp": time_stamp}
        )
        yield Problem(w, a, Dataflow.from_spec(spec, params), neighbourhood=around)


@pytest.mark.parametrize("around", ["links", "window"])
@pytest.mark.parametrize(
    ("params", "arch"),
    [(SMALL, "systolic-2d-8x8"), (ODD, "switch-2d-4x4"), (ODD, "multicast-2d-8x8")],
    ids=["8", "odd-switch", "odd-multicast"],
)
def test_design_row_equals_full_evaluation(params, arch, around: Neighbourhood):
    shared = SharedCounts()
    for problem in _problems(params, arch, around, step=9):
        assert design_row(problem, shared) == metric_row(evaluate(problem)), problem.dataflow.name


@pytest.mark.parametrize("by", ["latency", "energy", "edp"])
def test_pruned_search_ranks_as_full_evaluation(by: str):
    full = explore("gemm", "systolic-2d-8x8", params=SMALL, execution=ExecutionOptions(workers=1))
    pruned = explore(
        "gemm", "systolic-2d-8x8", params=SMALL, best=(by, 5), execution=ExecutionOptions(workers=1)
    )
    columns = ["index", "name", "latency_cycles", "energy", "edp"]
    expected = full.ranked(by, 5)[columns].to_dict(orient="records")
    assert pruned.ranked(by, 5)[columns].to_dict(orient="records") == expected
    assert set(pruned.results["status"]) <= {"ok", "pruned"}


def test_pruned_points_say_why():
    result = explore(
        "gemm",
        "systolic-2d-8x8",
        params=SMALL,
        best=("latency", 1),
        execution=ExecutionOptions(workers=1),
    )
    reasons = result.results.loc[result.results["status"] == "pruned", "reason"]
    assert len(reasons) > 0
    assert all(r.startswith("latency at least ") for r in reasons)


def test_unbounded_objective_prunes_nothing():
    result = explore(
        "gemm",
        "systolic-2d-8x8",
        params=SMALL,
        best=("sbw", 1),
        execution=ExecutionOptions(workers=1),
    )
    assert set(result.results["status"]) == {"ok"}
