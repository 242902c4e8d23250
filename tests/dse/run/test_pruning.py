"""Pruning the design-space search by a cutoff leaves the ranking by the bounded objective
exactly that of full evaluation, and says why each point was pruned."""

from __future__ import annotations

import pytest

from tenet.dse.explore import Exploration, explore
from tenet.dse.run.execution import ExecutionOptions

SMALL = {"M": 8, "N": 8, "K": 8}


def _explore(best: tuple[str, float] | None = None) -> Exploration:
    workers = ExecutionOptions(workers=1)
    return explore("gemm", "systolic-2d-8x8", params=SMALL, best=best, execution=workers)


@pytest.mark.parametrize("by", ["latency", "energy", "edp"])
def test_pruned_search_ranks_as_full_evaluation(by: str):
    full, pruned = _explore(), _explore((by, 5))
    columns = ["index", "name", "latency_cycles", "energy", "edp"]
    expected = full.ranked(by, 5)[columns].to_dict(orient="records")
    assert pruned.ranked(by, 5)[columns].to_dict(orient="records") == expected
    assert set(pruned.results["status"]) <= {"ok", "pruned"}


def test_pruned_points_say_why():
    result = _explore(("latency", 1))
    reasons = result.results.loc[result.results["status"] == "pruned", "reason"]
    assert len(reasons) > 0
    assert all(r.startswith("latency at least ") for r in reasons)


def test_unbounded_objective_prunes_nothing():
    result = _explore(("sbw", 1))
    assert set(result.results["status"]) == {"ok"}
