"""The constructive strategy on the command line: tenet dse and the per-layer sweep."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tenet.cli import main

HERE = Path(__file__).parent


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        code = main(list(args))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_dse_constructive_evaluates_top_k(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys,
        *("dse", "-w", "gemm", "-a", "systolic-2d-8x8", "-p", "M=8", "-p", "N=8", "-p", "K=8"),
        *("--strategy", "constructive", "--top-k", "2", "--workers", "1", "--format", "json"),
    )
    assert code == 0, err
    assert len(json.loads(out)) == 2
    assert "2 of " in err and "evaluated exactly (constructive)" in err


def test_bad_top_k(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "dse", "-w", "gemm", "-a", "systolic-2d-8x8", "--top-k", "0")
    assert code == 2
    assert "--top-k" in err


def test_layers_plot_needs_a_network(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(
        capsys,
        "sweep",
        "-w",
        "gemm",
        "-a",
        "systolic-2d-8x8",
        "--layers-plot",
        str(tmp_path / "p.png"),
    )
    assert code == 2
    assert "--layers-plot without --network: it draws a network's layers" in err


@pytest.mark.slow
def test_sweep_network_per_layer(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    plot = tmp_path / "layers.png"
    code, out, err = run(
        capsys,
        *("sweep", "-n", str(HERE / "tiny-net.yaml"), "-a", "systolic-levels-8x8"),
        *("--strategy", "constructive", "--top-k", "3", "--workers", "1"),
        *("--layers-plot", str(plot), "--format", "json"),
    )
    assert code == 0, err
    rows = json.loads(out)["rows"]
    assert [r["workload"] for r in rows] == ["tiny-net/gemm1", "tiny-net/conv1"]
    # Every tensor of the 16^3 GEMM fits the buffer: DRAM moves A, B and C once, 3 * 256.
    assert rows[0]["traffic_dram_elements"] == 3 * 256
    assert plot.stat().st_size > 0


def test_vs_data_centric_prints_both_dataflows(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys,
        *("dse", "-w", "gemm", "-a", "systolic-2d-8x8", "-p", "M=8", "-p", "N=8", "-p", "K=8"),
        *("--vs-data-centric", "--workers", "1", "--strategy", "exhaustive"),
    )
    assert code == 0, err
    assert "best overall: PE[i, j] T[i + j + k] (array's latency 47 cycles)" in out
    assert "best data-centric: " in out
    assert "time_stamp:  { S[i, j, k] -> T[" in out
    assert "array's latency reduction: " in out
