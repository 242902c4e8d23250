"""Every figure printed as text carries its unit."""

from __future__ import annotations

import json
from fractions import Fraction
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
    assert lines["latency"][1:] == ["cycles"] and lines["latency_array"][1:] == ["cycles"]
    assert lines["traffic_dram"][1:] == ["elements"]
    assert lines["bandwidth_pe"][1:] == ["elements/cycle"]
    assert lines["energy"][1:] == ["MAC-relative"]  # the zoo's energy table
    assert lines["energy_array"][1:] == ["MAC-relative"]
    assert out.splitlines()[0] == "fits: yes"  # the headline first
    assert "the array model (volumes in elements)" in out


def test_cli_tile_objective_has_its_unit(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "tile", "-w", "gemm", "-a", "simba", "-d", "gemm-os", *SIZES)
    assert code == 0
    lines = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.strip()}
    assert lines["objective"][1:] == ["cycles"] and lines["energy"][1:] == ["MAC-relative"]
    # the headline's figures have their unit after them, the others' names say theirs
    assert lines["latency"][1] == "cycles" and lines["traffic_dram"][1:] == ["elements"]
    assert "latency_compute_cycles" in lines


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


CLOCKED = """name: pj-8x8
pe: "{PE[i, j]: 0 <= i < 8 and 0 <= j < 8}"
interconnect:
  - {link: "{PE[i, j] -> PE[i + 1, j]}", delay: 1}
  - {link: "{PE[i, j] -> PE[i, j + 1]}", delay: 1}
latency: 16
clock_mhz: 200
energy: {mac: 0.5, l1: 1.0, l2: 10.0, unit: pJ}
"""
"""systolic-2d-8x8's array with a clock of 200 MHz and an energy table in pJ."""

GEMM = ("-w", "gemm", "-d", "gemm-os-systolic", "-p", "M=8", "-p", "N=8", "-p", "K=4")

# By hand, GEMM 8 x 8 x 4 output-stationary on the 8 x 8 systolic array (docs/metrics.md):
# 256 MACs; A and B each fetched once (32 elements), C written once (64): 128 elements in
# and out, at 64 bits/cycle of 16-bit elements 4 per cycle: ingress ceil(64 / 4) + 16 - 1 =
# 31 cycles, egress the same, compute 18 time-stamps: latency 31 cycles. Energy: every access
# of A, B and C reads and writes the PE buffer (2 x 3 x 256 = 1536 x 1.0 pJ), every fetched
# or produced element is read and written in the scratchpad (2 x 128 = 256 x 10.0 pJ), 256
# MACs x 0.5 pJ: 1536 + 2560 + 128 = 4224 pJ. At 200 MHz: 31 / 200e6 s = 155 ns; 256 MACs
# in 155 ns; 4224 pJ in 155 ns.
LATENCY, ENERGY, MACS = 31, 4224.0, 256
RUNTIME = Fraction(LATENCY, 200 * 10**6)


def _clocked(tmp_path: Path, text: str = CLOCKED) -> str:
    path = tmp_path / "arch.yaml"
    path.write_text(text)
    return str(path)


def test_cli_eval_clock_gives_seconds_throughput_and_power(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    arch = _clocked(tmp_path)
    code, out, _ = run(capsys, "eval", "-a", arch, *GEMM, "--format", "json")
    assert code == 0
    result = json.loads(out)
    assert (result["latency_array"], result["energy_array"]) == (LATENCY, ENERGY)
    headline = result["headline"]  # no memory levels: the array's figures
    assert (headline["latency_cycles"], headline["energy"], result["macs"]) == (
        LATENCY,
        ENERGY,
        MACS,
    )
    assert headline["runtime_seconds"] == pytest.approx(float(RUNTIME), rel=1e-12)
    assert result["clock_mhz"] == 200
    assert result["runtime"] == pytest.approx(float(RUNTIME), rel=1e-12)
    assert result["throughput"] == pytest.approx(float(MACS / RUNTIME), rel=1e-12)
    assert result["power_avg"] == pytest.approx(float(Fraction(4224, 10**12) / RUNTIME), 1e-12)
    # the mapping row (no memory levels: the array's figures) in its column names
    row = result["row"]
    assert row["runtime_seconds"] == result["runtime"]
    assert row["power_avg_watts"] == result["power_avg"]
    code, out, _ = run(capsys, "eval", "-a", arch, *GEMM)
    lines = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.strip()}
    assert lines["runtime"] == ["1.55e-07", "s"]
    assert lines["throughput"][1:] == ["MAC/s"] and lines["power_avg"][1:] == ["W"]


def test_cli_clock_without_pj_gives_no_power(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    arch = _clocked(tmp_path, CLOCKED.replace("unit: pJ", "unit: MAC"))
    code, out, _ = run(capsys, "eval", "-a", arch, *GEMM, "--format", "json")
    assert code == 0
    result = json.loads(out)
    assert "runtime" in result and "power_avg" not in result
    code, out, _ = run(capsys, "eval", "-a", "systolic-2d-8x8", *GEMM, "--format", "json")
    assert "runtime" not in json.loads(out)  # no clock, no seconds


def test_cli_clock_and_energy_unit_in_table_and_network_columns(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    arch = _clocked(tmp_path)
    code, out, _ = run(
        capsys, "table", "-a", arch, "-a", "systolic-2d-8x8", *GEMM, "--format", "csv"
    )
    assert code == 0
    # (the design labels hold commas: the figures are read from the end of each line)
    header, *lines = (line.split(",") for line in out.strip().splitlines())
    table = [dict(zip(header[::-1], line[::-1], strict=False)) for line in lines]
    assert [t["energy_unit"] for t in table] == ["pJ", "MAC"]
    assert float(table[0]["runtime_seconds"]) == pytest.approx(float(RUNTIME), rel=1e-12)
    assert table[1]["runtime_seconds"] == ""  # systolic-2d-8x8 has no clock
    network = tmp_path / "net.yaml"
    network.write_text(
        "name: n\nlayers:\n"
        "  - {name: a, workload: gemm, params: {M: 8, N: 8, K: 4}, count: 2}\n"
        "  - {name: b, workload: gemm, params: {M: 8, N: 8, K: 4}}\n"
    )
    args = ("eval-network", str(network), "-a", arch, "-d", "gemm-os-systolic")
    code, out, _ = run(capsys, *args, "--format", "json")
    assert code == 0
    total = json.loads(out)["total"]
    # three layers one after the other: 3 x 31 cycles, 3 x 4224 pJ, the same average power
    assert total["energy_unit"] == "pJ" and total["latency_cycles"] == 3 * LATENCY
    assert total["runtime_seconds"] == pytest.approx(float(3 * RUNTIME), rel=1e-12)
    assert total["power_avg_watts"] == pytest.approx(float(Fraction(4224, 10**12) / RUNTIME))
    code, out, _ = run(capsys, *args)
    header = out.splitlines()[1].split()
    assert header[header.index("energy") + 1] == "energy_unit"


def test_report_headers_and_axes_carry_the_energy_unit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from tests.report.page import read_page

    network = tmp_path / "net.yaml"
    network.write_text("name: n\nlayers:\n  - {name: a, workload: gemm, params: {M: 8}}\n")
    page = tmp_path / "n.html"
    arch = _clocked(tmp_path)
    code, _, _ = run(
        capsys, "eval-network", str(network), "-a", arch, "-d", "gemm-os-systolic",
        "--report", str(page),
    )  # fmt: skip
    assert code == 0
    text = page.read_text()
    header = read_page(text).tables[1][0]
    assert "energy pJ" in header and "power_avg W" in header
    assert "energy, pJ" in text and "one MAC = 1" not in text


def test_imported_specs_keep_the_peers_unit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    examples = Path(__file__).parent.parent / "examples" / "peers"
    folder = tmp_path / "af"
    code, _, _ = run(
        capsys, "import", "accelforge", str(examples / "accelforge-gemm.yaml"), "-o", str(folder)
    )
    assert code == 0
    files = [str(folder / f"{n}.yaml") for n in ("workload", "architecture", "dataflow")]
    code, out, _ = run(capsys, "eval", "-w", files[0], "-a", files[1], "-d", files[2])
    assert code == 0
    (energy,) = [x for x in out.splitlines() if x.startswith("energy ")]
    assert energy.split()[2] == "pJ"  # AccelForge's energies are pJ (the headline's)
    (memory,) = [x for x in out.splitlines() if x.startswith("memory energy")]
    assert "pJ" in memory.split()
    folder = tmp_path / "zz"
    zigzag = [examples / f"zigzag-{n}.yaml" for n in ("gemm-workload", "accelerator")]
    mapping = examples / "zigzag-gemm-mapping.yaml"
    code, _, _ = run(
        capsys, "import", "zigzag", "-w", str(zigzag[0]), "-a", str(zigzag[1]),
        "-m", str(mapping), "-o", str(folder),
    )  # fmt: skip
    assert code == 0
    assert "unit: pJ" in (folder / "architecture.yaml").read_text()


def test_export_says_when_the_energies_are_not_pj(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("export", "accelforge", "-w", "gemm", "-a", "simba", "-p", "M=4", "-p", "N=4")
    code, out, _ = run(capsys, *args, "-p", "K=4", "-d", "gemm-os-tiled:ti=4,tj=4,tk=4")
    assert code == 0, out
    assert "relative to one MAC (MAC = 1), not pJ" in out
