"""Space-time neighbour relations, pair by pair, on a line of 3 PEs with a registered link
p -> p + 1 and a same-step bus from PE[0], occupied at the time-stamps 0, 2 and 5."""

from __future__ import annotations

import islpy as isl
import pytest

from tenet import Problem, load_problem
from tenet.spec import ArchitectureSpec, DataflowSpec, WorkloadSpec

Pair = tuple[tuple[int, int], tuple[int, int]]


@pytest.fixture(scope="module")
def problem() -> Problem:
    workload = WorkloadSpec.from_mapping(
        {
            "name": "w",
            "domain": "{S[i, j]: 0 <= i < 3 and 0 <= j < 3}",
            "accesses": {"A": {"read": "{S[i, j] -> A[j]}"}},
        }
    )
    array = ArchitectureSpec.from_mapping(
        {
            "name": "line",
            "pe": "{PE[p]: 0 <= p < 3}",
            "interconnect": [
                {"link": "{PE[p] -> PE[p + 1]}", "delay": 1},
                {"link": "{PE[0] -> PE[p]: 0 <= p < 3}", "delay": 0},
            ],
        }
    )
    # j = 0, 1, 2 run at T[0], T[2], T[5]: the previous occupied stamp of 5 is 2, not 4
    flow = DataflowSpec.from_mapping(
        {
            "name": "d",
            "space_stamp": "{S[i, j] -> PE[i]}",
            "time_stamp": "{S[i, j] -> T[2j + floor(j / 2)]}",
        }
    )
    return load_problem(workload, array, flow)


def _pairs(relation: isl.Map) -> set[Pair]:
    found: set[Pair] = set()

    def add(point: isl.Point) -> None:
        p, t, q, u = (
            int(point.get_coordinate_val(isl.dim_type.set, k).to_python()) for k in range(4)
        )
        found.add(((p, t), (q, u)))

    relation.wrap().foreach_point(add)
    return found


TIMES = [0, 2, 5]
PREV = {2: 0, 5: 2}


def test_spacetime_temporal_is_the_previous_occupied_stamp(problem: Problem) -> None:
    expected = {((p, t), (p, PREV[t])) for p in range(3) for t in PREV}
    assert _pairs(problem.neighbours.temporal) == expected


def test_spacetime_temporal_at_distance_two(problem: Problem) -> None:
    # only T[5] has a stamp two occupied steps back: T[0]
    assert _pairs(problem.neighbours.temporal_at(2)) == {((p, 5), (p, 0)) for p in range(3)}


def test_spacetime_spatial_follows_each_link_delay(problem: Problem) -> None:
    # PE[0]'s link partner PE[-1] is outside the array: kept, as in the original; it holds
    # nothing, so it never adds reuse
    registered = {((q, t), (q - 1, PREV[t])) for q in range(3) for t in PREV}
    bus = {((q, t), (0, t)) for q in (1, 2) for t in TIMES}  # PE[0] -> PE[0] is not a link
    assert _pairs(problem.neighbours.spatial) == registered | bus


def test_spacetime_default_is_linked_or_self_at_same_or_previous_stamp(problem: Problem) -> None:
    senders = {0: {-1}, 1: {0}, 2: {0, 1}}
    expected = {
        ((q, t), (r, u))
        for q in range(3)
        for t in TIMES
        for r in senders[q] | {q}
        for u in ([t, PREV[t]] if t in PREV else [t])
        if (r, u) != (q, t)
    }
    assert len(expected) == 26  # 7 (PE 0, with PE[-1]) + 7 (PE 1) + 12 (PE 2), by hand
    assert _pairs(problem.neighbours.window) == expected
