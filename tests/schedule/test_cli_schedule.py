"""The ``tenet deps`` and ``tenet schedule`` commands, with an error path each."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ROOT, run

EXAMPLES = ROOT / "examples" / "schedule"


def test_cli_deps_prints_distances(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "deps", "-w", "stencil-1d-steps")
    assert code == 0, err
    assert out.startswith("flow a: (1, -1), (1, 0), (1, 1)")
    assert "[N] -> { S[i, j] -> S[" in out


def test_cli_deps_json_with_reuse_and_bound_size(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "deps", "-w", "gemm", "--reuse", "-p", "K=4", "--format", "json")
    assert code == 0, err
    rows = json.loads(out)
    assert [(r["dependence"], r["distances"]) for r in rows] == [
        ("reuse A", "(0, 1, 0)"),
        ("reuse B", "(1, 0, 0)"),
        ("reuse C", "(0, 0, 1)"),
    ]
    assert all(not r["polyhedron"].startswith("[M, N, K]") for r in rows)


def test_cli_deps_unknown_reduction_is_an_input_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "deps", "-w", "gemm", "-r", "D")
    assert code == 2
    assert "tensor 'D' is not in the workload" in err and len(err.strip().splitlines()) == 1


def test_cli_schedule_prints_rows_and_map(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "schedule", "-w", "stencil-1d-steps")
    assert code == 0, err
    assert "(u, w, c) = (0, 1, (1, 0))" in out and "(u, w, c) = (0, 2, (1, 1))" in out
    assert "schedule: [N] -> { S[i, j] -> [i, i + j]" in out


def test_cli_schedule_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "schedule", "-w", "stencil-1d-steps", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert [(r["u"], r["w"], r["hyperplane"]) for r in data["rows"]] == [
        ([0], 1, [1, 0]),
        ([0], 2, [1, 1]),
    ]


def test_cli_schedule_unknown_workload(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "schedule", "-w", "no-such-workload")
    assert code == 2 and err.startswith("error:")


def test_cli_schedule_with_arch_prints_legal_mappings(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "schedule", "-w", "gemm", "--reuse", "-a", "systolic-2d-8x8",
        "-p", "M=8", "-p", "N=8", "-p", "K=8",
    )  # fmt: skip
    assert code == 0, err
    assert "i + j + k  (time hyperplane)" in out
    assert "PE[i, j] T[i + j + k]  (time hyperplane)" in out


def test_cli_dse_from_schedule_shows_both_sources(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "dse", "-w", "jacobi-1d", "-a", "systolic-1d-16", "--skew=-1,0,1",
        "--from-schedule", "--workers", "1", "--top", "2", "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    rows = json.loads(out)
    assert [r["source"] for r in rows] == ["schedule", "schedule", "space", "space"]
    assert all(r["latency_cycles"] > 0 for r in rows)


def test_cli_dse_from_schedule_bad_array(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "dse", "-w", "jacobi-1d", "-a", "no-such-array", "--from-schedule")
    assert code == 2 and err.startswith("error:")


def test_cli_dse_reuse_needs_from_schedule(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "dse", "-w", "gemm", "-a", "systolic-2d-8x8", "--reuse")
    assert code == 2 and "--reuse without --from-schedule: only" in err


def test_cli_check_rejects_the_interchange_with_a_witness(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(
        capsys, "check", "-w", "stencil-1d-steps", "-a", "systolic-1d:pes=1",
        "-d", str(EXAMPLES / "stencil-interchange.yaml"), "-p", "N=4",
    )  # fmt: skip
    assert code == 2 and "not a legal dataflow" in err
    assert "S[1, 0] reads a[1, 1] at T[0, 1] before S[0, 1] writes it at T[1, 0]" in out
    code, out, _ = run(
        capsys, "check", "-w", "stencil-1d-steps", "-a", "systolic-1d:pes=1",
        "-d", str(EXAMPLES / "stencil-skewed.yaml"), "-p", "N=4",
    )  # fmt: skip
    assert code == 0 and out.strip() == "skewed: legal"
