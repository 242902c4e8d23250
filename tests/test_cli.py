"""The ``tenet`` command: output formats, several inputs, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run

EVAL_GEMM_OS = ("eval", "-w", "gemm", "-a", "systolic-2d-8x8", "-d", "gemm-os-systolic")
TENSOR_KEYS = {
    "tensor",
    "access",
    "volume_total",
    "volume_unique",
    "volume_reuse",
    "volume_reuse_spatial",
    "volume_reuse_temporal",
    "reuse_factor",
}


def test_cli_eval_by_zoo_names_prints_the_reuse_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        *EVAL_GEMM_OS,
        "-p",
        "M=16",
        "-p",
        "N=16",
        "-p",
        "K=16",
    )
    assert code == 0
    assert "reuse_factor" in out and "latency_compute" in out
    # M=N=K=16: 16³ = 4096 MACs
    assert any(line.split() == ["macs", "4096"] for line in out.splitlines())


def test_cli_eval_json_has_documented_keys(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        *EVAL_GEMM_OS,
        "--format",
        "json",
        "-p",
        "M=8",
    )
    assert code == 0
    result = json.loads(out)
    assert {t["tensor"] for t in result["tensors"]} == {"A", "B", "C"}
    assert all(TENSOR_KEYS <= set(t) for t in result["tensors"])
    # the array model's latency and energy under their own names, the design's in its headline
    assert {"latency_array", "utilisation", "bandwidth_pe", "energy_array"} <= set(result)
    assert not {"latency", "energy"} & set(result)
    assert list(result)[0] == "headline" and result["headline"]["memory_model"] == "array"
    assert result["headline"]["latency_cycles"] == result["latency_array"]
    assert set(result["original"]["tensors"]) == {"A", "B", "C"}
    assert result["macs"] == 8 * 64 * 64  # M=8, N=K=64 (the workload's defaults)


def test_cli_eval_several_experiments_in_input_order(
    capsys: pytest.CaptureFixture[str], tenet_data: Path
) -> None:
    paths = [
        tenet_data / "runtime/experiment/experiment_4",
        tenet_data / "reuse_factor_experiment/experiment/experiment_15",
    ]
    code, out, _ = run(capsys, "eval", *map(str, paths), "--format", "json")
    assert code == 0
    results = json.loads(out)
    assert [r["name"] for r in results] == [str(p) for p in paths]
    assert all(r["macs"] == 256**3 for r in results)  # both run matmul.s, 256³


def test_cli_eval_every_tenet_experiment(
    capsys: pytest.CaptureFixture[str], tenet_data: Path
) -> None:
    paths = sorted(tenet_data.glob("*/experiment/experiment_*"))
    assert len(paths) == 52
    code, out, _ = run(capsys, "eval", *map(str, paths), "--format", "json")
    assert code == 0
    results = json.loads(out)
    assert len(results) == 52
    assert all(r["original"]["MacNum"] == r["macs"] > 0 for r in results)


def test_cli_eval_csv_to_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "table.csv"
    code, out, _ = run(
        capsys,
        *EVAL_GEMM_OS,
        "--format",
        "csv",
        "-o",
        str(target),
    )
    assert code == 0 and out == ""
    header, *rows = target.read_text().splitlines()
    assert header.startswith("tensor,access,volume_total") and len(rows) == 3


def test_cli_eval_bad_input_exits_2_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "eval", "-w", "gemm", "-a", "systolic-2d-8x8", "-d", "nope")
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [err.strip()]
    assert err.startswith("error: no dataflow named 'nope'")


def test_cli_eval_usage_error_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "eval", "-w", "gemm")
    assert code == 2 and "all of --workload, --arch, --dataflow" in err
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1


def test_cli_eval_bad_param_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, *EVAL_GEMM_OS, "-p", "M")
    assert code == 2 and "expected NAME=INTEGER" in err


def test_cli_zoo_lists_entries(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "zoo", "archs")
    assert code == 0 and "systolic-2d-8x8" in out.split()


def test_cli_module_entry_point_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tenet", "zoo", "workloads"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "gemm" in done.stdout.split()


def test_cli_eval_neighbourhood_links_on_unskewed_gemm(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    unskewed = tmp_path / "unskewed.yaml"
    unskewed.write_text(
        'space_stamp: "{S[i, j, k] -> PE[i, j]}"\ntime_stamp: "{S[i, j, k] -> T[k]}"\n'
    )
    args = ["eval", "-w", "gemm", "-a", "systolic-2d-8x8", "--format", "json"]
    args += ["-p", "M=8", "-p", "N=8", "-p", "K=8"]
    for around, unique_a in (("window", 64), ("links", 512)):
        code, out, _ = run(capsys, *args, "-d", str(unskewed), "--neighbourhood", around)
        result = json.loads(out)
        assert code == 0 and result["neighbourhood"] == around
        # A[i, k] (64 elements) is needed by the 8 PEs of row i in the same step: the window
        # finds it at the left neighbour; a registered link delivers it a step late, so each
        # of the 8 PEs fetches its own copy: 8 x 64
        [a] = [t for t in result["tensors"] if t["tensor"] == "A"]
        assert a["volume_unique"] == unique_a
        assert result["original"]["tensors"]["A"]["UniqueVolume"] == 64


def test_cli_eval_reports_collisions_without_failing(
    capsys: pytest.CaptureFixture[str], tenet_data: Path
) -> None:
    experiment = tenet_data / "reuse_factor_experiment/experiment/experiment_4"
    code, out, _ = run(capsys, "eval", str(experiment), "--format", "json")
    # conv2d_os leaves rx and ry (3 x 3) out of both stamps: 9 instances share a point
    [violation] = json.loads(out)["legality"]
    assert code == 0 and violation["kind"] == "collision"
    assert "up to 9 instances per PE and time-stamp" in violation["message"]


def test_cli_check_legal(capsys: pytest.CaptureFixture[str]):
    code, out, _ = run(
        capsys,
        "check",
        "-w",
        "gemm",
        "-a",
        "systolic-2d-8x8",
        "-d",
        "gemm-os-systolic",
        "-p",
        "M=8",
    )
    assert code == 0
    assert out.strip().endswith("legal")


def test_cli_check_names_witness(capsys: pytest.CaptureFixture[str], tenet_data: Path):
    # TENET's conv2d_os runs the 3 x 3 filter taps on one point: 9 instances per step
    experiment = "reuse_factor_experiment/experiment/experiment_4"
    _, array, statement = (tenet_data / experiment).read_text().split()
    mapping = "mapping/conv2d_os.m"
    args = ["-w", str(tenet_data / statement), "-a", str(tenet_data / array)]
    args += ["-d", str(tenet_data / mapping)]
    code, out, err = run(capsys, "check", *args)
    assert code == 2
    assert "both run on PE[0, 0] at T[0, 0, 0, 0]" in out
    assert "not a legal dataflow" in err
    code, out, _ = run(capsys, "check", *args, "--instances-per-step", "9")
    assert code == 0, out
