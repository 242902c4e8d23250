"""A design point's row counts only what it needs, yet equals the full evaluation's; the
neighbour maps it shares with other points are an explicit argument, never written into a
problem."""

from __future__ import annotations

import pytest

from tenet.dse.run.worker import metric_row
from tenet.dse.space.design import DesignSpace, SpaceOptions
from tenet.metrics import evaluate
from tenet.metrics.assessment import assess_problem
from tenet.metrics.design import SharedCounts, design_row
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


def test_shared_neighbours_are_reused_without_writing_into_a_problem() -> None:
    # one dataflow twice: the second problem takes the first's neighbour maps from ``shared``
    # (the same active PEs and time-stamps) and builds none of its own
    first, again = (next(_problems(SMALL, "systolic-2d-8x8", "links", step=1)) for _ in "ab")
    shared = SharedCounts()
    expected = metric_row(evaluate(first))
    assert assess_problem(first, figures=["design"], shared=shared).design == expected
    assert assess_problem(again, figures=["design"], shared=shared).design == expected
    assert shared.neighbours(again) is first.neighbours
    assert "neighbours" not in again.__dict__
