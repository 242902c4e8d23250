"""The ``tenet dse``, ``tenet sweep`` and ``tenet check`` commands, with an error path each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run

SMALL = ["-p", "M=8", "-p", "N=8", "-p", "K=8"]


def test_cli_dse_prints_best_and_plots(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    plot = tmp_path / "front.png"
    code, out, err = run(
        capsys, "dse", "-w", "gemm", "-a", "systolic-2d-8x8", *SMALL, "--top", "3",
        "--format", "json", "--pareto", "latency,energy", "--plot", str(plot),
    )  # fmt: skip
    assert code == 0, err
    rows = json.loads(out)
    assert len(rows) == 3
    # see test_explore: 47 cycles is the ingress bound of GEMM 8^3 on this array
    assert rows[0]["latency_cycles"] == 47
    assert "generated" in err and "kept" in err
    assert plot.read_bytes().startswith(b"\x89PNG")


def test_cli_dse_constraint_filters(capsys: pytest.CaptureFixture[str]):
    code, out, _ = run(
        capsys, "dse", "-w", "gemm", "-a", "systolic-2d-8x8", *SMALL, "--format", "csv",
        "-c", "utilisation>=1", "--objective", "energy", "--prune-scratchpad",
    )  # fmt: skip
    assert code == 0
    lines = out.strip().splitlines()
    header = lines[0].split(",")
    column = header.index("utilisation")
    assert all(float(line.split(",")[column]) >= 1 for line in lines[1:])


def test_cli_dse_rejects_bad_skew(capsys: pytest.CaptureFixture[str]):
    code, _, err = run(capsys, "dse", "-w", "gemm", "-a", "systolic-2d-8x8", "--skew", "0,2")
    assert code == 2
    assert "subset of (-1, 0, 1)" in err


def test_cli_dse_pareto_needs_plot(capsys: pytest.CaptureFixture[str]):
    code, _, err = run(
        capsys, "dse", "-w", "gemm", "-a", "systolic-2d-8x8", *SMALL, "--pareto", "latency,edp"
    )
    assert code == 2
    assert "--pareto without --plot: the front is drawn into --plot" in err


def test_cli_sweep_table(capsys: pytest.CaptureFixture[str]):
    code, out, err = run(
        capsys, "sweep", "-w", "gemm", "-a", "systolic-2d-8x8", "-a", "systolic-2d-16x16",
        *SMALL, "--top", "1",
    )  # fmt: skip
    assert code == 0, err
    assert "systolic-2d-16x16" in out and "systolic-2d-8x8" in out
    assert err.count("generated") == 2


def test_cli_sweep_needs_a_workload(capsys: pytest.CaptureFixture[str]):
    code, _, err = run(capsys, "sweep", "-a", "systolic-2d-8x8")
    assert code == 2
    assert "--workload or a --network" in err


def test_cli_sweep_every_layer_of_a_network(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    network = tmp_path / "tiny.yaml"
    network.write_text(
        "version: 1\nname: tiny\nlayers:\n"
        "  - {name: fc1, workload: gemm, params: {M: 8, N: 8, K: 8}}\n"
        "  - {name: fc2, workload: gemm, params: {M: 8, N: 16, K: 8}}\n"
    )
    code, out, err = run(capsys, "sweep", "-n", str(network), "-a", "systolic-2d-8x8", "--top", "1")
    assert code == 0, err
    assert "tiny/fc1" in out and "tiny/fc2" in out
