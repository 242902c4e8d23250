"""SCALE-Sim beside tenet (tests marked ``peers``: ``make test-peers``, or ``make scalesim`` and
``TENET_SCALESIM_PYTHON``): the 36 runs of ``tests/peers/scalesim_cases.py``, each layer's
figures as SCALE-Sim prints them equal to those derived by hand from its source, and tenet's
equal to them after the named corrections, each difference with its reason; USER mode; the
files ``tenet export scalesim`` writes run by SCALE-Sim to the same figures."""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path

import pytest

from tenet.peers.scalesim import ScaleSimLayer, read_scalesim
from tenet.peers.scalesim_compare import LayerComparison, compare_scalesim, run_scalesim
from tenet.peers.scalesim_export import write_scalesim
from tests.conftest import ROOT, run
from tests.peers.scalesim_cases import (
    CASES,
    by_hand,
    case_id,
    config_text,
    corrected,
    write_inputs,
)

pytestmark = pytest.mark.peers

SCALESIM = ROOT / ".scalesim" / "bin" / "python"
"""SCALE-Sim's environment made by ``make scalesim``."""

EXPLAINED = (
    "SCALE-Sim reports the index of its last cycle",
    "SCALE-Sim's OS counter adds the array's rows + columns once per fold",
    "tenet counts a partial sum as written back when it leaves a PE",
    "SCALE-Sim drains every fold's partial sums to DRAM",
    "SCALE-Sim's counter counts the 4 taps of its windows past the ifmap's edge",
)
"""The reasons the runs below give: SCALE-Sim's counters and tenet's rules."""


@pytest.fixture(scope="module")
def scalesim() -> str:
    """The Python of SCALE-Sim's environment: ``TENET_SCALESIM_PYTHON``, else
    ``.scalesim/`` (made by ``make scalesim``); the test is skipped without one."""
    given = os.environ.get("TENET_SCALESIM_PYTHON")
    if given:
        return given
    if SCALESIM.is_file():
        return str(SCALESIM)
    pytest.skip("no SCALE-Sim environment: make scalesim, or set TENET_SCALESIM_PYTHON")


@pytest.fixture(scope="module")
def compared(scalesim: str, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("scalesim")

    @cache
    def layers(schedule: str, rows: int, cols: int, kind: str) -> dict[str, LayerComparison]:
        config, topology = write_inputs(folder, schedule, rows, cols, kind)
        found = compare_scalesim(scalesim, config, topology, "gemm" if kind == "gemm" else "conv")
        return {c.layer: c for c in found}

    return layers


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_scalesim_run_equals_tenet_after_the_named_corrections(
    case: tuple[str, int, int, str, ScaleSimLayer],
    compared,  # type: ignore[no-untyped-def]
) -> None:
    schedule, rows, cols, kind, layer = case
    comparison = compared(schedule, rows, cols, kind)[layer.name]
    theirs = {r.figure: r.scalesim for r in comparison.rows}
    mine = {r.figure: r.tenet for r in comparison.rows}
    assert theirs == by_hand(schedule, rows, cols, layer)
    assert mine == corrected(schedule, rows, cols, layer)
    for row in comparison.rows:
        if row.tenet == row.scalesim:
            assert row.reason == "", row
        else:
            assert row.reason.startswith(EXPLAINED), row


def test_scalesim_user_mode(scalesim: str, tmp_path: Path) -> None:
    # USER mode: SCALE-Sim prefetches the operand matrices in lines of its banks' bandwidth
    # (10 words) and stalls the array while they come; the compute cycles stay the schedule's.
    config, topology = write_inputs(tmp_path, "ws", 4, 4, "conv")
    Path(config).write_text(config_text("ws", 4, 4, mode="USER"))
    for comparison in compare_scalesim(scalesim, config, topology, "conv"):
        cycles = comparison.row("cycles")
        assert cycles.reason.startswith(EXPLAINED[0])
        for figure in ("ifmap DRAM reads", "filter DRAM reads"):
            row = comparison.row(figure)
            assert row.tenet == row.scalesim or row.reason.startswith("USER mode"), row
    imported = read_scalesim(config, topology, "conv")[0]
    dram = imported.architecture.levels[0]
    assert (dram.read_bandwidth, dram.write_bandwidth) == (20, 10)


@pytest.mark.parametrize("schedule", ["os", "ws", "is"])
def test_scalesim_runs_the_exported_files_to_the_same_figures(
    schedule: str, scalesim: str, tmp_path: Path
) -> None:
    config, topology = write_inputs(tmp_path, schedule, 3, 5, "conv")
    original = run_scalesim(scalesim, config, topology, "conv")
    for imported, figures in zip(read_scalesim(config, topology, "conv"), original, strict=True):
        inputs = write_scalesim(imported.specs())
        folder = tmp_path / imported.layer.name
        folder.mkdir()
        for name, text in inputs.files.items():
            (folder / name).write_text(text)
        (again,) = run_scalesim(
            scalesim, str(folder / "scale.cfg"), str(folder / "topology.csv"), inputs.kind
        )
        assert again == figures


def test_cli_compare_with_scalesim(
    scalesim: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config, topology = write_inputs(tmp_path, "os", 4, 4, "gemm")
    args = ("compare", "--with", "scalesim", config, "-t", topology, "-i", "gemm")
    python = ("--peer-python", scalesim)
    code, out, err = run(capsys, *args, *python, "-l", "g7")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[:2] == ["g7 (os)", "  fits: yes"]  # the headline first
    assert lines[3].split()[:4] == ["cycles", "48", "47", "SCALE-Sim"]  # 2 x 2 folds of 12
    code, out, _ = run(capsys, *args, *python, "--format", "json")
    assert [c["layer"] for c in json.loads(out)] == ["g8", "g7", "g3"]
    code, _, err = run(capsys, *args, *python, "-l", "nothing")
    assert code == 2 and "no layer 'nothing'" in err


def test_scalesim_write_buffer_counts_the_empty_slots_of_a_forced_line(
    scalesim: str, tmp_path: Path
) -> None:
    # GEMM 20 x 40 x 1 on 2 x 16: 800 outputs, more than the 512 words of a 1 kB write
    # buffer's drain half, so it drains twice; the line of 16 words it forces out part-full
    # before the end counts its 15 empty slots (SCALE-Sim's write_buffer.empty_drain_buf
    # subtracts the empty slots of a drain's last line only).
    config, topology = tmp_path / "a.cfg", tmp_path / "t.csv"
    config.write_text(config_text("os", 2, 16))
    topology.write_text("Layer, M, N, K,\nw, 20, 40, 1,\n")
    (comparison,) = compare_scalesim(scalesim, str(config), str(topology), "gemm")
    row = comparison.row("ofmap DRAM writes")
    assert (row.tenet, row.scalesim) == (800, 815)
    assert "counts the 15 empty slots" in row.reason
