"""The CPU a search spends is its own and what its workers report; no job starts past its CPU
budget, and the allowances of the jobs running never add up to more than what is left."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tenet.dse.run.budget import Allowance, Ends
from tenet.dse.run.engines import UNPACED, Engine, Job, Pace, Work
from tenet.dse.run.execution import ExecutionOptions
from tenet.dse.run.runner import Runner, Settled

REPORTED = 5.0
"""CPU seconds a :class:`Reporting` worker says each job took."""


class Reporting(Engine):
    """``workers`` in this process: each job runs here and reports :data:`REPORTED` CPU
    seconds, or, when it takes an allowance, every CPU second of it (a job that spends all it
    may); up to ``held`` jobs (default: one a worker) are submitted before the first
    reports."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.held: list[int | None] = []

    def _in_flight(self, pace: Pace) -> int:
        return self.workers if pace.held is None else pace.held

    def __exit__(self, *exc: object) -> None:
        return None

    def run(self, function: Work, jobs: Iterator[Job], pace: Pace = UNPACED) -> Iterator[Any]:
        self.held.append(pace.held)
        submitted: list[Job] = []
        for job in jobs:
            submitted.append(job)
            if len(submitted) < self._in_flight(pace):
                continue
            yield self._report(function, submitted.pop(0))
        while submitted:
            yield self._report(function, submitted.pop(0))

    def _report(self, function: Callable[..., Any], job: Job) -> Any:
        tag, result = function(*job)
        allowance = job[2]
        seconds = REPORTED if allowance is None else allowance[1]
        return self._took(((tag, result), seconds))


def _spends(index: int, allowance: list[float | None] | None = None) -> Allowance:
    """A job that returns the allowance granted it."""
    return Allowance.of(allowance)


def test_the_cpu_workers_report_counts_and_stops_the_search() -> None:
    # 12 CPU-s, one worker: jobs of 5 reported CPU-s each start while less than 12 is spent
    # (this process's own CPU meanwhile is a small part of a second): at 0, 5, 10, no more
    engine = Reporting(workers=1)
    with Runner(ExecutionOptions(engine=engine, cpu_budget=12.0)) as runner:
        done = list(runner.run(pow, [(2, k) for k in range(10)]))
        assert done == [1, 2, 4]
        assert engine.worker_seconds == 3 * REPORTED
        assert runner.spent() >= 3 * REPORTED and runner.expired()
    assert engine.held == [None]  # tasks without an allowance: the engine's own queue


def test_the_cpu_an_engine_reported_before_the_search_is_not_its() -> None:
    engine = Reporting(workers=1)
    engine.worker_seconds = 100.0  # another search on the same engine
    with Runner(ExecutionOptions(engine=engine, cpu_budget=10.0)) as runner:
        assert runner.spent() < 10.0 and not runner.expired()
        assert list(runner.run(pow, [(2, 3)])) == [8]
        assert runner.spent() >= REPORTED


def test_allowances_running_never_add_up_to_more_than_what_is_left() -> None:
    # two workers, each job spending its whole allowance: the first two share the 10 CPU-s
    # (half to the first, what is left to the second), and then none is left to grant
    engine = Reporting(workers=2)
    with Runner(ExecutionOptions(engine=engine, cpu_budget=10.0)) as runner:
        jobs: list[Job | Settled] = [(k,) for k in range(6)]
        granted = list(runner.run(_spends, [*jobs[:2], Settled(9, None), *jobs[2:]], allowed=True))
    allowances = [a.cpu for a in granted if isinstance(a, Allowance)]
    assert Settled(9, None) in granted
    assert all(cpu is not None and cpu >= 0 for cpu in allowances)
    assert sum(a for a in allowances if a is not None) <= 10.0
    assert engine.worker_seconds <= 10.0
    # a job that takes an allowance starts when a worker is free: none waits in a queue
    assert len(allowances) == 2 and engine.held == [2]


def test_an_allowance_carries_the_clock_end() -> None:
    # a deadline already passed: every job is granted an end the clock has passed
    with Runner(ExecutionOptions(None, time_budget=0.0)) as runner:
        allowance = runner.allowance()
    assert allowance.cpu is None and allowance.until is not None
    assert allowance.started()()


@pytest.mark.parametrize(("fraction", "expected"), [(0.5, 6.0), (1.0, 10.0), (0.0, 2.0)])
def test_a_phase_takes_its_share_of_what_is_left(fraction: float, expected: float) -> None:
    # 2 of 10 CPU-s spent: a phase of half what is left ends at 2 + 8 / 2 = 6
    assert Ends(None, 10.0).share(fraction, spent=2.0) == Ends(None, expected)


def test_a_search_in_this_process_is_allowed_what_is_left() -> None:
    with Runner(ExecutionOptions(None, cpu_budget=0.0)) as runner:
        assert runner.allowance().cpu == 0.0 and runner.expired()
    with Runner(ExecutionOptions(None)) as runner:
        assert runner.allowance() == Allowance() and not runner.limited
