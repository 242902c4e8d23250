from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from tenet.dse.explore import explore
from tenet.dse.run.engines import InProcessEngine
from tenet.dse.run.execution import ExecutionOptions
from tenet.errors import SpecError

SMALL = {"M": 2, "N": 2, "K": 2}


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"engine": "spark"}, r"^engine: unknown engine 'spark' \(known: local, dask\)$"),
        ({"workers": 0}, r"^workers: workers must be at least 1, got 0$"),
        ({"address": "tcp://127.0.0.1:1"}, r"^address: address needs engine 'dask', got 'local'$"),
        ({"time_budget": -1.0}, r"^time_budget: expected seconds >= 0, got -1$"),
        ({"cpu_budget": -1.0}, r"^cpu_budget: expected CPU seconds >= 0, got -1$"),
        ({"cpu_budget": float("nan")}, r"^cpu_budget: expected CPU seconds >= 0, got nan$"),
        ({"batch": 0}, r"^batch: batch must be at least 1, got 0$"),
    ],
)
def test_bad_execution_options_are_refused(given: dict[str, Any], message: str) -> None:
    with pytest.raises(SpecError, match=message):
        ExecutionOptions(**given)


def test_execution_options_are_frozen() -> None:
    options = ExecutionOptions()
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.workers = 3  # type: ignore[misc]


def test_in_process_engine_gives_the_rows_of_the_pool() -> None:
    pool = explore("gemm", "systolic-2d-8x8", params=SMALL, execution=ExecutionOptions(workers=1))
    here = explore("gemm", "systolic-2d-8x8", params=SMALL, execution=ExecutionOptions(None))
    inline = explore(
        "gemm",
        "systolic-2d-8x8",
        params=SMALL,
        execution=ExecutionOptions(engine=InProcessEngine(), batch=1),
    )
    assert here.results.equals(pool.results)
    assert inline.results.equals(pool.results)
