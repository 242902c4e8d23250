"""What a time budget leaves out is a row of the result, and an interrupted search says how
to resume from its store."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tenet.dse.explore import NOT_SEARCHED, sweep
from tenet.dse.run.engines import UNPACED, InProcessEngine, Job, Pace, Work
from tenet.dse.run.execution import ExecutionOptions
from tests.conftest import run

SMALL = {"M": 8, "N": 8, "K": 8}
ARRAYS = ["systolic-2d-8x8", "multicast-2d-8x8"]


class FirstJobOnly(InProcessEngine):
    """Runs the first job and no other, as a deadline reached after it would."""

    def run(self, function: Work, jobs: Iterator[Job], pace: Pace = UNPACED) -> Iterator[Any]:
        for job in jobs:
            yield function(*job)
            return


def test_sweep_marks_the_points_a_deadline_left_out() -> None:
    result = sweep(
        [("a", "gemm", SMALL)],
        ARRAYS[:1],
        execution=ExecutionOptions(engine=FirstJobOnly(), batch=4),
    )
    (exploration,) = result.explorations
    assert not exploration.complete and len(exploration.results) == 4
    assert exploration.sizes is not None and exploration.planned == exploration.sizes.kept
    table = result.ranked("latency")
    marked = table[table["status"] == NOT_SEARCHED]
    left = exploration.sizes.kept - 4
    assert marked["name"].tolist() == [
        f"{NOT_SEARCHED}: {left} of {exploration.sizes.kept} design points"
    ]
    assert len(table) == 4 + 1


@pytest.mark.parametrize("budget", ["time_budget", "cpu_budget"])
def test_sweep_past_its_budget_builds_no_more_spaces(budget: str) -> None:
    result = sweep(
        [("a", "gemm", SMALL), ("b", "gemm", SMALL)],
        ARRAYS,
        execution=ExecutionOptions(workers=1, **{budget: 0.0}),
    )
    first, *rest = result.explorations
    # the first space is built (its sizes tell what was left out), nothing is evaluated
    assert first.sizes is not None and len(first.results) == 0
    assert all(e.sizes is None and not e.complete for e in rest)
    table = result.ranked("latency")
    assert (table["status"] == NOT_SEARCHED).all()
    assert table["name"].tolist() == [
        f"{NOT_SEARCHED}: {first.sizes.kept} of {first.sizes.kept} design points",
        *[f"{NOT_SEARCHED}: every design point"] * 3,
    ]


@pytest.mark.parametrize(
    ("fmt", "budget"),
    [("table", "--time-budget"), ("csv", "--time-budget"), ("json", "--cpu-budget")],
)
def test_cli_sweep_rows_not_searched_in_every_format(
    capsys: pytest.CaptureFixture[str], fmt: str, budget: str
) -> None:
    sizes = ("-p", "M=8", "-p", "N=8", "-p", "K=8")
    args = ("sweep", "-w", "gemm", "-a", ARRAYS[0], "-a", ARRAYS[1], *sizes)
    code, out, err = run(capsys, *args, budget, "0", "--format", fmt)
    assert code == 0, err
    if fmt == "json":
        names = [row["name"] for row in json.loads(out)]
    elif fmt == "csv":
        header, *lines = out.strip().splitlines()
        names = [line.split(",")[header.split(",").index("name")] for line in lines]
    else:
        names = [line for line in out.splitlines()[2:] if line.strip()]  # 2 header lines
    assert len(names) == 2 and all(NOT_SEARCHED in name for name in names)
    assert f"gemm on {ARRAYS[1]}: {NOT_SEARCHED}" in err


def _interruptible() -> None:
    """Let Ctrl-C reach the command as a terminal's does: a suite started in the background
    of a shell without job control inherits it ignored, and so would the command."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_cli_interrupted_sweep_exits_130_and_says_how_to_resume(
    tmp_path: Path, workers: str
) -> None:
    store = tmp_path / "s.db"
    # minutes of work (two PE digits of a convolution): still running when interrupted
    args = ["sweep", "-w", "conv2d", "-a", "systolic-2d-16x16", "--pe-digits", "2"]
    args += ["--store", str(store)]
    search = subprocess.Popen(
        [sys.executable, "-m", "tenet", *args, "--workers", workers],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_interruptible,
    )
    try:
        for _ in range(600):  # until the store is made: the search has started
            if store.exists() or search.poll() is not None:
                break
            time.sleep(0.1)
        time.sleep(1.0)
        assert search.poll() is None
        search.send_signal(signal.SIGINT)
        _, err = search.communicate(timeout=60)
    finally:
        search.kill()
    assert search.returncode == 130, err
    assert err.strip().splitlines()[-1] == (
        f"interrupted: finished results are kept in {store}; run the same command again to resume"
    )
    # no worker nor fork server speaks of the interrupt (``Process ForkServerProcess-1:``)
    assert "Traceback" not in err and "Process " not in err and "Error" not in err


def test_cli_interrupt_without_a_store_says_what_to_give(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*_: object, **__: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("tenet.dse.sweep", interrupted)
    code, _, err = run(capsys, "dse", "-w", "gemm", "-a", ARRAYS[0])
    assert code == 130
    assert err.strip().splitlines()[-1] == (
        "interrupted: nothing kept; with --store FILE, finished results are kept and a run resumes"
    )


def test_cli_header_counts_the_rows_shown(capsys: pytest.CaptureFixture[str]) -> None:
    sizes = ("-p", "M=8", "-p", "N=8", "-p", "K=8")
    args = ("dse", "-w", "gemm", "-a", ARRAYS[0], *sizes, "--strategy", "constructive")
    code, out, _ = run(capsys, *args, "--top-k", "3")
    assert code == 0
    header, columns, *rows = out.strip().splitlines()
    assert len(rows) == 3 and header == "best 3 by the array's latency"
