"""SCALE-Sim's layers read into tenet without SCALE-Sim: each of the runs of
``tests/peers/scalesim_cases.py``, imported, has tenet's figures equal to the brute-force
walk (the metrics oracle for the cycles, the tile oracle for the SRAM and DRAM traffic) and
to SCALE-Sim's figures derived by hand from its source after the named corrections; the
files in and out, and their errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tenet.api import assess
from tenet.errors import SpecError
from tenet.oracle.metrics import reference_metrics
from tenet.oracle.tiles import reference_memory
from tenet.peers.scalesim import ScaleSimLayer, read_config, read_scalesim, read_topology
from tenet.peers.scalesim_compare import ScaleSimError, compare_scalesim, layer_figures
from tenet.peers.scalesim_export import write_scalesim
from tenet.spec import load_architecture, load_dataflow, load_workload
from tests.conftest import run
from tests.peers.scalesim_cases import (
    CASES,
    LAYERS,
    case_id,
    config_text,
    corrected,
    write_inputs,
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_scalesim_layer_equals_the_oracles_and_scalesim_by_hand(
    case: tuple[str, int, int, str, ScaleSimLayer], tmp_path: Path
) -> None:
    schedule, rows, cols, kind, layer = case
    config, topology = write_inputs(tmp_path, schedule, rows, cols, kind)
    imported = next(i for i in read_scalesim(config, topology, kind) if i.layer == layer)
    params = layer.params()
    w, a, d = imported.workload, imported.architecture, imported.dataflow
    mine = layer_figures(assess(w, a, d, params=params))
    tiles, _ = reference_memory(w, a, d, params)
    oracle = {
        "cycles": reference_metrics(w, a, d, params)["latency"],
        "ifmap SRAM reads": tiles[("pe", "ifmap")].reads_parent,
        "filter SRAM reads": tiles[("pe", "filter")].reads_parent,
        "ofmap SRAM writes": tiles[("ofmap_sram", "ofmap")].fills
        + tiles[("pe", "ofmap")].writes_parent,
        "ifmap DRAM reads": tiles[("ifmap_sram", "ifmap")].fills,
        "filter DRAM reads": tiles[("filter_sram", "filter")].fills,
        "ofmap DRAM reads": tiles[("ofmap_sram", "ofmap")].fills,
        "ofmap DRAM writes": tiles[("ofmap_sram", "ofmap")].writebacks,
    }
    assert mine == oracle
    assert mine == corrected(schedule, rows, cols, layer)


def test_scalesim_gemm_64_on_8x8_cycles() -> None:
    # SCALE-Sim's folds x fold length on GEMM 64^3, 8 x 8: 64 folds of 64 + 8 + 8 - 2 = 78
    # cycles (os), of 78 + 8 = 86 with each fold's stationary load (ws, is).
    for schedule, cycles in (("os", 64 * 78), ("ws", 64 * 86), ("is", 64 * 86)):
        found = assess("scalesim-gemm", "scalesim-8x8", f"scalesim-{schedule}", params={"M": 64})
        assert (found.metrics.latency, found.metrics.latency_compute) == (cycles, cycles)


def test_scalesim_import_eval_export_round_trip(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config, topology = write_inputs(tmp_path, "ws", 3, 5, "conv")
    code, out, _ = run(
        capsys, "import", "scalesim", "-c", config, "-t", topology, "-o", str(tmp_path / "in")
    )
    assert code == 0
    assert out.splitlines()[0] == (
        f"tenet eval -w {tmp_path}/in/c1/workload.yaml -a {tmp_path}/in/c1/architecture.yaml "
        f"-d {tmp_path}/in/c1/dataflow.yaml"
    )
    layer = tmp_path / "in" / "c3"
    files = [str(layer / f"{name}.yaml") for name in ("workload", "architecture", "dataflow")]
    code, out, _ = run(
        capsys, "eval", "-w", files[0], "-a", files[1], "-d", files[2], "--format", "json"
    )
    assert code == 0
    figures = json.loads(out)
    hand = corrected("ws", 3, 5, LAYERS["conv"][2])
    assert figures["latency_array"] == hand["cycles"]  # the array model's cycles
    summary = {s["level"]: s for s in figures["memory"]["levels"]}
    assert summary["ifmap_sram"]["accesses_read"] == hand["ifmap SRAM reads"]
    assert summary["filter_sram"]["accesses_read"] == hand["filter SRAM reads"]
    fills = {(r["level"], r["tensor"]): r["fills"] for r in figures["levels"]}
    assert fills[("ifmap_sram", "ifmap")] == hand["ifmap DRAM reads"]
    assert fills[("filter_sram", "filter")] == hand["filter DRAM reads"]
    code, _, err = run(
        capsys,
        "export",
        "scalesim",
        "-w",
        files[0],
        "-a",
        files[1],
        "-d",
        files[2],
        "-o",
        str(tmp_path / "out"),
    )
    assert code == 0, err
    back = tmp_path / "out"
    again = read_config(str(back / "scale.cfg"))
    sizes = (again.rows, again.cols, again.ifmap_kb, again.filter_kb, again.ofmap_kb)
    assert (sizes, again.dataflow, again.mode) == ((3, 5, 1, 1, 1), "ws", "CALC")
    assert read_topology(str(back / "topology.csv"), "conv") == (LAYERS["conv"][2],)


@pytest.mark.parametrize("kind", ["gemm", "conv"])
def test_scalesim_export_of_the_zoo_names(kind: str, tmp_path: Path) -> None:
    from tenet.spec import Specs

    layer = LAYERS[kind][1]
    workload = layer.workload()
    arch = load_architecture("scalesim:rows=3,cols=5")
    inputs = write_scalesim(
        Specs(workload, arch, load_dataflow("scalesim-is", arch), layer.params()).checked()
    )
    assert inputs.kind == kind
    (tmp_path / "t.csv").write_text(inputs.files["topology.csv"])
    assert read_topology(str(tmp_path / "t.csv"), kind)[0].params() == layer.params()
    assert "Dataflow : is" in inputs.files["scale.cfg"]
    assert "IfmapSramSzkB : 64" in inputs.files["scale.cfg"]


def test_scalesim_export_refuses_other_dataflows() -> None:
    from tenet.spec import Specs

    gemm, arch = load_workload("gemm"), load_architecture("systolic-2d-8x8")
    specs = Specs(gemm, arch, load_dataflow("gemm-ws-systolic", arch), {"M": 8}).checked()
    with pytest.raises(SpecError, match="none of SCALE-Sim's schedules on a 8 x 8 array"):
        write_scalesim(specs)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("Dataflow : ws", "Dataflow : rs"), "unknown dataflow 'rs'"),
        (("ArrayHeight : 4", "ArrayHeight : 0"), "must be >= 1, not 0"),
        (("ArrayHeight : 4\n", ""), "architecture_presets.ArrayHeight: missing"),
        (("SparsitySupport : false", "SparsitySupport : true"), "sparse layers are not read"),
        (("InterfaceBandwidth : CALC", "InterfaceBandwidth : FAST"), "unknown bandwidth mode"),
    ],
)
def test_scalesim_config_errors(edit: tuple[str, str], message: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.cfg"
    path.write_text(config_text("ws", 4, 4).replace(*edit))
    with pytest.raises(SpecError, match=message):
        read_config(str(path))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Layer, M, N, K,\ng, 4, 4, 4\n", "does not end with ','"),
        ("Layer, M, N, K,\ng, 4, 4,\n", "3 values; a gemm row has 4"),
        ("Layer, M, N, K,\ng, 4, x, 4,\n", "'x' is not a whole number"),
        ("Layer, M, N, K,\ng, 4, 4, 4, 2:4,\n", "sparsity '2:4' is not read"),
        ("Layer, M, N, K,\ng, 4, 4, 4,\ng, 2, 2, 2,\n", "two layers are named 'g'"),
        ("Layer, M, N, K,\na/b, 4, 4, 4,\n", "is not a file name"),
        ("Layer, M, N, K,\n", "no layer"),
    ],
)
def test_scalesim_topology_errors(text: str, message: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(SpecError, match=message):
        read_topology(str(path), "gemm")


def test_scalesim_depthwise_layer_runs_one_layer_per_channel(tmp_path: Path) -> None:
    path = tmp_path / "dw.csv"
    path.write_text("Layer name, H, W, R, S, C, N, Stride,\nDP1, 6, 6, 3, 3, 2, 1, 1,\n")
    assert [(x.name, x.channels) for x in read_topology(str(path))] == [
        ("DP1Channel_0", 1),
        ("DP1Channel_1", 1),
    ]


def test_scalesim_compare_without_scalesim(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("TENET_SCALESIM_PYTHON", raising=False)
    config, topology = write_inputs(tmp_path, "os", 4, 4, "gemm")
    with pytest.raises(ScaleSimError, match="SCALE-Sim is not installed here"):
        compare_scalesim(None, config, topology, "gemm")
    code, _, err = run(
        capsys, "compare", "--with", "scalesim", config, "-t", topology, "-i", "gemm"
    )
    assert code == 2 and "TENET_SCALESIM_PYTHON" in err
    code, _, err = run(capsys, "compare", "--with", "scalesim", config)
    assert code == 2 and "-t TOPOLOGY" in err
