"""The data assignment Θ⁻¹∘A of the paper's worked example, checked element by element."""

from __future__ import annotations

import islpy as isl

from tests.paper_example import SKEWED
from tests.paper_example import problem as paper_problem


def _points(relation: isl.Map) -> set[tuple[int, ...]]:
    found: set[tuple[int, ...]] = set()
    wrapped = relation.wrap()
    n = wrapped.dim(isl.dim_type.set)
    wrapped.foreach_point(
        lambda p: found.add(
            tuple(int(p.get_coordinate_val(isl.dim_type.set, k).to_python()) for k in range(n))
        )
    )
    return found


def test_assignment_worked_example_gemm_2x2_k4() -> None:
    problem = paper_problem(SKEWED)
    held = _points(problem.assignment(problem.accesses[0]))
    # PE[i,j] at time t runs S[i,j,t-i-j] and so holds A[i, t-i-j] while 0 <= t-i-j < 4.
    expected = {
        (i, j, t, i, t - i - j)
        for i in range(2)
        for j in range(2)
        for t in range(6)
        if 0 <= t - i - j < 4
    }
    assert held == expected
    # A[0,0] is at PE[0,0] at T[0] and at PE[0,1] at T[1]: it moves right one PE per step.
    assert {(p, q, t) for p, q, t, a, k in held if (a, k) == (0, 0)} == {(0, 0, 0), (0, 1, 1)}
