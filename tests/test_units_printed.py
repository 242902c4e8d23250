"""Every figure printed as text carries its unit."""

from __future__ import annotations

import json
from pathlib import Path

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
    assert lines["energy"][1:] == ["MAC-relative"]  # the zoo's energy table
    assert out.splitlines()[0].endswith("(volumes in elements)")


def test_cli_tile_objective_has_its_unit(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "tile", "-w", "gemm", "-a", "simba", "-d", "gemm-os", *SIZES)
    assert code == 0
    lines = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.strip()}
    assert lines["objective"][1:] == ["cycles"] and lines["energy"][1:] == ["MAC-relative"]
    # the other figures' names say their unit
    assert {"latency_cycles", "traffic_dram_elements"} <= set(lines)


def test_cli_eval_energy_in_the_architecture_unit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    arch = tmp_path / "pj.yaml"
    arch.write_text(
        "name: pj\npe: '{PE[i, j]: 0 <= i < 8 and 0 <= j < 8}'\n"
        "energy: {mac: 0.5, l1: 1.0, l2: 10.0, unit: pJ}\n"
    )
    args = ("eval", "-w", "gemm", "-a", str(arch), "-d", "gemm-os-systolic", *SIZES)
    code, out, _ = run(capsys, *args)
    assert code == 0
    (line,) = [x for x in out.splitlines() if x.startswith("energy ")]
    assert line.split()[-1] == "pJ"
    code, out, _ = run(capsys, *args, "--format", "json")
    assert json.loads(out)["energy_unit"] == "pJ"
