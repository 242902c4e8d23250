"""``tenet maestro`` and ``tenet compare``: formats, the saved plot, exit codes."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.conftest import run
from tests.maestro.conftest import COMPARISON, CSV, HW

HW64 = str(HW / "bw64_64pe.m")


def relation(root: Path, statement: str, arch: str, mapping: str) -> list[str]:
    """The --workload/--arch/--dataflow options for TENET text files under ``root``."""
    return [
        "-w",
        str(root / "statement" / statement),
        "-a",
        str(root / "pe_array" / arch),
        "-d",
        str(root / "mapping" / mapping),
    ]


def test_cli_maestro_json_matches_reference(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "maestro", str(COMPARISON / "gemm256_os_8x8.m"), "--hw", HW64, "--format", "json"
    )
    assert code == 0
    (record,) = json.loads(out)
    assert list(record)[:4] == ["network", "layer", "num_macs", "runtime"]
    ref = next(
        r
        for r in csv.DictReader(CSV.read_text().splitlines())
        if r["id"] == "B_gemm256_os_8x8__bw64_64pe"
    )
    assert (record["network"], record["layer"]) == ("gemm256_os_8x8", "gemm256_os_8x8_layer")
    assert record["runtime"] == int(ref["runtime"])
    assert record["filter_l2_buffer_read"] == int(ref["filter_l2_buffer_read"])


def test_cli_maestro_network_table_and_csv(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    hw = HW64
    code, out, _ = run(capsys, "maestro", str(COMPARISON / "tiny_net_nlr.m"), "--hw", hw)
    assert code == 0 and out.startswith("tiny_net") and "CONV3" in out
    target = tmp_path / "out.csv"
    code, _, _ = run(
        capsys,
        "maestro",
        str(COMPARISON / "tiny_net_nlr.m"),
        "--hw",
        hw,
        "--format",
        "csv",
        "-o",
        str(target),
        "--layer",
        "CONV1",
        "--layer",
        "CONV2",
    )
    rows = list(csv.DictReader(target.read_text().splitlines()))
    assert code == 0 and [r["layer"] for r in rows] == ["CONV1", "CONV2"]


def test_cli_maestro_reports_rejected_layers(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "maestro", str(COMPARISON / "rejected_rs.m"), "--hw", HW64, "--format", "json"
    )
    records = json.loads(out)
    assert code == 0 and len(records) == 2
    assert "error" in records[0] and "whole filter" in records[0]["error"]
    assert "error" not in records[1]
    assert err.startswith("warning: layer CONV1:")


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (("maestro", "missing.m", "--hw", HW64), "missing.m: file not found"),
        (
            ("maestro", str(COMPARISON / "gemm256_os_8x8.m"), "--hw", HW64, "--layer", "x"),
            "no layer",
        ),
        (
            ("compare", str(COMPARISON / "gemm256_os_8x8.m"), "--hw", HW64, "-w", "gemm"),
            "give all of",
        ),
    ],
)
def test_cli_maestro_bad_input_exits_2(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], match: str
) -> None:
    code, _, err = run(capsys, *args)
    assert code == 2 and match in err.strip().splitlines()[-1]


def test_cli_compare_lowered_with_plot(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    plot = tmp_path / "cmp.png"
    code, out, _ = run(
        capsys,
        "compare",
        str(COMPARISON / "conv_kcp_ws_8x8.m"),
        "--hw",
        HW64,
        "--format",
        "json",
        "--plot",
        str(plot),
    )
    assert code == 0
    rows = json.loads(out)
    quantities = {r["quantity"] for r in rows}
    assert quantities >= {"latency_array", "volume_unique", "energy_array", "utilisation"}
    filt = next(r for r in rows if r["quantity"] == "volume_unique" and r["tensor"] == "filter")
    # every weight W[k, c, r, s] is fetched once by both models: 128 * 64 * 9.
    assert filt["exact"] == filt["estimate"] == 73728
    assert plot.stat().st_size > 0


def test_cli_compare_relation_centric_only(
    capsys: pytest.CaptureFixture[str], tenet_data: Path
) -> None:
    args = relation(tenet_data, "conv2d.s", "pe_8_8.p", "conv2d_ws.m")
    code, out, _ = run(capsys, "compare", *args, "--format", "csv")
    assert code == 0 and out.startswith("dataflow,quantity,tensor")


def test_cli_compare_relation_centric_inexpressible(
    capsys: pytest.CaptureFixture[str], tenet_data: Path
) -> None:
    args = relation(tenet_data, "matmul.s", "systolic.p", "matmul_systolic_os.m")
    code, _, err = run(capsys, "compare", *args)
    assert code == 2 and "skew" in err


def test_cli_compare_counterpart_table(
    capsys: pytest.CaptureFixture[str], tenet_data: Path
) -> None:
    args = relation(tenet_data, "matmul.s", "systolic.p", "matmul_systolic_os.m")
    code, out, _ = run(capsys, "compare", str(COMPARISON / "gemm256_os_8x8.m"), "--hw", HW64, *args)
    assert code == 0 and "relative_error" in out and "volume_unique" in out
