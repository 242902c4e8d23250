"""Compute latency and instances per (PE, time-stamp), against hand-derived figures."""

from __future__ import annotations

import pytest

from tenet import evaluate, load_problem
from tenet.errors import SpecError
from tenet.oracle.metrics import reference_metrics
from tenet.spec import ArchitectureSpec, DataflowSpec, WorkloadSpec

ARRAY = ArchitectureSpec.from_mapping({"name": "a", "pe": "{PE[p]: 0 <= p < 2}"})


def _metrics(domain: str, space: str, time: str) -> object:
    workload = WorkloadSpec.from_mapping(
        {"name": "w", "domain": domain, "accesses": {"A": {"read": "{S[i, j] -> A[i]}"}}}
    )
    flow = DataflowSpec.from_mapping({"name": "d", "space_stamp": space, "time_stamp": time})
    return evaluate(load_problem(workload, ARRAY, flow))


def test_schedule_triangle_with_varying_occupancy() -> None:
    # S[i, j], 0 <= j <= i < 4, all on PE[0] at T[i]: i + 1 instances at T[i], so the
    # busiest PE runs 1 + 2 + 3 + 4 = 10 cycles and at most 4 instances share a point.
    m = _metrics("{S[i, j]: 0 <= j <= i < 4}", "{S[i, j] -> PE[0]}", "{S[i, j] -> T[i]}")
    assert (m.latency_compute, m.instances_per_step_max, m.timestamps) == (10, 4, 4)


def test_schedule_busiest_pe_sets_the_step() -> None:
    # S[i, j], 0 <= i < 3, 0 <= j < 4 at T[i]; PE[0] gets j < 3 (3 instances), PE[1] gets
    # j = 3 (1 instance): each of the 3 steps takes 3 cycles, 9 in all; 12 MACs on 2 PEs
    # give the original's balanced figure 6.
    m = _metrics(
        "{S[i, j]: 0 <= i < 3 and 0 <= j < 4}",
        "{S[i, j] -> PE[p]: (j < 3 and p = 0) or (j = 3 and p = 1)}",
        "{S[i, j] -> T[i]}",
    )
    assert (m.latency_compute, m.latency_compute_avg, m.instances_per_step_max) == (9, 6, 3)


def test_schedule_one_instance_per_point_is_one_cycle_per_step() -> None:
    # S[i, j] on PE[j % 2] at T[i, floor(j / 2)]: one instance per point, 3 x 2 = 6 steps
    m = _metrics(
        "{S[i, j]: 0 <= i < 3 and 0 <= j < 4}",
        "{S[i, j] -> PE[j % 2]}",
        "{S[i, j] -> T[i, floor(j / 2)]}",
    )
    assert (m.latency_compute, m.instances_per_step_max, m.utilisation) == (6, 1, 1)


def _with_steps(steps: str) -> DataflowSpec:
    return DataflowSpec.from_mapping(
        {
            "name": "d",
            "space_stamp": "{S[i, j] -> PE[j % 2]}",
            "time_stamp": "{S[i, j] -> T[i, 1 + floor(j / 2)]}",
            "steps": steps,
        }
    )


def test_schedule_idle_steps_count_one_cycle_each() -> None:
    # S[i, j], 0 <= i < 3, 0 <= j < 4, on PE[j % 2] at T[i, 1 + floor(j / 2)]: 6 busy steps;
    # the steps T[i, 0] before each row (a load) are idle: 3 more cycles, 9 in all. The
    # time-stamps and the utilisation count the busy steps only.
    workload = WorkloadSpec.from_mapping(
        {
            "name": "w",
            "domain": "{S[i, j]: 0 <= i < 3 and 0 <= j < 4}",
            "accesses": {"A": {"read": "{S[i, j] -> A[i]}"}},
        }
    )
    flow = _with_steps("{T[i, t]: 0 <= i < 3 and 0 <= t < 3}")
    m = evaluate(load_problem(workload, ARRAY, flow))
    assert (m.latency_compute, m.timestamps, m.utilisation) == (9, 6, 1)
    oracle = reference_metrics(workload, ARRAY, flow)
    assert oracle["latency_compute"] == m.latency_compute


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ("{T[i, t]: 0 <= i < 3 and 0 <= t < 2}", r"time-stamp T\[\d, 2\] is not one of the steps"),
        ("{U[t]: 0 <= t < 9}", "the steps are U with 1 indices, but the time-stamps are T with 2"),
    ],
)
def test_schedule_steps_hold_every_time_stamp(steps: str, message: str) -> None:
    workload = WorkloadSpec.from_mapping(
        {
            "name": "w",
            "domain": "{S[i, j]: 0 <= i < 3 and 0 <= j < 4}",
            "accesses": {"A": {"read": "{S[i, j] -> A[i]}"}},
        }
    )
    with pytest.raises(SpecError, match=message):
        load_problem(workload, ARRAY, _with_steps(steps))
