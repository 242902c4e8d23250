"""``tenet layout``: figures, search, saved layouts, the bank-use plot and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tenet.spec.layout import LayoutSpec
from tests.conftest import ROOT, run

DATA = Path(__file__).parent / "data"
BLOCK = DATA / "block.yaml"
COLUMNS = DATA / "columns.yaml"
THREE = DATA / "three-pes.yaml"
BLOCK_ON_THREE = ("layout", "-w", str(BLOCK), "-a", str(THREE), "-d", str(COLUMNS))
ROLLER = (*BLOCK_ON_THREE, "--banks", "4")
"""Roller's bank example: a [3, 4] block read column by column over 4 banks."""


def test_layout_command_reports_roller_conflicts_as_json(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        capsys,
        *ROLLER,
        "--format",
        "json",
    )
    assert code == 0
    report = json.loads(out)
    # [3, 4] row-major over 4 banks read column by column: 2 conflicts per step, 4 steps;
    # 3 cycles per step (busiest bank), latency 1: 12 cycles
    assert report["tensors"][0]["conflicts_bank"] == 8
    assert report["latency_ingress_layout"] == 12


def test_layout_command_searches_saves_and_plots(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    saved, image = tmp_path / "found.yaml", tmp_path / "banks.png"
    code, out, _ = run(
        capsys,
        *ROLLER,
        "--search",
        "exhaustive",
        "--depth",
        "1",
        "--save",
        str(saved),
        "--plot",
        str(image),
    )
    assert code == 0
    assert "exhaustive search" in out and "ingress 12 -> 4 cycles" in out
    assert LayoutSpec.from_yaml(saved).layouts["A"]
    assert image.stat().st_size > 0
    code, out, _ = run(
        capsys,
        *ROLLER,
        "--layout",
        str(saved),
        "--format",
        "csv",
    )
    assert code == 0
    assert out.splitlines()[0].startswith("tensor,access,layout")


def test_layout_command_bad_layout_is_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(
        capsys,
        "layout",
        "-w",
        "gemm",
        "-a",
        "systolic-2d:rows=2,cols=2",
        "-d",
        "gemm-os-systolic:rows=2,cols=2",
        "-p",
        "M=4",
        "-p",
        "N=4",
        "-p",
        "K=4",
        "--layout",
        str(DATA / "crop-a.yaml"),
    )
    assert code == 2
    assert err.count("\n") == 1
    assert "crop-a.yaml: layouts.A.1: element" in err


def test_layout_rank_orders_design_points_by_layout_latency(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        capsys,
        "layout-rank",
        "-w",
        "gemm",
        "-a",
        "systolic-2d:rows=2,cols=2",
        "-p",
        "M=2",
        "-p",
        "N=2",
        "-p",
        "K=2",
        "--banks",
        "4",
        "--top",
        "3",
        "--format",
        "json",
    )
    assert code == 0
    rows = json.loads(out)
    assert len(rows) == 3
    latencies = [r["latency_ingress_layout_cycles"] for r in rows]
    assert latencies == sorted(latencies)


def test_layout_plot_of_a_tensor_without_reads_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(
        capsys,
        *BLOCK_ON_THREE,
        "--plot",
        str(tmp_path / "b.png"),
        "--plot-tensor",
        "Q",
    )
    assert code == 2
    assert "tensor 'Q' is not in the workload (known: A)" in err


def test_docs_layout_searches_find_an_improvement(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # the examples' paths are relative to the repository
    text = (ROOT / "docs" / "layout.md").read_text()
    searches = [line for line in text.splitlines() if line.startswith("tenet layout ")]
    searches = [line for line in searches if "--search" in line]
    assert len(searches) == 2
    for line in searches:
        words = line.split()[1:]
        for option in ("--save", "--plot", "--format"):  # (files; and the format is ours)
            if option in words:
                at = words.index(option)
                del words[at : at + 2]
        code, out, err = run(capsys, *words, "--format", "json")
        assert code == 0, err
        found = json.loads(out)["search"]
        assert found["latency_ingress_after"] < found["latency_ingress_before"], line
