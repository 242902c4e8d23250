"""Every long search step is bounded and visible: a tiling search shows its progress with an
estimate of the time left, stops at its time budget, and a branch and bound tells its best so
far, its bound and their gap as it goes and keeps them at the budget and on Ctrl-C; ``dse
--tile`` keeps the tilings it finished in its store and resumes them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import run

PROBLEM = ("-w", "gemm", "-a", "systolic-levels-8x8", "-p", "M=16", "-p", "N=16", "-p", "K=16")
JOINT = ("tile", *PROBLEM, "-d", "gemm-os-systolic", "--strategy", "joint")
TOLD = re.compile(r"^branch and bound: best [\d,]+ cycles, bound [\d,]+, gap [\d,]+ ")


def test_branch_and_bound_tells_best_bound_and_gap_and_progress(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tenet.cli.app.QUIET_SECONDS", 0.0)  # progress lines from the start
    code, out, err = run(capsys, *JOINT, "--format", "json")
    assert code == 0, err
    lines = err.splitlines()
    told = [line for line in lines if TOLD.match(line)]
    assert told, err
    # the last line told is the certificate's: a complete search closes its gap
    found = json.loads(out)
    assert found["complete"] and found["gap"] == 0
    assert told[-1].startswith(f"branch and bound: best {found['latency_cycles']:,} cycles")
    progress = [line for line in lines if re.match(r"subtree.*: \d+/\d+ done \(", line)]
    # an estimate of the time left while parts remain (the count of subtrees: the space)
    assert any("s left)" in line for line in progress), err


def test_joint_keeps_best_bound_and_gap_on_ctrl_c(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*_: object) -> None:
        raise KeyboardInterrupt  # Ctrl-C after the seeds, before any subtree is searched

    monkeypatch.setattr("tenet.dse.joint.tree._run", interrupted)
    code, out, err = run(capsys, *JOINT, "--format", "json")
    assert code == 130, err
    found = json.loads(out)  # the certificate so far: a best, a bound below it, not complete
    assert not found["complete"]
    assert found["bound_latency_cycles"] <= found["latency_cycles"]
    assert found["gap"] == pytest.approx(found["latency_cycles"] - found["bound_latency_cycles"])
    assert err.strip().splitlines()[-1] == (
        "interrupted: the best so far is written with what the search proved; "
        "with --store FILE, finished results are kept and a run resumes"
    )
    assert "Traceback" not in err


@pytest.mark.parametrize("budget", ["--time-budget", "--cpu-budget"])
@pytest.mark.parametrize("strategy", ["joint", "exhaustive"])
def test_tile_stops_at_its_budget(
    capsys: pytest.CaptureFixture[str], strategy: str, budget: str
) -> None:
    # by energy, the seeds do not close the gap: subtrees are left to search; a budget of 0
    # (of the clock or of CPU) starts no part of the search after the first seed
    args = ("tile", *JOINT[1:-1], strategy, "--objective", "energy")
    code, out, err = run(capsys, *args, budget, "0", "--format", "json")
    if strategy == "exhaustive":  # no tiling counted: one line says so
        assert code == 2 and err.strip().splitlines() == [
            "error: the time budget ran out before a tiling that fits was counted"
        ]
        return
    assert code == 0, err
    found = json.loads(out)  # the seeds' best, with the bound of the subtrees not searched
    assert not found["complete"] and found["evaluated"] >= 1
    assert found["gap"] > 0  # (floats in JSON: the exact gap is the certificate's Fraction)
    assert found["gap"] == pytest.approx(found["energy"] - found["bound_energy"])
    told = err.splitlines()[-1]
    assert told.startswith("branch and bound: best 179,456 MAC-relative, bound ") and (
        told.endswith("; 0/7 subtrees")
    ), err


def test_dse_tile_resumes_its_finished_tilings(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    store = str(tmp_path / "s.db")
    args = ("dse", *PROBLEM, "--tile", "glb", "--store", store, "--format", "json")
    code, first, err = run(capsys, *args)
    assert code == 0, err

    def searched(*_: object) -> None:
        raise AssertionError("a subtree searched again")

    monkeypatch.setattr("tenet.dse.joint.tree.evaluate_subtree", searched)
    code, again, err = run(capsys, *args)
    assert code == 0, err
    # the same figures (of tied tilings, the one kept may differ: results come in another order)
    tied = {"tiling", "tiles", "memory", "cpu_to_best_seconds", "cpu_seconds"}
    rows = [
        [{k: v for k, v in row.items() if k not in tied} for row in json.loads(text)]
        for text in (first, again)
    ]
    assert rows[0] == rows[1] and len(rows[0]) > 1
