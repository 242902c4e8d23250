"""Every figure printed as text carries its unit."""

from __future__ import annotations

import pytest

from tests.conftest import run

SIZES = ("-p", "M=8", "-p", "N=8", "-p", "K=8")


def test_cli_eval_prints_a_unit_after_each_figure(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "eval", "-w", "gemm", "-a", "systolic-2d-8x8", "-d", "gemm-os-systolic", *SIZES
    )
    assert code == 0
    lines = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.strip()}
    # 8 x 8 x 8 = 512 MACs (the name says the unit)
    assert lines["macs"] == ["512"]
    assert lines["active_pes"][1:] == ["PEs"]
    assert lines["latency"][1:] == ["cycles"]
    assert lines["bandwidth_pe"][1:] == ["elements/cycle"]
    assert lines["energy"][1:] == ["energy", "units"]
    assert out.splitlines()[0].endswith("(volumes in elements)")


def test_cli_tile_objective_has_its_unit(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "tile", "-w", "gemm", "-a", "simba", "-d", "gemm-os", *SIZES)
    assert code == 0
    lines = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.strip()}
    assert lines["objective"][1:] == ["cycles"] and lines["latency"][1:] == ["cycles"]
    assert lines["traffic_dram"][1:] == ["elements"]
