"""Exploration: streaming into the store, resuming a stopped or killed sweep, the time budget,
and the distributed engine giving the same table as the local pool."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tenet.dse.explore import explore, sweep
from tenet.dse.ranking.pareto import draw_pareto
from tenet.dse.run.execution import ExecutionOptions
from tenet.dse.run.store import ResultStore
from tenet.errors import SpecError

SMALL = {"M": 8, "N": 8, "K": 8}


class Stop(Exception):
    """Raised by the progress hook to stop a sweep midway."""


def stop_after(count: int):
    def hook(rows: Iterator[dict[str, Any]], total: int, desc: str) -> Iterator[dict[str, Any]]:
        for k, row in enumerate(rows):
            if k == count:
                raise Stop
            yield row

    return hook


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory):
    store = tmp_path_factory.mktemp("ref") / "ref.sqlite"
    return explore("gemm", "systolic-2d-8x8", params=SMALL, execution=ExecutionOptions(store=store))


def test_explore_rows_follow_the_space(reference):
    results = reference.results
    assert reference.complete
    assert results["index"].tolist() == list(range(reference.sizes.kept))
    assert set(results["status"]) == {"ok"}
    # GEMM 8^3 on 8x8 runs 512 MACs on 64 PEs: at least 8 cycles, and every design point
    # reads A and B (64 elements each) once at least: ceil(128 / 4) + 16 - 1 = 47 cycles
    assert results["latency_cycles"].min() == 47


def test_explore_resumes_after_stop(tmp_path: Path, reference):
    store = tmp_path / "runs.sqlite"
    with pytest.raises(Stop):
        explore(
            "gemm",
            "systolic-2d-8x8",
            params=SMALL,
            execution=ExecutionOptions(store=store, progress=stop_after(5)),
        )
    with sqlite3.connect(store) as db:
        (stored,) = db.execute("SELECT COUNT(*) FROM results").fetchone()
    assert 5 <= stored < reference.sizes.kept
    resumed = explore(
        "gemm", "systolic-2d-8x8", params=SMALL, execution=ExecutionOptions(store=store)
    )
    assert resumed.complete
    assert resumed.results.equals(reference.results)


def test_explore_resumes_after_kill(tmp_path: Path):
    store = tmp_path / "killed.sqlite"
    params = {"M": 16, "N": 16, "K": 16}
    command = [
        sys.executable, "-m", "tenet", "dse", "-w", "gemm", "-a", "systolic-2d-8x8",
        "-p", "M=16", "-p", "N=16", "-p", "K=16", "--workers", "1", "--store", str(store),
    ]  # fmt: skip
    process = subprocess.Popen(
        command, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 60
        stored = 0
        while stored < 4 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
            if store.exists():
                with sqlite3.connect(store) as db:
                    tables = db.execute("SELECT name FROM sqlite_master").fetchall()
                    if ("results",) in tables:
                        (stored,) = db.execute("SELECT COUNT(*) FROM results").fetchone()
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert process.returncode == -signal.SIGKILL
    with sqlite3.connect(store) as db:
        (stored,) = db.execute("SELECT COUNT(*) FROM results").fetchone()
    resumed = explore(
        "gemm", "systolic-2d-8x8", params=params, execution=ExecutionOptions(store=store)
    )
    assert 4 <= stored < len(resumed.results)
    uninterrupted = explore("gemm", "systolic-2d-8x8", params=params)
    assert resumed.results.equals(uninterrupted.results)


def test_explore_on_dask_equals_local_pool(reference):
    pytest.importorskip("distributed")
    on_dask = explore(
        "gemm",
        "systolic-2d-8x8",
        params=SMALL,
        execution=ExecutionOptions(engine="dask", workers=2),
    )
    assert on_dask.results.equals(reference.results)


@pytest.mark.parametrize("budget", ["time_budget", "cpu_budget"])
def test_explore_budget_leaves_run_incomplete(budget: str):
    partial = explore(
        "gemm",
        "systolic-2d-8x8",
        params=SMALL,
        execution=ExecutionOptions(workers=1, **{budget: 0.0}),
    )
    assert not partial.complete
    assert len(partial.results) < partial.sizes.kept


def test_store_refuses_another_space(tmp_path: Path):
    store = ResultStore(tmp_path / "s.sqlite")
    store.add("r", [{"idx": 0, "name": "PE[x] T[y]", "status": "ok"}])
    with pytest.raises(SpecError, match="another version of the space"):
        store.check_names("r", {0: "PE[i] T[j]"})


def test_sweep_every_workload_on_every_array():
    result = sweep(
        [("a", "gemm", SMALL), ("b", "gemm", {"M": 16, "N": 8, "K": 8})],
        ["systolic-2d-8x8", "systolic-2d-16x16"],
        execution=ExecutionOptions(workers=2),
    )
    assert [(e.workload, e.architecture) for e in result.explorations] == [
        ("a", "systolic-2d-8x8"),
        ("a", "systolic-2d-16x16"),
        ("b", "systolic-2d-8x8"),
        ("b", "systolic-2d-16x16"),
    ]
    assert result.complete
    best = result.best("latency")
    assert len(best) == 4
    assert len(result.results) == sum(e.sizes.kept for e in result.explorations)


def test_draw_pareto_returns_axes(reference):
    from matplotlib.figure import Figure

    ax = Figure().add_subplot()
    assert draw_pareto(reference.results, "latency", "energy", ax=ax) is ax
    assert ax.get_ylabel().startswith("array's energy")
